"""An idle pass of the worker costs the same with 3 or 30 games (issue 32, point 11): each step finds its due work
in an index, so the robots' turn loads only games where a robot must decide, and the deadlines' turn reads only
what falls due. What is tested here is behaviour: the robots are still found after every kind of change, the
games waiting for a person are not loaded, a digest player's day and a refusal's digest still come, and the
statements a pass sends do not grow with the games (bench/idle_pass.py measures the time)."""

from __future__ import annotations

import json
import os
from datetime import datetime, timedelta, timezone
from pathlib import Path
from typing import Any, Iterator

import pytest
import sqlalchemy as sa
from sqlmodel import Session, select

from pbem.config import MailConfig, ServerConfig
from pbem.services.table import robot_seats
from pbem.services.common.deadlines import aware
from pbem.services.table.service import GameService
from pbem.services.mail_in.refusals import RefusalDigest
from pbem.services.table.robot_names import robot_address
from pbem.services.table.robot_seats import RobotPlayers
from pbem.services.clock.timekeeper import Timekeeper
from pbem.services.common.timing import Timing
from pbem.worker import MailWorker
from pbem.store.db import alembic_config, current_revision, make_engine, upgrade
from pbem.store.models import Game, InboundMail, OutboxMail, Seat
from pbem_testing.clock import StoppedClock

ANN, BOB, CY = ("Ann", "ann@example.org"), ("Bob", "bob@example.org"), ("Cy", "cy@example.org")
ROBO = ("Robo", "robot")
MODERATOR = "mod@example.org"


@pytest.fixture
def clock() -> StoppedClock:
    return StoppedClock(datetime(2026, 11, 23, 9, 0, tzinfo=timezone.utc))


@pytest.fixture
def service(db_engine: sa.Engine, clock: StoppedClock) -> GameService:
    return GameService(db_engine, clock=clock, mail_domain="example.org")


def mover(service: GameService, game_id: int) -> tuple[int, str]:
    """The seat that must decide, and its robot ("" for a person)."""
    info = service.get(game_id)
    seat = info.state.current_player()
    return seat, info.player(seat).robot


def person_plays(service: GameService, game_id: int) -> None:
    """People play (the first legal command) until a robot must decide."""
    while not (robot := mover(service, game_id)[1]):
        info = service.get(game_id)
        service.submit(game_id, info.email_of(info.state.current_player()), info.state.legal_commands()[0])
    assert robot


def moves(service: GameService, game_id: int) -> int:
    return service.get(game_id).state.moves


# --------------------------------------------------------------------------- the robots' games


def test_a_robot_whose_decision_is_due_is_found_after_every_kind_of_change(service: GameService) -> None:
    robots = RobotPlayers(service)
    game = service.create_game("manhattan", [ANN, BOB, ROBO], seed=4)
    assert robots.due_games() == []  # created: Ann begins

    person_plays(service, game)  # commands: the robot's decision comes
    assert robots.due_games() == [game]
    done = robots.play_due()
    assert done.moves and {g for g, _, _ in done.moves} == {game} and robots.due_games() == []
    assert mover(service, game)[1] == ""

    service.undo(game, steps=1)  # undo: the robot's decision again
    assert mover(service, game)[1] and robots.due_games() == [game]
    assert robots.play_due().moves and robots.due_games() == []

    person_plays(service, game)
    service.set_status(game, "pause")  # paused: nobody plays
    assert robots.due_games() == [] and not robots.play_due().moves
    service.set_status(game, "resume")
    assert robots.due_games() == [game]

    copy = service.import_game(json.loads(json.dumps(service.export(game))))  # an import keeps it due
    assert robots.due_games() == [game, copy]
    assert {g for g, _, _ in robots.play_due().moves} == {game, copy}
    assert robots.due_games() == []

    seat, _ = mover(service, game)  # a person must decide; the seat goes to a robot: due at once
    email = service.get(game).email_of(seat)
    service.replace_player(game, email, "robot:strong")
    assert robots.due_games() == [game]
    service.replace_player(game, robot_address(seat), "dee@example.org")  # and back to a person: not due
    assert robots.due_games() == []

    person_plays(service, copy)
    service.set_status(copy, "abort")  # over: no robot's business any more
    assert robots.due_games() == []


