"""The answers a game mail offers as links to tap (issue 44): which commands, and the ``mailto:`` URL of each.

A mail that asks a decision shows, under its first screen, the likely answers as links (``templates/mail/
notice.html.j2``). Each opens a new mail to the game's address with the game's tag for its subject,
the command, and the ``ref`` line naming this very mail (``pbem.mail.mailto``: what ties the
answer to the decision and proves the seat). Every legal command when there are at most ``MOST``; else, for a
bid, pass, the least raise and the standing bid up to the most the reader can bid (``bid up to N``, D48); for
other decisions ``CHOSEN`` of them, each kind of command in turn (by first word, in the engine's order).

Any answer is at most two taps away (issue 44, point 1): when some legal commands have no link of their own, a
"More" link follows for every group of them (``groups``): it opens a mail ``choices <words>`` with the same
``ref`` line, which pbem answers at once with a mail to that reader listing every command of the group as a link
of its own, with the same ``ref`` line again (``services.mail_in``), so that tapping one answers this mail's
decision. A group is the commands of one first word, or of the first two words when one word has more than
``limits.CHOICES_MOST`` (what one mail of choices holds within the 45 KB of point 5), cut into parts of at most
that many when two words still have more: the groups cover every legal command and each fits one mail.

The game's address is not known where the mail is made (the sender knows it): the URL says ``ADDRESS_HERE``,
which ``adapters.outbox_sender`` writes over as it builds the mail. Hidden information stays hidden: a mail's
links hold only commands its reader may send now, written from their own hand, and a token of their own mail.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from typing import Any, Callable

from ...games import get_game
from ...games.errors import CommandError
from ...limits import CHOICES_MOST
from ...mail.mailto import ADDRESS_HERE, mailto, ref_line
from ..common.game_info import GameInfo
from .delivery import has_auctions

MOST = 12  # links a mail shows at most: every legal command when there are no more
# Links of commands of a mail whose legal commands are more than MOST, besides its More links: every command is two
# taps away through those, so a few (each kind of command in turn); eight, before the More links, made the largest
# mails 6 bytes short of the 45 KB of issue 44, point 5, and a More link costs some 160 bytes.
CHOSEN = 4


CHOICES_WORD = "choices"
_PART = re.compile(r"#([0-9]{1,6})")


@dataclass(frozen=True)
class Taps:
    links: list[dict[str, str]]  # {"command", "href"}: the commands, then a "More" link a group (``Group.label``)
    more: int  # legal commands without a link of their own, each in a group of a "More" link


@dataclass(frozen=True)
class Group:
    """Legal commands that share their first ``words``: part ``part`` of ``parts``."""

    words: tuple[str, ...]
    commands: tuple[str, ...]
    part: int = 1
    parts: int = 1

    @property
    def line(self) -> str:
        """The line that asks pbem for this group's mail of choices."""
        return " ".join((CHOICES_WORD, *self.words, *([f"#{self.part}"] if self.parts > 1 else [])))

    @property
    def label(self) -> str:
        return f"More: {' '.join(self.words)} \u2026" + (f" ({self.part} of {self.parts})" if self.parts > 1 else "")


