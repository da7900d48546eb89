"""The Alembic migrations and the SQLModel tables describe the same schema."""

from __future__ import annotations

import os
from datetime import date, datetime, timedelta, timezone
from functools import cache
from pathlib import Path
from typing import Any, Iterator

import pytest
import sqlalchemy as sa
from alembic.autogenerate import compare_metadata
from alembic.runtime.migration import MigrationContext
from sqlalchemy import inspect

from pbem.store.db import SchemaError, current_revision, head_revision, make_engine, require_current_schema, upgrade
from pbem.store.models import metadata


def test_autogenerate_finds_no_difference(db_engine) -> None:
    with db_engine.connect() as connection:
        assert compare_metadata(MigrationContext.configure(connection), metadata) == []
    assert current_revision(db_engine) == head_revision(db_engine)
    require_current_schema(db_engine)


def test_a_new_database_is_behind_until_upgraded(tmp_path) -> None:
    engine = make_engine(f"sqlite:///{tmp_path / 'fresh' / 'pbem.sqlite3'}")
    with pytest.raises(SchemaError, match="run `pbem db upgrade`"):
        require_current_schema(engine)
    assert upgrade(engine) == (None, head_revision(engine))
    assert set(metadata.tables) <= set(inspect(engine).get_table_names())
    assert upgrade(engine) == (head_revision(engine), head_revision(engine))  # idempotent
    require_current_schema(engine)


def test_a_database_from_a_newer_pbem_says_so_and_is_left_alone(tmp_path) -> None:
    engine = make_engine(f"sqlite:///{tmp_path / 'newer.sqlite3'}")
    upgrade(engine)
    with engine.begin() as connection:
        connection.exec_driver_sql("UPDATE alembic_version SET version_num = '9999'")
    for call in (require_current_schema, upgrade):
        with pytest.raises(SchemaError, match="revision 9999, which this pbem does not know .*upgrade pbem"):
            call(engine)
    assert current_revision(engine) == "9999"


def test_the_migration_files_name_their_revisions_in_one_line(tmp_path) -> None:
    """The quick schema check every command makes (``require_current_schema``) reads the newest revision from the
    file names: each file is named after its revision, its parent is the file before it, and the last is
    Alembic's head."""
    from alembic.script import ScriptDirectory

    from pbem.store.db import alembic_config, shipped_revisions

    engine = make_engine(f"sqlite:///{tmp_path / 'names.sqlite3'}")
    script = ScriptDirectory.from_config(alembic_config(engine))
    revisions = shipped_revisions()
    assert revisions == sorted(r.revision for r in script.walk_revisions())
    for parent, child in zip([None] + revisions, revisions):
        assert script.get_revision(child).down_revision == parent
        assert len(list((Path(script.dir) / "versions").glob(f"{child}_*.py"))) == 1, child
    assert revisions[-1] == head_revision(engine)


def test_the_quick_check_reads_the_revision_alembic_wrote(tmp_path) -> None:
    from pbem.store.db import stored_revision

    engine = make_engine(f"sqlite:///{tmp_path / 'quick.sqlite3'}")
    assert stored_revision(engine) is None
    with pytest.raises(SchemaError, match="not initialised"):
        require_current_schema(engine)
    upgrade(engine)
    assert stored_revision(engine) == current_revision(engine) == head_revision(engine)
    require_current_schema(engine)


# --------------------------------------------------------------------------- up and down, with data


@pytest.fixture(params=["sqlite", "postgresql"])
def walk_url(request: pytest.FixtureRequest, tmp_path: Path) -> Iterator[str]:
    """An empty database of each kind, of this test alone (it goes down to nothing and up again). On PostgreSQL
    a schema of its own in the run's database, first on the search path (a database of its own took a second
    to make and drop)."""
    if request.param == "sqlite":
        yield f"sqlite:///{tmp_path / 'walk.sqlite3'}"
        return
    url = request.getfixturevalue("postgres_url")  # skips, or fails under CI, without PostgreSQL
    name = f"walk_{os.getpid()}"
    engine = make_engine(url)
    with engine.begin() as connection:
        connection.exec_driver_sql(f'DROP SCHEMA IF EXISTS "{name}" CASCADE; CREATE SCHEMA "{name}"')
    yield f"{url}?options=-csearch_path%3D{name}"
    with engine.begin() as connection:
        connection.exec_driver_sql(f'DROP SCHEMA IF EXISTS "{name}" CASCADE')
    engine.dispose()


