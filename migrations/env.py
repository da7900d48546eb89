"""Alembic environment for pbem: SQLite (batch mode) and PostgreSQL.

Every step of a run, up or down, commits together or not at all: pbem.store.db (and the engine below, for the plain
`alembic` command) hands in a connection outside a transaction, and the run begins its own. A connection already in
a transaction (a test's helper moving a database a step) is used as it is, foreign keys as they are.

SQLite changes a column the only way it can, by copying the table (Alembic's batch mode): a new table, the rows
copied, the old table dropped, the new one renamed. Dropping a table that other tables' rows refer to fails while
foreign keys are enforced (games, which every table of a game refers to). So they are off for the run, which
SQLite allows only outside a transaction, and the whole database is checked with ``PRAGMA foreign_key_check``
before the run commits: a migration that broke a reference fails and changes nothing.
"""

from __future__ import annotations

from contextlib import contextmanager
from typing import Iterator

from alembic import context
from sqlalchemy import Connection, create_engine

from pbem.store.db import SchemaError
from pbem.store.models import metadata

config = context.config


@contextmanager
def _foreign_keys_off(connection: Connection) -> Iterator[None]:
    if connection.dialect.name != "sqlite":
        yield
        return
    # The driver's own connection: SQLAlchemy would begin a transaction first, where the pragma does nothing.
    raw = connection.connection.driver_connection
    raw.execute("PRAGMA foreign_keys=OFF")
    try:
        yield
    finally:
        raw.execute("PRAGMA foreign_keys=ON")


def _check_foreign_keys(connection: Connection) -> None:
    if connection.dialect.name != "sqlite":
        return
    broken = connection.exec_driver_sql("PRAGMA foreign_key_check").all()
    if broken:
        found = ", ".join(sorted({f"{row[0]} rowid {row[1]} -> {row[2]}" for row in broken})[:5])
        raise SchemaError(f"after the migration {len(broken)} rows would refer to rows that are not there ({found}); "
                          "nothing was changed")


def _configure(connection: Connection) -> None:
    context.configure(
        connection=connection,
        target_metadata=metadata,
        render_as_batch=connection.dialect.name == "sqlite",
        compare_type=True,
    )


def run_migrations(connection: Connection) -> None:
    if connection.in_transaction():
        _configure(connection)
        context.run_migrations()
        return
    with _foreign_keys_off(connection), connection.begin():
        _configure(connection)
        context.run_migrations()
        _check_foreign_keys(connection)


def run_offline() -> None:
    context.configure(url=config.get_main_option("sqlalchemy.url"), target_metadata=metadata, literal_binds=True)
    with context.begin_transaction():
        context.run_migrations()


if context.is_offline_mode():
    run_offline()
elif config.attributes.get("connection") is not None:
    run_migrations(config.attributes["connection"])
else:
    engine = create_engine(config.get_main_option("sqlalchemy.url"))
    with engine.connect() as connection:
        run_migrations(connection)
