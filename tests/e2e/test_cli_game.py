"""The moderator's `pbem game ...` commands, run as a moderator would, on real databases."""

from __future__ import annotations

import json
import os
import re
import shutil
import sqlite3
import subprocess
from pathlib import Path

ANN, BOB, CY = "ann@example.org", "bob@example.org", "cy@example.org"


def test_a_run_forked_from_the_prestarted_pbem_is_a_new_process_to_the_tests(tmp_path: Path, pbem,
                                                                             prestarted_pbem) -> None:
    """The `pbem` fixture forks most runs from a pbem that has done its imports (tests/e2e/conftest.py):
    the same runs started as new processes print the same and end with the same code."""
    url = f"sqlite:///{tmp_path / 'both.sqlite3'}"
    pbem(url, "db", "upgrade")
    pbem(url, "game", "new", "fifth-avenue", "-p", f"Ann={ANN}", "-p", f"Bob={BOB}", "--seed", "7")
    env = dict(os.environ, PBEM_DATABASE_URL=url, COLUMNS="120")
    forked_before = prestarted_pbem.runs
    for args in (("game", "show", "1"), ("game", "legal", "1", "--json"), ("game", "show", "2"), ("--help",),
                 ("game", "nonsense")):
        forked = pbem(url, *args, check=False)
        new = subprocess.run([shutil.which("pbem"), *args], capture_output=True, text=True, env=env, timeout=120)
        assert (forked.returncode, forked.stdout, forked.stderr) == (new.returncode, new.stdout, new.stderr), args
    assert prestarted_pbem.runs == forked_before + 5  # each of those runs was forked


def test_a_database_that_is_behind_says_so(tmp_path: Path, pbem, one_line_error) -> None:
    url = f"sqlite:///{tmp_path / 'new.sqlite3'}"
    one_line_error(pbem(url, "game", "list", check=False), "run `pbem db upgrade`")
    assert "Upgraded the database" in pbem(url, "db", "upgrade").stdout
    assert json.loads(pbem(url, "db", "status", "--json").stdout)["current"] is True
    assert json.loads(pbem(url, "game", "list", "--json").stdout) == []


def test_a_database_from_a_newer_pbem_says_so_in_one_line(tmp_path: Path, pbem, one_line_error) -> None:
    url = f"sqlite:///{tmp_path / 'newer.sqlite3'}"
    pbem(url, "db", "upgrade")
    with sqlite3.connect(tmp_path / "newer.sqlite3") as connection:
        connection.execute("UPDATE alembic_version SET version_num = '9999'")
    one_line_error(pbem(url, "game", "list", check=False), "which this pbem does not know")
    one_line_error(pbem(url, "db", "upgrade", check=False), "upgrade pbem instead of the database")
    status = pbem(url, "db", "status", check=False)
    assert status.returncode == 1 and "newer than this pbem knows" in status.stdout


def test_an_unreachable_database_is_one_line(pbem, one_line_error) -> None:
    one_line_error(pbem("postgresql://nobody@127.0.0.1:1/none", "game", "list", check=False), "cannot reach the database")


def test_the_moderators_day(database_url: str, tmp_path: Path, pbem, one_line_error) -> None:
    url = database_url
    new = pbem(url, "game", "new", "fifth-avenue", "--player", f"Ann={ANN}", "--player", f"Bob={BOB}",
               "--player", f"Cy={CY}", "--seed", "31")
    game = new.stdout.strip()
    assert game == "1"

    listed = json.loads(pbem(url, "game", "list", "--json").stdout)
    assert listed[0]["game"] == 1 and listed[0]["to_act"] == [ANN] and listed[0]["status"] == "active"

    shown = json.loads(pbem(url, "game", "show", game, "--json").stdout)
    assert shown["game"] == 1 and shown["kind"] == "fifth-avenue" and shown["over"] is False
    assert shown["to_act"] == [ANN] and shown["scores"] == {ANN: 0, BOB: 0, CY: 0}
    assert shown["state"]["seed"] == 31 and len(shown["state"]["hands"]) == 3  # the moderator sees everything

    as_bob = json.loads(pbem(url, "game", "show", game, "--as", BOB, "--json").stdout)
    assert "hands" not in as_bob["state"] and "rng" not in as_bob["state"]
    assert as_bob["state"]["hand"] == shown["state"]["hands"][1]

    board = pbem(url, "game", "show", game).stdout
    assert "Times Square" in board

    legal = json.loads(pbem(url, "game", "legal", game, "--json").stdout)
    assert legal["over"] is False and list(legal["to_act"]) == [ANN]
    first = legal["to_act"][ANN][0]
    assert first.startswith("place ")

    played = pbem(url, "game", "play", game, "--as", ANN, first).stdout
    assert "Ann placed a skyscraper" in played
    history = json.loads(pbem(url, "game", "history", game, "--json").stdout)
    assert [h["kind"] for h in history] == ["created", "command"]
    assert history[1]["data"]["by"] == "moderator" and history[1]["actor"] == ANN

    not_yours = pbem(url, "game", "play", game, "--as", ANN, "place 34W orange", check=False)
    one_line_error(not_yours, "not your turn")
    assert "Cy places a starting skyscraper" in not_yours.stderr and "player 3" not in not_yours.stderr
    one_line_error(pbem(url, "game", "play", game, "--as", CY, "place CH orange", check=False), "line 1")
    one_line_error(pbem(url, "game", "play", game, "--as", "eve@example.org", "A", check=False), "does not play")
    one_line_error(pbem(url, "game", "show", "42", check=False), "there is no game 42")

    undone = pbem(url, "game", "undo", game, "--steps", "1", "--reason", "a slip").stdout
    assert f"the moderator took back 1 command: Ann's '{first}'." in undone, undone
    assert json.loads(pbem(url, "game", "show", game, "--json").stdout)["state"] == shown["state"]
    one_line_error(pbem(url, "game", "undo", game, check=False), "exactly one of --to N or --steps N")

    assert "Dora" in pbem(url, "game", "replace-player", game, BOB, "dora@example.org", "--name", "Dora",
                          "--reason", "Bob left").stdout
    # the table may wrap a cell: its words read on, past the borders, when the cells beside it are empty
    shown_history = " ".join(re.sub(r"[│┃]", " ", pbem(url, "game", "history", game).stdout).split())
    assert shown_history.count("the moderator's reason:") == 2, shown_history
    assert "slip" in shown_history and "Bob left" in shown_history
    assert pbem(url, "game", "pause", game).stdout.strip() == "Game 1 is paused."
    one_line_error(pbem(url, "game", "play", game, "--as", ANN, first, check=False), "paused")
    pbem(url, "game", "resume", game)

    exported = tmp_path / "game1.json"
    pbem(url, "game", "export", game, "--output", str(exported))
    text = pbem(url, "game", "export", game, "--format", "text").stdout
    assert "seed: 31" in text and "undo" in text and "dora@example.org" in text
    assert "the moderator's reason: Bob left" in text and "the moderator's reason: a slip" in text
    assert "as Ann (by the moderator)" in text and "player 1" not in text
    copy = pbem(url, "game", "import", str(exported)).stdout.strip()
    assert copy == "2"
    original = json.loads(pbem(url, "game", "show", game, "--json").stdout)
    rebuilt = json.loads(pbem(url, "game", "show", copy, "--json").stdout)
    assert rebuilt["state"] == original["state"]

    broken = tmp_path / "broken.json"
    broken.write_text(exported.read_text()[:200])
    one_line_error(pbem(url, "game", "import", str(broken), check=False), "is not a JSON game export")
    assert len(json.loads(pbem(url, "game", "list", "--json").stdout)) == 2

    assert pbem(url, "game", "abort", game).stdout.strip() == "Game 1 is aborted."
    assert [g["game"] for g in json.loads(pbem(url, "game", "list", "--status", "aborted", "--json").stdout)] == [1]
    one_line_error(pbem(url, "game", "list", "--status", "lost", check=False), "unknown status")


