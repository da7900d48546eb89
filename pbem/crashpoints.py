"""Named places where a test may kill this process, to show that a crash loses and doubles nothing.

The mail worker marks the moments between its steps (a mail fetched, a
transaction about to commit, committed, the mail moved, the outbox claimed, a
mail accepted by the SMTP server, marked sent) with ``reached("name")``. In
normal runs that is a check of one global and nothing else. A test arms it
through the environment of the process it starts:

    PBEM_CRASH_AT=7          the 7th point reached kills the process with SIGKILL
    PBEM_CRASH_LOG=FILE      every point reached is appended to FILE, one name a line

SIGKILL, not an exception: no ``finally``, no rollback, no flush, exactly what
the power failing or the OOM killer does. Only under the test suite: pytest sets
PYTEST_CURRENT_TEST while a test runs (and the processes it starts inherit it);
elsewhere pbem.config refuses both variables, so a stray line in an env file
cannot make a production worker kill itself, and this module ignores them.
"""

from __future__ import annotations

import os
import signal
from collections.abc import Mapping

_armed: bool | None = None  # read from the environment at the first point: a process forked after importing
_crash_at = 0  # this module (the tests' prestarted pbem) must still see the environment of its own run
_log_path: str | None = None
_count = 0
UNDER_TESTS = "PYTEST_CURRENT_TEST"


def asked_outside_tests(environ: Mapping[str, str]) -> bool:
    """Whether ``environ`` arms a crash point without being a test's."""
    armed = environ.get("PBEM_CRASH_AT", "0").strip() not in ("", "0") or bool(environ.get("PBEM_CRASH_LOG"))
    return armed and not environ.get(UNDER_TESTS)


def _arm() -> bool:
    global _armed, _crash_at, _log_path
    if asked_outside_tests(os.environ):
        _armed = False
        return _armed
    _crash_at = int(os.environ.get("PBEM_CRASH_AT", "0") or 0)
    _log_path = os.environ.get("PBEM_CRASH_LOG") or None
    _armed = bool(_crash_at or _log_path)
    return _armed


def reached(name: str) -> None:
    """The worker is at ``name``; die here when a test asked for this point."""
    if not (_armed if _armed is not None else _arm()):
        return
    global _count
    _count += 1
    if _log_path is not None:
        with open(_log_path, "a", encoding="utf-8") as log:
            log.write(f"{name}\n")
    if _count == _crash_at:
        os.kill(os.getpid(), signal.SIGKILL)
