"""The moderator's changes go out at once: a command that changed a game sends the game's queued mail itself.

Without it, mail queued by ``pbem game pause`` (and every other command that changes a game) waits for the
worker's next round, up to a poll interval. ``send_game_mail`` hands the game's due rows to SMTP right after
the command's commit, through the worker's own claim (``outbox_sender.claim``: one atomic UPDATE ...
RETURNING, on PostgreSQL over SKIP LOCKED) under an owner name of its own (``claims.Instance``), so a row is
sent by exactly one of them, whichever claims it first. Whatever does not go out stays in the outbox for the
worker: with no mail servers configured nothing is tried; a temporary SMTP failure leaves the rows queued
with the usual backoff (``outbox_sender``), a permanent refusal fails them as it would in the worker.

One SMTP connection, as the relay's: at most one mail is ever in the window where a crash sends it twice
(see ``outbox_sender``). A command that dies while it sends leaves its rows 'sending'; the worker frees a dead
process's rows (``MailClaims.free_the_dead``).
"""

from __future__ import annotations

import asyncio
from dataclasses import dataclass
from datetime import datetime
from typing import Callable

from sqlalchemy import Engine

from ...adapters.outbox_sender import send_pending
from ...config import MailConfig
from ...store.models import utcnow
from ..operations.claims import Instance
from .outbox import OutboxService

TIMEOUT = 10.0  # seconds for each SMTP step: a server that does not answer keeps a command waiting this long


@dataclass
class SentNow:
    sent: int = 0
    waiting: int = 0  # left queued for the worker (a temporary failure)
    failed: int = 0  # refused for good (see `pbem outbox list --status failed`)
    problem: str = ""  # why mail is still waiting (the first error), empty when nothing is
    refusal: str = ""  # why mail failed (the first refusal), empty when none did


def send_game_mail(engine: Engine, mail: MailConfig | None, game_id: int, *, clock: Callable[[], datetime] = utcnow,
                   timeout: float = TIMEOUT) -> SentNow:
    """Send game ``game_id``'s due mail now, once; call it after the change that queued the mail committed.

    Never raises for a failure to send (the change is committed whatever happens here): an SMTP server or a
    database that fails leaves the mail to the worker and says why in ``problem``."""
    if mail is None:
        return SentNow()
    owner = str(Instance.start())
    try:
        report = asyncio.run(send_pending(engine, mail.smtp, mail.game_address, sender_name=mail.sender_name,
                                          clock=clock, timeout=timeout, owner=owner, game_id=game_id))
    except Exception as exc:  # the database went away under us: what is claimed is freed by the worker
        return SentNow(problem=f"{type(exc).__name__}: {' '.join(str(exc).split())[:200]}")
    return SentNow(sent=len(report.sent), waiting=len(report.retry), failed=len(report.failed),
                   problem=_last_error(engine, report.retry[0]) if report.retry else "",
                   refusal=_last_error(engine, report.failed[0]) if report.failed else "")


def _last_error(engine: Engine, mail_id: int) -> str:
    try:
        return OutboxService(engine).show(mail_id).last_error
    except Exception:
        return "the SMTP server did not take it"
