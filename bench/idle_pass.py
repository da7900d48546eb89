"""Idle-pass benchmark: what a pass of the worker costs when no mail came and nothing is due, by games hosted.

Run: python bench/idle_pass.py [--backends sqlite,postgresql] [--sizes 10,1000,10000] [--passes 7]
     [--no-archive]

For each database kind and size, a fresh database gets that many running games (issue 32, point 11). A few
template games are played through the game service, each stopped where a person must decide:

- Fifth Avenue, three people;
- Manhattan, a person against a robot (the robot waits on the person);
- Fifth Avenue's back side, two people and two robots (one searching), on-timeout=robot;
- Manhattan, three people, one of them on delivery "digest" and another with an absence announced;
- Fifth Avenue, two people, the whole game on delivery "digest", on-timeout=auto;
- Manhattan, four people.

Every game has its deadlines on and its decision clock open, asked 20 minutes ago (nothing due). The other
games are copies of their rows (the game, its seats, events, snapshots, clocks), each with its own players from
a pool of about two games a person, plus the ledger's record of each command's mail and, now and then, a mail
refused for a seat's secret word and already told. The outbox is not copied: no step of an idle pass reads it.

Then the worker's idle pass as it runs it: ``robots_and_deadlines()``, ``keep_archive()`` (an ``[archive] dir``
whose site was built once, unless ``--no-archive``) and a heartbeat, after two passes of warm-up. Printed: the
median over ``--passes`` passes of the CPU time of this process (``time.process_time``; the PostgreSQL server's
own work is in the wall time only) and of the wall time, for the whole pass and for its steps, with the SQL
statements a pass sends. PostgreSQL uses 127.0.0.1:5432 (a database of its own, created and dropped).
"""

from __future__ import annotations

import argparse
import os
import statistics
import sys
import tempfile
import time
from dataclasses import dataclass
from datetime import datetime, timedelta, timezone
from pathlib import Path
from typing import Any, Callable

import sqlalchemy as sa

from pbem.config import ArchiveConfig, MailConfig, ServerConfig
from pbem.games import get_game
from pbem.games.rng import Rng
from pbem.services.table.service import GameService
from pbem.services.operations.heartbeat import ONCE, ONCE_EVERY
from pbem.services.table.robot_seats import RobotPlayers
from pbem.services.offline.simulate import choose
from pbem.services.clock.timekeeper import Timekeeper
from pbem.services.common.timing import Timing
from pbem.worker import MailWorker
from pbem.store.db import make_engine, upgrade
from pbem.store.models import (Absence, DecisionClock, Event, Game, InboundMail, Mark, OutboxMail, Seat, Snapshot)

PG_ADMIN = "postgresql+psycopg://postgres@127.0.0.1:5432/test"
PG_NAME = f"pbem_bench_idle_{os.getpid()}"
PG_URL = f"postgresql+psycopg://postgres@127.0.0.1:5432/{PG_NAME}"
MODERATOR = "mod@bench.example"
ASKED_AGO = timedelta(minutes=20)  # the templates are played this long before the passes: nothing is due yet
CHUNK = 2000  # rows an INSERT


@dataclass(frozen=True)
class Template:
    kind: str
    players: tuple[tuple[str, str], ...]  # (name, address or "robot"/"robot:strong")
    seed: int
    commands: int  # at least this many commands played, then on to a person's decision
    options: tuple[tuple[str, Any], ...] = ()
    timing: tuple[tuple[str, str], ...] = ()
    game_delivery: str = ""
    seat_delivery: tuple[tuple[int, str], ...] = ()
    away: tuple[int, ...] = ()  # seats whose player announced an absence


TEMPLATES = (
    Template("fifth-avenue", (("Ann", "ann@x"), ("Bob", "bob@x"), ("Cy", "cy@x")), 11, 14),
    Template("manhattan", (("Ann", "ann@x"), ("Robo", "robot")), 12, 10),
    Template("fifth-avenue", (("Ann", "ann@x"), ("Robo", "robot"), ("Bob", "bob@x"), ("Maxi", "robot:strong")), 13,
             12, options=(("back_side", True),), timing=(("on-timeout", "robot"),)),
    Template("manhattan", (("Ann", "ann@x"), ("Bob", "bob@x"), ("Cy", "cy@x")), 14, 12,
             seat_delivery=((2, "digest"),), away=(1,)),
    Template("fifth-avenue", (("Ann", "ann@x"), ("Bob", "bob@x")), 15, 10, timing=(("on-timeout", "auto"),),
             game_delivery="digest"),
    Template("manhattan", (("Ann", "ann@x"), ("Bob", "bob@x"), ("Cy", "cy@x"), ("Dee", "dee@x")), 16, 14),
)


