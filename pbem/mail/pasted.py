"""What a player pasted back of our own mails, wherever it stands in the reply.

Some clients paste the mail answered without '>' marks, under a header we do
not know, re-wrapped at 72 or 76 columns; a player may paste part of a board to
make a point. Patterns (``pbem.mail.text``) catch our usual first lines, but
not a pasted command list ("You may send now: ... pass") and not what stands
after it. We know exactly what we sent, so a run of the reply's lines that is a
piece of one of our mails is ours, not the player's (docs/rules.md D43).

Lines are compared without case and with all white space as one space, so a
re-wrapped paste matches: each of its lines is a piece of the mail's text. A
run counts when it is two lines or more of ``SHORT_RUN`` characters or more, or
one line of ``LONE_LINE`` characters or more, and not every line of it is a
command (or another order a player sends: 'board', 'game 3'): "pass" or "bid brown 4 6"
copied from our list of commands, or a turn's commands sent as they were in an
earlier turn (our confirmation lists them), are what the player means to send.
A few lines between two pasted runs are ours too, unless one is a command: an
older board differs from the ones we know in a row here and there.
Pure: the caller gives the texts and says what a command line is.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable

SHORT_RUN = 20  # fewer characters in two lines or more may meet in our text by chance ('board' twice)
LONE_LINE = 40  # a line this long found alone in our mail is pasted; shorter, it may be a command copied from it
MAX_GAP = 8  # lines between two pasted runs that are taken for ours too (a row of an older board)
MAX_LINES = 5000  # lines of a reply compared; the rest are left to the patterns
_APART = "\x00"  # between two mails in the corpus: no run spans two mails


def _normal(text: str) -> str:
    return " ".join(text.split()).casefold()


class SentText:
    """The text of mails we sent, to find pasted runs of it in a reply."""

    def __init__(self, texts: Iterable[str]) -> None:
        self._corpus = _APART + _APART.join(_normal(text) for text in texts) + _APART
        # Every word of a pasted line is a word of our text: a set lookup rules most of the player's lines out
        # before the substring search, which costs the length of the corpus (issue 14: 5,000 lines cost 1 s).
        self._words = frozenset(self._corpus.replace(_APART, " ").split())

    def __bool__(self) -> bool:
        return len(self._corpus) > 2

    def _holds(self, piece: str) -> bool:
        return piece in self._corpus

    def pasted(self, lines: list[str], is_command: Callable[[str], bool] = lambda line: False) -> list[bool]:
        """For each line, whether it belongs to a run of lines pasted from our mails. Blank lines belong to the
        run around them."""
        mask = [False] * len(lines)
        normal = [_normal(line) for line in lines[:MAX_LINES]]
        possible = [self._words.issuperset(line.split()) for line in normal]
        i = 0
        while i < len(normal):
            if not normal[i] or not possible[i] or not self._holds(normal[i]):
                i += 1
                continue
            run, last, count = normal[i], i, 1
            for j in range(i + 1, len(normal)):
                if not possible[j]:
                    break
                if not normal[j]:
                    continue
                longer = f"{run} {normal[j]}"
                if not self._holds(longer):
                    break
                run, last, count = longer, j, count + 1
            long_enough = len(run) >= (SHORT_RUN if count >= 2 else LONE_LINE)
            if long_enough and not all(is_command(line) for line in lines[i:last + 1] if line.strip()):
                mask[i:last + 1] = [True] * (last + 1 - i)
            i = last + 1
        return _gaps_filled(mask, lines, is_command)


def _gaps_filled(mask: list[bool], lines: list[str], is_command: Callable[[str], bool]) -> list[bool]:
    """``mask`` with each short gap between two pasted runs marked too: an older board of ours pasted back
    differs from the ones we still know in a row here and there ('|green  Ann x1 |'), and those rows are ours
    as well. A gap with a command in it is the player's."""
    marked = [i for i, hit in enumerate(mask) if hit]
    for before, after in zip(marked, marked[1:]):
        gap = [line for line in lines[before + 1:after] if line.strip()]
        if 0 < len(gap) <= MAX_GAP and not any(is_command(line) for line in gap):
            mask[before + 1:after] = [True] * (after - before - 1)
    return mask


__all__ = ["LONE_LINE", "SentText"]