def test_a_late_players_seat_taken_by_a_robot_is_found_and_given_back(service: GameService, clock: StoppedClock) -> None:
    """on-timeout=robot: the timekeeper gives the late seat to a robot, which the next robots' turn finds; the
    player's own command takes it back, and the seat is a person's again when it must next decide."""
    robots = RobotPlayers(service)
    game = service.create_game("fifth-avenue", [ANN, BOB, CY], seed=9,
                               timing=Timing().changed({"deadline": "48h", "on-timeout": "robot"}))
    late = mover(service, game)[0]
    assert robots.due_games() == []
    clock.now += timedelta(hours=49)
    Timekeeper(service).check()
    assert mover(service, game) == (late, "heuristic") and robots.due_games() == [game]
    played = robots.play_due()
    assert played.moves and all(seat == late for _, seat, _ in played.moves) and robots.due_games() == []

    play_until(service, game, late)  # the others play on: the seat's next decision is the robot's again
    assert robots.due_games() == [game]
    info = service.get(game)
    service.submit(game, info.email_of(late), info.state.legal_commands()[0])  # the player is back first
    assert service.get(game).player(late).robot == ""
    play_until(service, game, late)
    assert robots.due_games() == [] and not robots.play_due().moves


def play_until(service: GameService, game_id: int, seat: int) -> None:
    """The others play (the first legal command) until ``seat`` must decide."""
    while (info := service.get(game_id)).state.current_player() != seat:
        service.submit(game_id, info.email_of(info.state.current_player()), info.state.legal_commands()[0])


def test_play_due_loads_no_game_where_a_person_must_decide(service: GameService, monkeypatch) -> None:
    robots = RobotPlayers(service)
    waiting = [service.create_game("manhattan", [ANN, BOB, ROBO], seed=n) for n in range(1, 4)]
    due = service.create_game("manhattan", [ANN, BOB, ROBO], seed=5)
    person_plays(service, due)
    loaded: list[int] = []
    real_get = service.get
    monkeypatch.setattr(service, "get", lambda game_id: loaded.append(game_id) or real_get(game_id))

    done = robots.play_due()
    assert {g for g, _, _ in done.moves} == {due}
    assert set(loaded) == {due}  # the three games waiting for Ann were never loaded
    loaded.clear()
    assert not robots.play_due(waiting).moves and loaded == []  # after a mail to one of them: nothing loaded
    assert not robots.play_due().moves and loaded == []


def test_a_game_marked_for_its_robots_by_mistake_is_loaded_once_and_unmarked(service: GameService) -> None:
    """No change leaves a game marked where a person must decide; should a database hold one all the same (the
    mark written by hand here), the robots' turn loads it once, finds no robot to play and clears the mark."""
    robots = RobotPlayers(service)
    game = service.create_game("manhattan", [ANN, BOB, ROBO], seed=6)
    with Session(service.engine) as s:
        row = s.get(Game, game)
        row.robot_due = True
        s.add(row)
        s.commit()
    assert robots.due_games() == [game]
    assert not robots.play_due().moves and robots.due_games() == []
    assert moves(service, game) == 0


def test_a_stuck_robot_is_tried_once_a_turn_and_again_by_the_next(service: GameService, monkeypatch) -> None:
    robots = RobotPlayers(service)
    game = service.create_game("manhattan", [ANN, BOB, ROBO], seed=7)
    person_plays(service, game)
    tries: list[int] = []

    def broken(kind, robot, state, seat, seed):  # type: ignore[no-untyped-def]
        tries.append(seat)
        return "play 99 nowhere 9"

    monkeypatch.setattr(robot_seats, "decide", broken)
    done = robots.play_due()
    assert [g for g, _, _ in done.failed] == [game] and tries == [2]  # once, not again and again
    assert robots.due_games() == [game]  # still due: the next turn tries again
    robots.play_due()
    assert tries == [2, 2]


# --------------------------------------------------------------------------- the days of delivery "digest"


