"""`pbem status` beside real `pbem worker` processes (Dovecot, the SMTP server): healthy while the worker beats,
unhealthy naming it as soon as it is frozen for three of its intervals, even when a `pbem worker --once` pass beats
meanwhile, healthy again when it goes on; a worker killed is named at once, until a worker started again on the
host takes its place; one stopped (SIGTERM) is no problem while the --once run is at work, and leaves no worker at
work once that run is forgotten. Status itself never connects to the mail servers.

The seconds in its sentences depend on how fast the machine is: they are matched as numbers, never compared."""

from __future__ import annotations

import json
import re
import signal
import socket
import subprocess

import sqlalchemy as sa

from pbem.services.operations.heartbeat import GONE
from pbem.store.db import make_engine, upgrade
from pbem.store.models import WorkerHeartbeat
from pbem_testing.waiting import HANG, wait_until
from pbem_testing.workers import worker_env

GAME = "game@example.test"
SECONDS = r"\d+ s"
INTERVAL = 3  # the worker's poll interval, in seconds


def test_status_sees_the_worker_beat_freeze_and_stop(dovecot, smtp_server, mailboxes, tmp_path, pbem,
                                                     pbem_with) -> None:
    url = f"sqlite:///{tmp_path / 'status.sqlite3'}"
    engine = make_engine(url)
    upgrade(engine)
    engine.dispose()

    def status() -> tuple[int, dict]:
        proc = pbem(url, "status", "--json", check=False)
        assert proc.returncode in (0, 1) and "Traceback" not in proc.stderr, proc.stderr
        return proc.returncode, json.loads(proc.stdout)

    def kind(doc: dict, which: str) -> dict:
        (worker,) = [w for w in doc["workers"] if w["kind"] == which]
        return worker

    code, doc = status()
    assert code == 1 and doc["problems"] == ["no worker heartbeat: no worker has run (`pbem worker` writes one on "
                                             "every pass)"]
    host = socket.gethostname()[:80]
    # The worker beats after each IDLE wait of at most its poll interval and after each pass; status calls it
    # silent after three intervals. 3 s: a busy machine may keep a process from the CPU for a few seconds, and a
    # healthy worker must not look frozen then (issue 40).
    env = worker_env(url, tmp_path, dovecot, smtp_server.port, GAME, INTERVAL)

    def start() -> subprocess.Popen:
        return subprocess.Popen(["pbem", "worker"], env=env, stdout=subprocess.PIPE, stderr=subprocess.STDOUT,
                                text=True)

    first = start()
    try:
        wait_until(lambda: status()[0] == 0, "the worker's first beat")
        code, doc = status()
        (me,) = doc["workers"]
        assert (me["host"], me["pid"], me["kind"], me["mode"], me["state"], me["interval_seconds"], me["problem"]) == (
            host, first.pid, "long-running", "worker", "running", float(INTERVAL), None)
        assert doc["mailbox"]["waiting"] == 0 and doc["mailbox"]["backlog_seconds"] is None
        shown = pbem(url, "status", check=False)
        assert shown.returncode == 0 and shown.stdout.splitlines()[0] == "healthy"
        assert str(first.pid) in shown.stdout and me["token"] in shown.stdout and "long-running" in shown.stdout

        first.send_signal(signal.SIGSTOP)  # alive, but not beating: a problem after three intervals
        try:
            wait_until(lambda: status()[0] == 1, "status sees the frozen worker")
            frozen = re.escape(f"worker {host} pid {first.pid} (long-running) has stopped beating: no beat for ") + \
                SECONDS + re.escape(f" (it beats every {INTERVAL} s) and it was not stopped (restart it, or `pbem status "
                                    f"--forget {me['token']}` if it is gone for good)")
            code, doc = status()
            assert kind(doc, "long-running")["state"] == "silent"
            assert len(doc["problems"]) == 1 and re.fullmatch(frozen, doc["problems"][0]), doc["problems"]

            # A pass of `pbem worker --once` (a timer's, say) meanwhile: it beats, and hides nothing.
            once = pbem_with(env, "worker", "--once")
            assert once.returncode == 0, once.stdout + once.stderr
            code, doc = status()
            timer = kind(doc, "--once")
            assert (timer["host"], timer["mode"], timer["state"], timer["problem"]) == (host, "once", "finished", None)
            assert code == 1 and kind(doc, "long-running")["state"] == "silent"
            assert len(doc["problems"]) == 1 and re.fullmatch(frozen, doc["problems"][0]), doc["problems"]
        finally:
            first.send_signal(signal.SIGCONT)
        wait_until(lambda: status()[0] == 0, "the worker beats again")

        first.kill()  # dead: named at once, without waiting for silence, --once run or not
        first.wait()
        code, doc = status()
        dead = kind(doc, "long-running")
        assert code == 1 and dead["state"] == "dead" and dead["why"] == "its process is gone (killed, or it crashed)"
        assert doc["problems"] == [dead["problem"]]
        assert re.fullmatch(re.escape(f"worker {host} pid {first.pid} (long-running) has stopped beating: its process "
                                      "is gone (killed, or it crashed), its last beat ") + SECONDS + " ago .*",
                            dead["problem"]), dead["problem"]
    finally:
        if first.poll() is None:
            first.kill()
        first.communicate(timeout=HANG)

    second = start()  # as systemd would restart it: the host has its worker again
    try:
        wait_until(lambda: status()[0] == 0, "the second worker beats")
        code, doc = status()
        replaced = next(w for w in doc["workers"] if w["pid"] == first.pid)
        assert replaced["state"] == "dead" and replaced["problem"] is None
        assert replaced["replaced_by"] == f"{host} pid {second.pid} (long-running)"
        with engine.connect() as connection:  # the new worker noted the death, for status runs on other hosts
            assert connection.execute(sa.select(WorkerHeartbeat.trouble).where(
                WorkerHeartbeat.token == replaced["token"])).scalar_one() == GONE
    finally:
        second.send_signal(signal.SIGTERM)
        output, _ = second.communicate(timeout=HANG)
    assert second.returncode == 0, output

    # Stopped, not dead: no problem of its own, and the --once pass of a minute ago is at work (a timer that took
    # over would run it every 5 minutes).
    code, doc = status()
    stopped = next(w for w in doc["workers"] if w["pid"] == second.pid)
    assert code == 0 and stopped["state"] == "stopped" and stopped["stopped_at"] and stopped["problem"] is None
    # Without the --once run, no worker is at work: unhealthy at once, not three intervals later.
    forgot = pbem(url, "status", "--forget", timer["token"], check=False)
    assert forgot.returncode == 0 and forgot.stdout.startswith(f"forgot worker {host} pid {timer['pid']} (--once)")
    code, doc = status()
    assert code == 1 and len(doc["problems"]) == 1
    assert re.fullmatch(re.escape(f"no worker at work (none beat within 3 of its intervals): the last beat came from "
                                  f"{host} pid {second.pid} (long-running) ") + SECONDS
                        + re.escape(f" ago (it beats every {INTERVAL} s); stopped ") + SECONDS + " ago", doc["problems"][0]), \
        doc["problems"]
    shown = pbem(url, "status", check=False)
    assert shown.returncode == 1 and shown.stdout.startswith("unhealthy: no worker at work")
