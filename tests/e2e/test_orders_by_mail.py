"""Issue 43, point 9, through the real worker on Dovecot, on both databases: a set of auctions (three districts
and Central Park) run by three players' orders. Cy's orders cover the districts but not Central Park: there
Cy is asked, and answers by hand. Nobody reads another player's limits."""

from __future__ import annotations

from pbem.games.errors import CommandError
from pbem.games.rng import Rng
from pbem.services.offline.simulate import choose
from pbem.services.table.service import GameService
from pbem.store.db import make_engine
from pbem.worker import MailWorker

from pbem_testing.waiting import wait_until
from test_worker_mail import (PLAYERS, inbox, mail_config, reply_like_a_client, send, wait_for_inbox,  # noqa: F401, I001
                              wait_for_request)

SEED = 3  # the first set of this game: 34W, TS, 52E, then CP; Ann bids first, then Bob, then Cy


def reachable(state, seat: int, site: str, most: int = 12) -> int:
    """The highest standing bid up to ``most`` the game takes from ``seat`` for ``site`` now (0: none)."""
    for limit in range(most, 0, -1):
        try:
            state.clone().apply_command(seat, f"bid {site} up to {limit}")
        except CommandError:
            continue
        return limit
    return 0


def test_a_set_of_auctions_by_orders_and_one_answer_by_hand(dovecot, smtp_server, mail_config,
                                                           database_url: str) -> None:
    engine = make_engine(database_url)
    games = GameService(engine, mail_domain="example.test")
    game_id = games.create_game("fifth-avenue", PLAYERS, seed=SEED)
    rng = Rng(SEED)
    while not ((frame := games.get(game_id).state.frames[-1])["kind"] == "auction" and not frame["bids"]):
        state = games.get(game_id).state
        games.submit(game_id, PLAYERS[state.current_player()][1], str(choose(state.legal_actions(), rng, "by-kind")))
    worker = MailWorker(engine, mail_config)
    worker.run_once()
    state = games.get(game_id).state
    sites = ["34W", "TS", "52E", "CP"]
    assert frame["site"] == "34W" and frame["order"] == [0, 1, 2] and state.frames[-2]["queue"] == sites[1:]
    bob, cy = reachable(state, 1, "34W"), reachable(state, 2, "52E")
    orders = {
        "ann": "; ".join(f"bid {site} up to 0" for site in sites),
        "bob": f"bid 34W up to {bob}; build 34W max; bid TS up to 0; bid 52E up to 0; bid CP up to 0",
        "cy": f"bid 34W up to 0; bid TS up to 0; bid 52E up to {cy}; build 52E max",  # nothing for Central Park
    }
    assert bob and cy  # both can bid there: their orders make real bids
    secrets = {"bob": f"34W up to {bob}", "cy": f"52E up to {cy}"}
    # Each answers the mail that asks them to bid, with orders for the whole set; the orders bid from then on.
    for user in ("ann", "bob", "cy"):
        state = games.get(game_id).state
        assert PLAYERS[state.current_player()][1].startswith(user), (user, state.frames[-1])
        request = wait_for_request(dovecot, user, state.moves)
        send(smtp_server, reply_like_a_client(request, f"{user}@example.test", orders[user]))
        report = worker.run_once()
        assert [outcome for _, _, outcome in report.processed] == ["applied"], report.processed
    # The three districts are done by the orders; Central Park waits for Cy, the only one without an order there.
    state = games.get(game_id).state
    assert state.frames[-1]["kind"] == "auction" and state.frames[-1]["site"] == "CP"
    assert PLAYERS[state.current_player()][1].startswith("cy")
    request = wait_for_request(dovecot, "cy", state.moves)
    said = " ".join(request.get_body(("plain",)).get_content().split())
    assert "Central Park" in said.split("Since your last mail")[0], said[:300]
    send(smtp_server, reply_like_a_client(request, "cy@example.test", "pass"))
    report = worker.run_once()
    assert [outcome for _, _, outcome in report.processed] == ["applied"], report.processed
    state = games.get(game_id).state
    assert not any(f["kind"] == "auctions" for f in state.frames) and state.orders == {}
    # Each read what their own orders did; nobody read another's limits.
    for user in ("ann", "bob", "cy"):
        bodies = [" ".join(m.get_body(("plain",)).get_content().split()) for m in inbox(dovecot, user)]
        for owner, secret in secrets.items():
            if owner != user:
                assert not any(secret in body for body in bodies), (user, secret)
    bob_read = " ".join(" ".join(m.get_body(("plain",)).get_content().split()) for m in inbox(dovecot, "bob"))
    assert "Your standing bid in 34th Street West went to" in bob_read


