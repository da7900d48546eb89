"""A clock for the services under test: it stands still until the test moves it."""

from __future__ import annotations

from datetime import datetime, timedelta


class StoppedClock:
    """Called like the services' clock (``GameService(clock=...)``); ``now`` is the time it says."""

    def __init__(self, now: datetime) -> None:
        self.now = now

    def __call__(self) -> datetime:
        return self.now

    def advance(self, **delta: float) -> None:
        self.now += timedelta(**delta)
