"""Pictures of the board for the HTML part of a mail: PNG bytes drawn with Pillow from a view.

``board_picture(kind, view, players=...)`` draws what ``State.view(seat)``
shows of the board (never a hand: the view's hand is ignored) as PNG bytes,
370 pixels wide (the width a mail's HTML shows it at on a phone: every letter
is then at least 11 CSS px tall), at most ``MAX_WIDTH`` and, for every position
of a real game, well under ``MAX_BYTES``; the place the decision is about is
marked (Fifth Avenue: from the view's auction or build; Manhattan: the city
``mark`` names, when the caller knows one); ``board_alt(kind, view, players=...)`` says what it shows
in a sentence, for the image's alt text. Each finds the game's own drawing by
its engine name, like ``pbem.render.board``. Both are pure: view in, bytes (or
words) out, no I/O; the same view gives the same bytes. The colors are in
``palette`` (for the HTML part to reuse).

A picture costs a few milliseconds (``bench/pictures.py``): what no position
changes is drawn once per process and kept (about 6 MB a side of the board,
drawn at twice the size), letters once per text, and the PNG gets a fixed
palette (``canvas``).

Fifth Avenue's picture is the same for every seat of a position (the board is
public); Manhattan's is drawn from the reader's side of the table
(``view["viewer"]``; the public view from the south side).
"""

from __future__ import annotations

import importlib
from types import ModuleType
from typing import Any

MAX_WIDTH = 700
MAX_BYTES = 80 * 1024
MEDIA_TYPE = "image/png"

# Each game's drawing module, loaded when first used: palette users (the HTML part) do not load Pillow.
_MODULES = {"fifth-avenue": "fifth_avenue", "manhattan": "manhattan"}


def _drawing(kind: str) -> ModuleType:
    return importlib.import_module(f"{__name__}.{_MODULES[kind]}")


def board_picture(kind: str, view: dict[str, Any], *, players: list[str], mark: str | None = None) -> bytes:
    """The board of ``view`` as PNG bytes; ``players`` are the display names by seat; ``mark`` a Manhattan city
    to mark (Fifth Avenue finds its place in the view)."""
    module = _drawing(kind)
    _check_names(view, players)
    return module.draw(view, players=players, **({"mark": mark} if mark is not None else {}))


def board_alt(kind: str, view: dict[str, Any], *, players: list[str]) -> str:
    """A short description of the picture in words, for its alt text."""
    module = _drawing(kind)
    _check_names(view, players)
    return module.alt_text(view, players=players)


def _check_names(view: dict[str, Any], players: list[str]) -> None:
    if len(players) < view["players"]:
        raise ValueError(f"{view['players']} players in the game but {len(players)} names given")


__all__ = ["MAX_BYTES", "MAX_WIDTH", "MEDIA_TYPE", "board_alt", "board_picture"]
