"""Renderings of game positions for people: plain text for email.

``board(kind, view, players=...)`` draws what one player may see (``State.view``);
``moderator_board(kind, state, players=...)`` draws everything, every hand
included. Each finds the game's own renderer by its engine name, so callers
never name a game.
"""

from __future__ import annotations

from typing import Any, Callable

from . import manhattan
from . import text as fifth_avenue

_BOARDS: dict[str, Callable[..., str]] = {"fifth-avenue": fifth_avenue.render_board,
                                          "manhattan": manhattan.render_board}
_MODERATOR_BOARDS: dict[str, Callable[..., str]] = {"fifth-avenue": fifth_avenue.render_moderator_board,
                                                    "manhattan": manhattan.render_moderator_board}


def board(kind: str, view: dict[str, Any], *, players: list[str], bids_above: bool = False) -> str:
    """The board as text; ``bids_above``: the mail shows the auction's bids at its top (a game with auctions)."""
    return _BOARDS[kind](view, players=players, **({"bids_above": True} if bids_above else {}))


def moderator_board(kind: str, state: Any, *, players: list[str]) -> str:
    return _MODERATOR_BOARDS[kind](state, players=players)


render_board = fifth_avenue.render_board  # older name, kept for the Fifth Avenue tests

__all__ = ["board", "moderator_board", "render_board"]