class Clock:
    def __init__(self, now: datetime) -> None:
        self.now = now

    def __call__(self) -> datetime:
        return self.now


# --------------------------------------------------------------------------- databases


def fresh_database(backend: str, folder: Path) -> sa.Engine:
    if backend == "sqlite":
        engine = make_engine(f"sqlite:///{folder / f'idle-{time.time_ns()}.sqlite3'}")
    else:
        drop_postgres()
        admin = sa.create_engine(PG_ADMIN, isolation_level="AUTOCOMMIT")
        with admin.connect() as connection:
            connection.exec_driver_sql(f'CREATE DATABASE "{PG_NAME}"')
        admin.dispose()
        engine = make_engine(PG_URL)
    upgrade(engine)
    return engine


def drop_postgres() -> None:
    admin = sa.create_engine(PG_ADMIN, isolation_level="AUTOCOMMIT")
    with admin.connect() as connection:
        connection.exec_driver_sql(f'DROP DATABASE IF EXISTS "{PG_NAME}" WITH (FORCE)')
    admin.dispose()


def settle(engine: sa.Engine) -> None:
    """The statistics gathered and the pages written out before anything is timed (bench/store.py's reason)."""
    if engine.dialect.name == "postgresql":
        with engine.connect().execution_options(isolation_level="AUTOCOMMIT") as connection:
            connection.exec_driver_sql("VACUUM ANALYZE")
            connection.exec_driver_sql("CHECKPOINT")
    else:
        raw = engine.raw_connection()
        try:
            raw.execute("ANALYZE")
            raw.execute("PRAGMA wal_checkpoint(TRUNCATE)")
        finally:
            raw.close()


# --------------------------------------------------------------------------- the games


def address(template: Template, seat: int) -> str:
    local = template.players[seat][1]
    return local if local.startswith("robot") else local.replace("@x", "@bench.example")


def play_template(service: GameService, robots: RobotPlayers, template: Template) -> int:
    """One template game through the service, stopped where a person must decide."""
    timing = Timing().changed(dict(template.timing)) if template.timing else None
    game_id = service.create_game(template.kind, [(name, address(template, n)) for n, (name, _) in
                                                  enumerate(template.players)], seed=template.seed,
                                  options=dict(template.options), timing=timing)
    if template.game_delivery:
        service.set_delivery(game_id, template.game_delivery)
    for seat, mode in template.seat_delivery:
        service.set_delivery(game_id, mode, address(template, seat))
    rng = Rng(template.seed)
    while True:
        robots.play_due([game_id])
        info = service.get(game_id)
        assert not info.over, "a template game ended: choose fewer commands"
        if info.state.moves >= template.commands:
            return game_id
        action = choose(info.state.legal_actions(), rng, "by-kind")
        service.submit(game_id, info.email_of(info.state.current_player()), str(action))


def rows_of(connection: sa.Connection, table: sa.Table, game_id: int) -> list[dict[str, Any]]:
    rows = connection.execute(sa.select(table).where(table.c.game_id == game_id).order_by(table.c.id)).mappings()
    return [{k: v for k, v in row.items() if k != "id"} for row in rows]


def person(game: int, seat: int, pool: int) -> str:
    """A player of the pool (about two games a person), different at every seat of one game."""
    return f"p{(game * 7 + seat * 1009) % pool}@bench.example"


def insert(connection: sa.Connection, table: sa.Table, rows: list[dict[str, Any]]) -> None:
    for start in range(0, len(rows), CHUNK):
        connection.execute(sa.insert(table), rows[start:start + CHUNK])


