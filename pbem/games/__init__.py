"""Game engines, found by name (like python-chess variants).

Each engine is a package exposing ``NAME``, ``TITLE``, ``PLAYERS``,
``COMMAND_WORDS`` (the first words of its commands), ``new_game(players, seed,
**options)`` and ``State`` (with ``from_json``).
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
