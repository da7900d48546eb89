"""What one hostile mail costs the others: a big mail ahead of five players' mails, one of another game.

Run: python bench/hostile.py [--database URL] [--lines 20000]
(needs dovecot: bash tests/install-servers.sh)

For each kind of big mail (from a player: 20,000 lines of `board`, of a refused bid, of prose; from a
stranger; the floods of issue 32: 1,000, 5,000 and 35,000 `moderator` lines, 200 `say` texts of 4 KB, 2,000
short lines of 'On ... wrote:' after a word, a 1 MB HTML body of tags, a 4 MB quote; one long line of one kind of character: issue 41), one ``pbem worker
--once`` pass in a process of its own reads that mail and then five ordinary mails (`board`, from the
players of another game), over a private Dovecot and a real SMTP server. Printed, per kind: how long the
worker spent on the big mail (the delay it adds to every mail after it: the other game's players wait),
how long the five ordinary mails took after it, the largest mail the big one made pbem send to its game's
players (its answer, talk relayed), the
mails it made to the moderator, and the worker process's peak memory (ru_maxrss of the child). The first line
is the same pass without the big mail: the baseline.
"""

from __future__ import annotations

import argparse
import json
import resource
import subprocess
import sys
import tempfile
import time
from pathlib import Path

from pbem.config import MailConfig, ServerConfig
from pbem.services.table.service import GameService
from pbem.worker import MailWorker
from pbem.store.db import make_engine, upgrade
import checkout  # noqa: F401 - pbem_testing/ in reach (bench/checkout.py)
from pbem_testing.mailservers import Dovecot, SmtpToLmtp

GAME = "game@example.test"
MODERATOR = "dee@example.test"
PLAYERS = [("Ann", "ann@example.test"), ("Bob", "bob@example.test"), ("Cy", "cy@example.test")]
OTHER_GAME = [("Eve", "eve@example.test"), ("Fay", "fay@example.test")]
USERS = ("game", "ann", "bob", "cy", "dee", "eve", "fay")
SUBJECT = "Re: [Fifth Avenue #1] your turn"


def mail(n: int, sender: str, body: str, content_type: str = "text/plain; charset=utf-8",
         subject: str = SUBJECT) -> bytes:
    return (f"From: {sender}\r\nTo: {GAME}\r\nSubject: {subject}\r\nMessage-ID: <bench-{n}@client.test>\r\n"
            f"Date: Mon, 23 Nov 2026 10:00:00 +0000\r\nContent-Type: {content_type}\r\n\r\n{body}\r\n").encode()


def child(url: str, config: dict) -> None:
    """One pass of the worker; prints the seconds each mail took, as JSON."""
    mail_config = MailConfig(imap=ServerConfig(**config["imap"]), smtp=ServerConfig(**config["smtp"]),
                             game_address=GAME, poll_interval=1, moderator=MODERATOR)
    times: list[float] = []
    last = [time.perf_counter()]

    def log(line: str) -> None:
        if line.startswith("mail "):
            now = time.perf_counter()
            times.append(now - last[0])
            last[0] = now

    worker = MailWorker(make_engine(url), mail_config, log=log)
    last[0] = time.perf_counter()
    worker.run_once()
    print(json.dumps({"times": times, "maxrss_mb": resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024}))


def run(url: str, dovecot: Dovecot, smtp: SmtpToLmtp, big: bytes | None) -> dict:
    engine = make_engine(url)
    with engine.begin() as connection:
        tables = ("outbox", "inbound_mails", "decision_clocks", "snapshots", "events", "seats", "games")
        if engine.dialect.name == "postgresql":  # game numbers start at 1 again: the mails name game 1
            connection.exec_driver_sql(f"TRUNCATE {', '.join(tables)} RESTART IDENTITY CASCADE")
        for table in tables:
            connection.exec_driver_sql(f"DELETE FROM {table}")
    games = GameService(engine, mail_domain="example.test")
    games.create_game("fifth-avenue", PLAYERS, seed=5)
    other = games.create_game("fifth-avenue", OTHER_GAME, seed=6)
    engine.dispose()
    dovecot.empty_mailboxes()
    config = {"imap": {"host": dovecot.host, "port": dovecot.imap_port, "security": "plain", "user": "game",
                       "password": "secret"},
              "smtp": {"host": "127.0.0.1", "port": smtp.port, "security": "plain"}}
    subprocess.run([sys.executable, __file__, "--child", url, json.dumps(config)], check=True, capture_output=True)
    dovecot.empty_mailboxes(list(USERS[1:]))  # the opening mails
    client = dovecot.imap("game")
    batch = ([big] if big else []) + [mail(20 + n, OTHER_GAME[n % 2][1], "board",
                                           subject=f"Re: [Fifth Avenue #{other}]") for n in range(5)]
    for raw in batch:
        client.append("INBOX", raw)
    client.logout()
    proc = subprocess.run([sys.executable, __file__, "--child", url, json.dumps(config)], check=True,
                          capture_output=True, text=True)
    result = json.loads(proc.stdout.strip().splitlines()[-1])
    sizes = {user: _sizes(dovecot, user) for user in USERS[1:]}
    return {**result, "largest_bytes": max((size for user in ("ann", "bob", "cy") for size in sizes[user]), default=0),
            "to_moderator": len(sizes["dee"])}


