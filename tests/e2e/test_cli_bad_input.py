"""Bad input to every `pbem` command: exactly one `error: ...` line on stderr, exit code 1, nothing changed.

Numbers no database column holds, negative numbers, addresses with line breaks, spaces or non-ASCII, deadlines
past the calendar, hostile import files, `--db` at things that are not databases: each case runs in-process
(CliRunner) against one shared SQLite database and compares every table, and the files around it, before and
after. A few run through the installed `pbem` command, on SQLite and PostgreSQL.
"""

from __future__ import annotations

import functools
import json
import os
import shutil
import sqlite3
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Callable, Iterator

import pytest
import sqlalchemy as sa
import typer.testing
from typer.testing import CliRunner

from pbem.cli import app
from pbem.store import db as store_db
from pbem.services.table.service import GameService
from pbem.store.db import make_engine

pytestmark = pytest.mark.xdist_group("cli_bad_input")  # its module-scoped fixtures are made once, on one worker

ANN, BOB, KIM = "ann@example.org", "bob@example.org", "kim@example.org"
HUGE = [2**31, 2**63, 2**64]  # past every INTEGER column; 2**63 and up past SQLite's
RUNNER = CliRunner()
ENV = {"PBEM_DATABASE_URL": None, "PBEM_IMAP_HOST": None, "PBEM_SMTP_HOST": None, "PBEM_GAME_ADDRESS": None,
       "COLUMNS": "120"}


# --------------------------------------------------------------------------- the world the cases run against


@dataclass
class World:
    folder: Path
    url: str
    engine: sa.Engine
    export: Path

    def file(self, name: str) -> str:
        return str(self.folder / name)

    def snapshot(self) -> tuple[dict[str, list[tuple[str, ...]]], dict[str, Any]]:
        """Every row of every table, and every file around the database (its own WAL files aside)."""
        return dump(self.engine), files(self.folder, skip=("pbem.sqlite3",))


def dump(engine: sa.Engine) -> dict[str, list[tuple[str, ...]]]:
    with engine.connect() as connection:
        names = sa.inspect(connection).get_table_names()
        return {name: sorted(tuple(map(str, row)) for row in connection.execute(sa.text(f'SELECT * FROM "{name}"')))
                for name in names}


def files(folder: Path, skip: tuple[str, ...] = ()) -> dict[str, Any]:
    """Each file under ``folder`` by its size and the time it was last written. SQLite makes the -wal and -shm
    files of a database in WAL mode to read it: a -wal file counts only once something is in it."""
    found: dict[str, Any] = {}
    for path in sorted(folder.rglob("*")):
        name = str(path.relative_to(folder))
        if name.startswith(skip) or name.endswith("-shm"):
            continue
        seen = path.stat()
        if path.is_dir():
            found[name] = "folder"
        elif not name.endswith("-wal") or seen.st_size:
            found[name] = (seen.st_size, seen.st_mtime_ns)
    return found


@pytest.fixture(scope="module")
def world(tmp_path_factory: pytest.TempPathFactory, sqlite_template: Path) -> Iterator[World]:
    folder = tmp_path_factory.mktemp("bad-input")
    shutil.copy(sqlite_template, folder / "pbem.sqlite3")
    url = f"sqlite:///{folder / 'pbem.sqlite3'}"
    engine = make_engine(url)
    games = GameService(engine)
    first = games.create_game("fifth-avenue", [("Ann", ANN), ("Bob", BOB), ("Kim", KIM)], seed=5)
    for _ in range(4):
        (email, commands), = games.legal(first)[1].items()
        games.submit(first, email, commands[0])
    games.set_timing(first, {"deadline": "48h"})
    games.create_game("manhattan", [("Ann", ANN), ("Bob", BOB)], seed=6)
    with engine.begin() as connection:  # one failed mail, so that `outbox retry` has something to retry
        connection.exec_driver_sql("UPDATE outbox SET status = 'failed' WHERE id = 1")
    export = folder / "game1.json"
    export.write_text(json.dumps(games.export(first)))
    _hostile_files(folder / "hostile", json.loads(export.read_text()))
    _bad_databases(folder / "dbs", sqlite_template)
    (folder / "mail.toml").write_text(  # mail servers that are never reached: the database fails first
        '[imap]\nhost = "127.0.0.1"\nport = 1\nsecurity = "plain"\n[smtp]\nhost = "127.0.0.1"\nport = 1\n'
        'security = "plain"\n[game]\naddress = "game@example.org"\n')
    (folder / "mail.eml").write_bytes(b"From: ann@example.org\r\nSubject: [Fifth Avenue #1]\r\n\r\nA\r\n")
    (folder / "a-folder").mkdir()
    yield World(folder, url, engine, export)
    engine.dispose()


