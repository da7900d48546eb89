"""Every `pbem` command against a configuration that is wrong: it fails closed, in one line, before it starts.

The commands are those the Typer app has registered (a new command is in these tests at once, and fails them
until it has a sample below). Each runs in-process (CliRunner) with

- a misspelt key in its config file, and a misspelt PBEM_ variable: exit code 1, one line `error: ...` that
  names the file or the variable and the name meant, no traceback, and no file or folder made (the default
  database lives in a data directory of the test's own, where a command that fell back to it would make it);
- a password file that cannot be read: a command that logs in to a mail server stops with one line naming the
  file, before it changes anything; every other command does what it does with a readable one.
"""

from __future__ import annotations

import functools
import json
import os
import shutil
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Iterator

import pytest
import sqlalchemy as sa
import typer.main
import typer.testing
from typer.testing import CliRunner

from pbem.cli import app
from pbem.services.table.service import GameService
from pbem.store import db as store_db
from pbem.store.db import make_engine

pytestmark = pytest.mark.xdist_group("cli_config")  # one world for the module, made once on one worker

ANN, BOB, KIM = "ann@example.org", "bob@example.org", "kim@example.org"
RUNNER = CliRunner()


def registered_commands() -> list[str]:
    """Every command of the app, as typed after `pbem` ("game new", "status")."""
    found: list[str] = []

    def walk(prefix: str, command: Any) -> None:
        subcommands = getattr(command, "commands", None)
        if subcommands:
            for name, sub in subcommands.items():
                walk(f"{prefix} {name}".strip(), sub)
        else:
            found.append(prefix)

    walk("", typer.main.get_command(app))
    return sorted(found)


# Each command once, as a moderator would run it on the world below: its arguments (global options may come
# first) and its exit code when the configuration is good and the password files readable (the mail servers
# are never there: a command that sends leaves its mail queued and succeeds; the worker and the check fail).
SAMPLES: dict[str, tuple[list[str], int]] = {
    "archive build": (["archive", "build", "{folder}/site"], 0),
    "archive hide-name": (["archive", "hide-name", BOB], 0),
    "archive serve": (["archive", "serve", "{folder}/no-site"], 1),  # (it would serve until stopped)
    "archive show-name": (["archive", "show-name", BOB], 0),
    "config check": (["config", "check"], 1),
    "db backup": (["db", "backup", "{folder}/backup.sqlite3"], 0),
    "db check": (["db", "check"], 0),
    "db downgrade": (["db", "downgrade", "0001", "--yes"], 0),
    "db status": (["db", "status"], 0),
    "db upgrade": (["db", "upgrade"], 0),
    "demo": (["--db", "sqlite:///{folder}/demo.sqlite3", "demo", "--players", "2", "--max-turns", "1"], 0),
    "game abort": (["game", "abort", "1"], 0),
    "game approve": (["game", "approve", "1"], 1),  # the world has no table waiting for approval
    "game close": (["game", "close", "1"], 1),  # nor any table
    "game open": (["game", "open", "fifth-avenue", "--players", "3"], 0),
    "game start": (["game", "start", "1"], 1),
    "game tables": (["game", "tables"], 0),
    "game unwatch": (["game", "unwatch", "1", "dee@example.org"], 1),  # Dee does not watch game 1
    "game watchers": (["game", "watchers", "1"], 0),
    "game export": (["game", "export", "1", "-o", "{folder}/game1-again.json"], 0),
    "game history": (["game", "history", "1"], 0),
    "game import": (["game", "import", "{folder}/game1.json"], 0),
    "game legal": (["game", "legal", "1"], 0),
    "game list": (["game", "list"], 0),
    "game new": (["game", "new", "fifth-avenue", "-p", f"A={ANN}", "-p", f"B={BOB}"], 0),
    "game pause": (["game", "pause", "1"], 0),
    "game play": (["game", "play", "1", "--as", "{player}", "{command}"], 0),
    "game replace-player": (["game", "replace-player", "1", BOB, "dora@example.org"], 0),
    "game resend": (["game", "resend", "1"], 0),
    "game resume": (["game", "resume", "2"], 0),
    "game set": (["game", "set", "1", "deadline=48h"], 0),
    "game show": (["game", "show", "1"], 0),
    "game tell": (["game", "tell", "1", "Hello, players"], 0),
    "game undo": (["game", "undo", "1", "--steps", "1"], 0),
    "mail explain": (["mail", "explain", "{folder}/mail.eml"], 0),
    "outbox list": (["outbox", "list"], 0),
    "outbox retry": (["outbox", "retry"], 0),
    "outbox show": (["outbox", "show", "1"], 0),
    "sim": (["sim", "fifth-avenue", "--players", "2", "--games", "1"], 0),
    "status": (["status"], 1),  # no worker has ever run: unhealthy, which is its answer, not an error
    "worker": (["worker", "--once", "--log-format", "json", "--log-level", "warning"], 1),  # no IMAP server there
}
# The commands that log in to a mail server, so read the password files.
SENDS_MAIL = {"config check", "worker", "game new", "game play", "game undo", "game replace-player", "game pause",
              "game resume", "game abort", "game set", "game tell", "game resend", "game start"}
