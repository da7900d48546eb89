"""Manhattan commands: one small value type per decision, and their text form.

``str(action)`` is the canonical command line; ``parse_command`` reads any
accepted spelling back into the same value. Parsing only checks form; whether a
command is allowed now (and, with two players, which color a command without
one means) is decided by :mod:`.rules`.

Canonical forms (docs/rules.md, Manhattan part, "Command grammar"):

- ``choose 1 1 2 3 4 4`` (2 players: ``choose blue 1 1 2 3``): the round's parts, smallest first;
- ``play 5 sydney 3`` (2 players: ``play 5 sydney blue 3``): card 5, a 3-story part, in Sydney;
- ``pass 5 3`` (2 players: ``pass 5 blue 3``): only when no part fits anywhere (M10).
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from functools import lru_cache

from ..errors import InvalidCommandError
from ..vocabulary import Vocabulary, did_you_mean, did_you_mean_command
from .board import SITES, Board, load_board, normalise


@dataclass(frozen=True)
class Choose:
    """The round's parts, as sizes in ascending order; ``color`` is None when the player has one color."""

    color: str | None
    sizes: tuple[int, ...]

    def __str__(self) -> str:
        return " ".join(["choose", *([self.color] if self.color else []), *(str(s) for s in self.sizes)])


@dataclass(frozen=True)
class Play:
    """Play ``card``, build a part of ``size`` stories on the card's site in ``city``."""

    card: int
    city: str
    color: str | None
    size: int

    def __str__(self) -> str:
        return " ".join(["play", str(self.card), self.city, *([self.color] if self.color else []), str(self.size)])


@dataclass(frozen=True)
class Pass:
    """No part fits with any card in hand: play ``card`` and put a part of ``size`` back in the box (M10)."""

    card: int
    color: str | None
    size: int

    def __str__(self) -> str:
        return " ".join(["pass", str(self.card), *([self.color] if self.color else []), str(self.size)])


Action = Choose | Play | Pass

HELP = (
    "Commands: choose <sizes> (for example 'choose 1 1 2 3 4 4'; with two players 'choose blue 1 1 2 3'); "
    "play <card> <city> <size> (for example 'play 5 sydney 3'; with two players 'play 5 sydney blue 3'); "
    "pass <card> <size> (only when no part fits anywhere)"
)

_SPLIT = re.compile(r"[\s,+;:/]+")
_TIMES = re.compile(r"(\d)\s*[x×*]\s*(\d)")
# Words a player may add for readability; they carry no meaning.
_FILLER = frozenset({
    "card", "cards", "in", "on", "at", "a", "an", "the", "part", "parts", "piece", "pieces", "story", "stories",
    "storey", "storeys", "floor", "floors", "size", "with", "of", "and", "site", "city", "build", "builds",
})
_WORDS = {"choose": "choose", "play": "play", "build": "play", "pass": "pass"}
COMMAND_WORDS = frozenset(_WORDS)  # first words that make a line a command


def vocabulary(board: Board) -> Vocabulary:
    """The words of Manhattan's commands, for the mail reader: colors, cities and their aliases; the filler
    words a command may hold ('play card 5 in sydney') do not alone make a line a command."""
    words = {*board.colors, *board.color_aliases, *(token for alias in board.city_aliases for token in alias.split())}
    return Vocabulary(commands=COMMAND_WORDS, words=frozenset(words), fillers=_FILLER - COMMAND_WORDS | {"x"},
                      alone=frozenset({"pass"}))  # never a whole command, but the parser explains what it needs


def split_commands(line: str) -> list[str]:
    """Several commands may share a line, separated by ';'."""
    return [part.strip() for part in line.split(";") if part.strip()]


def _tokens(text: str) -> list[str]:
    text = _TIMES.sub(r"\1 x \2", normalise(text).replace(".", " "))
    return [t for t in _SPLIT.split(text) if t]


@dataclass
class _Read:
    word: str
    numbers: list[str]
    cities: list[str]
    colors: list[str]


def _read(board: Board, text: str) -> _Read:
    toks = _tokens(text)
    if not toks:
        raise _error(text, "the command is empty")
    word = _WORDS.get(toks[0])
    if word is None:
        raise _error(text, f"'{toks[0]}' is not a command{did_you_mean_command(toks[0], COMMAND_WORDS)}")
    numbers: list[str] = []
    cities: list[str] = []
    colors: list[str] = []
    i = 1
    while i < len(toks):
        tok = toks[i]
        matched = False
        for n in (3, 2, 1):  # city names of up to three words, longest first
            key = " ".join(toks[i : i + n])
            code = board.city_aliases.get(key) if i + n <= len(toks) else None
            if code is not None and not (n == 1 and tok.isdigit()):
                cities.append(code)
                i += n
                matched = True
                break
        if matched:
            continue
        color = board.color_aliases.get(tok, tok)
        if color in board.colors:
            colors.append(color)
        elif tok.isdigit():
            numbers.append(tok)
        elif tok == "x" and numbers:
            numbers.append("x")  # '2x1' or '2 x 1': two 1-story parts
        elif tok not in _FILLER:
            raise _error(text, _unknown_word(board, word, tok))
        i += 1
    return _Read(word, numbers, cities, colors)


