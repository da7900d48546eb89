"""``pbem`` with every database statement and round trip noted, for bench/mail.py --queries.

Run as ``python bench/sql_count.py worker`` with BENCH_SQL_NOTES=FILE in the environment: each process (the worker,
and its outbox process, which ``spawn`` starts by importing this file again) notes the time of every statement
SQLAlchemy runs, of every transaction's begin, commit and rollback, of every connection taken from the pool, and on
PostgreSQL of every round trip to the server (a request psycopg sends and waits for: a query, a prepare, BEGIN,
COMMIT, ROLLBACK, DEALLOCATE; the pool's ping is a query), and writes them at its exit to ``FILE.<role>.<pid>``
(role: worker or outbox) as JSON lines. ``counts`` sums them over a window of time.monotonic(), one clock for
every process of the machine; ``trace`` lists them.
"""

from __future__ import annotations

import atexit
import json
import os
import sys
import time
from pathlib import Path

NOTED: list[tuple[float, str, str]] = []


def _key(statement: str) -> str:
    """A statement by its verb and its first table: "SELECT games", "INSERT outbox"."""
    words = statement.split()
    if not words:
        return "?"
    upper = [word.upper() for word in words]
    for marker in ("FROM", "INTO", "UPDATE"):
        if marker in upper and upper.index(marker) + 1 < len(words):
            table = words[upper.index(marker) + 1].strip('"(,')
            return f"{upper[0]} {table}"
    return upper[0]


def install(path: str) -> None:
    from sqlalchemy import event
    from sqlalchemy.engine import Engine
    from sqlalchemy.pool import Pool

    note = NOTED.append
    clock = time.monotonic

    @event.listens_for(Engine, "before_cursor_execute")
    def _statement(conn, cursor, statement, parameters, context, executemany):  # type: ignore[no-untyped-def]
        note((clock(), "sql", " ".join(statement.split())[:240]))

    @event.listens_for(Engine, "begin")
    def _begin(conn):  # type: ignore[no-untyped-def]
        note((clock(), "begin", ""))

    @event.listens_for(Engine, "commit")
    def _commit(conn):  # type: ignore[no-untyped-def]
        note((clock(), "commit", ""))

    @event.listens_for(Engine, "rollback")
    def _rollback(conn):  # type: ignore[no-untyped-def]
        note((clock(), "rollback", ""))

    @event.listens_for(Pool, "checkout")
    def _checkout(dbapi_connection, record, proxy):  # type: ignore[no-untyped-def]
        note((clock(), "checkout", ""))

    @event.listens_for(Pool, "connect")
    def _connect(dbapi_connection, record):  # type: ignore[no-untyped-def]
        note((clock(), "connect", ""))

    try:
        from psycopg._connection_base import BaseConnection
        from psycopg._cursor_base import BaseCursor
    except ImportError:
        BaseConnection = None
    if BaseConnection is not None:
        # Each of these sends one request and waits for its answer: one round trip to the server.
        command = BaseConnection._exec_command

        def counted_command(self, text, *args, **kwargs):  # type: ignore[no-untyped-def]
            words = text.decode() if isinstance(text, bytes) else str(text)
            note((clock(), "roundtrip", (words.split() or ["?"])[0].upper()))
            return command(self, text, *args, **kwargs)

        def counted(method, what):  # type: ignore[no-untyped-def]
            def send(self, *args, **kwargs):  # type: ignore[no-untyped-def]
                note((clock(), "roundtrip", what))
                return method(self, *args, **kwargs)
            return send

        BaseConnection._exec_command = counted_command  # type: ignore[method-assign]
        BaseCursor._execute_send = counted(BaseCursor._execute_send, "query")  # type: ignore[method-assign]
        BaseCursor._send_query_prepared = counted(  # type: ignore[method-assign]
            BaseCursor._send_query_prepared, "query (prepared)")
        BaseCursor._send_prepare = counted(BaseCursor._send_prepare, "PREPARE")  # type: ignore[method-assign]

    def dump() -> None:
        import multiprocessing

        role = "worker" if multiprocessing.current_process().name == "MainProcess" else "outbox"
        with open(f"{path}.{role}.{os.getpid()}", "w") as out:
            for row in NOTED:
                out.write(json.dumps(row) + "\n")

    atexit.register(dump)


def counts(path: str, start: float, end: float, role: str = "*") -> dict[str, dict[str, int]]:
    """What every process (``role``: "worker" or "outbox", the processes of one kind) noted between ``start`` and
    ``end``: {kind: {statement: count}}."""
    found: dict[str, dict[str, int]] = {}
    folder = Path(path).parent
    for file in folder.glob(f"{Path(path).name}.{role}.*"):
        for line in file.read_text().splitlines():
            at, kind, what = json.loads(line)
            if start <= at < end:
                what = _key(what) if kind == "sql" else what
                found.setdefault(kind, {}).setdefault(what, 0)
                found[kind][what] += 1
    return found



def trace(path: str, start: float, end: float, role: str = "worker") -> list[str]:
    """What the processes of ``role`` did between ``start`` and ``end``, in order, one line each."""
    rows = []
    for file in Path(path).parent.glob(f"{Path(path).name}.{role}.*"):
        rows += [json.loads(line) for line in file.read_text().splitlines()]
    return [f"{(at - start) * 1000:8.2f} ms {kind:9} {what}" for at, kind, what in sorted(rows) if start <= at < end]

if os.environ.get("BENCH_SQL_NOTES"):
    install(os.environ["BENCH_SQL_NOTES"])

if __name__ == "__main__":
    from pbem.cli import main

    sys.argv[0] = "pbem"
    main()
