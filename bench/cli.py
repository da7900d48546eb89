"""CLI start-up benchmark: what a `pbem` command costs before and while it does its work.

Run: python bench/cli.py [--rounds 15] [--games 20]

Every command runs as a fresh process, as a moderator (or systemd, or Docker's
HEALTHCHECK) starts it, and the commands take turns round after round, so a
busy machine slows them all alike. For each: the median wall time and the
median CPU time (user + system, from the kernel's accounting of the child).
The floors, in the same run:

- `python -c pass`: starting Python at all; `pbem --version` is measured
  against it (target: at most 3x);
- `python -c "import sqlmodel"`: what any command that reads pbem's database
  must load; `pbem game list` and `pbem status` are measured against it
  (target: at most 1.3x).

The database is a SQLite file with --games games of Fifth Avenue, a few moves
played in each. pbem's modules are compiled to bytecode first, as pip does when
it installs a wheel (an editable install run with PYTHONDONTWRITEBYTECODE=1
would otherwise compile every module on every run, which no installed pbem does).
"""

from __future__ import annotations

import argparse
import os
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path


def run(argv: list[str], env: dict[str, str]) -> tuple[float, float]:
    """(wall seconds, CPU seconds) of one run of ``argv``, which must succeed."""
    start = time.perf_counter()
    process = subprocess.Popen(argv, env=env, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE)
    _, status, usage = os.wait4(process.pid, 0)
    wall = time.perf_counter() - start
    process.returncode = os.waitstatus_to_exitcode(status)
    if process.returncode not in (0, 1):  # pbem status exits 1 when no worker runs: still a full run
        raise SystemExit(f"{' '.join(argv)} failed ({process.returncode}): {process.stderr.read().decode()}")
    process.stderr.close()
    return wall, usage.ru_utime + usage.ru_stime


def fill(url: str, games: int) -> None:
    from pbem.services.games import GameService
    from pbem.store.db import make_engine, upgrade

    engine = make_engine(url)
    upgrade(engine)
    service = GameService(engine, mail_domain="example.test")
    players = [("Ann", "ann@example.test"), ("Bob", "bob@example.test"), ("Cy", "cy@example.test")]
    for seed in range(games):
        game_id = service.create_game("fifth-avenue", players, seed=seed)
        for _ in range(4):
            (email, commands), = service.legal(game_id)[1].items()
            service.submit(game_id, email, commands[0])
    engine.dispose()


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--rounds", type=int, default=15)
    parser.add_argument("--games", type=int, default=20)
    args = parser.parse_args()
    pbem = shutil.which("pbem")
    if pbem is None:
        raise SystemExit("no pbem on PATH: python -m pip install -e .")
    import compileall

    import pbem as package

    compileall.compile_dir(str(Path(package.__file__).parent), quiet=1)
    with tempfile.TemporaryDirectory() as folder:
        url = f"sqlite:///{Path(folder) / 'bench.sqlite3'}"
        fill(url, args.games)
        env = dict(os.environ, PBEM_DATABASE_URL=url, PBEM_CONFIG=os.devnull)
        commands = {
            "python -c pass": [sys.executable, "-c", "pass"],
            "python -c 'import sqlmodel'": [sys.executable, "-c", "import sqlmodel"],
            "pbem --version": [pbem, "--version"],
            "pbem game list": [pbem, "game", "list"],
            "pbem status": [pbem, "status"],
        }
        try:
            subprocess.run([pbem, "status", "--help"], env=env, capture_output=True, check=True)
        except subprocess.CalledProcessError:
            del commands["pbem status"]  # an older pbem
        for argv in commands.values():  # warm the file cache and the bytecode
            run(argv, env)
        walls: dict[str, list[float]] = {name: [] for name in commands}
        cpus: dict[str, list[float]] = {name: [] for name in commands}
        for _ in range(args.rounds):
            for name, argv in commands.items():
                wall, cpu = run(argv, env)
                walls[name].append(wall)
                cpus[name].append(cpu)
    wall = {name: statistics.median(values) for name, values in walls.items()}
    cpu = {name: statistics.median(values) for name, values in cpus.items()}
    print(f"{args.rounds} rounds, {args.games} games in a SQLite database; medians")
    print(f"{'command':32} {'wall ms':>8} {'cpu ms':>8}")
    for name in commands:
        print(f"{name:32} {wall[name] * 1000:8.0f} {cpu[name] * 1000:8.0f}")
    floor, database_floor = "python -c pass", "python -c 'import sqlmodel'"
    print(f"pbem --version / python -c pass: {wall['pbem --version'] / wall[floor]:.2f} wall, "
          f"{cpu['pbem --version'] / cpu[floor]:.2f} cpu (target <= 3)")
    for name in ("pbem game list", "pbem status"):
        if name in commands:
            print(f"{name} / import sqlmodel: {wall[name] / wall[database_floor]:.2f} wall, "
                  f"{cpu[name] / cpu[database_floor]:.2f} cpu (target <= 1.3)")


if __name__ == "__main__":
    main()
