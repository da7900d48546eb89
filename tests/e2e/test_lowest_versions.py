"""The lowest versions pyproject.toml allows are versions pbem works with (issue 33, point 3).

On the oldest Python requires-python admits, a fresh virtualenv gets the wheel of test_wheel_install.py with the
lowest version of every direct dependency (and of the PostgreSQL extra's) and the newest of what those need: the
set `uv pip compile --resolution lowest-direct` chose when tests/install-pythons.sh filled its wheelhouse, installed
here offline by uv. The test checks that each direct dependency is at its lower bound exactly, then makes the
smoke run of test_wheel_install.py. A bound that does not hold fails here: typer 0.12 with today's click made every
command print the version and exit 0, css-inline 0.14 crashed `game new`, pymap 0.36.0 the demo's IMAP server.
Under CI=true a missing Python or wheelhouse fails; elsewhere it skips, saying what to run. About 17 s.
"""

from __future__ import annotations

from pathlib import Path

import pytest
from packaging.requirements import Requirement
from packaging.version import Version

from pbem_testing.pythons import direct_requirements, find_pythons, lowest_wheelhouse, ready, supported
from test_every_python import install, missing
from test_wheel_install import (Built, Mail, built, installed_versions, mail, new_venv,  # noqa: F401 - fixtures
                                postgresql, smoke_run)

def lower_bounds() -> dict[str, Version]:
    """Each direct dependency's lower bound (every one has exactly one, ``>=``), by normalised name."""
    bounds = {}
    for line in direct_requirements():
        requirement = Requirement(line)
        (specifier,) = requirement.specifier
        assert specifier.operator == ">=", line
        bounds[requirement.name.lower().replace("_", "-").replace(".", "-")] = Version(specifier.version)
    return bounds


def test_the_wheel_with_the_lowest_versions_plays_on_the_oldest_python(built: Built, tmp_path: Path, mail: Mail,
                                                                       postgresql: str | None) -> None:
    lowest = min(Version(specifier.version) for specifier in supported() if specifier.operator == ">=")
    oldest = next((python for python in find_pythons() if python.minor == f"{lowest.major}.{lowest.minor}"), None)
    if oldest is None:
        missing(f"Python {lowest.major}.{lowest.minor}, the oldest of {supported()}, is not on this machine")
    wheelhouse = lowest_wheelhouse(oldest)
    if not ready(wheelhouse):
        missing(f"no wheelhouse of the lowest versions for Python {oldest.minor}: run bash tests/install-pythons.sh")
    venv_python = new_venv(oldest.executable, tmp_path / "venv")
    install(venv_python, built.wheel, wheelhouse, "--resolution", "lowest-direct")
    installed = installed_versions(venv_python)
    bounds = lower_bounds()
    assert {name: Version(installed[name]) for name in bounds} == bounds
    home = tmp_path / "home"
    home.mkdir()
    # Nothing on stderr: aiosmtplib 3.0.0 printed "Future exception was never retrieved ... SMTPServerDisconnected"
    # for every SMTP session (130 blocks in one demo), which no test saw while only the exit codes were checked.
    stderr: list[str] = []
    smoke_run(venv_python.parent / "pbem", home, mail, postgresql, stderr=stderr)
    assert stderr == [], "\n".join(stderr[:40])
