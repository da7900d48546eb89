"""The worker's CPU to read and apply one mail, in this process, without the mail servers.

Run: python bench/apply_cpu.py [--mails 150] [--database URL]

bench/mail.py's CPU per mail of the worker's process, read without IMAP, SMTP, the outbox process and the robots:
games of two players, the first player of each sends one command (bench/mail.py's mails), and
``MailWorker.process`` applies it (its reading, the game's change, its mails rendered and queued, one commit),
timed by this process's CPU clock; the median and the mean after ten mails untimed (templates, imports).

Two versions side by side, on a busy machine: run one with ``PYTHONPATH`` at a checkout of the other (a copy of
main: ``git archive main | tar -x -C DIR``), both at once, each on a database of its own: the load slows both.
"""

from __future__ import annotations

import argparse
import os
import statistics
import tempfile
import time

from mail import GAME, PLAYERS, player_mail

import pbem
from pbem.config import MailConfig, ServerConfig
from pbem.services.table.service import GameService
from pbem.store.db import make_engine, upgrade
from pbem.worker import MailWorker

UNTIMED = 10


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--mails", type=int, default=150)
    parser.add_argument("--database", help="database URL (default: a new SQLite file)")
    args = parser.parse_args()
    with tempfile.TemporaryDirectory() as folder:
        url = args.database or f"sqlite:///{folder}/apply.db"
        engine = make_engine(url)
        upgrade(engine)
        games = GameService(engine, mail_domain="example.test")
        raw = []
        for i in range(args.mails + UNTIMED):
            game_id = games.create_game("fifth-avenue", PLAYERS, seed=i)
            (_, commands), = games.legal(game_id)[1].items()
            raw.append(player_mail(PLAYERS[0][1], game_id, commands[0]))
        engine.dispose()
        engine = make_engine(url, flushed=False)  # as the worker's
        config = MailConfig(imap=ServerConfig("127.0.0.1", 1, "plain", "game", "secret"),
                            smtp=ServerConfig("127.0.0.1", 1, "plain"), game_address=GAME)
        worker = MailWorker(engine, config)
        times = []
        for uid, message in enumerate(raw, start=1):
            start = time.process_time()
            outcome = worker.process(message, "INBOX", 1, uid).outcome
            if uid > UNTIMED:
                times.append(time.process_time() - start)
            if outcome != "applied":
                raise SystemExit(f"mail {uid}: {outcome}")
        engine.dispose()
    print(f"{os.path.dirname(pbem.__file__)}: {len(times)} mails, CPU a mail: median "
          f"{1000 * statistics.median(times):.2f} ms, mean {1000 * statistics.mean(times):.2f} ms")


if __name__ == "__main__":
    main()
