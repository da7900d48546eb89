"""Standing bids by mail (issue 43, points 2, 6, 7; docs/rules.md D48), through the mail reader and the game
service on both databases: an order given out of turn and one in turn bid for their players, each player reads
what their own order did, and nobody else ever reads an order's limit."""

from __future__ import annotations

from sqlmodel import Session, select

from pbem.games.rng import Rng
from pbem.services.mail_out.chronicle import happenings
from pbem.services.mail_in.mail_commands import MailCommands
from pbem.services.offline.simulate import choose
from pbem.services.table.service import GameService
from pbem.store.models import Event, Snapshot, utcnow

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
    assert not [m for m in made if m.recipient != third and "up to 9" in m.text_body]
    # Given ahead of its turn it changed nothing anybody sees: a receipt for its player, no mail for the others
    # (the first bidder still has the mail that asks them).
    (receipt,) = made
    assert receipt.headers.get("X-Pbem-Receipt") and "Your orders in force:" in receipt.text_body

    # The first bidder orders in turn: the order opens for them at once, and their answer says so.
    before = last_id(db_engine)
    report = processor.handle(mail("bid up to 12", first, game_id, asking(db_engine, first).message_id))
    assert report.outcome == "applied", report.lines
    made = since(db_engine, before)
    own = " ".join(next(m for m in made if m.recipient == first).text_body.split())
    assert "Your standing bid in" in own and "it is good up to 12" in own, own
    told = " ".join(next(m for m in made if m.recipient == second).text_body.split())
    # Another's order never shows: not as a command, not as what it is good for (the set's own lines are the
    # reader's: what they may bid, and an example).
    assert "bid orange 4 (total 4)" in told and "bid up to" not in told and "good up to" not in told

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
    for mail_row in everything:  # an order shows as its command or as what it is good up to, to its player alone
        body = " ".join(mail_row.text_body.split())
        if mail_row.recipient != third:
            assert "bid up to 9" not in body and "good up to 9" not in body
        if mail_row.recipient != first:
            assert "bid up to 12" not in body and "good up to 12" not in body
    assert frame["site"] not in str(games.get(game_id).state.orders)  # the orders ended with their auction


def test_a_player_who_gave_orders_is_mailed_for_the_next_set_at_once(db_engine) -> None:
    """Orders for a whole set (points 3, 4): once a player has given orders, the start of every later set mails
    them at once with its auctions and what they may bid in each; a player who never gave one is not mailed
    more than before. Their orders for the whole set, in one mail, run its auctions as far as they carry."""
    games = GameService(db_engine, mail_domain="example.org")
    game_id = games.create_game("fifth-avenue", PLAYERS, seed=5)
    processor = MailCommands(games)
    frame = to_first_auction(games, game_id)
    info = games.get(game_id)
    user = info.email_of(frame["order"][1])
    assert processor.handle(mail("bid up to 0", user, game_id)).outcome == "applied"
    rng = Rng(9)
    while True:  # on to the next set, played by the service for everybody
        state = games.get(game_id).state
        assert not state.is_terminal(), "no second set of auctions"
        before = last_id(db_engine)
        games.submit(game_id, games.get(game_id).email_of(state.current_player()),
                     str(choose(state.legal_actions(), rng, "by-kind")))
        after = games.get(game_id).state
        if any(f["kind"] == "auctions" for f in after.frames) and not any(
                f["kind"] == "auctions" for f in state.frames):
            break
    made = since(db_engine, before)
    mover = games.get(game_id).email_of(state.current_player())
    sites = [f for f in after.frames if f["kind"] == "auctions"][-1]["queue"]
    running = after.frames[-1].get("site")
    to_user = [m for m in made if m.recipient == user]
    if after.current_player() != frame["order"][1]:
        (asked,) = to_user
        text = " ".join(asked.text_body.split())
        assert text.startswith("Auctions begin: send your orders"), text[:200]
        assert "The auctions of this set, in their order:" in text and "you may bid" in text
    # Nobody who never gave an order gets a mail they would not have got: the mover's answer and the first
    # bidder's call to bid (one mail when they are one player) carry the set.
    assert {m.recipient for m in made} - {user} <= {mover, games.get(game_id).email_of(after.current_player())}
    assert all("The auctions of this set, in their order:" in m.text_body for m in made)
    # One mail of orders for every auction of the set: the user is not asked again in it by their bids.
    lines = [f"bid {site} up to 0" for site in [running, *sites] if site]
    report = processor.handle(mail("\n".join(lines), user, game_id))
    assert report.outcome == "applied", report.lines


