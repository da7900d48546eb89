"""Deadlines over days, on the real mail servers, with a clock the test turns forward.

The worker (``MailWorker.run_once``) and the game service read "now" from one
clock; the test moves it by hours and days between passes and reads what
arrived in every mailbox (Dovecot) over IMAP.
"""

from __future__ import annotations

from datetime import datetime, timedelta, timezone

import pytest
from test_worker_mail import GAME, inbox, reply_like_a_client, send  # noqa: I001

from pbem.config import MailConfig, ServerConfig
from pbem.games.fifth_avenue import decision_kind
from pbem.games.rng import Rng
from pbem.services.common.timing import Timing
from pbem.services.table.service import GameService
from pbem.services.offline.simulate import choose
from pbem.worker import MailWorker
from pbem.store.db import make_engine
from pbem.store.models import DecisionClock
from pbem_testing.clock import StoppedClock

ANN, BOB, CY = ("Ann", "ann@example.test"), ("Bob", "bob@example.test"), ("Cy", "cy@example.test")
MODERATOR = "dee@example.test"


@pytest.fixture
def table(dovecot, smtp_server, mailboxes, sqlite_url):
    """A clock, the game service and a worker on it, the moderator being dee."""
    clock = StoppedClock(datetime(2026, 11, 23, 9, 0, tzinfo=timezone.utc))
    engine = make_engine(sqlite_url)
    config = MailConfig(imap=ServerConfig(dovecot.host, dovecot.imap_port, "plain", "game", "secret"),
                        smtp=ServerConfig("127.0.0.1", smtp_server.port, "plain"), game_address=GAME,
                        moderator=MODERATOR, outage_gap=3600)
    games = GameService(engine, clock=clock, mail_domain="example.test")
    worker = MailWorker(engine, config, clock=clock)
    yield clock, games, worker
    engine.dispose()


def subjects(dovecot, user: str) -> list[str]:
    return [str(m["Subject"]) for m in inbox(dovecot, user)]


def text(message) -> str:
    return message.get_body(("plain",)).get_content()


def pass_the_time(clock: StoppedClock, worker: MailWorker, hours: float) -> None:
    """Hours go by with the worker looking every half hour, as a running worker would (more often, in fact)."""
    for _ in range(int(hours * 2)):
        clock.advance(minutes=30)
        worker.run_once()


def test_a_reminder_comes_at_three_quarters_of_the_deadline(table, dovecot) -> None:
    clock, games, worker = table
    games.create_game("fifth-avenue", [ANN, BOB], seed=3)
    worker.run_once()
    assert subjects(dovecot, "ann") == ["[Fifth Avenue #1] Ann, Bob"]
    assert inbox(dovecot, "ann")[0]["X-Pbem-Decision"] == "0"
    opening = text(inbox(dovecot, "ann")[0])
    assert "Answer by Thursday 26 November 2026, 09:00 UTC (in 3 days)." in " ".join(opening.split())
    pass_the_time(clock, worker, 53.5)  # 72 h deadline, reminder after 54 h
    assert len(subjects(dovecot, "ann")) == 1
    pass_the_time(clock, worker, 1)
    mails = inbox(dovecot, "ann")
    assert [str(m["Subject"]) for m in mails] == ["[Fifth Avenue #1] Ann, Bob"] * 2  # one subject, one thread
    assert mails[1]["X-Pbem-Decision"] == "0"  # the same decision, asked again
    body = " ".join(text(mails[1]).split())
    assert body.startswith("Reminder: Your turn: ") and "(in 18 hours)" in body
    assert "Commands you may send now" in body and "Your hand:" in body
    assert len(subjects(dovecot, "bob")) == 1  # nobody else is reminded
    pass_the_time(clock, worker, 10)
    assert len(subjects(dovecot, "ann")) == 2  # once


def test_a_player_who_must_act_in_two_games_gets_one_digest(table, dovecot) -> None:
    clock, games, worker = table
    games.create_game("fifth-avenue", [ANN, BOB], seed=3)
    games.create_game("fifth-avenue", [ANN, CY], seed=4, timing=Timing(deadline=48 * 3600))
    games.create_game("fifth-avenue", [BOB, CY], seed=5)
    worker.run_once()
    pass_the_time(clock, worker, 40)  # game 2 reminds after 36 h, game 1 after 54 h
    ann = inbox(dovecot, "ann")
    assert [str(m["Subject"]) for m in ann[2:]] == ["[pbem] digest: your move in 2 games (#2, #1)"]
    digest = text(ann[2])
    assert "==== Fifth Avenue #2 " in digest and "==== Fifth Avenue #1 " in digest
    assert digest.index("#2 ====") < digest.index("#1 ====")  # the nearest deadline first
    assert "starts with the line 'game N'" in " ".join(digest.split())
    assert max(len(line) for line in digest.splitlines()) <= 72
    pass_the_time(clock, worker, 20)  # game 1's reminder time (54 h) passes; game 2's deadline (48 h) too
    later = inbox(dovecot, "ann")[3:]
    # no reminder after the digest, no 2nd digest: only game 2's late notice
    assert [str(m["Subject"]) for m in later] == ["[Fifth Avenue #2] Ann, Cy"]
    assert text(later[0]).startswith("Late: ")
    bob = inbox(dovecot, "bob")  # Bob must act in game 3 only: a plain reminder there
    assert str(bob[-1]["Subject"]) == "[Fifth Avenue #3] Bob, Cy" and text(bob[-1]).startswith("Reminder: ")


