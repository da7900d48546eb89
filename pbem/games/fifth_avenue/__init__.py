"""Fifth Avenue (Wilko Manz, alea / Rio Grande Games) as a pure engine.

>>> from pbem.games.fifth_avenue import new_game
>>> state = new_game(players=3, seed=7)
>>> state.current_player()
0
"""

from .actions import split_commands
from .rules import new_game
from .state import TERMINAL, State

NAME = "fifth-avenue"
TITLE = "Fifth Avenue"
PLAYERS = (2, 3, 4)

__all__ = ["NAME", "PLAYERS", "TERMINAL", "TITLE", "State", "new_game", "split_commands"]
