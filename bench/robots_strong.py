"""The searching robots' win rates against three quick robots, gathered game by game into a kept record.

Run: python bench/robots_strong.py [--line NAME ...] [--games N] [--jobs J] [--minutes M] [--summary]

A searching robot's 4-player game takes one to three minutes of CPU, so a line of 200 games takes hours: more
than one sitting of a 2-CPU machine. Each finished game is therefore appended at once to
bench/results/robots_strong.jsonl (one JSON object a line), and a run plays only the games of each line that
the record does not hold yet, so runs on different days add up to one line of N games.

A game counts only for the code that played it: each record carries a fingerprint of the game's engine and
robots (the modules and data of its package but its help texts and deadline policy, and pbem/games/*.py), and
the summary counts the records of the current fingerprint alone; records of older code are shown as such and
never mixed in.

Game i of a line (i = 0 .. N-1) is the game that bench/robots_fifth_avenue.py and bench/robots_manhattan.py
play as game i of their strong line with the default --seed 1: engine seed 1 + i, the searching robot at seat
i mod 4, three quick robots in the other seats. A win shared by k players counts 1/k; the interval is Wilson's
95% score interval. Decision times are the searching robot's CPU time per decision (decisions with a single
legal command excluded in Fifth Avenue), over every recorded game of the line; a busy machine inflates wall
time, not CPU time. "machine" is the median of each game's machine_speed(): this VM's speed varies from day to
day, and so do the decision times with it.

Lines: fifth-avenue-front, fifth-avenue-back, manhattan (all by default). --minutes stops starting games after
M minutes (the games under way are finished and recorded); --summary only prints the table.
"""

from __future__ import annotations

import argparse
import hashlib
import json
import math
import subprocess
import sys
import time
from concurrent.futures import FIRST_COMPLETED, Future, ProcessPoolExecutor, wait
from dataclasses import dataclass
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

HERE = Path(__file__).resolve().parent
ROOT = HERE.parent
RECORD = HERE / "results" / "robots_strong.jsonl"
sys.path.insert(0, str(HERE))  # the two games' bench scripts, whose games these are

import robots_fifth_avenue  # noqa: E402
import robots_manhattan  # noqa: E402
from pbem.games.fifth_avenue import robots as fifth_avenue_robots  # noqa: E402
from pbem.games.manhattan import robots as manhattan_robots  # noqa: E402

PLAYERS = 4


@dataclass(frozen=True)
class Line:
    name: str
    package: str  # the engine's package under pbem/games
    back_side: bool = False

    @property
    def budget(self) -> int:
        return (fifth_avenue_robots if self.package == "fifth_avenue" else manhattan_robots).DEFAULT_BUDGET


LINES = {line.name: line for line in (
    Line("fifth-avenue-front", "fifth_avenue"),
    Line("fifth-avenue-back", "fifth_avenue", back_side=True),
    Line("manhattan", "manhattan"),
)}


NOT_PLAY = {"guide.py", "timeouts.py"}  # the players' help texts and what a deadline plays: no robot game uses them


def fingerprint(package: str) -> str:
    """What decides a game's course: the source and data of the engine and its robots, and the shared modules."""
    games = ROOT / "pbem" / "games"
    files = sorted(p for p in (games / package).iterdir() if p.suffix in (".py", ".json") and p.name not in NOT_PLAY)
    files += sorted(games.glob("*.py"))
    digest = hashlib.sha256()
    for path in files:
        digest.update(str(path.relative_to(games)).encode() + b"\0" + path.read_bytes() + b"\0")
    return digest.hexdigest()[:16]


def machine_speed() -> float:
    """How fast this core runs Python now, in ms for sum(range(10**6)), the best of three (a typical desktop
    core of the 2020s: about 11 ms). Decision times are comparable across machines and days only with it."""
    best = math.inf
    for _ in range(3):
        start = time.process_time()
        sum(range(10**6))
        best = min(best, time.process_time() - start)
    return round(best * 1000, 1)


def play(line_name: str, game: int) -> dict[str, Any]:
    """Game ``game`` of the line: the searching robot's share of the win and its decision times."""
    line = LINES[line_name]
    seed, seat = 1 + game, game % PLAYERS
    speed = machine_speed()
    started = time.process_time()
    if line.package == "fifth_avenue":
        def searching(view: dict, legal: list, robot_seed: int) -> str:
            return fifth_avenue_robots.strong(view, legal, robot_seed)

        searching.__name__ = "strong"
        seats: list[Any] = [fifth_avenue_robots.heuristic] * PLAYERS
        seats[seat] = searching
        times: dict[str, list[float]] = {}
        result = robots_fifth_avenue.play(PLAYERS, seed, seats, line.back_side, times, {})
        winners = result["winners"]
        share = 1 / len(winners) if seat in winners else 0.0
        cpu = times.get("strong cpu", [])
    else:
        lineup = [("strong", robots_manhattan.searching(line.budget))] + [("heuristic", manhattan_robots.heuristic)] * 3
        share, times = robots_manhattan._game((PLAYERS, seed, game, lineup))
        cpu = times.get("strong", [])
    return {
        "line": line.name, "game": game, "seed": seed, "seat": seat, "share": share, "budget": line.budget,
        "code": fingerprint(line.package), "decision_cpu_ms": [round(t * 1000, 1) for t in cpu],
        "game_cpu_s": round(time.process_time() - started, 1), "speed_ms": speed,
    }


