"""Board pictures: milliseconds per picture and PNG size, over positions of seeded random games.

Run: python bench/pictures.py [--games N] [--every K] [--seed S] [--game fifth-avenue|manhattan]
Every K-th position (and the last) of N random games (the `by-kind` policy of
`pbem sim`) of each player count, and for Fifth Avenue both sides of the board,
is drawn from one seat's view; Manhattan from every seat's side in turn. Prints
the median and the largest time (wall clock, and the process's CPU time, which
other work on a shared machine does not inflate) and size, and the limits the
pictures must keep (pbem.render.pictures: MAX_WIDTH, MAX_BYTES).
"""

from __future__ import annotations

import argparse
import io
import statistics
import time

from PIL import Image

from pbem.games import get_game, names
from pbem.games.rng import Rng
from pbem.render.pictures import MAX_BYTES, MAX_WIDTH, board_picture
from pbem.services.offline.simulate import choose

NAMES = ["Ann <ann@example.org>", "Bob <bob@example.org>", "Carla Díaz-Ramírez", "Dee"]


def positions(game: str, players: int, seed: int, every: int, options: dict):
    """Every ``every``-th position of one seeded random game, and its last."""
    state = get_game(game).new_game(players, seed=seed, **options)
    rng = Rng(seed)
    step = 0
    while not state.is_terminal():
        if step % every == 0:
            yield state
        state.apply_action(state.current_player(), choose(state.legal_actions(), rng, "by-kind"))
        step += 1
    yield state


def measure(game: str, games: int, every: int, seed: int) -> dict[str, float]:
    times: list[float] = []
    cpu: list[float] = []
    sizes: list[int] = []
    widest = 0
    sides = (False, True) if game == "fifth-avenue" else (False,)
    for back_side in sides:  # a first picture untimed: the fonts, the board's geometry and still parts
        board_picture(game, get_game(game).new_game(2, seed=seed, **({"back_side": True} if back_side else {}))
                      .view(0), players=NAMES[:2])
    for back_side in sides:
        for players in (2, 3, 4):
            options = {"back_side": True} if back_side else {}
            for i in range(games):
                for n, state in enumerate(positions(game, players, seed + i, every, options)):
                    view = state.view(n % players)
                    start, start_cpu = time.perf_counter(), time.process_time()
                    data = board_picture(game, view, players=NAMES[:players])
                    times.append(time.perf_counter() - start)
                    cpu.append(time.process_time() - start_cpu)
                    sizes.append(len(data))
                    widest = max(widest, Image.open(io.BytesIO(data)).width)
    return {
        "pictures": len(times),
        "ms_median": 1000 * statistics.median(times),
        "ms_max": 1000 * max(times),
        "cpu_median": 1000 * statistics.median(cpu),
        "cpu_max": 1000 * max(cpu),
        "kib_median": statistics.median(sizes) / 1024,
        "kib_max": max(sizes) / 1024,
        "width": widest,
    }


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--games", type=int, default=3, help="games of each player count (and side)")
    parser.add_argument("--every", type=int, default=10, help="draw every K-th position")
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument("--game", choices=names(), help="one game (default: every game)")
    args = parser.parse_args()
    print(f"limits: {MAX_WIDTH} px wide, {MAX_BYTES // 1024} KiB")
    header = ("game", "pictures", "ms median", "ms max", "cpu median", "cpu max", "KiB median", "KiB max", "width")
    print("{:>13} {:>8} {:>9} {:>7} {:>10} {:>7} {:>10} {:>7} {:>6}".format(*header))
    for game in [args.game] if args.game else names():
        m = measure(game, args.games, args.every, args.seed)
        print(f"{game:>13} {m['pictures']:>8} {m['ms_median']:>9.1f} {m['ms_max']:>7.1f} "
              f"{m['cpu_median']:>10.1f} {m['cpu_max']:>7.1f} {m['kib_median']:>10.1f} {m['kib_max']:>7.1f} "
              f"{m['width']:>6}")


if __name__ == "__main__":
    main()
