"""`pbem db backup` and `pbem db check` by the installed command (issue 45, point 4); the backup taken while games
are played is tests/integration/test_backup.py's."""

from __future__ import annotations

import json
import os
from pathlib import Path


def test_a_backup_is_checked_sound_and_never_overwrites_and_postgresql_is_told_pg_dump(tmp_path: Path,
                                                                                       pbem_with) -> None:
    run_pbem_with = pbem_with
    env = {name: value for name, value in os.environ.items() if not name.startswith("PBEM_")}
    env = dict(env, PBEM_CONFIG=os.devnull, PBEM_DATABASE_URL=f"sqlite:///{tmp_path / 'pbem.sqlite3'}")
    for args in (("db", "upgrade"), ("game", "new", "manhattan", "-p", "Ann=ann@example.test", "-p",
                                     "Bob=bob@example.test"), ("game", "play", "1", "--as", "ann@example.test",
                                                               "choose blue 1 1 2 3")):
        made = run_pbem_with(env, *args)
        assert made.returncode == 0, made.stderr
    backup = tmp_path / "backup.sqlite3"
    taken = run_pbem_with(env, "db", "backup", str(backup), "--json")
    assert taken.returncode == 0, taken.stderr
    assert json.loads(taken.stdout) == {"backup": str(backup), "bytes": backup.stat().st_size}
    checked = run_pbem_with(env, "db", "check", str(backup))
    assert checked.returncode == 0 and checked.stdout.splitlines()[-1] == "sound", checked.stdout + checked.stderr
    assert "1 game replayed to its stored state" in checked.stdout and "2 seats" in checked.stdout, checked.stdout
    again = run_pbem_with(env, "db", "backup", str(backup))
    assert again.returncode == 1 and again.stderr.splitlines() == [
        f"error: {backup} exists: pbem db backup never overwrites a file"], again.stderr
    behind = run_pbem_with(env, "db", "check", str(tmp_path / "none.sqlite3"))
    assert behind.returncode == 1 and len(behind.stderr.splitlines()) == 1, behind.stderr
    postgresql = run_pbem_with(dict(env, PBEM_DATABASE_URL="postgresql://pbem@127.0.0.1:1/pbem"), "db", "backup",
                               str(tmp_path / "x.sqlite3"))
    assert postgresql.returncode == 1 and "pg_dump" in postgresql.stderr and len(postgresql.stderr.splitlines()) == 1
    assert not (tmp_path / "x.sqlite3").exists()
