"""The unit of work: one transaction, committed once or rolled back whole."""

from __future__ import annotations

import zlib
from types import TracebackType

from sqlalchemy import Engine, text
from sqlmodel import Session, select

from .. import crashpoints

from .models import Game


class UnitOfWork:
    """``with UnitOfWork(engine, write=True) as uow: ...; uow.commit()``.

    Leaving the block without ``commit()`` rolls everything back, so a failure
    anywhere changes nothing.
    """

    def __init__(self, engine: Engine, *, write: bool = False) -> None:
        self.engine = engine.execution_options(pbem_write=True) if write else engine
        self.session: Session

    def __enter__(self) -> "UnitOfWork":
        self.session = Session(self.engine, expire_on_commit=False)
        return self

    def __exit__(self, exc_type: type[BaseException] | None, exc: BaseException | None, tb: TracebackType | None) -> None:
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
        return self.session.exec(select(Game).where(Game.id == game_id).with_for_update()).first()