ANN, BOB, ZED = "ann@example.org", "bob@example.org", "zed@example.org"
T0 = datetime(2026, 11, 20, 9, 30, tzinfo=timezone.utc)


def schema(engine: sa.Engine) -> dict[str, Any]:
    """What the database's tables are, as reflected: columns (type, nullability, default), keys, indexes (with
    the condition of a partial one), unique constraints. Two databases made by different roads to one revision
    must give the same. (One query of each kind for every table: on PostgreSQL a table at a time took 0.3 s.)"""
    inspector = sa.inspect(engine)
    columns, keys, foreign, indexes, unique = (
        {table: found for (_, table), found in getter().items()}
        for getter in (inspector.get_multi_columns, inspector.get_multi_pk_constraint,
                       inspector.get_multi_foreign_keys, inspector.get_multi_indexes,
                       inspector.get_multi_unique_constraints))
    return {table: {
        "columns": [(c["name"], str(c["type"]), c["nullable"], str(c.get("default"))) for c in columns[table]],
        "primary key": keys[table]["constrained_columns"],
        "foreign keys": sorted((tuple(fk["constrained_columns"]), fk["referred_table"], tuple(fk["referred_columns"]))
                               for fk in foreign[table]),
        "indexes": sorted((ix["name"], tuple(ix["column_names"]), bool(ix["unique"]),
                           sorted((k, " ".join(str(v).split())) for k, v in ix.get("dialect_options", {}).items()))
                          for ix in indexes[table]),
        "unique": sorted((uq["name"], tuple(uq["column_names"])) for uq in unique[table]),
    } for table in sorted(columns)}


def rows(engine: sa.Engine) -> dict[str, dict[tuple[Any, ...], dict[str, Any]]]:
    """Every row of pbem's tables, by primary key (the models': no revision changed one), as the driver reads it."""
    found = {}
    with engine.connect() as connection:
        for table in sa.inspect(connection).get_table_names():
            if table == "alembic_version":
                continue
            key = [column.name for column in metadata.tables[table].primary_key]
            found[table] = {tuple(row[k] for k in key): dict(row)
                            for row in connection.execute(sa.text(f'SELECT * FROM "{table}"')).mappings()}
    return found


def fill(engine: sa.Engine) -> None:
    """Something in every table and in nearly every column: two games under way (one with a robot, secret
    words, a digest player, pictures off, deadlines changed, an absence), outbox mail of every status, mail
    that came in (one refused for a seat), a claim, a worker's heartbeat, marks, players hidden on the archive's
    site (one under a key from before the archive secret), an open table with a seat, a started one, a request
    waiting for its code and a watcher."""
    from sqlmodel import Session

    from pbem.archive import history
    from pbem.services.table.service import GameService
    from pbem.store.models import (ArchiveHiddenPlayer, InboundMail, MailClaim, Mark, OutboxMail, SignupRequest,
                                   SignupSeat, SignupTable, Watcher, WorkerHeartbeat)
    from pbem.store.statuses import OutboxStatus

    games = GameService(engine, mail_domain="example.org")
    first = games.create_game("fifth-avenue", [("Ann", ANN), ("Bob", BOB), ("Robo", "robot")], seed=3,
                              secret_words=True)
    for _ in range(3):
        (email, commands), = games.legal(first)[1].items()
        games.submit(first, email, commands[0])
    games.set_delivery(first, "digest", BOB)
    games.set_pictures(first, "off", ANN)
    games.set_timing(first, {"deadline": "48h"})
    games.absences.add(ANN, date(2027, 1, 4), date(2027, 1, 8))
    second = games.create_game("manhattan", [("Ann", ANN), ("Bob", BOB)], seed=4)
    games.set_status(second, "pause")
    history.hide_player(engine, BOB)
    with Session(engine) as s:
        s.add(ArchiveHiddenPlayer(key=old_key(ZED), hidden_at=T0, legacy=True))
        for number, status in enumerate(OutboxStatus.ALL, start=1):
            s.add(OutboxMail(game_id=first, recipient=f"player{number}@example.org", subject=f"mail {status}",
                             headers={"X-Try": str(number)}, text_body=f"body {number}", html_body=f"<p>{number}</p>",
                             status=status, attempts=number, next_attempt_at=T0 + timedelta(minutes=number),
                             sent_at=T0 if status == OutboxStatus.SENT else None, last_error=f"error {number}",
                             message_id=f"<m{number}@example.org>", created_at=T0, claimed_by=f"host:{number}",
                             decision=number, decision_key=f"key {number}", decision_words=f"words {number}",
                             picture={"board": number}, told_from=number))
        s.add(InboundMail(message_id="<in1@example.org>", mailbox="INBOX", uidvalidity=7, uid=1, sender=ANN,
                          game_id=first, outcome="applied", reason="", received_at=T0))
        s.add(InboundMail(message_id="<in2@example.org>", mailbox="INBOX", uidvalidity=7, uid=2,
                          sender="eve@example.org", game_id=first, outcome="rejected", reason="no secret word",
                          received_at=T0, seat_email=ANN))
        s.add(MailClaim(mailbox="INBOX", uidvalidity=7, uid=3, owner="host:4121:abc", until=T0))
        s.add(WorkerHeartbeat(token="3f2a9c01b7de", host="mail-1", pid=4121, mode="long-running",
                              beat_interval=60.0, started_at=T0, beat_at=T0, stopped_at=None, trouble="waiting",
                              mailbox_read_at=T0, mail_found=2, mail_found_oldest=T0, pass_ended_at=T0, mail_left=1,
                              mail_left_oldest=T0))
        s.add(Mark(name="deadline-clocks", at=T0))
        table = SignupTable(kind="manhattan", options={}, timing={"deadline": 86400}, seats=3, opener=ANN, status="open",
                            game_id=None, created_at=T0, started_at=None)
        started = SignupTable(kind="fifth-avenue", options={"back_side": True}, timing={}, seats=2, opener=BOB,
                              status="started", game_id=second, created_at=T0, started_at=T0)
        s.add_all([table, started])
        s.flush()
        s.add(SignupSeat(table_id=table.id, email=ANN, name="Ann", joined_at=T0))
        s.add(SignupRequest(email=ZED, action="join", data={"table": table.id, "name": "Zed"}, code_hash="ab" * 32,
                            created_at=T0, expires_at=T0 + timedelta(days=2), done_at=None))
        s.add(Watcher(game_id=first, email=ZED, since=T0, told_seq=3, due_at=T0 + timedelta(days=1)))
        s.commit()


