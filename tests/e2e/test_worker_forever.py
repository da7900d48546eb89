"""`pbem worker` running for real: woken by IMAP IDLE, reconnecting when the connection drops, stopping on SIGTERM."""

from __future__ import annotations

import signal
import subprocess

from test_worker_mail import GAME, reply_like_a_client, send, wait_for_inbox, wait_for_request  # noqa: I001

from pbem.demo.players import listed_commands

from pbem.services.table.service import GameService
from pbem.store.db import make_engine, upgrade
from pbem.worker import RENEW_IDLE
from pbem_testing.waiting import HANG, wait_until
from pbem_testing.workers import worker_env


def answer(dovecot, smtp_server, games: GameService, email: str) -> None:
    state = games.get(1).state
    user = email.split("@")[0]
    request = wait_for_request(dovecot, user, state.moves)  # sent a moment after the move, by the outbox process
    text = request.get_body(("plain",)).get_content().replace("\r\n", "\n")
    command = listed_commands(text)[0]
    send(smtp_server, reply_like_a_client(request, email, command))


def test_worker_idles_reconnects_and_stops_cleanly(dovecot, smtp_server, mailboxes, tmp_path) -> None:
    url = f"sqlite:///{tmp_path / 'forever.sqlite3'}"
    engine = make_engine(url)
    upgrade(engine)
    games = GameService(engine, mail_domain="example.test")
    games.create_game("fifth-avenue", [("Ann", "ann@example.test"), ("Bob", "bob@example.test")], seed=5)
    # The poll interval is an hour and an IDLE is renewed every RENEW_IDLE seconds, longer than any wait below:
    # only IDLE can wake the worker in time, so an answer at all means IDLE woke it (no clock is read).
    assert RENEW_IDLE > HANG
    env = worker_env(url, tmp_path, dovecot, smtp_server.port, GAME, 3600)
    worker = subprocess.Popen(["pbem", "worker"], env=env, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True)
    try:
        wait_until(lambda: len(wait_for_inbox(dovecot, "ann", 1, timeout=0)) == 1, "the opening mails")
        answer(dovecot, smtp_server, games, "ann@example.test")
        wait_until(lambda: games.get(1).state.moves == 1, "IDLE wakes the worker for Ann's move")
        # Drop the worker's IMAP connection in the middle of IDLE: it must reconnect and go on.
        kicked = subprocess.run(["doveadm", "-c", str(dovecot.directory / "dovecot.conf"), "kick", "game"],
                                capture_output=True, text=True, timeout=HANG)
        assert kicked.returncode == 0, kicked.stderr
        answer(dovecot, smtp_server, games, games.get(1).players[games.get(1).state.current_player()].email)
        wait_until(lambda: games.get(1).state.moves == 2, "the worker reconnects and applies the next move")
    finally:
        worker.send_signal(signal.SIGTERM)
        output, _ = worker.communicate(timeout=HANG)
    assert worker.returncode == 0, output
    assert "SIGTERM: finishing the current mail" in output and output.rstrip().endswith("stopped")
    assert "reconnecting" in output
    assert output.count(": applied") == 2
    engine.dispose()
