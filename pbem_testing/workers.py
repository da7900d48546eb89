"""`pbem worker` processes for tests and benchmarks: started as deployed (settings in the environment) and
stopped as systemd stops them (SIGTERM, then a kill), with what went wrong noted."""

from __future__ import annotations

import os
import signal
import subprocess
from collections.abc import Collection, Sequence
from pathlib import Path

import sqlalchemy as sa

from pbem.store.models import OutboxMail, OutboxStatus
from .mailservers import Dovecot


def worker_env(url: str, folder: Path, dovecot: Dovecot, smtp_port: int, game_address: str,
               poll_interval: float) -> dict[str, str]:
    """The environment of a worker on ``url`` serving the game mailbox of ``dovecot`` ("game", password "secret")
    and sending through 127.0.0.1:``smtp_port``; no config file."""
    return dict(os.environ, PBEM_DATABASE_URL=url, PBEM_CONFIG=os.devnull,
                PBEM_IMAP_HOST=dovecot.host, PBEM_IMAP_PORT=str(dovecot.imap_port), PBEM_IMAP_SECURITY="plain",
                PBEM_IMAP_USER="game", PBEM_IMAP_PASSWORD="secret", PBEM_SMTP_HOST="127.0.0.1",
                PBEM_SMTP_PORT=str(smtp_port), PBEM_SMTP_SECURITY="plain", PBEM_GAME_ADDRESS=game_address,
                PBEM_POLL_INTERVAL=str(poll_interval),
                COLUMNS="500")  # rich wraps log lines at 80 columns without a terminal


def stop_workers(workers: Sequence[subprocess.Popen | None], notes: list[str], *, gone: Collection[int] = ()
                 ) -> int:
    """SIGTERM every worker still running (not those in ``gone``, killed on purpose), wait for each, kill one
    that does not stop; returns how many ended otherwise than on the SIGTERM, each noted in ``notes``."""
    for n, proc in enumerate(workers):
        if proc is not None and n not in gone and proc.poll() is None:
            proc.send_signal(signal.SIGTERM)
    unbidden = 0
    for n, proc in enumerate(workers):
        if proc is None or n in gone:
            continue
        try:
            proc.wait(60)
        except subprocess.TimeoutExpired:
            proc.kill()
            proc.wait()
            notes.append(f"worker {n} did not stop on SIGTERM")
        if proc.returncode not in (0, -signal.SIGTERM):
            unbidden += 1
            notes.append(f"worker {n} ended with {proc.returncode}")
    return unbidden


def mails_in_inbox(dovecot: Dovecot) -> int:
    """The mails waiting in the game mailbox's INBOX."""
    with dovecot.imap("game") as client:
        return client.select_folder("INBOX", readonly=True)[b"EXISTS"]


def unsent_mails(engine: sa.Engine) -> int:
    """The outbox mails not sent yet (queued, or being sent)."""
    with engine.connect() as connection:
        return connection.execute(sa.select(sa.func.count()).select_from(OutboxMail).where(
            OutboxMail.status.in_((OutboxStatus.QUEUED, OutboxStatus.SENDING)))).scalar_one()
