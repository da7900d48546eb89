"""The reading commands on a SQLite file this user may read but not write (issue 45, point 2), and `pbem status
--format prometheus`.

The shipped units make the database 0640 for the group pbem, in a folder only pbem writes: a monitoring user in
that group must be able to run `pbem status`. Here the file and its folder are made read-only; as root, whom no
mode stops, pbem runs without the capabilities that pass over modes (setpriv's bounding set), so the kernel
refuses it exactly as it refuses another user. Twice: with no connection open (no -wal file; before, every
reading command said "cannot reach the database ...: attempt to write a readonly database"), and while a writer
holds the database open in WAL mode, as a running worker does. A change is refused with one line that says
permission. Fresh processes (setpriv), no mail servers.
"""

from __future__ import annotations

import json
import os
import re
import shutil
import sqlite3
import subprocess
from pathlib import Path

import pytest

PBEM = shutil.which("pbem")
NO_OVERRIDE = ["setpriv", "--bounding-set=-dac_override,-dac_read_search,-fowner"]
pytestmark = pytest.mark.skipif(PBEM is None or (os.geteuid() == 0 and shutil.which("setpriv") is None),
                                reason="needs the installed pbem, and setpriv when run as root")


def environment(home: Path) -> dict[str, str]:
    env = {name: value for name, value in os.environ.items() if not name.startswith(("PBEM_", "XDG_"))}
    return dict(env, HOME=str(home), PBEM_CONFIG=os.devnull, COLUMNS="120")


def pbem(url: str, home: Path, *args: str, reader: bool = False) -> subprocess.CompletedProcess[str]:
    prefix = NO_OVERRIDE if reader and os.geteuid() == 0 else []
    return subprocess.run([*prefix, str(PBEM), "--db", url, *args], capture_output=True, text=True,
                          env=environment(home), timeout=120)


@pytest.fixture
def database(tmp_path: Path):
    folder = tmp_path / "data"
    folder.mkdir()
    url = f"sqlite:///{folder / 'pbem.sqlite3'}"
    for args in (("db", "upgrade"), ("game", "new", "fifth-avenue", "-p", "Ann=ann@example.test",
                                     "-p", "Bob=bob@example.test", "--seed", "3")):
        made = pbem(url, tmp_path, *args)
        assert made.returncode == 0, made.stderr
    yield folder, url
    folder.chmod(0o755)
    for path in folder.iterdir():
        path.chmod(0o644)


def read_only(folder: Path) -> None:
    for path in folder.iterdir():
        path.chmod(0o440)
    folder.chmod(0o555)


def reading_commands_work(url: str, home: Path) -> None:
    status = pbem(url, home, "status", "--json", reader=True)
    assert status.returncode in (0, 1) and "readonly" not in status.stderr, status.stderr
    figures = json.loads(status.stdout)
    assert figures["schema"]["current"] and figures["outbox"]["queued"] == 2, figures
    for args, seen in ((("game", "list"), "Ann, Bob"), (("game", "show", "1"), "Fifth Avenue #1 (active)"),
                       (("game", "history", "1"), "created"), (("db", "status"), "current")):
        proc = pbem(url, home, *args, reader=True)
        assert proc.returncode == 0 and seen in proc.stdout, (args, proc.stdout[-500:], proc.stderr)
    change = pbem(url, home, "game", "pause", "1", reader=True)
    assert change.returncode == 1 and change.stdout == "", change
    (line,) = change.stderr.splitlines()
    assert line.startswith("error: no permission to change the database ") and "nothing was changed" in line, line
    assert "cannot reach" not in line


def test_the_reading_commands_work_on_a_file_this_user_may_only_read(database, tmp_path: Path) -> None:
    folder, url = database
    assert not list(folder.glob("*-wal"))
    read_only(folder)
    reading_commands_work(url, tmp_path)
    assert sorted(path.name for path in folder.iterdir()) == ["pbem.sqlite3"]


def test_the_reading_commands_work_while_a_writer_holds_the_database(database, tmp_path: Path) -> None:
    folder, url = database
    writer = sqlite3.connect(folder / "pbem.sqlite3")  # as the running worker does: -wal and -shm exist
    try:
        writer.execute("PRAGMA journal_mode=WAL")
        writer.execute("UPDATE games SET id = id")
        writer.commit()
        assert (folder / "pbem.sqlite3-wal").exists() and (folder / "pbem.sqlite3-shm").exists()
        read_only(folder)
        reading_commands_work(url, tmp_path)
    finally:
        writer.close()


def test_status_in_prometheus_text_says_what_the_json_says(database, tmp_path: Path) -> None:
    _, url = database
    as_json = json.loads(pbem(url, tmp_path, "status", "--json").stdout)
    proc = pbem(url, tmp_path, "status", "--format", "prometheus")
    assert proc.returncode == (0 if as_json["healthy"] else 1), proc.stderr
    samples = {}
    for line in proc.stdout.splitlines():
        if line.startswith("#"):
            assert re.fullmatch(r"# (HELP pbem_\w+ .+|TYPE pbem_\w+ gauge)", line), line
            continue
        found = re.fullmatch(r'(pbem_\w+)(\{(\w+="[^"]*"(,\w+="[^"]*")*)\})? (-?\d+(\.\d+)?)', line)
        assert found, line
        samples[found.group(1) + (found.group(2) or "")] = float(found.group(5))
    assert samples["pbem_healthy"] == as_json["healthy"] and samples["pbem_problems"] == len(as_json["problems"])
    assert samples["pbem_outbox_queued"] == as_json["outbox"]["queued"] == 2
    assert samples["pbem_schema_current"] == 1 and samples['pbem_workers{state="running"}'] == 0
    assert samples["pbem_outbox_oldest_waiting_seconds"] >= 0 and "pbem_mailbox_waiting" not in samples
    wrong = pbem(url, tmp_path, "status", "--format", "yaml")
    assert wrong.returncode == 1 and wrong.stderr.splitlines() == [
        "error: --format must be table, json or prometheus, not 'yaml'"], wrong.stderr
