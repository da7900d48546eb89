"""Archive benchmark: what a build costs the worker after a pass that changed no game, with many games stored.

Run: python bench/archive_idle.py [--backends sqlite,postgresql] [--sizes 10,1000,10000] [--reps 30]

A mail worker with ``[archive] dir`` calls ``pbem.archive.site.build(engine, folder)`` after every pass, and
most passes change nothing. For each database kind the store grows to each size in turn (games inserted in
bulk: a game, 2 to 4 seats from a pool of 40 people, its first event and snapshot, of both kinds); after each
growth one build writes the new pages (untimed but printed), then ``--reps`` builds with nothing changed are
timed. Printed: the median and the slowest CPU time of this process (``time.process_time``) and the median
wall time of a no-change build; on PostgreSQL the server's own CPU is not in the first two but is in the wall
time. PostgreSQL uses 127.0.0.1:5432 (database pbem_bench_archive_idle, recreated: not bench/store.py's
pbem_bench, which another benchmark may be using meanwhile).

``make_archive(engine, folder, games)`` is the setup, for benchmarks of the whole worker pass.
"""

from __future__ import annotations

import argparse
import statistics
import sys
import tempfile
import time
from datetime import datetime, timezone
from pathlib import Path

import sqlalchemy as sa

from pbem.archive.site import build
from pbem.games import get_game
from pbem.store.db import make_engine, upgrade
from pbem.store.models import Event, Game, Seat, Snapshot
from store import PG_ADMIN, settle  # bench/store.py

PG_DATABASE = "pbem_bench_archive_idle"

PEOPLE = [(f"Person{n:02d}", f"person{n:02d}@example.org") for n in range(40)]
KINDS = ("fifth-avenue", "manhattan")


def fresh_database(backend: str, folder: Path) -> sa.Engine:
    if backend == "sqlite":
        engine = make_engine(f"sqlite:///{folder / f'archive-idle-{time.time_ns()}.sqlite3'}")
    else:
        admin = sa.create_engine(PG_ADMIN, isolation_level="AUTOCOMMIT")
        with admin.connect() as connection:
            connection.exec_driver_sql(f'DROP DATABASE IF EXISTS "{PG_DATABASE}" WITH (FORCE)')
            connection.exec_driver_sql(f'CREATE DATABASE "{PG_DATABASE}"')
        admin.dispose()
        engine = make_engine(PG_ADMIN.rsplit("/", 1)[0] + "/" + PG_DATABASE)
    upgrade(engine)
    return engine


def insert_games(engine: sa.Engine, count: int) -> None:
    """``count`` more games, inserted in bulk: each a game row, its seats, its first event and snapshot."""
    if count <= 0:
        return
    now = datetime.now(timezone.utc)
    states = {(kind, players): get_game(kind).new_game(players=players, seed=players).to_json()
              for kind in KINDS for players in (2, 3, 4)}
    with engine.begin() as connection:
        start = connection.execute(sa.select(sa.func.coalesce(sa.func.max(Game.id), 0))).scalar_one() + 1
        games = [(i, KINDS[i % 2], 2 + i % 3) for i in range(start, start + count)]
        connection.execute(sa.insert(Game.__table__), [
            {"id": i, "kind": kind, "variant": "standard", "seed": players, "status": "active", "settings": {},
             "timing": {}, "created_at": now, "updated_at": now} for i, kind, players in games])
        connection.execute(sa.insert(Seat.__table__), [
            {"game_id": i, "seat": seat, "name": PEOPLE[(i * 7 + seat * 11) % len(PEOPLE)][0],
             "email": PEOPLE[(i * 7 + seat * 11) % len(PEOPLE)][1]}
            for i, _, players in games for seat in range(players)])
        connection.execute(sa.insert(Event.__table__), [
            {"game_id": i, "seq": 1, "actor": "moderator", "seat": None, "kind": "created", "text": "",
             "source": "bench", "data": {}, "created_at": now} for i, _, _ in games])
        connection.execute(sa.insert(Snapshot.__table__), [
            {"game_id": i, "seq": 1, "state": states[kind, players], "created_at": now} for i, kind, players in games])
        if engine.dialect.name == "postgresql":  # explicit ids: move the sequence past them
            connection.exec_driver_sql("SELECT setval('games_id_seq', (SELECT max(id) FROM games))")


def make_archive(engine: sa.Engine, folder: Path, games: int) -> float:
    """Grow the store to ``games`` games and build the site in ``folder``; the build's seconds."""
    with engine.connect() as connection:
        stored = connection.execute(sa.select(sa.func.count()).select_from(Game)).scalar_one()
    insert_games(engine, games - stored)
    settle(engine)
    start = time.perf_counter()
    build(engine, folder)
    return time.perf_counter() - start


def idle_builds(engine: sa.Engine, folder: Path, reps: int) -> tuple[list[float], list[float]]:
    """CPU and wall seconds of ``reps`` builds that find nothing changed."""
    cpu, wall = [], []
    for _ in range(reps):
        c0, w0 = time.process_time(), time.perf_counter()
        report = build(engine, folder)
        cpu.append(time.process_time() - c0)
        wall.append(time.perf_counter() - w0)
        assert report.pages == 0 and report.steps == 0, report  # nothing changed: nothing may be written
    return cpu, wall


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--backends", default="sqlite,postgresql")
    parser.add_argument("--sizes", default="10,1000,10000")
    parser.add_argument("--reps", type=int, default=30)
    args = parser.parse_args()
    print(f"{'backend':>10} {'games':>6} {'first build s':>14} {'no-change CPU ms (median max)':>30} "
          f"{'wall ms (median)':>17}")
    with tempfile.TemporaryDirectory(prefix="pbem-archive-idle-") as temp:
        for backend in args.backends.split(","):
            engine = fresh_database(backend, Path(temp))
            site = Path(temp) / f"site-{backend}"
            for size in sorted(int(x) for x in args.sizes.split(",")):
                first = make_archive(engine, site, size)
                build(engine, site)  # once untimed: the caches of this process and of the database warm
                cpu, wall = idle_builds(engine, site, args.reps)
                print(f"{backend:>10} {size:>6} {first:>14.1f} {statistics.median(cpu) * 1000:>19.2f} "
                      f"{max(cpu) * 1000:>10.2f} {statistics.median(wall) * 1000:>17.2f}", flush=True)
            engine.dispose()


if __name__ == "__main__":
    sys.exit(main())
