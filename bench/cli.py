"""CLI start-up benchmark: what a `pbem` command costs before and while it does its work.

Run: python bench/cli.py [--rounds 20] [--games 20]

Every command runs as a fresh process, as a moderator (or systemd, or Docker's
HEALTHCHECK) starts it, and the commands take turns round after round, so a
busy machine slows them all alike. For each: the median wall time and the
median CPU time (user + system, from the kernel's accounting of the child),
with the middle half of the rounds (25th to 75th percentile) as its spread.
The floors, in the same run:

- `python -c pass`: starting Python at all; `pbem --version` is measured
  against it (target: at most 1.5x);
- the floor program (FLOOR below): what any command that lists games with
  pbem's required stack must do: import Typer and SQLModel, let Typer parse
  its command line, make a SQLAlchemy engine for the same SQLite database, run
  one text query and print its rows as a Rich table. `pbem game list` is
  measured against it (target: at most 1.15x); `pbem status`, which reads
  more, is shown beside it;
- the same program without `import sqlmodel` ("core floor"): `pbem game list`
  reads with SQLAlchemy's core and never loads SQLModel, so what pbem adds of
  its own is its time over this one;
- `python -c "import sqlmodel"`, the floor of issue 16, for comparison.

A ratio is given twice: of the medians, and as the median of each round's
own ratio (the commands of a round ran side by side) with its spread.

The database is a SQLite file with --games games of Fifth Avenue, a few moves
played in each, named by a config file in the default place (XDG_CONFIG_HOME
points to the run's folder), as a moderator's is. pbem's modules are compiled to bytecode first, as pip does when
it installs a wheel (an editable install run with PYTHONDONTWRITEBYTECODE=1
would otherwise compile every module on every run, which no installed pbem does).
The `pbem` measured is the console script installed beside this Python (not a
pyenv shim, whose bash would be measured too), running the pbem this Python
imports (printed first; PYTHONPATH=. measures a checkout without installing it).
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

FLOOR = '''\
import sqlmodel  # noqa: F401 - the ORM every pbem command that reads the database is written with
import typer
from rich.console import Console
from rich.table import Table
from sqlalchemy import create_engine, text


def main(url: str) -> None:
    engine = create_engine(url)
    with engine.connect() as connection:
        rows = connection.execute(text("SELECT id, kind, status, updated_at FROM games ORDER BY id")).all()
    table = Table(title="games")
    for column in ("game", "kind", "status", "updated"):
        table.add_column(column)
    for row in rows:
        table.add_row(*map(str, row))
    Console().print(table)


typer.run(main)
'''


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
    from pbem.services.table.service import GameService
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


def pbem_script() -> str:
    """The `pbem` installed with this Python; else the first on PATH."""
    beside = Path(sys.executable).parent / "pbem"
    found = str(beside) if beside.is_file() else shutil.which("pbem")
    if found is None:
        raise SystemExit("no pbem installed: python -m pip install -e .")
    return found


def quartiles(values: list[float]) -> tuple[float, float, float]:
    low, middle, high = statistics.quantiles(values, n=4, method="inclusive")
    return low, middle, high


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--rounds", type=int, default=20)
    parser.add_argument("--games", type=int, default=20)
    args = parser.parse_args()
    pbem = pbem_script()
    import compileall

    import pbem as package

    source = Path(package.__file__).parent
    compileall.compile_dir(str(source), quiet=1)
    print(f"pbem {package.__version__} from {source}, run as {pbem}; Python {sys.version.split()[0]}")
    with tempfile.TemporaryDirectory() as folder:
        url = f"sqlite:///{Path(folder) / 'bench.sqlite3'}"
        fill(url, args.games)
        floor, core_floor = Path(folder) / "floor.py", Path(folder) / "core_floor.py"
        floor.write_text(FLOOR)
        core_floor.write_text(FLOOR.replace(FLOOR.splitlines(keepends=True)[0], ""))
        config = Path(folder) / "config" / "pbem" / "config.toml"
        config.parent.mkdir(parents=True)
        config.write_text(f'[database]\nurl = "{url}"\n')
        env = {name: value for name, value in os.environ.items() if not name.startswith("PBEM_")}
        env["XDG_CONFIG_HOME"] = str(config.parent.parent)
        commands = {
            "python -c pass": [sys.executable, "-c", "pass"],
            "python -c 'import sqlmodel'": [sys.executable, "-c", "import sqlmodel"],
            "floor program": [sys.executable, str(floor), url],
            "core floor (no SQLModel)": [sys.executable, str(core_floor), url],
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
    print(f"{args.rounds} rounds, {args.games} games in a SQLite database; medians, and the middle half of the rounds")
    print(f"{'command':30} {'wall ms':>8} {'cpu ms':>8}  {'cpu spread ms':>13}")
    for name in commands:
        low, middle, high = quartiles(cpus[name])
        print(f"{name:30} {statistics.median(walls[name]) * 1000:8.0f} {middle * 1000:8.0f}  "
              f"{low * 1000:6.0f}-{high * 1000:<6.0f}")
    ratios = [("pbem --version", "python -c pass", 1.5), ("pbem game list", "floor program", 1.15),
              ("pbem game list", "core floor (no SQLModel)", None), ("pbem status", "floor program", None),
              ("floor program", "python -c 'import sqlmodel'", None),
              ("pbem game list", "python -c 'import sqlmodel'", None)]
    print(f"{'ratio (cpu; wall)':48} {'medians':>13} {'per round':>10} {'spread':>11}  target")
    for name, base, target in ratios:
        if name not in commands:
            continue
        per_round = [cpu / floor_cpu for cpu, floor_cpu in zip(cpus[name], cpus[base])]
        low, middle, high = quartiles(per_round)
        of_medians = statistics.median(cpus[name]) / statistics.median(cpus[base])
        of_walls = statistics.median(walls[name]) / statistics.median(walls[base])
        print(f"{name + ' / ' + base:48} {of_medians:5.2f}; {of_walls:5.2f} {middle:10.2f} {low:5.2f}-{high:<5.2f}  "
              f"{f'<= {target}' if target else ''}")


if __name__ == "__main__":
    main()
