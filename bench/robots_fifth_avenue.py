"""Fifth Avenue robots: win rates against random players and each other, and decision times, one core.

Run: python bench/robots_fifth_avenue.py [--games N] [--strong-games M] [--budget B] [--seed S] [--only WHAT]
     [--strong-side front|back|both]

Each line plays N seeded games (game i: engine seed S + i) with one robot at seat i mod players (so it plays
every seat alike) and prints its win rate with a 95% Wilson interval. A shared win counts as a fraction:
1/k of a win for each of k tied winners (after the tie-break on cards in hand). Robots play from their own
view, JSON round-tripped, as a mail game would hand it over; random players use pbem.services.offline.simulate.choose
with the policy named ("uniform": any legal command alike; "by-kind": first a kind of command, then one of
that kind). The 2-player lines include the engine's rule-bound robot bidder (Alea), which is not a player.

Lines: the heuristic robot against 2 and 3 random players (3 and 4 players) on both board sides and against
1 random player in the 2-player game, for both random policies; then the strong robot against 3 heuristic
robots (4 players). The strong robot is slow (up to about 2 s a decision at the default budget): --strong-games
sets its games apart (default 20). Decision times, in ms per decision, are of the robot's calls alone (the
view's JSON round trip and the engine's list of legal commands excluded; decisions with a single legal command
are not timed): the median, the maximum, and the slowest decision made again (the best of three runs; a
maximum far above it was the machine, another process or the garbage collector, not the robot).
"""

from __future__ import annotations

import argparse
import json
import math
import statistics
import time
from collections.abc import Callable

from pbem.games.fifth_avenue import new_game
from pbem.games.fifth_avenue.robots import DEFAULT_BUDGET, heuristic, strong
from pbem.games.rng import Rng
from pbem.services.offline.simulate import choose

Robot = Callable[[dict, list, int], str]


def wilson(wins: float, n: int, z: float = 1.96) -> tuple[float, float]:
    """The 95% Wilson score interval of a win rate (fractional wins allowed)."""
    if n == 0:
        return 0.0, 1.0
    p = wins / n
    centre = (p + z * z / (2 * n)) / (1 + z * z / n)
    half = z * math.sqrt(p * (1 - p) / n + z * z / (4 * n * n)) / (1 + z * z / n)
    return max(0.0, centre - half), min(1.0, centre + half)


def play(players: int, seed: int, seats: list[Robot | str], back_side: bool, times: dict[str, list[float]],
         slowest: dict[str, tuple[float, dict, list, int]]) -> dict:
    state = new_game(players=players, seed=seed, back_side=back_side)
    rng = Rng(seed ^ 0x5EED)
    while not state.is_terminal():
        player = state.current_player()
        seat = seats[player]
        if isinstance(seat, str):
            state.apply_action(player, choose(state.legal_actions(), rng, seat))
            continue
        legal = state.legal_commands()
        view = json.loads(json.dumps(state.view(player)))
        start, cpu = time.perf_counter(), time.process_time()
        command = seat(view, legal, seed * 100_003 + state.moves)
        elapsed, cpu = time.perf_counter() - start, time.process_time() - cpu
        if len(legal) > 1:
            times.setdefault(seat.__name__, []).append(elapsed)
            times.setdefault(seat.__name__ + " cpu", []).append(cpu)
            if elapsed > slowest.get(seat.__name__, (0.0,))[0]:
                slowest[seat.__name__] = (elapsed, view, legal, seed * 100_003 + state.moves)
        if command not in legal:
            raise AssertionError(f"{seat.__name__} answered {command!r}, not a legal command")
        state.apply_command(player, command)
    return state.result


def line(label: str, robot: Robot, others: Robot | str, players: int, games: int, seed: int,
         back_side: bool) -> None:
    wins = 0.0
    times: dict[str, list[float]] = {}
    slowest: dict[str, tuple[float, dict, list, int]] = {}
    start = time.perf_counter()
    for i in range(games):
        seat = i % players
        seats: list[Robot | str] = [others] * players
        seats[seat] = robot
        result = play(players, seed + i, seats, back_side, times, slowest)
        if seat in result["winners"]:
            wins += 1 / len(result["winners"])
    low, high = wilson(wins, games)
    robots = {robot.__name__: robot} | ({others.__name__: others} if callable(others) else {})
    timing = "; ".join(
        f"{name} {ms(statistics.median(ts))}/{ms(max(ts))}/{ms(retime(robots[name], *slowest[name][1:]))}"
        for name, ts in sorted(times.items()) if not name.endswith(" cpu")
    )
    print(f"{label:<48} {wins / games:6.1%}  [{low:5.1%}, {high:5.1%}]  {games:4d} games  "
          f"(ms per decision, median/max/slowest again: {timing}; {time.perf_counter() - start:.0f} s)", flush=True)


def ms(seconds: float) -> str:
    return f"{seconds * 1000:.2f}" if seconds < 0.1 else f"{seconds * 1000:.0f}"


def retime(robot: Robot, view: dict, legal: list, seed: int) -> float:
    """The slowest decision made again (the best of three): a maximum far above it was the machine (another
    process, the garbage collector), not the robot."""
    best = math.inf
    for _ in range(3):
        start = time.perf_counter()
        robot(view, legal, seed)
        best = min(best, time.perf_counter() - start)
    return best


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--games", type=int, default=200, help="games per line of the heuristic robot (200)")
    parser.add_argument("--strong-games", type=int, default=20, help="games of the strong robot (20)")
    parser.add_argument("--budget", type=int, default=DEFAULT_BUDGET,
                        help=f"the strong robot's simulations per decision ({DEFAULT_BUDGET})")
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument("--only", choices=("heuristic", "strong"), help="only these lines")
    parser.add_argument("--strong-side", choices=("front", "back", "both"), default="front",
                        help="the board side(s) of the strong robot's games (front)")
    args = parser.parse_args()

    def strong_robot(view: dict, legal: list, seed: int) -> str:
        return strong(view, legal, seed, budget=args.budget)

    strong_robot.__name__ = "strong"
    print("win rate of the robot, 95% Wilson interval; a shared win counts 1/k for k tied winners")
    if args.only != "strong":
        for policy in ("uniform", "by-kind"):
            for players in (3, 4):
                for back_side in (False, True):
                    side = "back" if back_side else "front"
                    line(f"heuristic vs {players - 1} random {policy}, {side} side", heuristic, policy, players,
                         args.games, args.seed, back_side)
            line(f"heuristic vs 1 random {policy}, 2 players + Alea", heuristic, policy, 2, args.games, args.seed,
                 False)
    if args.only != "heuristic":
        for side in ("front", "back"):
            if args.strong_side in (side, "both"):
                line(f"strong (budget {args.budget}) vs 3 heuristic, {side} side", strong_robot, heuristic, 4,
                     args.strong_games, args.seed, side == "back")


if __name__ == "__main__":
    main()
