"""Running the installed `pbem` command as a user would.

Each run is a process of its own with the run's arguments, environment, working folder and standard streams,
executing the installed `pbem` script. By default that process is forked from one that has already imported
pbem (``pbem_testing.prestarted``), which saves about a second of imports a run; a run whose environment
differs from that process's in more than the database URL is started anew, and so is every run under
``PBEM_TEST_FRESH_PROCESSES=1``.
"""

from __future__ import annotations

import atexit
import os
import shutil
import subprocess
import sys
from typing import Callable

import pytest

from pbem_testing.prestarted import Prestarted

PBEM = shutil.which("pbem")
FRESH_PROCESSES = os.environ.get("PBEM_TEST_FRESH_PROCESSES", "") not in ("", "0")
# The settings a run reads when its command starts (pbem.config, pbem.crashpoints), never on import: they may
# differ from run to run without a new process.
PER_RUN = ["PBEM_DATABASE_URL", "PYTEST_CURRENT_TEST", "PBEM_CONFIG", "PBEM_GAME_ADDRESS", "PBEM_CRASH_AT",
           "PBEM_CRASH_LOG", *(f"PBEM_{server}_{key}" for server in ("IMAP", "SMTP")
                               for key in ("HOST", "PORT", "SECURITY", "USER", "PASSWORD"))]
# It starts in the session's own environment and folder (as run_pbem_with sets COLUMNS), whichever test runs first.
PRESTARTED = None if PBEM is None or FRESH_PROCESSES else Prestarted(
    PBEM, preload=["pbem.cli", "pbem.cli.worker", "pbem.worker"], per_run=PER_RUN,
    env=dict(os.environ, COLUMNS="120"), cwd=os.getcwd())
if PRESTARTED is not None:
    atexit.register(PRESTARTED.stop)


def run_pbem_with(env: dict[str, str], *args: str, timeout: float = 120) -> subprocess.CompletedProcess[str]:
    """``pbem ARGS`` run to its end in the environment ``env`` (plus COLUMNS=120), as ``subprocess.run`` with
    ``capture_output=True, text=True`` would: forked from the prestarted pbem when it can be."""
    command = [PBEM] if PBEM else [sys.executable, "-m", "pbem"]
    env = dict(env, COLUMNS="120")
    proc = PRESTARTED.run(args, env=env, timeout=timeout, command=command) if PRESTARTED is not None else None
    if proc is None:
        proc = subprocess.run([*command, *args], capture_output=True, text=True, env=env, timeout=timeout)
    return proc


def run_pbem(url: str, *args: str, check: bool = True) -> subprocess.CompletedProcess[str]:
    proc = run_pbem_with(dict(os.environ, PBEM_DATABASE_URL=url), *args)
    if check:
        assert proc.returncode == 0, proc.stderr
    return proc


def assert_one_line_error(proc: subprocess.CompletedProcess[str], fragment: str) -> None:
    assert proc.returncode != 0
    assert fragment in proc.stderr, proc.stderr
    assert len(proc.stderr.strip().splitlines()) == 1, proc.stderr
    assert "Traceback" not in proc.stderr


@pytest.fixture
def pbem() -> Callable[..., subprocess.CompletedProcess[str]]:
    return run_pbem


@pytest.fixture
def pbem_with() -> Callable[..., subprocess.CompletedProcess[str]]:
    """``pbem_with(env, *args)``: a run in an environment of the test's own (see ``run_pbem_with``)."""
    return run_pbem_with


@pytest.fixture
def prestarted_pbem() -> Prestarted:
    """The prestarted pbem the `pbem` fixture forks its runs from (skips the test when there is none)."""
    if PRESTARTED is None:
        pytest.skip("every run is a new process (PBEM_TEST_FRESH_PROCESSES=1, or no installed pbem)")
    return PRESTARTED


@pytest.fixture
def one_line_error() -> Callable[[subprocess.CompletedProcess[str], str], None]:
    return assert_one_line_error