def daily_mails(service: GameService, game: int, email: str) -> list[OutboxMail]:
    with Session(service.engine) as s:
        return [m for m in s.exec(select(OutboxMail).where(OutboxMail.game_id == game, OutboxMail.recipient == email)
                                  .order_by(OutboxMail.id)).all() if m.text_body.startswith("Your daily mail")]


def digest_day(service: GameService, game: int, seat: int) -> datetime | None:
    with Session(service.engine) as s:
        day = s.exec(select(Seat.digest_at).where(Seat.game_id == game, Seat.seat == seat)).one()
    return None if day is None else aware(day)


def play_a_little(service: GameService, game: int, count: int) -> None:
    for _ in range(count):
        info = service.get(game)
        service.submit(game, info.email_of(info.state.current_player()), info.state.legal_commands()[0])


def test_a_digest_day_starts_with_the_choice_and_ends_with_it(service: GameService, clock: StoppedClock) -> None:
    keeper = Timekeeper(service)
    game = service.create_game("fifth-avenue", [ANN, BOB, CY], seed=8)
    assert digest_day(service, game, 2) is None
    service.set_delivery(game, "digest")  # the game's choice: everybody's day starts now
    assert [digest_day(service, game, seat) for seat in range(3)] == [clock.now] * 3
    service.set_delivery(game, "turns", BOB[1])  # Bob's own choice: no day for him
    assert digest_day(service, game, 1) is None
    clock.now += timedelta(hours=2)
    play_a_little(service, game, 6)
    assert keeper.check().daily == []  # not a day yet
    clock.now += timedelta(hours=23)
    daily = keeper.check().daily
    assert (game, CY[1]) in daily and all(email != BOB[1] for _, email in daily)
    assert len(daily_mails(service, game, CY[1])) == 1 and digest_day(service, game, 2) == clock.now

    copy = service.import_game(json.loads(json.dumps(service.export(game))))  # an import starts the days too
    assert digest_day(service, copy, 2) == clock.now and digest_day(service, copy, 1) is None

    service.set_delivery(game, "all")  # the game's choice changes: the days go
    assert [digest_day(service, game, seat) for seat in range(3)] == [None, None, None]
    clock.now += timedelta(days=2)
    play_a_little(service, game, 2)
    assert all(g != game for g, _ in keeper.check().daily)


def test_a_digest_day_of_a_game_that_ended_is_dropped_once(service: GameService, clock: StoppedClock) -> None:
    keeper = Timekeeper(service)
    game = service.create_game("fifth-avenue", [ANN, BOB, CY], seed=10)
    service.set_delivery(game, "digest", CY[1])
    service.set_status(game, "abort")
    clock.now += timedelta(days=1, hours=1)
    assert keeper.check().daily == [] and digest_day(service, game, 2) is None


# --------------------------------------------------------------------------- refusals told


def refuse(engine: sa.Engine, n: int, address: str, at: datetime) -> None:
    with Session(engine) as s:
        s.add(InboundMail(message_id=f"<forged-{n}@elsewhere.example>", mailbox="INBOX", sender=address,
                          outcome="no-secret", reason="no secret word", received_at=at, seat_email=address))
        s.commit()


def test_refusals_are_told_within_the_hour_and_after_the_worker_was_away(service: GameService,
                                                                         clock: StoppedClock) -> None:
    digest = RefusalDigest(service_ledger(service))
    refuse(service.engine, 1, ANN[1], clock.now - timedelta(days=8))  # too old to tell when first seen
    refuse(service.engine, 2, ANN[1], clock.now)
    assert digest.tell() == [ANN[1]]
    clock.now += timedelta(minutes=20)
    refuse(service.engine, 3, ANN[1], clock.now)
    assert digest.tell() == []  # Ann heard of it 20 minutes ago
    clock.now += timedelta(minutes=41)
    assert digest.tell() == [ANN[1]]
    clock.now += timedelta(minutes=30)
    refuse(service.engine, 4, ANN[1], clock.now)
    refuse(service.engine, 5, BOB[1], clock.now)
    assert digest.tell() == [BOB[1]]  # Ann's waits for her hour
    clock.now += timedelta(days=3)  # the worker was away
    assert digest.tell() == [ANN[1]]
    told = [m.text_body for m in outbox(service) if m.recipient == ANN[1]]
    assert [body.count("from ann@example.org") for body in told] == [1, 1, 1]  # each refusal once, the old never
    assert digest.tell() == []


