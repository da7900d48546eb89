"""A person plays by mail against robots (issue 19, point 1), through the real worker, Dovecot and SMTP: the
robots answer in the same pass as the person's move, so the next request follows at once; a mail that claims
to come from a robot is ignored, never played."""

from __future__ import annotations

import asyncio
from email import policy
from email.message import EmailMessage
from email.parser import BytesParser
from email.utils import make_msgid

import aiosmtplib
import pytest
from sqlmodel import Session, select

from pbem.config import MailConfig, ServerConfig
from pbem.services.table.service import GameService
from pbem.worker import MailWorker
from pbem.store.db import make_engine
from pbem.store.models import Event, InboundMail, OutboxMail

GAME = "game@example.test"
ANN = ("Ann", "ann@example.test")


@pytest.fixture
def mail_config(dovecot, smtp_server, mailboxes) -> MailConfig:
    return MailConfig(imap=ServerConfig(dovecot.host, dovecot.imap_port, "plain", "game", "secret"),
                      smtp=ServerConfig("127.0.0.1", smtp_server.port, "plain"), game_address=GAME, poll_interval=1)


def mail(sender: str, body: str, game_id: int, replying_to: bytes | None = None) -> EmailMessage:
    """A player's mail: a reply to ``replying_to`` (the raw mail that asked), as a mail client writes one."""
    message = EmailMessage()
    message["From"], message["To"] = sender, GAME
    message["Subject"] = f"Re: [Fifth Avenue #{game_id}] your turn"
    message["Message-ID"] = make_msgid(domain="client.example.test")
    if replying_to is not None:
        asked = BytesParser(policy=policy.default).parsebytes(replying_to)
        message["In-Reply-To"] = asked["Message-ID"]
        message["References"] = f"{asked['References']} {asked['Message-ID']}"
    message.set_content(body + "\n")
    return message


def send(smtp_server, message: EmailMessage) -> None:
    asyncio.run(aiosmtplib.send(message, hostname="127.0.0.1", port=smtp_server.port))


def robot_moves(engine, game_id: int) -> int:
    with Session(engine) as s:
        return len(s.exec(select(Event).where(Event.game_id == game_id, Event.source == "robot")).all())


def test_a_person_plays_robots_by_mail_and_nobody_plays_a_robot_by_forging_its_address(
        dovecot, smtp_server, mailboxes, mail_config, sqlite_url) -> None:
    engine = make_engine(sqlite_url)
    games = GameService(engine, mail_domain="example.test")
    game_id = games.create_game("fifth-avenue", [("Robo", "robot"), ANN, ("Maxi", "robot")], seed=5)
    worker = MailWorker(engine, mail_config)
    worker.run_once()  # the robots open, then Ann is asked
    info = games.get(game_id)
    assert info.state.current_player() == 1  # Ann
    # The game's first mail, then the request that tells of the robots' moves together, not one mail a move.
    opening = [BytesParser(policy=policy.default).parsebytes(raw) for raw in mailboxes.wait_for("ann", 2)]
    assert len(opening) == 2 and "WHAT YOU MAY SEND NOW" in opening[-1].get_body(("plain",)).get_content()

    answered = 0
    for _ in range(4):  # Ann's decisions: after each, the robots play within the pass that applied it
        info = games.get(game_id)
        robots_before = robot_moves(engine, game_id)
        inbox = mailboxes.messages("ann")
        received = len(inbox)
        send(smtp_server, mail(f"Ann <{ANN[1]}>", info.state.legal_commands()[-1], game_id, replying_to=inbox[-1]))
        worker.run_once()
        after = games.get(game_id)
        assert after.state.moves > info.state.moves
        assert after.over or after.state.current_player() == 1  # Ann's decision again, in the same pass
        robots_answered = robot_moves(engine, game_id) > robots_before
        answered += robots_answered
        # One mail answers each of hers: her move and the robots' answers, not "Done" and then "Your turn".
        got = mailboxes.wait_for("ann", received + 1)
        with Session(engine) as s:
            waiting = s.exec(select(OutboxMail).where(OutboxMail.recipient == ANN[1],
                                                      OutboxMail.status.in_(("queued", "sending")))).all()
        assert not waiting and len(got) == received + 1, [m.status for m in waiting]
        if robots_answered:  # it asks her next decision, and tells her move and the robots' answers
            newest = BytesParser(policy=policy.default).parsebytes(got[-1])
            text = " ".join(newest.get_body(("plain",)).get_content().split())
            assert newest["X-Pbem-Decision"] == str(after.state.moves) or after.over
            assert "You played: " in text and "(robot) played: " in text
    assert answered >= 2  # (a turn of several phases is Ann's alone)
    newest = BytesParser(policy=policy.default).parsebytes(mailboxes.messages("ann")[-1])
    assert "Robo (robot) played: " in newest.get_body(("plain",)).get_content()

    robot = info.players[0].email
    moves = games.get(game_id).state.moves
    send(smtp_server, mail(f"Robo <{robot}>", "pass", game_id))
    worker.run_once()
    with Session(engine) as s:
        forged = s.exec(select(InboundMail).where(InboundMail.sender == robot)).one()
        robot_commands = s.exec(select(Event).where(Event.game_id == game_id, Event.kind == "command",
                                                    Event.seat == 0)).all()
    assert forged.outcome == "ignored" and "robot" in forged.reason
    assert games.get(game_id).state.moves == moves and all(e.source == "robot" for e in robot_commands)
    engine.dispose()
