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

import json
from dataclasses import dataclass, field, fields
from typing import Any

from .board import Board, load_board, seat_colors, seat_sides, seating

TERMINAL = -4  # OpenSpiel's convention for "nobody acts: the game is over"
GAME = "manhattan"
CHOOSE = "choose"
BUILD = "build"
OVER = "over"


@dataclass
class State:
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

    def is_terminal(self) -> bool:
        return self.result is not None

    def legal_actions(self):
        from . import rules

        return rules.legal_actions(self)

    def legal_commands(self) -> list[str]:
        return [str(a) for a in self.legal_actions()]

    def parse(self, player: int, text: str):
        """Read one command of ``player`` and check it against the rules."""
        from . import rules

        return rules.parse(self, player, text)

    def apply_action(self, player: int, action) -> list[dict[str, Any]]:
        """Apply a legal action; the state is unchanged if it raises."""
        from . import rules

        return rules.apply_action(self, player, action)

    def apply_command(self, player: int, text: str) -> list[dict[str, Any]]:
        return self.apply_action(player, self.parse(player, text))

    def view(self, player: int | None) -> dict[str, Any]:
        from .view import player_view

        return player_view(self, player)

    # ------------------------------------------------------------------ serial form
    def to_json(self) -> str:
        # Keys stay in the state's own order, not sorted: the rules walk cities and colors in dict order.
        data = {name: getattr(self, name) for name in _FIELDS}
        data["game"] = GAME
        return json.dumps(data, separators=(",", ":"))

    def to_dict(self) -> dict[str, Any]:
        # Through JSON: a deep copy that shares nothing with the live state.
        return json.loads(self.to_json())

    @classmethod
    def from_dict(cls, data: dict[str, Any]) -> State:
        return cls.from_json(json.dumps(data))

    @classmethod
    def from_json(cls, text: str) -> State:
        data = json.loads(text)
        if data.get("game", GAME) != GAME:
            raise ValueError(f"not a {GAME} state: {data.get('game')!r}")
        unknown = set(data) - set(_FIELDS) - {"game"}
        if unknown:
            raise ValueError(f"unknown fields in a {GAME} state: {', '.join(sorted(unknown))}")
        return cls(**{k: v for k, v in data.items() if k != "game"})

    def clone(self) -> State:
        return State.from_json(self.to_json())


_FIELDS = tuple(f.name for f in fields(State))
