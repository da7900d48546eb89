"""Issue 16, point 2: `pbem status`, whether the worker is alive and keeping up, from the database alone; issue 32,
point 8: it tells each worker apart (host, pid, long-running or --once) and a long-running worker that stopped
beating is a problem whatever --once runs do.

Each reason to be unhealthy is set up on its own (no heartbeat, no worker at work, a long-running worker silent or
dead beside a timer's runs or another worker; a failed or long-queued outbox mail; a mailbox backlog; a deadline
the worker has not dealt with; a schema that is behind or newer) and must make `pbem status` exit with 1 and say
why in one line; the healthy cases (a worker stopped for a timer, one restarted on its host) exit with 0. The clock
is the test's own; where the command runs against the real one, the beats are minutes away from it. On SQLite and
PostgreSQL; the mailbox figures come from a real pass of the worker against Dovecot.
"""

from __future__ import annotations

import json
import os
import re
import socket
import subprocess
from datetime import datetime, timedelta, timezone
from email.message import EmailMessage
from typing import Iterator

import pytest
import sqlalchemy as sa
from sqlmodel import Session, select
from typer.testing import CliRunner

from pbem.adapters.imap_inbox import Inbox
from pbem.cli import app
from pbem.config import MailConfig, ServerConfig
from pbem.services.operations.claims import Instance
from pbem.services.table.service import GameService
from pbem.services.common.errors import BadRequest
from pbem.services.operations.heartbeat import FOREVER, GONE, ONCE, Heartbeat
from pbem.services.operations.status import StatusService
from pbem.worker import MailWorker
from pbem.store.db import alembic_config, head_revision, make_engine, shipped_revisions
from pbem.store.models import DecisionClock, MailClaim, OutboxMail, OutboxStatus, WorkerHeartbeat, utcnow

NOW = datetime(2026, 11, 25, 12, 0, tzinfo=timezone.utc)
GAME = "game@example.test"


@pytest.fixture
def engine(database_url: str) -> Iterator[sa.Engine]:
    """The database, without heartbeats (the run's PostgreSQL database is emptied of the older tables only)."""
    engine = make_engine(database_url)
    with engine.begin() as connection:
        connection.execute(sa.delete(WorkerHeartbeat.__table__))
    yield engine
    engine.dispose()


def at(moment: datetime):
    return lambda: moment


def elsewhere(pid: int = 4242, token: str = "feedc0ffee01") -> Instance:
    """A worker on another host: never known dead from here, only silent."""
    return Instance("worker-2.example.test", pid, token)


def beat(engine, instance: Instance, when: datetime, *, mode: str = FOREVER, interval: float = 60.0,
         **kw) -> Heartbeat:
    heart = Heartbeat(engine, instance, clock=at(when))
    heart.start(mode, interval)
    heart.beat(**kw)
    return heart


def status(engine, when: datetime, **kw):
    return StatusService(engine, clock=at(when)).read(**kw)


def cli(database_url: str, *args: str):
    return CliRunner().invoke(app, ["--db", database_url, "status", *args], env={"COLUMNS": "200", "NO_COLOR": "1"})


def table_rows(output: str) -> list[list[str]]:
    """The rows of the workers table, cell by cell."""
    return [[cell.strip() for cell in line.strip("│ ").split("│")] for line in output.splitlines()
            if line.startswith("│")]


def one_problem(found, fragment: str) -> str:
    assert not found.healthy
    assert len(found.problems) == 1, found.problems
    assert fragment in found.problems[0], found.problems[0]
    return found.problems[0]


# --------------------------------------------------------------------------- the worker's heartbeat


def silent_line(name: str, token: str, silence: str, every: str = "60 s") -> str:
    return (f"worker {name} (long-running) has stopped beating: no beat for {silence} (it beats every {every}) and "
            f"it was not stopped (restart it, or `pbem status --forget {token}` if it is gone for good)")


