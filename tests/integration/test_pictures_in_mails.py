"""The picture of the board in game mails: queued as a recipe, drawn by the sender as a related part of the
HTML, the same for every reader who sees the same board, and off for a player (by mail) or a game (by the
moderator) who does not want it."""

from __future__ import annotations

import json
from email import message_from_bytes, policy

import pytest
from sqlmodel import Session, select

from pbem.adapters.outbox_sender import build_message
from pbem.render.pictures import board_picture
from pbem.render.pictures import mail as pictures
from pbem.services.table.service import GameService
from pbem.services.mail_in.mail_commands import MailCommands
from pbem.store.models import OutboxMail

PLAYERS = [("Ann", "ann@example.test"), ("Bob", "bob@example.test"), ("Cy", "cy@example.test")]
GAME = "game@example.test"


def newest(engine, recipient: str) -> OutboxMail:
    with Session(engine) as s:
        return s.exec(select(OutboxMail).where(OutboxMail.recipient == recipient)
                      .order_by(OutboxMail.id.desc())).first()


def parts_of(mail: OutboxMail):
    """The message as sent, read back: (its content types in order, the image parts by Content-ID)."""
    sent = message_from_bytes(build_message(mail, GAME).as_bytes(), policy=policy.default)
    types = [part.get_content_type() for part in sent.walk()]
    images = {part["Content-ID"].strip("<>"): part.get_content() for part in sent.walk()
              if part.get_content_type() == "image/png"}
    return types, images


@pytest.mark.parametrize("kind", ["fifth-avenue", "manhattan"])
def test_a_game_mail_carries_its_board_as_a_picture_related_to_its_html(db_engine, kind: str) -> None:
    games = GameService(db_engine, mail_domain="example.test")
    game_id = games.create_game(kind, PLAYERS, seed=3)
    mail = newest(db_engine, "ann@example.test")
    assert mail.picture is not None and "hand" not in mail.picture["view"]  # no hand is kept for the drawing
    types, images = parts_of(mail)
    assert types == ["multipart/alternative", "text/plain", "multipart/related", "text/html", "image/png"]
    (cid, png), = images.items()
    assert f'src="cid:{cid}"' in mail.html_body and png.startswith(b"\x89PNG")
    # Drawn from the recipe as stored (JSON), it is the very picture of the reader's live view.
    info = games.get(game_id)
    live = board_picture(kind, info.state.view(0), players=[name for name, _ in PLAYERS])
    assert png == live
    assert json.loads(json.dumps(mail.picture)) == mail.picture


def test_fifth_avenues_readers_share_one_picture_and_manhattans_readers_each_see_their_side(db_engine) -> None:
    games = GameService(db_engine, mail_domain="example.test")
    games.create_game("fifth-avenue", PLAYERS, seed=4)
    cids = {pictures.content_id(newest(db_engine, email).picture) for _, email in PLAYERS}
    assert len(cids) == 1  # the public board: drawn once for all three
    games.create_game("manhattan", PLAYERS, seed=4)
    manhattan = [newest(db_engine, email) for _, email in PLAYERS]
    assert all(m.picture["kind"] == "manhattan" for m in manhattan)
    assert len({pictures.content_id(m.picture) for m in manhattan}) == 3  # each from their side of the table


def test_plain_mails_carry_no_picture(db_engine) -> None:
    from pbem.services.mail_out import notices

    mail = notices.plain_mail("ann@example.test", "hello", ["A few words."], lambda: "<x@example.test>",
                              __import__("datetime").datetime(2026, 11, 25))
    types, images = parts_of(mail)
    assert mail.picture is None and images == {} and "image/png" not in types


def _mail_from(sender: str, game_id: int, body: str) -> bytes:
    return (f"From: {sender}\nTo: {GAME}\nSubject: [Fifth Avenue #{game_id}] board\n"
            f"Message-ID: <p-{abs(hash(body))}@client.test>\n\n{body}\n").encode()


