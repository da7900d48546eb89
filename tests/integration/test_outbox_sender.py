"""Sending the outbox through a real SMTP server: retries, permanent failures, no row sent twice."""

from __future__ import annotations

import asyncio
from datetime import timedelta
from email import message_from_bytes

from sqlmodel import Session, select

from pbem.adapters.outbox_sender import MAX_ATTEMPTS, build_message, claim, send_pending
from pbem.config import ServerConfig
from pbem.services.table.service import GameService
from pbem.services.common.ledger import MailLedger
from pbem.store.models import OutboxMail, utcnow

PLAYERS = [("Ann", "ann@example.test"), ("Bob", "bob@example.test")]


def statuses(engine) -> list[str]:
    with Session(engine) as s:
        return list(s.exec(select(OutboxMail.status).order_by(OutboxMail.id)).all())


def test_mails_go_out_and_land_in_the_players_inboxes(db_engine, smtp_server, mailboxes) -> None:
    GameService(db_engine).create_game("fifth-avenue", PLAYERS, seed=1)
    smtp = ServerConfig("127.0.0.1", smtp_server.port, "plain")
    report = asyncio.run(send_pending(db_engine, smtp, "game@example.test"))
    assert len(report.sent) == 2 and statuses(db_engine) == ["sent", "sent"]
    ann = mailboxes.wait_for("ann", 1)
    assert len(ann) == 1
    assert asyncio.run(send_pending(db_engine, smtp, "game@example.test")).sent == []  # nothing twice


def test_a_server_that_is_down_or_busy_delays_mail_and_a_refusal_fails_it(db_engine, smtp_server, mailboxes) -> None:
    GameService(db_engine).create_game("fifth-avenue", PLAYERS, seed=2)
    smtp = ServerConfig("127.0.0.1", smtp_server.port, "plain")
    smtp_server.down()
    report = asyncio.run(send_pending(db_engine, smtp, "game@example.test"))
    assert len(report.retry) == 2 and statuses(db_engine) == ["queued", "queued"]
    smtp_server.up()
    assert asyncio.run(send_pending(db_engine, smtp, "game@example.test")).sent == []  # backing off
    later = lambda: utcnow() + timedelta(minutes=5)  # noqa: E731
    smtp_server.refuse_with(451)
    assert len(asyncio.run(send_pending(db_engine, smtp, "game@example.test", clock=later)).retry) == 2
    smtp_server.refuse_with(550)
    much_later = lambda: utcnow() + timedelta(hours=2)  # noqa: E731
    report = asyncio.run(send_pending(db_engine, smtp, "game@example.test", clock=much_later))
    assert len(report.failed) == 2 and statuses(db_engine) == ["failed", "failed"]
    with Session(db_engine) as s:
        assert all(m.last_error.startswith("550") and m.attempts == 3 for m in s.exec(select(OutboxMail)).all())


def test_a_claim_is_a_lease_that_expires(db_engine) -> None:
    GameService(db_engine).create_game("fifth-avenue", PLAYERS, seed=3)
    now = utcnow()
    first = claim(db_engine, now)
    assert len(first) == 2 and claim(db_engine, now) == []  # nobody else takes them
    again = claim(db_engine, now + timedelta(minutes=11))  # the first claimer died: the lease ran out
    assert [m.id for m in again] == [m.id for m in first] and all(m.attempts == 2 for m in again)


def test_failed_mails_can_be_queued_again(db_engine, smtp_server, mailboxes) -> None:
    from pbem.services.common.errors import BadRequest
    from pbem.services.mail_out.outbox import MailNotFound, OutboxService

    GameService(db_engine).create_game("fifth-avenue", PLAYERS, seed=4)
    smtp = ServerConfig("127.0.0.1", smtp_server.port, "plain")
    smtp_server.refuse_with(550)
    assert len(asyncio.run(send_pending(db_engine, smtp, "game@example.test")).failed) == 2
    smtp_server.refuse_with(None)
    outbox = OutboxService(db_engine)
    first, second = [e.id for e in outbox.list()]
    assert outbox.retry([first]) == [first]
    assert statuses(db_engine) == ["queued", "failed"]
    try:
        outbox.retry([first])
        raise AssertionError("a queued mail cannot be retried")
    except BadRequest as exc:
        assert "not failed" in exc.message
    try:
        outbox.retry([999])
        raise AssertionError("no such mail")
    except MailNotFound:
        pass
    assert outbox.retry() == [second]
    assert len(asyncio.run(send_pending(db_engine, smtp, "game@example.test")).sent) == 2


