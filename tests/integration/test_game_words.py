"""Issue 35, point 9: words that fit the game. Every kind of mail of each game, made through the real services
(start, moves, the moderator's changes, reminders, late notices, the daily mail, talk, absences, settings,
receipts, help, the deadlines), the archive's record of the game and what `pbem game set` answers are searched
for the other game's words: Manhattan has no bids or auctions, Fifth Avenue no cities of Manhattan's board."""

from __future__ import annotations

import os
import re
from datetime import timedelta
from email.message import EmailMessage
from email.utils import make_msgid

import pytest
from typer.testing import CliRunner
from sqlmodel import Session, select

from pbem.archive.history import record
from pbem.cli import app
from pbem.services.mail_in.mail_commands import MailCommands
from pbem.services.mail_out import notices
from pbem.services.mail_out.help_text import first_mail_help, mail_help
from pbem.services.table.service import GameService
from pbem.store.models import OutboxMail

ANN, BOB, CY = "ann@example.org", "bob@example.org", "cy@example.org"
PLAYERS = [("Ann", ANN), ("Bob", BOB), ("Cy", CY)]
TITLES = {"fifth-avenue": "Fifth Avenue", "manhattan": "Manhattan"}
FOREIGN = {  # words of the other game that must never show in this game's texts
    "manhattan": re.compile(r"\bbid|\bbids\b|\bbidding\b|auction", re.I),
    "fifth-avenue": re.compile(r"\b(Sydney|Frankfurt|Hong ?Kong|S[aã]o Paulo|Cairo|Kairo)\b|\bstor(y|ies)\b", re.I),
}


def mail(body: str, sender: str, kind: str, game_id: int) -> bytes:
    msg = EmailMessage()
    msg["From"] = sender
    msg["To"] = "game@example.org"
    msg["Subject"] = f"Re: [{TITLES[kind]} #{game_id}]"
    msg["Message-ID"] = make_msgid(domain="client.example")
    msg.set_content(body)
    return bytes(msg)


def every_text(games: GameService, kind: str) -> list[str]:
    """The texts of a game of ``kind`` that players and the archive read: its mails of every kind, the help."""
    game_id = games.create_game(kind, PLAYERS, seed=11)
    games.set_delivery(game_id, "digest", CY)
    processor = MailCommands(games, moderator="mod@example.org")
    for word in ("help", "legal", "board", "hand", "history", "mail all", "pictures off", "say hello all",
                 "moderator is this right?", "away 2030-01-02 to 2030-01-05"):
        processor.handle(mail(word, BOB, kind, game_id))
    for _ in range(40):  # moves by mail, bids included where the game has them
        info = games.get(game_id)
        if info.over:
            break
        seat = info.state.current_player()
        processor.handle(mail(info.state.legal_commands()[-1], info.email_of(seat), kind, game_id))
    games.undo(game_id, steps=1, reason="a slip")
    games.set_timing(game_id, {"deadline": "48h"})
    games.set_status(game_id, "pause")
    games.set_status(game_id, "resume")
    games.resend(game_id)
    info = games.get(game_id)
    seat = info.state.current_player()
    now = info.updated_at + timedelta(days=3)
    made = [notices.reminder(info, seat, games.new_message_id, now),
            notices.late_notice(info, seat, timedelta(hours=5), games.new_message_id, now),
            notices.daily(info, 2, games.new_message_id, now)]
    games.replace_player(game_id, BOB, "dee@example.org", "Dee", reason="Bob left", moderator="mod@example.org")
    info = games.get(game_id)
    texts = [*(m.text_body for m in made if m), *(m.html_body or "" for m in made if m)]
    texts += ["\n".join(mail_help(info, s, moderator="mod@example.org")) for s in range(3)]
    texts += ["\n".join(first_mail_help(info)), info.timing.describe(auctions=kind == "fifth-avenue")]
    with Session(games.engine) as s:
        rows = s.exec(select(OutboxMail).where(OutboxMail.game_id == game_id)).all()
    assert len(rows) > 40
    kinds = {("receipt" if m.headers.get("X-Pbem-Receipt") else "html" if m.html_body else "text") for m in rows}
    assert kinds == {"receipt", "html", "text"}, kinds
    archived = record(games.engine, game_id)
    texts += [f"{name}: {value}" for name, value in archived.settings]
    return texts + [m.subject for m in rows] + [m.text_body for m in rows] + [m.html_body or "" for m in rows]


@pytest.mark.parametrize("kind", ["manhattan", "fifth-avenue"])
def test_no_text_of_a_game_has_the_other_games_words(db_engine, kind: str) -> None:
    games = GameService(db_engine, mail_domain="example.org")
    found = {match.group(0) for text in every_text(games, kind) for match in FOREIGN[kind].finditer(text)}
    assert not found, found


@pytest.mark.parametrize("kind", ["manhattan", "fifth-avenue"])
def test_the_moderators_deadline_confirmation_fits_the_game(tmp_path, kind: str) -> None:
    """`pbem game set ID deadline=...` answers with the deadlines in the game's own words."""
    runner = CliRunner()
    env = {"PBEM_CONFIG": os.devnull}
    db = ["--db", f"sqlite:///{tmp_path / 'pbem.sqlite3'}"]
    for args in (["db", "upgrade"], ["game", "new", kind, "-p", f"Ann={ANN}", "-p", f"Bob={BOB}", "-p", f"Cy={CY}"]):
        assert runner.invoke(app, [*db, *args], env=env).exit_code == 0
    said = runner.invoke(app, [*db, "game", "set", "1", "deadline=48h"], env=env)
    assert said.exit_code == 0, said.output
    assert "for a decision" in said.output, said.output
    assert not FOREIGN[kind].search(said.output), said.output
    assert ("for a bid" in said.output) == (kind == "fifth-avenue"), said.output
