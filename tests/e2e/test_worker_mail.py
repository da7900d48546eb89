"""The mail worker against real servers: Dovecot (IMAP, LMTP) and an SMTP server in front of it.

Scripted players read their own inboxes over IMAP and answer the way a mail
client does: "Re:" subject, In-Reply-To, the mail they answer quoted below
their command. The game must end up exactly as the same commands applied
directly.
"""

from __future__ import annotations

import asyncio
import json
import os
import re
import subprocess
from email.message import EmailMessage
from email.parser import BytesParser
from email import policy
from email.utils import make_msgid

import aiosmtplib
import pytest
from sqlmodel import Session, select

from pbem.config import MailConfig, ServerConfig
from pbem.demo.players import listed_commands
from pbem.games import get_game
from pbem.games.fifth_avenue import new_game
from pbem.games.rng import Rng
from pbem.services.table.service import GameService
from pbem.services.offline.simulate import choose
from pbem.worker import MailWorker
from pbem.store.db import make_engine
from pbem.store.models import InboundMail
from pbem_testing.waiting import HANG, NeverHappened, wait_until

GAME = "game@example.test"
PLAYERS = [("Ann", "ann@example.test"), ("Bob", "bob@example.test"), ("Cy", "cy@example.test")]


@pytest.fixture
def mail_config(dovecot, smtp_server, mailboxes) -> MailConfig:
    return MailConfig(
        imap=ServerConfig(dovecot.host, dovecot.imap_port, "plain", "game", "secret"),
        smtp=ServerConfig("127.0.0.1", smtp_server.port, "plain"),
        game_address=GAME,
        poll_interval=1,
    )


_READ: dict[tuple, EmailMessage] = {}  # (server, user, UIDVALIDITY, UID) -> the message, parsed once


def inbox(dovecot, user: str) -> list[EmailMessage]:
    """Every message in ``user``'s INBOX, oldest first. Tests poll this, and a game mail with its picture is
    about 70 KB: each message is fetched and parsed once, not at every poll."""
    client = dovecot.imap(user)
    try:
        validity = client.select_folder("INBOX")[b"UIDVALIDITY"]
        uids = sorted(client.search(["ALL"]))
        box = (str(dovecot.directory), user, validity)
        new = [uid for uid in uids if (*box, uid) not in _READ]
        for uid, data in (client.fetch(new, ["BODY.PEEK[]"]) if new else {}).items():
            _READ[(*box, uid)] = BytesParser(policy=policy.default).parsebytes(data[b"BODY[]"])
        return [_READ[(*box, uid)] for uid in uids]
    finally:
        client.logout()


def reply_like_a_client(original: EmailMessage, sender: str, text: str) -> EmailMessage:
    reply = EmailMessage()
    reply["From"] = sender
    reply["To"] = original["Reply-To"] or original["From"]
    reply["Subject"] = "Re: " + original["Subject"]
    reply["Message-ID"] = make_msgid(domain="client.example.test")
    reply["In-Reply-To"] = original["Message-ID"]
    reply["References"] = f"{original.get('References', '')} {original['Message-ID']}".strip()
    quoted = "\n".join("> " + line for line in original.get_body(("plain",)).get_content().splitlines())
    reply.set_content(f"{text}\n\nOn Sun, 22 Nov 2026 at 10:00, Game <{GAME}> wrote:\n{quoted}\n")
    return reply


def send(smtp_server, message: EmailMessage) -> None:
    asyncio.run(aiosmtplib.send(message, hostname="127.0.0.1", port=smtp_server.port))


def wait_for_inbox(dovecot, user: str, count: int, timeout: float = HANG) -> list[EmailMessage]:
    """``user``'s INBOX once it holds ``count`` mails, or as it is after ``timeout`` (the caller's assertion then
    says what is missing)."""
    mails: list[EmailMessage] = []

    def arrived() -> bool:
        mails[:] = inbox(dovecot, user)
        return len(mails) >= count

    try:
        wait_until(arrived, f"{count} mails for {user}", timeout=timeout)
    except NeverHappened:
        pass
    return mails


def wait_for_request(dovecot, user: str, decision: int) -> EmailMessage:
    """The newest mail in ``user``'s INBOX asking ``decision``, once it is there: a worker that runs on sends it
    from its outbox process a moment after the move is in the database."""
    return wait_until(lambda: next((m for m in reversed(inbox(dovecot, user))
                                    if m["X-Pbem-Decision"] == str(decision)), None),
                      f"the mail asking {user} for decision {decision}")


