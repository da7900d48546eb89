"""The lines of a signup mail (docs/signup.md): ``games``, ``new KIND [players N] [side back] [deadline 2d]``,
``join N [as NAME]``, ``leave N``, ``start [N] [with robots]``, ``watch N [as NAME]``, ``unwatch N``, ``resign N`` and
``confirm CODE``, read into ``SignupLine``; ``SignupLineError`` says what is wrong with a line that starts with
one of these words and what to send instead; and the few words about a table every side says alike (its
description, a player's name when they gave none, a code's hash, a table as listed). Pure: nothing here looks
at a game or the database."""

from __future__ import annotations

import hashlib
import re
import textwrap
from dataclasses import dataclass
from datetime import datetime
from typing import Any

from ...games import get_game, names as game_names
from ...timespans import TimingError, format_duration, parse_duration
from ...words import cut as quoted
from ..common.timing import Timing
from .player_names import shown, why_not

WORDS = ("games", "new", "join", "leave", "start", "watch", "unwatch", "resign", "confirm")
_CODE = r"[a-z]{3,9}-[a-z]{3,9}"  # a code as services.table.signup makes it: two words
CODE = re.compile(rf"\b({_CODE})\b")
MAX_DEADLINE_DAYS = 30
WORD_QUOTED = 20  # characters of one word of the sender's that a refusal quotes back


def cut(text: str, most: int = WORD_QUOTED) -> str:
    """``text``, or its start and '...' when longer than ``most``: what a refusal quotes of the sender's words."""
    return quoted(text, most)


class SignupLineError(ValueError):
    """A signup line that cannot be read: ``why`` it cannot, and ``instead``, a line that would do."""

    def __init__(self, why: str, instead: str) -> None:
        super().__init__(why)
        self.why = why
        self.instead = instead


@dataclass(frozen=True)
class SignupLine:
    line: str
    action: str  # one of WORDS
    number: int | None = None  # the table (join, leave, start) or game (watch, unwatch, resign) it names
    kind: str = ""  # new: the engine's name
    players: int | None = None  # new: the seats (None: the rules' most)
    back_side: bool = False  # new: Fifth Avenue's 6-plot side
    deadline: int | None = None  # new: seconds for a decision (None: pbem's default)
    name: str = ""  # join/new ... as NAME
    robots: bool = False  # start ... with robots
    code: str = ""  # confirm CODE


def kind_of(word: str) -> str:
    """'fifth-avenue', 'Fifth Avenue', 'fifthavenue', 'manhattan' -> the engine's name; SignupLineError else."""
    key = re.sub(r"[\s_]+", "-", word.strip().lower())
    for name in game_names():
        if key in (name, name.replace("-", "")):
            return name
    raise SignupLineError(f"pbem hosts no game called '{cut(word)}'", "new " + " or new ".join(game_names()))


def _number(word: str | None, what: str, example: str) -> int:
    if word is None:
        raise SignupLineError(f"it names no {what}", example)
    found = re.fullmatch(r"#?([0-9]{1,9})", word)
    if not found or int(found.group(1)) == 0:
        raise SignupLineError(f"'{cut(word)}' is not the number of a {what}", example)
    return int(found.group(1))


def _as_name(words: list[str], example: str) -> str:
    """The NAME of '... as NAME' (the words after 'as'), or ""."""
    if not words:
        return ""
    if words[0].lower() != "as" or len(words) == 1:
        raise SignupLineError(f"'{cut(' '.join(words))}' is not 'as NAME'", example)
    name = shown(" ".join(words[1:]))
    if len(name) > 40 or not re.fullmatch(r"[\w][\w .'-]*", name):
        raise SignupLineError(f"'{cut(name, 40)}' is not a name: letters, digits, spaces, ' . -, at most 40", example)
    why = why_not(name)
    if why:
        raise SignupLineError(f"'{name}' may not be a player's name: {why}", example)
    return name


def _new(line: str, words: list[str]) -> SignupLine:
    example = "new fifth-avenue players 3 side back deadline 2d"
    rest = words[1:]
    if not rest:
        raise SignupLineError("it names no game", "new fifth-avenue or new manhattan")
    # The kind may be two words ('new fifth avenue').
    if len(rest) > 1 and kind_candidate(" ".join(rest[:2])):
        kind, rest = kind_of(" ".join(rest[:2])), rest[2:]
    else:
        kind, rest = kind_of(rest[0]), rest[1:]
    players = deadline = None
    back_side = False
    name = ""
    engine = get_game(kind)
    while rest:
        key = rest[0].lower()
        value = rest[1] if len(rest) > 1 else None
        if key == "as":
            name, rest = _as_name(rest, f"new {kind} as Ann"), []
            continue
        if value is None:
            raise SignupLineError(f"'{cut(rest[0])}' has no value", example)
        if key in ("players", "seats"):
            if not value.isdigit() or int(value) not in engine.PLAYERS:
                raise SignupLineError(f"{engine.TITLE} is for {', '.join(map(str, engine.PLAYERS))} players, not "
                                      f"'{cut(value)}'", f"new {kind} players {max(engine.PLAYERS)}")
            players = int(value)
        elif key == "side":
            if value.lower() not in ("back", "front"):
                raise SignupLineError(f"the side is 'back' or 'front', not '{cut(value)}'", f"new {kind} side back")
            if value.lower() == "back" and kind != "fifth-avenue":
                raise SignupLineError(f"{engine.TITLE}'s board has one side", f"new {kind}")
            back_side = value.lower() == "back"
        elif key == "deadline":
            try:
                deadline = parse_duration(value, "deadline")
            except (TimingError, ValueError) as exc:
                raise SignupLineError(f"'{cut(value)}' is not a length of time ({cut(str(exc), 60)})",
                                      f"new {kind} deadline 2d") from None
            if deadline > MAX_DEADLINE_DAYS * 86400:
                raise SignupLineError(f"a deadline is at most {MAX_DEADLINE_DAYS} days", f"new {kind} deadline 3d")
        else:
            raise SignupLineError(f"'{cut(rest[0])}' is not an option of new (players, side, deadline, as)", example)
        rest = rest[2:]
    return SignupLine(line, "new", kind=kind, players=players, back_side=back_side, deadline=deadline, name=name)


