"""Where the commands are in a player's line, and whether the line is prose.

Players write to friends, not to a parser: "Hi all, bid brown 4 6", "bid brown
4 6 thanks!", and under the command "Take care," and their name. A line is
read against the game's words (``pbem.games.vocabulary.Vocabulary``); the rule
is docs/rules.md D42:

- a command starts at a command word that begins the line or follows a clause
  mark (``, . ! ? : ; -`` and the like), so "Hi all, bid ..." is read and "Why
  did Bob bid ..." is not;
- it goes on over the game's words (colors, places, businesses, cities, their
  aliases, numbers, small typos of them, filler words) and ends at the first
  other word, or after a word that ends a sentence;
- an order may start with the auction it is for and a colon ("42W: up to 12
  gray", "TS: pass"): the game's labels; the command word after the colon is
  part of it;
- a small typo of a command word starts one too ("plcae 34W orange", "bdi 5",
  or "pas" alone on its line), so that the parser answers "did you mean place?";
- it is a command if it holds a game word ("bid brwn 4": a typo, so the parser
  can answer "did you mean brown?"), or if it is a command by itself ("pass",
  "A", "stop") and stands alone: at the end of the line or followed by a clause
  mark ("pass", "Pass, sorry"); "B." under a mail is Bob, not action B;
- otherwise it is prose: "Take care", "Pass my regards", "Move fast",
  "A quick question", "Stop sending these".

A line may hold several commands separated by ';' (or by clause marks). What
is read is reported with what was left around it, so the reply can say which
part of the line was taken. Pure: no game state, no I/O.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field

from ..games.vocabulary import Vocabulary, near
from .message import without_tags

_TOKEN = re.compile(r"\S+")
_EDGE = "\"'`()[]{}<>*_«»“”‘’.,;:!?¡¿…"  # stripped from a token's ends to find its word
_TRAILING = _EDGE.replace(")", "").replace("]", "")  # stripped from a command's end: not a closing bracket
_CLAUSE_END = tuple(",.;:!?)…")  # a token ending in one of these closes a clause
_SENTENCE_END = tuple(".;!?…")  # ... and one of these also ends a command ('bid: brown 4' goes on)
_COLON = re.compile(r":(\s|$)")
_DASHES = frozenset({"-", "--", "–", "—"})
_LABEL_WORDS = 4  # the most words of a label: '42nd Street West:'
_ABBREVIATION = 3  # 'st.' in '34th st. west': a short word's dot does not end a sentence


@dataclass(frozen=True)
class LineReading:
    """One line as read: the commands found in it (in order) and the text around them that was not read."""

    line: str
    commands: list[str] = field(default_factory=list)
    left: list[str] = field(default_factory=list)  # the pieces of the line that are not commands

    @property
    def whole(self) -> bool:
        """Whether the line is exactly its commands (nothing of it was left unread)."""
        return bool(self.commands) and not self.left


def read_line(line: str, vocabulary: Vocabulary, most: int | None = None) -> LineReading:
    """The commands in ``line`` and what is left of it; no commands: the line is prose. With ``most``, reading
    stops at that many commands and the rest of the line is left unread: a mail of more commands than it may have
    is refused whatever they are, and 330,000 of them on one line cost 1.8 s of CPU to read (issue 41)."""
    commands: list[str] = []
    left: list[str] = []
    segments = line.split(";")
    for at, segment in enumerate(segments):
        if most is not None and len(commands) >= most:
            _keep_words(";".join(segments[at:]), left)
            break
        found, rest = _read_segment(segment, vocabulary, None if most is None else most - len(commands))
        commands += found
        left += rest
    return LineReading(line.strip(), commands, left)


def _word(token: str) -> str:
    return token.strip(_EDGE).lower()


def _read_segment(segment: str, vocabulary: Vocabulary, most: int | None) -> tuple[list[str], list[str]]:
    tokens = [(m.start(), m.end(), m.group()) for m in _TOKEN.finditer(segment)]
    commands: list[str] = []
    left: list[str] = []
    unread_from = 0  # where the text not yet taken by a command starts
    i = 0
    while i < len(tokens) and (most is None or len(commands) < most):
        end = _command_at(tokens, i, vocabulary)
        if end is None:
            i += 1
            continue
        start = tokens[i][0] + (len(tokens[i][2]) - len(tokens[i][2].lstrip(_EDGE)))
        text = _COLON.sub(r"\1", segment[start:tokens[end - 1][1]].rstrip(_TRAILING))  # 'Cards: orange gray' too
        _keep_words(segment[unread_from:start], left)
        commands.append(text)
        unread_from = tokens[end - 1][1]
        i = end
    _keep_words(segment[unread_from:], left)
    return commands, left


def _keep_words(text: str, left: list[str]) -> None:
    text = text.strip(" \t,;-–—")
    if text.strip(_EDGE + " "):
        left.append(text)


def _command_at(tokens: list[tuple[int, int, str]], i: int, vocabulary: Vocabulary) -> int | None:
    """The end (exclusive) of the command that starts at token ``i``, or None if none starts there."""
    if i > 0 and not _closes_clause(tokens[i - 1][2]):
        return None  # in the middle of a sentence: "why did Bob bid brown 4" (looked at first: it costs least)
    typo = None
    label_end = _label_end(tokens, i, vocabulary)  # '42W: up to 12', 'Times Square: pass'
    labelled = label_end is not None
    if _word(tokens[i][2]) not in vocabulary.commands and not labelled:
        typo = vocabulary.mistyped_command(_word(tokens[i][2]))
        if typo is None:
            return None
    meant = 0  # game words (not fillers) after the command word
    j = label_end or i + 1
    if labelled and j < len(tokens) and (_word(tokens[j][2]) in vocabulary.commands
                                         or vocabulary.mistyped_command(_word(tokens[j][2]))):
        meant, j = 1, j + 1  # 'TS: pass', '42W: build max': the command word is the label's
        if _ends_sentence(tokens[j - 1][2]):
            return j
    if not _ends_sentence(tokens[i][2]):
        while j < len(tokens):
            word = _word(tokens[j][2])
            filler = word in vocabulary.fillers and (word not in vocabulary.commands or j == i + 1)  # 'action A'
            if not word or not filler and (word in vocabulary.commands or not _means(word, vocabulary)):
                break
            meant += word not in vocabulary.fillers
            j += 1
            if _ends_sentence(tokens[j - 1][2]):
                break
    if meant:
        return j  # 'bid brown 4 6 thanks!', and 'plcae 34W orange' for the parser to say 'did you mean place?'
    if typo is not None:
        return j if typo in vocabulary.alone and len(tokens) == 1 else None  # 'pas' alone; 'Bad luck' is prose
    if _word(tokens[i][2]) not in vocabulary.alone:
        return None  # 'B.' under a mail is Bob, 'Move on' is prose
    if j == len(tokens) or (j == i + 1 and (_closes_clause(tokens[i][2]) or tokens[j][2] in _DASHES)):
        return j  # alone in its clause: 'pass', 'Pass, sorry', 'pass - sorry', 'stop building'
    return None  # 'Take care', 'Pass my regards', 'Stop sending', 'Play on, Bob': prose


def _label_end(tokens: list[tuple[int, int, str]], i: int, vocabulary: Vocabulary) -> int | None:
    """The token after a label that starts at token ``i`` (a name of the game's labels ending in a colon:
    '42W:', 'Times Square:', 'Central Park:'), or None if none starts there."""
    for k in range(i, min(i + _LABEL_WORDS, len(tokens))):
        if tokens[k][2].endswith(":"):
            said = " ".join(_word(t[2]) for t in tokens[i:k + 1])
            return k + 1 if said in vocabulary.labels or _unknown_label(tokens[i:k + 1], said, vocabulary) else None
    return None


_CODE = re.compile(r"(?=\w*\d)(?=\w*[^\W\d])\w{2,4}|[A-Z]{2,3}")  # '42X:', '43W:', 'XY:': a place's code mistyped


def _unknown_label(tokens: list[tuple[int, int, str]], said: str, vocabulary: Vocabulary) -> bool:
    """Whether the words before a colon are an auction's label that the game does not know: a code's shape
    ('42X:', '43W:', 'XY:') or a small typo of a label ('Tims Square:'). The order after it is then read with it,
    and the parser refuses it, where it would otherwise be a command of its own ('pass' in the auction that runs,
    issue 43). Only for a game with labels, and never a command word ('Cards: orange gray', 'bid: brown 4')."""
    if not vocabulary.labels or any(_word(t[2]) in vocabulary.commands for t in tokens):
        return False
    if len(tokens) == 1 and _CODE.fullmatch(tokens[0][2].strip(_EDGE)):
        return True
    return near(said, vocabulary.labels) is not None


def _means(word: str, vocabulary: Vocabulary) -> bool:
    """Whether every piece of ``word`` is a game word ('4,6' and '4+5' are two numbers)."""
    return all(vocabulary.means(piece) for piece in re.split(r"[,+]", word) if piece)


def _closes_clause(token: str) -> bool:
    return token in _DASHES or token.endswith(_CLAUSE_END)


def _ends_sentence(token: str) -> bool:
    if not token.endswith(_SENTENCE_END):
        return False
    word = _word(token)
    return not (token.endswith(".") and not token.endswith("..") and word.isalpha() and len(word) <= _ABBREVIATION)


# 'Re:', 'AW:', 'SV:', 'Odp:', 'Fwd:', 'RE[2]:' ... : what clients put before the subject they answer or forward
_REPLY_PREFIX = re.compile(r"^\s*(re|aw|sv|vs|odp|antw|atb|vá|ynt|res|rif|r|fwd?|wg|tr|rv|enc|doorst|otv|отв|回复|答复)"
                           r"\s*(\[\d+\])?\s*[:：]\s*", re.IGNORECASE)


def own_subject(subject: str, ours: list[str]) -> str:
    """What the player wrote in a subject: without reply prefixes, without the subject of our mail it answers
    (one of ``ours``) and without game and decision tags. 'Re: [Manhattan #2] your turn: play a card (decision
    7) play 5 cairo 1' -> 'play 5 cairo 1'. A reply to a subject that is none of ``ours`` gives '': its words
    may be ours, unknown."""
    text = subject
    while (prefix := _REPLY_PREFIX.match(text)) and prefix.end():
        text = text[prefix.end():]
    answered = next((sent for sent in sorted(ours, key=len, reverse=True) if sent and sent in text), None)
    if answered is not None:
        text = text.replace(answered, " ")
    elif text != subject:
        return ""
    return without_tags(text)


__all__ = ["LineReading", "own_subject", "read_line"]