def test_players_play_by_real_mail(dovecot, smtp_server, mail_config, database_url: str) -> None:
    engine = make_engine(database_url)
    games = GameService(engine, mail_domain="example.test")
    game_id = games.create_game("fifth-avenue", PLAYERS, seed=12)
    worker = MailWorker(engine, mail_config)
    assert len(worker.run_once().sent.sent) == 3  # the opening mails
    rng = Rng(12)
    played: list[tuple[int, str]] = []
    for _ in range(24):
        state = games.get(game_id).state
        seat = state.current_player()
        user = PLAYERS[seat][1].split("@")[0]
        request = wait_for_request(dovecot, user, state.moves)
        assert str(request["Subject"]) == "[Fifth Avenue #1] Ann, Bob, Cy"
        text = request.get_body(("plain",)).get_content().replace("\r\n", "\n")
        command = choose(listed_commands(text), rng, "uniform")  # one command of every shape the mail lists
        send(smtp_server, reply_like_a_client(request, PLAYERS[seat][1], command))
        report = worker.run_once()
        assert [outcome for _, _, outcome in report.processed] == ["applied"], report.processed
        played.append((seat, command))
    reference = new_game(3, 12)
    for seat, command in played:
        reference.apply_command(seat, command)
    assert games.get(game_id).state.to_json() == reference.to_json()
    history = [h for h in games.history(game_id) if h.kind == "command"]
    assert all(h.source.startswith("mail:<") for h in history) and len(history) == 24
    # Every processed mail left the inbox for the processed folder.
    client = dovecot.imap("game")
    try:
        assert client.select_folder("INBOX")[b"EXISTS"] == 0
        assert client.select_folder("pbem-processed")[b"EXISTS"] == 24
    finally:
        client.logout()
    engine.dispose()


def test_refusals_loops_and_duplicates(dovecot, smtp_server, mail_config, database_url: str) -> None:
    engine = make_engine(database_url)
    games = GameService(engine, mail_domain="example.test")
    games.create_game("fifth-avenue", PLAYERS, seed=13)
    worker = MailWorker(engine, mail_config)
    worker.run_once()
    request = wait_for_inbox(dovecot, "ann", 1)[-1]

    bad = reply_like_a_client(request, PLAYERS[0][1], "place CP orange")
    send(smtp_server, bad)
    auto = reply_like_a_client(request, PLAYERS[0][1], "A")
    auto["Auto-Submitted"] = "auto-replied"
    send(smtp_server, auto)
    report = worker.run_once()
    outcomes = sorted(outcome for _, _, outcome in report.processed)
    assert outcomes == ["ignored (Auto-Submitted: auto-replied)", "rejected"]
    answers = wait_for_inbox(dovecot, "ann", 2)
    refusal = answers[-1]
    assert refusal["In-Reply-To"] == bad["Message-ID"] and refusal["Auto-Submitted"] == "auto-replied"
    body = " ".join(refusal.get_body(("plain",)).get_content().split())
    assert "place CP orange" in body and "Central Park is not a district" in body and "You may send now" in body

    # The same mail delivered twice is processed once.
    good = reply_like_a_client(request, PLAYERS[0][1], games.legal(1)[1][PLAYERS[0][1]][0])
    send(smtp_server, good)
    send(smtp_server, good)
    report = worker.run_once()
    assert [o for _, _, o in report.processed] == ["applied"] and len(report.already_done) == 1
    with Session(engine) as s:
        rows = s.exec(select(InboundMail.outcome).order_by(InboundMail.id)).all()
    assert rows == ["rejected", "ignored", "applied"] or sorted(rows) == ["applied", "ignored", "rejected"]
    assert len([h for h in games.history(1) if h.kind == "command"]) == 1
    engine.dispose()


