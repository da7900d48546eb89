"""pbem installed like any Python tool: from its sdist and wheel, not from the source tree.

`python -m build` makes the sdist of a copy of the source tree and the wheel from that sdist (as PyPI, pipx and
the Dockerfile get them); the wheel goes into a fresh virtualenv in tmp_path, and the installed `pbem` creates
its database, renders boards and plays the demo with its working folder in tmp_path. The virtualenv sees this
machine's packages (``--system-site-packages``, so nothing is downloaded but the build's setuptools), which also
holds pbem's editable install: the test proves that the pbem it runs, its templates and its migrations all come
from the virtualenv's site-packages. About 20 s; nothing is skipped.
"""

from __future__ import annotations

import json
import os
import re
import shutil
import subprocess
import sys
import tarfile
import zipfile
from dataclasses import dataclass
from pathlib import Path

import pytest

pytestmark = pytest.mark.xdist_group("wheel_install")  # its module-scoped fixtures are made once, on one worker

ROOT = Path(__file__).resolve().parents[2]
# The copy below has no .git, so setuptools-scm gives it pyproject.toml's fallback_version (tests/e2e/test_packages.py
# builds versions from git).
VERSION = "0.0+unknown"
SHIPPED = ("templates", "migrations")  # top-level folders of the repository that install inside the package
JUNK = shutil.ignore_patterns(".git", "__pycache__", "*.pyc", "*.egg-info", "build", "dist", ".venv", "secrets",
                              ".pytest_cache", ".hypothesis", ".benchmarks")


def tree_files(folder: Path) -> set[str]:
    """The files of a folder of the source tree, relative to it (no bytecode)."""
    return {path.relative_to(folder).as_posix() for path in folder.rglob("*")
            if path.is_file() and "__pycache__" not in path.parts and path.suffix != ".pyc"}


def clean_env(home: Path) -> dict[str, str]:
    """This environment without anything that points Python or pbem at the source tree or the user's files."""
    env = {name: value for name, value in os.environ.items()
           if name not in ("PYTHONPATH", "PYTHONHOME", "PYTHONSAFEPATH", "VIRTUAL_ENV")
           and not name.startswith(("PBEM_", "XDG_"))}
    return dict(env, HOME=str(home), COLUMNS="120")


@dataclass
class Built:
    sdist: Path
    wheel: Path
    log: str


@pytest.fixture(scope="module")
def built(tmp_path_factory: pytest.TempPathFactory) -> Built:
    """The sdist of a copy of the source tree, and the wheel built from that sdist."""
    work = tmp_path_factory.mktemp("build")
    source = work / "source"
    shutil.copytree(ROOT, source, ignore=JUNK)  # the build writes pbem.egg-info into its source: not into ours
    proc = subprocess.run([sys.executable, "-m", "build", "--outdir", str(work / "dist"), str(source)],
                          capture_output=True, text=True, timeout=600, cwd=work)
    assert proc.returncode == 0, proc.stdout[-3000:] + proc.stderr[-3000:]
    (sdist,) = (work / "dist").glob("pbem-*.tar.gz")
    (wheel,) = (work / "dist").glob("pbem-*-py3-none-any.whl")
    return Built(sdist, wheel, proc.stderr + proc.stdout)  # build reports its steps on stderr


def test_the_sdist_holds_the_templates_and_migrations_and_the_wheel_built_from_it_installs_them(built: Built) -> None:
    assert "Building wheel from sdist" in built.log, built.log[-2000:]
    assert built.sdist.name == f"pbem-{VERSION}.tar.gz"
    assert built.wheel.name == f"pbem-{VERSION}-py3-none-any.whl"
    with tarfile.open(built.sdist) as sdist:
        top = f"pbem-{VERSION}/"
        in_sdist = {name.removeprefix(top) for name in sdist.getnames()}
    with zipfile.ZipFile(built.wheel) as wheel:
        in_wheel = set(wheel.namelist())
    assert {"pyproject.toml", "README.md"} <= in_sdist
    for folder in SHIPPED:
        files = tree_files(ROOT / folder)
        assert "__init__.py" in files, folder
        assert {f"{folder}/{name}" for name in files} <= in_sdist, f"{folder}/ is not whole in the sdist"
        assert {f"pbem/{folder}/{name}" for name in files} <= in_wheel, f"{folder}/ is not whole in the wheel"
    assert {"pbem/migrations/env.py", "pbem/migrations/script.py.mako", "pbem/templates/mail/notice.txt.j2"} \
        <= in_wheel
    assert any(re.fullmatch(r"pbem/migrations/versions/0001_\w+\.py", name) for name in in_wheel)
    # Every module and data file of the package (a package missing from pyproject.toml's list would be absent).
    assert {f"pbem/{name}" for name in tree_files(ROOT / "pbem")} <= in_wheel
    assert not {name for name in in_wheel if name.startswith(("tests/", "templates/", "migrations/"))}