COMMANDS = registered_commands()


def test_every_registered_command_has_a_sample() -> None:
    assert set(SAMPLES) == set(COMMANDS), "add the new command to SAMPLES (and to SENDS_MAIL if it logs in)"
    assert SENDS_MAIL <= set(COMMANDS)


# --------------------------------------------------------------------------- the world


@dataclass
class World:
    template: Path  # a database with games, copied for each test
    player: str  # who acts now in game 1, and a command they may send
    command: str


@pytest.fixture(scope="module")
def world(tmp_path_factory: pytest.TempPathFactory, sqlite_template: Path) -> Iterator[World]:
    folder = tmp_path_factory.mktemp("config-world")
    template = folder / "pbem.sqlite3"
    shutil.copy(sqlite_template, template)
    engine = make_engine(f"sqlite:///{template}")
    games = GameService(engine)
    first = games.create_game("fifth-avenue", [("Ann", ANN), ("Bob", BOB), ("Kim", KIM)], seed=5)
    for _ in range(2):  # something to undo
        (email, commands), = games.legal(first)[1].items()
        games.submit(first, email, commands[0])
    (player, commands), = games.legal(first)[1].items()
    second = games.create_game("manhattan", [("Ann", ANN), ("Bob", BOB)], seed=6)
    games.set_status(second, "pause")
    (folder / "game1.json").write_text(json.dumps(games.export(first)))
    engine.dispose()
    yield World(template, player, commands[0])


@dataclass
class Place:
    folder: Path  # the test's folder: the database, the files the samples read, the config
    data: Path  # XDG_DATA_HOME: where the default database would be made
    url: str

    def args(self, world: World, command: str) -> list[str]:
        args, _ = SAMPLES[command]
        return [a.replace("{folder}", str(self.folder)).replace("{player}", world.player)
                .replace("{command}", world.command) for a in args]

    def files(self) -> dict[str, tuple[int, int]]:
        """Every file and folder under the test's folder and the data directory, with its size and time."""
        found = {}
        for top in (self.folder, self.data):
            for path in sorted(top.rglob("*")):
                if path.name.endswith(("-wal", "-shm", "-journal")):
                    continue
                info = path.stat()
                found[str(path)] = (info.st_size, info.st_mtime_ns)
        return found

    def dump(self) -> dict[str, list[tuple[str, ...]]]:
        engine = make_engine(self.url)
        with engine.connect() as connection:
            names = sa.inspect(connection).get_table_names()
            rows = {name: sorted(tuple(map(str, row)) for row in connection.execute(sa.text(f'SELECT * FROM "{name}"')))
                    for name in names}
        engine.dispose()
        return rows


@pytest.fixture
def place(world: World, tmp_path: Path) -> Place:
    folder = tmp_path / "work"
    folder.mkdir()
    shutil.copy(world.template, folder / "pbem.sqlite3")
    shutil.copy(world.template.parent / "game1.json", folder / "game1.json")
    (folder / "mail.eml").write_bytes(b"From: ann@example.org\r\nSubject: [Fifth Avenue #1]\r\n\r\nboard\r\n")
    (folder / "no-site").mkdir()
    data = tmp_path / "data"
    data.mkdir()
    return Place(folder, data, f"sqlite:///{folder / 'pbem.sqlite3'}")


ENGINES: list[sa.Engine] = []


@pytest.fixture(scope="module", autouse=True)
def _engines_closed() -> Iterator[None]:
    """Every engine a command makes in this process is disposed of after the command, as a process would end."""
    def tracked(url: str, **options: Any) -> sa.Engine:
        ENGINES.append(make_engine(url, **options))
        return ENGINES[-1]

    with pytest.MonkeyPatch.context() as patch:
        patch.setattr(store_db, "make_engine", tracked)
        if hasattr(typer.testing, "_get_command"):  # the app made into a Click command once, not for every run
            patch.setattr(typer.testing, "_get_command", functools.cache(typer.testing._get_command))
        yield


def run(place: Place, args: list[str], **env: str | None) -> Any:
    """``pbem ARGS`` in-process, in an environment of the test's own: no PBEM_ variable of the test run (but
    the suite's PBEM_TEST_...), the user directories in the test's folder."""
    clean: dict[str, str | None] = {name: None for name in os.environ
                                    if name.startswith("PBEM_") and not name.startswith("PBEM_TEST_")}
    clean.update(XDG_DATA_HOME=str(place.data), XDG_CONFIG_HOME=str(place.data / "config"), COLUMNS="120")
    clean.update(env)
    try:
        return RUNNER.invoke(app, args, env=clean)
    finally:
        while ENGINES:
            ENGINES.pop().dispose()


def one_error_line(result: Any) -> str:
    assert result.exception is None or isinstance(result.exception, SystemExit), repr(result.exception)
    assert result.exit_code == 1, (result.exit_code, result.stdout[-300:], result.stderr)
    lines = result.stderr.splitlines()
    assert len(lines) == 1 and lines[0].startswith("error: "), result.stderr
    assert "Traceback" not in result.stdout + result.stderr
    return lines[0]