def test_one_pass_sends_more_than_one_claim(db_engine, smtp_server, mailboxes) -> None:
    GameService(db_engine).create_game("fifth-avenue", PLAYERS, seed=5)
    GameService(db_engine).create_game("fifth-avenue", PLAYERS, seed=6)
    smtp = ServerConfig("127.0.0.1", smtp_server.port, "plain")
    report = asyncio.run(send_pending(db_engine, smtp, "game@example.test", limit=3))
    assert len(report.sent) == 4 and statuses(db_engine) == ["sent"] * 4


def test_a_server_that_cannot_be_reached_is_tried_once_per_pass(db_engine, smtp_server, mailboxes) -> None:
    GameService(db_engine).create_game("fifth-avenue", PLAYERS, seed=7)
    GameService(db_engine).create_game("fifth-avenue", PLAYERS, seed=8)
    smtp = ServerConfig("127.0.0.1", smtp_server.port, "plain")
    smtp_server.down()
    report = asyncio.run(send_pending(db_engine, smtp, "game@example.test", limit=3))
    # The first connection failed: nothing else was claimed, and the claimed mails wait for their next attempt.
    assert len(report.retry) == 3 and statuses(db_engine) == ["queued"] * 4
    with Session(db_engine) as s:
        attempts = [m.attempts for m in s.exec(select(OutboxMail).order_by(OutboxMail.id)).all()]
    assert attempts == [1, 1, 1, 0]


def test_a_crash_in_the_middle_of_a_send_is_retried_after_the_lease(db_engine, smtp_server, mailboxes) -> None:
    """A pass that died after claiming (the rows stay in ``sending``): nobody sends them before the lease runs
    out, the next pass after it does, and a row whose every try died is given up, not tried forever."""
    GameService(db_engine).create_game("fifth-avenue", PLAYERS, seed=4)
    smtp = ServerConfig("127.0.0.1", smtp_server.port, "plain")
    now = utcnow()
    dead = claim(db_engine, now, limit=1)  # the pass that claimed this row died before sending it
    assert statuses(db_engine) == ["sending", "queued"]
    report = asyncio.run(send_pending(db_engine, smtp, "game@example.test", clock=lambda: now))
    assert report.sent == [dead[0].id + 1] and statuses(db_engine) == ["sending", "sent"]
    later = now + timedelta(minutes=11)
    report = asyncio.run(send_pending(db_engine, smtp, "game@example.test", clock=lambda: later))
    assert report.sent == [dead[0].id] and statuses(db_engine) == ["sent", "sent"]
    assert len(mailboxes.wait_for("ann", 1)) == 1

    GameService(db_engine).create_game("fifth-avenue", PLAYERS, seed=5)
    moment = later
    for _ in range(MAX_ATTEMPTS):  # every pass that claims it dies before it is sent
        moment += timedelta(minutes=11)
        assert len(claim(db_engine, moment)) == 2
    report = asyncio.run(send_pending(db_engine, smtp, "game@example.test", clock=lambda: moment + timedelta(minutes=11)))
    assert len(report.failed) == 2 and statuses(db_engine)[2:] == ["failed", "failed"]


def test_a_mail_that_can_never_be_sent_fails_at_once_and_holds_up_nothing(db_engine, smtp_server, mailboxes) -> None:
    ledger = MailLedger(db_engine)
    assert ledger.queue_mail("k\u00e4the@example.test", "a reply", "Hello.") is None  # never queued now ...
    with Session(db_engine) as s:  # ... but a row from before that check, or written by hand, fails at once
        now = utcnow()
        s.add(OutboxMail(recipient="k\u00e4the@example.test", subject="a reply", headers={}, text_body="Hello.",
                         next_attempt_at=now, message_id="<old@pbem.invalid>", created_at=now))
        s.commit()
    ledger.queue_mail("ann@example.test", "a reply", "Hello.", in_reply_to="<a\r\nX-Injected: 1@evil>")
    smtp = ServerConfig("127.0.0.1", smtp_server.port, "plain")
    report = asyncio.run(send_pending(db_engine, smtp, "game@example.test"))
    assert len(report.failed) == 1 and len(report.sent) == 1 and statuses(db_engine) == ["failed", "sent"]
    with Session(db_engine) as s:
        assert "not an address" in s.exec(select(OutboxMail).order_by(OutboxMail.id)).first().last_error
    (answer,) = mailboxes.wait_for("ann", 1)
    assert b"X-Injected" not in answer and b"In-Reply-To" not in answer.split(b"\r\n\r\n")[0]


