"""A game mail's picture of the board: what it is drawn from, its Content-ID, and the drawing, once.

A mail is queued with a *recipe* (``recipe()``): the part of its reader's view
that the picture shows, as JSON. The sender draws the picture from it when the
mail goes out (``picture()``), in its own process, off the worker's path; the
readers of a position who see the same picture (every seat of Fifth Avenue's
public board, every reader on one side of Manhattan's table) have the same
recipe, so it is drawn once for all of them and its Content-ID is the same.
"""

from __future__ import annotations

import hashlib
import json
from functools import lru_cache
from typing import Any

from . import MEDIA_TYPE, board_alt, board_picture

# What a reader's view holds that the picture does not show: their hand always; in Fifth Avenue also who reads
# (its board is the same for all), while Manhattan's is drawn from the reader's side of the table.
_NOT_SHOWN = {"fifth-avenue": ("hand", "viewer"), "manhattan": ("hand",)}

WIDTH = 370  # the pictures' width (render.pictures): the HTML asks for it before the picture is drawn


def recipe(kind: str, view: dict[str, Any], players: list[str], mark: str | None = None) -> dict[str, Any]:
    """What the picture of ``view`` is drawn from; ``mark``, a Manhattan city the mail is about."""
    dropped = _NOT_SHOWN[kind]
    made = {"kind": kind, "players": list(players[: view["players"]]),
            "view": {key: value for key, value in view.items() if key not in dropped}}
    if mark is not None:
        made["mark"] = mark
    return made


def content_id(made: dict[str, Any]) -> str:
    """The picture's Content-ID (without <>): the same for the same recipe."""
    return f"board-{hashlib.sha256(_key(made).encode()).hexdigest()[:20]}@pbem"


def alt_text(made: dict[str, Any]) -> str:
    return board_alt(made["kind"], made["view"], players=made["players"])


def picture(made: dict[str, Any]) -> tuple[str, bytes]:
    """(media type, PNG bytes) of the recipe's picture."""
    return MEDIA_TYPE, _drawn(_key(made))


@lru_cache(maxsize=32)
def _drawn(key: str) -> bytes:
    made = json.loads(key)
    return board_picture(made["kind"], made["view"], players=made["players"], mark=made.get("mark"))


def _key(made: dict[str, Any]) -> str:
    return json.dumps(made, sort_keys=True, separators=(",", ":"))


__all__ = ["WIDTH", "alt_text", "content_id", "picture", "recipe"]
