"""Engine throughput: random full games per second and commands per second, one core.

Run: python bench/engine.py [--games N] [--seed S]
Random players (both policies of `pbem sim`) list every legal command at every
step, so the figures include that cost. by-kind games run the auctions and
building stops far more often than uniform ones.
"""

from __future__ import annotations

import argparse
import time
import tracemalloc

from pbem.services.simulate import POLICIES, play_random_game


def measure(players: int, games: int, seed: int, back_side: bool, policy: str) -> dict[str, float]:
    commands = 0
    start = time.perf_counter()
    for i in range(games):
        state, _ = play_random_game("fifth-avenue", players, seed + i, back_side=back_side, policy=policy)
        commands += state.moves
    elapsed = time.perf_counter() - start
    return {"games_per_s": games / elapsed, "commands_per_s": commands / elapsed, "commands_per_game": commands / games}


def state_size(players: int, seed: int, policy: str) -> tuple[int, int]:
    """JSON size of a finished game's state, and peak Python memory of playing it."""
    tracemalloc.start()
    state, _ = play_random_game("fifth-avenue", players, seed, policy=policy)
    _, peak = tracemalloc.get_traced_memory()
    tracemalloc.stop()
    return len(state.to_json()), peak


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--games", type=int, default=200)
    parser.add_argument("--seed", type=int, default=1)
    args = parser.parse_args()
    header = ("policy", "players", "side", "games/s", "commands/s", "cmds/game", "state KiB", "peak KiB")
    print("{:>8} {:>7} {:>5} {:>9} {:>11} {:>10} {:>10} {:>9}".format(*header))
    for policy in POLICIES:
        for back_side in (False, True):
            for players in (2, 3, 4):
                m = measure(players, args.games, args.seed, back_side, policy)
                size, peak = state_size(players, args.seed, policy)
                side = "back" if back_side else "front"
                print(
                    f"{policy:>8} {players:>7} {side:>5} {m['games_per_s']:>9.1f} {m['commands_per_s']:>11.0f} "
                    f"{m['commands_per_game']:>10.1f} {size / 1024:>10.1f} {peak / 1024:>9.1f}"
                )


if __name__ == "__main__":
    main()
