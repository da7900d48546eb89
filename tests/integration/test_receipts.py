"""Issue 35, point 1: every mail that changes something is answered at once; a bid the auction answers later gets
a short receipt in the game's thread (text only, no board, at most 2 KB as sent), and a setting or talk gets its
reply saying whom the game waits for and when the player hears next (services, real databases)."""

from __future__ import annotations

from email.message import EmailMessage
from email.utils import make_msgid

from sqlmodel import Session, select

from pbem.adapters.outbox_sender import build_message
from pbem.games.rng import Rng
from pbem.services.mail_in.mail_commands import MailCommands
from pbem.services.mail_out.notices import game_subject, thread_root
from pbem.services.mail_out.receipts import is_receipt
from pbem.services.offline.simulate import choose
from pbem.services.table.service import GameService
from pbem.store.models import OutboxMail

ANN, BOB, CY = "ann@example.org", "bob@example.org", "cy@example.org"
PLAYERS = [("Ann", ANN), ("Bob", BOB), ("Cy", CY)]
GAME = "game@example.org"
MAX_RECEIPT = 2048  # bytes as sent, headers included


def mail(body: str, sender: str, game_id: int, in_reply_to: str = "") -> bytes:
    msg = EmailMessage()
    msg["From"] = f"Player <{sender}>"
    msg["To"] = GAME
    msg["Subject"] = f"Re: [Fifth Avenue #{game_id}]"
    msg["Message-ID"] = make_msgid(domain="client.example")
    if in_reply_to:
        msg["In-Reply-To"] = in_reply_to
    msg.set_content(body)
    return bytes(msg)


def since(engine, after: int) -> list[OutboxMail]:
    with Session(engine) as s:
        return list(s.exec(select(OutboxMail).where(OutboxMail.id > after).order_by(OutboxMail.id)).all())


def asking(engine, email: str) -> OutboxMail:
    with Session(engine) as s:
        return s.exec(select(OutboxMail).where(OutboxMail.recipient == email, OutboxMail.decision.is_not(None))
                      .order_by(OutboxMail.id.desc())).first()


def last_id(engine) -> int:
    found = since(engine, 0)
    return found[-1].id if found else 0


def test_a_bid_that_lets_the_auction_go_on_gets_a_short_receipt_in_the_thread(db_engine) -> None:
    games = GameService(db_engine, mail_domain="example.org")
    game_id = games.create_game("fifth-avenue", PLAYERS, seed=5)
    processor = MailCommands(games)
    rng = Rng(5)
    receipts: list[OutboxMail] = []
    while not receipts:
        info = games.get(game_id)
        assert not info.over, "no bid by mail let an auction go on"
        seat = info.state.current_player()
        legal = info.state.legal_commands()
        before = last_id(db_engine)
        if legal[0].split()[0] in ("bid", "pass"):
            command = next((c for c in legal if c.startswith("bid")), legal[0])
            asked = asking(db_engine, info.email_of(seat))  # a reply to the mail that asked, as a client sends it
            report = processor.handle(mail(command, info.email_of(seat), game_id, asked.message_id))
            assert report.outcome == "applied", report.lines
            made = since(db_engine, before)
            receipts = [m for m in made if is_receipt(m)]
        else:
            games.submit(game_id, info.email_of(seat), str(choose(info.state.legal_actions(), rng, "by-kind")))
    (receipt,) = receipts
    info = games.get(game_id)
    assert receipt.recipient == info.email_of(seat)
    assert not [m for m in made if m.recipient == receipt.recipient and not is_receipt(m)]  # no board mail owed
    # Text only, in the thread, under the game's one subject, small.
    assert receipt.html_body is None and receipt.picture is None and receipt.decision is None
    root = thread_root(info, games.mail_domain)
    assert receipt.headers["In-Reply-To"] == receipt.headers["References"] == root
    assert receipt.subject == game_subject(info)
    sent = build_message(receipt, GAME).as_bytes()
    assert len(sent) <= MAX_RECEIPT, len(sent)
    assert b"image/png" not in sent and b"text/html" not in sent
    text = " ".join(receipt.text_body.split())
    # What was recorded, who acts next, when the player hears next.
    assert text.startswith(f"Recorded: {command}"), text
    assert "Next: " in text and "You hear from the game again when you must decide" in text
    assert "auction" in text
    # The receipt does not count as told: the bidder's next game mail still tells of their bid.
    seats = {p.seat: p for p in info.players}
    assert seats[seat].told_seq < info.last_seq


def test_a_setting_by_mail_is_answered_with_who_acts_next_and_when_the_player_hears_next(db_engine) -> None:
    games = GameService(db_engine, mail_domain="example.org")
    game_id = games.create_game("manhattan", PLAYERS, seed=6)
    before = last_id(db_engine)
    report = MailCommands(games).handle(mail("mail digest", BOB, game_id))
    assert report.outcome == "settings"
    (reply,) = since(db_engine, before)
    assert reply.recipient == BOB and reply.html_body is None
    assert root_of(reply) == thread_root(games.get(game_id), games.mail_domain)
    text = " ".join(reply.text_body.split())
    assert "Next: Ann" in text, text
    assert "in your daily mail" in text  # the setting as it now is
    assert "auction" not in text.lower() and "bid" not in text.lower()  # Manhattan has none
    assert len(build_message(reply, GAME).as_bytes()) <= MAX_RECEIPT