def _into_an_auction(games: GameService, game_id: int, seed: int) -> int:
    """Play the game through the service until a bid is due after somebody has bid; the seat to bid."""
    rng = Rng(seed)
    for _ in range(2000):
        info = games.get(game_id)
        state = info.state
        frame = state.frames[-1]
        if decision_kind(state) == "bid" and frame["kind"] == "auction" and frame["bids"]:
            return state.current_player()
        seat = state.current_player()
        command = str(choose(state.legal_actions(), rng, "by-kind"))
        games.submit(game_id, info.email_of(seat), command)
    raise AssertionError("no auction in 2000 commands")


def test_a_bid_passes_at_its_deadline_in_the_middle_of_an_auction(table, dovecot) -> None:
    clock, games, worker = table
    game_id = games.create_game("fifth-avenue", [ANN, BOB, CY], seed=8)
    bidder = _into_an_auction(games, game_id, seed=8)
    before = games.get(game_id)
    worker.run_once()
    for user in ("ann", "bob", "cy", "dee"):
        dovecot.empty_mailboxes([user])
    pass_the_time(clock, worker, 23.5)  # bids have 24 hours
    assert games.get(game_id).state.moves == before.state.moves
    pass_the_time(clock, worker, 1)
    after = games.get(game_id)
    last = [h for h in games.history(game_id) if h.kind == "command"][-1]
    assert (last.seat, last.data["command"], last.data["by"], last.source) == (bidder, "pass", "deadline", "deadline")
    assert after.state.moves == before.state.moves + 1
    who = before.players[bidder].name
    to_act = after.players[after.state.current_player()].email.split("@")[0]

    def expected(user: str) -> str:
        if user == before.players[bidder].email.split("@")[0]:
            return "Your deadline passed, so pbem played for you: pass"
        return f"{who}'s deadline passed, so pbem played for {who}: pass"

    told = {user: [" ".join(text(m).split()) for m in inbox(dovecot, user)] for user in ("ann", "bob", "cy")}
    bidder_user = before.players[bidder].email.split("@")[0]
    # Announced at once to the bidder (pbem acted for them) and to the player who must decide now ...
    for user in {bidder_user, to_act}:
        assert sum(expected(user) in body for body in told[user]) == 1, (user, told[user])
    # ... and to the other player (delivery 'turns') at the top of their next mail, whenever it comes.
    for user in {"ann", "bob", "cy"} - {bidder_user, to_act}:
        assert told[user] == [], (user, told[user])
        for _ in range(200):
            if inbox(dovecot, user):
                break
            info = games.get(game_id)
            games.submit(game_id, info.email_of(info.state.current_player()), info.state.legal_commands()[0])
            worker.run_once()
        first = " ".join(text(inbox(dovecot, user)[0]).split())
        assert expected(user) in first, (user, first)
    assert inbox(dovecot, "dee") == []  # a bid is passed without troubling the moderator


def test_a_missed_deadline_is_mailed_to_the_moderator_and_the_player_daily(table, dovecot) -> None:
    clock, games, worker = table
    game_id = games.create_game("fifth-avenue", [ANN, BOB], seed=3)
    worker.run_once()
    pass_the_time(clock, worker, 72.5)
    moderator = inbox(dovecot, "dee")
    assert [str(m["Subject"]) for m in moderator] == ["[pbem] moderator: Fifth Avenue #1: Ann is late"]
    said = " ".join(text(moderator[0]).split())
    assert "Ann <ann@example.test> did not decide by Thursday 26 November 2026, 09:00 UTC" in said
    assert f"pbem game play {game_id} --as ann@example.test" in said
    assert subjects(dovecot, "ann")[-1] == "[Fifth Avenue #1] Ann, Bob"
    late = " ".join(text(inbox(dovecot, "ann")[-1]).split())
    assert late.startswith("Late: ") and inbox(dovecot, "ann")[-1]["X-Pbem-Decision"] == "0"
    assert "Your deadline has just passed" in late and "Commands you may send now" in late
    assert games.get(game_id).state.moves == 0  # nothing was played for her
    count = len(subjects(dovecot, "ann"))
    pass_the_time(clock, worker, 24)
    again = text(inbox(dovecot, "ann")[-1])
    assert len(subjects(dovecot, "ann")) == count + 1 and "2 days" not in again.splitlines()[0]
    assert "Your deadline passed 1 day" in " ".join(again.split())
    assert len(inbox(dovecot, "dee")) == 1  # the moderator was told once
    listed = {g.id: g for g in games.list_games()}[game_id]
    assert listed.due_at == datetime(2026, 11, 26, 9, 0, tzinfo=timezone.utc)


