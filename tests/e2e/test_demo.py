"""`pbem demo`: a whole game by real mail through the demo's own servers (pymap and aiosmtpd on 127.0.0.1).

The full 2-player game of seed 3 takes about 30 s here (140 decisions, 178 game mails, 127 mails from the
players). How long is not asserted: each run is capped at ``WHOLE_RUN``, which only a hang reaches.
"""

from __future__ import annotations

import json
import os
import queue
import re
import shutil
import signal
import smtplib
import subprocess
import sys
import threading
import time
from email import policy
from email.parser import BytesParser
from pathlib import Path

import pytest
from imapclient import IMAPClient

from pbem.demo.players import listed_commands, reply_like_a_client, text_of
from pbem_testing.waiting import HANG, NeverHappened, wait_until

PBEM = shutil.which("pbem")
WHOLE_RUN = 4 * HANG  # seconds: a whole demo game, on a machine loaded many times over
TURN = re.compile(r"^turn (\d+): (Ann|Bob): \S")
MAILS = re.compile(r"^(?P<game>\d+) game mails for (?P<decisions>\d+) decisions \((?P<rate>\d+\.\d\d) a decision\), "
                   r"(?P<receipts>\d+) receipts?, (?P<players>\d+) mails from the players\.$", re.M)


def demo_command() -> list[str]:
    return [PBEM] if PBEM else [sys.executable, "-m", "pbem"]


def demo_env(url: str, tmp_path: Path) -> dict[str, str]:
    return dict(os.environ, PBEM_DATABASE_URL=url, PBEM_CONFIG=os.devnull, COLUMNS="120")


@pytest.mark.slow
def test_demo_plays_a_whole_game_by_mail_and_archives_it(tmp_path: Path, pbem) -> None:
    url = f"sqlite:///{tmp_path / 'demo.sqlite3'}"  # a fresh file: the demo creates the schema itself
    proc = subprocess.run([*demo_command(), "demo", "--players", "2", "--seed", "3"], capture_output=True, text=True,
                          env=demo_env(url, tmp_path), timeout=WHOLE_RUN)
    assert proc.returncode == 0, proc.stdout[-2000:] + proc.stderr
    lines = proc.stdout.splitlines()
    assert any(line.startswith("setup: Ann: place ") for line in lines)
    turns = [int(m.group(1)) for m in map(TURN.match, lines) if m]
    assert turns == list(range(1, len(turns) + 1)) and len(turns) >= 10, proc.stdout
    assert re.search(rf"^{len(turns)} turns, \d+ decisions in \d+ s\.$", proc.stdout, re.M), proc.stdout[-2000:]
    # The game's mails apart from the players', and the game's per decision.
    counted = MAILS.search(proc.stdout)
    assert counted, proc.stdout[-2000:]
    game_mails, decisions, players_mails = int(counted["game"]), int(counted["decisions"]), int(counted["players"])
    assert counted["rate"] == f"{game_mails / decisions:.2f}", counted[0]
    # Each mail of a player answers a mail asking for a decision; some decisions had one answer only and were
    # played by the game itself.
    assert game_mails >= players_mails and decisions >= players_mails > 50, counted[0]
    # A bid the auction answers later gets a receipt without a board, counted apart from the game mails.
    assert 0 < int(counted["receipts"]) < players_mails, counted[0]
    assert re.search(r"^(Ann|Bob) wins \(Ann \d+, Bob \d+\)\.$", proc.stdout, re.M), proc.stdout[-2000:]
    assert "FINAL SCORING" in proc.stdout and "Game 1 is in the archive: pbem game show 1" in proc.stdout
    assert "pbem archive build site && pbem archive serve site" in proc.stdout

    shown = json.loads(pbem(url, "game", "show", "1", "--json").stdout)
    assert shown["over"] is True and shown["status"] == "finished" and shown["winner"]
    history = json.loads(pbem(url, "game", "history", "1", "--json").stdout)
    commands = [h for h in history if h["kind"] == "command"]
    assert len(commands) > 50 and all(h["source"].startswith("mail:<") for h in commands)
    assert len(commands) == players_mails  # every robot's mail was a legal command, applied at once
    exported = json.loads(pbem(url, "game", "export", "1").stdout)
    assert exported["final"]["over"] is True and {p["email"] for p in exported["players"]} == {
        "ann@demo.test", "bob@demo.test"}


