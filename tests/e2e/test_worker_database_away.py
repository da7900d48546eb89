"""Issue 40, point 2: a `pbem worker` started while its PostgreSQL is away (restarting, failing over) waits for it
instead of exiting, and one that is stopped while it is away still stops cleanly.

The storm test (tests/e2e/test_storm.py) once saw "worker 1 exited with 1": a worker it had just started again
after a kill met the storm's next cut of every database connection while it checked the schema, and said
"error: cannot reach the database ...: terminating connection due to administrator command". A running worker
rides out such a cut (it reconnects with backoff); a starting one gave up at the first. Here a gate in front of
the server (pbem_testing.tcp_gate) is shut while the worker starts and opened when the worker has said it met
the failure: the test waits on the worker's words, not on a race with the cuts."""

from __future__ import annotations

import signal
import subprocess
import sys

from sqlalchemy.engine import make_url

from pbem.services.table.service import GameService
from pbem.store.db import make_engine
from pbem_testing.tcp_gate import TcpGate
from pbem_testing.waiting import HANG, wait_until
from pbem_testing.workers import worker_env

GAME = "game@example.test"


def through(gate: TcpGate, url: str) -> str:
    return make_url(url).set(host=gate.host, port=gate.port).render_as_string(hide_password=False)


def test_a_worker_waits_for_a_database_that_is_away_when_it_starts_and_when_it_stops(
        postgresql_url, dovecot, smtp_server, mailboxes, tmp_path) -> None:
    engine = make_engine(postgresql_url)
    GameService(engine, mail_domain="example.test").create_game(
        "fifth-avenue", [("Ann", "ann@example.test"), ("Bob", "bob@example.test")], seed=3)
    engine.dispose()
    log = tmp_path / "worker.log"

    def logged(text: str) -> bool:
        return text in log.read_text(errors="replace")

    with TcpGate(make_url(postgresql_url).port or 5432) as gate, open(log, "wb") as out:
        gate.shut()
        worker = subprocess.Popen([sys.executable, "-m", "pbem", "worker"], stdout=out, stderr=subprocess.STDOUT,
                                  env=worker_env(through(gate, postgresql_url), tmp_path, dovecot, smtp_server.port,
                                                 GAME, 1))
        try:
            wait_until(lambda: logged("checking the schema: the database failed") or worker.poll() is not None,
                       "the starting worker meets the database away")
            assert worker.poll() is None, log.read_text()  # it did not give up: it waits
            gate.open()
            wait_until(lambda: len(mailboxes.messages("ann")) == 1, "the opening mails, once the database is back")

            gate.shut()  # away again, and the worker is told to stop: its last beat waits for the database too
            worker.send_signal(signal.SIGTERM)
            wait_until(lambda: logged("the last heartbeat: the database failed") or worker.poll() is not None,
                       "the stopping worker meets the database away")
            gate.open()
            worker.wait(HANG)
        finally:
            if worker.poll() is None:
                worker.kill()
                worker.wait()
    assert worker.returncode == 0, log.read_text()
    assert gate.hung_up >= 2 and "error:" not in log.read_text()