def test_the_first_screen_of_a_bid_mail_shows_the_orders_in_force(db_engine) -> None:
    games = GameService(db_engine, mail_domain="example.org")
    game_id = games.create_game("fifth-avenue", PLAYERS, seed=5)
    frame = to_first_auction(games, game_id)
    info = games.get(game_id)
    later = [f for f in info.state.frames if f["kind"] == "auctions"][-1]["queue"][-1]
    second = info.email_of(frame["order"][1])
    games.submit(game_id, second, f"bid {later} up to 0; build {later} max")
    games.submit(game_id, info.email_of(frame["order"][0]), "pass")
    asked = " ".join(asking(db_engine, second).text_body.split())
    screen = asked.split("Since your last mail")[0]
    assert "Your orders in force: Central Park: bid up to 0, build max." in screen, screen


def test_orders_that_contradict_each_other_are_refused_whole(db_engine) -> None:
    """Point 7: two orders of one mail for one auction (or its build): one reply naming both lines, nothing
    changed."""
    games = GameService(db_engine, mail_domain="example.org")
    game_id = games.create_game("fifth-avenue", PLAYERS, seed=5)
    processor = MailCommands(games)
    frame = to_first_auction(games, game_id)
    info = games.get(game_id)
    later = [f for f in info.state.frames if f["kind"] == "auctions"][-1]["queue"][-1]
    user = info.email_of(frame["order"][2])
    before_state = info.state.to_json()
    running = frame["site"]
    for body in (f"bid {later} up to 0\nbid {later} up to 5", f"build {later} max; build {later} 1",
                 f"bid up to 5\nbid {running} up to 8",  # the order that names no auction is for the running one
                 f"{later}: pass; bid {later} up to 3"):
        before = last_id(db_engine)
        report = processor.handle(mail(body, user, game_id))
        assert report.outcome != "applied"
        assert games.get(game_id).state.to_json() == before_state
        answer = " ".join(since(db_engine, before)[-1].text_body.split())
        assert "contradicts line 1" in answer, answer


def test_orders_written_under_their_auctions_as_the_issue_writes_them(db_engine) -> None:
    """'42W: up to 12 gray; TS: pass; CP: up to 8' in one line of a mail: each order for its auction."""
    games = GameService(db_engine, mail_domain="example.org")
    game_id = games.create_game("fifth-avenue", PLAYERS, seed=5)
    processor = MailCommands(games)
    frame = to_first_auction(games, game_id)
    info = games.get(game_id)
    sites = [frame["site"], *[f for f in info.state.frames if f["kind"] == "auctions"][-1]["queue"]]
    seat = frame["order"][2]
    line = "; ".join([f"{sites[0]}: up to 6", *[f"{site}: pass" for site in sites[1:]]])
    report = processor.handle(mail(f"Hi all,\n{line}\nAnn", info.email_of(seat), game_id))
    assert report.outcome == "applied", report.lines
    orders = games.get(game_id).state.orders[str(seat)]
    assert orders == {sites[0]: {"limit": 6, "color": None},
                      **{site: {"limit": 0, "color": None} for site in sites[1:]}}


def test_every_bidder_reads_the_set_in_a_mail_they_get_anyway(db_engine) -> None:
    """Point 3 without a mail more (point 8): when a set begins in a game where nobody has given orders, the
    trigger's answer and the first bidder's call to bid show the whole set and how to answer it with orders;
    nobody else is mailed; every other bidder reads the set in their first call to bid of it, and only there."""
    games = GameService(db_engine, mail_domain="example.org")
    game_id = games.create_game("fifth-avenue", PLAYERS, seed=5)
    rng = Rng(5)
    while True:
        state = games.get(game_id).state
        before = last_id(db_engine)
        mover = games.get(game_id).email_of(state.current_player())
        games.submit(game_id, mover, str(choose(state.legal_actions(), rng, "by-kind")))
        after = games.get(game_id).state
        if any(f["kind"] == "auctions" for f in after.frames):
            break
    info = games.get(game_id)
    made = since(db_engine, before)
    assert {m.recipient for m in made} <= {mover, info.email_of(after.current_player())}
    assert made and all("The auctions of this set, in their order:" in m.text_body for m in made)
    first = after.frames[-1]["site"]
    called: set[int] = set()
    while (state := games.get(game_id).state).frames[-1].get("site") == first \
            and state.frames[-1]["kind"] == "auction":
        seat = state.current_player()
        text = asking(db_engine, info.email_of(seat)).text_body
        assert ("The auctions of this set, in their order:" in text) == (seat not in called), (seat, called)
        called.add(seat)
        before = last_id(db_engine)
        games.submit(game_id, info.email_of(seat), next((c for c in state.legal_commands() if c.startswith("bid")),
                                                          "pass"))
    assert len(called) >= 2


