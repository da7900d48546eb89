"""Robot seats (issue 19, point 1): seated at the start or handed a seat mid-game, they play as soon as their
decision is due, from their own view; they are told of nothing and mailed nothing, and everybody else is told
of their moves as of anybody's."""

from __future__ import annotations

import json
from datetime import datetime, timedelta, timezone

import pytest
from sqlmodel import Session, select

from pbem.services.common.errors import BadRequest
from pbem.services.table.service import GameService
from pbem.services.table import robot_seats
from pbem.services.table.robot_names import ROBOT_DOMAIN, is_robot_address
from pbem.services.table.robot_seats import RobotPlayers
from pbem.store.db import make_engine
from pbem.store.models import Event, OutboxMail

ANN = ("Ann", "ann@example.org")


@pytest.fixture
def service(game_service: GameService) -> GameService:
    return game_service


def outbox(service: GameService) -> list[OutboxMail]:
    with Session(service.engine) as s:
        return list(s.exec(select(OutboxMail).order_by(OutboxMail.id)).all())


def commands(service: GameService, game_id: int) -> list[Event]:
    with Session(service.engine) as s:
        return list(s.exec(select(Event).where(Event.game_id == game_id, Event.kind == "command")
                           .order_by(Event.seq)).all())


def test_robots_play_until_a_person_must_decide_and_only_people_are_mailed(service: GameService) -> None:
    game_id = service.create_game("fifth-avenue", [("Robo", "robot"), ANN, ("Maxi", "ROBOT")], seed=5)
    info = service.get(game_id)
    assert [(p.name, p.robot) for p in info.players] == [("Robo (robot)", "heuristic"), ("Ann", ""),
                                                         ("Maxi (robot)", "heuristic")]
    assert all(is_robot_address(p.email) for p in info.players if p.robot) and not is_robot_address(ANN[1])
    assert {m.recipient for m in outbox(service)} == {ANN[1]}  # the start: only the person is mailed

    moves = RobotPlayers(service).play_due()
    info = service.get(game_id)
    assert info.players[info.state.current_player()].email == ANN[1]
    assert moves.moves and {seat for _, seat, _ in moves.moves} <= {0, 2}  # the robots play up to Ann's turn
    played = commands(service, game_id)
    assert [(e.seat, e.source, e.data.get("by")) for e in played] == [(seat, "robot", "robot")
                                                                       for _, seat, _ in moves.moves]
    assert {m.recipient for m in outbox(service)} == {ANN[1]}
    told = outbox(service)[-1].text_body
    assert "Robo (robot) played: " + played[0].data["command"] in told  # told as of anybody's move

    # Ann's moves: then the robots' turns come, until Ann's decision again.
    while (info := service.get(game_id)).players[info.state.current_player()].email == ANN[1]:
        service.submit(game_id, ANN[1], info.state.legal_commands()[0])
    moves = RobotPlayers(service).play_due()
    assert moves.moves and all(seat in (0, 2) for _, seat, _ in moves.moves)
    info = service.get(game_id)
    assert info.over or info.players[info.state.current_player()].email == ANN[1]
    assert all(not is_robot_address(m.recipient) for m in outbox(service))

    again = service.import_game(json.loads(json.dumps(service.export(game_id))))  # an export keeps the robots
    assert [(p.name, p.email, p.robot) for p in service.get(again).players] == \
        [(p.name, p.email, p.robot) for p in service.get(game_id).players]


@pytest.mark.parametrize("kind, players", [("fifth-avenue", 2), ("manhattan", 3)])
def test_a_table_of_robots_plays_a_whole_game_and_mails_nobody(sqlite_url: str, kind: str, players: int) -> None:
    service = GameService(make_engine(sqlite_url), mail_domain="example.org")  # the database's kind is no matter
    game_id = service.create_game(kind, [(f"R{n}", "robot") for n in range(players)], seed=11)
    robots = RobotPlayers(service)
    for _ in range(10):  # a pass plays at most MOST_MOVES_A_PASS moves
        if not robots.play_due().moves:
            break
    info = service.get(game_id)
    assert info.over and info.state.result["winners"]
    assert outbox(service) == []
    played = commands(service, game_id)
    assert len(played) > 20 and all(e.source == "robot" and e.data["by"] == "robot" for e in played)
    assert robots.games_with_robots() == []  # a finished game is no robot's business any more