def test_no_heartbeat_then_a_fresh_one_then_a_stale_one(engine, database_url) -> None:
    one_problem(status(engine, NOW), "no worker heartbeat: no worker has run")
    beat(engine, elsewhere(), NOW)
    found = status(engine, NOW + timedelta(seconds=170))
    assert found.healthy and found.problems == []
    (worker,) = found.workers
    assert (worker.host, worker.pid, worker.token, worker.kind, worker.state) == (
        "worker-2.example.test", 4242, "feedc0ffee01", "long-running", "running")
    assert worker.started_at == worker.beat_at == NOW and worker.interval == 60
    stale = status(engine, NOW + timedelta(seconds=181))
    assert stale.workers[0].state == "silent"
    assert stale.problems == [silent_line("worker-2.example.test pid 4242", "feedc0ffee01", "3 minutes")]
    # Silent is not stopped: however long the silence, until its row is a day old (and goes at the next beat).
    long_silent = status(engine, NOW + timedelta(hours=20))
    assert long_silent.workers[0].state == "silent"
    assert long_silent.problems == [silent_line("worker-2.example.test pid 4242", "feedc0ffee01", "20 hours")]
    aged = status(engine, NOW + timedelta(hours=25))
    assert aged.workers[0].state == "silent" and aged.workers[0].problem is None
    one_problem(aged, "no worker at work (none beat within 3 of its intervals): the last beat came from "
                      "worker-2.example.test pid 4242 (long-running) 1 day 1 hour ago (it beats every 60 s)")


def test_the_command_names_the_silent_worker_and_exits_with_1(engine, database_url) -> None:
    """Against the real clock: the beats are minutes apart from it, so no second of the run matters."""
    beat(engine, elsewhere(), utcnow() - timedelta(minutes=10))
    result = cli(database_url)
    assert result.exit_code == 1
    assert re.fullmatch(re.escape("unhealthy: worker worker-2.example.test pid 4242 (long-running) has stopped "
                                  "beating: no beat for ") + r"1\d minutes .*--forget feedc0ffee01.*",
                        result.output.splitlines()[0])
    ((host, pid, kind, state, *_),) = table_rows(result.output)
    assert (host, pid, kind) == ("worker-2.example.test", "4242", "long-running")
    assert re.fullmatch(r"silent: no beat for 1\d minutes \(a problem\)", state), state
    beat(engine, elsewhere(), utcnow())  # the same worker beats again
    result = cli(database_url)
    assert result.exit_code == 0, result.output
    assert result.output.splitlines()[0] == "healthy"
    assert [row[:4] for row in table_rows(result.output)] == [["worker-2.example.test", "4242", "long-running",
                                                              "running"]]
    doc = json.loads(cli(database_url, "--json").output)
    assert doc["healthy"] is True and doc["problems"] == []
    (me,) = doc["workers"]
    assert (me["pid"], me["kind"], me["state"], me["problem"], me["replaced_by"]) == (4242, "long-running", "running",
                                                                                      None, None)
    assert doc["schema"]["current"] is True and doc["outbox"] == {
        "queued": 0, "failed": 0, "oldest_waiting_id": None, "oldest_waiting_at": None,
        "oldest_waiting_seconds": None, "oldest_waiting_attempts": 0, "oldest_waiting_error": ""}


def test_a_stopped_worker_leaves_no_worker_at_work_and_a_dead_one_is_a_problem_until_replaced(engine) -> None:
    beat(engine, elsewhere(), NOW, stopped=True)
    found = status(engine, NOW + timedelta(seconds=5))
    assert found.workers[0].state == "stopped" and found.workers[0].problem is None
    assert found.problems == ["no worker at work (none beat within 3 of its intervals): the last beat came from "
                              "worker-2.example.test pid 4242 (long-running) 5 s ago (it beats every 60 s); stopped "
                              "5 s ago"]

    # A worker of this host whose process is gone (killed, crashed): dead, without waiting for silence.
    dead = subprocess.Popen(["true"])
    dead.wait()
    here = Instance(socket.gethostname()[:80], dead.pid, "deaddeaddead")
    beat(engine, here, NOW + timedelta(seconds=1))
    found = status(engine, NOW + timedelta(seconds=5))
    mine = next(w for w in found.workers if w.token == "deaddeaddead")
    assert mine.state == "dead" and mine.why == "its process is gone (killed, or it crashed)"
    assert found.problems == [f"worker {here.host} pid {dead.pid} (long-running) has stopped beating: its process is "
                              "gone (killed, or it crashed), its last beat 4 s ago (restart it, or `pbem status "
                              "--forget deaddeaddead` if it is gone for good)"]

    # The next worker on this host writes it down, so that a status run elsewhere sees it too; it started after
    # the dead one's last beat: a restart, so the host has its worker again.
    restarted = Instance.start()
    beat(engine, restarted, NOW + timedelta(seconds=6))
    with Session(engine) as s:
        row = s.get(WorkerHeartbeat, "deaddeaddead")
        assert row.stopped_at is None and row.trouble == GONE
    found = status(engine, NOW + timedelta(seconds=7))
    assert found.healthy, found.problems
    mine = next(w for w in found.workers if w.token == "deaddeaddead")
    assert mine.state == "dead" and mine.replaced_by == f"{restarted.host} pid {restarted.pid} (long-running)"


