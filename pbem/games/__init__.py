"""Game engines, found by name (like python-chess variants).

Each engine is a package exposing ``NAME``, ``TITLE``, ``PLAYERS``,
``COMMAND_WORDS`` (the first words of its commands), ``new_game(players, seed,
**options)`` and ``State`` (with ``from_json``), and these pure functions of a
state:

- ``decision_notes(state)``: sentences for the player who must act now;
- ``owed_this_turn(state, player)``: what that player still owes of their turn;
- ``decision_kind(state)``: ``"bid"`` for a decision inside an auction,
  ``"move"`` for any other, ``"none"`` once the game is over (the worker
  treats the two kinds differently when a deadline passes);
- ``timeout_command(state)``: the command played for the player who must act
  when their deadline passes, one of ``state.legal_commands()``; ``ValueError``
  on a finished game.
"""

from __future__ import annotations

import importlib
from types import ModuleType

_ENGINES = {"fifth-avenue": "pbem.games.fifth_avenue"}


def names() -> list[str]:
    return sorted(_ENGINES)


def get_game(name: str) -> ModuleType:
    key = name.strip().lower().replace("_", "-").replace(" ", "-")
    if key not in _ENGINES:
        raise KeyError(f"unknown game {name!r}; known games: {', '.join(names())}")
    return importlib.import_module(_ENGINES[key])
