"""Manhattan (Andreas Seyfarth, Hans im Glück / Rio Grande Games) as a pure engine.

>>> from pbem.games.manhattan import new_game
>>> state = new_game(players=3, seed=7)
>>> state.current_player()
0
"""

from .actions import split_commands
from .board import absolute_site, seat_colors, seat_sides, seen_from
from .guide import (
                    PUBLIC_EVENTS,
                    RESULT_EVENTS,
                    decision_context,
                    decision_notes,
                    decision_subject,
                    event_text,
                    hand_text,
                    legal_shapes,
                    owed_this_turn,
                    turn_owner,
)
from .rules import new_game
from .state import TERMINAL, State
from .timeouts import decision_kind, timeout_command

NAME = "manhattan"
# First words that make a line a command (everything else in a mail is chatter).
COMMAND_WORDS = frozenset({"choose", "play", "build", "pass"})
TITLE = "Manhattan"
PLAYERS = (2, 3, 4)


__all__ = [
    "COMMAND_WORDS", "NAME", "PLAYERS", "PUBLIC_EVENTS", "RESULT_EVENTS", "TERMINAL", "TITLE", "State",
    "absolute_site", "decision_context", "decision_kind", "decision_notes", "decision_subject", "event_text",
    "hand_text", "legal_shapes", "new_game",
    "owed_this_turn", "seat_colors", "seat_sides", "seen_from", "split_commands", "timeout_command", "turn_owner",
]
