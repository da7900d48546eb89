"""Shared fixtures: real databases.

Every store and service test runs on SQLite and on the PostgreSQL server of
this machine (127.0.0.1:5432, database ``test`` for the admin connection; each
test run creates a database of its own, ``pbem_test_<pid>``, and drops it at
the end, so runs side by side never share one).
Under CI=true a PostgreSQL that cannot be reached fails the run; elsewhere
those tests are skipped with the reason.

Real mail servers: a private Dovecot (IMAP + LMTP on 127.0.0.1, free ports) with
the users ``game`` (the game mailbox), ``ann``, ``bob``, ``cy`` and ``dee``
(password ``secret``, addresses ``<user>@example.test``), and an SMTP server in
front of it that delivers into those mailboxes. Without the ``dovecot`` program
(Debian: dovecot-imapd, dovecot-lmtpd; ``.ci/run`` installs them) those tests
fail under CI=true and are skipped elsewhere.

What keeps the suite fast without changing what it tests: see ``_fast_scratch``
and ``postgres_url``.
"""

from __future__ import annotations

import atexit
import gc
import os
import shutil
import tempfile
from pathlib import Path
from typing import TYPE_CHECKING, Iterator

import hypothesis
import pytest
import sqlalchemy as sa

from pbem.store.db import make_engine, upgrade
from pbem_testing.browser import Browser, browser_missing  # Selenium itself loads when a Browser starts
from pbem_testing.mailservers import Dovecot, Mailboxes, SmtpToLmtp, dovecot_available

if TYPE_CHECKING:
    from pbem.services.table.service import GameService

PG_ADMIN_URL = os.environ.get("PBEM_TEST_PG_ADMIN", "postgresql+psycopg://postgres@127.0.0.1:5432/test")
PG_DATABASE = os.environ.get("PBEM_TEST_PG_DATABASE", f"pbem_test_{os.getpid()}")
IN_CI = os.environ.get("CI", "").lower() in ("1", "true", "yes")
TABLES = ("signup_requests", "archive_hidden_players", "worker_heartbeats", "marks", "absences", "mail_claims", "outbox",
          "inbound_mails", "snapshots", "events", "seats", "games")
RAM_DISK = Path("/dev/shm")
RAM_DISK_MIN_FREE = 2 * 1024**3


def _fast_scratch() -> None:
    """Cheaper scratch space for the whole run; nothing a test asserts depends on it.

    Temporary files (pytest's ``tmp_path``, the SQLite databases, Dovecot's maildirs) go to the RAM disk
    when the machine has one with room: SQLite runs with ``synchronous=FULL``, and its fsync at every
    commit costs about 5 ms on disk and nothing on tmpfs. Same SQLite, same settings, another medium.
    ``PBEM_TEST_TMPDIR`` names another folder; empty keeps the system's.

    The tests start many Python processes (``pbem`` commands, workers, the demo), each importing pbem,
    SQLAlchemy and Alembic. Under ``PYTHONDONTWRITEBYTECODE`` (set on some machines) pbem's own modules
    never get a .pyc, so each of those processes compiles all of them again (0.1 to 0.3 s here). They get
    a bytecode cache in a temporary folder instead (``PYTHONPYCACHEPREFIX``): still nothing is written
    beside the sources, and the folder is removed at the end of the run.
    """
    chosen = os.environ.get("PBEM_TEST_TMPDIR")
    if chosen is None and RAM_DISK.is_dir() and os.access(RAM_DISK, os.W_OK | os.X_OK):
        stats = os.statvfs(RAM_DISK)
        if stats.f_bavail * stats.f_frsize >= RAM_DISK_MIN_FREE:
            chosen = str(RAM_DISK)
    if chosen:
        tempfile.tempdir = chosen
    if os.environ.get("PYTHONDONTWRITEBYTECODE"):
        cache = tempfile.mkdtemp(prefix="pbem-pycache-")
        atexit.register(shutil.rmtree, cache, ignore_errors=True)
        del os.environ["PYTHONDONTWRITEBYTECODE"]
        os.environ["PYTHONPYCACHEPREFIX"] = cache


_fast_scratch()