def test_each_part_goes_in_its_smallest_transfer_encoding() -> None:
    """Issue 35, point 5: an HTML part is ASCII with character references for the rest (7bit: no =3D for every
    attribute's =), an ASCII text part 7bit, a text part with other characters quoted-printable (readable, and
    a third smaller than base64 for mostly-ASCII text); a line too long for a mail makes its part quoted-printable."""
    mail = OutboxMail(game_id=1, recipient="zoe@example.test", subject="[Fifth Avenue #1] Zoë",
                      text_body="Zoë placed – a 5\n", html_body='<p class="x">Zoë placed – a 5</p>\n', headers={})
    text, html = build_message(mail, "game@example.test").get_payload()
    assert text["Content-Transfer-Encoding"] == "quoted-printable"
    assert text.get_payload(decode=True).decode() == "Zoë placed – a 5\n"
    assert html["Content-Transfer-Encoding"] == "7bit"
    assert html.get_payload() == '<p class="x">Zo&#235; placed &#8211; a 5</p>\n'
    mail.text_body, mail.html_body = "Ann placed a 5\n", "<p>" + "x" * 1000 + "</p>\n"
    text, html = build_message(mail, "game@example.test").get_payload()
    assert text["Content-Transfer-Encoding"] == "7bit"
    assert html["Content-Transfer-Encoding"] == "quoted-printable"
    assert html.get_payload(decode=True).decode() == mail.html_body


def test_a_mail_is_built_with_boundaries_of_its_own_that_no_part_holds() -> None:
    """Issue 45, point 8: each multipart of a mail gets a random boundary when it is built (the email package's
    own, chosen when the mail is flattened, is searched for in the whole mail, a tenth of the flattening), one
    that no part holds, and the mail reads back whole."""
    mail = OutboxMail(game_id=1, recipient="zoe@example.test", subject="[Fifth Avenue #1] your turn",
                      text_body="--==\nAnn placed a 5\n", html_body="<p>--==Ann placed a 5</p>\n", headers={},
                      picture=None)
    built = build_message(mail, "game@example.test")
    other = build_message(mail, "game@example.test")
    assert built.get_boundary() and other.get_boundary() and built.get_boundary() != other.get_boundary()
    flat = built.as_bytes()
    assert all(built.get_boundary().encode() not in part.as_bytes() for part in built.get_payload())
    again = message_from_bytes(flat)
    assert [part.get_payload(decode=True) for part in again.get_payload()] == [
        b"--==\nAnn placed a 5\n", b"<p>--==Ann placed a 5</p>\n"]


def test_a_claim_is_flushed_on_an_engine_whose_commits_are_not(db_engine) -> None:
    """The worker's engines commit without waiting for the disk; a mail may go out only once the commit that
    queued it is on disk (docs/architecture.md, "Power cuts"). The claim's transaction is the flushed one (SQLite:
    synchronous=FULL for it, which syncs the -wal file with every commit before it; PostgreSQL: a synchronous
    commit, which waits for the log up to its own record); the 'sent' mark after it is not, and on PostgreSQL it is
    one statement that commits by itself (one round trip, not three)."""
    from sqlalchemy import event

    from pbem.adapters.outbox_sender import _mark_sent
    from pbem.store.db import make_engine

    GameService(db_engine).create_game("fifth-avenue", PLAYERS, seed=4)
    engine = make_engine(db_engine.url.render_as_string(hide_password=False), flushed=False)
    said: list[str] = []
    event.listen(engine, "before_cursor_execute", lambda _c, _cur, statement, *_: said.append(" ".join(statement.split())))
    alone: list[bool] = []  # PostgreSQL: the statement commits by itself, no BEGIN and COMMIT around it
    event.listen(engine, "before_cursor_execute", lambda c, *_: alone.append(
        c.dialect.name == "postgresql" and c.connection.dbapi_connection.autocommit))
    flush = "PRAGMA synchronous=FULL" if engine.dialect.name == "sqlite" else "SET LOCAL synchronous_commit TO on"
    try:
        mails = claim(engine, utcnow())
        assert len(mails) == 2
        claimed = next(n for n, statement in enumerate(said) if statement.startswith("UPDATE outbox"))
        assert flush in said[:claimed], said
        said.clear()
        assert not any(alone)
        alone.clear()
        _mark_sent(engine, mails[0].id, utcnow())
        assert flush not in said and any(statement.startswith("UPDATE outbox") for statement in said), said
        assert alone == ([True] if engine.dialect.name == "postgresql" else [False] * len(alone))
    finally:
        engine.dispose()
