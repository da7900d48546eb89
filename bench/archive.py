"""Archive benchmark: the web site of 1,000 finished games built from scratch, and kept current game by game.

Run: python bench/archive.py [--games 1000] [--backend sqlite|postgresql] [--distinct 8]

The store gets ``--games`` finished games of both kinds (2 to 4 players, both Fifth Avenue board sides):
``--distinct`` whole games played through the game service with the random player, then exported and
imported again and again with their players drawn from a pool of 16 people, so that the player pages and the
ratings have many games each. Then, timed:

- a full build (``pbem archive build DIR --full``): every step of every game drawn, every page written;
- a build with nothing changed: what the worker pays after a pass that changed no game;
- one more command in a running game: its page (one new step) and the index;
- the move that ends that game: its page redrawn with every hand, the index, the player pages and ratings.

Printed: seconds, pages written, steps drawn, the site's size on disk, and the peak memory of the process.
PostgreSQL uses 127.0.0.1:5432 (database pbem_bench, recreated).
"""

from __future__ import annotations

import argparse
import json
import random
import resource
import sys
import tempfile
import time
from pathlib import Path

import sqlalchemy as sa

from pbem.archive.site import BuildReport, build
from pbem.services.table.game_transfer import export_game, import_game
from pbem.services.table.service import GameService
import checkout  # noqa: F401 - pbem_testing/ in reach (bench/checkout.py)
from pbem_testing.archive_games import Setup, play, random_commands, submit_commands
from store import fresh_database  # bench/store.py: the same fresh SQLite file or pbem_bench database

PEOPLE = [(f"Person{n:02d}", f"person{n:02d}@example.org") for n in range(16)]
# Names of the played games' seats, replaced in every copy: unlike any word of the games' texts.
STAND_INS = [("Zqa", "zqa@stand-in.example"), ("Zqb", "zqb@stand-in.example"), ("Zqc", "zqc@stand-in.example"),
             ("Zqd", "zqd@stand-in.example")]


def setups(count: int) -> list[Setup]:
    kinds = [("fifth-avenue", {}), ("manhattan", {}), ("fifth-avenue", {"back_side": True})]
    return [Setup(kinds[n % 3][0], tuple(STAND_INS[:2 + n % 3]), seed=100 + n, options=dict(kinds[n % 3][1]))
            for n in range(count)]


def fill(games: GameService, count: int, distinct: int) -> None:
    """``count`` finished games: ``distinct`` played, the rest imported copies with other people at the table."""
    exports = []
    for setup in setups(distinct):
        game_id, _ = play(games, setup)
        exports.append((len(setup.players), json.dumps(export_game(games, game_id))))
    rng = random.Random(7)
    for n in range(count - distinct):
        seats, text = exports[n % distinct]
        for (old_name, old_address), (name, address) in zip(STAND_INS, rng.sample(PEOPLE, seats)):
            text = text.replace(old_address, address).replace(old_name, name)
        import_game(games, json.loads(text))


def site_size(folder: Path) -> float:
    return sum(f.stat().st_size for f in folder.rglob("*") if f.is_file()) / 1e6


def timed(label: str, engine: sa.Engine, folder: Path, *, full: bool = False) -> BuildReport:
    start = time.perf_counter()
    report = build(engine, folder, full=full)
    seconds = time.perf_counter() - start
    print(f"{label:<34} {seconds:8.2f} s  {report.pages:6d} pages  {report.steps:7d} steps  "
          f"{site_size(folder):8.1f} MB on disk", flush=True)
    return report


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--games", type=int, default=1000)
    parser.add_argument("--distinct", type=int, default=8)
    parser.add_argument("--backend", choices=["sqlite", "postgresql"], default="sqlite")
    args = parser.parse_args()
    with tempfile.TemporaryDirectory(prefix="pbem-archive-bench-") as temp:
        folder = Path(temp)
        engine = fresh_database(args.backend, folder)
        games = GameService(engine, mail_domain="bench.example")
        start = time.perf_counter()
        fill(games, args.games, args.distinct)
        print(f"{args.games} finished games stored ({args.backend}) in {time.perf_counter() - start:.1f} s", flush=True)
        site = folder / "site"
        timed(f"full build, {args.games} games", engine, site, full=True)
        timed("nothing changed", engine, site)

        players = tuple(PEOPLE[:3])
        running, _ = play(games, Setup("fifth-avenue", players, seed=999, commands=0))
        commands = random_commands("fifth-avenue", 3, 999)
        submit_commands(games, running, players, commands[:-2])
        timed("a new running game", engine, site)
        submit_commands(games, running, players, commands[-2:-1])
        timed("one more command in it", engine, site)
        submit_commands(games, running, players, commands[-1:])
        timed("the command that ends it", engine, site)
        peak = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024
        print(f"peak memory of the process: {peak:.0f} MB")
        engine.dispose()


if __name__ == "__main__":
    sys.exit(main())
