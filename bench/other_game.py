"""How long a player of another game waits while a seated player's mail of one long line is read (issue 41, point 2).

Run: python bench/other_game.py [--database URL] [--rounds 3] [--only TEXT]
(needs dovecot: bash tests/install-servers.sh)

A real ``pbem worker`` (a process of its own, woken by IMAP IDLE, its outbox sender beside it) serves two games
on a private Dovecot and SMTP server (``pbem_testing.other_game``). Each round, Ann's Reply holding one long line
(or, last, an HTML-only body of 124,000 tags) and Dee's ``board`` of the other game are put in the game mailbox
at one moment, Ann's first. Printed, per kind of mail: the seconds from that moment to Dee's answer in her INBOX
(the worker reads one mail after another, so this is Ann's mail read, Dee's read, her answer sent and
delivered), the median and the worst of the rounds, and the CPU the worker process spent meanwhile (the reading
of both mails). The first line is Dee's mail after Ann's `board`: the baseline. Goal (issue 41): Dee answered
within 2 s.
"""

from __future__ import annotations

import argparse
import statistics
import tempfile
from pathlib import Path

import checkout  # noqa: F401 - pbem_testing/ in reach (bench/checkout.py)
from pbem.store.db import make_engine, upgrade
from pbem_testing.mailservers import Dovecot, SmtpToLmtp
from pbem_testing.other_game import HTML_TAGS, LONG_LINES, USERS, TwoGames

HTML_NAME = "HTML only: 124,000 tags (1 MB)"


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--database", default="", help="database URL (default: a SQLite file in a temp folder)")
    parser.add_argument("--rounds", type=int, default=3, help="rounds of each kind (default 3)")
    parser.add_argument("--only", default="", help="only the kinds whose name holds this text")
    args = parser.parse_args()
    kinds = {"none (baseline: 'board' from Ann)": "board", **LONG_LINES, HTML_NAME: HTML_TAGS}
    kinds = {name: line for name, line in kinds.items() if args.only in name or name.startswith("none")}
    folder = Path(tempfile.mkdtemp(prefix="pbem-bench-"))
    with Dovecot(domain="example.test") as dovecot:
        dovecot.start({user: "secret" for user in USERS})
        with SmtpToLmtp(dovecot.host, dovecot.lmtp_port) as smtp:
            print(f"{'Ann sends one line of':40} {'Dee answered after: median':>27} {'worst':>7} {'worker CPU worst':>17}")
            for k, (name, line) in enumerate(kinds.items()):
                url = args.database or f"sqlite:///{folder / f'bench-{k}.sqlite3'}"
                engine = make_engine(url)
                upgrade(engine)
                engine.dispose()
                dovecot.empty_mailboxes()
                latencies, cpu = [], []
                with TwoGames(url, dovecot, smtp.port, folder) as two:
                    for n in range(args.rounds):
                        played = two.play(line, n, "text/html" if name == HTML_NAME else "text/plain")
                        latencies.append(played["latency"])
                        cpu.append(played["worker_cpu"])
                print(f"{name:40} {statistics.median(latencies):26.2f}s {max(latencies):6.2f}s {max(cpu):16.2f}s",
                      flush=True)
                if args.database:
                    break  # the games of a given database are not emptied here: one kind only


if __name__ == "__main__":
    main()
