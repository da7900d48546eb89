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
import re
import secrets
from collections import deque
from collections.abc import Sequence
from dataclasses import dataclass, field
from datetime import datetime, timedelta
from email.charset import QP, Charset
from email.header import Header
from email.message import Message
from email.mime.image import MIMEImage
from email.mime.multipart import MIMEMultipart
from email.mime.text import MIMEText
from email.utils import formataddr, formatdate
from typing import Callable

import aiosmtplib
from sqlalchemy import Engine, and_, bindparam, or_, select, update

from .. import crashpoints
from ..config import ServerConfig
from ..mail.message import MAX_REFERENCES, is_address, is_message_id
from ..mail.mailto import with_address
from ..store.models import OutboxMail, OutboxStatus, fit, utcnow
from ..store.uow import one_statement

LEASE = timedelta(minutes=10)
MAX_ATTEMPTS = 10
MAX_HEADER = 900  # characters of one header value; a line of mail holds at most 998
_CONTROL = re.compile(r"[\x00-\x1f\x7f]")
_HEADER_NAME = re.compile(r"[!-9;-~]{1,76}")  # RFC 5322 field names: printable ASCII but the colon
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


class UnsendableMail(ValueError):
    """A queued mail that no server could ever take (no valid recipient): it fails at once, never retried."""


_THREAD_HEADERS = ("In-Reply-To", "References")


def _header_value(name: str, value: object) -> str | None:
    """``value`` fit for the header ``name``, or None to leave the header out. A last guard: whatever a
    received mail put into a queued one, no CR, LF or NUL reaches a header we write, and In-Reply-To and
    References carry only valid Message-IDs."""
    if not isinstance(value, str):
        return None
    if name in _THREAD_HEADERS:
        ids = [mid for mid in value.split() if is_message_id(mid)]
        return " ".join(ids[-MAX_REFERENCES:]) or None
    text = " ".join(_CONTROL.sub(" ", value).split())[:MAX_HEADER]
    if not text:
        return None
    return text if text.isascii() else Header(text, "utf-8").encode()


def build_message(mail: OutboxMail, sender: str, sender_name: str = "") -> Message:
    """The mail as sent: a text part and, when there is one, the same board as HTML, with the picture of the
    board it shows (drawn here, from the mail's recipe: render.pictures.mail) beside it as a related part:
    multipart/alternative [text/plain, multipart/related [text/html, image/png]], which every client reads.

    Built with the email package's compat32 classes, which do here what ``EmailMessage`` does at a third of
    the cost (measured in bench/mail.py): a worker builds one of these for every mail it sends. Raises
    UnsendableMail for a recipient no server would take.
    """
    if not is_address(mail.recipient):
        raise UnsendableMail(f"{mail.recipient!r} is not an address a mail can be sent to")
    html = [_with_picture(_text_part(with_address(mail.html_body, sender), "html"), mail.picture)] if mail.html_body else []
    parts = [_text_part(mail.text_body, "plain")] + html
    msg: Message = parts[0] if len(parts) == 1 else MIMEMultipart("alternative", _boundary(), _subparts=parts)
    # A name, so a client's list shows "Fifth Avenue #12 (pbem)" and not a cut address: the configured one, else
    # the one the mail was made with.
    msg["From"] = formataddr((sender_name or mail.headers.get("From-Name") or "pbem", sender))
    msg["To"] = mail.recipient
    msg["Reply-To"] = sender
    msg["Subject"] = _header_value("Subject", mail.subject) or "(no subject)"
    msg["Date"] = formatdate(localtime=False, usegmt=True)
    for name, value in mail.headers.items():
        if name not in msg and name != "From-Name" and _HEADER_NAME.fullmatch(name):
            kept = _header_value(name, value)
            if kept is not None:
                msg[name] = kept
    msg["X-Pbem"] = "1"  # marks our own mail, so the worker never answers it
    return msg


def _with_picture(html: Message, recipe: dict | None) -> Message:
    if recipe is None:
        return html
    from ..render.pictures import mail as pictures  # Pillow loads where mails with pictures are sent

    media, data = pictures.picture(recipe)
    image = MIMEImage(data, media.split("/")[1])
    image["Content-ID"] = f"<{pictures.content_id(recipe)}>"
    image["Content-Disposition"] = "inline"
    return MIMEMultipart("related", _boundary(), _subparts=[html, image])


def _boundary() -> str:
    """A multipart's boundary: 128 random bits, which no part's text holds but by a chance of 2**-128. Left to
    the email package, a boundary is checked against the whole flattened mail with a regular expression, a
    tenth of the cost of flattening it (bench/mail.py's profile of the sending process)."""
    return f"=_pbem_{secrets.token_hex(16)}"


_UTF8 = Charset("utf-8")
_UTF8.body_encoding = QP  # readable in any client's "show source", unlike base64


_LONGEST_7BIT_LINE = 998  # characters of a line of mail (RFC 5322); a longer one goes quoted-printable