def test_a_player_turns_pictures_off_and_on_by_mail(db_engine) -> None:
    games = GameService(db_engine, mail_domain="example.test")
    game_id = games.create_game("fifth-avenue", PLAYERS, seed=5)
    commands = MailCommands(games, moderator="")
    report = commands.handle(_mail_from("bob@example.test", game_id, "pictures off"))
    assert any("no picture" in effect for effect in report.effects), report.effects
    games.resend(game_id)
    bob, ann = newest(db_engine, "bob@example.test"), newest(db_engine, "ann@example.test")
    assert bob.picture is None and "cid:" not in bob.html_body and parts_of(bob)[1] == {}
    assert ann.picture is not None  # only Bob's own mails
    commands.handle(_mail_from("bob@example.test", game_id, "pictures on"))
    games.resend(game_id)
    assert newest(db_engine, "bob@example.test").picture is not None


def test_a_wrong_pictures_setting_is_refused_saying_what_it_may_be(db_engine) -> None:
    games = GameService(db_engine, mail_domain="example.test")
    game_id = games.create_game("fifth-avenue", PLAYERS, seed=6)
    report = MailCommands(games, moderator="").handle(_mail_from("bob@example.test", game_id, "pictures maybe"))
    assert report.outcome == "rejected"
    refused = [line for line in report.lines if line.status == "not done"]
    assert refused and "'pictures on'" in refused[-1].note and "'pictures off'" in refused[-1].note


def test_the_moderator_turns_a_games_pictures_off_and_a_players_own_choice_wins(db_engine) -> None:
    games = GameService(db_engine, mail_domain="example.test")
    game_id = games.create_game("fifth-avenue", PLAYERS, seed=7)
    assert games.set_pictures(game_id, "no") == "off"
    games.set_pictures(game_id, "on", "cy@example.test")
    games.resend(game_id)
    assert newest(db_engine, "ann@example.test").picture is None
    assert newest(db_engine, "cy@example.test").picture is not None
    exported = games.export(game_id)
    assert exported["game"]["pictures"] == "off"
    assert [p.get("pictures") for p in exported["players"]] == [None, None, "on"]
    again = games.get(games.import_game(exported))
    assert again.pictures == "off" and [p.pictures for p in again.players] == [False, False, True]


def test_the_sender_draws_a_position_once_for_all_its_readers(db_engine) -> None:
    games = GameService(db_engine, mail_domain="example.test")
    games.create_game("fifth-avenue", PLAYERS, seed=8)
    mails = [newest(db_engine, email) for _, email in PLAYERS]
    pictures._drawn.cache_clear()
    for mail in mails:
        build_message(mail, GAME)
    info = pictures._drawn.cache_info()
    assert (info.misses, info.hits) == (1, 2)



def test_a_manhattan_mail_marks_the_city_of_the_newest_build(db_engine) -> None:
    """The mails after a build mark its city in the picture (render.pictures.manhattan draws the mark), and the
    mark is part of what the picture is drawn from, so the drawing differs from an unmarked one."""
    games = GameService(db_engine, mail_domain="example.test")
    game_id = games.create_game("manhattan", PLAYERS, seed=9)
    assert "mark" not in newest(db_engine, "ann@example.test").picture  # nothing built yet
    while True:
        info = games.get(game_id)
        seat = info.state.current_player()
        legal = info.state.legal_commands()
        command = next((c for c in legal if c.startswith("play ")), legal[0])
        with Session(db_engine) as s:
            before = max(mail.id for mail in s.exec(select(OutboxMail)).all())
        games.submit(game_id, PLAYERS[seat][1], command)
        if command.startswith("play "):
            break
    city = command.split()[2]
    with Session(db_engine) as s:
        mailed = [mail for mail in s.exec(select(OutboxMail).where(OutboxMail.id > before)).all()
                  if mail.picture is not None]
    assert mailed
    assert {mail.picture.get("mark") for mail in mailed} == {city}
    marked = next(mail.picture for mail in mailed if mail.picture is not None)
    unmarked = {key: value for key, value in marked.items() if key != "mark"}
    assert pictures.picture(marked)[1] != pictures.picture(unmarked)[1]