def test_a_pass_stops_its_robots_at_its_time_or_move_limit_and_the_next_pass_goes_on(sqlite_url: str) -> None:
    """A table of robots alone (or of searching robots) must not keep the mailbox waiting: a pass stops deciding
    after its seconds or moves, says decisions are still due, and the next pass goes on where it stopped."""
    service = GameService(make_engine(sqlite_url), mail_domain="example.org")
    game_id = service.create_game("manhattan", [(f"R{n}", "robot") for n in range(2)], seed=3)
    ticks = iter(range(10_000))  # each look at the clock: a second later
    robots = RobotPlayers(service, clock=lambda: float(next(ticks)))
    first = robots.play_due(seconds=5)
    assert 1 <= len(first.moves) <= 5 and first.more
    moves = service.get(game_id).state.moves
    second = robots.play_due(most=3, seconds=1_000)
    assert len(second.moves) == 3 and second.more and service.get(game_id).state.moves > moves
    passes = 0
    while (done := robots.play_due(seconds=1_000)).more:
        passes += 1
    assert service.get(game_id).over and not done.more and passes == 0  # within 1,000 s and 400 moves


def test_a_robot_that_cannot_play_holds_up_its_own_game_only(sqlite_url: str, monkeypatch) -> None:
    """A robot's fault (here: a command its game refuses) is its game's alone: the other games' robots play,
    nothing of the faulty move is written, and the next pass tries again."""
    service = GameService(make_engine(sqlite_url), mail_domain="example.org")
    broken = service.create_game("manhattan", [("R0", "robot"), ANN], seed=1)
    working = service.create_game("manhattan", [("R1", "robot"), ("Bob", "bob@example.org")], seed=2)
    real = robot_seats.decide

    def decide(kind, robot, state, seat, seed):  # the robot's seed is the game's seed * 1,000,003 + the moves
        return "play 99 nowhere 9" if seed // 1_000_003 == 1 else real(kind, robot, state, seat, seed)

    monkeypatch.setattr(robot_seats, "decide", decide)
    moves_before = service.get(broken).state.moves
    done = RobotPlayers(service).play_due()
    assert [game for game, _, _ in done.failed] == [broken] and "could not play" in done.lines()[-1]
    assert {game for game, _, _ in done.moves} == {working}
    assert service.get(broken).state.moves == moves_before
    monkeypatch.setattr(robot_seats, "decide", real)
    again = RobotPlayers(service).play_due()
    assert not again.failed and {game for game, _, _ in again.moves} == {broken}


def test_the_moderator_hears_of_a_robot_that_cannot_play_once_a_day_while_it_lasts(sqlite_url: str,
                                                                                    monkeypatch) -> None:
    now = [datetime(2026, 11, 26, 8, 0, tzinfo=timezone.utc)]
    service = GameService(make_engine(sqlite_url), mail_domain="example.org", clock=lambda: now[0])
    broken = service.create_game("manhattan", [("R0", "robot"), ANN], seed=1)
    monkeypatch.setattr(robot_seats, "decide", lambda *args: "play 99 nowhere 9")
    robots = RobotPlayers(service)

    def told_in_a_pass() -> list[OutboxMail]:
        before = {m.id for m in outbox(service)}
        lines = robots.tell_moderator(robots.play_due().failed, "mod@example.org")
        mails = [m for m in outbox(service) if m.id not in before]
        assert len(lines) == len(mails)
        return mails

    first = told_in_a_pass()
    assert [(m.recipient, m.game_id) for m in first] == [("mod@example.org", broken)]
    assert first[0].subject == f"[pbem] moderator: game {broken}: R0 (robot) cannot play"
    body = " ".join(first[0].text_body.split())
    assert f"The robot at seat 1 of game {broken}, R0 (robot), could not make its move" in body
    assert "'play 99 nowhere 9'" in body  # what the robot tried, and why the game refused it
    assert f"pbem game legal {broken}" in body and f"--as robot-1@{ROBOT_DOMAIN}" in body
    now[0] += timedelta(hours=23)
    assert told_in_a_pass() == []  # every pass tries again, but the moderator is not told at every pass
    now[0] += timedelta(hours=1)
    assert len(told_in_a_pass()) == 1  # a day later: still stuck, told again
    assert robots.tell_moderator(robots.play_due().failed, "") == []  # no moderator: only the log


