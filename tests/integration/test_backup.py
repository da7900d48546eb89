"""`pbem db backup` while games are played, and `pbem db check` on the copy (issue 45, point 4).

A process of its own plays moves in four games on a SQLite file, one transaction each, as the worker does, while
the backup is taken; the test waits until moves were committed before and after it, so the copy is of a moment in
the middle of the play. The copy, put in a new place as a restore would, opens as pbem's database: every game
replays from its seed and its commands in force to the state its snapshot and later events give, and play goes on
in it. A game whose snapshot was changed behind pbem's back is named by the check.
"""

from __future__ import annotations

import multiprocessing as mp
import shutil
from pathlib import Path

import pytest
from sqlalchemy import func, text
from sqlmodel import Session, select

from pbem.services.common.errors import ServiceError
from pbem.services.table.database_check import check_database
from pbem.services.table.service import GameService
from pbem.store.db import DatabaseFileError, backup_sqlite, make_engine, upgrade
from pbem.store.models import Event
from pbem_testing.waiting import HANG, wait_until

GAMES = 4


def _play(url: str, games: list[int], stop, moves) -> None:  # type: ignore[no-untyped-def]
    """Moves in turn in every game until ``stop`` is set; ``moves`` counts the committed ones."""
    service = GameService(make_engine(url))
    while not stop.is_set():
        for game_id in games:
            info, legal = service.legal(game_id)
            if not legal:
                continue
            (email, commands), = legal.items()
            try:
                service.submit(game_id, email, commands[len(commands) // 2])
            except ServiceError:
                continue
            with moves.get_lock():
                moves.value += 1


def events(url: str) -> int:
    engine = make_engine(url)
    with Session(engine) as session:
        count = session.exec(select(func.count()).select_from(Event)).one()
    engine.dispose()
    return count


def test_a_backup_taken_while_games_are_played_restores_and_every_game_replays(tmp_path: Path) -> None:
    live = tmp_path / "live.sqlite3"
    url = f"sqlite:///{live}"
    engine = make_engine(url)
    upgrade(engine)
    service = GameService(engine)
    games = [service.create_game("fifth-avenue" if n % 2 else "manhattan",
                                 [("Ann", "ann@example.org"), ("Bob", "bob@example.org"), ("Cy", "cy@example.org")],
                                 seed=40 + n) for n in range(GAMES)]
    ctx = mp.get_context("spawn")
    stop, moves = ctx.Event(), ctx.Value("i", 0)
    player = ctx.Process(target=_play, args=(url, games, stop, moves))
    player.start()
    try:
        wait_until(lambda: moves.value >= 20, "20 moves before the backup")
        before = moves.value
        size = backup_sqlite(live, tmp_path / "backup.sqlite3")
        during = moves.value
        wait_until(lambda: moves.value >= during + 20, "20 moves after the backup")
    finally:
        stop.set()
        player.join(timeout=HANG)
    assert player.exitcode == 0
    assert size == (tmp_path / "backup.sqlite3").stat().st_size > 0
    assert not list(tmp_path.glob(".backup.sqlite3*")) and not list(tmp_path.glob("backup.sqlite3-*"))

    restored = tmp_path / "restored" / "pbem.sqlite3"
    restored.parent.mkdir()
    shutil.copyfile(tmp_path / "backup.sqlite3", restored)
    restored_url = f"sqlite:///{restored}"
    in_copy, in_live = events(restored_url), events(url)
    assert GAMES + before <= in_copy < in_live, (before, in_copy, in_live)  # a moment in the middle of the play
    found = check_database(make_engine(restored_url))
    assert found.sound, found.problems
    assert found.games == GAMES and found.counts["games"] == GAMES and found.counts["events"] == in_copy
    assert found.revision == found.head
    # The copy is a database pbem plays on.
    again = GameService(make_engine(restored_url))
    info, legal = again.legal(games[0])
    (email, commands), = legal.items()
    again.submit(games[0], email, commands[0])
    assert check_database(make_engine(restored_url)).sound


def test_the_check_names_a_game_whose_stored_state_is_not_its_replay(tmp_path: Path) -> None:
    url = f"sqlite:///{tmp_path / 'pbem.sqlite3'}"
    engine = make_engine(url)
    upgrade(engine)
    service = GameService(engine)
    first = service.create_game("fifth-avenue", [("Ann", "ann@example.org"), ("Bob", "bob@example.org")], seed=3)
    second = service.create_game("fifth-avenue", [("Ann", "ann@example.org"), ("Bob", "bob@example.org")], seed=4)
    assert check_database(engine).sound
    with engine.begin() as connection:  # the snapshot of game 2 made with another seed
        other = connection.execute(text("SELECT state FROM snapshots WHERE game_id = :g"), {"g": first}).scalar_one()
        connection.execute(text("UPDATE snapshots SET state = :s WHERE game_id = :g"), {"s": other, "g": second})
    found = check_database(engine)
    assert not found.sound and found.games == 1
    assert found.problems == [f"game {second}: its 0 commands replayed from its seed give another state than its "
                              "snapshot and later events"]


def test_a_backup_never_overwrites_a_file(tmp_path: Path) -> None:
    url = f"sqlite:///{tmp_path / 'pbem.sqlite3'}"
    upgrade(make_engine(url))
    (tmp_path / "kept.sqlite3").write_text("mine")
    with pytest.raises(DatabaseFileError, match="exists"):
        backup_sqlite(tmp_path / "pbem.sqlite3", tmp_path / "kept.sqlite3")
    assert (tmp_path / "kept.sqlite3").read_text() == "mine"
