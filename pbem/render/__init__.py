"""Renderings of game positions for people: plain text for email.

``board(kind, view, players=..., hands=...)`` finds the game's own renderer by
its engine name, so callers never name a game.
"""

from __future__ import annotations

from typing import Any, Callable, Mapping

from .text import render_board

_BOARDS: dict[str, Callable[..., str]] = {"fifth-avenue": render_board}


def board(kind: str, view: dict[str, Any], *, players: list[str], hands: Mapping[int, dict] | None = None) -> str:
    return _BOARDS[kind](view, players=players, hands=hands)


__all__ = ["board", "render_board"]
