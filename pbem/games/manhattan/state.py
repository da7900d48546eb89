"""The whole Manhattan position, and its one serial form.

The state is plain data (ints, strings, lists, dicts) so that it round-trips
through JSON exactly. Its small public API follows OpenSpiel: who acts now,
which commands are legal, apply one, is it over. The rules themselves live in
:mod:`.rules`; this module only holds and copies the data.

Cards are kept as the numbers printed on them (1-9): what a card means depends
on who plays it (``board.absolute_site``). Sites in ``cities`` are numbered as
seen from side 0 (index 0 is site 1). Parts are counted per color as lists of
four counts, for the sizes 1, 2, 3 and 4 stories.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from ..base import GameState
from .board import Board, load_board, seat_colors, seat_sides, seating

TERMINAL = -4  # OpenSpiel's convention for "nobody acts: the game is over"
GAME = "manhattan"
CHOOSE = "choose"
BUILD = "build"
OVER = "over"


@dataclass
class State(GameState):
    GAME = GAME
    RULES = f"{__package__}.rules"
    VIEW = f"{__package__}.view"

    seed: int
    rng: int
    players: int
    round: int  # 1-based
    start: int  # the start player's seat this round
    phase: str  # "choose", "build" or "over"
    turn: int  # the seat that acts now (the chooser or the builder); -1 when over
    choosers: list[int]  # seats still to choose this round, in order (a 2-player seat twice, once per color)
    hands: list[list[int]]  # per seat, card numbers in ascending order
    deck: list[int]  # face down, top card first
    played: list[list[int]]  # per seat, face up, the most recent last
    supply: dict[str, list[int]]  # per color: parts left in the box, by size 1-4
    chosen: dict[str, list[int]]  # per color: parts chosen this round and not yet placed, by size
    boxed: dict[str, list[int]]  # per color: parts out of the game (a player who could build nowhere, M10)
    cities: dict[str, list[list[list[Any]]]]  # city -> 9 sites -> parts bottom to top as [color, size]
    scores: list[int]  # per seat
    color_scores: dict[str, int]  # per color in play (a 2-player seat scores its two colors added, M5)
    moves: int = 0  # commands applied so far
    result: dict[str, Any] | None = None
    history: list[dict[str, Any]] = field(default_factory=list)  # each round's scoring, in order

    # ------------------------------------------------------------------ basics
    @property
    def board(self) -> Board:
        return load_board()

    @property
    def rounds(self) -> int:
        return seating(self.players).rounds

    @property
    def sides(self) -> tuple[int, ...]:
        return seat_sides(self.players)

    @property
    def colors(self) -> tuple[tuple[str, ...], ...]:
        return seat_colors(self.players)

    def seat_of(self, color: str) -> int:
        for seat, colors in enumerate(self.colors):
            if color in colors:
                return seat
        raise KeyError(color)

    # ------------------------------------------------------------------ game API
    def current_player(self) -> int:
        return TERMINAL if self.result is not None else self.turn
