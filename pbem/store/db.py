"""Connecting to the database and keeping its schema current (Alembic).

SQLite and PostgreSQL are both first-class. On SQLite a writing transaction
starts with ``BEGIN IMMEDIATE`` so that two processes writing the same file are
serialised instead of failing on upgrade from a read lock; on PostgreSQL the
service takes a row lock on the game (``SELECT ... FOR UPDATE``).
"""

from __future__ import annotations

import os
import select
import sqlite3
import stat
import time
from functools import cache
from pathlib import Path

from typing import TYPE_CHECKING, Callable, NamedTuple, TypeVar
from urllib.parse import quote

from sqlalchemy import Engine, create_engine, event, text
from sqlalchemy import exc as sa_exc
from sqlalchemy.engine import make_url

from pbem.resources import shipped_folder

if TYPE_CHECKING:
    from alembic.config import Config as AlembicConfig
    from alembic.script import ScriptDirectory

MIGRATIONS = shipped_folder("migrations")
T = TypeVar("T")


class SchemaError(Exception):
    """The database is not at the schema this version of pbem needs."""


class DatabaseFileError(Exception):
    """A SQLite URL names something pbem cannot open as its database; the message names the file and what is
    wrong with it."""


class MissingDriver(ImportError):
    """The database's driver is not installed: PostgreSQL's comes with the extra ``pbem[postgresql]``."""


class DatabaseUnavailable(Exception):
    """The database could not be reached or kept failing for reasons of its own (not of what was written)."""


# SQLSTATE classes of failures that belong to the server or the connection, not to the statement: connection
# exceptions, operator intervention (a terminated backend, a shutdown), transaction rollback (serialisation,
# deadlock), insufficient resources.
_TRANSIENT_SQLSTATES = ("08", "57", "40", "53")
BUSY_SECONDS = 60  # how long a SQLite connection waits for another's write to end before "database is locked"
_TRANSIENT_SQLITE = ("database is locked", "unable to open database", "disk i/o error")


def is_transient(exc: BaseException) -> bool:
    """Whether ``exc`` says the database (or the way to it) failed, so the same work may succeed later, as
    opposed to a statement the database refuses every time (a value too long, a constraint, a bug)."""
    if isinstance(exc, (sa_exc.DisconnectionError, sa_exc.TimeoutError, DatabaseUnavailable)):
        return True
    if not isinstance(exc, sa_exc.DBAPIError):
        return False
    if exc.connection_invalidated:
        return True
    orig = exc.orig
    sqlstate = getattr(orig, "sqlstate", None)
    if sqlstate:
        return sqlstate[:2] in _TRANSIENT_SQLSTATES
    if type(orig).__module__.startswith("psycopg"):
        # No SQLSTATE: the client library's own failure (connection refused, closed, lost).
        return isinstance(exc, (sa_exc.OperationalError, sa_exc.InterfaceError))
    return isinstance(exc, sa_exc.OperationalError) and any(text in str(orig).lower() for text in _TRANSIENT_SQLITE)


TRANSIENT_TRIES = 4  # tries at one piece of work while the database fails under it (0.5, 2 and 8 s apart)
TRANSIENT_DELAY = 0.5


def patiently(work: Callable[[], T], *, what: str, log: Callable[[str], None] = lambda line: None,
              tries: int = TRANSIENT_TRIES, delay: float = TRANSIENT_DELAY) -> T:
    """``work()``, tried again while the database fails under it (``is_transient``: a restart, a connection
    cut, a deadlock), ``tries`` times in all, each wait four times the last; the last failure is raised. What
    the database refuses every time (a bad statement, a wrong schema) is raised at once."""
    for attempt in range(1, tries + 1):
        try:
            return work()
        except Exception as exc:
            if not is_transient(exc) or attempt == tries:
                raise
            log(f"{what}: the database failed ({type(exc).__name__}); trying again in {delay:g} s")
            time.sleep(delay)
            delay *= 4
    raise AssertionError("unreachable: the last try returns or raises")


def normalise_url(url: str) -> str:
    parsed = make_url(url)
    if parsed.drivername in ("postgresql", "postgres"):
        parsed = parsed.set(drivername="postgresql+psycopg")
    return parsed.render_as_string(hide_password=False)


SQLITE_HEADER = b"SQLite format 3\x00"  # the first 16 bytes of every SQLite database file


