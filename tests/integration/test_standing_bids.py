"""Standing bids by mail (issue 43, points 2, 6, 7; docs/rules.md D48), through the mail reader and the game
service on both databases: an order given out of turn and one in turn bid for their players, each player reads
what their own order did, and nobody else ever reads an order's limit."""

from __future__ import annotations

from pbem.games.rng import Rng
from pbem.services.mail_in.mail_commands import MailCommands
from pbem.services.offline.simulate import choose
from pbem.services.table.service import GameService

from test_receipts import PLAYERS, asking, last_id, mail, since


def to_first_auction(games: GameService, game_id: int) -> dict:
    rng = Rng(5)
    while True:
        state = games.get(game_id).state
        frame = state.frames[-1]
        if frame["kind"] == "auction" and not frame["bids"] and not frame["out"]:
            return frame
        games.submit(game_id, games.get(game_id).email_of(state.current_player()),
                     str(choose(state.legal_actions(), rng, "by-kind")))


def test_orders_bid_for_their_players_and_their_limits_stay_theirs(db_engine) -> None:
    games = GameService(db_engine, mail_domain="example.org")
    game_id = games.create_game("fifth-avenue", PLAYERS, seed=5)
    processor = MailCommands(games)
    frame = to_first_auction(games, game_id)
    info = games.get(game_id)
    first, second, third = (info.email_of(seat) for seat in frame["order"])
    start = last_id(db_engine)

    # The third bidder orders before their turn: recorded, nobody else told.
    before = last_id(db_engine)
    report = processor.handle(mail("bid up to 9", third, game_id))
    assert report.outcome == "applied", report.lines
    made = since(db_engine, before)
    assert "bid up to 9" in next(m for m in made if m.recipient == third).text_body
    assert not [m for m in made if m.recipient != third and "up to" in m.text_body]

    # The first bidder orders in turn: the order opens for them at once, and their answer says so.
    before = last_id(db_engine)
    report = processor.handle(mail("bid up to 12", first, game_id, asking(db_engine, first).message_id))
    assert report.outcome == "applied", report.lines
    made = since(db_engine, before)
    own = " ".join(next(m for m in made if m.recipient == first).text_body.split())
    assert "Your standing bid in" in own and "it is good up to 12" in own, own
    told = " ".join(next(m for m in made if m.recipient == second).text_body.split())
    assert "bid orange 4 (total 4)" in told and "up to" not in told

    # A bad order changes nothing and names the most the player can reach.
    state_before = games.get(game_id).state.to_json()
    before = last_id(db_engine)
    report = processor.handle(mail("bid up to 500", second, game_id, asking(db_engine, second).message_id))
    assert report.outcome != "applied"
    assert games.get(game_id).state.to_json() == state_before
    answer = " ".join(since(db_engine, before)[-1].text_body.split())
    assert "bid up to 500" in answer and "at most" in answer, answer

    # The second bidder plays by hand until the auction ends; the orders answer for the others.
    asked = 0
    while (state := games.get(game_id).state).frames[-1] is not None and state.frames[-1].get("site") == frame["site"] \
            and state.frames[-1]["kind"] == "auction":
        seat = state.current_player()
        assert games.get(game_id).email_of(seat) == second  # the orders' players are never asked
        command = next((c for c in state.legal_commands() if c.startswith("bid")), "pass")
        processor.handle(mail(command, second, game_id, asking(db_engine, second).message_id))
        asked += 1
    assert asked >= 1
    everything = since(db_engine, start)
    for mail_row in everything:
        if mail_row.recipient != third:
            assert "up to 9" not in mail_row.text_body
        if mail_row.recipient != first:
            assert "up to 12" not in mail_row.text_body
    assert frame["site"] not in str(games.get(game_id).state.orders)  # the orders ended with their auction