def test_workers_that_beat_at_the_same_moment_are_listed_by_host_whatever_order_they_were_written(engine) -> None:
    """A tie in the last beat is listed by host, pid and token: the database's own row order (which an UPDATE on
    PostgreSQL may change, as a loaded run of the suite once saw) never decides it."""
    beat(engine, Instance("worker-9.example.test", 3, "nineninenine"), NOW)
    beat(engine, Instance("worker-1.example.test", 8, "oneoneoneone"), NOW)
    beat(engine, Instance("worker-1.example.test", 5, "fivefivefive"), NOW)
    found = status(engine, NOW + timedelta(seconds=1))
    assert [(w.host, w.pid) for w in found.workers] == [
        ("worker-1.example.test", 5), ("worker-1.example.test", 8), ("worker-9.example.test", 3)]


def test_a_worker_found_dead_by_another_of_its_host_is_dead_wherever_status_runs(engine) -> None:
    """The mark is all a status run on another host has; a row marked by an older pbem also has a stopped_at."""
    beat(engine, elsewhere(), NOW, stopped=True, trouble=GONE)
    beat(engine, Instance("worker-3.example.test", 7, "twotwotwotwo"), NOW)
    with engine.begin() as connection:
        connection.execute(sa.update(WorkerHeartbeat.__table__).where(
            WorkerHeartbeat.token == "twotwotwotwo").values(trouble=GONE))
    found = status(engine, NOW + timedelta(seconds=30))
    assert [(w.token, w.state, w.stopped_at, w.trouble) for w in found.workers] == [
        ("feedc0ffee01", "dead", None, ""), ("twotwotwotwo", "dead", None, "")]
    assert [problem.split(" has stopped beating: ")[0] for problem in found.problems] == [
        "worker worker-2.example.test pid 4242 (long-running)", "worker worker-3.example.test pid 7 (long-running)"]


def once(engine, when: datetime, n: int, host: str = "worker-2.example.test", **kw) -> Heartbeat:
    """A pass of `pbem worker --once` by the shipped timer (every 5 minutes), ended."""
    return beat(engine, Instance(host, 5000 + n, f"once{n:08d}"), when, mode=ONCE, interval=300, stopped=True, **kw)


def test_a_long_running_worker_that_goes_silent_is_a_problem_whatever_once_runs_do(engine) -> None:
    beat(engine, elsewhere(), NOW, trouble="mail server connection lost (ConnectionResetError)")
    for n, minutes in enumerate((4, 9, 14, 19)):  # a timer of --once runs on its host goes on beating meanwhile
        once(engine, NOW + timedelta(minutes=minutes), n)
        found = status(engine, NOW + timedelta(minutes=minutes, seconds=30))
        timer = next(w for w in found.workers if w.kind == "--once")
        assert (timer.state, timer.fresh, timer.problem) == ("finished", True, None)
        silent = next(w for w in found.workers if w.kind == "long-running")
        assert silent.state == "silent" and silent.problem is not None
        assert found.problems == [silent.problem]
    assert found.problems == [
        "worker worker-2.example.test pid 4242 (long-running) has stopped beating: no beat for 19 minutes (it beats "
        "every 60 s) and it was not stopped; the last it said: mail server connection lost (ConnectionResetError) "
        "(restart it, or `pbem status --forget feedc0ffee01` if it is gone for good)"]
    assert [w.token for w in found.workers] == ["once00000003", "feedc0ffee01"]  # one row for the timer's runs
    # Only a long-running worker started again on its host makes up for it; a --once run never does.
    beat(engine, elsewhere(pid=4300, token="againagain01"), NOW + timedelta(minutes=20))
    assert status(engine, NOW + timedelta(minutes=20, seconds=5)).healthy


