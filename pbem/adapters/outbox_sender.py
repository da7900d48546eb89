"""Sending the outbox over SMTP (aiosmtplib), at least once and at most once per claim.

Rows are claimed with one atomic UPDATE ... RETURNING (on PostgreSQL over
``FOR UPDATE SKIP LOCKED``), so several workers never take the same row. A
claim is a lease: a worker that dies after claiming leaves the row in
``sending`` until the lease runs out, and then another worker takes it. The
one window in which a mail can go out twice is between the SMTP server
accepting it and our commit of ``sent``: if the process dies exactly there,
the lease runs out and the mail is sent again.
"""

from __future__ import annotations

import asyncio
from dataclasses import dataclass, field
from datetime import datetime, timedelta
from email.message import EmailMessage
from email.utils import formatdate
from typing import Callable

import aiosmtplib
from sqlalchemy import Engine, and_, or_, select, update

from .. import crashpoints
from ..config import ServerConfig
from ..store.models import OutboxMail, OutboxStatus, utcnow

LEASE = timedelta(minutes=10)
MAX_ATTEMPTS = 10
TEMPORARY = (aiosmtplib.SMTPConnectError, aiosmtplib.SMTPServerDisconnected, aiosmtplib.SMTPTimeoutError,
             asyncio.TimeoutError, ConnectionError, OSError)


def backoff(attempts: int) -> timedelta:
    """1, 2, 4, ... minutes, at most an hour."""
    return timedelta(minutes=min(60, 2 ** max(0, attempts - 1)))


@dataclass
class SendReport:
    sent: list[int] = field(default_factory=list)
    retry: list[int] = field(default_factory=list)
    failed: list[int] = field(default_factory=list)


def build_message(mail: OutboxMail, sender: str) -> EmailMessage:
    msg = EmailMessage()
    msg["From"] = sender
    msg["To"] = mail.recipient
    msg["Reply-To"] = sender
    msg["Subject"] = mail.subject
    msg["Date"] = formatdate(localtime=False, usegmt=True)
    for name, value in mail.headers.items():
        if name not in msg:
            msg[name] = value
    msg["X-Pbem"] = "1"  # marks our own mail, so the worker never answers it
    msg.set_content(mail.text_body)
    if mail.html_body:
        msg.add_alternative(mail.html_body, subtype="html")
    return msg


def claim(engine: Engine, now: datetime, limit: int = 50) -> list[OutboxMail]:
    due = or_(
        and_(OutboxMail.status == OutboxStatus.QUEUED, OutboxMail.next_attempt_at <= now),
        and_(OutboxMail.status == OutboxStatus.SENDING, OutboxMail.next_attempt_at <= now),  # an expired lease
    )
    ids = select(OutboxMail.id).where(due).order_by(OutboxMail.id).limit(limit)
    if engine.dialect.name == "postgresql":
        ids = ids.with_for_update(skip_locked=True)
    statement = (
        update(OutboxMail).where(OutboxMail.id.in_(ids.scalar_subquery()))
        .values(status=OutboxStatus.SENDING, attempts=OutboxMail.attempts + 1, next_attempt_at=now + LEASE)
        .returning(OutboxMail)
    )
    with engine.execution_options(pbem_write=True).begin() as connection:
        rows = connection.execute(statement).all()
    return sorted((OutboxMail(**row._mapping) for row in rows), key=lambda m: m.id)


def _finish(engine: Engine, mail_id: int, **values) -> None:
    with engine.execution_options(pbem_write=True).begin() as connection:
        connection.execute(update(OutboxMail).where(OutboxMail.id == mail_id).values(**values))


async def send_pending(
    engine: Engine, smtp: ServerConfig, sender: str, *, clock: Callable[[], datetime] = utcnow,
    limit: int = 50, timeout: float = 30,
) -> SendReport:
    """Send every due mail once, ``limit`` claimed at a time; temporary failures are retried later with backoff."""
    report = SendReport()
    while True:
        mails = claim(engine, clock(), limit)
        if mails:
            crashpoints.reached("outbox claimed")
        reachable = await _send_claimed(engine, smtp, sender, mails, report, clock, timeout) if mails else True
        if len(mails) < limit or not reachable:
            return report


async def _send_claimed(
    engine: Engine, smtp: ServerConfig, sender: str, mails: list[OutboxMail], report: SendReport,
    clock: Callable[[], datetime], timeout: float,
) -> bool:
    """Send the claimed mails over one connection; False when the server could not be reached (the mails
    not tried yet wait for the next attempt instead of each waiting for its own connection timeout)."""
    client = aiosmtplib.SMTP(hostname=smtp.host, port=smtp.port, use_tls=smtp.security == "ssl",
                             start_tls=True if smtp.security == "starttls" else False, timeout=timeout)
    connected = False
    try:
        for mail in mails:
            try:
                if not connected:
                    await client.connect()
                    if smtp.user:
                        await client.login(smtp.user, smtp.password)
                    connected = True
                refused, _ = await client.send_message(build_message(mail, sender))
                if refused:
                    code, text = next(iter(refused.values()))
                    raise aiosmtplib.SMTPResponseException(code, text if isinstance(text, str) else str(text))
            except aiosmtplib.SMTPRecipientsRefused as exc:
                errors = [e for e in exc.recipients]
                permanent = all(e.code >= 500 for e in errors)
                _settle(engine, mail, report, clock(), permanent, "; ".join(f"{e.code} {e.message}" for e in errors))
            except aiosmtplib.SMTPResponseException as exc:
                _settle(engine, mail, report, clock(), exc.code >= 500, f"{exc.code} {exc.message}")
            except TEMPORARY as exc:
                error = f"{type(exc).__name__}: {exc}"
                if not connected:  # the server is down or unreachable: no use trying the others now
                    for waiting in mails[mails.index(mail):]:
                        _settle(engine, waiting, report, clock(), False, error)
                    return False
                connected = False
                _settle(engine, mail, report, clock(), False, error)
            else:
                crashpoints.reached("mail accepted by SMTP, not marked sent")  # the one window for a double send
                _finish(engine, mail.id, status=OutboxStatus.SENT, sent_at=clock(), last_error="")
                crashpoints.reached("mail marked sent")
                report.sent.append(mail.id)
    finally:
        if connected:
            try:
                await client.quit()
            except aiosmtplib.SMTPException:
                pass
    return True


def _settle(engine: Engine, mail: OutboxMail, report: SendReport, now: datetime, permanent: bool, error: str) -> None:
    if permanent or mail.attempts >= MAX_ATTEMPTS:
        _finish(engine, mail.id, status=OutboxStatus.FAILED, last_error=error)
        report.failed.append(mail.id)
    else:
        _finish(engine, mail.id, status=OutboxStatus.QUEUED, next_attempt_at=now + backoff(mail.attempts),
                last_error=error)
        report.retry.append(mail.id)
