"""Waiting in tests and benchmarks: on the event a test needs (a row's status, a mail in a mailbox, a line a
process printed), never on the clock.

A test that sleeps a fixed time, or gives a server a few seconds, passes on a quiet machine and fails on a busy
one (issue 40: the suite ran with a load average of 5-11 on 2 CPUs, and every few seconds allowed became a
coin toss). So every wait here polls for its event and gives up only at ``HANG``, a ceiling that a machine
loaded many times over does not reach and only a real hang does; the failure then names what never happened.
"""

from __future__ import annotations

import time
from typing import Callable, TypeVar

HANG = 180.0  # seconds: the ceiling of every wait for an event; reached only when the event never comes

T = TypeVar("T")


class NeverHappened(AssertionError):
    """The event a test waited for did not come within ``HANG`` seconds."""


def wait_until(predicate: Callable[[], T], what: str, *, timeout: float = HANG, every: float = 0.05,
               ignore: tuple[type[BaseException], ...] = ()) -> T:
    """Call ``predicate`` until it returns something true, and return that. ``ignore``: exceptions that count
    as "not yet" (a connection cut on purpose, a server still starting). Raise ``NeverHappened`` naming
    ``what`` after ``timeout`` seconds."""
    deadline = time.monotonic() + timeout
    while True:
        try:
            result = predicate()
        except ignore:
            result = None  # type: ignore[assignment]
        if result:
            return result
        if time.monotonic() > deadline:
            raise NeverHappened(f"{what}: not within {timeout:g} s")
        time.sleep(every)


__all__ = ["HANG", "NeverHappened", "wait_until"]
