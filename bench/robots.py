"""Robot players' strength in both games: issue 19's table, one game after the other.

Run: python bench/robots.py [--games N] [--strong-games M] [--only heuristic|strong]

Runs bench/robots_fifth_avenue.py and then bench/robots_manhattan.py with the same options (each script's own
doc says what its lines are: win rates over N seeded games with 95% Wilson intervals, a shared win counted as
1/k, and decision times per robot). The searching robot takes up to about 2 s a decision, so its lines take
hours at 200 games; --strong-games sets their number apart. bench/robots_strong.py plays those lines game by
game into a kept record (bench/results/robots_strong.jsonl), so runs on different days add up to 200 games.
"""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

HERE = Path(__file__).resolve().parent


def only_heuristic(args: list[str]) -> bool:
    """Whether the arguments say --only heuristic (the scripts' own parsers check them)."""
    for i, arg in enumerate(args):
        if arg == "--only" and i + 1 < len(args):
            return args[i + 1] == "heuristic"
        if arg.startswith("--only="):
            return arg.split("=", 1)[1] == "heuristic"
    return False


def main() -> int:
    for script in ("robots_fifth_avenue.py", "robots_manhattan.py"):
        print(f"== {script}", flush=True)
        code = subprocess.call([sys.executable, str(HERE / script), *sys.argv[1:]])
        if code:
            return code
    if only_heuristic(sys.argv[1:]):
        return 0
    print("== robots_strong.py --summary (the kept record of the searching robot's lines)", flush=True)
    return subprocess.call([sys.executable, str(HERE / "robots_strong.py"), "--summary"])


if __name__ == "__main__":
    sys.exit(main())
