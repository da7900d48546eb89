"""Issue 47, points 3 and 4, for the notices a game's clock and its moderator make: reminders, deadlines that
passed (the moderator's and the game's own default), an absence, a watcher's daily mail, a player's daily
digest, a reminder digest of two games, and the moderator's changes (replace-player, a move played for a
player, undo). Each kind is driven once on both databases, and every mail any of them made opens with a
sentence and shows no address but its reader's own, the moderator's and the game's (test_notice_truth.py does
the same for a whole game's moves)."""

from __future__ import annotations

import re
from datetime import datetime, timedelta, timezone

from sqlmodel import Session, select

from pbem.mail.mailto import with_address
from pbem.services.clock.timekeeper import Timekeeper
from pbem.services.common.timing import Timing
from pbem.services.table.service import GameService
from pbem.store.models import OutboxMail, Watcher

ANN, BOB, CY, DEE, EVE, WAT = (f"{who}@example.org" for who in ("ann", "bob", "cy", "dee", "eve", "wat"))
MODERATOR = "mod@example.org"
GAME = "game@example.org"  # the game's own address: the sender writes it into the answer links (issue 44)
ADDRESS = re.compile(r"[\w.+-]+@[\w-]+(?:\.[\w-]+)+")
NAMES = {"Ann", "Bob", "Cy", "Dee", "Eve"}


def test_every_notice_kind_opens_with_a_sentence_and_shows_no_other_address(database_url: str) -> None:
    from pbem.store.db import make_engine

    engine = make_engine(database_url)
    now = [datetime(2026, 11, 23, 12, tzinfo=timezone.utc)]
    games = GameService(engine, clock=lambda: now[0], mail_domain="example.org")
    keeper = Timekeeper(games)
    game_id = games.create_game("fifth-avenue", [("Ann", ANN), ("Bob", BOB), ("Cy", CY)], seed=8,
                                timing=Timing().changed({"deadline": "48h", "bid-deadline": "48h",
                                                         "reminder": "50%", "on-timeout": "moderator"}))
    games.set_delivery(game_id, "digest", BOB)
    # Cy waits on a decision in a second game too: his reminders come together, in one digest.
    other = games.create_game("fifth-avenue", [("Cy", CY), ("Eve", EVE)], seed=9,
                              timing=Timing().changed({"deadline": "48h", "reminder": "50%"}))
    with Session(engine) as s:
        s.add(Watcher(game_id=game_id, email=WAT, since=now[0], due_at=now[0]))
        s.commit()
    kinds: dict[str, int] = {}

    def count(kind: str) -> None:
        with Session(engine) as s:
            kinds[kind] = len(s.exec(select(OutboxMail.id)).all())

    def play(moves: int) -> None:
        for _ in range(moves):
            info = games.get(game_id)
            games.submit(game_id, info.email_of(info.state.current_player()), info.state.legal_commands()[0])

    def wait(hours: int) -> None:
        """The worker's clock runs: a check every half hour (a longer gap would read as an outage)."""
        for _ in range(2 * hours):
            now[0] += timedelta(minutes=30)
            keeper.check()

    keeper.check()
    play(4)
    count("moves")
    wait(25)  # the reminders, the digest and the watcher's mail
    count("reminder, digest, watcher")
    wait(24)  # the deadline passed: the moderator is asked, the player told
    count("deadline")
    late = games.get(game_id)
    games.submit(game_id, late.email_of(late.state.current_player()), late.state.legal_commands()[0],
                 by="moderator", reason="asked by phone")
    count("played for a player")
    games.undo(game_id, steps=1, reason="a slip")
    count("undo")
    games.replace_player(game_id, BOB, DEE, "Dee", reason="Bob asked", moderator=MODERATOR)
    count("replace-player")
    day = (now[0] + timedelta(days=2)).date()
    games.absences.add(ANN, day, day + timedelta(days=2))
    count("absence")
    games.set_timing(game_id, {"on-timeout": "auto"}, reason="faster")
    play(3)
    wait(3 * 24)  # the game's default is played for the late player
    count("default played")

    with Session(engine) as s:
        mails = s.exec(select(OutboxMail).where(OutboxMail.recipient != MODERATOR).order_by(OutboxMail.id)).all()
    assert sorted(kinds.values()) == list(kinds.values()) and len(set(kinds.values())) == len(kinds), kinds
    for row in mails:
        first = row.text_body.strip().splitlines()[0]
        assert len(first.split()) >= 2 and first.rstrip(".:") not in NAMES, (row.recipient, first)
        sent_html = with_address(row.html_body or "", GAME)  # the HTML part as the sender sends it
        shown = set(ADDRESS.findall(row.text_body + sent_html)) - {row.recipient, MODERATOR, GAME}
        assert not shown, (row.recipient, row.subject, shown)
    said = {row.recipient: " ".join(r.text_body for r in mails if r.recipient == row.recipient) for row in mails}
    assert "You watch game" in said[WAT]
    for row in (row for row in mails if row.recipient == WAT):  # wrapped as every mail, the standings first
        assert all(len(line) <= 72 for line in row.text_body.splitlines()), row.text_body
        body = row.text_body
        assert body.index("Scores: ") < body.index("What happened:") < body.index("Board:"), body
    assert "Late:" in said[CY] and any(row.subject.startswith("[pbem] digest: your move in 2 games")
                                       for row in mails if row.recipient == CY)
    assert other != game_id
    assert any(row.text_body.startswith("Your daily mail") for row in mails if row.recipient in (BOB, DEE))
    assert any("Dee" in said[who] for who in (ANN, DEE))
