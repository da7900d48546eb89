"""PostgreSQL's pooled connections (pbem.store.db, pbem.store.uow): a connection the server ended is never handed
out, without a round trip to the server for one just used; a unit of work that only reads runs no transaction of
its own (at READ COMMITTED its statements read what they would in one), and one that asks for one moment still
gets it (issue 45, point 8)."""

from __future__ import annotations

import pytest
import sqlalchemy as sa
from psycopg.pq import TransactionStatus
from sqlmodel import select

from pbem.archive.history import _one_moment
from pbem.store import db
from pbem.store.db import make_engine
from pbem.store.models import Game
from pbem.store.uow import UnitOfWork
from pbem_testing.waiting import wait_until


@pytest.fixture
def pg(postgresql_url: str):  # type: ignore[no-untyped-def]
    engine = make_engine(postgresql_url, flushed=False)
    admin = sa.create_engine(postgresql_url, isolation_level="AUTOCOMMIT")
    yield engine, admin
    admin.dispose()
    engine.dispose()


def backend(engine: sa.Engine) -> int:
    with UnitOfWork(engine) as uow:
        return uow.session.exec(sa.text("SELECT pg_backend_pid()")).scalar()  # type: ignore[call-overload]


def terminate(admin: sa.Engine, pid: int) -> None:
    """End the server's process of a connection, as a restart or an operator does, and wait until it is gone."""
    with admin.connect() as connection:
        connection.execute(sa.text("SELECT pg_terminate_backend(:pid)"), {"pid": pid})

        def gone() -> bool:
            return not connection.execute(sa.text("SELECT 1 FROM pg_stat_activity WHERE pid = :pid"),
                                          {"pid": pid}).first()

        wait_until(gone, f"the server process {pid} ended")


def counting_pings(engine: sa.Engine, monkeypatch: pytest.MonkeyPatch) -> list[int]:
    pings: list[int] = []
    real = engine.dialect.do_ping

    def ping(dbapi_connection) -> bool:  # type: ignore[no-untyped-def]
        pings.append(1)
        return real(dbapi_connection)

    monkeypatch.setattr(engine.dialect, "do_ping", ping)
    return pings


def test_a_connection_just_used_goes_out_again_without_a_ping(pg, monkeypatch: pytest.MonkeyPatch) -> None:
    engine, _ = pg
    pings = counting_pings(engine, monkeypatch)
    first = backend(engine)
    assert [backend(engine) for _ in range(5)] == [first] * 5  # the same pooled connection
    assert pings == []
    monkeypatch.setattr(db, "RESTED", 0.0)  # every connection counts as rested: pinged before it goes out
    assert backend(engine) == first and pings == [1]


@pytest.mark.parametrize("rested", [False, True])
def test_a_connection_the_server_ended_is_replaced_before_it_is_used(pg, monkeypatch: pytest.MonkeyPatch,
                                                                     rested: bool) -> None:
    """Just used: the server's last word on the socket gives it away; rested: the ping does (the socket is not
    looked at here, as for a server that vanished without a word). No statement of the unit fails either way."""
    engine, admin = pg
    pings = counting_pings(engine, monkeypatch)
    if rested:
        monkeypatch.setattr(db, "RESTED", 0.0)
        monkeypatch.setattr(db, "_has_word", lambda _connection: False)
    first = backend(engine)
    terminate(admin, first)
    second = backend(engine)
    assert second != first
    assert pings == [1]  # the ping that failed; the new connection is not pinged
    terminate(admin, second)
    with UnitOfWork(engine, write=True) as uow:  # a writing unit too
        uow.session.exec(sa.text("INSERT INTO marks (name, at) VALUES ('x', now())"))  # type: ignore[call-overload]
        uow.commit()
    assert backend(engine) not in (first, second)


def test_a_reading_unit_runs_no_transaction_and_one_moment_still_does(pg) -> None:
    engine, _ = pg

    def status(uow: UnitOfWork) -> TransactionStatus:
        return uow.session.connection().connection.dbapi_connection.info.transaction_status  # type: ignore[union-attr]

    with UnitOfWork(engine) as uow:
        assert uow.session.exec(select(Game)).all() == []
        assert status(uow) == TransactionStatus.IDLE  # no BEGIN was sent, no ROLLBACK will be
    with UnitOfWork(engine, write=True) as uow:
        uow.session.exec(select(Game)).all()
        assert status(uow) == TransactionStatus.INTRANS
    with UnitOfWork(engine) as uow:
        _one_moment(uow)
        isolation = uow.session.exec(sa.text("SHOW transaction_isolation")).scalar()  # type: ignore[call-overload]
        assert isolation == "repeatable read"
        assert status(uow) == TransactionStatus.INTRANS
    with UnitOfWork(engine) as uow:  # the pool gave the connection back as it was
        isolation = uow.session.exec(sa.text("SHOW transaction_isolation")).scalar()  # type: ignore[call-overload]
        assert isolation == "read committed"
        assert status(uow) == TransactionStatus.IDLE
