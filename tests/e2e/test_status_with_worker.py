"""`pbem status` beside a real `pbem worker` process (Dovecot, the SMTP server): healthy while the worker beats,
unhealthy with the reason as soon as it is frozen for three of its intervals, healthy again when it goes on, and
unhealthy the moment it stops (SIGTERM). Status itself never connects to the mail servers."""

from __future__ import annotations

import json
import signal
import socket
import subprocess

from test_worker_forever import wait_until  # noqa: I001

from pbem.store.db import make_engine, upgrade
from pbem.testing.workers import worker_env

GAME = "game@example.test"


def test_status_sees_the_worker_beat_freeze_and_stop(dovecot, smtp_server, mailboxes, tmp_path, pbem) -> None:
    url = f"sqlite:///{tmp_path / 'status.sqlite3'}"
    engine = make_engine(url)
    upgrade(engine)
    engine.dispose()

    def status() -> tuple[int, dict]:
        proc = pbem(url, "status", "--json", check=False)
        assert proc.returncode in (0, 1) and "Traceback" not in proc.stderr, proc.stderr
        return proc.returncode, json.loads(proc.stdout)

    code, doc = status()
    assert code == 1 and doc["problems"] == ["no worker heartbeat: no worker has run (`pbem worker` writes one on "
                                             "every pass)"]
    # The worker beats after each IDLE wait of at most its poll interval (1 s) and after each pass.
    env = worker_env(url, tmp_path, dovecot, smtp_server.port, GAME, 1)
    worker = subprocess.Popen(["pbem", "worker"], env=env, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True)
    try:
        wait_until(lambda: status()[0] == 0, 30)
        code, doc = status()
        (me,) = doc["workers"]
        assert (me["host"], me["pid"], me["mode"], me["state"], me["interval_seconds"]) == (
            socket.gethostname()[:80], worker.pid, "worker", "running", 1.0)
        assert doc["mailbox"]["waiting"] == 0 and doc["mailbox"]["backlog_seconds"] is None
        shown = pbem(url, "status", check=False)
        assert shown.returncode == 0 and shown.stdout.splitlines()[0] == "healthy"
        assert str(worker.pid) in shown.stdout and me["token"] in shown.stdout

        worker.send_signal(signal.SIGSTOP)  # alive, but not beating: silent after three intervals
        try:
            wait_until(lambda: status()[0] == 1, 20)
            code, doc = status()
            assert doc["workers"][0]["state"] == "silent"
            assert doc["problems"][0].startswith("no worker heartbeat within 3 of its intervals: the last came from "
                                                 f"{me['host']} pid {worker.pid}")
        finally:
            worker.send_signal(signal.SIGCONT)
        wait_until(lambda: status()[0] == 0, 20)
    finally:
        worker.send_signal(signal.SIGTERM)
        output, _ = worker.communicate(timeout=30)
    assert worker.returncode == 0, output
    code, doc = status()  # stopped: unhealthy at once, not three intervals later
    assert code == 1 and doc["workers"][0]["state"] == "stopped" and doc["workers"][0]["stopped_at"]
    assert doc["problems"] == [f"no worker heartbeat within 3 of its intervals: the last came from {me['host']} pid "
                               f"{worker.pid} {int(doc['workers'][0]['beat_age_seconds'])} s ago (it beats every "
                               f"1 s); {doc['workers'][0]['why']}"]
    assert doc["workers"][0]["why"].startswith("stopped ")
    shown = pbem(url, "status", check=False)
    assert shown.returncode == 1 and shown.stdout.startswith("unhealthy: no worker heartbeat within 3 of its intervals")
