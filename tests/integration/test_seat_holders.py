"""Who really played (issue 35, point 6): a seat that changes hands midway keeps who held it from which step,
and every mail, archive page, player page and rating credits each step to whoever played it (docs/rules.md,
D47). On both databases, through the real game service, its mails and the archive."""

from __future__ import annotations

import re
from datetime import timedelta

import pytest
from sqlmodel import Session, select

from pbem.archive import history
from pbem.archive.ratings import player_records, rate
from pbem.archive.site import game_page, player_page
from pbem.services.clock.timekeeper import Timekeeper
from pbem.services.common.timing import Timing
from pbem.services.table.robot_seats import RobotPlayers, decide
from pbem.services.table.service import GameService
from pbem.store.models import Event, OutboxMail, utcnow

ANN, BOB, CY = ("Ann", "ann@example.org"), ("Bob", "bob@example.org"), ("Cy", "cy@example.org")
DAN = "dan@example.org"


def mails(service: GameService) -> list[OutboxMail]:
    with Session(service.engine) as s:
        return list(s.exec(select(OutboxMail).order_by(OutboxMail.id)).all())


def commands_of(service: GameService, game_id: int, seat: int) -> list[Event]:
    with Session(service.engine) as s:
        return list(s.exec(select(Event).where(Event.game_id == game_id, Event.kind == "command", Event.seat == seat)
                           .order_by(Event.seq)).all())


def play_until(service: GameService, game_id: int, done) -> None:
    """The people play as the quick robot would (a game that ends), the robots their own, until ``done(info)``."""
    robots = RobotPlayers(service)
    for _ in range(5000):
        info = service.get(game_id)
        if done(info) or info.over:
            return
        seat = info.state.current_player()
        if info.player(seat).robot:
            robots.play_due([game_id])
        else:
            service.submit(game_id, info.email_of(seat), decide(info.kind, "heuristic", info.state, seat,
                                                                info.state.moves))
    raise AssertionError("the game did not get there")


def text(html: str) -> str:
    return re.sub(r"\s+", " ", re.sub(r"<[^>]+>", "", html))


def bob_played_a_turn(service: GameService, game_id: int) -> None:
    play_until(service, game_id, lambda info: len(commands_of(service, game_id, 1)) >= 1
               and info.state.current_player() != 1)