def sqlite_file(url: str) -> Path | None:
    """The file a SQLite URL names; None for an in-memory database or another backend."""
    parsed = make_url(normalise_url(url))
    if parsed.get_backend_name() != "sqlite" or not parsed.database or parsed.database == ":memory:":
        return None
    return Path(parsed.database).expanduser()


def check_sqlite_file(path: Path, *, may_create: bool = False, create_folder: bool = False) -> None:
    """Raise DatabaseFileError unless ``path`` is a SQLite database file, before SQLite opens it (SQLite would
    create a missing file, and reads a text file or a picture as a database until its first query).

    ``may_create``: a missing or empty file is fine (``pbem db upgrade`` creates the database); its folder must
    exist unless ``create_folder``. Damage inside a file with a valid header shows when the pages are read
    (``sqlite_damage``)."""
    try:
        found = path.stat()
    except FileNotFoundError:
        if not may_create:
            raise DatabaseFileError(f"there is no database at {path}: run `pbem db upgrade` to create it") from None
        if not create_folder and not path.parent.is_dir():
            raise DatabaseFileError(f"cannot create the database {path}: the folder {path.parent} does not exist") \
                from None
        return
    except OSError as exc:  # a part of the path is a file, a name too long, no permission to look
        raise DatabaseFileError(f"cannot open the database {path}: {exc.strerror}") from None
    if stat.S_ISDIR(found.st_mode):
        raise DatabaseFileError(f"{path} is a directory, not a SQLite database")
    if not stat.S_ISREG(found.st_mode):
        raise DatabaseFileError(f"{path} is not a regular file, so not a SQLite database")
    if found.st_size == 0:
        if not may_create:
            raise DatabaseFileError(f"the database {path} is empty: run `pbem db upgrade` to create it")
        return
    try:
        with path.open("rb") as handle:
            header = handle.read(len(SQLITE_HEADER))
    except OSError as exc:
        raise DatabaseFileError(f"cannot read the database {path}: {exc.strerror}") from None
    if header != SQLITE_HEADER:
        raise DatabaseFileError(f"{path} is not a SQLite database")


def sqlite_damage(engine: Engine) -> str | None:
    """What SQLite's ``PRAGMA quick_check`` finds wrong in the database (None when nothing, and for PostgreSQL).
    It reads every page: for ``pbem db status`` and ``pbem db upgrade``, not for every command."""
    if engine.dialect.name != "sqlite":
        return None
    try:
        with engine.connect() as connection:
            found = [str(row[0]) for row in connection.exec_driver_sql("PRAGMA quick_check(3)")]
    except sa_exc.OperationalError:
        raise  # locked, unreadable: not damage
    except sa_exc.DatabaseError as exc:
        return str(exc.orig)
    return None if found == ["ok"] else "; ".join(found)


def is_damage(exc: BaseException) -> bool:
    """Whether ``exc`` is SQLite saying that the file is not a database or is damaged."""
    return (isinstance(exc, sa_exc.DatabaseError) and type(exc.orig).__module__.startswith("sqlite3")
            and any(text in str(exc.orig).lower() for text in ("malformed", "not a database")))


FLUSHED = "pbem_flush"  # execution option: this transaction's commit is on disk when it returns, whatever the engine


def make_engine(url: str, *, create_folder: bool = True, flushed: bool = True) -> Engine:
    """An engine for ``url``; for a SQLite file, its folder is created unless ``create_folder`` is false.

    ``flushed=False``: a commit returns before it is on disk (SQLite: synchronous=NORMAL in WAL mode;
    PostgreSQL: synchronous_commit off). A crash of pbem loses nothing; a power cut may lose the last commits,
    never a commit without the ones before it (both logs are replayed in order, up to the first record that did
    not reach the disk). For the mail worker and its outbox sender, which make a transaction durable only where
    something leaves the database (``execution_options(pbem_flush=True)``, whose commit carries every commit
    before it to the disk): before the mails of a batch leave the mailbox (MailClaims.renew) and before a
    claimed mail is sent (outbox_sender.claim). docs/architecture.md, "Power cuts", says why that suffices."""
    url = normalise_url(url)
    parsed = make_url(url)
    if parsed.get_backend_name() == "sqlite":
        if create_folder and parsed.database and parsed.database != ":memory:":
            Path(parsed.database).expanduser().parent.mkdir(parents=True, exist_ok=True)
        read_only = read_only_file(url)
        if read_only is not None:
            return _read_only_engine(read_only)
        engine = create_engine(url, connect_args={"timeout": BUSY_SECONDS})
        _sqlite_transactions(engine, "FULL" if flushed else "NORMAL")
        return engine
    options = {} if flushed else {"connect_args": {"options": "-c synchronous_commit=off"}}
    try:
        engine = create_engine(url, **options)
    except ImportError as exc:  # SQLAlchemy loads the driver here; SQLite's comes with Python, psycopg is an extra
        raise MissingDriver(f"PostgreSQL's driver, psycopg, is not installed ({exc}): install it with "
                            "pip install 'pbem[postgresql]'") from None
    _checked_on_checkout(engine)
    if not flushed:
        @event.listens_for(engine, "begin")
        def _begin(connection) -> None:  # type: ignore[no-untyped-def]
            if connection.get_execution_options().get(FLUSHED, False):
                # The commit waits until the log is on disk up to its own record, which comes after the record
                # of every transaction committed before it: those are flushed too.
                connection.exec_driver_sql("SET LOCAL synchronous_commit TO on")
    return engine