def test_demo_stops_after_max_turns_and_leaves_the_game_unfinished(tmp_path: Path, pbem) -> None:
    url = f"sqlite:///{tmp_path / 'demo.sqlite3'}"
    proc = subprocess.run([*demo_command(), "demo", "--players", "3", "--seed", "2", "--max-turns", "3"],
                          capture_output=True, text=True, env=demo_env(url, tmp_path), timeout=WHOLE_RUN)
    assert proc.returncode == 0, proc.stdout[-2000:] + proc.stderr
    assert re.findall(r"^turn (\d+): ", proc.stdout, re.M) == ["1", "2", "3"]
    assert "stopped after 3 turns (--max-turns)" in proc.stdout and "pbem game show 1" in proc.stdout
    assert MAILS.search(proc.stdout), proc.stdout[-2000:]
    shown = json.loads(pbem(url, "game", "show", "1", "--json").stdout)
    assert shown["over"] is False and shown["status"] == "active" and len(shown["to_act"]) == 1
    # The same seed plays the same game: a second demo in the same database repeats it as game 2.
    again = subprocess.run([*demo_command(), "demo", "--players", "3", "--seed", "2", "--max-turns", "3"],
                           capture_output=True, text=True, env=demo_env(url, tmp_path), timeout=WHOLE_RUN)
    assert again.returncode == 0, again.stderr
    assert re.findall(r"^(?:setup|turn \d+): .*$", again.stdout, re.M) == re.findall(
        r"^(?:setup|turn \d+): .*$", proc.stdout, re.M)
    assert "Game 2 is in the archive" in again.stdout


def test_demo_refuses_bad_options_and_a_database_with_real_mail_to_send(tmp_path: Path, pbem, one_line_error) -> None:
    url = f"sqlite:///{tmp_path / 'demo.sqlite3'}"
    env = demo_env(url, tmp_path)

    def run_demo(*args: str) -> subprocess.CompletedProcess[str]:
        return subprocess.run([*demo_command(), "demo", *args], capture_output=True, text=True, env=env,
                              timeout=HANG)

    one_line_error(run_demo("--players", "5"), "is for 2, 3, 4 players, not 5")
    one_line_error(run_demo("--human", "not-an-address"), "--human needs an email address")
    one_line_error(run_demo("--human", "bob@demo.test"), "is taken by the demo itself")
    # A game played for real has its opening mails queued: the demo's worker would send them, so it refuses.
    pbem(url, "game", "new", "fifth-avenue", "--player", "Ann=ann@example.org", "--player", "Bob=bob@example.org")
    one_line_error(run_demo("--players", "2", "--max-turns", "1"), "holds 2 unsent mails of other games")
    assert json.loads(pbem(url, "outbox", "list", "--json").stdout)[0]["status"] == "queued"


def test_the_readme_order_a_game_by_hand_then_the_demo_on_the_default_database(tmp_path: Path, pbem_with) -> None:
    """README: `pbem db upgrade`, `pbem game new` with the players' addresses, then `pbem demo`, all on the database
    nobody named. The hand-made game's opening mails wait for a worker, which the demo's would be: the demo plays in
    a database of its own beside the default one, says so, and its closing lines name it; the game by hand keeps its
    mail queued."""
    env = {key: value for key, value in os.environ.items() if key != "PBEM_DATABASE_URL"}
    env.update(PBEM_CONFIG=os.devnull, COLUMNS="120", XDG_DATA_HOME=str(tmp_path / "data"), HOME=str(tmp_path))
    assert pbem_with(env, "db", "upgrade").returncode == 0
    made = pbem_with(env, "game", "new", "fifth-avenue", "--player", "Ann=ann@example.org",
                     "--player", "Bob=bob@example.org")
    assert made.returncode == 0, made.stderr
    proc = subprocess.run([*demo_command(), "demo", "--players", "2", "--max-turns", "2"], capture_output=True,
                          text=True, env=env, timeout=WHOLE_RUN)
    assert proc.returncode == 0, proc.stdout[-2000:] + proc.stderr
    default, own = tmp_path / "data" / "pbem" / "pbem.sqlite3", tmp_path / "data" / "pbem" / "demo.sqlite3"
    assert proc.stdout.splitlines()[0] == (
        f"Your database {default} holds 2 unsent mails of your own games, which the demo's worker would send: "
        f"the demo plays in a database of its own, {own}.")
    assert re.findall(r"^turn (\d+): ", proc.stdout, re.M) == ["1", "2"]
    assert f"Game 1 is in the archive: pbem --db sqlite:///{own} game show 1" in proc.stdout
    demo_game = json.loads(pbem_with(env, "--db", f"sqlite:///{own}", "game", "show", "1", "--json").stdout)
    assert {p["email"] for p in demo_game["players"]} == {"ann@demo.test", "bob@demo.test"}
    by_hand = json.loads(pbem_with(env, "game", "show", "1", "--json").stdout)
    assert {p["email"] for p in by_hand["players"]} == {"ann@example.org", "bob@example.org"}
    outbox = json.loads(pbem_with(env, "outbox", "list", "--json").stdout)
    assert [m["status"] for m in outbox] == ["queued", "queued"]
    # Again: the demo's own database holds only the demo's mail, so the second demo plays there too, as game 2.
    again = subprocess.run([*demo_command(), "demo", "--players", "2", "--max-turns", "1"], capture_output=True,
                           text=True, env=env, timeout=WHOLE_RUN)
    assert again.returncode == 0, again.stderr
    assert f"Game 2 is in the archive: pbem --db sqlite:///{own} game show 2" in again.stdout


def _reader(stream, lines: queue.Queue[str]) -> None:
    for line in stream:
        lines.put(line.rstrip("\n"))