def read_record() -> list[dict[str, Any]]:
    if not RECORD.exists():
        return []
    return [json.loads(text) for text in RECORD.read_text().splitlines() if text.strip()]


def current(records: list[dict[str, Any]], line: Line) -> dict[int, dict[str, Any]]:
    """The line's recorded games that today's code played, by game number."""
    code = fingerprint(line.package)
    return {r["game"]: r for r in records if r["line"] == line.name and r["code"] == code and r["budget"] == line.budget}


def run(lines: list[Line], games: int, jobs: int, minutes: float | None) -> None:
    records = read_record()
    todo = [(line.name, game) for game in range(games) for line in lines if game not in current(records, line)]
    if not todo:
        return
    stop_at = time.monotonic() + minutes * 60 if minutes is not None else None
    commit = subprocess.run(["git", "rev-parse", "--short", "HEAD"], cwd=ROOT, capture_output=True, text=True).stdout.strip()
    RECORD.parent.mkdir(parents=True, exist_ok=True)
    print(f"{len(todo)} games to play, {jobs} at a time", flush=True)
    with ProcessPoolExecutor(jobs) as pool, RECORD.open("a") as out:
        running: set[Future] = set()
        while todo or running:
            while todo and len(running) < jobs and (stop_at is None or time.monotonic() < stop_at):
                running.add(pool.submit(play, *todo.pop(0)))
            if not running:
                break
            finished, running = wait(running, return_when=FIRST_COMPLETED)
            for future in finished:
                record = future.result() | {"commit": commit, "at": datetime.now(UTC).isoformat(timespec="seconds")}
                out.write(json.dumps(record) + "\n")
                out.flush()
                print(f"{record['line']} game {record['game']}: share {record['share']:.2f}, "
                      f"{record['game_cpu_s']:.0f} s of CPU", flush=True)


def summary(lines: list[Line], games: int) -> None:
    records = read_record()
    print(f"{'line':<20} {'games':>5} {'wins':>6} {'rate':>6}  [95% Wilson]    fair  searching robot's CPU a decision: "
          "median / p99 / max (decisions)")
    for line in lines:
        mine = current(records, line)
        older = sum(1 for r in records if r["line"] == line.name) - len(mine)
        n, wins = len(mine), sum(r["share"] for r in mine.values())
        low, high = robots_manhattan.wilson(wins, n)
        cpu = sorted(t for r in mine.values() for t in r["decision_cpu_ms"])
        speeds = sorted(r["speed_ms"] for r in mine.values() if "speed_ms" in r)
        timing = (f"{cpu[len(cpu) // 2]:.0f} / {cpu[min(len(cpu) - 1, int(0.99 * len(cpu)))]:.0f} / {cpu[-1]:.0f} ms "
                  f"({len(cpu)}{f'; machine {speeds[len(speeds) // 2]:.0f} ms' if speeds else ''})") if cpu else "-"
        rate = wins / n if n else 0.0
        notes = [f"{games - n} of {games} still to play" if n < games else "",
                 f"{older} games of older code not counted" if older else ""]
        print(f"{line.name:<20} {n:>5} {wins:>6.1f} {rate:>6.1%}  [{low:5.1%}, {high:5.1%}]  {1 / PLAYERS:>4.0%}  {timing}"
              f"{'  ' + '; '.join(x for x in notes if x) if any(notes) else ''}  (budget {line.budget}, "
              f"code {fingerprint(line.package)})")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--line", action="append", choices=sorted(LINES), help="a line to play (all by default)")
    parser.add_argument("--games", type=int, default=200, help="games a line should hold (200)")
    parser.add_argument("--jobs", type=int, default=1, help="games played side by side, one core each (1)")
    parser.add_argument("--minutes", type=float, help="start no game after this many minutes")
    parser.add_argument("--summary", action="store_true", help="only print the table of what is recorded")
    args = parser.parse_args()
    lines = [LINES[name] for name in args.line] if args.line else list(LINES.values())
    if not args.summary:
        run(lines, args.games, args.jobs, args.minutes)
    summary(lines, args.games)


if __name__ == "__main__":
    main()