def _text_part(text: str, subtype: str) -> MIMEText:
    """The part in the smallest transfer encoding that every server takes: 7bit for ASCII with lines a mail may
    carry as they are (an HTML part writes its few other characters as character references, ``&#8211;``, which
    is ASCII: quoted-printable would add an ``=3D`` for every ``=`` of its attributes, 4% of its bytes), else
    quoted-printable, readable in a client's "show source" (base64 would add a third to mostly-ASCII text)."""
    if subtype == "html":
        text = text.encode("ascii", "xmlcharrefreplace").decode("ascii")
    if text.isascii() and max(map(len, text.splitlines()), default=0) < _LONGEST_7BIT_LINE:
        return MIMEText(text, subtype, "us-ascii")
    return MIMEText(text, subtype, _UTF8)


def claim(engine: Engine, now: datetime, limit: int = 50, owner: str = "",
          game_id: int | None = None) -> list[OutboxMail]:
    """Up to ``limit`` due rows, now 'sending' under a lease held by ``owner`` (the worker's name); with
    ``game_id``, only that game's (the moderator's command sending what it queued: services.mail_out.send_now)."""
    due = [
        and_(OutboxMail.status == OutboxStatus.QUEUED, OutboxMail.next_attempt_at <= now),
        and_(OutboxMail.status == OutboxStatus.SENDING, OutboxMail.next_attempt_at <= now),  # an expired lease
    ]
    if owner:
        # Our own claim from a round that failed before it settled the row (the database went away): one
        # sender sends one round at a time, so the row is not in flight.
        due.append(and_(OutboxMail.status == OutboxStatus.SENDING, OutboxMail.claimed_by == owner))
    ids = select(OutboxMail.id).where(or_(*due))
    if game_id is not None:
        ids = ids.where(OutboxMail.game_id == game_id)
    ids = ids.order_by(OutboxMail.id).limit(limit)
    if engine.dialect.name == "postgresql":
        ids = ids.with_for_update(skip_locked=True)
    statement = (
        update(OutboxMail).where(OutboxMail.id.in_(ids.scalar_subquery()))
        .values(status=OutboxStatus.SENDING, attempts=OutboxMail.attempts + 1, next_attempt_at=now + LEASE,
                claimed_by=owner)
        .returning(OutboxMail)
    )
    # Flushed: a mail goes out only once the commit that queued it is on disk, and this commit carries every
    # commit before it there. The worker's own commits are not flushed one by one (store.db.make_engine): a
    # power cut may lose a mail's outcome, and the mail is then applied again from the mailbox; it must not
    # have been answered already.
    with engine.execution_options(pbem_write=True, pbem_flush=True).begin() as connection:
        rows = connection.execute(statement).all()
    return sorted((OutboxMail(**row._mapping) for row in rows), key=lambda m: m.id)


# Built once: every player's mail is marked sent by it, and building the statement cost more than running it.
_MARK_SENT = (update(OutboxMail).where(OutboxMail.id == bindparam("mail_id"))
              .values(status=OutboxStatus.SENT, sent_at=bindparam("when"), last_error=""))


def _mark_sent(engine: Engine, mail_id: int, when: datetime) -> None:
    with one_statement(engine).begin() as connection:
        connection.execute(_MARK_SENT, {"mail_id": mail_id, "when": when})


def _finish(engine: Engine, mail_id: int, **values) -> None:
    if "last_error" in values:  # a server's words, cut to the column (Core statements skip the models' own cut)
        values["last_error"] = fit(OutboxMail.last_error, values["last_error"])
    with one_statement(engine).begin() as connection:
        connection.execute(update(OutboxMail).where(OutboxMail.id == mail_id).values(**values))


class SmtpConnection:
    """One SMTP connection, opened when the first mail needs it and kept for the next ones, so a busy
    pass pays the connection and the greeting once instead of once per player's mail."""

    def __init__(self, smtp: ServerConfig, timeout: float = 30) -> None:
        self.smtp = smtp
        self.timeout = timeout
        self._client: aiosmtplib.SMTP | None = None

    async def send(self, message: Message, sender: str, recipients: list[str]) -> None:
        """Send one mail from ``sender`` (the envelope's) to ``recipients``; raises aiosmtplib's errors (a
        refusal, a dead connection)."""
        data = message.as_bytes()  # flattened here, once: aiosmtplib's own flattening costs twice as much
        reused = self.connected
        try:
            refused = await self._send_once(sender, recipients, data)
        except (aiosmtplib.SMTPServerDisconnected, ConnectionError):
            if not reused:
                raise
            # The server closed the connection while we kept it (an idle timeout): once more, on a new one.
            refused = await self._send_once(sender, recipients, data)
        if refused:
            code, text = next(iter(refused.values()))
            raise aiosmtplib.SMTPResponseException(code, text if isinstance(text, str) else str(text))

    async def _send_once(self, sender: str, recipients: list[str], data: bytes) -> dict:
        try:
            refused, _ = await (await self._open()).sendmail(sender, recipients, data)
        except TEMPORARY:
            self._client = None  # a new connection for the next mail
            raise
        return refused

    async def _open(self) -> aiosmtplib.SMTP:
        if self._client is not None and self._client.is_connected:
            return self._client
        self._client = None
        smtp = self.smtp
        client = aiosmtplib.SMTP(hostname=smtp.host, port=smtp.port, use_tls=smtp.security == "ssl",
                                 start_tls=True if smtp.security == "starttls" else False, timeout=self.timeout)
        await client.connect()
        if smtp.user:
            await client.login(smtp.user, smtp.password)
        self._client = client
        return client

    @property
    def connected(self) -> bool:
        return self._client is not None and self._client.is_connected

    async def close(self) -> None:
        client, self._client = self._client, None
        if client is not None and client.is_connected:
            try:
                await client.quit()
            except (aiosmtplib.SMTPException, OSError):
                client.close()