def test_an_imported_game_keeps_its_orders_secret_whatever_the_file_says(db_engine) -> None:
    """Point 5 (and D48): the import does not take a command's secret flag from the file; the engine marks every
    standing order again, so an export edited to drop the flag shows no limit to the other players."""
    games = GameService(db_engine, mail_domain="example.org")
    game_id = games.create_game("fifth-avenue", PLAYERS, seed=5)
    frame = to_first_auction(games, game_id)
    info = games.get(game_id)
    third = frame["order"][2]
    games.submit(game_id, info.email_of(third), "bid up to 9")
    doc = games.export(game_id)
    orders = [e for e in doc["events"] if e["kind"] == "command" and "up to" in e["data"]["command"]]
    assert [e["data"].get("secret") for e in orders] == [True]
    for e in doc["events"]:  # the flag taken off the order, and put on a command anybody may read
        if e["kind"] == "command":
            e["data"]["secret"] = False if e in orders else True
    copy = games.import_game(doc)
    imported = games.get(copy)
    with Session(db_engine) as s:
        rows = list(s.exec(select(Event).where(Event.game_id == copy, Event.kind == "command")).all())
    assert [row.data.get("secret", False) for row in rows] == ["up to" in row.data["command"] for row in rows]
    for seat in range(3):
        told = " ".join(" ".join([item.headline, *item.details]) for item in happenings(rows, imported, seat))
        assert ("up to 9" in told) == (seat == third), (seat, told)


def test_orders_on_by_mail_gets_a_receipt_that_says_what_it_does(db_engine) -> None:
    """'orders on' (D48), sent out of turn before any order: the sender alone gets a receipt that says they are
    mailed each set when it begins, nobody else is mailed, and the game still waits for the same decision."""
    games = GameService(db_engine, mail_domain="example.org")
    game_id = games.create_game("fifth-avenue", PLAYERS, seed=5)
    processor = MailCommands(games)
    before, waiting = last_id(db_engine), games.get(game_id).state.current_player()
    cy = games.get(game_id).email_of(2)
    report = processor.handle(mail("Hi,\norders on\nCy", cy, game_id))
    assert report.outcome == "applied", report
    sent = since(db_engine, before)
    assert [m.recipient for m in sent] == [cy]
    assert "Recorded: orders on" in sent[0].text_body
    assert "you are mailed each set of auctions when it begins, the game's first included" in \
        " ".join(sent[0].text_body.split())
    state = games.get(game_id).state
    assert state.order_seats == [2] and state.current_player() == waiting


def test_orders_for_two_sets_in_one_mail_do_not_contradict_each_other(db_engine) -> None:
    """A mail may begin a set, see it end (every other bidder can only pass, D40), and begin another in the same
    turn: its orders for the second set's Central Park are for another auction than the first's, not a
    contradiction (the mail was refused whole: 'contradicts line 2'). A crafted position: both commissioners in
    Central Park without markers, so each set is Central Park alone, and only the mover holds cards."""
    games = GameService(db_engine, mail_domain="example.org")
    game_id = games.create_game("fifth-avenue", PLAYERS, seed=5)
    rng = Rng(5)
    while games.get(game_id).state.frames[-1]["kind"] != "turn":  # the starting skyscrapers
        state = games.get(game_id).state
        games.submit(game_id, PLAYERS[state.current_player()][1], str(choose(state.legal_actions(), rng, "by-kind")))
    info = games.get(game_id)
    state, mover = info.state, info.state.current_player()
    for seat in range(3):
        state.hands[seat] = {color: [0, 0, 0] for color in state.hands[seat]}
    state.hands[mover].update(orange=[1, 0, 0], green=[1, 0, 0], black=[2, 0, 0])
    for commissioner in state.commissioners:
        state.commissioners[commissioner], state.markers[commissioner] = "CP", []
    with Session(db_engine) as s:
        s.add(Snapshot(game_id=game_id, seq=info.last_seq, state=state.to_json(), created_at=utcnow()))
        s.commit()
    stacks = [c for c in state.board.plot_colors if state.colored_stacks[c]][:2]
    games.submit(game_id, PLAYERS[mover][1], "\n".join([
        "C white CH", "CP: build max", "CP: up to 4 orange",  # the first set: Central Park, won at 4
        f"cards {' '.join(stacks)}", "move beige CH",
        "CP: build max", "CP: up to 4"]))  # the second set: Central Park again
    state = games.get(game_id).state
    assert state.central_park[mover] >= 1 and state.frames[-1]["kind"] == "turn"
    assert state.frames[-1]["player"] == (mover + 1) % 3  # both sets are over, and the mover's turn with them
