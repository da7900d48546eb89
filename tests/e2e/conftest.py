"""Running the installed `pbem` command as a user would."""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
from typing import Callable

import pytest

PBEM = shutil.which("pbem")


def run_pbem(url: str, *args: str, check: bool = True) -> subprocess.CompletedProcess[str]:
    command = [PBEM] if PBEM else [sys.executable, "-m", "pbem"]
    env = dict(os.environ, PBEM_DATABASE_URL=url, COLUMNS="120")
    proc = subprocess.run([*command, *args], capture_output=True, text=True, env=env, timeout=120)
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
def one_line_error() -> Callable[[subprocess.CompletedProcess[str], str], None]:
    return assert_one_line_error
