"""How long the moderator's change takes to reach the players: from `pbem game pause` (or `resume`) to the SMTP
server's 250 for every player's mail, while a `pbem worker` runs with a poll interval of a minute (SQLite).

Run: python bench/changes_out.py [--changes 10]

Needs Dovecot (Debian: dovecot-imapd, dovecot-lmtpd): a private instance and an SMTP server delivering into it
are started, as in the tests (pbem_testing.mailservers). Each change runs twice over: in a new Python process,
as a moderator types it, and in a process that has imported pbem already (the command alone, without the
second or so Python takes to import pbem). Printed: the median and the slowest delay of each, and whether every
mail reached the SMTP server exactly once after the worker's last round.
"""

from __future__ import annotations

import argparse
import os
import shutil
import signal
import statistics
import subprocess
import sys
import tempfile
import time
from collections import Counter
from email import policy
from email.parser import BytesParser
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))  # this checkout's pbem, whatever is installed

from sqlalchemy import select  # noqa: E402
from sqlalchemy.orm import Session  # noqa: E402

from pbem.services.table.service import GameService  # noqa: E402
from pbem.store.db import make_engine, upgrade  # noqa: E402
from pbem.store.models import OutboxMail  # noqa: E402
from pbem_testing.mailservers import Dovecot, SmtpToLmtp  # noqa: E402

PLAYERS = [("Ann", "ann@example.test"), ("Bob", "bob@example.test"), ("Cy", "cy@example.test")]
GAME = "game@example.test"
WARM = ("import sys; from pbem.cli import main; print('ready', flush=True); sys.stdin.readline(); "
        "sys.argv = ['pbem', *sys.argv[1:]]; main()")


def message_id(data: bytes) -> str:
    return str(BytesParser(policy=policy.default).parsebytes(data, headersonly=True)["Message-ID"]).strip()


def queued_after(engine, after: int) -> list[OutboxMail]:
    with Session(engine) as s:
        return list(s.scalars(select(OutboxMail).where(OutboxMail.id > after).order_by(OutboxMail.id)))


def wait_for(smtp: SmtpToLmtp, ids: set[str], timeout: float = 90) -> float:
    """The monotonic time at which the last of ``ids`` was accepted."""
    deadline = time.monotonic() + timeout
    while True:
        accepted = [m for m in list(smtp.messages) if message_id(m.data) in ids]
        if len(accepted) >= len(ids):
            return max(m.accepted_at for m in accepted)
        if time.monotonic() > deadline:
            raise SystemExit(f"only {len(accepted)} of {len(ids)} mails arrived in {timeout} s")
        time.sleep(0.005)


def change(args: list[str], env: dict[str, str], warm: bool) -> float:
    """Run one command; returns its start on the monotonic clock."""
    if warm:
        process = subprocess.Popen([sys.executable, "-c", WARM, *args], env=env, stdin=subprocess.PIPE,
                                   stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
        if process.stdout.readline() != "ready\n":
            raise SystemExit(process.communicate()[1])
        start = time.monotonic()
        process.stdin.write("go\n")
        process.stdin.flush()
    else:
        start = time.monotonic()
        process = subprocess.Popen([sys.executable, "-m", "pbem", *args], env=env, stdout=subprocess.PIPE,
                                   stderr=subprocess.PIPE, text=True)
    _, err = process.communicate(timeout=120)
    if process.returncode != 0 or err:
        raise SystemExit(f"pbem {' '.join(args)} failed: {err}")
    return start


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--changes", type=int, default=10, help="changes of each kind of process (default 10)")
    options = parser.parse_args()
    folder = Path(tempfile.mkdtemp(prefix="pbem-bench-"))
    url = f"sqlite:///{folder / 'bench.sqlite3'}"
    engine = make_engine(url)
    upgrade(engine)
    dovecot = Dovecot(domain="example.test")
    dovecot.start({user: "secret" for user in ("game", "ann", "bob", "cy")})
    smtp = SmtpToLmtp(dovecot.host, dovecot.lmtp_port)
    smtp.start()
    env = {k: v for k, v in os.environ.items() if not k.startswith(("PBEM_IMAP_", "PBEM_SMTP_", "PBEM_GAME_"))}
    if env.pop("PYTHONDONTWRITEBYTECODE", None):  # an installed pbem has its bytecode: so do these processes
        env["PYTHONPYCACHEPREFIX"] = str(folder / "pycache")
    env.update(PYTHONPATH=str(ROOT), PBEM_DATABASE_URL=url, PBEM_CONFIG=os.devnull,
               PBEM_IMAP_HOST="127.0.0.1", PBEM_IMAP_PORT=str(dovecot.imap_port), PBEM_IMAP_SECURITY="plain",
               PBEM_IMAP_USER="game", PBEM_IMAP_PASSWORD="secret", PBEM_SMTP_HOST="127.0.0.1",
               PBEM_SMTP_PORT=str(smtp.port), PBEM_SMTP_SECURITY="plain", PBEM_GAME_ADDRESS=GAME,
               PBEM_POLL_INTERVAL="60")
    worker = None
    try:
        GameService(engine, mail_domain="example.test").create_game("fifth-avenue", PLAYERS, seed=7)
        worker = subprocess.Popen([sys.executable, "-m", "pbem", "worker"], env=env, stdout=subprocess.PIPE,
                                  stderr=subprocess.STDOUT, text=True)
        wait_for(smtp, {m.message_id for m in queued_after(engine, 0)})  # the worker sent the opening mails
        delays: dict[bool, list[float]] = {False: [], True: []}
        for i in range(2 * options.changes):
            warm = i >= options.changes
            action = "pause" if i % 2 == 0 else "resume"
            last = max(m.id for m in queued_after(engine, 0))
            start = change(["game", action, "1"], env, warm)
            delays[warm].append(wait_for(smtp, {m.message_id for m in queued_after(engine, last)}) - start)
    finally:
        if worker is not None:
            worker.send_signal(signal.SIGTERM)  # its last round: a mail sent twice would show now
            worker.communicate(timeout=60)
        smtp.stop()
        dovecot.stop()
    rows = queued_after(engine, 0)
    counts = Counter(message_id(m.data) for m in smtp.messages)
    once = all(counts[m.message_id] == 1 for m in rows) and len(counts) == len(rows)
    engine.dispose()
    shutil.rmtree(folder, ignore_errors=True)
    print(f"{options.changes} changes each, SQLite, 3 players, a worker running (poll interval 60 s):")
    for warm, label in ((False, "new process"), (True, "pbem imported")):
        values = delays[warm]
        print(f"  {label:>13}: median {statistics.median(values):.2f} s, slowest {max(values):.2f} s "
              "from the command's start to the last player's mail at the SMTP server")
    print(f"  {len(rows)} mails, each received {'exactly once' if once else 'NOT exactly once: ' + str(counts)}")


if __name__ == "__main__":
    main()
