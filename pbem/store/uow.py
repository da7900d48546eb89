"""The unit of work: one transaction, committed once or rolled back whole."""

from __future__ import annotations

import zlib
from collections.abc import Iterator
from contextlib import contextmanager
from contextvars import ContextVar
from types import TracebackType
from weakref import WeakKeyDictionary

from sqlalchemy import Engine, bindparam, text
from sqlmodel import Session, select

from .. import crashpoints

from .models import Game


class UnitOfWork:
    """``with UnitOfWork(engine, write=True) as uow: ...; uow.commit()``.

    Leaving the block without ``commit()`` rolls everything back, so a failure
    anywhere changes nothing. Inside ``reading(engine)``, units of work that only
    read share the block's one transaction until the first write begins.
    """

    def __init__(self, engine: Engine, *, write: bool = False, flushed: bool = False) -> None:
        """``flushed`` (a writing unit): its commit is on disk when it returns, and so is every commit before it,
        on an engine whose commits are not (store.db.make_engine)."""
        self.write = write
        self.database = engine
        self.engine = engine.execution_options(pbem_write=True, pbem_flush=flushed) if write else reads(engine)
        self.session: Session
        self._shared = False

    def __enter__(self) -> "UnitOfWork":
        scope = _READING.get()
        if scope is not None and scope.engine is self.database:
            if not self.write and scope.uow is not None:
                self.session, self._shared = scope.uow.session, True
                return self
            if self.write:
                scope.end()  # what comes after a write reads what it wrote: in a transaction of its own
        self.session = Session(self.engine, expire_on_commit=False)
        return self

    def __exit__(self, exc_type: type[BaseException] | None, exc: BaseException | None, tb: TracebackType | None) -> None:
        if self._shared:
            return
        self.session.rollback()
        self.session.close()

    def commit(self) -> None:
        self.session.flush()
        crashpoints.reached("transaction written, not committed")
        self.session.commit()

    def serialize(self, name: str) -> None:
        """Until the end of the transaction, no other worker runs a transaction that serializes on ``name``
        (PostgreSQL: an advisory lock; SQLite's write transactions are one at a time already)."""
        if self.session.get_bind().dialect.name == "postgresql":
            key = zlib.crc32(name.encode()) - 2**31  # a signed 32-bit key
            self.session.execute(text("SELECT pg_advisory_xact_lock(:key)"), {"key": key})

    def lock_game(self, game_id: int) -> Game | None:
        """The game row, locked until the end of the transaction (PostgreSQL: FOR UPDATE)."""
        return self.session.exec(_LOCK_GAME, params={"game_id": game_id}).first()  # type: ignore[call-overload]


# Built once: every change of a game runs it, and building it cost more than running it (bench/mail.py).
_LOCK_GAME = select(Game).where(Game.id == bindparam("game_id")).with_for_update()


_READS: WeakKeyDictionary[Engine, Engine] = WeakKeyDictionary()


def reads(engine: Engine) -> Engine:
    """``engine`` for a unit of work that only reads. PostgreSQL's: its statements autocommit, one by one,
    which at READ COMMITTED (every statement sees what was committed when it began, in a transaction too) reads
    what a transaction would, without its BEGIN and ROLLBACK, two round trips to the server for each of a mail's
    two or three reading units (bench/mail.py --queries). Nothing in a reading unit locks (FOR UPDATE, an
    advisory lock) or writes: those are writing units. A reading unit that needs one moment for all its
    statements asks for REPEATABLE READ on its connection (archive.history), which begins a transaction.
    SQLite's read transactions give one moment to all their statements: kept."""
    if engine.dialect.name != "postgresql":
        return engine
    return _autocommitted(engine)


def one_statement(engine: Engine) -> Engine:
    """``engine`` for a transaction of one writing statement (``with one_statement(engine).begin() as c:
    c.execute(...)``): on PostgreSQL the statement commits by itself, whole or not at all, in one round trip to
    the server instead of three (BEGIN, the statement, COMMIT): the outbox sender's 'sent' mark of every mail
    (bench/mail.py --queries). Its commit waits for the disk as the engine's commits do (store.db.make_engine).
    On SQLite a writing transaction, BEGIN IMMEDIATE."""
    if engine.dialect.name != "postgresql":
        return engine.execution_options(pbem_write=True)
    return _autocommitted(engine)


def _autocommitted(engine: Engine) -> Engine:
    found = _READS.get(engine)
    if found is None:
        found = _READS[engine] = engine.execution_options(isolation_level="AUTOCOMMIT")
    return found


class _ReadScope:
    def __init__(self, engine: Engine) -> None:
        self.engine = engine
        self.uow: UnitOfWork | None = UnitOfWork(engine).__enter__()

    def end(self) -> None:
        uow, self.uow = self.uow, None
        if uow is not None:
            uow.__exit__(None, None, None)


_READING: ContextVar[_ReadScope | None] = ContextVar("pbem_reading", default=None)


@contextmanager
def reading(engine: Engine) -> Iterator[None]:
    """The reads of the block share one transaction (a mail's half a dozen lookups before it changes a game
    cost a transaction each otherwise), up to its first write: a write and what follows it run as they would
    outside the block. Per thread: another thread's units of work are their own."""
    scope = _ReadScope(engine)
    token = _READING.set(scope)
    try:
        yield
    finally:
        _READING.reset(token)
        scope.end()
