"""The ``pbem`` command line: thin wrappers over one service call each."""

from .app import app


def main() -> None:
    app()


__all__ = ["app", "main"]