if os.environ.get("PYTEST_XDIST_WORKER"):
    # pytest-xdist's worker processes start with COLUMNS=80 and LINES=24 in their environment, where a terminal
    # run has neither. Rich fixes a console's width for good when COLUMNS is set as the console is made (the CLI
    # makes its consoles on import), so every CLI test would print 80 columns whatever its own COLUMNS says.
    for name in ("COLUMNS", "LINES"):
        os.environ.pop(name, None)


# Hypothesis fails an example that takes more than 200 ms by the wall clock: on a busy machine that is the load,
# not the code (issue 40). Speed is measured in bench/, never asserted; a test of linear time compares CPU time.
hypothesis.settings.register_profile("pbem", deadline=None)
hypothesis.settings.load_profile("pbem")


def pytest_configure(config: pytest.Config) -> None:
    # The run keeps tens of thousands of long-lived objects (the imported modules, SQLAlchemy's and Jinja's caches)
    # that every full collection of the garbage collector walks again: 6% of the integration tests' time here.
    # Frozen, the collector skips them; a larger first generation makes the collections fewer.
    gc.freeze()
    gc.set_threshold(20_000, 20, 20)


def _pg_url() -> str:
    return PG_ADMIN_URL.rsplit("/", 1)[0] + "/" + PG_DATABASE


@pytest.fixture(scope="session")
def postgres_url() -> Iterator[str]:
    try:
        admin = sa.create_engine(PG_ADMIN_URL, isolation_level="AUTOCOMMIT")
        with admin.connect() as connection:
            connection.exec_driver_sql(f'DROP DATABASE IF EXISTS "{PG_DATABASE}" WITH (FORCE)')
            connection.exec_driver_sql(f'CREATE DATABASE "{PG_DATABASE}"')
            # A commit does not wait for its WAL to reach the disk (4 ms a commit here). Only what a crash of
            # the PostgreSQL server itself would lose depends on it, and no test crashes the server.
            connection.exec_driver_sql(f'ALTER DATABASE "{PG_DATABASE}" SET synchronous_commit = off')
        admin.dispose()
    except sa.exc.OperationalError as exc:
        if IN_CI:
            pytest.fail(f"PostgreSQL is required in CI and cannot be reached at {PG_ADMIN_URL}: {exc.orig}")
        pytest.skip(f"PostgreSQL not reachable at {PG_ADMIN_URL}")
    engine = make_engine(_pg_url())
    upgrade(engine)
    engine.dispose()
    yield _pg_url()
    admin = sa.create_engine(PG_ADMIN_URL, isolation_level="AUTOCOMMIT")
    with admin.connect() as connection:
        connection.exec_driver_sql(f'DROP DATABASE IF EXISTS "{PG_DATABASE}" WITH (FORCE)')
    admin.dispose()


@pytest.fixture(scope="session")
def sqlite_template() -> Iterator[Path]:
    folder = Path(tempfile.mkdtemp(prefix="pbem-sqlite-"))
    path = folder / "template.sqlite3"
    engine = make_engine(f"sqlite:///{path}")
    upgrade(engine)
    engine.dispose()
    yield path
    shutil.rmtree(folder, ignore_errors=True)


@pytest.fixture
def sqlite_url(sqlite_template: Path, tmp_path: Path) -> str:
    """A migrated, empty SQLite database of this test's own."""
    path = tmp_path / "pbem.sqlite3"
    shutil.copy(sqlite_template, path)
    return f"sqlite:///{path}"


@pytest.fixture(scope="session")
def postgres_emptying(postgres_url: str) -> str:
    """What empties the run's database as ``TRUNCATE <TABLES> RESTART IDENTITY CASCADE`` would, but in
    DELETEs: every table of TABLES and every table referring to them (referring ones first), then every
    sequence those tables own restarted. TRUNCATE makes new files for each table and index, about 250 ms
    a test here; deleting the few rows a test leaves takes about 10 ms."""
    engine = make_engine(postgres_url)
    with engine.connect() as connection:
        references = connection.exec_driver_sql(
            "SELECT conrelid::regclass::text, confrelid::regclass::text FROM pg_constraint WHERE contype = 'f'").all()
        tables = set(TABLES)
        while True:
            more = {child for child, parent in references if parent in tables} - tables
            if not more:
                break
            tables |= more
        sequences = connection.exec_driver_sql(
            "SELECT DISTINCT s.oid::regclass::text FROM pg_class s"
            " JOIN pg_depend d ON d.classid = 'pg_class'::regclass AND d.objid = s.oid"
            " AND d.refclassid = 'pg_class'::regclass AND d.deptype IN ('a', 'i')"
            " WHERE s.relkind = 'S' AND d.refobjid::regclass::text = ANY(%(tables)s) ORDER BY 1",
            {"tables": sorted(tables)}).scalars().all()
    engine.dispose()
    order: list[str] = []
    left = set(tables)
    while left:
        free = sorted(t for t in left if not any(parent == t and child in left and child != t
                                                  for child, parent in references))
        assert free, f"a cycle of foreign keys among {sorted(left)}"
        order += free
        left -= set(free)
    return "; ".join([f"DELETE FROM {table}" for table in order] + [f"ALTER SEQUENCE {s} RESTART" for s in sequences])


