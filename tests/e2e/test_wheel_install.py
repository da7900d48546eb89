"""pbem installed like any Python tool: from its sdist and wheel, not from the source tree.

`python -m build` makes the sdist of a copy of the source tree and the wheel from that sdist (as PyPI, pipx and
the Dockerfile get them), without build isolation: on this environment's setuptools, so nothing is downloaded.
The wheel goes into a fresh virtualenv of the running Python whose dependencies are those of the environment
running the tests, whatever that is (a virtualenv, the system's Python as root): a .pth file in the new
virtualenv's site-packages names that environment's site-packages folders. The editable install of pbem there
stays unseen (a .pth file is read only in a site-packages folder itself, not in one another .pth names), and
the test proves that the pbem it runs, its templates and its migrations all come from the new virtualenv.

The installed `pbem` then makes the smoke run that test_every_python.py and test_lowest_versions.py make with
other Pythons and versions (``smoke_run``): its database, boards, two moves by mail through `pbem worker --once`
over Dovecot, a game on PostgreSQL, and two turns of the demo. The three modules share one build (``build_once``)
once a process. About 3 s for the build and 18 s for the install test.
"""

from __future__ import annotations

import json
import os
import re
import shutil
import site
import subprocess
import sys
import tarfile
import zipfile
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import pytest

from test_worker_mail import GAME, inbox, reply_like_a_client, send

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


_BUILT: list[Built] = []


def build_once(tmp_path_factory: pytest.TempPathFactory) -> Built:
    """The sdist of a copy of the source tree, and the wheel built from that sdist: built at the first call in
    this process (about 3 s) and the same files after. The install tests are spread over xdist's workers, each
    building at most once: cheaper than holding ~70 s of them on one worker."""
    if not _BUILT:
        work = tmp_path_factory.mktemp("build")
        source = work / "source"
        shutil.copytree(ROOT, source, ignore=JUNK)  # the build writes pbem.egg-info into its source: not into ours
        proc = subprocess.run([sys.executable, "-m", "build", "--no-isolation", "--outdir", str(work / "dist"),
                               str(source)], capture_output=True, text=True, timeout=600, cwd=work)
        assert proc.returncode == 0, proc.stdout[-3000:] + proc.stderr[-3000:]
        (sdist,) = (work / "dist").glob("pbem-*.tar.gz")
        (wheel,) = (work / "dist").glob("pbem-*-py3-none-any.whl")
        _BUILT.append(Built(sdist, wheel, proc.stderr + proc.stdout))  # build reports its steps on stderr
    return _BUILT[0]


@pytest.fixture(scope="module")
def built(tmp_path_factory: pytest.TempPathFactory) -> Built:
    return build_once(tmp_path_factory)


def site_packages_of(python: Path) -> Path:
    proc = subprocess.run([str(python), "-I", "-c", "import sysconfig; print(sysconfig.get_path('purelib'))"],
                          capture_output=True, text=True, timeout=60, check=True)
    return Path(proc.stdout.strip())


def new_venv(base: str | Path, folder: Path) -> Path:
    """A virtualenv of the Python ``base`` (in a virtualenv: the Python it was made from), without pip; its python."""
    subprocess.run([str(base), "-m", "venv", "--without-pip", str(folder)], check=True, timeout=120,
                   capture_output=True)
    return folder / "bin" / "python"


def installed_versions(python: Path) -> dict[str, str]:
    """Every distribution the Python ``python`` sees, by normalised name: what its pbem will import."""
    code = ("import importlib.metadata as m, json, re; print(json.dumps({re.sub(r'[-_.]+', '-', d.metadata['Name'])"
            ".lower(): d.version for d in reversed(list(m.distributions()))}))")  # the first on the path wins
    proc = subprocess.run([str(python), "-I", "-c", code], capture_output=True, text=True, timeout=60, check=True)
    return json.loads(proc.stdout)


