"""Signup by mail (issue 36, points 1, 2, 3, 7): strangers' mails read by MailCommands on both databases. A
mail's signup lines apply all or none; the reply names what was done and what was not (the line, why, what to
send instead); a stranger's mails that change nothing are answered once a day; a player's game mail with prose
that looks like a signup line stays a game mail."""

from __future__ import annotations

from email.message import EmailMessage
from email.utils import make_msgid

import pytest
from sqlmodel import Session, select

from pbem.config import SignupConfig
from pbem.services.mail_in.mail_commands import MailCommands
from pbem.services.table.service import GameService
from pbem.services.table.signup_words import code_in
from pbem.store.models import InboundMail, OutboxMail, SignupTable

ANN, BOB, CY, DEE = "ann@example.org", "bob@example.org", "cy@example.org", "dee@example.org"


def mail(body: str, *, sender: str, subject: str = "hello") -> bytes:
    msg = EmailMessage()
    msg["From"] = f"Someone <{sender}>"
    msg["To"] = "game@pbem.example"
    msg["Subject"] = subject
    msg["Message-ID"] = make_msgid(domain="client.example")
    msg.set_content(body)
    return bytes(msg)


@pytest.fixture
def games(db_engine) -> GameService:
    return GameService(db_engine, mail_domain="example.org")


@pytest.fixture
def commands(games: GameService) -> MailCommands:
    return MailCommands(games, moderator="mod@example.org", signup=SignupConfig(new="anyone"))


def handle(commands: MailCommands, raw: bytes):
    inbound = InboundMail(message_id=make_msgid(domain="x.example"), received_at=commands.games.clock())
    return commands.handle(raw, inbound=inbound)


def outbox(games: GameService) -> list[OutboxMail]:
    with Session(games.engine) as s:
        return list(s.exec(select(OutboxMail).order_by(OutboxMail.id)).all())


def inbound(games: GameService) -> list[InboundMail]:
    with Session(games.engine) as s:
        return list(s.exec(select(InboundMail).order_by(InboundMail.id)).all())


def answer_code(commands: MailCommands, games: GameService, email: str):
    """The stranger answers our confirmation mail as it is: the code comes back in its subject."""
    code_mail = [m for m in outbox(games) if m.recipient == email and "confirm code " in m.subject][-1]
    return handle(commands, mail("yes\n\n> quoted\n", sender=email, subject=f"Re: {code_mail.subject}"))


def test_strangers_open_confirm_join_and_start_a_game_by_mail(commands: MailCommands, games: GameService) -> None:
    report = handle(commands, mail("Hi,\nnew fifth-avenue players 3\nCheers, Ann", sender=ANN))
    assert report.outcome == "signup"
    (code_mail,) = [m for m in outbox(games) if m.recipient == ANN]  # the code's mail is the one answer (issue 42)
    assert code_in(code_mail.subject) and "Your mail, line by line:" in code_mail.text_body
    assert "'new fifth-avenue players 3': a code was mailed to ann@example.org" in " ".join(code_mail.text_body.split())
    assert inbound(games)[-1].outcome == "signup"  # recorded with its answer and its change

    report = answer_code(commands, games, ANN)
    assert report.outcome == "signup" and "table 1 is opened" in report.lines[0].note
    listing = handle(commands, mail("games", sender=DEE))
    assert listing.outcome == "signup-info" and "table 1: Fifth Avenue for 3 players" in listing.reply_body
    assert "ann@" not in listing.reply_body

    for email in (BOB, CY):
        handle(commands, mail("join 1", sender=email))
        report = answer_code(commands, games, email)
    assert "started as game 1" in report.lines[0].note
    assert [p.email for p in games.get(1).players] == [ANN, BOB, CY]


def test_a_mail_with_a_bad_line_changes_nothing_and_says_why(commands: MailCommands, games: GameService) -> None:
    report = handle(commands, mail("watch 1\njoin 4", sender=DEE))
    assert report.outcome == "signup-refused"
    assert [(r.line, r.status) for r in report.lines] == [("watch 1", "not done"), ("join 4", "not done")]
    assert "there is no game 1; instead: 'games' lists the running games" in report.reply_body
    assert "Nothing of your mail was applied" in report.reply_body
    with Session(games.engine) as s:
        assert s.exec(select(SignupTable)).all() == []
    assert [m.recipient for m in outbox(games)] == [DEE]  # the reply alone: no code was mailed

    report = handle(commands, mail("new chess", sender=BOB))
    assert report.outcome == "signup-refused"
    assert "pbem hosts no game called 'chess'; send for example 'new fifth-avenue or new manhattan'" \
        in " ".join(report.reply_body.split())


def test_a_stranger_is_answered_once_a_day_for_mails_that_change_nothing(commands: MailCommands,
                                                                         games: GameService) -> None:
    assert handle(commands, mail("games", sender=DEE)).reply_to == DEE
    second = handle(commands, mail("join 9", sender=DEE))
    assert second.reply_to is None and second.not_answered == "a stranger gets one reply a day"
    assert len([m for m in outbox(games) if m.recipient == DEE]) == 1


def test_moderator_only_by_default_and_a_game_mail_stays_a_game_mail(games: GameService) -> None:
    closed = MailCommands(games, moderator="mod@example.org")
    report = handle(closed, mail("new manhattan", sender=ANN))
    assert report.outcome == "signup-refused" and "only the moderator opens tables" in report.reply_body
    games.create_game("fifth-avenue", [("Ann", ANN), ("Bob", BOB)], seed=41)
    (email, legal), = games.legal(1)[1].items()
    report = handle(closed, mail(f"Start thinking about it\n{legal[0]}", sender=email,
                                 subject="Re: [Fifth Avenue #1] Ann, Bob"))
    assert report.outcome == "applied"


def test_over_the_hourly_limit_a_signup_mail_is_recorded_not_applied(commands: MailCommands,
                                                                    games: GameService) -> None:
    """A sender over the hourly limit of mails that change nothing (screening.over_limit) gets only a move read:
    a signup line is no move, so nothing is asked for, mailed or answered."""
    inbound_row = InboundMail(message_id=make_msgid(domain="x.example"), received_at=games.clock())
    report = commands.handle(mail("new fifth-avenue\nwatch 1", sender=DEE), inbound=inbound_row,
                             over_limit="rate limit: more than 60 mails")
    assert report.outcome == "ignored" and report.reply_to is None
    assert outbox(games) == [] and [r.outcome for r in inbound(games)] == ["ignored"]
