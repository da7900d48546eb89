"""The share of pbem's answers that list a line which is not the player's, on the reply corpus (issue 41, point 4).

Run: python bench/reply_noise.py [--corpus DIR] [--show]

Each reply of tests/data/replies (or DIR: ``*.eml`` with a ``.json`` sidecar naming the player's ``own`` lines and
``commands``) is handled as Ann's mail in a new game on a SQLite file (a dry run). Printed: how many answers list a
line that is not the player's (goal: at most 5%), how many commands were not read, and with --show what was
listed. Compare two checkouts by running each one's copy of this script on the same corpus.
"""

from __future__ import annotations

import argparse
import tempfile
from pathlib import Path

import checkout  # noqa: F401 - pbem_testing/ in reach (bench/checkout.py)
from pbem.services.mail_in.mail_commands import MailCommands
from pbem.services.table.service import GameService
from pbem.store.db import make_engine, upgrade
from pbem_testing.reply_noise import CORPUS, measure

PLAYERS = [("Ann", "ann@example.org"), ("Bob", "bob@example.org"), ("Cy", "cy@example.org")]


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--corpus", type=Path, default=CORPUS)
    parser.add_argument("--show", action="store_true", help="print what each noisy answer listed")
    args = parser.parse_args()
    engine = make_engine(f"sqlite:///{Path(tempfile.mkdtemp(prefix='pbem-bench-')) / 'noise.sqlite3'}")
    upgrade(engine)
    games = GameService(engine)
    games.create_game("fifth-avenue", PLAYERS, seed=41)
    found = measure(MailCommands(games), "Ann <ann@example.org>", "Re: [Fifth Avenue #1] Ann, Bob, Cy", args.corpus)
    print(f"{found.replies} replies; answers listing a line that is not the player's: {len(found.noisy)} "
          f"({found.share:.1%}; goal at most 5%); replies with a command not read: {len(found.missed)}")
    by_shape: dict[str, int] = {}
    for name in found.noisy:
        shape = name.rsplit("_", 1)[0]
        by_shape[shape] = by_shape.get(shape, 0) + 1
    if by_shape:
        print("noisy, by shape: " + ", ".join(f"{shape} {n}" for shape, n in sorted(by_shape.items())))
    if args.show:
        for name, extra in {**found.noisy}.items():
            print(f"  {name}: {extra}")
        for name, missed in found.missed.items():
            print(f"  {name}: not read {missed}")


if __name__ == "__main__":
    main()