def _wait_line(lines: queue.Queue[str], pattern: str, seen: list[str]) -> re.Match[str]:
    deadline = time.monotonic() + HANG
    while time.monotonic() < deadline:
        try:
            line = lines.get(timeout=0.2)
        except queue.Empty:
            continue
        seen.append(line)
        found = re.search(pattern, line)
        if found:
            return found
    raise NeverHappened(f"no line matching {pattern!r} within {HANG:g} s; output so far:\n" + "\n".join(seen))


def _request(imap_port: int, address: str, password: str, newer_than: int):
    """The newest mail in the person's inbox asking for a decision numbered above ``newer_than``."""

    def asked():
        with IMAPClient("127.0.0.1", port=imap_port, ssl=False, timeout=60) as client:
            client.login(address, password)
            client.select_folder("INBOX", readonly=True)
            uids = client.search(["ALL"])
            mails = client.fetch(uids, ["BODY.PEEK[]"]) if uids else {}
        asking = []
        for uid in sorted(mails):
            message = BytesParser(policy=policy.default).parsebytes(mails[uid][b"BODY[]"])
            decision = str(message["X-Pbem-Decision"] or "")
            if decision.isdigit() and int(decision) > newer_than:
                asking.append((int(decision), message))
        return asking[-1] if asking else None

    return wait_until(asked, f"a mail asking {address} for a decision after {newer_than}", every=0.1)


def test_a_person_takes_a_seat_with_a_mail_client(tmp_path: Path, pbem) -> None:
    url = f"sqlite:///{tmp_path / 'demo.sqlite3'}"
    me = "me@example.org"
    process = subprocess.Popen([*demo_command(), "demo", "--players", "2", "--seed", "5", "--human", me],
                               stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, bufsize=1,
                               env=demo_env(url, tmp_path))
    lines: queue.Queue[str] = queue.Queue()
    reader = threading.Thread(target=_reader, args=(process.stdout, lines), daemon=True)
    reader.start()
    seen: list[str] = []
    try:
        imap_port = int(_wait_line(lines, r"incoming mail \(IMAP\): server 127\.0\.0\.1, port (\d+)", seen).group(1))
        smtp_port = int(_wait_line(lines, r"outgoing mail \(SMTP\): server 127\.0\.0\.1, port (\d+)", seen).group(1))
        password = _wait_line(lines, rf"user name: {re.escape(me)}\s+password: (\S+)", seen).group(1)
        _wait_line(lines, r"waiting for Me's mail \(decision 0\)", seen)

        # Like a mail client: read the request over IMAP, answer it over SMTP with a login.
        decision, request = _request(imap_port, me, password, -1)
        assert decision == 0
        command = listed_commands(text_of(request))[0]
        with smtplib.SMTP("127.0.0.1", smtp_port, timeout=60) as smtp:
            smtp.login(me, password)
            smtp.send_message(reply_like_a_client(request, f"Me <{me}>", command))
        # The robot plays its placements by mail; then the game asks the person again.
        later, _ = _request(imap_port, me, password, 0)
        assert later > 1
        _wait_line(lines, rf"waiting for Me's mail \(decision {later}\)", seen)
    finally:
        process.send_signal(signal.SIGINT)
        try:
            process.wait(timeout=HANG)
        except subprocess.TimeoutExpired:
            process.kill()
            process.wait()
    reader.join(HANG)  # it ends with the output: every line is in the queue
    while not lines.empty():
        seen.append(lines.get())
    assert process.returncode == 130, "\n".join(seen) + process.stderr.read()
    assert any("stays in the archive, unfinished" in line for line in seen), seen
    history = json.loads(pbem(url, "game", "history", "1", "--json").stdout)
    mine = [h for h in history if h["kind"] == "command" and h["actor"] == me]
    assert [h["data"]["command"] for h in mine] == [command] and mine[0]["source"].startswith("mail:<")
    assert any(h["kind"] == "command" and h["actor"] == "ann@demo.test" for h in history)


def test_the_demo_plays_manhattan_too(tmp_path: Path, pbem) -> None:
    url = f"sqlite:///{tmp_path / 'demo.sqlite3'}"
    proc = subprocess.run([*demo_command(), "demo", "--game", "manhattan", "--players", "2", "--seed", "4",
                           "--max-turns", "6"], capture_output=True, text=True, env=demo_env(url, tmp_path), timeout=WHOLE_RUN)
    assert proc.returncode == 0, proc.stdout[-2000:] + proc.stderr
    assert proc.stdout.startswith("pbem demo: Manhattan, 2 players (Ann, Bob), seed 4; game 1")
    assert re.findall(r"^turn (\d+): ", proc.stdout, re.M) == ["1", "2", "3", "4", "5", "6"]
    assert re.search(r"^turn 1: Ann: choose blue \d( \d){3}; ", proc.stdout, re.M), proc.stdout
    shown = json.loads(pbem(url, "game", "show", "1", "--json").stdout)
    assert shown["kind"] == "manhattan" and shown["status"] == "active"