def test_a_long_running_worker_stopped_for_a_timer_of_once_runs_is_healthy(engine) -> None:
    beat(engine, elsewhere(), NOW - timedelta(hours=3))
    beat(engine, elsewhere(), NOW, stopped=True)  # SIGTERM: the moderator stops it and enables the timer
    for n, minutes in enumerate((1, 6, 11)):
        once(engine, NOW + timedelta(minutes=minutes), n)
        found = status(engine, NOW + timedelta(minutes=minutes, seconds=10))
        assert found.healthy, found.problems
        assert {(w.kind, w.state) for w in found.workers} == {("long-running", "stopped"), ("--once", "finished")}
    # The timer stops in turn: no worker at work, and the newest beat says which.
    one_problem(status(engine, NOW + timedelta(minutes=27)), "no worker at work (none beat within 3 of its "
                "intervals): the last beat came from worker-2.example.test pid 5002 (--once) 16 minutes ago (it beats "
                "every 5 minutes); its pass ended 16 minutes ago")


def test_two_long_running_workers_one_silent_then_restarted_then_forgotten(engine) -> None:
    first, second = elsewhere(), Instance("worker-3.example.test", 99, "secondsecond")
    beat(engine, second, NOW)
    heart = beat(engine, first, NOW)
    for minutes in range(1, 6):  # the first goes on beating, the second does not
        heart.clock = at(NOW + timedelta(minutes=minutes))
        heart.beat()
    found = status(engine, NOW + timedelta(minutes=5, seconds=10))
    assert [(w.host, w.state) for w in found.workers] == [("worker-2.example.test", "running"),
                                                          ("worker-3.example.test", "silent")]
    assert found.problems == [silent_line("worker-3.example.test pid 99", "secondsecond", "5 minutes")]

    # Started again on its host (by systemd, or by hand): the old row is the new worker's past, not a problem.
    beat(engine, Instance("worker-3.example.test", 120, "restarted001"), NOW + timedelta(minutes=6))
    found = status(engine, NOW + timedelta(minutes=6, seconds=1))
    assert found.healthy, found.problems
    old = next(w for w in found.workers if w.token == "secondsecond")
    assert old.state == "silent" and old.replaced_by == "worker-3.example.test pid 120 (long-running)"
    assert old.why == "no beat for 6 minutes; replaced by worker-3.example.test pid 120 (long-running)"

    # Forgetting: a worker that is not running goes from the table; a running one or a token of none is refused.
    service = StatusService(engine, clock=at(NOW + timedelta(minutes=6, seconds=2)))
    assert service.forget("secondsecond").state == "silent"
    assert "secondsecond" not in [w.token for w in service.read().workers]
    with pytest.raises(BadRequest, match=r"worker worker-3\.example\.test pid 120 \(long-running\) is running "
                                         r"\(its last beat 2 s ago\); only a worker that is not running"):
        service.forget("restarted001")
    with pytest.raises(BadRequest, match="no worker has the token 'nosuchtoken'"):
        service.forget("nosuchtoken")


