"""The worker keeps the archive's web site current, and its mails point players to it.

With ``[archive] dir`` the mail worker brings the site up to date at the end of every pass, so a page is never
more than one pass behind the game; with ``[archive] url`` the mail that ends a game and the answer to
``history`` carry the game page's address. Real Dovecot and SMTP, as the players would have them.
"""

from __future__ import annotations

import asyncio
import re
from email import policy
from email.message import EmailMessage
from email.parser import BytesParser
from email.utils import make_msgid
from pathlib import Path

import aiosmtplib
import pytest
from sqlalchemy import update

from pbem.archive.history import set_archived
from pbem.config import ArchiveConfig, MailConfig, ServerConfig
from pbem.games import get_game
from pbem.services.table.service import GameService
from pbem.worker import MailWorker
from pbem.store.db import make_engine
from pbem.store.models import OutboxMail, OutboxStatus
from pbem_testing.archive_games import random_commands, submit_commands

GAME = "game@example.test"
PLAYERS = (("Ann", "ann@example.test"), ("Bob", "bob@example.test"), ("Cy", "cy@example.test"))
URL = "https://games.example.org/archive"


@pytest.fixture
def mail_config(dovecot, smtp_server, mailboxes) -> MailConfig:
    return MailConfig(imap=ServerConfig(dovecot.host, dovecot.imap_port, "plain", "game", "secret"),
                      smtp=ServerConfig("127.0.0.1", smtp_server.port, "plain"), game_address=GAME, poll_interval=1)


def mail_from(player: tuple[str, str], body: str) -> EmailMessage:
    message = EmailMessage()
    message["From"] = f"{player[0]} <{player[1]}>"
    message["To"] = GAME
    message["Subject"] = "Re: [Fifth Avenue #1] Ann, Bob, Cy"
    message["Message-ID"] = make_msgid(domain="client.example.test")
    message.set_content(body + "\n")
    return message


def send_mail(smtp_server, message: EmailMessage) -> None:
    asyncio.run(aiosmtplib.send(message, hostname="127.0.0.1", port=smtp_server.port))


def text_of(raw: bytes) -> str:
    return BytesParser(policy=policy.default).parsebytes(raw).get_body(("plain",)).get_content()


def game_but_its_last(url: str, archive: ArchiveConfig, *, seed: int, left: int, archived: bool = True):
    """A Fifth Avenue game played through the service to its last ``left`` commands, whose mails went out long
    ago: (engine, game service, game number, every command of the game)."""
    engine = make_engine(url)
    games = GameService(engine, mail_domain="example.test", archive=archive)
    game_id = games.create_game("fifth-avenue", list(PLAYERS), seed=seed)
    set_archived(engine, game_id, archived)
    commands = random_commands("fifth-avenue", 3, seed)
    submit_commands(games, game_id, PLAYERS, commands[:-left])
    with engine.begin() as connection:
        connection.execute(update(OutboxMail).values(status=OutboxStatus.SENT))
    return engine, games, game_id, commands


def steps_on(page: Path) -> int:
    return len(re.findall(r'id="step-\d+"', page.read_text()))


def test_the_worker_keeps_the_site_one_pass_behind_at_most_and_mails_link_to_it(
        tmp_path, dovecot, smtp_server, mailboxes, mail_config, sqlite_url) -> None:
    archive = ArchiveConfig(folder=tmp_path / "site", url=URL)
    engine, games, game_id, commands = game_but_its_last(sqlite_url, archive, seed=41, left=2)
    worker = MailWorker(engine, mail_config, archive=archive)

    worker.run_once()
    page = archive.folder / "games" / f"{game_id}.html"
    assert page.is_file() and (archive.folder / "index.html").is_file()
    shown = steps_on(page)

    seat, command = commands[-2]
    send_mail(smtp_server, mail_from(PLAYERS[seat], command))
    worker.run_once()
    assert steps_on(page) == shown + 1  # the pass that applied the move also drew it

    send_mail(smtp_server, mail_from(PLAYERS[seat], "history"))
    worker.run_once()
    answer = mailboxes.wait_for(PLAYERS[seat][1].split("@")[0], 1)[-1]
    assert f"{URL}/games/{game_id}.html" in text_of(answer)

    last_seat, last = commands[-1]
    send_mail(smtp_server, mail_from(PLAYERS[last_seat], last))
    worker.run_once()
    assert games.get(game_id).over and steps_on(page) == shown + 2
    state = games.get(game_id).state
    hands = [get_game("fifth-avenue").hand_text(state.view(seat)) for seat in range(3)]
    assert all(hand in page.read_text() for hand in hands if hand)  # after the game nothing is secret
    for name, address in PLAYERS:
        mails = mailboxes.wait_for(address.split("@")[0], 1)
        assert f"The whole game, move by move: {URL}/games/{game_id}.html" in text_of(mails[-1]), name
    engine.dispose()


def test_a_game_left_out_of_the_archive_has_no_page_and_its_mails_no_link(
        tmp_path, dovecot, smtp_server, mailboxes, mail_config, sqlite_url) -> None:
    archive = ArchiveConfig(folder=tmp_path / "site", url=URL)
    engine, games, game_id, commands = game_but_its_last(sqlite_url, archive, seed=42, left=1, archived=False)
    seat, last = commands[-1]
    send_mail(smtp_server, mail_from(PLAYERS[seat], last))
    MailWorker(engine, mail_config, archive=archive).run_once()
    assert games.get(game_id).over
    assert not (archive.folder / "games" / f"{game_id}.html").exists()
    mails = mailboxes.wait_for(PLAYERS[seat][1].split("@")[0], 1)
    assert "move by move" not in text_of(mails[-1]) and URL not in text_of(mails[-1])
    engine.dispose()