RESTED = 1.0  # seconds in the pool after which a PostgreSQL connection is pinged before it is used again


def _checked_on_checkout(engine: Engine) -> None:
    """A pooled PostgreSQL connection is known alive before it is handed out, as SQLAlchemy's ``pool_pre_ping``
    makes sure, at a round trip less for one just used. The pre-ping cost a round trip to the server at every
    checkout: every transaction, some six for one mail between the worker and its sender (bench/mail.py
    --queries). A server that ends a connection (a restart, pg_terminate_backend, a proxy that cuts it) says so
    on its socket, which becomes readable (the FATAL message, the end of the stream): a look at the socket,
    without waiting, sees that. A connection whose socket has something to read, or that rested in the pool
    longer than RESTED (its server may have vanished without a word: a host that lost power, a cut network), is
    pinged as before, and a failed ping invalidates the whole pool, as the pre-ping does. Only a connection used
    in the last second whose server vanished silently meanwhile goes out unpinged: its first statement fails as
    it would had the server vanished during it, a transient failure (``is_transient``) that is tried again."""
    dialect = engine.dialect

    @event.listens_for(engine, "checkin")
    def _returned(dbapi_connection, record) -> None:  # type: ignore[no-untyped-def]
        record.info["pbem_returned"] = time.monotonic()

    @event.listens_for(engine, "checkout")
    def _checkout(dbapi_connection, record, proxy) -> None:  # type: ignore[no-untyped-def]
        returned = record.info.pop("pbem_returned", None)
        if returned is None:
            return  # just connected
        if time.monotonic() - returned <= RESTED and not _has_word(dbapi_connection):
            return
        try:
            alive = dialect.do_ping(dbapi_connection)
        except dialect.loaded_dbapi.Error as exc:
            if not dialect.is_disconnect(exc, dbapi_connection, None):
                raise
            alive = False
        if not alive:
            raise sa_exc.InvalidatePoolError()  # the pool reconnects, and drops the connections made before


def _has_word(dbapi_connection) -> bool:  # type: ignore[no-untyped-def]
    """Whether the server sent something on this idle connection (no statement runs on it): that it ends it, or
    ended it. A connection closed on this side has no socket: also true."""
    try:
        fd = dbapi_connection.pgconn.socket
    except Exception:  # noqa: BLE001 - closed, or never opened
        return True
    poller = select.poll()
    poller.register(fd, select.POLLIN | select.POLLPRI)
    return bool(poller.poll(0))


def read_only_file(url: str) -> Path | None:
    """The SQLite file of ``url`` when this user may read it but not write it (a monitor in the group pbem)."""
    path = sqlite_file(url)
    return path if path is not None and path.is_file() and not os.access(path, os.W_OK) else None


def _read_only_engine(path: Path) -> Engine:
    """A SQLite file this user may read but not write, opened read-only: the reading commands work (pbem status
    for a monitoring user in the group the units give the file), and a change fails as SQLite's 'attempt to write
    a readonly database' (context.database_failure says whose file it is).

    A database in WAL mode is read through its -shm file, which a reader creates when it is missing, and which it
    cannot in a folder it may not write. While the worker runs, -wal and -shm exist (the units' UMask gives the
    group read access) and SQLite reads them read-only. When -wal is missing no connection is open anywhere (the
    last one to close removes it), so the file holds every commit: it is opened as immutable, without locks or
    -shm. A worker that starts during that read may change the file under it: a health check then reads again."""
    wal = path.with_name(path.name + "-wal")
    immutable = not wal.exists() and not os.access(path.parent, os.W_OK)
    uri = f"file:{quote(str(path.resolve()))}?mode=ro" + ("&immutable=1" if immutable else "")
    engine = create_engine(f"sqlite:///{path}", creator=lambda: sqlite3.connect(uri, uri=True, timeout=BUSY_SECONDS,
                                                                        check_same_thread=False))

    @event.listens_for(engine, "connect")
    def _connect(dbapi_connection, _record) -> None:  # type: ignore[no-untyped-def]
        dbapi_connection.isolation_level = None
        dbapi_connection.execute(f"PRAGMA busy_timeout={BUSY_SECONDS * 1000}")

    @event.listens_for(engine, "begin")
    def _begin(connection) -> None:  # type: ignore[no-untyped-def]
        connection.exec_driver_sql("BEGIN")

    return engine


