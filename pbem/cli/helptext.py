"""What `--help` shows for an option's value: Click's words, never Python's types.

Typer 0.2x labels every option in the help with its Python type: `<bool>` beside a flag such as `--json` or
`--help` (which takes no value at all), `<list[str]>` beside a repeatable option, `<str>` and `<int>`
elsewhere. Applied once on import (``pbem.cli.root`` imports this module), this puts back what Click has
always shown: nothing for a flag, and the kind of value otherwise (TEXT, INTEGER, PATH, INTEGER RANGE, a
choice as [a|b]), or the metavar a parameter names itself. With a Typer that has no such labels, it changes
nothing.
"""

from __future__ import annotations

import re
from typing import Any, Callable

import typer.core

WORDS = {"str": "TEXT", "int": "INTEGER", "float": "FLOAT", "bool": "BOOLEAN", "path": "PATH",
         "int range": "INTEGER RANGE", "float range": "FLOAT RANGE", "datetime": "DATETIME"}


def value_label(typed: str | None) -> str | None:
    """Typer's '<list[str]>' as Click's 'TEXT' ('<int range>': 'INTEGER RANGE', '<a|b>': '[a|b]'); a metavar
    the parameter names itself (no angle brackets) as it is."""
    if not typed or not (typed.startswith("<") and typed.rstrip(".").endswith(">")):
        return typed
    dots = "..." if typed.endswith("...") else ""
    inner = typed.rstrip(".")[1:-1]
    while (listed := re.fullmatch(r"list\[(.*)\]", inner)) is not None:
        inner = listed.group(1)  # a repeatable option: the help says how often
    if inner in WORDS:
        return WORDS[inner] + dots
    if "|" in inner:
        return f"[{inner}]" + dots
    return inner.upper() + dots


def _install() -> None:
    for name in ("TyperOption", "TyperArgument"):
        cls = getattr(typer.core, name, None)
        original: Callable[..., str | None] | None = getattr(cls, "display_type_rich", None)
        if cls is None or original is None or getattr(original, "_pbem", False):
            continue

        def display_type_rich(self: Any, ctx: Any, _original: Callable[..., str | None] = original) -> str | None:
            if getattr(self, "is_flag", False) and self.metavar is None:
                return None  # a flag takes no value: --json, --help
            return value_label(_original(self, ctx))

        display_type_rich._pbem = True  # type: ignore[attr-defined]
        cls.display_type_rich = display_type_rich  # type: ignore[method-assign]


_install()

__all__ = ["value_label"]