def test_worker_once_from_the_command_line(dovecot, smtp_server, mailboxes, tmp_path) -> None:
    url = f"sqlite:///{tmp_path / 'cli.sqlite3'}"
    env = dict(os.environ, PBEM_DATABASE_URL=url, PBEM_IMAP_HOST="127.0.0.1", PBEM_IMAP_PORT=str(dovecot.imap_port),
               PBEM_IMAP_SECURITY="plain", PBEM_IMAP_USER="game", PBEM_IMAP_PASSWORD="secret",
               PBEM_SMTP_HOST="127.0.0.1", PBEM_SMTP_PORT=str(smtp_server.port), PBEM_SMTP_SECURITY="plain",
               PBEM_GAME_ADDRESS=GAME, PBEM_CONFIG=os.devnull)

    def pbem(*args: str) -> subprocess.CompletedProcess[str]:
        return subprocess.run(["pbem", *args], capture_output=True, text=True, env=env, timeout=120)

    assert pbem("db", "upgrade").returncode == 0
    assert pbem("game", "new", "fifth-avenue", "-p", "Ann=ann@example.test", "-p", "Bob=bob@example.test").returncode == 0
    check = pbem("config", "check")
    assert check.returncode == 0, check.stdout + check.stderr
    assert "imap 127.0.0.1" in check.stdout and "ok: logged in as game" in check.stdout
    run = pbem("worker", "--once")
    assert run.returncode == 0, run.stderr
    assert len(wait_for_inbox(dovecot, "ann", 1)) == 1 and len(wait_for_inbox(dovecot, "bob", 1)) == 1
    env["PBEM_IMAP_PASSWORD"] = "wrong"
    failed = pbem("config", "check")
    assert failed.returncode == 1 and "FAILED" in failed.stdout


def test_the_worker_logs_with_levels_for_journald_and_as_json(dovecot, smtp_server, mailboxes, tmp_path) -> None:
    """`journalctl -p err -u pbem-worker` finds the errors: under systemd (JOURNAL_STREAM names the stream the
    worker writes to) each line begins with its journald priority and has no time of its own. `--log-format json`
    gives one object a line; a format or level that is none of the choices is one error line."""
    url = f"sqlite:///{tmp_path / 'logs.sqlite3'}"
    env = dict(os.environ, PBEM_DATABASE_URL=url, PBEM_IMAP_HOST="127.0.0.1", PBEM_IMAP_PORT=str(dovecot.imap_port),
               PBEM_IMAP_SECURITY="plain", PBEM_IMAP_USER="game", PBEM_IMAP_PASSWORD="secret",
               PBEM_SMTP_HOST="127.0.0.1", PBEM_SMTP_PORT=str(smtp_server.port), PBEM_SMTP_SECURITY="plain",
               PBEM_GAME_ADDRESS=GAME, PBEM_CONFIG=os.devnull, COLUMNS="120")
    env.pop("JOURNAL_STREAM", None)

    def pbem(*args: str, **more: str) -> subprocess.CompletedProcess[str]:
        return subprocess.run(["pbem", *args], capture_output=True, text=True, env=dict(env, **more), timeout=120)

    def in_the_journal(*args: str, **more: str) -> tuple[int, list[str]]:
        """A run whose stdout and stderr are one stream, which JOURNAL_STREAM names, as systemd's are."""
        journal = tmp_path / "journal"
        with journal.open("w") as stream:
            found = os.fstat(stream.fileno())
            run = subprocess.run(["pbem", *args], stdout=stream, stderr=stream, text=True, timeout=120,
                                 env=dict(env, JOURNAL_STREAM=f"{found.st_dev}:{found.st_ino}", **more))
        return run.returncode, journal.read_text().splitlines()

    assert pbem("db", "upgrade").returncode == 0
    assert pbem("game", "new", "fifth-avenue", "-p", "Ann=ann@example.test", "-p", "Bob=bob@example.test").returncode == 0
    # An archive folder that cannot be made: the worker says so as an error and goes on.
    (tmp_path / "a-file").write_text("")
    code, lines = in_the_journal("worker", "--once", PBEM_ARCHIVE_DIR=str(tmp_path / "a-file" / "site"))
    assert code == 0, lines
    assert all(re.match(r"<[3-7]>", line) for line in lines), lines
    errors = [line for line in lines if line.startswith("<3>")]
    assert errors and errors[0].startswith(f"<3>the archive at {tmp_path / 'a-file' / 'site'} was not updated"), lines
    assert lines[-1].startswith("<6>pass: 0 mails read, 0 sent"), lines  # (game new sent its mails itself)
    # A command's one error line carries the priority too.
    code, lines = in_the_journal("worker", "--once", PBEM_IMAP_PASSWORD="wrong")
    assert code == 1 and len(lines) == 1 and lines[0].startswith("<3>error: the mail server failed"), lines
    # Without the journal: the time in UTC and the level, errors on stderr.
    plain = pbem("worker", "--once", PBEM_ARCHIVE_DIR=str(tmp_path / "a-file" / "site"))
    assert plain.returncode == 0, plain.stderr
    assert re.match(r"\d{4}-\d\d-\d\d \d\d:\d\d:\d\d INFO pass: 0 mails read", plain.stdout.splitlines()[-1]), plain.stdout
    assert re.match(r"\d{4}-\d\d-\d\d \d\d:\d\d:\d\d ERROR the archive at ", plain.stderr), plain.stderr

    as_json = pbem("worker", "--once", "--log-format", "json", "--log-level", "debug")
    assert as_json.returncode == 0 and as_json.stderr == "", as_json.stderr
    objects = [json.loads(line) for line in as_json.stdout.splitlines()]
    assert objects and all({"time", "level", "logger", "message"} <= set(o) for o in objects), objects
    last = objects[-1]
    assert (last["level"], last["logger"], last["read"], last["sent"]) == ("info", "pbem.worker", 0, 0), last
    assert last["message"].startswith("pass: 0 mails read")
    # The config's setting is the default of the option: PBEM_LOG_FORMAT=json, and nothing below warning.
    quiet = pbem("worker", "--once", PBEM_LOG_FORMAT="json", PBEM_LOG_LEVEL="warning")
    assert quiet.returncode == 0 and quiet.stdout == "" and quiet.stderr == "", quiet

    for args, more, said in [
            (["--log-level", "loud"], {}, "--log-level must be one of debug, info, warning, error, not 'loud'"),
            (["--log-format", "xml"], {}, "--log-format must be one of text, json, not 'xml'"),
            ([], {"PBEM_LOG_LEVEL": "verbose"}, "PBEM_LOG_LEVEL must be one of debug, info, warning, error"),
            ([], {"PBEM_LOG_FORMAT": "syslog"}, "PBEM_LOG_FORMAT must be one of text, json, not 'syslog'")]:
        refused = pbem("worker", "--once", *args, **more)
        assert refused.returncode == 1 and refused.stdout == "", refused
        assert refused.stderr.splitlines() == [f"error: {said}"] or (
            len(refused.stderr.splitlines()) == 1 and said in refused.stderr), refused.stderr