@dataclass
class Mail:
    """The session's Dovecot and SMTP server, as the worker is told of them."""
    dovecot: Any
    smtp: Any

    def settings(self) -> dict[str, str]:
        return {"PBEM_IMAP_HOST": self.dovecot.host, "PBEM_IMAP_PORT": str(self.dovecot.imap_port),
                "PBEM_IMAP_SECURITY": "plain", "PBEM_IMAP_USER": "game", "PBEM_IMAP_PASSWORD": "secret",
                "PBEM_SMTP_HOST": "127.0.0.1", "PBEM_SMTP_PORT": str(self.smtp.port), "PBEM_SMTP_SECURITY": "plain",
                "PBEM_GAME_ADDRESS": GAME}


@pytest.fixture
def mail(dovecot, smtp_server, mailboxes) -> Mail:
    return Mail(dovecot, smtp_server)


@pytest.fixture
def postgresql(request: pytest.FixtureRequest) -> str | None:
    """The run's PostgreSQL database, emptied; None where the PostgreSQL tests are skipped (never under CI=true)."""
    try:
        return request.getfixturevalue("postgresql_url")
    except pytest.skip.Exception:
        return None


def smoke_run(pbem: Path, folder: Path, mail: Mail, postgresql: str | None, *, demo_turns: int = 2,
              stderr: list[str] | None = None) -> str:
    """What a new operator does first, by the installed command ``pbem``, in ``folder`` (its HOME too): the
    database, a game and its board, two moves by mail through `pbem worker --once` over Dovecot, a game on
    PostgreSQL, and ``demo_turns`` turns of the demo (two are enough to fail on Python 3.13 without the demo's fix
    of its IMAP server; tests/e2e/test_demo.py plays whole games). Returns the demo's output; each command's
    stderr lines go into ``stderr``, prefixed with the command, when it is given."""
    env = dict(clean_env(folder), PBEM_CONFIG=os.devnull)

    def run(*args: str, timeout: int = 120, **settings: str) -> str:
        proc = subprocess.run([str(pbem), *args], capture_output=True, text=True, env=dict(env, **settings),
                              cwd=folder, timeout=timeout)
        assert proc.returncode == 0, f"pbem {' '.join(args)}: {proc.stdout[-3000:]}{proc.stderr[-3000:]}"
        if stderr is not None:
            stderr.extend(f"pbem {args[0]}: {line}" for line in proc.stderr.splitlines())
        return proc.stdout

    assert "Upgraded the database from empty to revision" in run("db", "upgrade")
    assert run("game", "new", "fifth-avenue", "-p", "Ann=ann@example.test", "-p", "Bob=bob@example.test",
               "--seed", "5").strip() == "1"
    board = run("game", "show", "1")
    assert "Fifth Avenue #1 (active)" in board and "THE CITY" in board and "|CP Central Park" in board, board

    # The worker mails both players; whoever must act answers with a move the game lists, twice.
    run("worker", "--once", **mail.settings())
    sent = []
    for _ in range(2):
        ((player, commands),) = json.loads(run("game", "legal", "1", "--json"))["to_act"].items()
        request = inbox(mail.dovecot, player.split("@")[0])[-1]
        assert str(request["Subject"]) == "[Fifth Avenue #1] Ann, Bob", request["Subject"]
        send(mail.smtp, reply_like_a_client(request, player, commands[0]))
        sent.append((player, commands[0]))
        run("worker", "--once", **mail.settings())
    played = [(event["actor"], event["data"]["command"]) for event in json.loads(run("game", "history", "1", "--json"))
              if event["kind"] == "command" and event["source"].startswith("mail:<")]
    assert played == sent

    if postgresql is not None:
        number = run("--db", postgresql, "game", "new", "manhattan", "-p", "Ann=ann@example.test",
                     "-p", "Bob=bob@example.test", "--seed", "5").strip()
        board = run("--db", postgresql, "game", "show", number, "--as", "ann@example.test")
        assert f"Manhattan #{number} (active)" in board and "| SYDNEY" in board, board

    demo = run("--db", "sqlite:///demo.sqlite3", "demo", "--players", "2", "--max-turns", str(demo_turns),
               timeout=300)
    assert demo.startswith("pbem demo: Fifth Avenue, 2 players (Ann, Bob)"), demo[:2000]
    assert re.search(r"^\d+ game mails for \d+ decisions", demo, re.M), demo[-2000:]
    assert re.findall(r"^turn (\d+): ", demo, re.M) == [str(turn + 1) for turn in range(demo_turns)], demo[-2000:]
    assert f"stopped after {demo_turns} turns" in demo and "pbem --db sqlite:///demo.sqlite3 game show 1" in demo, demo
    return demo


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


