"""Issue 15 over real servers (Dovecot, an SMTP server in front of it): table talk, the moderator's word, the
delivery setting by mail, one subject and a sender's name."""

from __future__ import annotations

from email.utils import parseaddr

import pytest

from pbem.config import MailConfig, ServerConfig
from pbem.services.table.service import GameService
from pbem.worker import MailWorker
from pbem.store.db import make_engine

from test_worker_mail import GAME, PLAYERS, inbox, reply_like_a_client, send, wait_for_inbox

MODERATOR = "dee@example.test"


@pytest.fixture
def config(dovecot, smtp_server, mailboxes) -> MailConfig:
    return MailConfig(
        imap=ServerConfig(dovecot.host, dovecot.imap_port, "plain", "game", "secret"),
        smtp=ServerConfig("127.0.0.1", smtp_server.port, "plain"),
        game_address=GAME, poll_interval=1, moderator=MODERATOR,
    )


def test_say_moderator_and_mail_setting_in_one_mail_with_a_command(dovecot, smtp_server, config,
                                                                    database_url: str) -> None:
    engine = make_engine(database_url)
    games = GameService(engine, mail_domain="example.test")
    game_id = games.create_game("fifth-avenue", PLAYERS, seed=21)
    worker = MailWorker(engine, config)
    worker.run_once()
    subject = f"[Fifth Avenue #{game_id}] Ann, Bob, Cy"
    start = wait_for_inbox(dovecot, "ann", 1)[-1]
    assert start["Subject"] == subject
    assert parseaddr(start["From"]) == (f"Fifth Avenue #{game_id} (pbem)", GAME)
    command = games.get(game_id).state.legal_commands()[0]

    send(smtp_server, reply_like_a_client(start, PLAYERS[0][1], "\n".join([
        command,
        "say Hello all,",
        "I am new here: be patient with me.",
        "end",
        "moderator Which cards do I have?",
        "mail digest",
        "Thanks!",
    ])))
    report = worker.run_once()
    assert [outcome for _, _, outcome in report.processed] == ["applied"], report.processed
    assert games.get(game_id).players[0].delivery == "digest"
    assert [h.kind for h in games.history(game_id)][-3:] == ["command", "say", "to_moderator"]

    for user in ("bob", "cy"):
        said = [m for m in wait_for_inbox(dovecot, user, 2) if "Ann says:" in m.get_body(("plain",)).get_content()]
        assert len(said) == 1, user
        body = said[0].get_body(("plain",)).get_content()
        assert body.splitlines()[0] == "Ann says: Hello all,"
        assert "I am new here: be patient with me." in body
        assert said[0]["Subject"] == subject and "Which cards" not in body
    to_moderator = wait_for_inbox(dovecot, "dee", 1)[-1]
    assert "Which cards do I have?" in to_moderator.get_body(("plain",)).get_content()
    assert "Ann <ann@example.test>" in to_moderator.get_body(("plain",)).get_content()

    confirmation = [m for m in inbox(dovecot, "ann")[1:]]
    text = "\n".join(m.get_body(("plain",)).get_content() for m in confirmation)
    assert "relayed to Bob and Cy" in text and "relayed to the moderator" in text
    assert "mail digest: from now on you get the mails of 'mail digest'" in text
    assert "Thanks!" not in text  # a sign-off is the player's courtesy, not a line to report as ignored
    assert all(m["Subject"] in (subject, f"Re: {subject}") for m in confirmation)

    # The moderator answers by replying: the answer reaches Ann, and only Ann.
    send(smtp_server, reply_like_a_client(to_moderator, MODERATOR, "Your hand is at the end of every game mail."))
    before = {user: len(inbox(dovecot, user)) for user in ("ann", "bob", "cy")}
    report = worker.run_once()
    assert [outcome for _, _, outcome in report.processed] == ["talk"], report.processed
    answer = wait_for_inbox(dovecot, "ann", before["ann"] + 1)[-1]
    assert answer.get_body(("plain",)).get_content().splitlines()[0] == (
        "The moderator says to Ann: Your hand is at the end of every game mail.")
    assert answer["Subject"] == subject
    assert {user: len(inbox(dovecot, user)) for user in ("bob", "cy")} == {u: before[u] for u in ("bob", "cy")}
    assert "Your answer was relayed to ann@example.test" in wait_for_inbox(dovecot, "dee", 2)[-1].get_body(
        ("plain",)).get_content()
    engine.dispose()
