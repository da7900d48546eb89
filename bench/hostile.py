"""What one hostile mail costs the others: a 20,000-line mail ahead of five players' mails.

Run: python bench/hostile.py [--database URL] [--lines 20000]
(needs dovecot: bash tests/install-servers.sh)

For each kind of 20,000-line mail (from a player: all `board`, all a refused bid, all prose; from a
stranger), one ``pbem worker --once`` pass in a process of its own reads that mail and then five ordinary
players' mails, over a private Dovecot and a real SMTP server. Printed, per kind: how long the worker spent
on the big mail (the delay it adds to the others), how long the five ordinary mails took after it, the
size of the answer the big mail got, and the worker process's peak memory (ru_maxrss of the child). The
first line is the same pass without the big mail: the baseline.
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
from pbem.services.games import GameService
from pbem.services.worker import MailWorker
from pbem.store.db import make_engine, upgrade
from pbem.testing.mailservers import Dovecot, SmtpToLmtp

GAME = "game@example.test"
PLAYERS = [("Ann", "ann@example.test"), ("Bob", "bob@example.test"), ("Cy", "cy@example.test")]
SUBJECT = "Re: [Fifth Avenue #1] your turn"


def mail(n: int, sender: str, body: str) -> bytes:
    return (f"From: {sender}\r\nTo: {GAME}\r\nSubject: {SUBJECT}\r\nMessage-ID: <bench-{n}@client.test>\r\n"
            f"Date: Mon, 23 Nov 2026 10:00:00 +0000\r\n\r\n{body}\r\n").encode()


def child(url: str, config: dict) -> None:
    """One pass of the worker; prints the seconds each mail took, as JSON."""
    mail_config = MailConfig(imap=ServerConfig(**config["imap"]), smtp=ServerConfig(**config["smtp"]),
                             game_address=GAME, poll_interval=1)
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
        for table in ("outbox", "inbound_mails", "decision_clocks", "snapshots", "events", "seats", "games"):
            connection.exec_driver_sql(f"DELETE FROM {table}")
    GameService(engine, mail_domain="example.test").create_game("fifth-avenue", PLAYERS, seed=5)
    engine.dispose()
    dovecot.empty_mailboxes()
    config = {"imap": {"host": dovecot.host, "port": dovecot.imap_port, "security": "plain", "user": "game",
                       "password": "secret"},
              "smtp": {"host": "127.0.0.1", "port": smtp.port, "security": "plain"}}
    subprocess.run([sys.executable, __file__, "--child", url, json.dumps(config)], check=True, capture_output=True)
    dovecot.empty_mailboxes(["ann", "bob", "cy"])  # the opening mails
    client = dovecot.imap("game")
    batch = ([big] if big else []) + [mail(10 + n, PLAYERS[n % 3][1], "board") for n in range(5)]
    for raw in batch:
        client.append("INBOX", raw)
    client.logout()
    proc = subprocess.run([sys.executable, __file__, "--child", url, json.dumps(config)], check=True,
                          capture_output=True, text=True)
    result = json.loads(proc.stdout.strip().splitlines()[-1])
    answer = 0
    if big:
        sender = "ann" if b"ann@" in big[:200] else None
        if sender:
            inbox = dovecot.imap(sender)
            inbox.select_folder("INBOX", readonly=True)
            uids = inbox.search("ALL")
            sizes = inbox.fetch(uids, ["RFC822.SIZE"]) if uids else {}
            answer = max((v[b"RFC822.SIZE"] for v in sizes.values()), default=0)
            inbox.logout()
    return {**result, "answer_bytes": answer}


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
    }
    with Dovecot(domain="example.test") as dovecot:
        dovecot.start({user: "secret" for user in ("game", "ann", "bob", "cy")})
        with SmtpToLmtp(dovecot.host, dovecot.lmtp_port) as smtp:
            print(f"database: {url.split(':')[0]}; {n} lines; pbem worker --once in a process of its own")
            print(f"{'big mail':38} {'its time':>9} {'5 others':>9} {'answer':>10} {'peak RSS':>9}")
            for name, big in kinds.items():
                result = run(url, dovecot, smtp, big)
                times = result["times"]
                own = times[0] if big else 0.0
                others = sum(times[1:] if big else times)
                print(f"{name:38} {own:8.2f}s {others:8.2f}s {result['answer_bytes'] / 1000:8.1f}KB "
                      f"{result['maxrss_mb']:7.0f}MB", flush=True)


if __name__ == "__main__":
    main()