def test_text_with_brackets_is_shown_as_written_not_read_as_markup(tmp_path: Path, pbem, one_line_error) -> None:
    url = f"sqlite:///{tmp_path / 'brackets.sqlite3'}"
    pbem(url, "db", "upgrade")
    pbem(url, "game", "new", "fifth-avenue", "--player", "[/b]=ann@example.org", "--player", "[red]Bo=bob@example.org")
    listed = pbem(url, "game", "list").stdout
    assert "[/b]" in listed and "[red]Bo" in listed
    assert "moderator" in pbem(url, "game", "history", "1").stdout
    one_line_error(pbem(url, "game", "show", "1", "--as", "[/x]@example.org", check=False),
                   "[/x]@example.org does not play in game 1")


def test_secret_words_are_made_at_creation_and_shown_to_the_moderator_only(tmp_path: Path, pbem) -> None:
    url = f"sqlite:///{tmp_path / 'secret.sqlite3'}"
    pbem(url, "db", "upgrade")
    pbem(url, "game", "new", "fifth-avenue", "-p", f"Ann={ANN}", "-p", f"Bob={BOB}", "--secret-words")
    players = json.loads(pbem(url, "game", "show", "1", "--json").stdout)["players"]
    words = [p["secret"] for p in players]
    assert all(word and "-" in word for word in words) and words[0] != words[1]
    assert f"secret words: Ann {words[0]}, Bob {words[1]}" in pbem(url, "game", "show", "1").stdout
    as_ann = pbem(url, "game", "show", "1", "--as", ANN, "--json").stdout
    assert "players" not in json.loads(as_ann) and words[0] not in as_ann and words[1] not in as_ann
    pbem(url, "game", "new", "fifth-avenue", "-p", f"Ann={ANN}", "-p", f"Bob={BOB}")
    assert [p["secret"] for p in json.loads(pbem(url, "game", "show", "2", "--json").stdout)["players"]] == [None, None]


def test_the_game_list_says_who_is_late_and_by_how_long(tmp_path: Path, pbem) -> None:
    from datetime import datetime, timedelta, timezone

    from pbem.services.common.timing import Timing
    from pbem.services.table.service import GameService
    from pbem.store.db import make_engine

    url = f"sqlite:///{tmp_path / 'late.sqlite3'}"
    pbem(url, "db", "upgrade")
    two_days_ago = datetime.now(timezone.utc) - timedelta(days=2, minutes=5)
    engine = make_engine(url)
    GameService(engine, clock=lambda: two_days_ago).create_game(
        "fifth-avenue", [("Ann", ANN), ("Bob", BOB)], seed=1, timing=Timing(deadline=24 * 3600))
    engine.dispose()
    pbem(url, "game", "new", "fifth-avenue", "-p", f"Cy={CY}", "-p", f"Bob={BOB}", "--deadline", "36h")
    listed = json.loads(pbem(url, "game", "list", "--json").stdout)
    assert 86400 < listed[0]["late_seconds"] < 86400 + 3600 and listed[1]["late_seconds"] == 0
    table = " ".join(pbem(url, "game", "list").stdout.split())
    assert "late 1 day" in table and "in 1 day 11 hours" in table
