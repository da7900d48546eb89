"""The errors the game services raise: each a request refused, with one clear sentence every caller can show.

Apart from the services so that callers (the command line, the mail worker) can catch them without loading
what raises them.
"""

from __future__ import annotations

from ...games.errors import CommandError


class ServiceError(Exception):
    """A request the service refuses; ``message`` is one clear sentence."""

    def __init__(self, message: str) -> None:
        super().__init__(message)
        self.message = message


class GameNotFound(ServiceError):
    pass


class PlayerNotInGame(ServiceError):
    pass


class GameNotActive(ServiceError):
    pass


class BadRequest(ServiceError):
    pass


class DecisionMoved(ServiceError):
    """The game no longer waits for the decision a change was meant for; ``now`` says, in words, what it
    waits for instead (with the decision's number ``number``)."""

    def __init__(self, message: str, *, now: str = "", number: int | None = None) -> None:
        super().__init__(message)
        self.now = now
        self.number = number


class ImportFailed(ServiceError):
    pass


class CommandRejected(ServiceError):
    """One line of a submission was refused; nothing of the submission was applied."""

    def __init__(self, line_number: int, line: str, error: CommandError) -> None:
        self.line_number = line_number
        self.line = line
        self.error = error
        self.legal = error.legal
        super().__init__(f"line {line_number} '{line}': {error.message}")
