"""The worker's handling of one mail (``MailWorker.process``), without the servers: loops and floods."""

from __future__ import annotations

from email.message import EmailMessage
from email.utils import make_msgid

from pbem.config import MailConfig, ServerConfig
from pbem.services.table.service import GameService
from pbem.worker import MailWorker

GAME = "game@example.test"
ANN, BOB = "ann@example.test", "bob@example.test"


def _mail(sender: str, body: str) -> bytes:
    message = EmailMessage()
    message["From"], message["To"], message["Subject"] = sender, GAME, "Re: [Fifth Avenue #1] your turn"
    message["Message-ID"] = make_msgid(domain="client.example.test")
    message.set_content(body + "\n")
    return bytes(message)


def _worker(db_engine, rate_limit: int) -> MailWorker:
    nowhere = ServerConfig("127.0.0.1", 9, "plain")
    return MailWorker(db_engine, MailConfig(imap=nowhere, smtp=nowhere, game_address=GAME), rate_limit=rate_limit)


def test_moves_are_never_rate_limited_but_mail_that_applies_nothing_is(db_engine) -> None:
    games = GameService(db_engine)
    games.create_game("fifth-avenue", [("Ann", ANN), ("Bob", BOB)], seed=3)
    worker = _worker(db_engine, rate_limit=3)
    uid = 0

    def send(sender: str, body: str) -> str:
        nonlocal uid
        uid += 1
        return worker.process(_mail(sender, body), "INBOX", 1, uid)[2]

    # A quick player: more moves in an hour than the limit, all applied.
    moves = 0
    while moves < 8:
        state = games.get(1).state
        seat = state.current_player()
        assert send((ANN, BOB)[seat], state.legal_commands()[0]) == "applied"
        moves += 1
    # A loop: mail that changes nothing is answered three times, then only recorded.
    outcomes = [send(BOB, "board") for _ in range(5)]
    assert outcomes[:3] == ["info"] * 3
    assert outcomes[3:] == ["ignored (rate limit: more than 3 mails from bob@example.test in an hour that changed "
                            "nothing; only a move is read until the hour is over)"] * 2
    assert send(ANN, "board") == "info"  # per sender
    # Over the limit, a move is still read and applied (with a question, which is not answered).
    state = games.get(1).state
    mover = (ANN, BOB)[state.current_player()]
    for _ in range(5):
        send(mover, "board")
    assert send(mover, f"{state.legal_commands()[0]}\nboard") == "applied"


def _bounce() -> bytes:
    report = EmailMessage()
    report["From"], report["To"] = "MAILER-DAEMON@mx.example.test", GAME
    report["Subject"], report["Message-ID"] = "Undelivered Mail Returned to Sender", make_msgid(domain="mx.example.test")
    report.set_content("The mail to ann@example.test could not be delivered.\n")
    report.replace_header("Content-Type", 'multipart/report; report-type="delivery-status"; boundary="x"')
    return bytes(report)


def _moderator_mails(db_engine) -> list:
    from sqlmodel import Session, select

    from pbem.store.models import OutboxMail

    with Session(db_engine) as s:
        return list(s.exec(select(OutboxMail).where(OutboxMail.recipient == "dee@example.test")).all())


def test_a_bounce_is_told_to_the_moderator_and_an_auto_reply_is_not(db_engine) -> None:
    nowhere = ServerConfig("127.0.0.1", 9, "plain")
    worker = MailWorker(db_engine, MailConfig(imap=nowhere, smtp=nowhere, game_address=GAME,
                                              moderator="dee@example.test"))
    auto = EmailMessage()
    auto["From"], auto["To"], auto["Subject"] = ANN, GAME, "Out of office"
    auto["Auto-Submitted"], auto["Message-ID"] = "auto-replied", make_msgid(domain="example.test")
    auto.set_content("Back on Monday.\n")
    assert worker.process(bytes(auto), "INBOX", 1, 1)[2] == "ignored (Auto-Submitted: auto-replied)"
    assert _moderator_mails(db_engine) == []
    assert worker.process(_bounce(), "INBOX", 1, 2)[2].startswith("ignored (multipart/report")
    (told,) = _moderator_mails(db_engine)
    assert told.subject == "[pbem] moderator: a bounce from mailer-daemon@mx.example.test"
    assert "Undelivered Mail Returned to Sender" in told.text_body and "replace-player" in told.text_body


def test_an_exchange_auto_reply_with_only_x_auto_response_suppress_is_recorded_and_not_answered(db_engine) -> None:
    from sqlmodel import Session, select

    from pbem.store.models import InboundMail, OutboxMail

    GameService(db_engine).create_game("fifth-avenue", [("Ann", ANN), ("Bob", BOB)], seed=3)
    worker = _worker(db_engine, rate_limit=60)
    with Session(db_engine) as s:
        queued = len(s.exec(select(OutboxMail).where(OutboxMail.recipient == ANN)).all())
    mail = EmailMessage()  # what Exchange sends while Ann is away: no Auto-Submitted, no Precedence
    mail["From"], mail["To"], mail["Subject"] = ANN, GAME, "Automatic reply: [Fifth Avenue #1] your turn"
    mail["X-Auto-Response-Suppress"], mail["Message-ID"] = "All", make_msgid(domain="example.test")
    mail.set_content("board\n")  # were it answered, this would get the board back
    folder, who, outcome, _ = worker.process(bytes(mail), "INBOX", 1, 1)
    assert (folder, who, outcome) == ("pbem-rejected", ANN, "ignored (X-Auto-Response-Suppress header)")
    with Session(db_engine) as s:
        (record,) = s.exec(select(InboundMail)).all()
        assert (record.outcome, record.reason, record.sender) == ("ignored", "X-Auto-Response-Suppress header", ANN)
        assert len(s.exec(select(OutboxMail).where(OutboxMail.recipient == ANN)).all()) == queued
