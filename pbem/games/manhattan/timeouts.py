"""What a deadline does: which kind of decision is due, and what is played when nobody answers.

Manhattan has no auctions: every decision is a ``"move"`` (``"none"`` once the
game is over). ``timeout_command`` is always one of ``state.legal_commands()``
as listed there: the first one, which is the smallest parts when choosing
(the options are listed smallest first) and, when building, the lowest card,
the first city (Manhattan), the smallest part that may go there. The defaults
are a house rule (the rulebook knows no deadlines): docs/rules.md M14.
Pure: it only reads the state.
"""

from __future__ import annotations

from .rules import legal_actions
from .state import State

MOVE = "move"
NONE = "none"


def decision_kind(state: State) -> str:
    """``"move"`` for every decision, ``"none"`` once the game is over."""
    return NONE if state.is_terminal() else MOVE


def timeout_command(state: State) -> str:
    """The command played for the player who must act when their deadline passes (M14)."""
    if state.is_terminal():
        raise ValueError("the game is over: there is no decision a deadline could settle")
    return str(legal_actions(state)[0])


__all__ = ["decision_kind", "timeout_command"]