@cache
def old_key(email: str) -> str:
    """A player's key on the archive's site before revision 0013, by that migration's own formula."""
    from pbem.store.db import _script

    return _script().get_revision("0013").module._old_key(email)


def test_every_revision_goes_down_and_up_again_with_data_in_every_table(walk_url: str) -> None:
    """Up from nothing a revision at a time (the schema of each kept), data in every table, then down a revision
    at a time: each step leaves the schema an upgrade to that revision makes, and every row and column that
    revision has as it was. Up again: the first revision's data is still there at the top, the schema is the
    models', and the game goes on. Last, at once to nothing (only Alembic's table left) and up again."""
    from pbem.archive import history
    from pbem.services.table.service import GameService
    from pbem.store.db import downgrade, revisions

    engine = make_engine(walk_url)
    names = [found.revision for found in revisions(engine)]
    made: dict[str, Any] = {}
    for name in names:
        assert upgrade(engine, to=name)[1] == name
        made[name] = schema(engine)
    fill(engine)
    full = rows(engine)
    assert all(full.values()), [table for table, found in full.items() if not found]
    hidden = {(history.player_key(engine, BOB),), (old_key(ZED),)}
    assert set(full["archive_hidden_players"]) == hidden

    def intact(hidden_now: set[tuple[str, ...]], kept: dict[str, set[str]] | None = None) -> None:
        """Every row of ``full`` in the columns the database has now (``kept``: in those tables and columns
        only); the players hidden on the archive's site under the keys ``hidden_now``."""
        for table, found in rows(engine).items():
            if kept is not None and table not in kept:
                continue
            if table == "archive_hidden_players":
                assert set(found) == hidden_now
                continue
            assert found.keys() == full[table].keys(), table
            for key, row in found.items():
                columns = kept[table] if kept is not None else set(row)
                assert {c: row[c] for c in columns} == {c: full[table][key][c] for c in columns}, (table, key)

    # One release back and forward again: the players hidden on the archive's site stay hidden (0013 gives
    # them the unkeyed key going down and a key under a new secret coming up), and nothing else moves.
    unkeyed = {(old_key(BOB),), (old_key(ZED),)}
    downgrade(engine, "0012")
    intact(unkeyed)
    upgrade(engine)
    assert history.hidden_keys(engine) == {history.player_key(engine, BOB), f"legacy:{old_key(ZED)}"}
    assert history.archive_secret(engine).hex() != full["archive_secret"][(1,)]["secret"]
    full.update({table: rows(engine)[table] for table in ("archive_secret", "archive_hidden_players")})
    # 0016 down drops the tables of signup with what they hold (open tables, waiting requests, watchers): up again
    # they are there, empty, and the game started from a table is still a game.
    signup = ("signup_requests", "signup_seats", "signup_tables", "watchers")
    assert {table: rows(engine)[table] for table in signup} == {table: {} for table in signup}
    full.update({table: {} for table in signup})
    hidden = set(full["archive_hidden_players"])
    intact(hidden)

    for name in reversed(names[:-1]):
        assert downgrade(engine, name)[1] == name
        assert schema(engine) == made[name], name
        intact(hidden if name >= "0013" else unkeyed)
    first = {table: {column[0] for column in found["columns"]}
             for table, found in made[names[0]].items() if table != "alembic_version"}
    for name in names[1:]:  # (the schema of each step is the one above: the same steps from the same schema)
        assert upgrade(engine, to=name)[1] == name
        intact(set(), first)
    with engine.connect() as connection:
        assert compare_metadata(MigrationContext.configure(connection), metadata) == []
    games = GameService(engine, mail_domain="example.org")
    (email, commands), = games.legal(1)[1].items()
    assert games.submit(1, email, commands[0]).commands

    before, after, undone = downgrade(engine, "base")
    assert (before, after, [found.revision for found in undone]) == (names[-1], None, names[::-1])
    assert sa.inspect(engine).get_table_names() == ["alembic_version"]
    assert upgrade(engine) == (None, names[-1])
    assert schema(engine) == made[names[-1]]
    engine.dispose()


