"""What a deadline does: which kind of decision is due, and what is played when nobody answers.

The mail worker enforces deadlines; the engine only answers two questions for
it. ``decision_kind`` says whether the decision now due belongs to an auction
(a bid, a pass, the winner's build decision) or is any other move, because
the two get different deadlines and different handling. ``timeout_command``
names the command played for the silent player, always one of
``state.legal_commands()`` as listed there. The defaults are a house rule
(the rulebooks know no deadlines): decision D39 in ``docs/rules.md``.
Pure: it only reads the state.
"""

from __future__ import annotations

from .actions import Build, Move, Pass, Place, TakeCards, TakeSkyscrapers
from .rules import legal_actions
from .state import State

BID = "bid"
MOVE = "move"
NONE = "none"

# The frames whose decision is part of an auction: bidding (districts and Central Park alike) and the
# winner's build decision right after it. Every other frame with a decision (placement, turn) is a move.
AUCTION_FRAMES = frozenset({"auction", "build"})

# What a silent player does in each phase of their turn: the first legal command of this kind.
# Phase 1 takes skyscrapers (action A) because it changes nothing on the board and is always legal (D14);
# action C's commissioner move is part of its phase-1 command, so it needs no entry of its own.
TURN_DEFAULTS = {1: TakeSkyscrapers, 2: TakeCards, 3: Move}


def decision_kind(state: State) -> str:
    """``"bid"`` for a decision inside an auction, ``"move"`` for any other, ``"none"`` once the game is over."""
    if state.is_terminal():
        return NONE
    return BID if state.frames[-1]["kind"] in AUCTION_FRAMES else MOVE


def timeout_command(state: State) -> str:
    """The command played for the player who must act when their deadline passes (D39)."""
    if state.is_terminal():
        raise ValueError("the game is over: there is no decision a deadline could settle")
    frame = state.frames[-1]
    kind = frame["kind"]
    if kind == "auction":
        # Passing is legal at every turn of every auction and takes the player's cards back: a silent bidder
        # neither spends cards nor is left holding a bid they never made. Listing the bids would be costly
        # (every combination of the hand), and passing needs none of them.
        return str(Pass())
    actions = legal_actions(state)
    if kind == "build":
        # The winner has already paid for the plot, so the default uses it as fully as the cards and their
        # supply allow. Building less, or a building stop, is a choice only the player should make.
        builds = [action for action in actions if isinstance(action, Build)]
        if builds:
            return str(max(builds, key=lambda build: build.count))
    elif kind == "placement":
        return _first_of(actions, Place)
    elif kind == "turn" and frame["phase"] in TURN_DEFAULTS:
        return _first_of(actions, TURN_DEFAULTS[frame["phase"]])
    return str(actions[0])


def _first_of(actions: list, kind: type) -> str:
    """The first legal command of ``kind``, or the first legal command if no command of that kind is legal."""
    for action in actions:
        if isinstance(action, kind):
            return str(action)
    return str(actions[0])


__all__ = ["decision_kind", "timeout_command"]
