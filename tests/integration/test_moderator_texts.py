"""What the moderator's changes say, to the players and to the moderator (issue 13.7): commands taken back are
named with who played them, a replaced player is told at their old address, reasons show in the history and
the text export, and players are named, never numbered."""

from __future__ import annotations

import re
from datetime import date, datetime, timedelta, timezone

import pytest
from sqlmodel import Session, select

from pbem.services.table.absences import Absences
from pbem.services.table.service import GameService
from pbem.services.common.errors import BadRequest
from pbem.services.offline.transcript import export_text
from pbem.store.models import Absence, OutboxMail

PLAYERS = [("Ann", "ann@example.org"), ("Bob", "bob@example.org"), ("Cy", "cy@example.org")]
SEAT_NUMBER = re.compile(r"\b[Pp]layer \d\b")


@pytest.fixture
def service(db_engine) -> GameService:
    return GameService(db_engine)


def mails(engine, after: int = 0) -> list[OutboxMail]:
    with Session(engine) as s:
        return list(s.exec(select(OutboxMail).where(OutboxMail.id > after).order_by(OutboxMail.id)).all())


def last_mail_id(engine) -> int:
    found = mails(engine)
    return found[-1].id if found else 0


def play_placement(service: GameService, game_id: int) -> None:
    while True:
        (email, commands), = service.legal(game_id)[1].items()
        if not commands[0].startswith("place"):
            return
        service.submit(game_id, email, commands[0])


def test_the_undo_mail_names_the_commands_taken_back_and_who_played_them(service, db_engine) -> None:
    game_id = service.create_game("fifth-avenue", PLAYERS, seed=3)
    play_placement(service, game_id)
    service.submit(game_id, "ann@example.org", "A")
    (_, commands), = service.legal(game_id)[1].items()
    cards = commands[0]
    service.submit(game_id, "ann@example.org", cards)
    before = last_mail_id(db_engine)
    target, undone = service.undo(game_id, steps=2, reason="she changed her mind")
    assert len(undone) == 2
    sent = mails(db_engine, before)
    assert sorted(m.recipient for m in sent) == sorted(email for _, email in PLAYERS)  # the moderator's change
    for mail in sent:
        said = " ".join(mail.text_body.split())
        assert (f"The moderator took back 2 commands: Ann's 'A' and Ann's '{cards}'; the board is the game as it "
                "stands now. The moderator says: she changed her mind") in said, said
        assert f"event {target}" not in said and "command(s)" not in said
    # Ann is asked again: her mail's first line asks; the others' first line says what the moderator did
    info = service.get(game_id)
    (asked,) = [m for m in sent if m.decision is not None]
    assert asked.recipient == "ann@example.org" and asked.decision == info.state.moves
    assert asked.text_body.startswith("Your turn: choose an action")
    assert all(m.text_body.startswith("The moderator took back 2 commands") for m in sent if m is not asked)


def test_one_command_taken_back_is_singular(service, db_engine) -> None:
    game_id = service.create_game("fifth-avenue", PLAYERS, seed=3)
    play_placement(service, game_id)
    service.submit(game_id, "ann@example.org", "A")
    before = last_mail_id(db_engine)
    service.undo(game_id, steps=1)
    said = " ".join(mails(db_engine, before)[0].text_body.split())
    assert "The moderator took back 1 command: Ann's 'A'; the board is the game as it stands now." in said


def test_an_undo_that_puts_commands_back_says_so(service, db_engine) -> None:
    game_id = service.create_game("fifth-avenue", PLAYERS, seed=3)
    play_placement(service, game_id)
    done = service.submit(game_id, "ann@example.org", "A")
    service.undo(game_id, steps=1)
    before = last_mail_id(db_engine)
    service.undo(game_id, to=done.last_seq)
    said = " ".join(mails(db_engine, before)[0].text_body.split())
    assert "put back 1 command: Ann's 'A'" in said


def test_a_replaced_player_is_told_at_the_old_address(service, db_engine) -> None:
    game_id = service.create_game("fifth-avenue", PLAYERS, seed=4)
    before = last_mail_id(db_engine)
    first = mails(db_engine, 0)[0]
    service.replace_player(game_id, "bob@example.org", "dora@example.org", "Dora", reason="Bob moved abroad",
                           moderator="mod@example.org")
    sent = mails(db_engine, before)
    to_bob = [m for m in sent if m.recipient == "bob@example.org"]
    assert len(to_bob) == 1
    (told,) = to_bob
    said = " ".join(told.text_body.split())
    # The game's one subject, set when it was created, and its thread: every mail of the change is in it.
    assert {m.subject for m in sent} == {first.subject} == {f"[Fifth Avenue #{game_id}] Ann, Bob, Cy"}
    assert {m.headers["References"] for m in sent} == {first.headers["References"]}
    assert told.headers["In-Reply-To"] == first.headers["References"]
    assert "write to the moderator, mod@example.org." in said
    assert f"You no longer play in Fifth Avenue #{game_id}" in said
    assert "gave your seat (seat 2) to Dora" in said and "The moderator says: Bob moved abroad" in said
    assert "dora@example.org" not in said  # the new player's address is not the old player's business
    assert told.html_body is None and told.game_id == game_id
    assert sorted(m.recipient for m in sent if m is not told) == ["ann@example.org", "cy@example.org",
                                                                    "dora@example.org"]