def parts(words: tuple[str, ...], commands: list[str], most: int = CHOICES_MOST) -> list[Group]:
    """``commands`` (all beginning with ``words``) in parts of at most ``most``, in their order."""
    count = max(1, -(-len(commands) // most))
    return [Group(words, tuple(commands[i * most:(i + 1) * most]), i + 1, count) for i in range(count)]


def groups(legal: list[str], most: int = CHOICES_MOST) -> list[Group]:
    """Every legal command in exactly one group of at most ``most``: by first word in the engine's order; a word
    with more by its first two words, cut into parts when those still have more."""
    found: list[Group] = []
    for first, commands in _by_words(legal, 1).items():
        if len(commands) <= most:
            found.append(Group(first, tuple(commands)))
        else:
            for two, under in _by_words(commands, 2).items():
                found += parts(two, under, most)
    return found


def choices(legal: list[str], line: str, most: int = CHOICES_MOST) -> Group | None:
    """The group a line ``choices <words> [#part]`` asks for (``Group.line``), typed or from a link: the legal
    commands that begin with those words (any case), the part asked of them; None when none does."""
    words = line.split()[1:]
    part = 1
    if words and (number := _PART.fullmatch(words[-1])):
        words, part = words[:-1], int(number.group(1))
    wanted = [word.lower() for word in words]
    commands = [command for command in legal if [w.lower() for w in command.split()[:len(wanted)]] == wanted]
    if not commands:
        return None
    prefix = tuple(commands[0].split()[:len(wanted)])  # as the engine writes them
    found = parts(prefix, commands, most)
    return found[part - 1] if 1 <= part <= len(found) else None


def _by_words(commands: list[str], count: int) -> dict[tuple[str, ...], list[str]]:
    found: dict[tuple[str, ...], list[str]] = {}
    for command in commands:
        found.setdefault(tuple(command.split()[:count]), []).append(command)
    return found


def taps(info: GameInfo, seat: int, number: int, tag: str, token: str, secret: str = "") -> Taps:
    """The links of the mail to ``seat`` that asks decision ``number`` in the game of subject tag ``tag``;
    ``token`` names the mail (``mailto.ref_token``). The ``ref`` line proves the seat as a Reply does, so the
    seat's secret word (``secret``, "" for none) goes into a link only when the mail has no token to name."""
    legal = info.state.legal_commands()  # the engine lists them anew at each call
    commands, more = tap_commands(info, seat, legal)
    shown = set(commands)
    asks = [group for group in groups(legal) if not shown.issuperset(group.commands)] if more else []
    answer = _answer(tag, number, token, secret)
    return Taps([answer(command, command) for command in commands] + [answer(g.label, g.line) for g in asks], more)


def choice_links(group: Group, tag: str, number: int, token: str, secret: str = "") -> list[dict[str, str]]:
    """The links of a mail of choices: every command of ``group`` as a link of the decision mail that ``token``
    names (without a token, of decision ``number``), as ``taps`` makes them: tapping one answers that decision."""
    answer = _answer(tag, number, token, secret)
    return [answer(command, command) for command in group.commands]


def _answer(tag: str, number: int, token: str, secret: str) -> Callable[[str, str], dict[str, str]]:
    """A link written ``text`` that opens a mail of the line ``line``, as an answer to decision ``number``."""
    tail = f"\n{ref_line(token)}" if token else (f"\nsecret {secret}" if secret else "")
    # A link's subject is the game's tag ('[Manhattan #4]'), as the thread's subject starts: the body's ``ref``
    # line ties the answer to its decision, and the whole subject (the players' names, up to 200 characters)
    # with a '(decision N)' in each of a dozen links would cost up to 2.6 KB a mail (issue 44, point 5).
    link_subject = tag if token else f"{tag} (decision {number})"
    return lambda text, line: {"command": text, "href": mailto(ADDRESS_HERE, link_subject, line + tail)}


def tap_commands(info: GameInfo, seat: int, legal: list[str]) -> tuple[list[str], int]:
    """The commands to show as links to ``seat``, who must decide now, of its ``legal`` ones, and how many of
    those are not shown."""
    state = info.state
    if len(legal) <= MOST:
        return list(legal), 0
    reach = get_game(info.kind).bid_reach(state) if has_auctions(info.kind) else None
    chosen = _bids(state, seat, legal, reach) if reach is not None else _each_kind_in_turn(legal, CHOSEN)
    shown = set(chosen)
    return chosen, sum(1 for command in legal if command not in shown)


def _total(command: str) -> int:
    return sum(int(word) for word in command.split() if word.isdigit())


def _bids(state: Any, seat: int, legal: list[str], reach: dict[str, Any]) -> list[str]:
    """Pass, the least raise (the fewest cards of the least total that beats the high bid), and the standing bid
    up to the most the reader's cards can bid (checked by the engine): bid for me while my cards can. A bid mail
    was the largest mail before the links (44.4 KB as sent, 0.6 KB under the 45 KB of issue 44): no more."""
    chosen = [command for command in legal if command == "pass"]
    bids = sorted((c for c in legal if c.split()[0] == "bid"), key=lambda c: (_total(c), len(c.split())))
    if not bids:
        return chosen
    least = _total(bids[0])
    chosen.append(bids[0])
    most = int(reach["most"])
    if most > least:
        command = f"bid up to {most}"
        try:
            state.parse(seat, command)
            chosen.append(command)
        except CommandError:
            pass
    return chosen


def _each_kind_in_turn(commands: list[str], room: int) -> list[str]:
    """Up to ``room`` of ``commands``: the first of each first word, then the second of each, and so on."""
    kinds: dict[str, list[str]] = {}
    for command in commands:
        kinds.setdefault(command.split()[0], []).append(command)
    chosen: list[str] = []
    depth = 0
    while len(chosen) < room and any(depth < len(group) for group in kinds.values()):
        chosen += [group[depth] for group in kinds.values() if depth < len(group)][: room - len(chosen)]
        depth += 1
    return chosen


__all__ = ["CHOICES_WORD", "CHOSEN", "MOST", "Group", "Taps", "choice_links", "choices", "groups", "parts", "tap_commands",
           "taps"]