def backup_sqlite(source: Path, target: Path) -> int:
    """Copy the SQLite database ``source`` to the new file ``target`` with SQLite's online backup API, while a
    worker may be writing it. In one step: the copy reads one moment of the database, as any reader in WAL mode
    does, while the worker goes on committing into the -wal file. (In several steps, a commit between two of
    them would start the copy again, and a busy worker could keep it from ever ending.) The copy is written
    beside ``target`` and renamed into place, so a copy cut short leaves no file by that name; it is a single
    file (no -wal). Returns its size in bytes."""
    if target.exists():
        raise DatabaseFileError(f"{target} exists: pbem db backup never overwrites a file")
    if not target.parent.is_dir():
        raise DatabaseFileError(f"the folder {target.parent} does not exist")
    partial = target.with_name(f".{target.name}.partial")
    partial.unlink(missing_ok=True)
    reader = sqlite3.connect(f"file:{quote(str(source.resolve()))}?mode=ro", uri=True, timeout=BUSY_SECONDS)
    try:
        copy = sqlite3.connect(partial)
        try:
            reader.backup(copy)
            copy.execute("PRAGMA journal_mode=DELETE")
        finally:
            copy.close()
    except BaseException:
        partial.unlink(missing_ok=True)
        raise
    finally:
        reader.close()
    os.replace(partial, target)
    return target.stat().st_size


def _sqlite_transactions(engine: Engine, synchronous: str) -> None:
    @event.listens_for(engine, "connect")
    def _connect(dbapi_connection, record) -> None:  # type: ignore[no-untyped-def]
        dbapi_connection.isolation_level = None  # we issue BEGIN ourselves, below
        dbapi_connection.execute("PRAGMA foreign_keys=ON")
        dbapi_connection.execute(f"PRAGMA busy_timeout={BUSY_SECONDS * 1000}")
        # Write-ahead log: one fsync per commit instead of the rollback journal's several, and the moderator's
        # CLI reads while the worker writes. synchronous stays FULL but for the worker's engines (NORMAL): a
        # commit of a CLI command survives a power cut the moment it returns.
        dbapi_connection.execute("PRAGMA journal_mode=WAL")
        dbapi_connection.execute(f"PRAGMA synchronous={synchronous}")
        record.info["pbem_synchronous"] = synchronous

    @event.listens_for(engine, "begin")
    def _begin(connection) -> None:  # type: ignore[no-untyped-def]
        options = connection.get_execution_options()
        # A flushed transaction on a NORMAL engine: FULL syncs the -wal file at the commit, and with it the
        # frames of every commit before it (of any connection: an fsync is of the whole file). Set outside the
        # transaction, before BEGIN; the connection's next transaction sets it back.
        wanted = "FULL" if options.get(FLUSHED, False) else synchronous
        info = connection.connection.info
        if info.get("pbem_synchronous") != wanted:
            connection.exec_driver_sql(f"PRAGMA synchronous={wanted}")
            info["pbem_synchronous"] = wanted
        if options.get("pbem_write", False):
            begin_writing(connection.connection.driver_connection)
        else:
            connection.exec_driver_sql("BEGIN")