async def send_pending(
    engine: Engine, smtp: ServerConfig, sender: str, *, clock: Callable[[], datetime] = utcnow,
    limit: int = 50, timeout: float = 30, connections: Sequence[SmtpConnection] = (), owner: str = "",
    game_id: int | None = None, sender_name: str = "",
) -> SendReport:
    """Send every due mail once (with ``game_id``, every due mail of that game), ``limit`` claimed at a time;
    temporary failures are retried later with backoff.

    Over ``connections`` when given, side by side (they stay open for the caller's next call); else over one
    connection of its own, closed at the end."""
    report = SendReport()
    own = not connections
    connections = connections or [SmtpConnection(smtp, timeout)]
    try:
        while True:
            mails = claim(engine, clock(), limit, owner, game_id)
            if mails:
                crashpoints.reached("outbox claimed")
            reachable = await _send_claimed(engine, connections, sender, mails, report, clock,
                                            sender_name) if mails else True
            if len(mails) < limit or not reachable:
                return report
    finally:
        if own:
            await connections[0].close()


async def _send_claimed(
    engine: Engine, connections: Sequence[SmtpConnection], sender: str, mails: list[OutboxMail],
    report: SendReport, clock: Callable[[], datetime], sender_name: str = "",
) -> bool:
    """Send the claimed mails, each connection taking the next; False when the server could not be reached
    (the mails not tried yet wait for the next attempt instead of each waiting for its own timeout)."""
    waiting = deque(mails)
    unreachable: list[str] = []

    async def deliver(connection: SmtpConnection) -> None:
        while waiting and not unreachable:
            mail = waiting.popleft()
            was_connected = connection.connected
            if mail.attempts > MAX_ATTEMPTS:  # its leases ran out again and again: each try ended the sender
                _settle(engine, mail, report, clock(), True, f"given up after {MAX_ATTEMPTS} tries that never "
                        "finished (the sending process stopped each time)")
                continue
            try:
                message = build_message(mail, sender, sender_name)
            except Exception as exc:  # nothing to send, now or later: failed at once (the moderator is told)
                _settle(engine, mail, report, clock(), True, f"cannot be sent: {type(exc).__name__}: {exc}")
                continue
            try:
                await connection.send(message, sender, [mail.recipient])
            except aiosmtplib.SMTPRecipientsRefused as exc:
                errors = [e for e in exc.recipients]
                permanent = all(e.code >= 500 for e in errors)
                _settle(engine, mail, report, clock(), permanent, "; ".join(f"{e.code} {e.message}" for e in errors))
            except aiosmtplib.SMTPResponseException as exc:
                _settle(engine, mail, report, clock(), exc.code >= 500, f"{exc.code} {exc.message}")
            except TEMPORARY as exc:
                error = f"{type(exc).__name__}: {exc}"
                _settle(engine, mail, report, clock(), False, error)
                if not was_connected and not connection.connected:  # the server is down or unreachable
                    unreachable.append(error)
            except Exception as exc:  # a mail our code cannot send: it alone fails, and the others go on
                await connection.close()
                _settle(engine, mail, report, clock(), True, f"cannot be sent: {type(exc).__name__}: {exc}")
            else:
                crashpoints.reached("mail accepted by SMTP, not marked sent")  # the one window for a double send
                _mark_sent(engine, mail.id, clock())
                crashpoints.reached("mail marked sent")
                report.sent.append(mail.id)

    await asyncio.gather(*(deliver(connection) for connection in connections[: len(mails)]))
    for mail in waiting:
        _settle(engine, mail, report, clock(), False, unreachable[0])
    return not unreachable


def _settle(engine: Engine, mail: OutboxMail, report: SendReport, now: datetime, permanent: bool, error: str) -> None:
    if permanent or mail.attempts >= MAX_ATTEMPTS:
        _finish(engine, mail.id, status=OutboxStatus.FAILED, last_error=error)
        report.failed.append(mail.id)
    else:
        _finish(engine, mail.id, status=OutboxStatus.QUEUED, next_attempt_at=now + backoff(mail.attempts),
                last_error=error)
        report.retry.append(mail.id)