def test_the_installed_wheel_makes_its_database_renders_boards_and_plays_the_demo(built: Built,
                                                                                 tmp_path: Path) -> None:
    venv = tmp_path / "venv"
    subprocess.run([sys.executable, "-m", "venv", "--system-site-packages", "--without-pip", str(venv)], check=True,
                   timeout=120)
    python, pbem_command = venv / "bin" / "python", venv / "bin" / "pbem"
    installed = subprocess.run([sys.executable, "-m", "pip", "--python", str(python), "install", "--no-deps",
                                "--no-index", "--disable-pip-version-check", str(built.wheel)],
                               capture_output=True, text=True, timeout=300)
    assert installed.returncode == 0, installed.stdout + installed.stderr
    run_in = tmp_path / "elsewhere"
    run_in.mkdir()
    env = clean_env(tmp_path / "home")

    def run(*command: str | Path, timeout: int = 120) -> str:
        proc = subprocess.run([str(part) for part in command], capture_output=True, text=True, env=env, cwd=run_in,
                              timeout=timeout)
        assert proc.returncode == 0, f"{command}: {proc.stdout[-3000:]}{proc.stderr[-3000:]}"
        return proc.stdout

    # The pbem that runs is the wheel's, with the wheel's templates and migrations, not this source tree's.
    site_packages = Path(run(python, "-c", "import sysconfig; print(sysconfig.get_path('purelib'))").strip())
    assert site_packages.is_relative_to(venv), site_packages
    where = json.loads(run(python, "-c", "import json, pbem, pbem.resources as r; print(json.dumps("
                                         "[pbem.__file__, str(r.shipped_folder('templates')), "
                                         "str(r.shipped_folder('migrations'))]))"))
    assert [Path(path) for path in where] == [site_packages / "pbem" / "__init__.py",
                                              site_packages / "pbem" / "templates",
                                              site_packages / "pbem" / "migrations"], where
    assert pbem_command.read_text().startswith(f"#!{python}"), pbem_command.read_text()[:200]
    assert run(pbem_command, "--version").strip() == f"pbem {VERSION}"

    # The database, in its default place.
    assert "Upgraded the database from empty to revision" in run(pbem_command, "db", "upgrade")
    status = run(pbem_command, "db", "status")
    found = re.search(r"^database sqlite:///(\S+) \(from default\), revision \w+, current$", status, re.M)
    assert found, status
    database = Path(found.group(1))
    assert database.is_file() and database.is_relative_to(tmp_path / "home"), database

    # Boards from the wheel's templates, for both games.
    assert run(pbem_command, "game", "new", "fifth-avenue", "-p", "Ann=ann@example.org", "-p", "Bob=bob@example.org",
               "--seed", "1").strip() == "1"
    board = run(pbem_command, "game", "show", "1")
    assert "Fifth Avenue #1 (active)" in board and "THE CITY" in board and "|CP Central Park" in board, board
    assert run(pbem_command, "game", "new", "manhattan", "-p", "Ann=ann@example.org", "-p", "Bob=bob@example.org",
               "--seed", "1").strip() == "2"
    board = run(pbem_command, "game", "show", "2", "--as", "ann@example.org")
    assert "Manhattan #2 (active)" in board and "| MANHATTAN" in board and "| SYDNEY" in board, board

    # A whole game by mail: the worker renders every mail from the wheel's templates.
    demo = run(pbem_command, "--db", "sqlite:///demo.sqlite3", "demo", "--players", "2", timeout=300)
    assert re.search(r"^(Ann|Bob) wins \(|^Ann and Bob share the win \(|^The game ended without a winner",
                     demo, re.M), demo[-2000:]
    assert re.search(r"^\d+ turns, \d+ decisions in \d+ s\.$", demo, re.M), demo[-2000:]
    assert re.search(r"^\d+ game mails for \d+ decisions", demo, re.M), demo[-2000:]
    assert "Game 1 is in the archive" in demo, demo[-2000:]
    assert (run_in / "demo.sqlite3").is_file()


def test_a_source_tree_run_without_installing_finds_the_folders_beside_the_package(tmp_path: Path) -> None:
    """``PYTHONPATH=<the source tree>`` with no installation at all (``-S``: no site-packages, so no editable
    install either): there is no package pbem.templates, and the folders beside pbem/ are used."""
    code = "import json, pbem.resources as r; print(json.dumps([str(r.shipped_folder(n)) for n in %r]))" % (SHIPPED,)
    proc = subprocess.run([sys.executable, "-S", "-c", code], capture_output=True, text=True, timeout=60, cwd=tmp_path,
                          env=dict(clean_env(tmp_path), PYTHONPATH=str(ROOT)))
    assert proc.returncode == 0, proc.stderr
    assert json.loads(proc.stdout) == [str(ROOT / name) for name in SHIPPED]
