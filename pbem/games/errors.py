"""Typed errors shared by every game engine.

Like python-chess: a command that cannot be read is *invalid*, one that reads
but is not allowed now is *illegal*, one that could mean several things is
*ambiguous*. Every error carries a message written for the player and the
legal alternatives, so a front end (mail, CLI) can answer without knowing the
game.
"""

from __future__ import annotations


class CommandError(ValueError):
    """Base of every error a player's command can raise."""

    def __init__(self, message: str, legal: list[str] | None = None) -> None:
        super().__init__(message)
        self.message = message
        self.legal = list(legal or [])

    def __str__(self) -> str:
        return self.message


class InvalidCommandError(CommandError):
    """The text is not a command of this game."""


class IllegalCommandError(CommandError):
    """The command is understood but the rules do not allow it now."""


class NotYourTurnError(IllegalCommandError):
    """Somebody else must act now."""


class AmbiguousCommandError(CommandError):
    """The command could mean more than one move; the player must say which."""


class GameOverError(IllegalCommandError):
    """The game has ended; no command is accepted."""