def service_ledger(service: GameService) -> Any:
    from pbem.services.common.ledger import MailLedger

    return MailLedger(service.engine, clock=service.clock, mail_domain=service.mail_domain)


def outbox(service: GameService) -> list[OutboxMail]:
    with Session(service.engine) as s:
        return list(s.exec(select(OutboxMail).order_by(OutboxMail.id)).all())


# --------------------------------------------------------------------------- the statements of an idle pass


def host(service: GameService, clock: StoppedClock, first: int, count: int) -> None:
    """``count`` running games of every sort, none with anything due: robots waiting for a person, deadlines
    open, a player away, digest players (and, the first time, a refusal told)."""
    for n in range(first, first + count):
        kind = ("manhattan", "fifth-avenue")[n % 2]
        people = [(f"P{n}-{seat}", f"p{n}.{seat}@example.org") for seat in range(3)]
        timing = Timing().changed({"on-timeout": ("moderator", "auto", "robot")[n % 3]})
        if n % 3 == 1:
            people[2] = ROBO
        game = service.create_game(kind, people, seed=n, timing=timing)
        if n % 4 == 0:
            service.set_delivery(game, "digest", people[1][1])
        if n % 5 == 0:
            service.set_delivery(game, "digest")
    service.absences.add(f"p{first}.1@example.org", (clock.now + timedelta(days=10)).date(),
                         (clock.now + timedelta(days=12)).date())
    if first == 0:  # a forged mail yesterday, told then
        refuse(service.engine, first, f"p{first}.0@example.org", clock.now - timedelta(days=1))
        assert RefusalDigest(service_ledger(service)).tell() == [f"p{first}.0@example.org"]


def statements_of_an_idle_pass(engine: sa.Engine, clock: StoppedClock) -> int:
    nowhere = ServerConfig("127.0.0.1", 9, "plain")
    worker = MailWorker(engine, MailConfig(imap=nowhere, smtp=nowhere, game_address="game@example.org",
                                           moderator=MODERATOR), clock=clock, mail_domain="example.org")
    sent: list[str] = []

    def seen(_connection, _cursor, statement, *_args) -> None:  # type: ignore[no-untyped-def]
        sent.append(statement)

    clock.now += timedelta(minutes=30)
    assert not worker.robots_and_deadlines()  # the first look: its marks are written
    worker.heartbeat.beat()
    sa.event.listen(engine, "before_cursor_execute", seen)
    try:
        clock.now += timedelta(minutes=5)
        assert not worker.robots_and_deadlines()
        worker.heartbeat.beat()
    finally:
        sa.event.remove(engine, "before_cursor_execute", seen)
    return len(sent)


def test_an_idle_pass_sends_as_many_statements_with_30_games_as_with_3(db_engine: sa.Engine, clock: StoppedClock) -> None:
    service = GameService(db_engine, clock=clock, mail_domain="example.org")
    host(service, clock, 0, 3)
    few = statements_of_an_idle_pass(db_engine, clock)
    host(service, clock, 3, 30)  # 33 games, as busy
    with Session(db_engine) as s:
        assert s.exec(select(sa.func.count()).select_from(Game)).one() == 33
    many = statements_of_an_idle_pass(db_engine, clock)
    assert few == many, (few, many)


# --------------------------------------------------------------------------- migration 0014