def begin_writing(dbapi_connection: sqlite3.Connection, busy_seconds: float = BUSY_SECONDS) -> None:
    """``BEGIN IMMEDIATE``, waiting for another connection's write to end: tried again every half millisecond
    (after half a second, every 5 ms) for up to ``busy_seconds``, then SQLite's "database is locked".

    Not SQLite's own wait (busy_timeout): it sleeps 1, 2, 5, 10, 15, 20, 25, 25, 25, 50, 50 and then 100 ms
    between its tries, so a writer that finds the database taken sleeps on for 10 ms on average after it is
    free, up to 100. The worker holds its write for the 25 ms a mail takes to apply and render, and its outbox
    process marks every mail it sends in a write of its own: it spent a quarter of its time asleep in that
    wait, and the mail went out that much later (bench/mail.py, issue 45). A try costs a few microseconds."""
    dbapi_connection.execute("PRAGMA busy_timeout=0")
    try:
        started = time.monotonic()
        while True:
            try:
                dbapi_connection.execute("BEGIN IMMEDIATE")
                return
            except sqlite3.OperationalError as exc:
                waited = time.monotonic() - started
                if "database is locked" not in str(exc) or waited >= busy_seconds:
                    raise
            time.sleep(0.0005 if waited < 0.5 else 0.005)
    finally:
        dbapi_connection.execute(f"PRAGMA busy_timeout={BUSY_SECONDS * 1000}")


def alembic_config(engine: Engine) -> AlembicConfig:
    from alembic.config import Config as AlembicConfig

    if not (MIGRATIONS / "env.py").exists():
        raise SchemaError(f"the migrations folder is missing ({MIGRATIONS}); this pbem is installed incompletely: "
                          "reinstall it (pip install pbem's wheel or its source tree)")
    config = AlembicConfig()
    config.set_main_option("script_location", str(MIGRATIONS))
    config.set_main_option("sqlalchemy.url", engine.url.render_as_string(hide_password=False).replace("%", "%%"))
    return config


@cache
def _script() -> ScriptDirectory:
    """This pbem's migrations, read once a process: Alembic reads and compiles every file of them each time it
    makes a ScriptDirectory (0.1 s here, where Python writes no bytecode), which a command would do four times."""
    from alembic.config import Config as AlembicConfig
    from alembic.script import ScriptDirectory

    if not (MIGRATIONS / "env.py").exists():
        raise SchemaError(f"the migrations folder is missing ({MIGRATIONS}); this pbem is installed incompletely: "
                          "reinstall it (pip install pbem's wheel or its source tree)")
    config = AlembicConfig()
    config.set_main_option("script_location", str(MIGRATIONS))
    return ScriptDirectory.from_config(config)


def head_revision(engine: Engine) -> str:
    return _script().get_current_head() or ""


def current_revision(engine: Engine) -> str | None:
    from alembic.runtime.migration import MigrationContext

    with engine.connect() as connection:
        return MigrationContext.configure(connection).get_current_revision()


def known_revision(engine: Engine, revision: str) -> bool:
    """Whether this pbem's migrations know ``revision`` (a newer pbem may have written the database)."""
    from alembic.util import CommandError as AlembicCommandError

    try:
        return _script().get_revision(revision) is not None
    except AlembicCommandError:
        return False


def shipped_revisions() -> list[str]:
    """The revisions of this pbem's migrations, oldest first, read from their file names alone.

    Our migrations are one line, each file named after its revision (``0007_delivery.py`` is revision
    ``0007``, whose parent is ``0006``; tests/integration/test_migrations.py holds them to it), so the newest
    is known without loading Alembic, which takes longer than most commands."""
    return sorted(path.name.partition("_")[0] for path in (MIGRATIONS / "versions").glob("[0-9][0-9][0-9][0-9]_*.py"))


def stored_revision(engine: Engine) -> str | None:
    """The revision the database is at: one query of Alembic's table (None for a database never upgraded)."""
    with engine.connect() as connection:
        try:
            return connection.execute(text("SELECT version_num FROM alembic_version")).scalar()
        except (sa_exc.OperationalError, sa_exc.ProgrammingError):
            connection.rollback()
            if engine.dialect.has_table(connection, "alembic_version"):
                raise  # the table is there: the failure is the database's, not a missing schema
            return None


def _newer_than_us(current: str, head: str) -> SchemaError:
    return SchemaError(f"the database is at revision {current}, which this pbem does not know (it needs {head}): "
                       "it was written by a newer pbem; upgrade pbem instead of the database")


class Revision(NamedTuple):
    """One of this pbem's migrations: its revision and what it does (the first paragraph of its docstring)."""

    revision: str
    title: str


BASE = "base"  # Alembic's name for the schema before the first revision: no table of pbem's


def revisions(engine: Engine) -> list[Revision]:
    """This pbem's migrations, oldest first (they are one line: each revises the one before)."""
    return [Revision(found.revision, " ".join((found.doc or "").split()))
            for found in reversed(list(_script().walk_revisions()))]