def test_json_and_the_table_show_each_worker_and_forget_clears_one(engine, database_url) -> None:
    """Against the real clock, with beats minutes apart from it."""
    now = utcnow()
    heart = beat(engine, elsewhere(), now - timedelta(hours=1))
    heart.clock = at(now - timedelta(minutes=10))
    heart.beat()  # silent since
    beat(engine, Instance("worker-2.example.test", 6001, "onceonceonce"), now - timedelta(minutes=1), mode=ONCE,
         interval=300, stopped=True)
    result = cli(database_url, "--json")
    assert result.exit_code == 1
    doc = json.loads(result.output)
    assert doc["healthy"] is False and doc["thresholds"]["beats_missed"] == 3
    timer, silent = doc["workers"]
    assert set(silent) == {"host", "pid", "token", "kind", "mode", "state", "why", "started_at", "beat_at",
                           "beat_age_seconds", "interval_seconds", "stopped_at", "trouble", "replaced_by", "problem"}
    assert {k: silent[k] for k in ("host", "pid", "token", "kind", "mode", "state", "stopped_at", "interval_seconds",
                                   "replaced_by")} == {
        "host": "worker-2.example.test", "pid": 4242, "token": "feedc0ffee01", "kind": "long-running",
        "mode": "worker", "state": "silent", "stopped_at": None, "interval_seconds": 60.0, "replaced_by": None}
    assert datetime.fromisoformat(silent["started_at"]) < datetime.fromisoformat(silent["beat_at"])
    assert 9 * 60 < silent["beat_age_seconds"] < 20 * 60
    assert doc["problems"] == [silent["problem"]] and "--forget feedc0ffee01" in silent["problem"]
    assert (timer["pid"], timer["kind"], timer["mode"], timer["state"], timer["problem"]) == (
        6001, "--once", "once", "finished", None)
    assert datetime.fromisoformat(timer["stopped_at"]) == datetime.fromisoformat(timer["beat_at"])

    shown = cli(database_url)
    assert shown.exit_code == 1
    (once_row, silent_row) = table_rows(shown.output)
    assert once_row[:3] == ["worker-2.example.test", "6001", "--once"] and once_row[-1] == "onceonceonce"
    assert re.fullmatch(r"finished: its pass ended \d+ s ago", once_row[3]), once_row
    assert silent_row[:3] == ["worker-2.example.test", "4242", "long-running"] and silent_row[-1] == "feedc0ffee01"
    assert re.fullmatch(r"silent: no beat for 1\d minutes \(a problem\)", silent_row[3]), silent_row

    forgot = cli(database_url, "--forget", "feedc0ffee01")
    assert forgot.exit_code == 0
    assert re.fullmatch(r"forgot worker worker-2\.example\.test pid 4242 \(long-running\), silent: no beat for "
                        r"1\d minutes\n", forgot.output)
    assert cli(database_url).exit_code == 0
    again = cli(database_url, "--forget", "feedc0ffee01")
    assert again.exit_code == 1
    assert again.output == "error: no worker has the token 'feedc0ffee01' (`pbem status` shows each worker's token)\n"
    timer = cli(database_url, "--forget", "onceonceonce", "--json")  # (a finished pass: not running)
    assert timer.exit_code == 0 and json.loads(timer.output)["forgot"]["token"] == "onceonceonce"


def test_a_timer_run_worker_is_on_time_until_three_of_its_periods_pass(engine) -> None:
    beat(engine, elsewhere(token="once00000001"), NOW, mode=ONCE, interval=300, stopped=True)
    found = status(engine, NOW + timedelta(minutes=14))
    assert found.healthy and found.workers[0].state == "finished"
    one_problem(status(engine, NOW + timedelta(minutes=16)),
                "(it beats every 5 minutes); its pass ended 16 minutes ago")
    # The next run on that host replaces the row of the last; rows silent for a day go.
    beat(engine, elsewhere(pid=77, token="oldoldoldold"), NOW - timedelta(days=2))
    beat(engine, elsewhere(pid=5000, token="once00000002"), NOW + timedelta(minutes=20), mode=ONCE, interval=300,
         stopped=True)
    assert [w.token for w in status(engine, NOW + timedelta(minutes=21)).workers] == ["once00000002"]


def test_a_once_run_that_died_goes_with_the_next_run_of_its_host(engine) -> None:
    dead = subprocess.Popen(["true"])
    dead.wait()
    here = socket.gethostname()[:80]
    heart = Heartbeat(engine, Instance(here, dead.pid, "killedonce01"), clock=at(NOW))
    heart.start(ONCE, 300)
    heart.beat()  # a beat in the middle of a long pass; then it was killed before the pass ended
    found = status(engine, NOW + timedelta(seconds=30))
    assert [(w.kind, w.state, w.problem) for w in found.workers] == [("--once", "dead", None)]
    assert found.problems == ["no worker at work (none beat within 3 of its intervals): the last beat came from "
                              f"{here} pid {dead.pid} (--once) 30 s ago (it beats every 5 minutes); its process is "
                              "gone (killed, or it crashed)"]
    once(engine, NOW + timedelta(minutes=5), 1, host=here)
    found = status(engine, NOW + timedelta(minutes=5, seconds=1))
    assert found.healthy and [w.token for w in found.workers] == ["once00000001"]