class DovecotMail:
    """What a robot player needs of the mail system (``pbem.demo.players.MailAccess``), on the Dovecot of the tests."""

    def __init__(self, dovecot, smtp_server) -> None:
        self.dovecot, self.host, self.smtp_port = dovecot, "127.0.0.1", smtp_server.port

    def imap(self, address: str):
        return self.dovecot.imap(address.split("@")[0])


@pytest.mark.parametrize("kind, players, seed, database", [
    ("fifth-avenue", 3, 31, "postgresql"), ("fifth-avenue", 2, 32, "sqlite"), ("manhattan", 3, 33, "sqlite")])
def test_a_complete_game_entirely_by_mail(kind, players, seed, database, request, dovecot, smtp_server,
                                          mail_config) -> None:
    """Every decision of a whole game, from the first placement to the final scoring, is read by its player
    from their own inbox and answered by mail, quoting the request; the worker does the rest. Players split
    their turns: every later phase of a turn answers the turn's first mail. Now and then a player answers an
    old mail whose decision is over: nothing applies and the reply says so. At the end, every sentence that
    names a player or a Manhattan site is checked against the game from its reader's side."""
    from pbem.demo.players import Robot, listed_commands, pick, reply_like_a_client, text_of

    engine = make_engine(request.getfixturevalue(f"{database}_url"))
    games = GameService(engine, mail_domain="example.test")
    seats = PLAYERS[:players]
    game_id = games.create_game(kind, seats, seed=seed)
    worker = MailWorker(engine, mail_config)
    mail = DovecotMail(dovecot, smtp_server)
    rules = get_game(kind)
    robots = [Robot(mail, name, address, seed * 10 + n, subject_tag=f"[{rules.TITLE} #{game_id}]")
              for n, (name, address) in enumerate(seats)]
    played: list[tuple[int, str]] = []
    first_of_context: dict[int, tuple[object, str]] = {}  # seat -> (the first mail of its open context, its key)
    stale = split = 0
    worker.run_once()
    try:
        while not (info := games.get(game_id)).over:
            seat = info.state.current_player()
            key, _ = rules.decision_context(info.state)
            robot, sender = robots[seat], f"{seats[seat][0]} <{seats[seat][1]}>"
            asked = robot.request(info.state.moves, timeout=HANG)  # in this player's own inbox, or it gives up
            old = first_of_context.get(seat)
            if old is not None and old[1] != key and len(played) % 5 == 2:
                robot.send(reply_like_a_client(old[0], sender, listed_commands(text_of(old[0]))[0]), GAME)
                report = worker.run_once()
                assert [outcome for _, _, outcome in report.processed] == ["stale"], report.processed
                assert games.get(game_id).state.moves == info.state.moves
                told = " ".join(text_of(inbox(dovecot, seats[seat][1].split("@")[0])[-1]).split())
                assert "which is over: the game now waits for" in told, told[:300]
                stale += 1
            if old is None or old[1] != key:
                first_of_context[seat] = old = (asked, key)
            else:
                split += 1
            command = pick(listed_commands(text_of(asked)), robot.rng)
            robot.send(reply_like_a_client(old[0], sender, command), GAME)
            played.append((seat, command))
            report = worker.run_once()
            assert [outcome for _, _, outcome in report.processed] == ["applied"], (played[-1], report.processed)
            assert len(played) < 1000, "the game does not end"
    finally:
        for robot in robots:
            robot.close()
    assert stale >= 3 and (split >= 20 or kind == "manhattan"), (stale, split)
    reference = rules.new_game(players, seed)
    for seat, command in played:
        reference.apply_command(seat, command)
    assert reference.is_terminal() and games.get(game_id).state.to_json() == reference.to_json()
    history = [h for h in games.history(game_id) if h.kind == "command"]
    assert [(h.seat, h.data["command"]) for h in history] == played
    assert all(h.source.startswith("mail:<") for h in history)
    winner = games.get(game_id).players[reference.result["winners"][0]].name
    for seat, (name, address) in enumerate(seats):
        mails = inbox(dovecot, address.split("@")[0])
        last = mails[-1]
        assert str(last["Subject"]) == f"[{rules.TITLE} #{game_id}] " + ", ".join(name for name, _ in seats)
        body = last.get_body(("plain",)).get_content()
        assert body.startswith("Game over: ") and winner in body.splitlines()[0], body.splitlines()[0]
        assert "The game is over." in body and ("FINAL SCORING" in body or kind != "fifth-avenue")
        sites = _every_sentence_is_true_for(seat, [text_of(m) for m in mails], seats, played, reference)
        assert sites >= 10 or kind != "manhattan", sites  # the check saw the sentences it is about
    engine.dispose()