def _bad_databases(folder: Path, template: Path) -> None:
    folder.mkdir()
    (folder / "folder.sqlite3").mkdir()
    (folder / "text.sqlite3").write_text("this is a shopping list, not a database\n")
    (folder / "picture.png").write_bytes(b"\x89PNG\r\n\x1a\n" + bytes(range(256)) * 8)
    (folder / "empty.sqlite3").write_bytes(b"")
    raw = template.read_bytes()
    (folder / "truncated.sqlite3").write_bytes(raw[: len(raw) // 3])
    header = bytearray(raw)
    header[:16] = b"SQLite format 2\x00"
    (folder / "header.sqlite3").write_bytes(bytes(header))
    damaged = folder / "damaged.sqlite3"
    shutil.copy(template, damaged)
    with sqlite3.connect(damaged) as connection:  # overwrite the games table's first page in the middle of the file
        root = connection.execute("SELECT rootpage FROM sqlite_master WHERE name = 'games'").fetchone()[0]
        size = connection.execute("PRAGMA page_size").fetchone()[0]
    connection.close()
    data = bytearray(damaged.read_bytes())
    data[(root - 1) * size:(root - 1) * size + 64] = b"\xee" * 64
    damaged.write_bytes(bytes(data))


def _changed(doc: dict[str, Any], change: Callable[[dict[str, Any]], Any]) -> bytes:
    copy = json.loads(json.dumps(doc))
    change(copy)
    return json.dumps(copy).encode()


def _command_event(doc: dict[str, Any], **data: Any) -> dict[str, Any]:
    last = doc["events"][-1]
    return {"seq": last["seq"] + 1, "time": last["time"], "actor": ANN, "seat": 0, "kind": "command", "text": "x",
            "source": "cli", "data": data}


HOSTILE: dict[str, tuple[Callable[[dict[str, Any]], bytes], str]] = {
    "not-json": (lambda d: b"hello, world", "is not a JSON game export"),
    "empty": (lambda d: b"", "is not a JSON game export"),
    "list": (lambda d: b"[]", "not a pbem game export"),
    "number": (lambda d: b"3", "not a pbem game export"),
    "null": (lambda d: b"null", "not a pbem game export"),
    "string": (lambda d: b'"pbem-game"', "not a pbem game export"),
    "not-utf8": (lambda d: b'{"format": "pbem-g\xff\xfeame"}', "not UTF-8"),
    "nested-lists": (lambda d: b"[" * 100_000 + b"]" * 100_000, "nested"),
    "nested-objects": (lambda d: b'{"a":' * 100_000 + b"1" + b"}" * 100_000, "nested"),
    "nested-in-data": (lambda d: _changed(d, lambda x: x["events"][0]["data"].update(deep=json.loads("[" * 200 + "]" * 200))), "nested"),
    "huge-number": (lambda d: b"1" + b"0" * 100_000, "is not a JSON game export"),
    "nan": (lambda d: json.dumps(d).replace('"version": 1', '"version": NaN').encode(), "is not a JSON game export"),
    "infinite": (lambda d: json.dumps(d).replace('"version": 1', '"version": 1e999').encode(), "is not a JSON game export"),
    "nul-character": (lambda d: _changed(d, lambda x: x["players"][0].update(name="A\u0000n")), "NUL"),
    "no-keys": (lambda d: b"{}", "not a pbem game export"),
    "format-only": (lambda d: b'{"format": "pbem-game", "version": 1}', "'game' is missing"),
    "version-2": (lambda d: _changed(d, lambda x: x.update(version=2)), "unsupported export version"),
    "version-true": (lambda d: _changed(d, lambda x: x.update(version=True)), "unsupported export version"),
    "version-float": (lambda d: _changed(d, lambda x: x.update(version=1.0)), "unsupported export version"),
    "game-a-list": (lambda d: _changed(d, lambda x: x.update(game=[])), "game must be an object"),
    "players-an-object": (lambda d: _changed(d, lambda x: x.update(players={})), "players and events lists"),
    "events-text": (lambda d: _changed(d, lambda x: x.update(events="all of them")), "players and events lists"),
    "state-a-list": (lambda d: _changed(d, lambda x: x.update(state=[])), "state must be an object"),
    "state-wrong": (lambda d: _changed(d, lambda x: x.update(state={"x": 1})), "does not give its final state"),
    "kind-unknown": (lambda d: _changed(d, lambda x: x["game"].update(kind="chess")), "unknown game 'chess'"),
    "kind-number": (lambda d: _changed(d, lambda x: x["game"].update(kind=5)), "unknown game kind"),
    "kind-object": (lambda d: _changed(d, lambda x: x["game"].update(kind={})), "unknown game kind"),
    "seed-huge": (lambda d: _changed(d, lambda x: x["game"].update(seed=2**70)), "seed"),
    "seed-very-negative": (lambda d: _changed(d, lambda x: x["game"].update(seed=-(2**70))), "seed"),
    "seed-float": (lambda d: _changed(d, lambda x: x["game"].update(seed=1.5)), "whole number"),
    "status-list": (lambda d: _changed(d, lambda x: x["game"].update(status=[])), "unknown status"),
    "status-finished": (lambda d: _changed(d, lambda x: x["game"].update(status="finished")), "not over"),
    "variant-unknown": (lambda d: _changed(d, lambda x: x["game"].update(variant="weird")), "unknown variant"),
    "variant-long": (lambda d: _changed(d, lambda x: x["game"].update(variant="x" * 1000)), "unknown variant"),
    "variant-settings": (lambda d: _changed(d, lambda x: x["game"].update(variant="back-side")), "does not match"),
    "settings-unknown": (lambda d: _changed(d, lambda x: x["game"].update(settings={"foo": 1})), "settings"),
    "settings-text": (lambda d: _changed(d, lambda x: x["game"].update(settings={"back_side": "yes"})), "back_side"),
    "timing-huge": (lambda d: _changed(d, lambda x: x["game"]["timing"].update(deadline=10**30)), "timing"),
    "timing-text": (lambda d: _changed(d, lambda x: x["game"]["timing"].update(deadline="soon")), "timing"),
    "timing-list": (lambda d: _changed(d, lambda x: x["game"].update(timing=[1])), "timing must be an object"),
    "timing-unknown": (lambda d: _changed(d, lambda x: x["game"]["timing"].update(zzz=1)), "unknown settings 'zzz'"),
    "created-words": (lambda d: _changed(d, lambda x: x["game"].update(created_at="yesterday")), "not an ISO 8601"),
    "created-9999": (lambda d: _changed(d, lambda x: x["game"].update(created_at="9999-12-31T23:59:59+00:00")), "between 1970 and now"),
    "created-number": (lambda d: _changed(d, lambda x: x["game"].update(created_at=5)), "created_at must be text"),
    "player-text": (lambda d: _changed(d, lambda x: x["players"].__setitem__(0, "Ann")), "needs a seat number"),
    "player-seat-99": (lambda d: _changed(d, lambda x: x["players"][0].update(seat=99)), "seats 0, 1, 2"),
    "player-seat-huge": (lambda d: _changed(d, lambda x: x["players"][0].update(seat=2**70)), "seats 0, 1, 2"),
    "player-seat-true": (lambda d: _changed(d, lambda x: x["players"][0].update(seat=True)), "needs a seat number"),
    "email-space": (lambda d: _changed(d, lambda x: x["players"][0].update(email="a b@example.org")), "not an email address"),
    "email-crlf": (lambda d: _changed(d, lambda x: x["players"][0].update(email="a@x.org\r\nBcc: e@x.org")), "not an email address"),
    "email-non-ascii": (lambda d: _changed(d, lambda x: x["players"][0].update(email="kim@exämple.org")), "not an email address"),
    "email-long": (lambda d: _changed(d, lambda x: x["players"][0].update(email="a" * 300 + "@x.org")), "not an email address"),
    "email-twice": (lambda d: _changed(d, lambda x: x["players"][1].update(email=ANN.upper())), "different email"),
    "name-long": (lambda d: _changed(d, lambda x: x["players"][0].update(name="A" * 10_000)), "name"),
    "name-number": (lambda d: _changed(d, lambda x: x["players"][0].update(name=5)), "needs a seat number, a name"),
    "name-line-break": (lambda d: _changed(d, lambda x: x["players"][0].update(name="Ann\r\nBcc: x")), "name"),
    "secret-number": (lambda d: _changed(d, lambda x: x["players"][0].update(secret=5)), "secret word must be text"),
    "secret-long": (lambda d: _changed(d, lambda x: x["players"][0].update(secret="x" * 10_000)), "secret word"),
    "players-too-many": (lambda d: _changed(d, lambda x: x["players"].extend(
        {"seat": i, "name": f"P{i}", "email": f"p{i}@example.org"} for i in range(3, 9))), "is for 2, 3, 4 players"),
    "players-none": (lambda d: _changed(d, lambda x: x.update(players=[])), "must not be empty"),
    "events-none": (lambda d: _changed(d, lambda x: x.update(events=[])), "must not be empty"),
    "event-text": (lambda d: _changed(d, lambda x: x["events"].__setitem__(0, "created")), "numbered 1, 2, 3"),
    "event-seq-huge": (lambda d: _changed(d, lambda x: x["events"][1].update(seq=2**70)), "numbered 1, 2, 3"),
    "event-kind-list": (lambda d: _changed(d, lambda x: x["events"][1].update(kind=[])), "unknown kind"),
    "event-first-not-created": (lambda d: _changed(d, lambda x: x["events"][0].update(kind="pause")), "creation"),
    "event-time-words": (lambda d: _changed(d, lambda x: x["events"][1].update(time="noon")), "not an ISO 8601"),
    "event-time-future": (lambda d: _changed(d, lambda x: x["events"][1].update(time="9999-01-01T00:00:00")), "between 1970 and now"),
    "event-data-list": (lambda d: _changed(d, lambda x: x["events"][1].update(data=[])), "data must be an object"),
    "event-actor-long": (lambda d: _changed(d, lambda x: x["events"][1].update(actor="x" * 10_000)), "actor"),
    "event-text-long": (lambda d: _changed(d, lambda x: x["events"][1].update(text="x" * 100_000)), "text"),
    "event-seat-huge": (lambda d: _changed(d, lambda x: x["events"][1].update(seat=2**70)), "not in the game"),
    "event-effects-number": (lambda d: _changed(d, lambda x: x["events"][1]["data"].update(effects=5)), "effects"),
    "command-not-text": (lambda d: _changed(d, lambda x: x["events"].append(_command_event(x, command=5))), "has no command"),
    "command-illegal": (lambda d: _changed(d, lambda x: x["events"].append(_command_event(x, command="fly away"))), "does not replay"),
    "command-seat-out": (lambda d: _changed(d, lambda x: x["events"].append(
        {**_command_event(x, command="A"), "seat": 5})), "not in the game"),
    "command-megabyte": (lambda d: _changed(d, lambda x: x["events"].append(_command_event(x, command="x" * 1_000_000))), "command"),
    "undo-to-text": (lambda d: _changed(d, lambda x: x["events"].append(
        {**_command_event(x), "kind": "undo", "seat": None, "data": {"to": "x"}})), "not an earlier event"),
}


def _hostile_files(folder: Path, doc: dict[str, Any]) -> None:
    folder.mkdir()
    for name, (make, _fragment) in HOSTILE.items():
        (folder / f"{name}.json").write_bytes(make(doc))
    with (folder / "fifty-megabytes.json").open("wb") as handle:  # sparse: only its size matters
        handle.truncate(50 * 2**20)
    (folder / "eleven-megabytes.json").write_bytes(b" " * (11 * 2**20) + json.dumps(doc).encode())


# --------------------------------------------------------------------------- the cases


def _cases() -> list[Any]:
    cases: list[tuple[str, list[str], str]] = []

    def add(name: str, args: list[Any], fragment: str) -> None:
        cases.append((name, [str(a) for a in args], fragment))

    # Game numbers no game has: past every INTEGER column, zero, negative.
    by_game = {
        "show": [], "legal": [], "history": [], "pause": [], "resume": [], "abort": [], "resend": [], "export": [],
        "play": ["--as", ANN, "A"], "undo": ["--steps", "1"], "set": ["deadline=48h"],
        "replace-player": [ANN, "dora@example.org"],
    }
    for command, rest in by_game.items():
        for number in HUGE + [0]:
            add(f"game-{command}-{number}", ["game", command, number, *rest], f"there is no game {number}")
        add(f"game-{command}--1", ["game", command, -1, *rest], "is not a number this command takes")
    add("game-show-most-negative", ["game", "show", -(2**63)], "is not a number this command takes")
    add("game-show-10**30", ["game", "show", 10**30], f"there is no game {10**30}")
    for number in HUGE:
        add(f"outbox-show-{number}", ["outbox", "show", number], f"there is no mail {number}")
        add(f"outbox-retry-{number}", ["outbox", "retry", number], f"there is no mail {number}")
        add(f"outbox-list-game-{number}", ["outbox", "list", "--game", number], f"there is no game {number}")
    add("outbox-show--1", ["outbox", "show", -1], "is not a number this command takes")
    add("outbox-retry--1", ["outbox", "retry", -1], "is not a number this command takes")
    add("outbox-show-0", ["outbox", "show", 0], "there is no mail 0")
    add("outbox-list-game-0", ["outbox", "list", "--game", 0], "there is no game 0")
    add("outbox-list-game-negative", ["outbox", "list", "--game", -1], "there is no game -1")
    add("outbox-list-limit-0", ["outbox", "list", "--limit", 0], "the limit must be at least 1")
    add("outbox-list-limit-negative", ["outbox", "list", "--limit", -(2**63)], "the limit must be at least 1")
    add("outbox-list-status", ["outbox", "list", "--status", "lost"], "unknown status")
    add("outbox-retry-queued", ["outbox", "retry", 2], "only failed mails are retried")

    # Other whole numbers out of range.
    for number in HUGE + [0, -1]:
        add(f"undo-to-{number}", ["game", "undo", 1, "--to", number], "there is no event")
        add(f"undo-steps-{number}", ["game", "undo", 1, "--steps", number], "cannot undo")
    for number in [2**63, 2**64, 10**30, -1]:
        add(f"new-seed-{number}", ["game", "new", "fifth-avenue", "-p", f"A={ANN}", "-p", f"B={BOB}", "--seed", number],
            "--seed")
        add(f"sim-seed-{number}", ["sim", "fifth-avenue", "--players", 2, "--seed", number], "--seed")
        add(f"demo-seed-{number}", ["demo", "--seed", number], "--seed")
    for number in HUGE + [10**30, 0, -1, 5]:
        add(f"sim-players-{number}", ["sim", "fifth-avenue", "--players", number], "players, not")
        add(f"demo-players-{number}", ["demo", "--players", number], "players, not")
    for number in [0, -1, 2**63, 10**7]:
        add(f"sim-games-{number}", ["sim", "fifth-avenue", "--games", number], "--games")
    add("sim-seeds-past-the-end", ["sim", "fifth-avenue", "--players", 2, "--seed", 2**63 - 1, "--games", 2],
        "the largest seed")
    for number in [0, -1]:
        add(f"demo-max-turns-{number}", ["demo", "--max-turns", number], "--max-turns")

    # Addresses: line breaks, spaces, tabs, NUL, non-ASCII, the Kelvin sign (lower-cases to 'k'), too long, no @.
    addresses = {
        "crlf": "a\r\nb@example.org", "crlf-after": f"{ANN}\r\n", "header": "dan@example.org\r\nBcc: eve@example.org",
        "space": "a b@example.org", "tab": "a\tb@example.org", "nul": "a\x00b@example.org",
        "umlaut": "kim@exämple.org", "kelvin": "\u212aim@example.org", "no-at": "nobody", "long": "a" * 250 + "@x.org",
        "two-at": "a@b@example.org", "no-local-part": "@example.org", "dot-at-end": "dora@example.org.",
    }
    for name, address in addresses.items():
        add(f"new-player-{name}", ["game", "new", "fifth-avenue", "-p", f"A={address}", "-p", f"B={BOB}"],
            "NAME=EMAIL" if name == "no-at" else "is not an email address")
        add(f"replace-new-{name}", ["game", "replace-player", 1, BOB, address], "is not an email address")
        add(f"replace-old-{name}", ["game", "replace-player", 1, address, "dora@example.org"], "does not play in game 1")
        add(f"show-as-{name}", ["game", "show", 1, "--as", address], "does not play in game 1")
        add(f"play-as-{name}", ["game", "play", 1, "--as", address, "A"], "does not play in game 1")
        add(f"resend-player-{name}", ["game", "resend", 1, "--player", address], "does not play in game 1")
        add(f"demo-human-{name}", ["demo", "--human", address], "--human")
    for name, (player, fragment) in {"name-crlf": (f"A\r\nBcc: x={ANN}", "name must be"),
                                     "name-long": ("N" * 201 + f"={ANN}", "name must be"),
                                     "name-empty": (f" ={ANN}", "NAME=EMAIL")}.items():
        add(f"new-{name}", ["game", "new", "fifth-avenue", "-p", player, "-p", f"B={BOB}"], fragment)
    add("new-same-address", ["game", "new", "fifth-avenue", "-p", f"A={ANN}", "-p", f"B={ANN.upper()}"],
        "different email")
    add("replace-name-crlf", ["game", "replace-player", 1, BOB, "dora@example.org", "--name", "Do\r\nra"], "name")
    add("replace-name-long", ["game", "replace-player", 1, BOB, "dora@example.org", "--name", "D" * 201], "name")
    add("replace-by-a-player", ["game", "replace-player", 1, BOB, KIM.upper()], "already plays")

    # Deadlines and settings.
    for setting, fragment in {
        "deadline=9999999999h": "at most 365 days", "deadline=400d": "at most 365 days",
        "bid-deadline=99999999999999999999h": "bid-deadline", "bid-deadline=9999999d": "at most 365 days", "deadline=-5h": "deadline",
        "deadline=nan": "deadline", "deadline=30s": "at least a minute", "bid-deadline=0": "bid-deadline",
        "reminder=nan": "reminder", "reminder=inf": "reminder", "reminder=150%": "reminder", "reminder=0": "reminder",
        "on-timeout=never": "on-timeout", "pictures=maybe": "not a pictures setting", "mail=never": "not a delivery setting", "away=9999-12-31": "unknown setting", "deadline": "KEY=VALUE",
        "deadline=": "KEY=VALUE", "=48h": "unknown setting",
    }.items():
        add(f"set-{setting}", ["game", "set", 1, setting], fragment)
    for option, value in [("--deadline", "9999999999h"), ("--bid-deadline", "400d"), ("--deadline", "soon"),
                          ("--reminder", "nan"), ("--on-timeout", "never")]:  # a list: --deadline twice
        add(f"new{option}-{value}", ["game", "new", "fifth-avenue", "-p", f"A={ANN}", "-p", f"B={BOB}", option, value],
            option.strip("-"))

    # Usage: what Click refuses before a command runs.
    add("unknown-command", ["play"], "No such command")
    add("unknown-game-command", ["game", "shw", 1], "No such command")
    add("missing-game", ["game", "show"], "Missing argument")
    add("game-not-a-number", ["game", "show", "one"], "Invalid value")
    add("game-a-fraction", ["game", "show", "1.5"], "Invalid value")
    add("missing-players", ["game", "new", "fifth-avenue"], "Missing option")
    add("option-without-value", ["game", "new", "fifth-avenue", "-p"], "requires an argument")
    add("missing-as", ["game", "play", 1, "A"], "Missing option")
    add("unknown-option", ["game", "list", "--colour"], "No such option")
    add("json-with-value", ["game", "list", "--json=yes"], "does not take a value")
    add("db-without-value", ["game", "list", "--db"], "No such option")
    add("unknown-kind", ["game", "new", "chess", "-p", f"A={ANN}", "-p", f"B={BOB}"], "unknown game 'chess'")
    add("one-player", ["game", "new", "fifth-avenue", "-p", f"A={ANN}"], "players, not 1")
    add("unknown-status", ["game", "list", "--status", "lost"], "unknown status")
    add("downgrade-unknown-revision", ["db", "downgrade", "0099", "--yes"], "there is no revision 0099 to go down to")
    add("downgrade-without-yes", ["db", "downgrade", "0001"], "add --yes to do it")
    add("downgrade-no-revision", ["db", "downgrade"], "Missing argument 'REV'")
    add("upgrade-to-unknown-revision", ["db", "upgrade", "--to", "0099"], "there is no revision 0099 to upgrade to")
    add("upgrade-to-below", ["db", "upgrade", "--to", "0001"], "`pbem db downgrade 0001` takes it down")
    add("no-commands", ["game", "play", 1, "--as", KIM, " ; "], "no command given")
    add("not-your-turn", ["game", "play", 1, "--as", BOB, "A"], "")
    add("sim-unknown-game", ["sim", "chess"], "unknown game")
    add("sim-unknown-policy", ["sim", "fifth-avenue", "--policy", "greedy"], "unknown policy")
    add("demo-unknown-game", ["demo", "--game", "chess"], "unknown game")

    # Files: exports written where they cannot be, imports that are not exports.
    add("export-format", ["game", "export", 1, "--format", "xml"], "unknown format")
    add("export-into-missing-folder", ["game", "export", 1, "-o", "{folder}/missing/game.json"], "cannot write")
    add("export-onto-a-folder", ["game", "export", 1, "-o", "{folder}/a-folder"], "cannot write")
    for name, (_make, fragment) in HOSTILE.items():
        add(f"import-{name}", ["game", "import", f"{{folder}}/hostile/{name}.json"], fragment)
    add("import-50-MB", ["game", "import", "{folder}/hostile/fifty-megabytes.json"], "at most 10 MB")
    add("import-11-MB", ["game", "import", "{folder}/hostile/eleven-megabytes.json"], "at most 10 MB")
    add("import-missing-file", ["game", "import", "{folder}/missing.json"], "cannot read")
    add("import-a-folder", ["game", "import", "{folder}/a-folder"], "is a directory")
    add("import-a-device", ["game", "import", "/dev/zero"], "not a regular file")
    add("mail-missing-file", ["mail", "explain", "{folder}/missing.eml"], "cannot read")
    add("mail-a-folder", ["mail", "explain", "{folder}/a-folder"], "is not a mail file")
    add("mail-a-device", ["mail", "explain", "/dev/zero"], "is not a mail file")
    add("config-a-folder", ["--config", "{folder}/a-folder", "game", "list"], "is not a regular file")
    add("config-a-device", ["--config", "/dev/zero", "game", "list"], "is not a regular file")
    add("config-not-toml", ["--config", "{folder}/game1.json", "game", "list"], "cannot read config file")
    add("config-binary", ["--config", "{folder}/dbs/picture.png", "game", "list"], "it is not UTF-8 text")
    add("config-sqlite", ["--config", "{folder}/pbem.sqlite3", "game", "list"], "it is not UTF-8 text")
    add("config-missing", ["--config", "{folder}/conifg.toml", "db", "upgrade"], "conifg.toml (option --config) does not exist")
    add("config-nul-in-name", ["--config", "{folder}/a\x00b.toml", "game", "list"], "embedded null byte")
    add("config-long-name", ["--config", "{folder}/" + "c" * 5000, "game", "list"], "cannot read config file")
    add("config-empty-name", ["--config", "", "game", "list"], "is not a regular file")

    # --db at what is not a database.
    commands = {"list": ["game", "list"], "show": ["game", "show", 1], "export": ["game", "export", 1],
                "new": ["game", "new", "fifth-avenue", "-p", f"A={ANN}", "-p", f"B={BOB}"],
                "import": ["game", "import", "{folder}/game1.json"], "status": ["db", "status"],
                "upgrade": ["db", "upgrade"], "downgrade": ["db", "downgrade", "0001", "--yes"],
                "outbox": ["outbox", "list", "--game", 1], "retry": ["outbox", "retry"],
                "explain": ["mail", "explain", "{folder}/mail.eml"],
                "worker": ["--config", "{folder}/mail.toml", "worker", "--once"],
                "check": ["--config", "{folder}/mail.toml", "config", "check"],
                "demo": ["demo", "--players", 2]}
    databases = {
        "folder": ("{folder}/dbs/folder.sqlite3", "is a directory"),
        "text": ("{folder}/dbs/text.sqlite3", "is not a SQLite database"),
        "png": ("{folder}/dbs/picture.png", "is not a SQLite database"),
        "header": ("{folder}/dbs/header.sqlite3", "is not a SQLite database"),
        "truncated": ("{folder}/dbs/truncated.sqlite3", "is damaged"),
        "missing-folder": ("{folder}/dbs/no/such/folder/pbem.sqlite3", "folder"),
    }
    for db, (path, fragment) in databases.items():
        for name, args in commands.items():
            if db == "missing-folder" and name == "status":
                continue  # it says so and exits 1 (test_db_upgrade_creates_a_new_file_but_no_folder)
            if db == "missing-folder" and name not in ("upgrade", "demo"):
                fragment_here = "there is no database"
            else:
                fragment_here = fragment
            add(f"db-{db}-{name}", ["--db", f"sqlite:///{path}", *args], fragment_here)
    for name in ("list", "show", "export", "new", "import", "status", "upgrade", "downgrade", "outbox"):
        add(f"db-damaged-{name}", ["--db", "sqlite:///{folder}/dbs/damaged.sqlite3", *commands[name]], "is damaged")
    for name in ("list", "new", "import", "downgrade"):
        add(f"db-empty-{name}", ["--db", "sqlite:///{folder}/dbs/empty.sqlite3", *commands[name]], "is empty")
    for db, fragment in {"unknown-scheme": ("gopher://example.org/pbem", "not gopher"),
                         "mysql": ("mysql://ann:secret@127.0.0.1/pbem", "not mysql"),
                         "not-a-url": ("the database", "is not a database URL"),
                         "postgres-closed-port": ("postgresql://ann:secret@127.0.0.1:1/pbem", "cannot reach"),
                         "postgres-bad-port": ("postgresql://ann:secret@127.0.0.1:99999/pbem", "port")}.items():
        for name in ("list", "upgrade", "downgrade"):
            add(f"db-{db}-{name}", ["--db", fragment[0], *commands[name]], fragment[1])
    return [pytest.param(args, fragment, id=name) for name, args, fragment in cases]


ENGINES: list[sa.Engine] = []


@pytest.fixture(scope="module", autouse=True)
def _engines_closed() -> Iterator[None]:
    """Every engine a command makes in this process is disposed of after the command (a process would end)."""
    def tracked(url: str, **options: Any) -> sa.Engine:
        ENGINES.append(make_engine(url, **options))
        return ENGINES[-1]

    with pytest.MonkeyPatch.context() as patch:
        patch.setattr(store_db, "make_engine", tracked)  # the CLI looks it up there when a command runs
        if hasattr(typer.testing, "_get_command"):  # the app made into a Click command once, not for every case
            patch.setattr(typer.testing, "_get_command", functools.cache(typer.testing._get_command))
        yield


def run(args: list[str], env: dict[str, Any]) -> Any:
    try:
        return RUNNER.invoke(app, args, env=env)
    finally:
        while ENGINES:
            ENGINES.pop().dispose()


def invoke(world: World, args: list[Any]) -> Any:
    args = [str(a).replace("{folder}", str(world.folder)) for a in args]
    if "--db" not in args[:1]:
        args = ["--db", world.url, *args]
    return run(args, dict(ENV, PBEM_CONFIG=os.devnull))


@pytest.mark.parametrize("args,fragment", _cases())
def test_bad_input_is_one_error_line_and_changes_nothing(world: World, args: list[str], fragment: str) -> None:
    before = world.snapshot()
    result = invoke(world, args)
    assert not isinstance(result.exception, BaseException) or isinstance(result.exception, SystemExit), \
        f"{result.exception!r}\n{result.stderr}"
    lines = result.stderr.splitlines()
    assert result.exit_code == 1, (result.exit_code, result.stdout[-500:], result.stderr)
    assert len(lines) == 1 and lines[0].startswith("error: "), result.stderr
    assert fragment in lines[0], lines[0]
    assert "secret" not in lines[0] or "secret word" in lines[0], "a database password was printed"
    assert world.snapshot() == before


# --------------------------------------------------------------------------- hostile settings


LONG = "9" * 100_000
# Values no setting takes (each a TOML literal and, where the environment can hold it, the variable's text).
EVERYWHERE: list[tuple[str, str | None, str | None]] = [  # (name, in the file, in the environment)
    ("empty", '""', ""),  # (an empty variable hands its setting to the file, which has none here)
    ("spaces", '"   "', "   "),
    ("nul", '"a\\u0000b"', None),  # no environment holds a NUL
    ("escape-sequence", '"\\u001b[2J"', "\x1b[2J"),
    ("line-break", '"a\\r\\nBcc: eve@example.org"', "a\r\nBcc: eve@example.org"),
    ("very-long", f'"{LONG}"', LONG),
    ("list", '["a", "b"]', None),
    ("table", '{ a = 1 }', None),
    ("nested-lists", "[[[[[[[[[[1]]]]]]]]]]", None),
    ("date", "2026-01-01T00:00:00Z", None),
]
NUMBERS = [
    ("superscript-two", '"\u00b2"', "\u00b2"),
    ("arabic-indic-digits", '"\u0661\u0662\u0663"', "\u0661\u0662\u0663"),
    ("fullwidth-digits", '"\uff19\uff19\uff13"', "\uff19\uff19\uff13"),
    ("negative", "-1", "-1"),
    ("zero", "0", "0"),
    ("huge", "99999999999999999999999999", "99999999999999999999999999"),
    ("5000-digits", "9" * 5000, "9" * 5000),  # (more than Python converts to an int)
    ("exponent", "1e400", "1e400"),
    ("nan", "nan", "nan"),
    ("inf", "inf", "inf"),
    ("letters", '"sixty"', "sixty"),
    ("bool", "true", "true"),
    ("hex", None, "0x3e1"),  # (0x3e1 is 993 to TOML)
]
BY_KIND: dict[str, list[tuple[str, str | None, str | None]]] = {
    "a database URL": [("postgres-bad-ipv6", '"postgresql://x:secret@[::1"', "postgresql://x:secret@[::1"),
                       ("postgres-port-not-a-number", '"postgresql://h:notaport/db"', "postgresql://h:notaport/db"),
                       ("postgres-port-too-big", '"postgresql://x:secret@h:99999/db"', "postgresql://x:secret@h:99999/db"),
                       ("mysql", '"mysql://ann:secret@db/pbem"', "mysql://ann:secret@db/pbem"),
                       ("no-scheme", '"/var/lib/pbem/pbem.sqlite3"', "/var/lib/pbem/pbem.sqlite3"),
                       ("number", "5432", None)],
    "a host name": [("space", '"imap example.org"', "imap example.org"), ("umlaut", '"m\u00e4il.example.org"',
                    "m\u00e4il.example.org"), ("dash", '"-imap"', "-imap"), ("number", "993", None)],
    "ssl, starttls": [("tls", '"tls"', "tls"), ("number", "1", "1")],
    "an email address": [("no-at", '"nobody"', "nobody"), ("two-at", '"a@b@example.org"', "a@b@example.org"),
                         ("umlaut", '"kim@ex\u00e4mple.org"', "kim@ex\u00e4mple.org"),
                         ("kelvin", '"\u212aim@example.org"', "\u212aim@example.org")],
    "a domain name": [("slash", '"example.org/x"', "example.org/x"), ("dash", '"-example.org"', None)],
    "a name of at most 60": [("61-characters", f'"{"N" * 61}"', "N" * 61)],
    "a web address": [("ftp", '"ftp://example.org"', "ftp://example.org"),
                      ("javascript", '"javascript:alert(1)"', "javascript:alert(1)"),
                      ("no-host", '"https://"', "https://"), ("bad-port", '"https://a:b/"', "https://a:b/")],
    "a password": [("two-lines", '"one\\ntwo"', "one\ntwo"), ("number", "1234", None)],
    "a file or folder name": [("number", "7", None)],
    "a mail folder name": [("number", "7", None)],
    "a user name": [("number", "7", None)],
}


def _settings_cases() -> list[Any]:
    from pbem.config import SETTINGS, VARIABLES

    cases = []
    kinds = [(s.name, s.section, s.key, s.env, s.kind) for s in SETTINGS] + [
        (name, None, None, name, kind) for name, kind in VARIABLES.items() if kind is not None]
    for name, section, key, env, kind in kinds:
        numeric = "number" in kind.what or "length of time" in kind.what or "seconds" in kind.what
        values = EVERYWHERE + (NUMBERS if numeric else []) + next(
            (v for k, v in BY_KIND.items() if kind.what.startswith(k) or k in kind.what), [])
        for label, toml, text in values:
            if label == "zero" and kind.what.startswith("a whole number from 0"):
                continue  # PBEM_CRASH_AT=0: no crash
            if section is not None and toml is not None:
                cases.append(pytest.param("file", section, key, toml, id=f"{section}.{key}-{label}"))
            if env is not None and text is not None:
                cases.append(pytest.param("environment", None, env, text, id=f"{env}-{label}"))
    return cases


def clean_environment(**env: str) -> dict[str, str | None]:
    """No PBEM_ variable of the test run's (but the suite's PBEM_TEST_...), then ``env``."""
    clean: dict[str, str | None] = {name: None for name in os.environ
                                    if name.startswith("PBEM_") and not name.startswith("PBEM_TEST_")}
    return {**ENV, **clean, **env}


@pytest.mark.parametrize("where,section,key,value", _settings_cases())
def test_a_hostile_setting_is_one_error_line_and_makes_nothing(tmp_path: Path, where: str, section: str | None,
                                                               key: str, value: str) -> None:
    """Every key of the config file and every PBEM_ variable, each with values no setting of its kind takes: one
    line, exit 1, and no database or folder made (`db upgrade` would make the default database here)."""
    data = tmp_path / "data"
    env = clean_environment(XDG_DATA_HOME=str(data), XDG_CONFIG_HOME=str(tmp_path / "config"))
    if where == "file":
        config = tmp_path / "config.toml"
        config.write_text(f"[{section}]\n{key} = {value}\n", encoding="utf-8")
        env["PBEM_CONFIG"] = str(config)
    else:
        env.update({"PBEM_CONFIG": os.devnull, key: value})
    result = run(["db", "upgrade"], env)
    assert result.exception is None or isinstance(result.exception, SystemExit), repr(result.exception)
    lines = result.stderr.splitlines()
    assert result.exit_code == 1 and len(lines) == 1 and lines[0].startswith("error: "), (result.exit_code,
                                                                                            result.stderr)
    assert (f"[{section}] {key}" if where == "file" else key) in lines[0] or "config file" in lines[0], lines[0]
    assert "secret" not in lines[0], "a password was printed"
    assert len(lines[0]) < 1000, "the value was printed whole"
    assert not data.exists() and sorted(p.name for p in tmp_path.iterdir()) == (
        ["config.toml"] if where == "file" else [])


def test_the_tracebacks_of_issue_32_are_one_line_from_the_installed_command(tmp_path: Path, pbem_with) -> None:
    """Each of these ended in a traceback: a malformed PostgreSQL URL, a binary config file, PBEM_OUTAGE_GAP=²."""
    binary = tmp_path / "config.toml"
    binary.write_bytes(b"\x89PNG\r\n\x1a\n" + bytes(range(256)))
    base = {k: v for k, v in clean_environment(XDG_DATA_HOME=str(tmp_path / "data"),
                                               XDG_CONFIG_HOME=str(tmp_path)).items() if v is not None}
    base = {**{k: v for k, v in os.environ.items() if not k.startswith("PBEM_") or k.startswith("PBEM_TEST_")},
            **base}
    cases = [
        ({"PBEM_CONFIG": os.devnull, "PBEM_DATABASE_URL": "postgresql://x:secret@[::1"}, "its host is malformed"),
        ({"PBEM_CONFIG": os.devnull, "PBEM_DATABASE_URL": "postgresql://h:notaport/db"}, "its port must be"),
        ({"PBEM_CONFIG": str(binary)}, "it is not UTF-8 text"),
        ({"PBEM_CONFIG": os.devnull, "PBEM_OUTAGE_GAP": "\u00b2"}, "PBEM_OUTAGE_GAP must be a length of time"),
    ]
    for env, fragment in cases:
        proc = pbem_with({**base, **env}, "db", "upgrade")
        assert proc.returncode == 1 and "Traceback" not in proc.stderr + proc.stdout, proc.stderr
        lines = proc.stderr.splitlines()
        assert len(lines) == 1 and lines[0].startswith("error: ") and fragment in lines[0], proc.stderr
        assert "secret" not in proc.stderr
    assert sorted(p.name for p in tmp_path.iterdir()) == ["config.toml"]  # no database, no data folder


# --------------------------------------------------------------------------- what good input still does


def test_a_kelvin_sign_never_names_the_seat_of_kim(world: World) -> None:
    assert invoke(world, ["game", "show", 1, "--as", KIM.upper()]).exit_code == 0  # ASCII: lower-cased
    result = invoke(world, ["game", "show", 1, "--as", "\u212aim@example.org"])
    assert result.exit_code == 1 and "does not play in game 1" in result.stderr


def test_db_upgrade_creates_a_new_file_but_no_folder(tmp_path: Path) -> None:
    env = dict(ENV, PBEM_CONFIG=os.devnull)
    missing = tmp_path / "no" / "such" / "pbem.sqlite3"
    result = run(["--db", f"sqlite:///{missing}", "db", "upgrade"], env)
    assert result.exit_code == 1 and f"the folder {missing.parent} does not exist" in result.stderr
    assert not (tmp_path / "no").exists()
    status = run(["--db", f"sqlite:///{missing}", "db", "status"], env)
    assert status.exit_code == 1 and "no such file: run `pbem db upgrade`" in status.stdout and not status.stderr
    (tmp_path / "empty.sqlite3").write_bytes(b"")
    status = run(["--db", f"sqlite:///{tmp_path / 'empty.sqlite3'}", "db", "status", "--json"], env)
    assert status.exit_code == 1 and json.loads(status.stdout)["revision"] is None
    for args in (["game", "list"], ["db", "status"]):  # looking creates nothing
        run(["--db", f"sqlite:///{tmp_path / 'new.sqlite3'}", *args], env)
    assert sorted(p.name for p in tmp_path.iterdir()) == ["empty.sqlite3"]
    assert (tmp_path / "empty.sqlite3").stat().st_size == 0
    result = run(["--db", f"sqlite:///{tmp_path / 'new.sqlite3'}", "db", "upgrade"], env)
    assert result.exit_code == 0 and "Upgraded the database" in result.stdout


def test_an_export_with_deadlines_changed_imports(world: World, tmp_path: Path) -> None:
    doc = json.loads(world.export.read_text())
    assert "set" in [e["kind"] for e in doc["events"]]
    upper = tmp_path / "upper.json"  # an address in capitals is taken as the lower-case one
    upper.write_text(json.dumps({**doc, "players": [{**p, "email": p["email"].upper()} for p in doc["players"]]}))
    engine = make_engine(f"sqlite:///{tmp_path / 'copy.sqlite3'}")
    shutil.copy(Path(world.url.removeprefix("sqlite:///")), tmp_path / "copy.sqlite3")
    result = run(["--db", f"sqlite:///{tmp_path / 'copy.sqlite3'}", "game", "import", str(upper)],
                 dict(ENV, PBEM_CONFIG=os.devnull))
    assert result.exit_code == 0, result.stderr
    with engine.connect() as connection:
        emails = connection.exec_driver_sql(
            f"SELECT email FROM seats WHERE game_id = {int(result.stdout)} ORDER BY seat").scalars().all()
    assert emails == [ANN, BOB, KIM]
    engine.dispose()


def test_no_args_prints_the_help() -> None:
    result = run(["game"], ENV)
    assert result.exit_code == 0 and "replace-player" in result.stdout and not result.stderr


# --------------------------------------------------------------------------- the installed command


SUBPROCESS_CASES = [  # each start of the command takes a second or two: a few
    (["game", "show", str(2**63)], "there is no game 9223372036854775808"),
    (["game", "new", "fifth-avenue", "-p", "Ann=a b@example.org", "-p", f"Bob={BOB}"], "is not an email address"),
]


def test_the_installed_command_says_one_line(database_url: str, tmp_path: Path, pbem) -> None:
    engine = make_engine(database_url)
    GameService(engine).create_game("fifth-avenue", [("Ann", ANN), ("Bob", BOB)], seed=3)
    before = dump(engine)
    for args, fragment in SUBPROCESS_CASES:
        proc = pbem(database_url, *args, check=False)
        assert proc.returncode == 1, (args, proc.stderr)
        lines = proc.stderr.splitlines()
        assert len(lines) == 1 and lines[0].startswith("error: ") and fragment in lines[0], (args, proc.stderr)
        assert "Traceback" not in proc.stderr + proc.stdout
    assert dump(engine) == before
    engine.dispose()


def test_the_installed_command_on_files_that_are_not_databases(tmp_path: Path, pbem) -> None:
    (tmp_path / "text.sqlite3").write_text("not a database\n")
    cases = [(f"sqlite:///{tmp_path / 'text.sqlite3'}", ["game", "list"], "is not a SQLite database"),
             (f"sqlite:///{tmp_path / 'no' / 'pbem.sqlite3'}", ["game", "show", "-1"], "is not a number"),
             ("postgresql://ann:secret@127.0.0.1:1/pbem", ["game", "list"], "cannot reach the database")]
    for url, args, fragment in cases:
        proc = pbem(url, *args, check=False)
        assert proc.returncode == 1 and proc.stderr.startswith("error: ") and fragment in proc.stderr, proc.stderr
        assert len(proc.stderr.splitlines()) == 1 and "secret" not in proc.stderr
    assert sorted(p.name for p in tmp_path.iterdir()) == ["text.sqlite3"]
    assert (tmp_path / "text.sqlite3").read_text() == "not a database\n"