def test_a_worker_that_lost_its_connection_says_so(engine) -> None:
    beat(engine, elsewhere(), NOW, trouble="mail server connection lost (ConnectionRefusedError: [Errno 111])")
    found = status(engine, NOW + timedelta(seconds=10))
    one_problem(found, "worker worker-2.example.test pid 4242 (long-running): mail server connection lost")
    beat(engine, elsewhere(), NOW + timedelta(seconds=20))  # the same worker: connected again
    assert status(engine, NOW + timedelta(seconds=21)).healthy


def test_a_timer_run_whose_pass_fails_says_why(engine) -> None:
    nowhere = ServerConfig("127.0.0.1", 9, "plain", "game", "secret")  # nothing listens on the discard port
    worker = MailWorker(engine, MailConfig(imap=nowhere, smtp=nowhere, game_address=GAME))
    with pytest.raises(OSError):
        worker.run_once()
    found = StatusService(engine).read()
    assert found.workers[0].state == "finished" and found.workers[0].trouble.startswith("the pass failed (")
    one_problem(found, f"worker {socket.gethostname()[:80]} pid {os.getpid()} (--once): the pass failed "
                       "(ConnectionRefusedError")


def test_a_long_pass_beats_once_an_interval_and_a_failing_database_never_stops_the_worker(engine) -> None:
    heart = Heartbeat(engine, elsewhere(), clock=at(NOW))
    heart.start(FOREVER, 60)
    heart.beat()
    for seconds, written in ((30, NOW), (61, NOW + timedelta(seconds=61))):
        heart.clock = at(NOW + timedelta(seconds=seconds))
        heart.beat(busy=True)
        with Session(engine) as s:
            assert s.get(WorkerHeartbeat, "feedc0ffee01").beat_at.replace(tzinfo=timezone.utc) == written
    said = []
    broken = Heartbeat(make_engine("sqlite:////nonexistent/folder/x.sqlite3", create_folder=False), elsewhere(),
                       clock=at(NOW), log=said.append)
    broken.beat()
    broken.beat()
    assert len(said) == 1 and said[0].startswith("the heartbeat could not be written")


# --------------------------------------------------------------------------- outbox, mailbox, deadlines


def queue(engine, created: datetime, status: str = OutboxStatus.QUEUED, **kw) -> int:
    with Session(engine) as s:
        mail = OutboxMail(recipient="ann@example.test", subject="s", headers={}, text_body="b", status=status,
                          next_attempt_at=created, created_at=created, message_id=f"<{created.timestamp()}-{status}@x>",
                          **kw)
        s.add(mail)
        s.commit()
        return mail.id


def test_failed_and_long_queued_outbox_mail(engine, database_url) -> None:
    beat(engine, elsewhere(), NOW)
    queue(engine, NOW - timedelta(minutes=5))
    found = status(engine, NOW + timedelta(seconds=1))
    assert found.healthy and (found.outbox.queued, found.outbox.failed) == (1, 0)
    oldest = queue(engine, NOW - timedelta(minutes=20), OutboxStatus.SENDING, attempts=3, last_error="421 try later")
    one_problem(status(engine, NOW + timedelta(seconds=1)),
                f"outbox: mail {oldest} has waited 20 minutes to be sent (more than 15 minutes; 3 attempts, "
                "last error: 421 try later)")
    assert status(engine, NOW, max_outbox_wait=timedelta(minutes=30)).healthy
    queue(engine, NOW - timedelta(days=3), OutboxStatus.SENT)
    queue(engine, NOW - timedelta(days=2), OutboxStatus.FAILED)
    found = status(engine, NOW, max_outbox_wait=timedelta(minutes=30))
    one_problem(found, "outbox: 1 mail failed (`pbem outbox list --status failed` shows them")
    assert (found.outbox.queued, found.outbox.failed, found.outbox.oldest_id) == (2, 1, oldest)

    beat(engine, elsewhere(), utcnow())
    result = cli(database_url, "--max-outbox-wait", "100d")
    assert result.exit_code == 1 and [line for line in result.output.splitlines() if line.startswith("unhealthy")] == [
        "unhealthy: outbox: 1 mail failed (`pbem outbox list --status failed` shows them, `pbem outbox retry` "
        "queues them again)"]
    result = cli(database_url, "--max-outbox-wait", "soon")
    assert result.exit_code == 1 and "--max-outbox-wait must be a length of time" in result.output


