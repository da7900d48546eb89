"""The installed `pbem` for scripts and shells: exit codes and --json of the schema commands and of `config
check`, going down a revision and up again, and the shell's completion."""

from __future__ import annotations

import json
import os
import shutil
import sqlite3
import subprocess
from pathlib import Path

import pytest

from pbem.store.db import shipped_revisions

ANN, BOB = "ann@example.org", "bob@example.org"
HEAD = shipped_revisions()[-1]
UNDONE = [revision for revision in reversed(shipped_revisions()) if revision > "0010"]  # what going down to 0010 undoes


def test_db_status_exits_1_unless_the_schema_is_current(tmp_path: Path, pbem) -> None:
    url = f"sqlite:///{tmp_path / 'pbem.sqlite3'}"
    missing = pbem(url, "db", "status", "--json", check=False)
    assert missing.returncode == 1 and not missing.stderr
    assert json.loads(missing.stdout) | {"url": None} == {"url": None, "from": "environment PBEM_DATABASE_URL",
                                                          "revision": None, "head": HEAD, "current": False,
                                                          "state": "behind"}
    assert not (tmp_path / "pbem.sqlite3").exists()  # looked at, not made
    assert pbem(url, "db", "upgrade", "--to", "0003").stdout == "Upgraded the database from empty to revision 0003.\n"
    behind = pbem(url, "db", "status", check=False)
    assert behind.returncode == 1 and "revision 0003, behind: run `pbem db upgrade`" in behind.stdout
    pbem(url, "db", "upgrade")
    current = pbem(url, "db", "status", "--json")
    assert (json.loads(current.stdout)["state"], current.returncode) == ("current", 0)
    with sqlite3.connect(tmp_path / "pbem.sqlite3") as connection:
        connection.execute("UPDATE alembic_version SET version_num = '9999'")
    ahead = pbem(url, "db", "status", "--json", check=False)
    assert ahead.returncode == 1 and json.loads(ahead.stdout)["state"] == "ahead"


def test_down_a_few_revisions_only_with_yes_and_up_again(tmp_path: Path, pbem, one_line_error) -> None:
    """(On SQLite: the commands are the same on both, and both databases walk every revision down and up with
    data in tests/integration/test_migrations.py.)"""
    url = f"sqlite:///{tmp_path / 'pbem.sqlite3'}"
    pbem(url, "db", "upgrade")
    assert pbem(url, "game", "new", "fifth-avenue", "-p", f"Ann={ANN}", "-p", f"Bob={BOB}", "--seed", "5").stdout \
        == "1\n"
    board = pbem(url, "game", "show", "1").stdout

    asked = pbem(url, "db", "downgrade", "0010", check=False)
    one_line_error(asked, f"going down from revision {HEAD} to 0010 undoes {len(UNDONE)} revisions ({', '.join(UNDONE)}): the "
                          "tables and columns added since are dropped with what they hold; back the database up, "
                          "stop the workers, and add --yes to do it")
    assert not asked.stdout and json.loads(pbem(url, "db", "status", "--json").stdout)["revision"] == HEAD

    down = pbem(url, "db", "downgrade", "0010", "--yes")
    lines = down.stdout.splitlines()
    assert lines[0] == f"Downgraded the database from {HEAD} to revision 0010."
    assert [line.split()[1] for line in lines if line.startswith("│ 00")] == UNDONE
    assert json.loads(pbem(url, "db", "status", "--json", check=False).stdout)["revision"] == "0010"

    up = json.loads(pbem(url, "db", "upgrade", "--to", "0012", "--json").stdout)
    assert (up["before"], up["after"], [r["revision"] for r in up["applied"]]) == ("0010", "0012", ["0011", "0012"])
    assert up["applied"][0]["title"].startswith("robot seats: a seat played by one of pbem's robot players")
    assert pbem(url, "db", "upgrade").stdout == f"Upgraded the database from 0012 to revision {HEAD}.\n"
    assert pbem(url, "game", "show", "1").stdout == board

    undone = json.loads(pbem(url, "db", "downgrade", "base", "--yes", "--json").stdout)
    assert (undone["before"], undone["after"]) == (HEAD, None)
    assert [r["revision"] for r in undone["undone"]] == shipped_revisions()[::-1]
    assert pbem(url, "db", "downgrade", "base").stdout == "The database is already at revision none.\n"


def test_a_revision_that_is_not_there_or_the_wrong_way_is_one_line(tmp_path: Path, pbem, one_line_error) -> None:
    url = f"sqlite:///{tmp_path / 'pbem.sqlite3'}"
    one_line_error(pbem(url, "db", "downgrade", "0001", "--yes", check=False), "there is no database at")
    pbem(url, "db", "upgrade", "--to", "0005")
    for args, fragment in (
            (["downgrade", "0099", "--yes"], "there is no revision 0099 to go down to (this pbem's revisions are "
                                             f"0001 to {HEAD}, and base)"),
            (["downgrade", "head", "--yes"], "there is no revision head to go down to"),
            (["downgrade", "0007", "--yes"], "the database is at revision 0005, older than 0007: "
                                             "`pbem db upgrade --to 0007` takes it up"),
            (["upgrade", "--to", "0003"], "the database is at revision 0005, newer than 0003: "
                                          "`pbem db downgrade 0003` takes it down"),
            (["upgrade", "--to", "latest"], "there is no revision latest to upgrade to"),
            (["downgrade"], "Missing argument 'REV'")):
        one_line_error(pbem(url, "db", *args, check=False), fragment)
    assert json.loads(pbem(url, "db", "status", "--json", check=False).stdout)["revision"] == "0005"