# --------------------------------------------------------------------------- a typo


@pytest.mark.parametrize("command", COMMANDS)
def test_a_misspelt_key_stops_every_command_before_it_starts(world: World, place: Place, command: str) -> None:
    config = place.folder / "config.toml"
    config.write_text('[database]\nulr = "sqlite:///elsewhere.sqlite3"\n')  # url: without it, the default
    before = place.files()
    result = run(place, ["--config", str(config), *place.args(world, command)])
    line = one_error_line(result)
    assert f"unknown key ulr in [database] of the config file {config}; did you mean url?" in line
    assert place.files() == before  # no default database made, no folder, no file written


@pytest.mark.parametrize("command", COMMANDS)
def test_a_misspelt_variable_stops_every_command_before_it_starts(world: World, place: Place, command: str) -> None:
    before = place.files()
    result = run(place, place.args(world, command), PBEM_CONFIG=os.devnull, PBEM_DATABSE_URL=place.url)
    line = one_error_line(result)
    assert "unknown environment variable PBEM_DATABSE_URL; did you mean PBEM_DATABASE_URL?" in line
    assert place.files() == before


# --------------------------------------------------------------------------- a password file that cannot be read


def mail_config(place: Place, password_file: Path) -> Path:
    """The world's database and mail servers that are never there (port 1), with a password file."""
    config = place.folder / "config.toml"
    config.write_text(f'[database]\nurl = "{place.url}"\n'
                      f'[imap]\nhost = "127.0.0.1"\nport = 1\nsecurity = "plain"\nuser = "game"\n'
                      f'password_file = "{password_file}"\n'
                      f'[smtp]\nhost = "127.0.0.1"\nport = 1\nsecurity = "plain"\nuser = "game"\n'
                      f'password_file = "{password_file}"\n[game]\naddress = "game@example.org"\n')
    return config


@pytest.mark.parametrize("command", COMMANDS)
def test_only_a_command_that_logs_in_reads_the_password_file(world: World, place: Place, command: str) -> None:
    unreadable = place.folder / "password-folder"  # a folder: no user, root included, reads a password from it
    unreadable.mkdir()
    config = mail_config(place, unreadable)
    before = place.dump()
    result = run(place, ["--config", str(config), *place.args(world, command)])
    if command in SENDS_MAIL:
        line = one_error_line(result)
        assert f"cannot read the password file {unreadable} ([imap] password_file in {config})" in line
        assert place.dump() == before, "the command changed the database before it failed"
    else:
        assert "password" not in result.stdout + result.stderr
        assert result.exception is None or isinstance(result.exception, SystemExit), repr(result.exception)
        assert result.exit_code == SAMPLES[command][1], (result.stdout[-500:], result.stderr)


@pytest.mark.parametrize("command", sorted(SENDS_MAIL))
def test_with_a_readable_password_file_the_same_commands_run(world: World, place: Place, command: str) -> None:
    """The control of the test above: its samples are good, so what stopped them was the password file."""
    secret = place.folder / "password"
    secret.write_text("secret\n")
    result = run(place, ["--config", str(mail_config(place, secret)), *place.args(world, command)])
    assert result.exception is None or isinstance(result.exception, SystemExit), repr(result.exception)
    assert result.exit_code == SAMPLES[command][1], (result.stdout[-500:], result.stderr)
    assert "password file" not in result.stderr


def test_a_missing_password_file_is_named_by_the_variable_that_named_it(world: World, place: Place) -> None:
    missing = place.folder / "no-such-password"
    result = run(place, ["worker", "--once"], PBEM_CONFIG=os.devnull, PBEM_DATABASE_URL=place.url,
                 PBEM_IMAP_HOST="127.0.0.1", PBEM_IMAP_SECURITY="plain", PBEM_IMAP_PASSWORD_FILE=str(missing),
                 PBEM_SMTP_HOST="127.0.0.1", PBEM_SMTP_SECURITY="plain", PBEM_GAME_ADDRESS="game@example.org")
    line = one_error_line(result)
    assert f"cannot read the password file {missing} (PBEM_IMAP_PASSWORD_FILE): No such file or directory" in line


# --------------------------------------------------------------------------- what still works


def test_the_help_shows_whatever_the_configuration_holds(place: Place) -> None:
    for args in (["--help"], ["game"], ["game", "--help"], ["game", "list", "--help"], ["config"]):
        result = run(place, args, PBEM_DATABSE_URL="x")
        assert result.exit_code == 0 and "Usage" in result.stdout and not result.stderr, (args, result.stderr)


def test_the_demo_runs_without_any_configuration(place: Place) -> None:
    result = run(place, ["demo", "--players", "2", "--max-turns", "1"])
    assert result.exit_code == 0, result.stderr
    assert (place.data / "pbem" / "pbem.sqlite3").is_file()  # the default database, in the user's data directory