def kind_candidate(words: str) -> bool:
    try:
        kind_of(words)
        return True
    except SignupLineError:
        return False


def read_signup_line(line: str) -> SignupLine | None:
    """The signup command of ``line``; None when the line is no signup line (its first word is none of WORDS);
    SignupLineError when it starts with one but cannot be read."""
    words = line.strip().rstrip(".").split()
    if not words:
        return None
    word = words[0].lower().rstrip(":,")
    if word not in WORDS:
        return None
    if word == "games":
        if len(words) > 1:
            return None  # prose ('games are fun')
        return SignupLine(line, "games")
    if word == "new":
        return _new(line, words)
    if word == "confirm":
        found = CODE.search(line.lower())
        if not found:
            raise SignupLineError("it has no code (two words joined by '-', as in our mail)", "confirm word-word")
        return SignupLine(line, "confirm", code=found.group(1))
    if word == "start":
        rest = words[1:]
        number = None
        if rest and rest[0].lstrip("#").isdigit():
            number, rest = _number(rest[0], "table", "start 3"), rest[1:]
        robots = [w.lower() for w in rest] == ["with", "robots"]
        if rest and not robots:
            raise SignupLineError(f"'{cut(' '.join(rest))}' is not 'with robots'", "start 3 with robots")
        return SignupLine(line, "start", number=number, robots=robots)
    what = "table" if word in ("join", "leave") else "game"
    number = _number(words[1] if len(words) > 1 else None, what, f"{word} 3")
    if word in ("join", "watch"):  # a watcher's name is how the players hear of them (never their address)
        return SignupLine(line, word, number=number,
                          name=_as_name(words[2:], f"{word} {number} as {'Ann' if word == 'join' else 'Wat'}"))
    if len(words) > 2:
        raise SignupLineError(f"'{cut(word)}' takes the number of a {what} alone", f"{word} {number}")
    return SignupLine(line, word, number=number)


def code_in(text: str) -> str:
    """A confirmation code in ``text`` (a subject that answers our mail), or ""."""
    found = re.search(rf"\bconfirm\b[^a-z]*code\s+({_CODE})", text.lower()) or \
        re.search(rf"\bcode\s+({_CODE})\b", text.lower())
    return found.group(1) if found else ""


@dataclass(frozen=True)
class TableInfo:
    id: int
    kind: str
    words: str  # 'Fifth Avenue for 3 players, 3 days a decision'
    seats: int
    opener: str
    status: str
    game_id: int | None
    created_at: datetime
    seated: list[tuple[str, str]]  # (name, address)


def unbroken(text: str, indent: str = "  ", hang: str = "    ") -> list[str]:
    """``text`` in lines of 72 columns, never broken inside a word: a command to copy stays whole
    ('new fifth-avenue')."""
    return textwrap.wrap(text, 72, initial_indent=indent, subsequent_indent=hang, break_on_hyphens=False,
                         break_long_words=False)


def code_hash(code: str) -> str:
    return hashlib.sha256(code.strip().lower().encode()).hexdigest()


def name_of(email: str) -> str:
    """The name a player who gave none is shown by: the first letters of their address ('ann.lee@...' ->
    'Ann'), never the address."""
    letters = re.match(r"[^\W\d_]+", email.split("@")[0])
    name = letters.group(0)[:20].capitalize() if letters else ""
    return name if name and not why_not(name) else "Player"  # 'moderator@...' does not sit as 'Moderator'


def table_words(table: Any) -> str:
    """'Fifth Avenue for 3 players, back side, 2 days a decision' of a table (``SignupTable``)."""
    engine = get_game(table.kind)
    words = [f"{engine.TITLE} for {table.seats} players"]
    if table.options.get("back_side"):
        words.append("back side")
    words.append(f"{format_duration(Timing.from_dict(table.timing).deadline)} a decision")
    return ", ".join(words)


__all__ = ["CODE", "WORDS", "cut", "SignupLine", "SignupLineError", "TableInfo", "code_hash", "code_in", "kind_of", "name_of",
           "read_signup_line", "table_words", "unbroken"]