def test_config_check_says_the_same_in_json(dovecot, smtp_server, tmp_path: Path, pbem_with) -> None:
    env = dict(os.environ, PBEM_DATABASE_URL=f"sqlite:///{tmp_path / 'pbem.sqlite3'}", PBEM_CONFIG=os.devnull,
               PBEM_IMAP_HOST="127.0.0.1", PBEM_IMAP_PORT=str(dovecot.imap_port), PBEM_IMAP_SECURITY="plain",
               PBEM_IMAP_USER="game", PBEM_IMAP_PASSWORD="secret", PBEM_SMTP_HOST="127.0.0.1",
               PBEM_SMTP_PORT=str(smtp_server.port), PBEM_SMTP_SECURITY="plain", PBEM_GAME_ADDRESS="game@example.test")
    assert pbem_with(env, "db", "upgrade").returncode == 0
    check = pbem_with(env, "config", "check", "--json")
    assert check.returncode == 0, check.stderr
    doc = json.loads(check.stdout)
    assert doc["ok"] is True and doc["database"] == {"url": env["PBEM_DATABASE_URL"], "ok": True, "revision": HEAD,
                                                     "from": "environment PBEM_DATABASE_URL"}
    assert doc["imap"] == {"host": "127.0.0.1", "port": dovecot.imap_port, "security": "plain", "user": "game",
                           "mailbox": "INBOX", "ok": True, "mails": doc["imap"]["mails"], "error": None}
    assert isinstance(doc["imap"]["mails"], int)
    assert doc["smtp"] == {"host": "127.0.0.1", "port": smtp_server.port, "security": "plain", "user": "",
                           "ok": True, "error": None}
    people = pbem_with(env, "config", "check")
    assert f"INBOX holds {doc['imap']['mails']} mail" in people.stdout and "smtp 127.0.0.1" in people.stdout

    failed = pbem_with(dict(env, PBEM_IMAP_PASSWORD="wrong"), "config", "check", "--json")
    doc = json.loads(failed.stdout)
    assert failed.returncode == 1 and not failed.stderr
    assert (doc["ok"], doc["imap"]["ok"], doc["smtp"]["ok"]) == (False, False, True)
    assert doc["imap"]["error"] and doc["imap"]["mails"] is None
    people = pbem_with(dict(env, PBEM_IMAP_PASSWORD="wrong"), "config", "check")
    assert people.returncode == 1 and f"FAILED: {doc['imap']['error']}" in people.stdout


@pytest.mark.skipif(shutil.which("bash") is None, reason="no bash")
def test_bash_completes_pbem_with_the_script_pbem_prints(tmp_path: Path) -> None:
    """`pbem --show-completion`, typed in bash, prints a script that, loaded into bash, offers `game` for
    `pbem ga` and the subcommands of `pbem db`; `pbem --install-completion` installs the same script."""
    assert shutil.which("pbem"), "pbem is not installed"
    env = dict(os.environ, HOME=str(tmp_path), PBEM_CONFIG=os.devnull)

    def in_bash(script: str) -> str:
        # (`; true`: bash stays the parent of pbem instead of becoming it, so pbem finds bash above it)
        done = subprocess.run(["bash", "--norc", "--noprofile", "-c", f"{script}; true"], capture_output=True,
                              text=True, env=env, timeout=60)
        assert done.returncode == 0 and not done.stderr, done.stderr
        return done.stdout

    shown = in_bash("pbem --show-completion")
    assert "complete -o default -F _pbem_completion pbem" in shown
    (tmp_path / "pbem-completion.sh").write_text(shown)
    completed = in_bash(f"""
        source {tmp_path / 'pbem-completion.sh'}
        for line in 'pbem ga' 'pbem db ' 'pbem --ver' 'pbem worker --log'; do
            COMP_WORDS=($line); [[ $line == *' ' ]] && COMP_WORDS+=('')
            COMP_CWORD=$(( ${{#COMP_WORDS[@]}} - 1 ))
            _pbem_completion pbem
            echo "${{COMPREPLY[*]}}"
        done""")
    assert completed.splitlines() == ["game", "upgrade downgrade status backup check", "--version",
                                      "--log-format --log-level"], completed

    assert "bash completion installed in" in in_bash("pbem --install-completion")
    assert (tmp_path / ".bash_completions" / "pbem.sh").read_text().strip() == shown.strip()
    assert "pbem.sh" in (tmp_path / ".bashrc").read_text()
