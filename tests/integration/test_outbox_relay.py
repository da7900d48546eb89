"""The outbox relay's thread against a real SMTP server: it sends when woken, drains, and stops cleanly."""

from __future__ import annotations

from pbem.config import MailConfig, ServerConfig
from pbem.services.table.service import GameService
from pbem.services.mail_out.relay import OutboxRelay
from pbem.store.models import utcnow
from pbem_testing.waiting import HANG, wait_until

PLAYERS = [("Ann", "ann@example.test"), ("Bob", "bob@example.test")]


def _relay(db_engine, smtp_server, **options) -> OutboxRelay:
    smtp = ServerConfig("127.0.0.1", smtp_server.port, "plain")
    mail = MailConfig(imap=smtp, smtp=smtp, game_address="game@example.test")
    return OutboxRelay(db_engine, mail, clock=utcnow, **options)


def _drained(db_engine, smtp_server) -> OutboxRelay:
    """A relay of three connections started, drained and stopped: what one round of it did."""
    relay = _relay(db_engine, smtp_server, interval=600, parallel=3)
    relay.start()
    try:
        assert relay.drain(HANG)
    finally:
        relay.stop()
    return relay


def test_the_relay_sends_what_is_queued_while_it_runs(db_engine, smtp_server, mailboxes) -> None:
    games = GameService(db_engine)
    games.create_game("fifth-avenue", PLAYERS, seed=1)
    relay = _relay(db_engine, smtp_server, interval=600)
    relay.start()
    try:
        assert relay.drain(HANG)  # what was queued before it started
        assert len(relay.take_report().sent) == 2
        games.create_game("fifth-avenue", PLAYERS, seed=2)
        relay.wake()
        wait_until(lambda: len(smtp_server.messages) >= 4, "the woken relay sends the new game's mails")
        assert len(smtp_server.messages) == 4  # woken: the interval (600 s) is longer than any wait
    finally:
        relay.stop()
    assert not relay.running
    assert len(mailboxes.wait_for("ann", 2)) == 2


def test_stopping_sends_what_is_due_first(db_engine, smtp_server, mailboxes) -> None:
    relay = _relay(db_engine, smtp_server, interval=600)
    relay.start()
    GameService(db_engine).create_game("fifth-avenue", PLAYERS, seed=3)  # queued, nobody wakes the relay
    relay.stop()
    assert len(relay.take_report().sent) == 2 and len(smtp_server.messages) == 2


def test_an_idle_relay_closes_its_connection(db_engine, smtp_server, mailboxes) -> None:
    GameService(db_engine).create_game("fifth-avenue", PLAYERS, seed=4)
    relay = _relay(db_engine, smtp_server, interval=600, idle=0.3)
    relay.start()
    try:
        assert relay.drain(HANG)
        wait_until(lambda: not relay.connected, "the idle relay closes its SMTP connection")
    finally:
        relay.stop()


def test_several_connections_send_every_mail_once(db_engine, smtp_server, mailboxes) -> None:
    games = GameService(db_engine)
    for seed in range(10):
        games.create_game("fifth-avenue", PLAYERS, seed=seed)
    relay = _drained(db_engine, smtp_server)
    ids = [m.data.split(b"Message-ID: ", 1)[1].split(b"\n", 1)[0] for m in smtp_server.messages]
    assert len(relay.take_report().sent) == 20 and len(ids) == 20 and len(set(ids)) == 20


def test_several_connections_to_a_server_that_is_down_leave_every_mail_queued(db_engine, smtp_server, mailboxes) -> None:
    from sqlmodel import Session, select

    from pbem.store.models import OutboxMail

    games = GameService(db_engine)
    for seed in range(3):
        games.create_game("fifth-avenue", PLAYERS, seed=seed)
    smtp_server.down()
    relay = _drained(db_engine, smtp_server)
    assert len(relay.take_report().retry) == 6
    with Session(db_engine) as s:
        assert {m.status for m in s.exec(select(OutboxMail)).all()} == {"queued"}