def fill(engine: sa.Engine, size: int, now: datetime) -> None:
    """``size`` running games: the templates played, then copies of their rows."""
    clock = Clock(now - ASKED_AGO)
    service = GameService(engine, clock=clock, mail_domain="bench.example")
    robots = RobotPlayers(service)
    templates = [(t, play_template(service, robots, t)) for t in TEMPLATES[:size]]
    for template, game_id in templates:  # absences: from a week on, for three days
        for seat in template.away:
            service.absences.add(address(template, seat), (now + timedelta(days=7)).date(),
                                 (now + timedelta(days=9)).date())
    Timekeeper(service).check()  # the digest players' day starts (and nothing else is due)
    tables: dict[str, sa.Table] = {name: model.__table__ for name, model in (  # type: ignore[attr-defined]
        ("games", Game), ("seats", Seat), ("events", Event), ("snapshots", Snapshot), ("clocks", DecisionClock))}
    pool = max(8, size * 2)
    with engine.begin() as connection:
        connection.execute(sa.delete(Mark.__table__))  # the worker's first look is its own
        source = {}
        for template, game_id in templates:
            game = dict(connection.execute(sa.select(tables["games"]).where(tables["games"].c.id == game_id))
                        .mappings().one())
            source[game_id] = (template, game, {name: rows_of(connection, table, game_id)
                                                for name, table in tables.items() if name != "games"})
        copies: dict[str, list[dict[str, Any]]] = {name: [] for name in tables}
        ledger: list[dict[str, Any]] = []
        absences: list[dict[str, Any]] = []
        next_id = max(source) + 1
        for n in range(len(templates), size):
            template, game, rows = source[templates[n % len(templates)][1]]
            new = next_id
            next_id += 1
            emails = {seat["email"]: (seat["email"] if seat["robot"] else person(new, seat["seat"], pool))
                      for seat in rows["seats"]}
            copies["games"].append({**game, "id": new, "seed": game["seed"] + new})
            copies["seats"] += [{**seat, "game_id": new, "email": emails[seat["email"]],
                                 "name": seat["name"] if seat["robot"] else f"P{new}-{seat['seat']}"}
                                for seat in rows["seats"]]
            copies["events"] += [{**event, "game_id": new, "actor": emails.get(event["actor"], event["actor"])}
                                 for event in rows["events"]]
            copies["snapshots"] += [{**snapshot, "game_id": new} for snapshot in rows["snapshots"]]
            copies["clocks"] += [{**c, "game_id": new} for c in rows["clocks"]]
            for event in rows["events"]:
                if event["kind"] == "command" and event["actor"] in emails and "@robots." not in event["actor"]:
                    ledger.append(dict(message_id=f"<{new}.{event['seq']}@players.example>", mailbox="INBOX",
                                       uidvalidity=1, uid=len(ledger) + 1, sender=emails[event["actor"]],
                                       game_id=new, outcome="applied", reason="", received_at=event["created_at"],
                                       seat_email=""))
            if n % 50 == 0:  # a refused mail three days ago, its seat told then
                victim = next(email for email in emails.values() if "@robots." not in email)
                ledger.append(dict(message_id=f"<forged.{new}@elsewhere.example>", mailbox="INBOX", uidvalidity=1,
                                   uid=len(ledger) + 1, sender=victim, game_id=new, outcome="no-secret",
                                   reason="no secret word", received_at=now - timedelta(days=3),
                                   seat_email=victim))
            for seat in template.away:
                absences.append(dict(email=person(new, seat, pool), starts_at=now + timedelta(days=7),
                                     ends_at=now + timedelta(days=10), created_at=now - ASKED_AGO))
        for name in ("games", "seats", "events", "snapshots", "clocks"):
            insert(connection, tables[name], copies[name])
        insert(connection, InboundMail.__table__, ledger)  # type: ignore[attr-defined]
        insert(connection, Absence.__table__, absences)  # type: ignore[attr-defined]
        told = {row["seat_email"] for row in ledger if row["seat_email"]}
        insert(connection, Mark.__table__, [{"name": f"refused:{email}", "at": now - timedelta(days=3, minutes=-1)}
                                            for email in sorted(told)])  # type: ignore[attr-defined]
        if engine.dialect.name == "postgresql":  # explicit ids: move the sequence past them
            connection.exec_driver_sql("SELECT setval('games_id_seq', (SELECT max(id) FROM games))")


# --------------------------------------------------------------------------- the pass


class Statements:
    """SQL statements sent by this process (an SQLAlchemy event on the engine)."""

    def __init__(self, engine: sa.Engine) -> None:
        self.count = 0
        sa.event.listen(engine, "before_cursor_execute", self._seen)

    def _seen(self, *args: Any) -> None:
        self.count += 1


