"""Manhattan (Andreas Seyfarth, Hans im Glück / Rio Grande Games) as a pure engine.

>>> from pbem.games.manhattan import new_game
>>> state = new_game(players=3, seed=7)
>>> state.current_player()
0
"""

from .actions import COMMAND_WORDS, split_commands, vocabulary
from .board import absolute_site, load_board, seat_colors, seat_sides, seen_from
from .guide import (
                    COMMAND_HELP,
                    PUBLIC_EVENTS,
                    RESULT_EVENTS,
                    decision_context,
                    decision_notes,
                    decision_request,
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
# The words of its commands: the mail reader tells commands from prose by them.
VOCABULARY = vocabulary(load_board())
TITLE = "Manhattan"
PLAYERS = (2, 3, 4)


__all__ = [
    "COMMAND_HELP", "COMMAND_WORDS", "NAME", "PLAYERS", "PUBLIC_EVENTS", "RESULT_EVENTS", "TERMINAL", "TITLE",
    "VOCABULARY", "State",
    "absolute_site", "decision_context", "decision_kind", "decision_notes", "decision_request", "event_text",
    "hand_text", "legal_shapes", "new_game",
    "owed_this_turn", "seat_colors", "seat_sides", "seen_from", "split_commands", "timeout_command", "turn_owner",
]