def _position(known: list[Revision], revision: str | None, *, what: str) -> int:
    """Where ``revision`` is in ``known``: -1 for the base (no revision), else its index; SchemaError for a
    revision this pbem does not have."""
    if revision in (None, BASE):
        return -1
    for index, found in enumerate(known):
        if found.revision == revision:
            return index
    names = f"{known[0].revision} to {known[-1].revision}" if known else "none"
    raise SchemaError(f"there is no revision {revision} {what} (this pbem's revisions are {names}, and {BASE})")


def _migrate(engine: Engine, direction: str, target: str) -> None:
    """What ``alembic upgrade/downgrade TARGET`` does, with the migrations read once (``_script``)."""
    from alembic.runtime.environment import EnvironmentContext
    from alembic.util import CommandError as AlembicCommandError

    config, script = alembic_config(engine), _script()

    def steps(revision: str, _context: object) -> object:
        return (script._upgrade_revs if direction == "upgrade" else script._downgrade_revs)(target, revision)

    try:
        # migrations/env.py begins the one transaction of the run itself: on SQLite it turns foreign keys off
        # first, which only works outside a transaction. BEGIN IMMEDIATE: the run writes, so it takes the write
        # lock from the start instead of failing to take it half-way while a worker writes.
        with engine.connect() as connection:
            config.attributes["connection"] = connection.execution_options(pbem_write=True)
            with EnvironmentContext(config, script, fn=steps, destination_rev=target):
                script.run_env()
    except AlembicCommandError as exc:
        raise SchemaError(" ".join(str(exc).split())) from exc


def upgrade(engine: Engine, to: str | None = None) -> tuple[str | None, str | None]:
    """Bring the database to the newest schema, or to revision ``to`` (not below where it is: that is
    ``downgrade``); returns (from, to) revisions."""
    before, head = current_revision(engine), head_revision(engine)
    if before is not None and not known_revision(engine, before):
        raise _newer_than_us(before, head)
    if to is None or to == head:
        target = head
    else:
        known = revisions(engine)
        position = _position(known, to, what="to upgrade to")
        if position < _position(known, before, what="in the database"):
            raise SchemaError(f"the database is at revision {before}, newer than {to}: `pbem db downgrade {to}` "
                              "takes it down")
        target = to if position >= 0 else BASE
    if target != BASE and target != before:
        _migrate(engine, "upgrade", target)
    return before, current_revision(engine)


def downgrade_plan(engine: Engine, to: str) -> tuple[str | None, list[Revision]]:
    """What ``downgrade(engine, to)`` would do: the revision the database is at, and the revisions it would undo,
    newest first (none when the database is at ``to`` already). SchemaError for a revision this pbem does not
    know, in the database or as ``to``, and for a ``to`` above the database's."""
    before, head = current_revision(engine), head_revision(engine)
    if before is not None and not known_revision(engine, before):
        raise _newer_than_us(before, head)
    known = revisions(engine)
    position = _position(known, to, what="to go down to")
    now = _position(known, before, what="in the database")
    if position > now:
        raise SchemaError(f"the database is at revision {before or 'none'}, older than {to}: "
                          f"`pbem db upgrade --to {to}` takes it up")
    return before, list(reversed(known[position + 1:now + 1]))


def downgrade(engine: Engine, to: str) -> tuple[str | None, str | None, list[Revision]]:
    """Take the database down to revision ``to`` (or ``base``: no table of pbem's left), undoing every newer
    migration: the tables and columns they added go, with what they held. Returns (from, to, the revisions
    undone, newest first)."""
    before, undone = downgrade_plan(engine, to)
    if undone:
        _migrate(engine, "downgrade", to)
    return before, current_revision(engine), undone


def require_current_schema(engine: Engine) -> None:
    """SchemaError unless the database is at the newest of this pbem's migrations. Every command that uses the
    database asks, so it costs one query and a look at a folder (``shipped_revisions``), not Alembic."""
    revisions = shipped_revisions()
    current, head = stored_revision(engine), (revisions[-1] if revisions else "")
    if not head:
        raise SchemaError(f"the migrations folder {MIGRATIONS} holds no migrations; this pbem is installed "
                          "incompletely: reinstall it")
    if current is not None and current != head and current not in revisions:
        raise _newer_than_us(current, head)
    if current != head:
        where = f"at revision {current}" if current else "not initialised"
        raise SchemaError(f"the database is {where}, pbem needs {head}: run `pbem db upgrade`")