def _sizes(dovecot: Dovecot, user: str) -> list[int]:
    inbox = dovecot.imap(user)
    inbox.select_folder("INBOX", readonly=True)
    uids = inbox.search("ALL")
    sizes = [v[b"RFC822.SIZE"] for v in inbox.fetch(uids, ["RFC822.SIZE"]).values()] if uids else []
    inbox.logout()
    return sizes


def main() -> None:
    if len(sys.argv) == 4 and sys.argv[1] == "--child":
        child(sys.argv[2], json.loads(sys.argv[3]))
        return
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--database", default="", help="database URL (default: a SQLite file in a temp folder)")
    parser.add_argument("--lines", type=int, default=20_000)
    args = parser.parse_args()
    folder = tempfile.mkdtemp(prefix="pbem-bench-")
    url = args.database or f"sqlite:///{Path(folder) / 'bench.sqlite3'}"
    upgrade(make_engine(url))
    n = args.lines
    kinds = {
        "none (baseline)": None,
        f"{n} x 'board' from a player": mail(1, PLAYERS[0][1], "\n".join(["board"] * n)),
        f"{n} x 'bid gray 4' from a player": mail(2, PLAYERS[0][1], "\n".join(["bid gray 4"] * n)),
        f"{n} lines of prose from a player": mail(3, PLAYERS[0][1], "\n".join(["Thank you all, see you."] * n)),
        f"{n} x 'board' from a stranger": mail(4, "stranger@attack.test", "\n".join(["board"] * n)),
        "1,000 'moderator' lines (30 KB)": mail(5, PLAYERS[0][1], "\n".join(
            f"moderator please look at this, {k}" for k in range(1000))),
        "5,000 'moderator' lines (150 KB)": mail(6, PLAYERS[0][1], "\n".join(
            f"moderator please look at this, {k}" for k in range(5000))),
        "35,000 'moderator' lines (1 MB)": mail(7, PLAYERS[0][1], "\n".join(
            f"moderator please look at this, {k}" for k in range(35_000))),
        "200 'say' texts of 4 KB (800 KB)": mail(8, PLAYERS[0][1], "\n".join(
            f"say {k}: " + "These are long words, " * 180 for k in range(200))),
        "2,000 'On ... wrote: x' lines": mail(11, PLAYERS[0][1], "board\n" + "\n".join(
            "Hi On Mon, 23 Nov 2026 at 10:00, Fifth Avenue <pbem@example.org> wrote: x" for _ in range(1999))),
        "1 MB HTML of tags": mail(12, PLAYERS[0][1], "<p>board</p>" + "<b> </b>" * 124_000,
                                  "text/html; charset=utf-8"),
        "4 MB quote under a command": mail(13, PLAYERS[0][1], "board\n\n" + "> an old line of a long quote, "
                                           "kept by the mail client\n" * 69_000),
        # One long line (issue 41): '\S+@' in the courtesy step cost the square of a line without '@'.
        "one line: 'A' and 700,000 '>'": mail(14, PLAYERS[0][1], "A" + ">" * 700_000),
        "one line of 999,000 letters": mail(15, PLAYERS[0][1], "A" * 999_000),
        "one line of 999,000 '@'": mail(16, PLAYERS[0][1], "@" * 999_000),
        "one line of 999,000 dots and digits": mail(17, PLAYERS[0][1], "1." * 499_500),
        "one line of 249,000 short words": mail(18, PLAYERS[0][1], "Ann " * 249_000),
        "one line of 111,000 'a@b. <a@b'": mail(19, PLAYERS[0][1], "a@b. <a@b" * 111_000),
    }
    with Dovecot(domain="example.test") as dovecot:
        dovecot.start({user: "secret" for user in USERS})
        with SmtpToLmtp(dovecot.host, dovecot.lmtp_port) as smtp:
            print(f"database: {url.split(':')[0]}; {n} lines; pbem worker --once in a process of its own")
            print(f"{'big mail':38} {'its time':>9} {'5 others':>9} {'largest':>10} {'to mod.':>8} {'peak RSS':>9}")
            worst = (0.0, "")
            for name, big in kinds.items():
                result = run(url, dovecot, smtp, big)
                times = result["times"]
                own = times[0] if big else 0.0
                others = sum(times[1:] if big else times)
                worst = max(worst, (own, name))
                print(f"{name:38} {own:8.2f}s {others:8.2f}s {result['largest_bytes'] / 1000:8.1f}KB "
                      f"{result['to_moderator']:8} {result['maxrss_mb']:7.0f}MB", flush=True)
            print(f"worst: {worst[1]}, {worst[0]:.2f}s")


if __name__ == "__main__":
    main()