def test_up_to_a_revision_and_down_refuse_what_they_cannot_do(tmp_path) -> None:
    from pbem.store.db import downgrade, downgrade_plan

    engine = make_engine(f"sqlite:///{tmp_path / 'steps.sqlite3'}")
    assert upgrade(engine, to="0005") == (None, "0005")
    for call, pattern in ((lambda: upgrade(engine, to="0099"), "there is no revision 0099 to upgrade to"),
                          (lambda: upgrade(engine, to="0003"), "at revision 0005, newer than 0003: `pbem db downgrade "),
                          (lambda: downgrade(engine, "0007"), "at revision 0005, older than 0007: `pbem db upgrade --to"),
                          (lambda: downgrade(engine, "5"), "there is no revision 5 to go down to .*0001 to ")):
        with pytest.raises(SchemaError, match=pattern):
            call()
        assert current_revision(engine) == "0005"
    assert upgrade(engine, to="0005") == ("0005", "0005")
    assert downgrade(engine, "0005") == ("0005", "0005", [])
    assert [found.revision for found in downgrade_plan(engine, "0002")[1]] == ["0005", "0004", "0003"]
    assert current_revision(engine) == "0005"
    with engine.begin() as connection:
        connection.exec_driver_sql("UPDATE alembic_version SET version_num = '9999'")
    for call in (lambda: upgrade(engine, to="0006"), lambda: downgrade(engine, "0001")):
        with pytest.raises(SchemaError, match="revision 9999, which this pbem does not know .*upgrade pbem"):
            call()
    assert current_revision(engine) == "9999"


def test_a_step_that_would_leave_a_broken_reference_on_sqlite_changes_nothing(tmp_path) -> None:
    """Foreign keys are off while SQLite copies a table, so the whole database is checked before the end."""
    from pbem.services.table.service import GameService
    from pbem.store.db import downgrade

    engine = make_engine(f"sqlite:///{tmp_path / 'orphan.sqlite3'}")
    upgrade(engine)
    GameService(engine).create_game("fifth-avenue", [("Ann", ANN), ("Bob", BOB)], seed=1)
    before = schema(engine)
    with engine.connect() as connection:  # an event of a game that is not there, as a bug could leave one
        raw = connection.connection.driver_connection
        raw.execute("PRAGMA foreign_keys=OFF")
        raw.execute("INSERT INTO events (game_id, seq, actor, kind, text, source, data, created_at) "
                    "SELECT 99, seq, actor, kind, text, source, data, created_at FROM events WHERE game_id = 1")
        raw.execute("PRAGMA foreign_keys=ON")
    with pytest.raises(SchemaError, match=r"1 rows would refer to rows that are not there \(events rowid 2 -> games"):
        downgrade(engine, "0008")
    assert current_revision(engine) == head_revision(engine) and schema(engine) == before
    with engine.connect() as connection:
        assert connection.exec_driver_sql("PRAGMA foreign_keys").scalar() == 1