def test_a_mailbox_backlog_as_the_worker_last_saw_it(engine, database_url) -> None:
    heart = Heartbeat(engine, elsewhere(), clock=at(NOW))
    heart.start(FOREVER, 60)
    heart.pass_started(3, NOW - timedelta(minutes=40))  # a pass that has not ended: what it found
    heart.beat(busy=True)  # (the first beat of a long pass comes an interval after the start)
    heart.clock = at(NOW + timedelta(seconds=60))
    heart.beat(busy=True)
    found = status(engine, NOW + timedelta(seconds=61))
    assert found.mailbox.ended_at is None and found.mailbox.waiting == 3
    one_problem(found, "mailbox backlog: 3 mails waiting (as worker-2.example.test pid 4242 saw it 61 s ago), "
                       "the oldest arrived 41 minutes ago (more than 15 minutes)")
    heart.pass_ended(1, NOW - timedelta(minutes=10))
    heart.beat()
    found = status(engine, NOW + timedelta(seconds=62))
    assert found.healthy and (found.mailbox.found, found.mailbox.waiting) == (3, 1)
    heart.clock = at(NOW + timedelta(minutes=6))
    heart.beat()  # an IDLE wait later: alive, the mailbox as its last pass left it
    one_problem(status(engine, NOW + timedelta(minutes=6)), "mailbox backlog: 1 mail waiting (as worker-2.example.test "
                "pid 4242 saw it 6 minutes ago), the oldest arrived 16 minutes ago (more than 15 minutes)")
    assert status(engine, NOW + timedelta(minutes=6), max_backlog=timedelta(minutes=20)).healthy
    heart.pass_ended(0, None)
    heart.beat()
    assert status(engine, NOW + timedelta(minutes=6)).healthy


def test_deadlines_past_and_those_the_worker_has_not_dealt_with(engine) -> None:
    games = GameService(engine, mail_domain="example.test", clock=at(NOW - timedelta(days=4)))
    games.create_game("fifth-avenue", [("Ann", "ann@example.test"), ("Bob", "bob@example.test")], seed=3)
    with engine.begin() as connection:
        connection.execute(sa.delete(OutboxMail.__table__))  # the opening mails: not this test's business
    beat(engine, elsewhere(), NOW)
    found = status(engine, NOW)  # due 72 hours after it was asked, 4 days ago: passed a day ago
    assert (found.deadlines.past, found.deadlines.unhandled, found.deadlines.oldest_game) == (1, 1, 1)
    one_problem(found, "deadlines: 1 decision past the deadline not yet dealt with by the worker; the oldest, game 1, "
                       "was due 1 day ago (more than 15 minutes)")
    with Session(engine) as s:  # the worker told the moderator: late, but nobody's job but the player's
        clock = s.exec(select(DecisionClock)).one()
        clock.expired_at = NOW - timedelta(hours=23)
        s.add(clock)
        s.commit()
    found = status(engine, NOW)
    assert found.healthy and (found.deadlines.past, found.deadlines.unhandled) == (1, 0)


# --------------------------------------------------------------------------- the schema


def migrate(engine, revision: str) -> None:
    from alembic import command

    config = alembic_config(engine)
    with engine.begin() as connection:
        config.attributes["connection"] = connection
        (command.upgrade if revision == "head" else command.downgrade)(config, revision)


