"""The whole Fifth Avenue position, and its one serial form.

The state is plain data (ints, strings, lists, dicts) so that it round-trips
through JSON exactly. Its small public API follows OpenSpiel: who acts now,
which commands are legal, apply one, is it over. The rules themselves live in
:mod:`.rules`; this module only holds and copies the data.

Decisions that interrupt a turn are *frames* on a stack (``frames``, top is
last): the initial placement, a player's turn with its phases, an auction set,
one auction, the winner's build decision. An auction set is pushed on top of
the turn it interrupts and popped when Central Park is done, which resumes the
turn where it stood.
"""

from __future__ import annotations

import json
from dataclasses import dataclass, field, fields
from typing import Any

from .board import Board, load_board

TERMINAL = -4  # OpenSpiel's convention for "nobody acts: the game is over"
GAME = "fifth-avenue"


@dataclass
class State:
    seed: int
    rng: int
    players: int
    back_side: bool
    scores: list[int]
    hands: list[dict[str, list[int]]]  # per seat: card color -> counts of values 4, 5, 6
    supply: list[int]  # skyscrapers in each player's own supply
    general: list[int]  # general supply per owner (the robot is owner ``players`` in a 2-player game)
    central_park: list[int]  # skyscrapers below Central Park per player
    boxed_skyscrapers: list[int]  # removed by building stops, per owner
    colored_stacks: dict[str, list[int]]  # face up, top card first
    black_stack: list[int]  # face down, top card first
    black_spent: list[int]  # face up under the black stack, nearest the top first
    supply_row: list[list[str]]  # the eight business sets, left to right
    cp_businesses: list[str]  # businesses below Central Park, in arrival order
    unused_businesses: list[str]  # the nine left in the box at setup (hidden)
    boxed_businesses: list[str]  # removed by building stops
    plots: dict[str, dict[str, dict[str, Any]]]  # district -> plot -> {"businesses", "owner", "height"}
    stopped: list[str]  # districts with a building stop marker, in order
    commissioners: dict[str, str]  # commissioner -> CH, a district code or CP
    markers: dict[str, list[str]]  # commissioner -> districts it left, in visit order
    frames: list[dict[str, Any]] = field(default_factory=list)
    businesses_placed: int = 0
    moves: int = 0  # commands applied so far
    result: dict[str, Any] | None = None

    # ------------------------------------------------------------------ basics
    @property
    def board(self) -> Board:
        return load_board(self.back_side)

    @property
    def robot(self) -> int | None:
        """The robot bidder's owner number (2-player games only)."""
        return self.players if self.players == 2 else None

    @property
    def owners(self) -> int:
        return self.players + (1 if self.players == 2 else 0)

    # ------------------------------------------------------------------ game API
    def current_player(self) -> int:
        from . import rules

        return rules.current_player(self)

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
        # Keys stay in the state's own order, not sorted: the order of a dict is part of how the state behaves
        # (the rules walk plots, hands and bids in it), so a state read back must hold it exactly.
        data = {name: getattr(self, name) for name in _FIELDS}
        data["game"] = GAME
        return json.dumps(data, separators=(",", ":"))

    def to_dict(self) -> dict[str, Any]:
        # Through JSON: a deep copy that shares nothing with the live state, and fast.
        return json.loads(self.to_json())

    @classmethod
    def from_dict(cls, data: dict[str, Any]) -> "State":
        return cls.from_json(json.dumps(data))

    @classmethod
    def from_json(cls, text: str) -> "State":
        data = json.loads(text)
        if data.get("game", GAME) != GAME:
            raise ValueError(f"not a {GAME} state: {data.get('game')!r}")
        unknown = set(data) - set(_FIELDS) - {"game"}
        if unknown:
            raise ValueError(f"unknown fields in a {GAME} state: {', '.join(sorted(unknown))}")
        return cls(**{k: v for k, v in data.items() if k != "game"})

    def clone(self) -> "State":
        return State.from_json(self.to_json())


_FIELDS = tuple(f.name for f in fields(State))