def test_a_seat_handed_to_a_robot_keeps_its_hand_and_score_and_the_robot_plays_it(sqlite_url: str) -> None:
    service = GameService(make_engine(sqlite_url), mail_domain="example.org")
    bob = ("Bob", "bob@example.org")
    game_id = service.create_game("fifth-avenue", [ANN, bob, ("Cy", "cy@example.org")], seed=8)
    for _ in range(4):
        info = service.get(game_id)
        service.submit(game_id, info.email_of(info.state.current_player()), info.state.legal_commands()[0])
    before = service.get(game_id)
    seat = 1
    hand, score = before.state.hands[seat], before.state.scores[seat]
    given = service.replace_player(game_id, bob[1], "robot:strong", reason="Bob dropped out")
    assert given.seat == seat and given.name == "Bob (strong robot)" and given.email.endswith("@" + ROBOT_DOMAIN)
    after = service.get(game_id)
    assert after.state.hands[seat] == hand and after.state.scores[seat] == score
    assert after.players[seat].robot == "strong"
    mails_before = len(outbox(service))
    while service.get(game_id).state.current_player() != seat:
        info = service.get(game_id)
        service.submit(game_id, info.email_of(info.state.current_player()), info.state.legal_commands()[0])
    legal = service.get(game_id).state.legal_commands()
    moves = RobotPlayers(service).play_due(most=1)  # one decision of the searching robot
    assert len(moves.moves) == 1 and moves.moves[0][1] == seat and moves.moves[0][2] in legal
    assert all(m.recipient != bob[1] and not is_robot_address(m.recipient) for m in outbox(service)[mails_before:])
    with pytest.raises(BadRequest, match="already plays"):
        service.replace_player(game_id, ANN[1], "cy@example.org")


def test_on_timeout_robot_plays_a_late_players_seat_until_they_send_a_command(sqlite_url: str) -> None:
    from datetime import timedelta

    from pbem.services.clock.timekeeper import Timekeeper
    from pbem.services.common.timing import Timing
    from pbem.store.models import Seat, utcnow

    now = [utcnow()]
    service = GameService(make_engine(sqlite_url), clock=lambda: now[0], mail_domain="example.org")
    people = [ANN, ("Bob", "bob@example.org"), ("Cy", "cy@example.org")]
    game_id = service.create_game("fifth-avenue", people, seed=9,
                                  timing=Timing().changed({"deadline": "48h", "on-timeout": "robot"}))
    late = service.get(game_id).state.current_player()
    now[0] += timedelta(hours=49)
    mails_before = len(outbox(service))
    Timekeeper(service).check()
    info = service.get(game_id)
    assert info.player(late).robot == "heuristic" and info.player(late).email == people[late][1]  # still theirs
    told = outbox(service)[mails_before:]
    assert {m.recipient for m in told} == {email for _, email in people}  # everybody, the late player too
    assert all("a robot plays for" in m.text_body for m in told)

    moves = RobotPlayers(service).play_due()
    assert moves.moves and all(seat == late for _, seat, _ in moves.moves)  # it plays the seat's decisions
    assert commands(service, game_id)[-1].data["by"] == "robot"

    while service.get(game_id).state.current_player() != late:  # the others play on, until the seat is due again
        info = service.get(game_id)
        service.submit(game_id, info.email_of(info.state.current_player()), info.state.legal_commands()[0])
    info = service.get(game_id)
    service.submit(game_id, people[late][1], info.state.legal_commands()[0])  # the player is back
    assert service.get(game_id).player(late).robot == ""
    with Session(service.engine) as s:
        assert s.exec(select(Seat).where(Seat.game_id == game_id, Seat.seat == late)).one().robot == ""
    back = [m for m in outbox(service) if m.recipient == people[late][1]][-1]
    assert "You play your seat again" in back.text_body