def test_a_schema_behind_or_newer_is_a_problem_and_0008_goes_down_and_up_again(engine, database_url) -> None:
    head = shipped_revisions()[-1]
    assert head == head_revision(engine) and head >= "0008"
    queue(engine, NOW - timedelta(days=1), OutboxStatus.FAILED)  # at head: the model's columns are head's
    try:
        migrate(engine, "0007")
        assert "worker_heartbeats" not in sa.inspect(engine).get_table_names()
        found = status(engine, NOW)
        assert found.workers is None and found.mailbox is None and found.outbox.failed == 1
        assert found.problems == [f"the database is at schema 0007, pbem needs {head}: run `pbem db upgrade`",
                                  "outbox: 1 mail failed (`pbem outbox list --status failed` shows them, "
                                  "`pbem outbox retry` queues them again)"]
        result = cli(database_url)
        assert result.exit_code == 1 and "unhealthy: the database is at schema 0007" in result.output
        migrate(engine, "head")
        with engine.begin() as connection:
            connection.exec_driver_sql("UPDATE alembic_version SET version_num = '9999'")
        assert status(engine, NOW).problems[0] == ("the database is at schema 9999, which this pbem does not know "
                                                   f"(it needs {head}): it was written by a newer pbem; upgrade pbem")
    finally:
        with engine.begin() as connection:
            connection.exec_driver_sql(f"UPDATE alembic_version SET version_num = '{head}'")
        migrate(engine, "head")
    assert "worker_heartbeats" in sa.inspect(engine).get_table_names()


# --------------------------------------------------------------------------- a real pass against Dovecot


def _auto_reply(n: int) -> bytes:
    message = EmailMessage()
    message["From"], message["To"], message["Subject"] = "ann@example.test", GAME, f"away {n}"
    message["Auto-Submitted"], message["Message-ID"] = "auto-replied", f"<away-{n}-{os.getpid()}@client.example.test>"
    message.set_content("I am away.\n")
    return bytes(message)


def test_a_pass_notes_what_the_mailbox_held_and_what_it_left(engine, dovecot, smtp_server, mailboxes) -> None:
    three_hours_ago = (utcnow() - timedelta(hours=3)).replace(microsecond=0)
    with mailboxes.login("game") as client:
        client.append("INBOX", _auto_reply(1), msg_time=three_hours_ago)
        client.append("INBOX", _auto_reply(2), msg_time=three_hours_ago + timedelta(hours=1))
        client.select_folder("INBOX")
        uids = sorted(client.search(["ALL"]))
        uidvalidity = client.folder_status("INBOX", ["UIDVALIDITY"])[b"UIDVALIDITY"]
    imap = ServerConfig(dovecot.host, dovecot.imap_port, "plain", "game", "secret")
    with Inbox(imap) as inbox:
        inbox.open("INBOX")
        assert inbox.arrived(uids[0]) == three_hours_ago and inbox.backlog() == (2, three_hours_ago)
    with Session(engine) as s:  # the second mail is another worker's, elsewhere: this pass leaves it
        s.add(MailClaim(mailbox="INBOX", uidvalidity=uidvalidity, uid=uids[1], owner="worker-2.example.test 1 abc",
                        until=utcnow() + timedelta(minutes=10)))
        s.commit()
    mail = MailConfig(imap=imap, smtp=ServerConfig("127.0.0.1", smtp_server.port, "plain"), game_address=GAME)
    worker = MailWorker(engine, mail, mail_domain="example.test")
    worker.run_once()
    found = StatusService(engine).read()
    (me,) = found.workers
    assert (me.host, me.pid, me.token, me.mode, me.state) == (socket.gethostname()[:80], os.getpid(),
                                                              worker.instance.token, "once", "finished")
    assert me.interval == 300
    m = found.mailbox
    assert (m.found, m.found_oldest, m.left, m.left_oldest) == (2, three_hours_ago, 1,
                                                                three_hours_ago + timedelta(hours=1))
    assert m.read_at <= m.ended_at <= found.checked_at
    (problem,) = found.problems  # (how many seconds ago the pass read it depends on the machine)
    assert re.fullmatch(re.escape(f"mailbox backlog: 1 mail waiting (as {me.host} pid {me.pid} saw it ") + r"\d+ s"
                        + re.escape(" ago), the oldest arrived 2 hours ago (more than 15 minutes)"), problem), problem
