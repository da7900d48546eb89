"""Small helpers for English text people read: a count with its noun, a list joined with 'and', the start of
somebody's line quoted back."""

from __future__ import annotations

from typing import Iterable


def plural(count: int, word: str, words: str | None = None) -> str:
    """'1 command', '2 commands', '0 commands' (``words``: the plural when it is not ``word`` + 's')."""
    return f"{count} {word if count == 1 else words or word + 's'}"


def listing(items: Iterable[str], limit: int = 0, conjunction: str = "and") -> str:
    """'a', 'a and b', 'a, b and c' (or another ``conjunction``); with ``limit``, the first ``limit`` items and
    'N more'."""
    items = list(items)
    if limit and len(items) > limit:
        items = items[:limit] + [f"{len(items) - limit} more"]
    if len(items) <= 1:
        return "".join(items)
    return ", ".join(items[:-1]) + f" {conjunction} " + items[-1]


QUOTED = 60  # characters of a line of somebody's quoted back to them (its start): no answer carries their text


def cut(text: str, most: int = QUOTED) -> str:
    """``text`` on one line, or its start and '...' when longer than ``most``."""
    text = " ".join(text.split())
    return text if len(text) <= most else text[: most - 3].rstrip() + "..."


__all__ = ["QUOTED", "cut", "listing", "plural"]