def test_talk_is_answered_with_who_acts_next(db_engine) -> None:
    games = GameService(db_engine, mail_domain="example.org")
    game_id = games.create_game("fifth-avenue", PLAYERS, seed=7)
    before = last_id(db_engine)
    report = MailCommands(games).handle(mail("say good luck, everybody", CY, game_id))
    assert report.outcome == "talk"
    reply = next(m for m in since(db_engine, before) if m.recipient == CY)
    text = " ".join(reply.text_body.split())
    assert "Next: Ann" in text and "when an auction you bid in ends" in text, text


def root_of(mail: OutboxMail) -> str:
    return mail.headers["References"].split()[0]


def test_a_digest_player_hears_of_each_change_of_the_moderator_at_once_in_one_short_mail(db_engine) -> None:
    games = GameService(db_engine, mail_domain="example.org")
    game_id = games.create_game("fifth-avenue", PLAYERS, seed=8)
    games.set_delivery(game_id, "digest", BOB)
    (email, commands), = games.legal(game_id)[1].items()
    games.submit(game_id, email, commands[0])
    changes = {
        "undo": (lambda: games.undo(game_id, steps=1, reason="Ann misclicked"), "took back 1 command"),
        "deadline": (lambda: games.set_timing(game_id, {"deadline": "48h"}), "set the deadlines"),
        "pause": (lambda: games.set_status(game_id, "pause"), "paused the game"),
        "resume": (lambda: games.set_status(game_id, "resume"), "resumed the game"),
        "replace": (lambda: games.replace_player(game_id, CY, "dee@example.org", "Dee"), "seat 3 to Dee"),
    }
    root = thread_root(games.get(game_id), games.mail_domain)
    for name, (change, words) in changes.items():
        before = last_id(db_engine)
        change()
        to_bob = [m for m in since(db_engine, before) if m.recipient == BOB]
        assert len(to_bob) == 1, (name, [m.text_body for m in to_bob])
        (word,) = to_bob
        assert is_receipt(word) and word.html_body is None and word.picture is None, name
        assert word.headers["References"] == root and word.subject == "[Fifth Avenue #%d] Ann, Bob, Cy" % game_id
        text = " ".join(word.text_body.split())
        assert words in text and ("Next: " in text or "The game is paused" in text), (name, text)
        assert len(build_message(word, GAME).as_bytes()) <= MAX_RECEIPT, name


def test_a_move_that_asks_nothing_more_of_its_player_gets_a_receipt_and_the_next_player_the_board(db_engine) -> None:
    """Issue 47, point 2: 'Done: ...' was a whole board mail (39 KB as sent) to a player the game no longer waits
    for; now it is the receipt, and the move is told in the player's next game mail."""
    games = GameService(db_engine, mail_domain="example.org")
    game_id = games.create_game("manhattan", PLAYERS, seed=9)
    processor = MailCommands(games)
    info = games.get(game_id)
    command = info.state.legal_commands()[0]
    before = last_id(db_engine)
    report = processor.handle(mail(f"{command}\nSee you all next week!", ANN, game_id, asking(db_engine, ANN).message_id))
    assert report.outcome == "applied", report.lines
    made = since(db_engine, before)
    (receipt,) = [m for m in made if m.recipient == ANN]
    assert is_receipt(receipt) and receipt.html_body is None and receipt.picture is None
    assert len(build_message(receipt, GAME).as_bytes()) <= MAX_RECEIPT
    text = " ".join(receipt.text_body.split())
    assert text.startswith(f"Recorded: {command}"), text
    assert "Next: Bob" in text and "You hear from the game again when you must decide" in text, text
    assert "See you all next week!" in text  # what a board mail told of the mail's ignored line, the receipt tells
    (asked,) = [m for m in made if m.recipient == BOB]
    assert not is_receipt(asked) and asked.decision is not None  # Bob must decide: his mail has the board
    assert not [m for m in made if m.recipient == CY]  # Cy is asked nothing and was not mailed before either
    # Ann still learns of her move with the board, in her next game mail.
    while not [m for m in since(db_engine, before) if m.recipient == ANN and not is_receipt(m)]:
        info = games.get(game_id)
        games.submit(game_id, info.email_of(info.state.current_player()), info.state.legal_commands()[0])
    (board,) = [m for m in since(db_engine, before) if m.recipient == ANN and not is_receipt(m)]
    assert board.decision is not None and board.html_body
    assert "Ann" in board.text_body and command.split()[-1] in board.text_body


def test_a_player_who_asked_for_every_mail_gets_the_board_after_their_own_move(db_engine) -> None:
    games = GameService(db_engine, mail_domain="example.org")
    game_id = games.create_game("manhattan", PLAYERS, seed=10)
    games.set_delivery(game_id, "all", ANN)
    command = games.get(game_id).state.legal_commands()[0]
    before = last_id(db_engine)
    report = MailCommands(games).handle(mail(command, ANN, game_id, asking(db_engine, ANN).message_id))
    assert report.outcome == "applied", report.lines
    (board,) = [m for m in since(db_engine, before) if m.recipient == ANN]
    assert not is_receipt(board) and board.html_body
    assert board.text_body.startswith(f"Done: {command}") or f"Done: {command}" in board.text_body[:400]
