"""Issue 35, point 12: the moderator's tables fit an 80-column terminal and cut nothing.

Every command that prints a table for people runs as a new `pbem` process with COLUMNS=80 (rich reads the
width when the process starts, so these runs are never forked from the prestarted pbem, which has 120), on a
database with long names and addresses, a long reason, a worker with a long trouble and a long host name:

- no line is wider than 80 columns (``pbem status``'s "unhealthy: ..." lines excepted: one line each on
  purpose, for monitoring and `docker inspect`), with and without --wide;
- no cell is cut with an ellipsis "…", and what a moderator copies from a table (a game's number, a worker's
  token, a status, the name of who must act) is on one line whole;
- --json prints the same whatever the width and with --wide.

And every rich table of pbem.cli is made by ``pbem.cli.tables.people_table`` (so this test has them all).
"""

from __future__ import annotations

import json
import os
import re
import shutil
import subprocess
import sys
from collections.abc import Callable
from pathlib import Path

import pytest
from rich.cells import cell_len

ZOE = ("Zoë Lefèvre", "zoe.lefevre@example.org")
BART = ("Bartholomew Longname-Smythe", "bartholomew.longname-smythe@example-mail.org")
DMITRI = ("Dmitri Ivanovich Karamazov", "dmitri.karamazov@example.org")
LUKASZ = ("Łukasz Żółć", "lukasz@example.org")
HOST, TOKEN = "mail-worker-1.games.example.org", "3f2a9c01b7de"
TROUBLE = "cannot reach the IMAP server imap.games.example.org:993: connection refused"
REASON = "Zoë's mail was misread: she wrote place 34W orange but meant the plot next to it"


def pbem_at(url: str, columns: int) -> Callable[..., subprocess.CompletedProcess[str]]:
    command = [shutil.which("pbem")] if shutil.which("pbem") else [sys.executable, "-m", "pbem"]
    env = {key: value for key, value in os.environ.items() if key not in ("LINES", "TERM")}
    env.update(PBEM_DATABASE_URL=url, COLUMNS=str(columns), NO_COLOR="1")

    def run(*args: str, code: int = 0) -> subprocess.CompletedProcess[str]:
        proc = subprocess.run([*command, *args], capture_output=True, text=True, env=env, timeout=120)
        assert proc.returncode == code, (args, proc.stdout, proc.stderr)
        return proc
    return run


@pytest.fixture(scope="module")
def url(tmp_path_factory: pytest.TempPathFactory) -> str:
    url = f"sqlite:///{tmp_path_factory.mktemp('tables') / 'pbem.sqlite3'}"
    pbem = pbem_at(url, 120)
    pbem("db", "upgrade")
    pbem("game", "new", "fifth-avenue", *(f"-p{name}={address}" for name, address in (ZOE, BART, ("Cy", "cy@example.org"))),
         "--seed", "3")
    pbem("game", "new", "manhattan", *(f"-p{name}={address}" for name, address in (
        ("Ann", "ann@example.org"), ("Bob", "bob@example.org"), DMITRI, LUKASZ)), "--seed", "4")
    first = next(iter(json.loads(pbem("game", "legal", "1", "--json").stdout)["to_act"].values()))[0]
    pbem("game", "play", "1", "--as", ZOE[1], first)
    pbem("game", "undo", "1", "--steps", "1", "--reason", REASON)

    from pbem.services.operations.claims import Instance
    from pbem.services.operations.heartbeat import Heartbeat
    from pbem.store.db import make_engine

    engine = make_engine(url)
    beat = Heartbeat(engine, Instance(HOST, 4121, TOKEN))
    beat.start("worker", 60.0)
    beat.beat(trouble=TROUBLE)
    engine.dispose()
    return url


