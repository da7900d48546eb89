"""Store benchmark: load a game, and apply one command, with 1, 100 and 10,000 stored games.

Run: python bench/store.py [--backends sqlite,postgresql] [--sizes 1,100,10000] [--reps 20]
(issue 16 measured --sizes 100,100000: a load and a submit with 100,000 games stored against 100)

For each database kind and size, a fresh database gets the filler games (short
games inserted in bulk), then an *early* game (5 commands played) and a *late*
game (about 300 commands played, so its history is long). Reported: the median
and 95th percentile time of `GameService.get` (a load: latest snapshot plus the
commands after it) and of `GameService.submit` of one legal command (lock,
load, check, apply, append the event, snapshot when due, queue the mails,
commit). PostgreSQL uses 127.0.0.1:5432 (database pbem_bench, recreated).
"""

from __future__ import annotations

import argparse
import statistics
import tempfile
import time
from datetime import datetime, timezone
from pathlib import Path

import sqlalchemy as sa

from pbem.games.fifth_avenue import new_game
from pbem.games.rng import Rng
from pbem.services.table.service import GameService
from pbem.services.offline.simulate import choose
from pbem.store.db import make_engine, upgrade
from pbem.store.models import Event, Game, Seat, Snapshot

PG_ADMIN = "postgresql+psycopg://postgres@127.0.0.1:5432/test"
PG_BENCH = "postgresql+psycopg://postgres@127.0.0.1:5432/pbem_bench"
PLAYERS = [("Ann", "ann@example.org"), ("Bob", "bob@example.org"), ("Cy", "cy@example.org"), ("Dee", "dee@example.org")]


def fresh_database(backend: str, folder: Path) -> sa.Engine:
    if backend == "sqlite":
        path = folder / f"bench-{time.time_ns()}.sqlite3"
        engine = make_engine(f"sqlite:///{path}")
    else:
        admin = sa.create_engine(PG_ADMIN, isolation_level="AUTOCOMMIT")
        with admin.connect() as connection:
            connection.exec_driver_sql('DROP DATABASE IF EXISTS "pbem_bench" WITH (FORCE)')
            connection.exec_driver_sql('CREATE DATABASE "pbem_bench"')
        admin.dispose()
        engine = make_engine(PG_BENCH)
    upgrade(engine)
    return engine


def insert_fillers(engine: sa.Engine, count: int) -> None:
    """``count`` short games, inserted in bulk (each: a game, four seats, one event, one snapshot)."""
    if count <= 0:
        return
    now = datetime.now(timezone.utc)
    state = new_game(4, seed=1).to_json()
    with engine.begin() as connection:
        start = connection.execute(sa.select(sa.func.coalesce(sa.func.max(Game.id), 0))).scalar_one() + 1
        ids = range(start, start + count)
        connection.execute(sa.insert(Game.__table__), [
            {"id": i, "kind": "fifth-avenue", "variant": "standard", "seed": i, "status": "active", "settings": {},
             "created_at": now, "updated_at": now} for i in ids])
        connection.execute(sa.insert(Seat.__table__), [
            {"game_id": i, "seat": s, "name": name, "email": f"{i}.{email}"}
            for i in ids for s, (name, email) in enumerate(PLAYERS)])
        connection.execute(sa.insert(Event.__table__), [
            {"game_id": i, "seq": 1, "actor": "moderator", "seat": None, "kind": "created", "text": "",
             "source": "bench", "data": {}, "created_at": now} for i in ids])
        connection.execute(sa.insert(Snapshot.__table__), [
            {"game_id": i, "seq": 1, "state": state, "created_at": now} for i in ids])
        if engine.dialect.name == "postgresql":  # explicit ids: move the sequence past them
            connection.exec_driver_sql("SELECT setval('games_id_seq', (SELECT max(id) FROM games))")


def settle(engine: sa.Engine) -> None:
    """Let the database finish with the bulk insert before anything is timed: the statistics gathered and the
    written pages flushed (on PostgreSQL, autovacuum and the checkpointer would otherwise be busy with a
    gigabyte of new rows for minutes, and slow the first measurements down by a fifth)."""
    if engine.dialect.name == "postgresql":
        with engine.connect().execution_options(isolation_level="AUTOCOMMIT") as connection:
            connection.exec_driver_sql("VACUUM ANALYZE")
            connection.exec_driver_sql("CHECKPOINT")
    else:  # outside a transaction: a checkpoint cannot run inside one
        raw = engine.raw_connection()
        try:
            raw.execute("ANALYZE")
            raw.execute("PRAGMA wal_checkpoint(TRUNCATE)")
        finally:
            raw.close()


def commands_for(players: int, seed: int, count: int) -> list[tuple[int, str]]:
    """The first ``count`` commands of a long random game (by-kind policy)."""
    state = new_game(players, seed)
    rng = Rng(seed)
    played = []
    while len(played) < count and not state.is_terminal():
        action = choose(state.legal_actions(), rng, "by-kind")
        played.append((state.current_player(), str(action)))
        state.apply_action(state.current_player(), action)
    return played


def start_game(service: GameService, seed: int, commands: list[tuple[int, str]]) -> int:
    game_id = service.create_game("fifth-avenue", PLAYERS, seed=seed)
    for seat, command in commands:
        service.submit(game_id, PLAYERS[seat][1], command)
    return game_id


def timed(fn, reps: int) -> list[float]:  # type: ignore[no-untyped-def]
    times = []
    for _ in range(reps):
        t0 = time.perf_counter()
        fn()
        times.append((time.perf_counter() - t0) * 1000)
    return times


def summary(times: list[float]) -> str:
    times = sorted(times)
    p95 = times[min(len(times) - 1, int(round(0.95 * (len(times) - 1))))]
    return f"{statistics.median(times):7.2f} {p95:7.2f}"


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--backends", default="sqlite,postgresql")
    parser.add_argument("--sizes", default="1,100,10000")
    parser.add_argument("--reps", type=int, default=20)
    args = parser.parse_args()
    seed = 3
    long_game = commands_for(4, seed, 400)
    late = len(long_game) - args.reps - 5
    print(f"late game: {late} commands played before measuring (of a {len(long_game)}-command game)")
    print(f"{'backend':>10} {'games':>6} {'when':>5} {'load ms (median p95)':>22} {'submit ms (median p95)':>24}")
    with tempfile.TemporaryDirectory() as folder:
        for backend in args.backends.split(","):
            for size in (int(x) for x in args.sizes.split(",")):
                engine = fresh_database(backend, Path(folder))
                insert_fillers(engine, size - 2)
                settle(engine)
                service = GameService(engine)
                for when, played in (("early", 5), ("late", late)):
                    game_id = start_game(service, seed, long_game[:played])
                    load = timed(lambda: service.get(game_id), args.reps)
                    queue = iter(long_game[played:played + args.reps])

                    def submit_next() -> None:
                        seat, command = next(queue)
                        service.submit(game_id, PLAYERS[seat][1], command)

                    submit = timed(submit_next, args.reps)
                    print(f"{backend:>10} {size:>6} {when:>5} {summary(load):>22} {summary(submit):>24}", flush=True)
                engine.dispose()


if __name__ == "__main__":
    main()