@pytest.mark.parametrize("new", ["robot", DAN])
def test_a_seat_handed_over_midway_credits_each_step_to_who_played_it(game_service: GameService, new: str) -> None:
    service = game_service
    game_id = service.create_game("fifth-avenue", [ANN, BOB, CY], seed=4)
    bob_played_a_turn(service, game_id)
    bobs = [e.data["command"] for e in commands_of(service, game_id, 1)]
    before = len(mails(service))
    service.replace_player(game_id, BOB[1], new, name=None if new == "robot" else "Dan", reason="Bob left")
    heir = "Bob (robot)" if new == "robot" else "Dan"

    # The mails of the replacement tell Bob's moves as Bob's, though the seat is another's now.
    told = [m for m in mails(service)[before:] if m.recipient in (ANN[1], CY[1])]
    assert told
    for mail in told:
        said = mail.text_body
        assert f"{heir} played: {bobs[0]}" not in said
        if bobs[0] in said:
            assert f"Bob played: {bobs[0]}" in said, said

    # The new holder's moves are theirs.
    play_until(service, game_id, lambda info: len(commands_of(service, game_id, 1)) > len(bobs)
               and info.state.current_player() != 1)
    later = commands_of(service, game_id, 1)[len(bobs)]

    # To the end: the archive shows both holders, and both have the game on their page and in their rating.
    play_until(service, game_id, lambda info: False)
    said = "\n".join(m.text_body for m in mails(service)[before:] if m.recipient in (ANN[1], CY[1]))
    assert f"{heir} played: {later.data['command']}" in said
    # The last mail's final scores credit the seat to both who played it.
    holders = f"Bob, then {'robot' if new == 'robot' else 'Dan'}"
    last = [m for m in mails(service) if m.recipient == ANN[1]][-1]
    scores = last.text_body.split("Final scores:")[1].split("\n\n")[0]
    assert any(" ".join(line.split()).startswith(holders) for line in scores.splitlines()), scores
    assert holders in text(last.html_body)
    summary = next(s for s in history.summaries(service.engine) if s.id == game_id)
    seat = summary.players[1]
    assert [h.label for h in seat.holders] == ["Bob", "robot" if new == "robot" else "Dan"]
    step = seat.holders[1].first_step
    assert seat.shown() == f"Bob, then {'robot' if new == 'robot' else 'Dan'} (from step {step})"
    assert seat.holders[0].last_step == step - 1 and seat.holders[0].moves == len(bobs)
    assert sum(h.share for h in seat.holders) == pytest.approx(1.0)
    record = history.record(service.engine, game_id)
    page = text(game_page(record, []))
    assert seat.shown() in page
    first = next(s for s in record.steps if s.seq == commands_of(service, game_id, 1)[0].seq)
    assert first.words[0] == f"Bob played: {bobs[0]}"  # the step Bob played is his on the game's page
    late = next(s for s in record.steps if s.seq == later.seq)
    assert late.words[0].startswith(f"{heir} played: ")

    bob_key, heir_key = (h.key for h in seat.holders)
    records = {r.key: r for r in player_records([summary])}
    assert records[bob_key].played == 1 and records[heir_key].played == 1
    assert records[bob_key].games[0].id == game_id
    assert f"to step {step - 1} of seat 2" in text(player_page(records[bob_key]))
    ratings = rate([summary])
    assert set(ratings) >= {bob_key, heir_key}
    # D47: each holder's rating moves by their share of the seat's commands.
    alone = rate([type(summary)(**{**summary.__dict__, "players": tuple(
        type(p)(**{**p.__dict__, "holders": ()}) if p.seat == 1 else p for p in summary.players)})])
    full = alone[heir_key][0].mu - 25.0
    assert ratings[heir_key][0].mu - 25.0 == pytest.approx(full * seat.holders[1].share)


def test_a_robot_covering_a_late_player_is_credited_with_its_moves_and_the_player_with_theirs(
        game_service: GameService) -> None:
    now = [utcnow()]
    service = GameService(game_service.engine, clock=lambda: now[0], mail_domain="example.org")
    game_id = service.create_game("fifth-avenue", [ANN, BOB, CY], seed=4,
                                  timing=Timing().changed({"deadline": "48h", "on-timeout": "robot"}))
    bob_played_a_turn(service, game_id)
    bobs = len(commands_of(service, game_id, 1))
    play_until(service, game_id, lambda info: info.state.current_player() == 1)
    now[0] += timedelta(hours=49)
    Timekeeper(service).check()  # Bob is late: a robot plays his seat
    RobotPlayers(service).play_due([game_id])
    robot_move = commands_of(service, game_id, 1)[bobs]
    assert robot_move.data["by"] == "robot"
    play_until(service, game_id, lambda info: info.state.current_player() == 1)
    info = service.get(game_id)
    service.submit(game_id, BOB[1], info.state.legal_commands()[0])  # Bob is back

    to_cy = [m for m in mails(service) if m.recipient == CY[1]]
    said = "\n".join(m.text_body for m in to_cy)
    assert f"Bob (robot) played: {robot_move.data['command']}" in said
    to_bob = "\n".join(m.text_body for m in mails(service) if m.recipient == BOB[1])
    assert f"A robot played for you (your deadline had passed): {robot_move.data['command']}" in to_bob

    summary = next(s for s in history.summaries(service.engine) if s.id == game_id)
    seat = summary.players[1]
    assert [h.label for h in seat.holders] == ["Bob", "robot", "Bob"]
    assert seat.shown().startswith("Bob, then robot (from step ")
    record = history.record(service.engine, game_id)
    step = next(s for s in record.steps if s.seq == robot_move.seq)
    assert step.words[0] == f"Bob (robot) played: {robot_move.data['command']}"
    assert seat.share(seat.holders[0].key) + seat.share(seat.holders[1].key) == pytest.approx(1.0)
