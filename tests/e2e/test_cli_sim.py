"""The installed ``pbem`` command, run as a user would run it."""

from __future__ import annotations

import json
import shutil
import subprocess
import sys

import pytest

PBEM = shutil.which("pbem")


def run(*args: str) -> subprocess.CompletedProcess[str]:
    command = [PBEM] if PBEM else [sys.executable, "-m", "pbem"]
    return subprocess.run([*command, *args], capture_output=True, text=True, timeout=120)


def test_sim_json_reports_every_game() -> None:
    proc = run("sim", "fifth-avenue", "--players", "3", "--games", "4", "--seed", "11", "--json")
    assert proc.returncode == 0, proc.stderr
    doc = json.loads(proc.stdout)
    assert doc["game"] == "fifth-avenue" and doc["players"] == 3 and len(doc["games"]) == 4
    assert [g["seed"] for g in doc["games"]] == [11, 12, 13, 14]
    for game in doc["games"]:
        assert len(game["scores"]) == 3 and game["commands"] > 0
        assert game["ended_by"] in ("supply", "building_stop")
        best = max(game["scores"])
        assert all(game["scores"][w] == best for w in game["winners"])


def test_sim_is_deterministic_and_prints_a_table() -> None:
    first = run("sim", "fifth-avenue", "--players", "2", "--games", "2", "--seed", "5", "--back-side")
    second = run("sim", "fifth-avenue", "--players", "2", "--games", "2", "--seed", "5", "--back-side")
    assert first.returncode == 0, first.stderr
    assert first.stdout == second.stdout
    assert "winner" in first.stdout and "back side" in first.stdout


@pytest.mark.parametrize(
    "args,message",
    [
        (("sim", "chess"), "unknown game 'chess'"),
        (("sim", "fifth-avenue", "--players", "5"), "is for 2, 3, 4 players, not 5"),
        (("sim", "fifth-avenue", "--policy", "clever"), "unknown policy 'clever'"),
    ],
)
def test_sim_refuses_bad_arguments_in_one_line(args: tuple[str, ...], message: str) -> None:
    proc = run(*args)
    assert proc.returncode != 0
    assert message in proc.stderr
    assert len(proc.stderr.strip().splitlines()) == 1


def test_help_shows_examples() -> None:
    proc = run("sim", "--help")
    assert proc.returncode == 0
    assert "pbem sim fifth-avenue --players 4" in proc.stdout
