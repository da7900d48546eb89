"""The ``pbem`` command line: thin wrappers over one service call each.

``main`` is what the ``pbem`` script runs. `pbem --version` is answered before the command tree is built, and
every command module imports what its commands need only when they run, so a command pays for what it uses
(bench/cli.py measures it).
"""

from __future__ import annotations

import sys
from typing import Any


def main() -> None:
    if sys.argv[1:] == ["--version"]:  # what scripts and health checks ask most often: no need for Typer
        from .. import __version__

        print(f"pbem {__version__}")
        return
    from .root import app

    app()


def __getattr__(name: str) -> Any:
    if name == "app":  # ``from pbem.cli import app``, for tests and embedding, loads the command tree
        from .root import app

        globals()["app"] = app
        return app
    raise AttributeError(name)


__all__ = ["app", "main"]
