"""Manhattan robots: win rates against random and heuristic players, and decision times.

Run: python bench/robots_manhattan.py [--games N] [--strong-games M] [--budget B] [--seed S] [--jobs J]
     [--only heuristic|strong]

Lines (each over its own seeded games; game i of a line uses engine seed S + i):

- the heuristic robot against 1, 2 and 3 random players (2, 3 and 4 players), for both random policies of
  `pbem sim`: "uniform" (any legal command alike) and "by-kind" (a kind of command first: choose, play, pass);
- the searching robot (`strong`, budget B) against 3 heuristic robots (4 players), over M games (slow).

The robot under test sits at seat (i mod players) in game i, so every seat's share of the start is played.
A win shared by k players (tied on points, towers and the tallest tower, docs/rules.md M13) counts 1/k.
The interval is Wilson's 95% score interval over the games of the line. Decision times are per call of the
robot (its view built and handed over as a plain dict outside the timing), over every decision of the line:
median, 99th percentile and maximum of the CPU time of the process (what the robot costs on one core, also
when other programs share the machine), and the maximum of the wall-clock time, which a busy machine
inflates (the load average is printed). With --jobs above 1 the games run side by side in processes.
"""

from __future__ import annotations

import argparse
import json
import math
import os
import sys
import time
from collections.abc import Callable
from concurrent.futures import ProcessPoolExecutor
from functools import partial
from typing import Any

from pbem.games.manhattan import new_game
from pbem.games.manhattan.robots import DEFAULT_BUDGET, heuristic, strong
from pbem.games.rng import Rng
from pbem.services.offline.simulate import choose

Robot = Callable[[dict, list[str], int], str]


def wilson(wins: float, games: int, z: float = 1.96) -> tuple[float, float]:
    if games == 0:
        return 0.0, 1.0
    p = wins / games
    denom = 1 + z * z / games
    centre = p + z * z / (2 * games)
    spread = z * math.sqrt(p * (1 - p) / games + z * z / (4 * games * games))
    return (centre - spread) / denom, (centre + spread) / denom


def searching(budget: int) -> Robot:
    return partial(strong, budget=budget)


def play(players: int, seed: int, seats: list[Any]) -> tuple[list[float], dict[str, list[float]]]:
    """One game; ``seats[p]`` is a (name, robot) pair or a random policy's name. Returns each seat's share
    of the win and the robots' decision times (s) by name."""
    state = new_game(players, seed)
    rngs = [Rng(seed * 7919 + p) for p in range(players)]
    times: dict[str, list[float]] = {}
    while not state.is_terminal():
        seat = state.current_player()
        player = seats[seat]
        if isinstance(player, str):
            state.apply_action(seat, choose(state.legal_actions(), rngs[seat], player))
            continue
        name, robot = player
        view = json.loads(json.dumps(state.view(seat)))
        legal = state.legal_commands()
        wall, cpu = time.perf_counter(), time.process_time()
        command = robot(view, legal, rngs[seat].next_u64())
        cpu, wall = time.process_time() - cpu, time.perf_counter() - wall
        times.setdefault(name, []).append(cpu)
        times.setdefault(name + " wall", []).append(wall)
        state.apply_command(seat, command)
    winners = state.result["winners"]
    return [1 / len(winners) if p in winners else 0.0 for p in range(players)], times


def _game(args: tuple[int, int, int, list[Any]]) -> tuple[float, dict[str, list[float]]]:
    players, seed, game, lineup = args
    seat = game % players  # the robot under test (lineup[0]) moves round the table
    seats = lineup[-seat:] + lineup[:-seat] if seat else list(lineup)
    shares, times = play(players, seed, seats)
    return shares[seat], times


def line(label: str, players: int, lineup: list[Any], games: int, seed: int, jobs: int) -> None:
    tasks = [(players, seed + i, i, lineup) for i in range(games)]
    started = time.perf_counter()
    if jobs > 1:
        with ProcessPoolExecutor(jobs) as pool:
            results = list(pool.map(_game, tasks, chunksize=1))
    else:
        results = [_game(task) for task in tasks]
    wins = sum(share for share, _ in results)
    times: dict[str, list[float]] = {}
    for _, found in results:
        for name, values in found.items():
            times.setdefault(name, []).extend(values)
    low, high = wilson(wins, games)
    fair = 1 / players
    timing = "; ".join(f"{name} {ms(v, 0.5)} / {ms(v, 0.99)} / {ms(v, 1)} ms (wall max {ms(times[name + ' wall'], 1)}, "
                       f"{len(v)} decisions)" for name, v in sorted(times.items()) if not name.endswith(" wall"))
    load = " ".join(f"{x:.1f}" for x in os.getloadavg())
    print(f"{label:<28} {games:>5} {wins:>6.1f} {wins / games:>6.1%} [{low:.1%}, {high:.1%}]  fair {fair:.0%}  "
          f"{time.perf_counter() - started:>5.0f} s  load {load}  cpu median / p99 / max: {timing}", flush=True)


def ms(values: list[float], q: float) -> str:
    """The ``q`` quantile of ``values`` (seconds) in ms; 1 is the maximum."""
    ordered = sorted(values)
    return f"{ordered[min(len(ordered) - 1, int(q * len(ordered)))] * 1000:.2f}"


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--games", type=int, default=200, help="games per line of the heuristic robot")
    parser.add_argument("--strong-games", type=int, default=50, help="games of the searching robot's line")
    parser.add_argument("--budget", type=int, default=DEFAULT_BUDGET, help="the searching robot's simulations")
    parser.add_argument("--seed", type=int, default=1, help="engine seed of each line's first game")
    parser.add_argument("--jobs", type=int, default=1, help="games played side by side (times need 1)")
    parser.add_argument("--only", choices=("heuristic", "strong"), help="one robot's lines only")
    args = parser.parse_args(argv)
    print(f"{'line':<28} {'games':>5} {'wins':>6} {'rate':>6} [95% Wilson interval]  (a shared win counts 1/k; "
          "the robot under test moves round the table)", flush=True)
    if args.only != "strong":
        for policy in ("uniform", "by-kind"):
            for players in (2, 3, 4):
                lineup = [("heuristic", heuristic)] + [policy] * (players - 1)
                line(f"heuristic vs {players - 1} {policy}", players, lineup, args.games, args.seed, args.jobs)
    if args.only != "heuristic":
        lineup = [("strong", searching(args.budget))] + [("heuristic", heuristic)] * 3
        line(f"strong({args.budget}) vs 3 heuristic", 4, lineup, args.strong_games, args.seed, args.jobs)


if __name__ == "__main__":
    main(sys.argv[1:])