@pytest.fixture
def postgresql_url(postgres_url: str, postgres_emptying: str) -> str:
    """The run's PostgreSQL database, migrated and emptied for this test (see ``postgres_emptying``)."""
    engine = make_engine(postgres_url)
    with engine.begin() as connection:
        connection.exec_driver_sql(postgres_emptying)
    engine.dispose()
    return postgres_url


@pytest.fixture(params=["sqlite", "postgresql"])
def database_url(request: pytest.FixtureRequest) -> str:
    """A migrated, empty database of each kind."""
    return request.getfixturevalue(f"{request.param}_url")


@pytest.fixture
def game_service(database_url: str) -> Iterator["GameService"]:
    """The game service over a migrated, empty database of each kind (mail from example.org)."""
    from pbem.services.table.service import GameService  # the whole service layer: only for the tests that use it

    engine = make_engine(database_url)
    yield GameService(engine, mail_domain="example.org")
    engine.dispose()


@pytest.fixture
def db_engine(database_url: str) -> Iterator[sa.Engine]:
    engine = make_engine(database_url)
    yield engine
    engine.dispose()


MAIL_DOMAIN = "example.test"
MAIL_PASSWORD = "secret"
MAIL_USERS = ("game", "ann", "bob", "cy", "dee")


@pytest.fixture(scope="session")
def dovecot() -> Iterator[Dovecot]:
    """A running Dovecot with the game mailbox and four players (see the module doc)."""
    if not dovecot_available():
        message = "dovecot is not installed (Debian: apt-get install dovecot-imapd dovecot-lmtpd)"
        if IN_CI:
            pytest.fail(f"Dovecot is required in CI: {message}")
        pytest.skip(message)
    server = Dovecot(domain=MAIL_DOMAIN)
    server.start({user: MAIL_PASSWORD for user in MAIL_USERS})
    yield server
    server.stop()


@pytest.fixture(scope="session")
def smtp_server(dovecot: Dovecot) -> Iterator[SmtpToLmtp]:
    """SMTP on 127.0.0.1:``smtp_server.port`` delivering into ``dovecot``'s mailboxes."""
    server = SmtpToLmtp(dovecot.host, dovecot.lmtp_port)
    server.start()
    yield server
    server.stop()


@pytest.fixture
def mailboxes(request: pytest.FixtureRequest, dovecot: Dovecot) -> Iterator[Mailboxes]:
    """Every user's mailbox empty (INBOX emptied, other folders deleted) before and
    after the test; when the test also uses ``smtp_server``, it is reset too
    (listening, not refusing, no recorded messages)."""
    smtp = request.getfixturevalue("smtp_server") if "smtp_server" in request.fixturenames else None
    if smtp is not None:
        smtp.reset()
    dovecot.empty_mailboxes()
    yield Mailboxes(dovecot)
    if smtp is not None:
        smtp.reset()
    dovecot.empty_mailboxes()


@pytest.fixture(scope="session")
def browser() -> Iterator[Browser]:
    """One headless Chromium for the whole run (``pbem_testing.browser``): ``browser.open(html, width=390)``.
    Without chromium and chromedriver (Debian: chromium, chromium-driver; ``.ci/run`` installs them) the
    tests using it fail under CI=true and are skipped elsewhere."""
    message = browser_missing()
    if message is not None:
        if IN_CI:
            pytest.fail(f"Chromium is required in CI: {message}")
        pytest.skip(message)
    with Browser() as started:
        print(f"Chromium started in {started.startup_seconds:.2f} s")
        yield started