def test_the_wheel_in_a_virtualenv_of_the_running_python_makes_its_database_plays_by_mail_and_the_demo(
        built: Built, tmp_path: Path, mail: Mail, postgresql: str | None) -> None:
    python = new_venv(sys.executable, tmp_path / "venv")
    pbem_command = python.parent / "pbem"
    site_packages = site_packages_of(python)
    assert site_packages.is_relative_to(tmp_path / "venv"), site_packages
    # The running environment's packages, after the virtualenv's own (its user site too, where that is on).
    running = [*site.getsitepackages(), *([site.getusersitepackages()] if site.ENABLE_USER_SITE else [])]
    (site_packages / "running-environment.pth").write_text("".join(f"{folder}\n" for folder in running))
    installed = subprocess.run([sys.executable, "-m", "pip", "--python", str(python), "install", "--no-deps",
                                "--no-index", "--disable-pip-version-check", str(built.wheel)],
                               capture_output=True, text=True, timeout=300)
    assert installed.returncode == 0, installed.stdout + installed.stderr
    home = tmp_path / "home"
    home.mkdir()

    def run(*command: str | Path) -> str:
        proc = subprocess.run([str(part) for part in command], capture_output=True, text=True, env=clean_env(home),
                              cwd=home, timeout=120)
        assert proc.returncode == 0, f"{command}: {proc.stdout[-3000:]}{proc.stderr[-3000:]}"
        return proc.stdout

    # The pbem that runs is the wheel's, with the wheel's templates and migrations, not this source tree's; what it
    # imports besides comes from the running environment.
    where = json.loads(run(python, "-c", "import json, pbem, pbem.resources as r, typer, sqlalchemy; print(json.dumps("
                                         "[pbem.__file__, str(r.shipped_folder('templates')), "
                                         "str(r.shipped_folder('migrations')), typer.__file__, sqlalchemy.__file__]))"))
    assert [Path(path) for path in where[:3]] == [site_packages / "pbem" / "__init__.py",
                                                  site_packages / "pbem" / "templates",
                                                  site_packages / "pbem" / "migrations"], where
    assert all(any(Path(path).is_relative_to(folder) for folder in running) for path in where[3:]), (where, running)
    assert pbem_command.read_text().startswith(f"#!{python}"), pbem_command.read_text()[:200]
    assert run(pbem_command, "--version").strip() == f"pbem {VERSION}"

    smoke_run(pbem_command, home, mail, postgresql)
    # The database without --db or PBEM_DATABASE_URL: in its default place, in the user's data folder.
    status = run(pbem_command, "db", "status")
    found = re.search(r"^database sqlite:///(\S+) \(from default\), revision \w+, current$", status, re.M)
    assert found, status
    assert Path(found.group(1)).is_file() and Path(found.group(1)).is_relative_to(home), found.group(1)
    assert (home / "demo.sqlite3").is_file()


def test_a_source_tree_run_without_installing_finds_the_folders_beside_the_package(tmp_path: Path) -> None:
    """``PYTHONPATH=<the source tree>`` with no installation at all (``-S``: no site-packages, so no editable
    install either): there is no package pbem.templates, and the folders beside pbem/ are used."""
    code = "import json, pbem.resources as r; print(json.dumps([str(r.shipped_folder(n)) for n in %r]))" % (SHIPPED,)
    proc = subprocess.run([sys.executable, "-S", "-c", code], capture_output=True, text=True, timeout=60, cwd=tmp_path,
                          env=dict(clean_env(tmp_path), PYTHONPATH=str(ROOT)))
    assert proc.returncode == 0, proc.stderr
    assert json.loads(proc.stdout) == [str(ROOT / name) for name in SHIPPED]
