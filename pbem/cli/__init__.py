"""The ``pbem`` command line: thin wrappers over one service call each.

``main`` is what the ``pbem`` script runs (pyproject.toml's ``[project.scripts]``; the script imports this module,
then calls it). `pbem --version` is answered before the command tree is built, and every command module imports
what its commands need only when they run, so a command pays for what it uses (bench/cli.py measures it). So this
module imports nothing but ``sys`` at its top, not even ``typing``, which a bare ``python`` does not load:
tests/e2e/test_cli_startup.py holds it to that.
"""

from __future__ import annotations

import sys


def main() -> None:
    if sys.argv[1:] == ["--version"]:  # what scripts and health checks ask most often: no need for Typer
        from .. import __version__  # (pbem/__init__.py imports only the version the build wrote)

        print(f"pbem {__version__}")
        return
    from .root import app

    app()


def __getattr__(name: str) -> object:
    if name == "app":  # ``from pbem.cli import app``, for tests and embedding, loads the command tree
        from .root import app

        globals()["app"] = app
        return app
    raise AttributeError(name)


__all__ = ["app", "main"]