# (the command, its exit code, what must be on one line whole in its table)
TABLES = {
    "game list": (["game", "list"], 0, ["Fifth Avenue", "Manhattan", "active", ZOE[0]]),
    "game history": (["game", "history", "1"], 0, ["created", "command", "undo", "moderator"]),
    "outbox list": (["outbox", "list"], 0, ["queued", ZOE[1], DMITRI[1]]),
    "status": (["status"], 1, [TOKEN, "4121", "long-running"]),  # 1: the worker's trouble makes it unhealthy
    "sim": (["sim", "manhattan", "--players", "4", "--games", "3", "--seed", "1"], 0, ["last round"]),
}
WIDE = {"game list", "game history", "outbox list", "status"}
JSON = {"game list": ["game", "list", "--json"], "game history": ["game", "history", "1", "--json"],
        "outbox list": ["outbox", "list", "--json"]}


def too_wide(output: str, columns: int) -> list[str]:
    return [f"{cell_len(line)}: {line}" for line in output.splitlines()
            if cell_len(line) > columns and not line.startswith("unhealthy: ")]


@pytest.mark.parametrize("name", sorted(TABLES))
@pytest.mark.parametrize("wide", [False, True], ids=["narrow", "wide"])
def test_a_table_fits_80_columns_and_cuts_nothing(url: str, name: str, wide: bool) -> None:
    if wide and name not in WIDE:
        pytest.skip(f"pbem {name} has no --wide")
    args, code, whole = TABLES[name]
    shown = pbem_at(url, 80)(*args, *(["--wide"] if wide else []), code=code).stdout
    print(f"pbem {' '.join(args)}{' --wide' if wide else ''} at 80 columns: widest line "
          f"{max(cell_len(line) for line in shown.splitlines())}\n{shown}")
    assert "┃" in shown or "│" in shown, shown  # a table was printed
    assert not too_wide(shown, 80), "\n".join(too_wide(shown, 80))
    assert "…" not in shown, shown
    lines = shown.splitlines()
    for text in [] if wide else whole:  # --wide at 80 columns: every column, and long words fold
        assert any(text in line for line in lines), f"{text!r} is not whole on a line of pbem {name}:\n{shown}"


def test_the_downgrades_table_fits_80_columns(url: str, tmp_path: Path) -> None:
    copy = tmp_path / "copy.sqlite3"
    shutil.copy(url.removeprefix("sqlite:///"), copy)
    shown = pbem_at(f"sqlite:///{copy}", 80)("db", "downgrade", "0010", "--yes").stdout
    assert "0014" in shown and not too_wide(shown, 80) and "…" not in shown, shown


def test_json_is_the_same_at_any_width_and_with_wide(url: str) -> None:
    for name, args in JSON.items():
        wide = pbem_at(url, 200)(*args).stdout
        assert pbem_at(url, 80)(*args).stdout == wide, name
        assert pbem_at(url, 80)(*args, "--wide").stdout == wide, name
        json.loads(wide)
    status = [without_clock(json.loads(pbem_at(url, columns)("status", *extra, "--json", code=1).stdout))
              for columns, extra in ((200, []), (80, []), (80, ["--wide"]))]
    assert status[0] == status[1] == status[2]


def without_clock(found: object) -> object:
    """``pbem status --json`` without what changes from one second to the next (ages, when it looked, and the
    words that give an age: "no beat for 12 s")."""
    if isinstance(found, dict):
        return {key: without_clock(value) for key, value in found.items()
                if not key.endswith("_seconds") and key not in ("checked_at", "why", "problem", "problems")}
    if isinstance(found, list):
        return [without_clock(value) for value in found]
    return found


def test_every_table_of_the_cli_is_a_people_table() -> None:
    """A rich Table made anywhere else in pbem.cli would not be checked here: only the grid of `pbem status`'s
    figures (no borders, its values fold) is."""
    folder = Path(__file__).resolve().parents[2] / "pbem" / "cli"
    made = {path.name: len(re.findall(r"\bTable\(", path.read_text())) for path in folder.glob("*.py")}
    assert {name: count for name, count in made.items() if count} == {"tables.py": 1, "status.py": 1}, made
