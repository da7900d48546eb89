"""Two writers of one SQLite file: the second waits for the first's write to end, then writes (store.db.begin_writing,
which tries again every half millisecond instead of SQLite's own sleeps of up to 100 ms), and gives up with SQLite's
"database is locked", a transient failure, only after its time is up."""

from __future__ import annotations

import sqlite3
import threading
from pathlib import Path

import pytest
import sqlalchemy as sa

from pbem.store.db import BUSY_SECONDS, begin_writing, is_transient, make_engine
from pbem.store.uow import UnitOfWork

WAIT = 120  # seconds: only a hang reaches it


@pytest.fixture
def database(tmp_path: Path) -> Path:
    path = tmp_path / "writers.sqlite3"
    with sqlite3.connect(path) as connection:
        connection.execute("PRAGMA journal_mode=WAL")
        connection.execute("CREATE TABLE said (id INTEGER PRIMARY KEY, who TEXT NOT NULL)")
    return path


def _holder(path: Path) -> sqlite3.Connection:
    """Another process's writer, in the middle of its write."""
    holder = sqlite3.connect(path, isolation_level=None, check_same_thread=False)
    holder.execute("BEGIN IMMEDIATE")
    holder.execute("INSERT INTO said (who) VALUES ('first')")
    return holder


def test_a_writer_waits_for_the_write_before_it_and_then_writes(database: Path) -> None:
    engine = make_engine(f"sqlite:///{database}", flushed=False)
    holder = _holder(database)
    trying, failed = threading.Event(), []

    def second() -> None:
        trying.set()
        try:
            with UnitOfWork(engine, write=True) as uow:
                uow.session.connection().execute(sa.text("INSERT INTO said (who) VALUES ('second')"))
                uow.commit()
        except Exception as exc:  # noqa: BLE001 - the test says what went wrong
            failed.append(exc)

    thread = threading.Thread(target=second)
    thread.start()
    assert trying.wait(WAIT)
    assert holder.execute("SELECT who FROM said").fetchall() == [("first",)]  # the second cannot be in before
    holder.execute("COMMIT")
    thread.join(WAIT)
    assert not thread.is_alive() and failed == []
    assert holder.execute("SELECT who FROM said ORDER BY id").fetchall() == [("first",), ("second",)]
    holder.close()
    engine.dispose()


def test_a_writer_gives_up_when_its_time_is_up_and_waits_as_before_afterwards(database: Path) -> None:
    holder = _holder(database)
    writer = sqlite3.connect(database, isolation_level=None)
    with pytest.raises(sqlite3.OperationalError, match="database is locked") as raised:
        begin_writing(writer, busy_seconds=0.05)
    assert is_transient(sa.exc.OperationalError("BEGIN IMMEDIATE", {}, raised.value))  # the worker tries again
    assert not writer.in_transaction
    # SQLite's own wait is back for every other statement of the connection.
    assert writer.execute("PRAGMA busy_timeout").fetchone() == (int(BUSY_SECONDS * 1000),)
    holder.execute("COMMIT")
    begin_writing(writer, busy_seconds=0.05)
    assert writer.in_transaction
    writer.execute("ROLLBACK")
    holder.close()
    writer.close()


def test_a_failure_other_than_a_taken_lock_is_not_waited_on(tmp_path: Path) -> None:
    writer = sqlite3.connect(tmp_path / "w.sqlite3", isolation_level=None)
    writer.execute("BEGIN")  # a transaction already open: SQLite refuses a second BEGIN at once
    with pytest.raises(sqlite3.OperationalError, match="within a transaction"):
        begin_writing(writer, busy_seconds=BUSY_SECONDS)
    writer.close()