def _every_sentence_is_true_for(seat: int, bodies: list[str], seats, played, final) -> int:
    """The reader's mails name players, never 'player N'; whoever a mail says played a command played it; a
    Manhattan site a sentence names is, on the reader's own board, the site the part stands on. Returns how
    many site sentences it checked."""
    checked = 0
    names = [name for name, _ in seats]
    commands_of = {name: {command for s, command in played if names[s] == name} for name in names}
    view = final.view(seat)
    cities = "|".join(re.escape(data["name"]) for data in view.get("cities", {}).values()) or "-"
    built = re.compile(rf"(\w+) played card \d and built an? (\d)-story part on site (\d) of ({cities})")
    for body in bodies:
        text = " ".join(body.split())
        named = "|".join(names)
        # 'player 2' alone never names anybody; 'player 2 (Bob)' and 'Bob (player 2)' (a seat number) do.
        bare = re.sub(rf"[Pp]layer \d \(({named})\)|({named}) \([Pp]layer \d\)", "", text)
        assert not re.search(r"\b[Pp]layer \d\b", bare), re.search(r".{60}\b[Pp]layer \d\b.{60}", bare)
        for paragraph in body.split("\n\n"):
            words = " ".join(paragraph.split())
            for found in re.finditer(r"(?:^|\. )(\w+) played: (.+?)(?=\. \w+ played: |\. Then: |\. The moderator|\.?$)",
                                     words):
                if found.group(1) in commands_of:
                    listed = found.group(2).split("; ")
                    assert set(listed) <= commands_of[found.group(1)], (found.group(1), listed)
        for who, size, site, city in built.findall(text):
            color_of = {names[s]: colors for s, colors in enumerate(final.colors)}
            code = next(c for c, data in view["cities"].items() if data["name"] == city.strip())
            cell = next(cell for cell in view["cities"][code]["sites"] if cell["card"] == int(site))
            assert any(color in color_of.get(who, ()) and part_size == int(size)
                       for color, part_size in cell["parts"]), (seat, who, size, site, city, cell)
            checked += 1
    return checked