STEPS = ("robots and deadlines", "archive", "heartbeat")


def one_pass(worker: MailWorker) -> tuple[dict[str, tuple[float, float]], bool]:
    """The steps of an idle pass as the worker runs them, each (CPU s, wall s); and whether anything was done."""
    times: dict[str, tuple[float, float]] = {}
    did = False

    def step(name: str, call: Callable[[], Any]) -> None:
        nonlocal did
        cpu, wall = time.process_time(), time.perf_counter()
        result = call()
        times[name] = (time.process_time() - cpu, time.perf_counter() - wall)
        did = did or bool(result)

    step("robots and deadlines", worker.robots_and_deadlines)
    step("archive", worker.keep_archive)
    step("heartbeat", worker.heartbeat.beat)
    return times, did


def queued(engine: sa.Engine) -> int:
    with engine.connect() as connection:
        return connection.execute(sa.select(sa.func.count()).select_from(OutboxMail)).scalar_one()


def measure(engine: sa.Engine, site: Path | None, passes: int) -> tuple[dict[str, list[float]], int, list[str]]:
    nowhere = ServerConfig("127.0.0.1", 9, "plain")
    said: list[str] = []
    worker = MailWorker(engine, MailConfig(imap=nowhere, smtp=nowhere, game_address="game@bench.example",
                                           moderator=MODERATOR),
                        mail_domain="bench.example", archive=ArchiveConfig(folder=site), log=said.append)
    worker.heartbeat.start(ONCE, ONCE_EVERY)
    statements = Statements(engine)
    for _ in range(2):  # warm-up: the worker's first look at the deadlines, caches, the site's state file
        one_pass(worker)
    mails = queued(engine)
    figures: dict[str, list[float]] = {}
    counts = []
    for _ in range(passes):
        before = statements.count
        times, did = one_pass(worker)
        counts.append(statements.count - before)
        if did:
            said.append("(a measured pass did something: the games were not idle)")
        for name, (cpu, wall) in times.items():
            figures.setdefault(f"{name} cpu", []).append(cpu)
            figures.setdefault(f"{name} wall", []).append(wall)
        figures.setdefault("pass cpu", []).append(sum(cpu for cpu, _ in times.values()))
        figures.setdefault("pass wall", []).append(sum(wall for _, wall in times.values()))
    if queued(engine) != mails:
        said.append("(a measured pass queued mail: the games were not idle)")
    return figures, int(statistics.median(counts)), said


def ms(values: list[float]) -> str:
    return f"{statistics.median(values) * 1000:8.1f}"


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--backends", default="sqlite,postgresql")
    parser.add_argument("--sizes", default="10,1000,10000")
    parser.add_argument("--passes", type=int, default=7)
    parser.add_argument("--no-archive", action="store_true", help="a worker without [archive] dir")
    args = parser.parse_args()
    columns = ["pass cpu", "pass wall"] + [f"{step} {what}" for step in STEPS for what in ("cpu", "wall")]
    print("median of the passes, milliseconds (cpu: this process; wall: with the database server's share)")
    print(f"{'backend':>10} {'games':>6} {'build s':>8} " + " ".join(f"{c.replace('robots and deadlines', 'r+d'):>14}"
                                                                      for c in columns) + "   statements")
    for backend in args.backends.split(","):
        for size in (int(x) for x in args.sizes.split(",")):
            with tempfile.TemporaryDirectory(prefix="pbem-idle-bench-") as temp:
                engine = fresh_database(backend, Path(temp))
                try:
                    started = time.perf_counter()
                    fill(engine, size, datetime.now(timezone.utc))
                    settle(engine)
                    site = None
                    if not args.no_archive:
                        from pbem.archive.site import build

                        site = Path(temp) / "site"
                        build(engine, site, full=True)
                    built = time.perf_counter() - started
                    figures, statements, said = measure(engine, site, args.passes)
                    print(f"{backend:>10} {size:>6} {built:8.1f} " + " ".join(f"{ms(figures[c]):>14}" for c in columns)
                          + f"   {statements:>10}", flush=True)
                    for line in said:
                        print(f"{'':>18}{line}", file=sys.stderr)
                finally:
                    engine.dispose()
                    if backend == "postgresql":
                        drop_postgres()


if __name__ == "__main__":
    main()