def _unknown_word(board: Board, word: str, tok: str) -> str:
    """Why ``tok`` is not understood; in a 'play' command most likely a misspelt city, so the cities are listed
    with the nearest spelling (issue 13.7)."""
    names = [c.name for c in board.cities]
    why = f"'{tok}' is neither a number, a city nor a color"
    if word != "play":
        return why
    guess = did_you_mean(tok, [*board.city_aliases, *board.colors],
                         spell=lambda w: board.name(board.city_aliases[w]) if w in board.city_aliases else w)
    return (why + guess
            + f"; the cities are {', '.join(names[:-1])} and {names[-1]}")


def _error(text: str, why: str) -> InvalidCommandError:
    return InvalidCommandError(f"Cannot read '{text.strip()}': {why}. {HELP}")


def _sizes(text: str, numbers: list[str], board: Board) -> tuple[int, ...]:
    """'1 1 2 3', '1123' and '2x1 2' all read as sizes."""
    sizes: list[int] = []
    i = 0
    while i < len(numbers):
        tok = numbers[i]
        if i + 2 < len(numbers) and numbers[i + 1] == "x":
            count, size = int(tok), numbers[i + 2]
            if not size.isdigit() or len(size) != 1:
                raise _error(text, f"'{tok} x {size}' is not a count of parts")
            sizes.extend([int(size)] * count)
            i += 3
            continue
        if tok == "x":
            raise _error(text, "'x' needs a count before it and a size after it")
        sizes.extend(int(ch) for ch in tok)
        i += 1
    for size in sizes:
        if size not in board.sizes:
            raise _error(text, f"{size} is not a part size (parts have 1 to {len(board.sizes)} stories)")
    return tuple(sorted(sizes))


def _one_color(text: str, colors: list[str]) -> str | None:
    if len(set(colors)) > 1:
        raise _error(text, f"name one color, not {' and '.join(colors)}")
    return colors[0] if colors else None


def _card_and_size(text: str, r: _Read, board: Board) -> tuple[int, int]:
    if len(r.numbers) != 2 or "x" in r.numbers:
        raise _error(text, "give the card number and then the part's size, for example "
                     + ("'play 5 sydney 3'" if r.word == "play" else "'pass 5 3'"))
    card, size = int(r.numbers[0]), int(r.numbers[1])
    if not 1 <= card <= SITES:
        raise _error(text, f"{card} is not a card (cards are numbered 1 to {SITES})")
    if size not in board.sizes:
        raise _error(text, f"{size} is not a part size (parts have 1 to {len(board.sizes)} stories)")
    return card, size


def parse_command(board: Board, text: str) -> Action:
    """Read one command. Raises InvalidCommandError when the text is not a command.

    A color may be missing (None): the rules fill it in from the player's colors. Commands are values, so the
    readings of the one board are cached (a mail game reads the same few hundred command lines again and again).
    """
    if board is load_board():
        return _parse_cached(text)
    return _parse(board, text)


@lru_cache(maxsize=8192)
def _parse_cached(text: str) -> Action:
    return _parse(load_board(), text)


def _parse(board: Board, text: str) -> Action:
    r = _read(board, text)
    if r.word == "choose":
        if r.cities:
            raise _error(text, "choosing parts names no city")
        sizes = _sizes(text, r.numbers, board)
        if not sizes:
            raise _error(text, "say which parts you choose, for example 'choose 1 1 2 3 4 4'")
        return Choose(_one_color(text, r.colors), sizes)
    card, size = _card_and_size(text, r, board)
    color = _one_color(text, r.colors)
    if r.word == "pass":
        if r.cities:
            raise _error(text, "passing names no city: 'pass <card> <size>'")
        return Pass(card, color, size)
    if len(set(r.cities)) != 1:
        names = ", ".join(board.city_codes)
        raise _error(text, f"name one city ({names})" if not r.cities else "name only one city")
    return Play(card, r.cities[0], color, size)


__all__ = ["HELP", "Action", "Choose", "Pass", "Play", "parse_command", "split_commands"]
