"""Fifth Avenue (Wilko Manz, alea / Rio Grande Games) as a pure engine.

>>> from pbem.games.fifth_avenue import new_game
>>> state = new_game(players=3, seed=7)
>>> state.current_player()
0
"""

from .actions import COMMAND_WORDS, split_commands, vocabulary  # COMMAND_WORDS: first words that make a line a command
from .board import load_board
from .guide import (COMMAND_HELP, PUBLIC_EVENTS, RESULT_EVENTS, bid_reach, decision_context, decision_notes, decision_request,
                    event_text, hand_text, legal_shapes, orders_wanted, set_orders,
                    owed_this_turn, turn_owner)
from .rules import new_game
from .state import TERMINAL, State
from .timeouts import decision_kind, timeout_command

NAME = "fifth-avenue"
# The words of its commands, on either side of the board: the mail reader tells commands from prose by them.
VOCABULARY = vocabulary((load_board(False), load_board(True)))
TITLE = "Fifth Avenue"
PLAYERS = (2, 3, 4)

__all__ = [
    "COMMAND_HELP", "COMMAND_WORDS", "NAME", "PLAYERS", "PUBLIC_EVENTS", "RESULT_EVENTS", "TERMINAL", "TITLE",
    "VOCABULARY", "State",
    "bid_reach", "decision_context", "decision_kind", "decision_notes", "decision_request", "event_text", "hand_text", "legal_shapes", "new_game", "owed_this_turn", "set_orders", "orders_wanted",
    "split_commands", "timeout_command", "turn_owner",
]