def test_orders_on_mails_a_player_at_the_first_sets_start(dovecot, smtp_server, mail_config, database_url: str) -> None:
    """'orders on' (D48): Cy, who has given no order yet, asks by mail to be mailed at every set's start; when the
    game's first set begins, Cy is mailed at once with the whole set, while Bob, who did not ask, hears of it
    only when he must bid. Cy answers that mail with orders before his turn, so the set never asks him."""
    engine = make_engine(database_url)
    games = GameService(engine, mail_domain="example.test")
    game_id = games.create_game("fifth-avenue", PLAYERS, seed=SEED)
    worker = MailWorker(engine, mail_config)
    worker.run_once()  # the opening mails
    opening = wait_until(lambda: next(iter(inbox(dovecot, "cy")), None), "Cy's opening mail")
    send(smtp_server, reply_like_a_client(opening, "cy@example.test", "Hi all,\norders on\nCy"))
    report = worker.run_once()
    assert [outcome for _, _, outcome in report.processed] == ["applied"], report.processed
    assert games.get(game_id).state.order_seats == [2]
    rng = Rng(SEED)
    while True:  # the game by the service up to the move that begins the first set, then that move
        state = games.get(game_id).state
        command = str(choose(state.legal_actions(), rng, "by-kind"))
        begins = any(e["kind"] == "auctions" for e in state.clone().apply_command(state.current_player(), command))
        games.submit(game_id, PLAYERS[state.current_player()][1], command)
        if begins:
            break
    before = {user: len(inbox(dovecot, user)) for user in ("bob", "cy")}
    worker.run_once()
    state = games.get(game_id).state
    assert state.frames[-1]["kind"] == "auction" and state.frames[-1]["order"] == [0, 1, 2]  # Ann bids first
    asked = {"ann": state.moves}  # the decision Ann's mail asks; Cy's order ahead of his turn counts a move
    told = wait_for_inbox(dovecot, "cy", before["cy"] + 1)[before["cy"]:]
    said = " ".join(told[-1].get_body(("plain",)).get_content().split())
    assert "The auctions of this set, in their order: 34th Street West" in said, said[:400]
    bob = inbox(dovecot, "bob")[before["bob"]:]
    assert not any("The auctions of this set" in " ".join(m.get_body(("plain",)).get_content().split())
                   for m in bob), "Bob did not ask for the set's mail and does not bid yet"
    # Cy answers at once, ahead of his turn: a standing pass everywhere; then Ann and Bob play by hand.
    send(smtp_server, reply_like_a_client(told[-1], "cy@example.test", "rest: pass"))
    report = worker.run_once()
    assert [outcome for _, _, outcome in report.processed] == ["applied"], report.processed
    for user, answer in (("ann", "pass"), ("bob", "pass")):
        state = games.get(game_id).state
        assert PLAYERS[state.current_player()][1].startswith(user), (user, state.frames[-1])
        request = wait_for_request(dovecot, user, asked.get(user, state.moves))
        send(smtp_server, reply_like_a_client(request, f"{user}@example.test", answer))
        report = worker.run_once()
        assert [outcome for _, _, outcome in report.processed] == ["applied"], report.processed
    state = games.get(game_id).state
    assert state.frames[-1].get("site") != "34W"  # 34W was skipped: nobody bid, and Cy's order passed for him
