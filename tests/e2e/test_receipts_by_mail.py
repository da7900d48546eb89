"""Issue 35, points 1 and 7, through the real worker on Dovecot: a bid by mail that lets the auction go on is
answered at once by a receipt without a board, and every mail of the game, the notice to a replaced player
included, is in the game's one thread under its one subject."""

from __future__ import annotations

from sqlmodel import Session, select

from pbem.demo.players import listed_commands
from pbem.games.rng import Rng
from pbem.services.offline.simulate import choose
from pbem.services.table.service import GameService
from pbem.store.db import make_engine
from pbem.store.models import Game
from pbem.worker import MailWorker

from test_worker_mail import PLAYERS, inbox, mail_config, reply_like_a_client, send, wait_for_request  # noqa: F401, I001

SUBJECT = "[Fifth Avenue #1] Ann, Bob, Cy"


def test_a_bid_gets_a_receipt_and_the_game_keeps_one_thread(dovecot, smtp_server, mail_config,
                                                            database_url: str) -> None:
    engine = make_engine(database_url)
    games = GameService(engine, mail_domain="example.test")
    game_id = games.create_game("fifth-avenue", PLAYERS, seed=12)
    worker = MailWorker(engine, mail_config)
    worker.run_once()
    rng = Rng(12)
    receipt = None
    for _ in range(200):
        state = games.get(game_id).state
        seat = state.current_player()
        user = PLAYERS[seat][1].split("@")[0]
        request = wait_for_request(dovecot, user, state.moves)
        text = request.get_body(("plain",)).get_content().replace("\r\n", "\n")
        listed = listed_commands(text)
        bids = [c for c in listed if c.startswith("bid ")]
        command = bids[0] if bids else choose(listed, rng, "uniform")
        before = len(inbox(dovecot, user))
        send(smtp_server, reply_like_a_client(request, PLAYERS[seat][1], command))
        report = worker.run_once()
        assert [outcome for _, _, outcome in report.processed] == ["applied"], report.processed
        new = inbox(dovecot, user)[before:]
        receipts = [m for m in new if m["X-Pbem-Receipt"] == "yes"]
        if bids and receipts:
            (receipt,) = receipts
            assert len(new) == 1  # the receipt alone: no board mail owed
            break
    assert receipt is not None, "no bid by mail let an auction go on"
    assert receipt.get_content_type() == "text/plain" and not receipt.is_multipart()
    as_sent = b"".join(line + b"\n" for line in receipt.as_bytes().split(b"\n")
                       if not line.lower().startswith((b"received:", b"return-path:", b"delivered-to:")))
    assert len(as_sent) <= 2048, len(as_sent)
    said = " ".join(receipt.get_content().split())
    assert said.startswith(f"Recorded: {command}") and "Next: " in said and "You hear from the game again" in said

    # A replaced seat: the subject stays, and the notice to the player who leaves is in the thread.
    games.replace_player(game_id, "cy@example.test", "dee@example.test", "Dee", reason="Cy left",
                         moderator="mod@example.test")
    worker.run_once()
    with Session(engine) as s:
        assert s.exec(select(Game.subject).where(Game.id == game_id)).one() == SUBJECT
    root = receipt["In-Reply-To"]
    for user in ("ann", "bob", "cy", "dee"):
        for message in inbox(dovecot, user):
            assert str(message["Subject"]) == SUBJECT, (user, message["Subject"])
            assert message["References"].split()[0] == root and message["In-Reply-To"] == root, user
    notice = inbox(dovecot, "cy")[-1]
    assert "You no longer play in Fifth Avenue #1" in notice.get_content() and "mod@example.test" in notice.get_content()
    assert inbox(dovecot, "dee")  # the new player's first mail, in the same thread
