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

from dataclasses import dataclass, field
from typing import Any

from ..base import GameState
from .board import Board, load_board

TERMINAL = -4  # OpenSpiel's convention for "nobody acts: the game is over"
GAME = "fifth-avenue"


@dataclass
class State(GameState):
    GAME = GAME
    RULES = f"{__package__}.rules"
    VIEW = f"{__package__}.view"

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
    # Standing bids (:mod:`.orders`): seat -> auction site -> {"limit", "color"}. Hidden: a view shows a player
    # only their own; an auction's orders end with it, and every order with its auction set.
    orders: dict[str, dict[str, dict[str, Any]]] = field(default_factory=dict)
    # Seats that have given an order in this game: they are mailed for their orders when a set of auctions
    # begins (guide.orders_wanted); a player who never did gets no more mails than before orders existed.
    order_seats: list[int] = field(default_factory=list)

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

    def running_auction(self) -> str | None:
        """The auction of the set that runs now, or whose winner builds now: what an order that names no
        auction ('bid up to 12', 'build max') is for. None between auctions and outside a set."""
        return next((f["site"] for f in self.frames if f["kind"] in ("auction", "build")), None)

    def order_key(self, action: Any) -> tuple[str, str | None] | None:
        """What an order decides and for which auction, the auction it leaves out read as the one running:
        'bid up to 5' and 'bid 42W up to 8' while 42W runs are two orders for one decision. None: no order."""
        key = getattr(action, "order_key", None)
        return None if key is None else (key[0], key[1] or self.running_auction())

    # ------------------------------------------------------------------ game API
    def current_player(self) -> int:
        """Who decides now (TERMINAL once the game is over): read from the frame on top, which the rules push."""
        if self.result is not None:
            return TERMINAL
        frame = self.frames[-1]
        kind = frame["kind"]
        if kind == "placement":
            return frame["order"][frame["index"]]
        if kind == "turn":
            return frame["player"]
        if kind == "auction":
            return frame["order"][frame["turn"]]
        if kind == "build":
            return frame["winner"]
        raise AssertionError(f"no decision pending in frame {kind}")