def test_reasons_and_names_show_in_the_text_export(service) -> None:
    game_id = service.create_game("fifth-avenue", PLAYERS, seed=5)
    (email, commands), = service.legal(game_id)[1].items()
    service.submit(game_id, email, commands[0], by="moderator", reason="Ann asked by phone")
    service.undo(game_id, steps=1, reason="she changed her mind")
    service.replace_player(game_id, "bob@example.org", "dora@example.org", "Dora", reason="Bob moved abroad")
    service.set_status(game_id, "pause", reason="holidays")
    service.set_timing(game_id, {"deadline": "48h"}, reason="we play faster now")
    text = export_text(service.export(game_id))
    for reason in ("Ann asked by phone", "she changed her mind", "Bob moved abroad", "holidays",
                   "we play faster now"):
        assert f"the moderator's reason: {reason}" in text, text
    assert "as Ann (by the moderator)" in text and "seat 1: Ann <ann@example.org>" in text
    assert "Ann placed a skyscraper" in text
    assert not SEAT_NUMBER.search(text), SEAT_NUMBER.search(text)


def test_the_text_export_names_players_in_effects_written_with_seat_numbers(service) -> None:
    # an export from elsewhere (or an older pbem) may carry engine texts with seat numbers
    game_id = service.create_game("fifth-avenue", PLAYERS, seed=5)
    (email, commands), = service.legal(game_id)[1].items()
    service.submit(game_id, email, commands[0])
    doc = service.export(game_id)
    doc["events"][-1]["data"]["effects"] = ["player 2 declared a building stop in Times Square"]
    text = export_text(doc)
    assert "Bob declared a building stop in Times Square" in text and not SEAT_NUMBER.search(text)


def test_mails_of_a_whole_game_never_number_the_players(service, db_engine) -> None:
    game_id = service.create_game("fifth-avenue", PLAYERS, seed=6)
    for _ in range(60):
        info, legal = service.legal(game_id)
        if not legal:
            break
        (email, commands), = legal.items()
        service.submit(game_id, email, commands[len(commands) // 2])
    service.undo(game_id, steps=3)
    for mail in mails(db_engine):
        found = SEAT_NUMBER.search(mail.text_body)
        assert not found, (mail.subject, mail.text_body[max(0, found.start() - 200):found.end() + 100])


# --------------------------------------------------------------------------- absences (services.table.absences)


def test_absences_live_in_their_own_module(db_engine) -> None:
    now = datetime(2026, 11, 23, 12, 0, tzinfo=timezone.utc)
    service = GameService(db_engine, clock=lambda: now)
    game_id = service.create_game("fifth-avenue", PLAYERS, seed=7)
    absences = Absences(service)
    first, last = date(2026, 11, 24), date(2026, 11, 26)
    absences.check("ann@example.org", first, last)
    with pytest.raises(BadRequest):
        absences.check("ann@example.org", date(2026, 11, 20), date(2026, 11, 22))  # in the past
    before = last_mail_id(db_engine)
    assert service.absences.add("Ann@Example.org", first, last) == [game_id]
    with Session(db_engine) as s:
        (away,) = s.exec(select(Absence)).all()
        assert away.email == "ann@example.org"
    told = mails(db_engine, before)
    # Ann gets the answer to her absence; the others hear of it in their next mail (it asks nothing of them)
    assert [m.recipient for m in told] == ["ann@example.org"]
    said = " ".join(told[0].text_body.split())
    assert "Ann will be away from Tuesday 24 November to Thursday 26 November 2026" in said, said
    assert "Any deadline of yours that falls in that time moves 3 days later." in said
    (email, commands), = service.legal(game_id)[1].items()
    service.submit(game_id, email, commands[0])
    later = [m for m in mails(db_engine, before) if m.recipient != "ann@example.org"]
    assert later and all("Ann will be away from Tuesday 24 November" in " ".join(m.text_body.split()) for m in later)
    assert not hasattr(service, "add_absence") and not hasattr(service, "check_absence")
    assert timedelta(days=3) == (last + timedelta(days=1)) - first
