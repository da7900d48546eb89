"""Issue 36 through the real worker on Dovecot, both databases: three strangers open, confirm, join and start a
game by mail and play it to its first auction; an observer watches it and never sees a hand; a player resigns
and a robot takes over; a server on the default settings refuses a table opened by mail, and stricter settings
refuse what they should. One game a database,
no sleeps: the worker's passes are run one by one, its clock moved by hand."""

from __future__ import annotations

import re
from datetime import datetime, timedelta, timezone
from email.message import EmailMessage
from email.utils import make_msgid

from pbem.config import SignupConfig
from pbem.services.table.service import GameService
from pbem.store.db import make_engine
from pbem.worker import MailWorker
from pbem_testing.clock import StoppedClock

from test_worker_mail import GAME, inbox, mail_config, reply_like_a_client, send  # noqa: F401, I001

ANN, BOB, CY, DEE = (f"{user}@example.test" for user in ("ann", "bob", "cy", "dee"))


def new_mail(sender: str, text: str, subject: str = "pbem") -> EmailMessage:
    msg = EmailMessage()
    msg["From"], msg["To"], msg["Subject"] = sender, GAME, subject
    msg["Message-ID"] = make_msgid(domain="client.example.test")
    msg.set_content(text)
    return msg


def text_of(mail: EmailMessage) -> str:
    return mail.get_body(("plain",)).get_content().replace("\r\n", "\n")


def user(address: str) -> str:
    return address.split("@")[0]


def test_strangers_start_a_game_by_mail_watch_it_and_resign(dovecot, smtp_server, mail_config,
                                                           database_url: str) -> None:
    engine = make_engine(database_url)
    clock = StoppedClock(datetime.now(timezone.utc))
    worker = MailWorker(engine, mail_config, clock=clock, signup=SignupConfig(new="anyone"))
    games = GameService(engine, mail_domain="example.test", clock=clock)
    strict: MailWorker | None = None  # the worker of the last part, on stricter settings

    def mail_in(message: EmailMessage, outcome: str) -> None:
        send(smtp_server, message)
        report = (strict or worker).run_once()
        assert [found for _, _, found in report.processed] == [outcome], report.processed

    def confirm(address: str) -> None:
        """Answer our mail with the code as it is, as a mail client's Reply does."""
        code_mail = next(m for m in reversed(inbox(dovecot, user(address)))
                         if "confirm code " in str(m["Subject"]))
        mail_in(reply_like_a_client(code_mail, address, "yes"), "signup")

    # A server on the default settings: only the moderator opens tables; the stranger is told so, nothing made.
    closed = MailWorker(engine, mail_config, clock=clock)
    send(smtp_server, new_mail(DEE, "new fifth-avenue"))
    assert [found for _, _, found in closed.run_once().processed] == ["signup-refused"]
    (refusal,) = inbox(dovecot, "dee")
    assert "only the moderator opens tables" in " ".join(text_of(refusal).split())

    # Three strangers: Ann opens a table, Bob and Cy join; each confirms by answering the code mail.
    mail_in(new_mail(ANN, "Hello!\nnew fifth-avenue players 3\nAnn"), "signup")
    assert any("a code was mailed to ann@example.test" in " ".join(text_of(m).split()) for m in inbox(dovecot, "ann"))
    confirm(ANN)
    mail_in(new_mail(BOB, "games"), "signup-info")
    listing = text_of(inbox(dovecot, "bob")[-1])
    assert "table 1: Fifth Avenue for 3 players" in listing and "Ann" in listing and "@" not in listing
    mail_in(new_mail(BOB, "join 1 as Bobby"), "signup")
    confirm(BOB)
    mail_in(new_mail(CY, "join 1"), "signup")
    confirm(CY)  # the last seat: the game starts
    info = games.get(1)
    assert [(p.name, p.email) for p in info.players] == [("Ann", ANN), ("Bobby", BOB), ("Cy", CY)]
    secrets = {}
    for player in info.players:
        first = next(m for m in inbox(dovecot, user(player.email)) if str(m["Subject"]).startswith("[Fifth Avenue #1]"))
        secrets[player.email] = re.search(r"secret ([a-z]+-[a-z]+)", " ".join(text_of(first).split())).group(1)
        assert secrets[player.email] == player.secret

    # An observer: Dee watches game 1, by the name she chose; the players read of her in their next game mail.
    before = {p: len(inbox(dovecot, user(p))) for p in (ANN, BOB, CY)}
    mail_in(new_mail(DEE, "watch 1 as Dee"), "signup")
    confirm(DEE)
    assert {p: len(inbox(dovecot, user(p))) for p in (ANN, BOB, CY)} == before  # no mail of its own

    def play(moves: int) -> None:
        for _ in range(moves):
            state = games.get(1).state
            if state.frames[-1]["kind"] == "auction":
                return
            seat = state.current_player()
            email = info.players[seat].email
            legal = state.legal_commands()
            command = next((c for c in legal if c.startswith("D ")), None) or \
                next((c for c in legal if c.startswith("A")), legal[0])
            request = next(m for m in reversed(inbox(dovecot, user(email))) if m["X-Pbem-Decision"] is not None)
            mail_in(reply_like_a_client(request, email, f"secret {secrets[email]}\n{command}"), "applied")

    play(6)
    assert all(any("Dee now watches the game" in " ".join(text_of(m).split()) for m in inbox(dovecot, user(p)))
               for p in (ANN, BOB, CY))
    clock.now += timedelta(days=1, minutes=1)  # Dee's day is over: the worker's pass mails the public side
    worker.run_once()
    watched = [m for m in inbox(dovecot, "dee") if str(m["Subject"]).startswith("[Fifth Avenue #1]")]
    assert len(watched) == 1 and "You watch game 1" in text_of(watched[0])
    play(60)
    assert games.get(1).state.frames[-1]["kind"] == "auction"  # the first auction
    assert any("Your hand:" in text_of(m) for m in inbox(dovecot, "ann"))  # players see their hands
    for mail in inbox(dovecot, "dee"):  # the observer never does, nor a secret word
        body = text_of(mail)
        assert "Your hand:" not in body and "HANDS" not in body and not any(w in body for w in secrets.values())

    # Cy resigns (with the seat's word): a robot takes the seat, everybody is told.
    mail_in(new_mail(CY, f"resign 1\nsecret {secrets[CY]}", subject="Re: [Fifth Avenue #1] Ann, Bobby, Cy"), "signup")
    cy = games.get(1).players[2]
    assert cy.robot and cy.name == "Cy (robot)"
    for address in (ANN, BOB):
        assert any("Cy resigned" in " ".join(text_of(m).split()) for m in inbox(dovecot, user(address)))

    # Each setting refuses what it should: [signup] new = players keeps the stranger Dee from opening a table
    # and lets Bob, who plays, open one; approve = yes keeps it closed to Dee until the moderator approves it;
    # open_per_address = 1 refuses Bob a second one.
    strict = MailWorker(engine, mail_config, clock=clock,
                        signup=SignupConfig(new="players", approve=True, open_per_address=1))
    mail_in(new_mail(DEE, "new manhattan"), "signup-refused")
    mail_in(new_mail(BOB, "new manhattan players 2"), "signup")
    confirm(BOB)
    assert "waits for the moderator's approval" in " ".join(text_of(inbox(dovecot, "bob")[-1]).split())
    mail_in(new_mail(DEE, "join 2"), "signup-refused")
    mail_in(new_mail(BOB, "new fifth-avenue"), "signup-refused")
    assert "you have 1 open table already" in " ".join(text_of(inbox(dovecot, "bob")[-1]).split())
    engine.dispose()
