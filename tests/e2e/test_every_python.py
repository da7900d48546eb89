"""pbem's wheel on every Python that pyproject.toml's requires-python admits and this machine has (issue 33, point 4).

Pythons are found by pbem_testing.pythons (pyenv's versions, python3.N on PATH; one per minor version). The
running one is test_wheel_install.py's. For each other one, a fresh virtualenv gets the wheel of
test_wheel_install.py with the versions uv.lock pins, by uv from the wheelhouse that tests/install-pythons.sh
filled for that Python (offline: nothing is downloaded here), and makes the smoke run of test_wheel_install.py.
Under CI=true a missing wheelhouse, or fewer than two Pythons in all, fails; elsewhere it skips, saying what to
run. About 17 s a Python.
"""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest

from pbem_testing.pythons import Python, find_pythons, locked_wheelhouse, ready, supported, uv
from test_wheel_install import (Built, Mail, built, installed_versions, mail, new_venv,  # noqa: F401 - fixtures
                                postgresql, smoke_run)

IN_CI = os.environ.get("CI", "").lower() in ("1", "true", "yes")
PYTHONS = find_pythons()
OTHERS = [python for python in PYTHONS if python.version[:2] != tuple(sys.version_info[:2])]


def missing(message: str) -> None:
    if IN_CI:
        pytest.fail(message)
    pytest.skip(message)


def pinned(wheelhouse: Path) -> dict[str, str]:
    """The versions a wheelhouse's requirements file pins, by normalised name."""
    pins = {}
    for line in (wheelhouse / "requirements.txt").read_text().splitlines():
        requirement = line.split(";")[0].strip().rstrip("\\").strip()
        if "==" in requirement and not requirement.startswith(("#", "--")):
            name, version = requirement.split("==")
            pins[name.split("[")[0].strip().lower().replace("_", "-").replace(".", "-")] = version.strip()
    return pins


def install(python: Path, wheel: Path, wheelhouse: Path, *options: str) -> None:
    """The wheel with its PostgreSQL and demo extras into the virtualenv of ``python``, taking everything from ``wheelhouse``."""
    proc = subprocess.run([uv(), "pip", "install", "--python", str(python), "--offline", "--no-index", "--no-config",
                           "--find-links", str(wheelhouse), *options, f"pbem[postgresql,demo] @ {wheel.as_uri()}"],
                          capture_output=True, text=True, timeout=300)
    assert proc.returncode == 0, proc.stdout + proc.stderr


def test_at_least_two_pythons_are_tried() -> None:
    if len(PYTHONS) < 2:
        missing(f"found {', '.join(p.minor for p in PYTHONS) or 'no Python'} of {supported()}; the install tests "
                "need two (pyenv install 3.12, or python3.N on PATH)")
    assert [python.version[:2] for python in PYTHONS] == sorted({python.version[:2] for python in PYTHONS})
    assert tuple(sys.version_info[:2]) in {python.version[:2] for python in PYTHONS}, "the running Python is one"


@pytest.mark.parametrize("python", OTHERS, ids=[python.minor for python in OTHERS])
def test_the_wheel_with_the_locked_versions_plays_on(python: Python, built: Built, tmp_path: Path, mail: Mail,
                                                     postgresql: str | None) -> None:
    wheelhouse = locked_wheelhouse(python)
    if not ready(wheelhouse):
        missing(f"no wheelhouse of uv.lock's versions for Python {python.minor}: run bash tests/install-pythons.sh")
    venv_python = new_venv(python.executable, tmp_path / "venv")
    install(venv_python, built.wheel, wheelhouse)
    version = subprocess.run([str(venv_python), "-c", "import sys; print(*sys.version_info[:3])"],
                             capture_output=True, text=True, check=True).stdout.split()
    assert tuple(map(int, version)) == python.version
    installed, pins = installed_versions(venv_python), pinned(wheelhouse)
    assert installed.pop("pbem")
    assert {name: pins.get(name) for name in installed} == installed  # every one at the version uv.lock pins
    assert {"typer", "sqlalchemy", "pymap", "psycopg-binary"} <= installed.keys()
    home = tmp_path / "home"
    home.mkdir()
    smoke_run(venv_python.parent / "pbem", home, mail, postgresql)
