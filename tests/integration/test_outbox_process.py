"""The long-running worker's outbox process against a real SMTP server and both databases: it sends when
woken, sends what is due before it stops, is started again when it dies, and ends when its worker is gone."""

from __future__ import annotations

import os
import signal
import subprocess
import sys
import textwrap

import pytest

from pbem.config import MailConfig, ServerConfig
from pbem.services.table.service import GameService
from pbem.services.mail_out.outbox_process import OutboxProcess, shareable
from pbem.store.db import make_engine
from pbem_testing.waiting import NeverHappened, wait_until
from pbem_testing.workers import unsent_mails

PLAYERS = [("Ann", "ann@example.test"), ("Bob", "bob@example.test")]
LOGGED: list[str] = []


def log(line: str) -> None:  # module-level: the process gets it by name (it prints in the process)
    LOGGED.append(line)


def _process(db_engine, smtp_server) -> OutboxProcess:
    smtp = ServerConfig("127.0.0.1", smtp_server.port, "plain")
    mail = MailConfig(imap=smtp, smtp=smtp, game_address="game@example.test")
    return OutboxProcess(db_engine, mail, owner="test-host 1 abc", mail_domain="example.test", log=log, interval=600)


@pytest.fixture
def sqlite_db(tmp_path, sqlite_template):
    """The process's own mechanics (stopping, dying) on SQLite alone: both databases are sent to in the first
    test, and each start of a process costs a second."""
    import shutil

    shutil.copy(sqlite_template, tmp_path / "outbox.sqlite3")
    engine = make_engine(f"sqlite:///{tmp_path / 'outbox.sqlite3'}")
    yield engine
    engine.dispose()


def _wait(condition) -> None:
    wait_until(condition, "the outbox process", every=0.02)


def test_it_sends_what_is_queued_when_woken_and_reports_it(db_engine, smtp_server, mailboxes) -> None:
    games = GameService(db_engine)
    games.create_game("fifth-avenue", PLAYERS, seed=1)
    sender = _process(db_engine, smtp_server)
    sender.start()
    try:
        _wait(lambda: len(smtp_server.messages) == 2)  # what was queued before it started
        games.create_game("fifth-avenue", PLAYERS, seed=2)
        sender.wake()
        _wait(lambda: len(smtp_server.messages) == 4)  # woken, not after the 600 s interval
        _wait(lambda: len(sender.take_report().sent) > 0 or unsent_mails(db_engine) == 0)
    finally:
        sender.stop()
    assert not sender.running
    assert unsent_mails(db_engine) == 0
    assert len(mailboxes.wait_for("ann", 2)) == 2


def test_stopping_sends_what_is_due_first(sqlite_db, smtp_server, mailboxes) -> None:
    db_engine = sqlite_db
    sender = _process(db_engine, smtp_server)
    sender.start()
    for seed in range(3):
        GameService(db_engine).create_game("fifth-avenue", PLAYERS, seed=seed)  # queued, nobody wakes it
    sender.stop()
    assert len(smtp_server.messages) == 6 and unsent_mails(db_engine) == 0
    assert len(sender.take_report().sent) == 6  # its reports are read before it ends


def test_a_process_that_dies_is_started_again_at_the_next_wake(sqlite_db, smtp_server, mailboxes) -> None:
    db_engine = sqlite_db
    games = GameService(db_engine)
    sender = _process(db_engine, smtp_server)
    sender.start()
    try:
        first = sender._process.pid
        os.kill(first, signal.SIGKILL)
        _wait(lambda: not sender._process.is_alive())
        games.create_game("fifth-avenue", PLAYERS, seed=5)
        sender.wake()
        assert sender._process.pid != first
        _wait(lambda: len(smtp_server.messages) == 2)
    finally:
        sender.stop()
    assert unsent_mails(db_engine) == 0


def test_the_process_ends_when_its_worker_is_killed(tmp_path) -> None:
    """A worker killed with SIGKILL cannot stop its outbox process: the process ends with it, so no orphan
    sends the rows that the dead worker's successor frees and sends."""
    url = f"sqlite:///{tmp_path / 'orphan.sqlite3'}"
    from pbem.store.db import upgrade

    upgrade(make_engine(url))
    script = textwrap.dedent(f"""
        import sys, time
        from pbem.config import MailConfig, ServerConfig
        from pbem.services.mail_out.outbox_process import OutboxProcess
        from pbem.store.db import make_engine
        from tests.integration.test_outbox_process import log
        smtp = ServerConfig("127.0.0.1", 9, "plain")  # nothing is queued: it never connects
        sender = OutboxProcess(make_engine({url!r}), MailConfig(imap=smtp, smtp=smtp, game_address="g@x.test"),
                               owner="h 1 t", mail_domain="x.test", log=log, interval=600)
        sender.start()
        print(sender._process.pid, flush=True)
        time.sleep(600)
    """)
    root = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
    parent = subprocess.Popen([sys.executable, "-c", script], stdout=subprocess.PIPE, text=True, cwd=root)
    child = int(parent.stdout.readline())
    parent.kill()
    parent.wait()
    try:  # at once on Linux (the kernel kills it); elsewhere within PARENT_CHECK
        wait_until(lambda: _reaped(child), "the outbox process ends with its killed worker", every=0.1)
    except NeverHappened:
        os.kill(child, signal.SIGKILL)
        raise


def _reaped(pid: int) -> bool:
    """Ended: gone, or a zombie (ended, its parent dead and not yet reaped by init)."""
    try:
        with open(f"/proc/{pid}/stat") as stat:
            return stat.read().rpartition(")")[2].split()[0] == "Z"
    except FileNotFoundError:
        return True


def test_an_in_memory_database_is_not_shared_with_a_process() -> None:
    assert not shareable(make_engine("sqlite://"))
    assert not shareable(make_engine("sqlite:///:memory:"))
    assert shareable(make_engine("sqlite:////tmp/pbem-shareable.sqlite3", create_folder=False))
