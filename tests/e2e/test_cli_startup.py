"""What a `pbem` command loads before it answers: the structure that makes it start soon (bench/cli.py measures
what it costs; these tests time nothing).

Each run calls the console script's entry point (pyproject.toml's ``[project.scripts]``) in a Python of its own,
as the script pip writes does (it imports the module, then calls the function), with this test's pbem first on
its path, and reports what the run imported.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
import tomllib
from pathlib import Path

import pytest

import pbem
from pbem.services.table.service import GameService
from pbem.store.db import make_engine

ROOT = Path(pbem.__file__).resolve().parents[1]
ENTRY_POINT = tomllib.loads((Path(__file__).resolve().parents[2] / "pyproject.toml").read_text())[
    "project"]["scripts"]["pbem"]
RUN = """
import importlib, json, sys
report, entry_point, *args = sys.argv[1:]
module, _, function = entry_point.partition(":")
sys.argv = ["pbem", *args]
code = 0
try:
    getattr(importlib.import_module(module), function)()
except SystemExit as exc:
    code = exc.code or 0
finally:
    with open(report, "w") as handle:
        json.dump({"code": code, "modules": sorted(sys.modules)}, handle)
"""
# What `pbem --version` has no use for: the command line's libraries, the database's, pbem's own modules.
NOT_FOR_THE_VERSION = ("typer", "click", "rich", "sqlalchemy", "sqlmodel", "pydantic", "alembic", "platformdirs")


def run(tmp_path: Path, *args: str, env: dict[str, str] | None = None) -> tuple[int, str, set[str]]:
    """(exit code, stdout, the modules imported) of the entry point run with ``args``."""
    report = tmp_path / "report.json"
    env = dict(env or os.environ, PYTHONPATH=os.pathsep.join([str(ROOT), os.environ.get("PYTHONPATH", "")]),
               PBEM_CONFIG=os.devnull, COLUMNS="120")
    proc = subprocess.run([sys.executable, "-c", RUN, str(report), ENTRY_POINT, *args], capture_output=True,
                          text=True, env=env, timeout=120)
    assert "Traceback" not in proc.stderr, proc.stderr
    found = json.loads(report.read_text())
    return found["code"], proc.stdout, set(found["modules"])


def top_level(modules: set[str]) -> set[str]:
    return {name.partition(".")[0] for name in modules}


def test_version_is_answered_before_the_command_line_is_built(tmp_path: Path) -> None:
    code, out, modules = run(tmp_path, "--version")
    assert (code, out) == (0, f"pbem {pbem.__version__}\n")
    assert not top_level(modules) & set(NOT_FOR_THE_VERSION), sorted(top_level(modules) & set(NOT_FOR_THE_VERSION))
    assert {name for name in modules if name.startswith("pbem")} <= {"pbem", "pbem._version", "pbem.cli"}


def test_version_says_the_same_when_the_command_line_answers_it(tmp_path: Path) -> None:
    code, out, modules = run(tmp_path, "--config", os.devnull, "--version")
    assert "typer" in modules  # not the shortcut: Typer's option
    assert (code, out) == (0, f"pbem {pbem.__version__}\n")


def test_game_list_reads_the_games_without_the_table_classes(tmp_path: Path, database_url: str) -> None:
    engine = make_engine(database_url)
    service = GameService(engine)
    game = service.create_game("fifth-avenue", [("Ann", "ann@example.org"), ("Bob", "bob@example.org")], seed=3)
    (email, commands), = service.legal(game)[1].items()
    service.submit(game, email, commands[0])
    expected = service.get(game)
    engine.dispose()
    env = dict(os.environ, PBEM_DATABASE_URL=database_url)
    code, out, modules = run(tmp_path, "game", "list", "--json", env=env)
    assert code == 0
    listed, = json.loads(out)
    assert (listed["game"], listed["to_act"], listed["events"]) == (game, expected.to_act, expected.last_seq)
    assert [p["email"] for p in listed["players"]] == ["ann@example.org", "bob@example.org"]
    assert not {"pbem.store.models", "sqlmodel", "sqlalchemy.orm"} & modules
    code, out, _ = run(tmp_path, "game", "list", env=env)
    assert code == 0 and "Fifth Avenue" in out and "Ann, Bob" in out


@pytest.mark.parametrize("args", [["--help"], ["game", "--help"], ["db", "--help"], ["sim", "--help"]])
def test_the_command_tree_still_answers(tmp_path: Path, args: list[str]) -> None:
    code, out, _ = run(tmp_path, *args)
    assert code == 0 and "Usage: pbem" in out