@pytest.fixture(params=["sqlite", "postgresql"])
def empty_url(request: pytest.FixtureRequest, tmp_path: Path) -> Iterator[str]:
    """An empty database of each kind, of this test alone (it is migrated step by step)."""
    if request.param == "sqlite":
        yield f"sqlite:///{tmp_path / 'old.sqlite3'}"
        return
    url = request.getfixturevalue("postgres_url")  # skips, or fails under CI, without PostgreSQL
    admin_url = os.environ.get("PBEM_TEST_PG_ADMIN", "postgresql+psycopg://postgres@127.0.0.1:5432/test")
    name = f"{url.rsplit('/', 1)[1]}_m0014"
    admin = sa.create_engine(admin_url, isolation_level="AUTOCOMMIT")
    with admin.connect() as connection:
        connection.exec_driver_sql(f'DROP DATABASE IF EXISTS "{name}" WITH (FORCE)')
        connection.exec_driver_sql(f'CREATE DATABASE "{name}"')
    yield url.rsplit("/", 1)[0] + "/" + name
    with admin.connect() as connection:
        connection.exec_driver_sql(f'DROP DATABASE IF EXISTS "{name}" WITH (FORCE)')
    admin.dispose()


def migrate(engine: sa.Engine, revision: str) -> None:
    """Up or down to ``revision``."""
    from alembic import command

    config = alembic_config(engine)
    up = (current_revision(engine) or "") < revision
    with engine.begin() as connection:
        config.attributes["connection"] = connection
        (command.upgrade if up else command.downgrade)(config, revision)


def copy_rows(source: sa.Engine, target: sa.Engine) -> None:
    """Every game's rows of ``source`` into ``target`` (at an older revision), in the columns it has."""
    tables = ("games", "seats", "events", "snapshots", "decision_clocks")
    with source.connect() as reading, target.begin() as writing:
        for table in tables:
            old, new = (sa.Table(table, sa.MetaData(), autoload_with=reading),
                        sa.Table(table, sa.MetaData(), autoload_with=writing))
            rows = [dict(row._mapping) for row in reading.execute(sa.select(*[old.c[c.name] for c in new.columns]))]
            writing.execute(new.insert(), rows)
        if target.dialect.name == "postgresql":
            for table in tables:
                writing.exec_driver_sql(f"SELECT setval('{table}_id_seq', (SELECT max(id) FROM {table}))")


def test_migration_0014_marks_the_games_a_robot_must_move_and_starts_the_digest_days(empty_url: str,
                                                                                    tmp_path: Path) -> None:
    scratch = GameService(make_engine(f"sqlite:///{tmp_path / 'scratch.sqlite3'}"), mail_domain="example.org")
    upgrade(scratch.engine)
    waiting = scratch.create_game("manhattan", [ANN, BOB, ROBO], seed=1)  # Ann to decide
    due = scratch.create_game("manhattan", [ANN, BOB, ROBO], seed=2)
    person_plays(scratch, due)
    paused = scratch.create_game("manhattan", [ANN, BOB, ROBO], seed=3)
    person_plays(scratch, paused)
    scratch.set_status(paused, "pause")
    digest = scratch.create_game("fifth-avenue", [ANN, BOB, CY], seed=4)
    scratch.set_delivery(digest, "digest", CY[1])
    engine = make_engine(empty_url)
    migrate(engine, "0013")
    copy_rows(scratch.engine, engine)
    with engine.begin() as connection:  # before 0014 the day started at the timekeeper's first look
        connection.exec_driver_sql("UPDATE seats SET digest_at = NULL")
    migrate(engine, "0014")

    def marked() -> set[int]:  # read in SQL: the ORM's tables are of the newest revision, not 0014's
        with engine.connect() as connection:
            return {row[0] for row in connection.exec_driver_sql("SELECT id FROM games WHERE robot_due")}

    assert marked() == {due}
    with engine.connect() as connection:
        days = {(game, seat): day for game, seat, day in
                connection.exec_driver_sql("SELECT game_id, seat, digest_at FROM seats")}
    assert days[(digest, 2)] is not None and days[(digest, 1)] is None and days[(waiting, 0)] is None
    migrate(engine, "0013")  # down and up again, with the games in it
    migrate(engine, "0014")
    assert marked() == {due}
    upgrade(engine)  # the later revisions, to play the games with today's pbem
    after = GameService(engine, mail_domain="example.org")
    assert RobotPlayers(after).due_games() == [due]
    assert {g for g, _, _ in RobotPlayers(after).play_due().moves} == {due}
    engine.dispose()
    scratch.engine.dispose()
