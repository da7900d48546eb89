"""Engine throughput: random full games per second and commands per second, one core.

Run: python bench/engine.py [--games N] [--seed S] [--game fifth-avenue|manhattan]
Random players (both policies of `pbem sim`) list every legal command at every
step, so the figures include that cost. by-kind games run the auctions and
building stops far more often than uniform ones.
"""

from __future__ import annotations

import argparse
import time
import tracemalloc

from pbem.games import names
from pbem.services.offline.simulate import POLICIES, play_random_game


def measure(game: str, players: int, games: int, seed: int, options: dict, policy: str) -> dict[str, float]:
    commands = 0
    start = time.perf_counter()
    for i in range(games):
        state, _ = play_random_game(game, players, seed + i, policy=policy, **options)
        commands += state.moves
    elapsed = time.perf_counter() - start
    return {"games_per_s": games / elapsed, "commands_per_s": commands / elapsed, "commands_per_game": commands / games}


def state_size(game: str, players: int, seed: int, policy: str) -> tuple[int, int]:
    """JSON size of a finished game's state, and peak Python memory of playing it."""
    tracemalloc.start()
    state, _ = play_random_game(game, players, seed, policy=policy)
    _, peak = tracemalloc.get_traced_memory()
    tracemalloc.stop()
    return len(state.to_json()), peak


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--games", type=int, default=200)
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument("--game", choices=names(), help="one game (default: every game)")
    args = parser.parse_args()
    for game in [args.game] if args.game else names():
        print(f"{game}:")
        report(game, args.games, args.seed)


def report(game: str, games: int, seed: int) -> None:
    sides = (False, True) if game == "fifth-avenue" else (False,)  # only Fifth Avenue has a back side
    header = ("policy", "players", "side", "games/s", "commands/s", "cmds/game", "state KiB", "peak KiB")
    print("{:>8} {:>7} {:>5} {:>9} {:>11} {:>10} {:>10} {:>9}".format(*header))
    for policy in POLICIES:
        for back_side in sides:
            for players in (2, 3, 4):
                m = measure(game, players, games, seed, {"back_side": True} if back_side else {}, policy)
                size, peak = state_size(game, players, seed, policy)
                side = "back" if back_side else "front"
                print(
                    f"{policy:>8} {players:>7} {side:>5} {m['games_per_s']:>9.1f} {m['commands_per_s']:>11.0f} "
                    f"{m['commands_per_game']:>10.1f} {size / 1024:>10.1f} {peak / 1024:>9.1f}"
                )


if __name__ == "__main__":
    main()
