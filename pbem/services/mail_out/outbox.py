"""The outbox for the moderator: every mail queued and sent, and retrying failed ones.

Mails are queued by the game service in the same transaction as the change
they report and sent by the worker; here they are inspected, and failed mails
put back in the queue.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from datetime import datetime, timezone
from typing import Any

from sqlalchemy import Engine
from sqlmodel import select

from ...store.models import Game, OutboxMail, OutboxStatus
from ...store.uow import UnitOfWork
from ..common.errors import BadRequest, GameNotFound, ServiceError

STATUSES = OutboxStatus.ALL


class MailNotFound(ServiceError):
    pass


@dataclass
class OutboxEntry:
    id: int
    game_id: int | None
    recipient: str
    subject: str
    status: str
    attempts: int
    created_at: datetime
    next_attempt_at: datetime
    sent_at: datetime | None
    message_id: str
    headers: dict[str, Any] = field(default_factory=dict)
    text_body: str = ""
    html_body: str | None = None
    last_error: str = ""


def _aware(moment: datetime | None) -> datetime | None:
    if moment is None:
        return None
    return moment if moment.tzinfo else moment.replace(tzinfo=timezone.utc)


def _entry(mail: OutboxMail) -> OutboxEntry:
    return OutboxEntry(
        id=mail.id,  # type: ignore[arg-type]
        game_id=mail.game_id,
        recipient=mail.recipient,
        subject=mail.subject,
        status=mail.status,
        attempts=mail.attempts,
        created_at=_aware(mail.created_at),  # type: ignore[arg-type]
        next_attempt_at=_aware(mail.next_attempt_at),  # type: ignore[arg-type]
        sent_at=_aware(mail.sent_at),
        message_id=mail.message_id,
        headers=dict(mail.headers or {}),
        text_body=mail.text_body,
        html_body=mail.html_body,
        last_error=mail.last_error or "",
    )


class OutboxService:
    def __init__(self, engine: Engine) -> None:
        self.engine = engine

    def list(self, game_id: int | None = None, status: str | None = None, limit: int | None = None) -> list[OutboxEntry]:
        """The mails, oldest first (by id). ``limit`` keeps the newest N, still oldest first."""
        if status is not None and status not in STATUSES:
            raise BadRequest(f"unknown status '{status}'; use one of {', '.join(STATUSES)}")
        if limit is not None and limit < 1:
            raise BadRequest(f"the limit must be at least 1, not {limit}")
        with UnitOfWork(self.engine) as uow:
            if game_id is not None and uow.session.get(Game, game_id) is None:
                raise GameNotFound(f"there is no game {game_id}")
            query = select(OutboxMail)
            if game_id is not None:
                query = query.where(OutboxMail.game_id == game_id)
            if status is not None:
                query = query.where(OutboxMail.status == status)
            if limit is not None:
                query = query.order_by(OutboxMail.id.desc()).limit(limit)  # type: ignore[union-attr]
            else:
                query = query.order_by(OutboxMail.id)  # type: ignore[arg-type]
            entries = [_entry(mail) for mail in uow.session.exec(query).all()]
        return sorted(entries, key=lambda e: e.id)

    def show(self, mail_id: int) -> OutboxEntry:
        with UnitOfWork(self.engine) as uow:
            mail = uow.session.get(OutboxMail, mail_id)
            if mail is None:
                raise MailNotFound(f"there is no mail {mail_id}")
            return _entry(mail)

    def retry(self, mail_ids: list[int] | None = None, *, now: datetime | None = None) -> list[int]:
        """Queue failed mails again (the given ones, or every failed mail); returns their numbers."""
        now = now or datetime.now(timezone.utc)
        with UnitOfWork(self.engine, write=True) as uow:
            query = select(OutboxMail).where(OutboxMail.status == OutboxStatus.FAILED)
            if mail_ids:
                for mail_id in mail_ids:
                    mail = uow.session.get(OutboxMail, mail_id)
                    if mail is None:
                        raise MailNotFound(f"there is no mail {mail_id}")
                    if mail.status != OutboxStatus.FAILED:
                        raise BadRequest(f"mail {mail_id} is {mail.status}, not failed; only failed mails are retried")
                query = query.where(OutboxMail.id.in_(mail_ids))  # type: ignore[attr-defined]
            mails = list(uow.session.exec(query).all())
            for mail in mails:
                mail.status, mail.next_attempt_at, mail.attempts = OutboxStatus.QUEUED, now, 0
                uow.session.add(mail)
            uow.commit()
            return sorted(m.id for m in mails)