def test_on_timeout_auto_plays_the_default_and_tells_the_moderator(table, dovecot) -> None:
    clock, games, worker = table
    game_id = games.create_game("fifth-avenue", [ANN, BOB], seed=3, timing=Timing(on_timeout="auto"))
    first = games.legal(game_id)[1][ANN[1]][0]
    worker.run_once()
    pass_the_time(clock, worker, 72.5)
    last = [h for h in games.history(game_id) if h.kind == "command"][-1]
    assert (last.data["command"], last.data["by"]) == (first, "deadline")
    assert [str(m["Subject"]) for m in inbox(dovecot, "dee")] == [
        "[pbem] moderator: Fifth Avenue #1: a deadline passed"]


def test_an_absence_moves_the_deadline_that_falls_in_it(table, dovecot, smtp_server) -> None:
    clock, games, worker = table
    game_id = games.create_game("fifth-avenue", [ANN, BOB], seed=3)
    games.set_delivery(game_id, "all", BOB[1])  # with 'turns' Bob would hear of it in his next mail only
    worker.run_once()
    request = inbox(dovecot, "ann")[0]
    send(smtp_server, reply_like_a_client(request, ANN[1], "away 2026-11-25 to 2026-11-28"))
    worker.run_once()
    bob = inbox(dovecot, "bob")
    assert len(bob) == 2 and str(bob[-1]["Subject"]) == "[Fifth Avenue #1] Ann, Bob"
    told = " ".join(text(bob[-1]).split())
    assert told.startswith("Ann will be away from Wednesday 25 November to Saturday 28 November 2026")
    assert "deadlines in that time move later" in told
    receipt = next(" ".join(text(m).split()) for m in inbox(dovecot, "ann") if str(m["Subject"]).startswith("Re:"))
    assert "Done: away 2026-11-25 to 2026-11-28 - away from Wednesday 25 November to Saturday 28 November 2026:" \
        in receipt and "deadlines in that time move 4 days later" in receipt
    pass_the_time(clock, worker, 73)  # past the old deadline, Thursday 26 November 09:00
    assert inbox(dovecot, "dee") == [] and games.get(game_id).state.moves == 0
    with games.changing(game_id) as (uow, _game, _info):
        clock_row = uow.session.get(DecisionClock, 1)
        assert clock_row.due_at.replace(tzinfo=timezone.utc) == datetime(2026, 11, 30, 9, 0, tzinfo=timezone.utc)
        assert "away 25 Nov to 28 Nov" in clock_row.extended


def test_a_bad_absence_changes_nothing_and_says_why(table, dovecot, smtp_server) -> None:
    clock, games, worker = table
    games.create_game("fifth-avenue", [ANN, BOB], seed=3)
    worker.run_once()
    request = inbox(dovecot, "ann")[0]
    send(smtp_server, reply_like_a_client(request, ANN[1], "away 2026-11-25 to 2026-12-31"))
    worker.run_once()
    answer = " ".join(text(inbox(dovecot, "ann")[-1]).split())
    assert "an absence may last at most 21 days" in answer and "Write it as 'away 2026-12-24 to 2027-01-02'" in answer
    assert len(inbox(dovecot, "bob")) == 1


def test_after_an_outage_the_deadlines_move_by_the_gap_and_the_moderator_is_told(table, dovecot) -> None:
    clock, games, worker = table
    game_id = games.create_game("fifth-avenue", [ANN, BOB], seed=3)
    worker.run_once()
    clock.advance(hours=80)  # the worker was down past Ann's deadline (72 h) and reminder (54 h)
    worker.run_once()
    assert [str(m["Subject"]) for m in inbox(dovecot, "dee")] == ["[pbem] moderator: the worker was away"]
    said = " ".join(text(inbox(dovecot, "dee")[0]).split())
    assert "(3 days 8 hours)" in said and "moved by as much, in game 1," in said
    assert len(inbox(dovecot, "ann")) == 1  # no late notice, no reminder: nothing fired at once
    assert games.get(game_id).state.moves == 0
    listed = {g.id: g for g in games.list_games()}[game_id]
    assert listed.due_at == datetime(2026, 11, 26, 9, 0, tzinfo=timezone.utc) + timedelta(hours=80)
    pass_the_time(clock, worker, 1)
    assert len(inbox(dovecot, "dee")) == 1  # a worker that looks again is no outage
