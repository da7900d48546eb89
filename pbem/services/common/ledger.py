"""The mail ledger: what became of every mail that came in, and what we sent that a mail may answer.

Each mail the worker reads is recorded once, under its ledger key (its
Message-ID, see ``pbem.mail.message.ledger_key``), in the same transaction as
what it caused: the game change, or the reply and the notices to the
moderator. A second copy of a mail, or a mail the worker saw before it
stopped, is known by that record. The records also count a sender's recent
mail (the rate limit, a stranger's one reply a day).
"""

from __future__ import annotations

import traceback
from dataclasses import dataclass
from datetime import datetime
from typing import Callable, Iterable

from functools import lru_cache

from sqlalchemy import Engine, bindparam, func, literal_column, or_
from sqlmodel import Session, select

from ...mail.message import is_address, is_message_id, new_message_id
from ...store.models import STRANGER_ROW, InboundMail, OutboxMail, utcnow
from ...store.uow import UnitOfWork

RECENT_MAILS = 60  # a game's mails to a player that a reply is compared with for pasted text (about a week's)
ERROR_SUMMARY = 2000  # characters of an error kept in a mail's record: what went wrong and where
PLAYER_HEADER = "X-Pbem-Player"  # on a player's word to the moderator: whom the moderator's reply goes back to


def error_summary(exc: BaseException) -> str:
    """One line saying what went wrong, then the innermost frames: enough for a human to find the bug."""
    first = f"{type(exc).__name__}: {str(exc).strip().splitlines()[0] if str(exc).strip() else ''}".strip()
    frames = traceback.format_exception(exc, limit=-3)
    return (first[:500] + "\n" + "".join(frames)[-(ERROR_SUMMARY - 520):]).strip()


@dataclass(frozen=True)
class AskedDecision:
    """The decision a game mail asked for: the engine's move count, its context's key and words."""

    game_id: int
    number: int | None
    key: str = ""
    words: str = ""


NOT_ANSWERED = "not answered:"  # how the reason of a mail that got no answer begins


def strangers_mailed(s: Session, since: datetime) -> int:
    """How many mails pbem answered since ``since`` whose senders played in no game (a reply or a code): the
    strangers' daily budget (``[signup] stranger_mails_per_day``), counted in its partial index."""
    return s.exec(select(func.count()).select_from(InboundMail).where(
        literal_column(STRANGER_ROW), InboundMail.received_at >= since)).one()


# The statements a mail runs, built once and run as Core statements (a reading unit holds no objects to flush):
# building one, and the ORM's handling of it, cost more than running it (bench/mail.py).
_OUTCOME = select(InboundMail.outcome).where(InboundMail.message_id == bindparam("key"))
_ASKED = select(OutboxMail.decision_key, OutboxMail.decision_words).where(
    OutboxMail.game_id == bindparam("game_id"), OutboxMail.decision == bindparam("number")) \
    .order_by(OutboxMail.id.desc()).limit(1)  # type: ignore[union-attr]

_SENT_AS = select(OutboxMail.subject, OutboxMail.text_body).where(
    OutboxMail.message_id.in_(bindparam("ids", expanding=True)))  # type: ignore[union-attr]
_SENT_TO = select(OutboxMail.subject, OutboxMail.text_body).where(
    or_(OutboxMail.game_id == bindparam("game_id"), OutboxMail.game_id.is_(None)),  # type: ignore[union-attr]
    OutboxMail.recipient == bindparam("recipient")).order_by(OutboxMail.id.desc()).limit(bindparam("limit"))  # type: ignore[union-attr]


@lru_cache(maxsize=None)
def _count(outcomes: bool, excluding: bool, answered: bool):  # type: ignore[no-untyped-def]
    """MailLedger.count's statement, of each of its eight shapes."""
    query = select(func.count()).select_from(InboundMail).where(
        InboundMail.sender == bindparam("sender"), InboundMail.received_at >= bindparam("since"))
    if outcomes:
        query = query.where(InboundMail.outcome.in_(bindparam("outcomes", expanding=True)))
    if excluding:
        query = query.where(InboundMail.outcome.not_in(bindparam("excluding", expanding=True)))
    if answered:
        query = query.where(InboundMail.reason.not_like(f"{NOT_ANSWERED}%"))
    return query


class MailLedger:
    def __init__(self, engine: Engine, *, clock: Callable[[], datetime] = utcnow,
                 mail_domain: str = "pbem.invalid") -> None:
        self.engine = engine
        self.clock = clock
        self.mail_domain = mail_domain

    def new_message_id(self) -> str:
        """A Message-ID for a mail of ours, chosen when it is queued."""
        return new_message_id(self.mail_domain)

    # ------------------------------------------------------------------ mail that came in

    def outcome(self, key: str) -> str | None:
        """What became of the mail recorded under ``key`` (applied, rejected, ignored, ...); None if never seen."""
        with UnitOfWork(self.engine) as uow:
            return uow.session.connection().execute(_OUTCOME, {"key": key}).scalar()

    def count(self, sender: str, since: datetime, outcomes: tuple[str, ...] = (), *,
              excluding: tuple[str, ...] = (), answered: bool = False) -> int:
        """How many mails from ``sender`` were recorded since ``since`` (with one of ``outcomes``, if given;
        without those ``excluding``; with ``answered``, only those that got an answer of their own)."""
        with UnitOfWork(self.engine) as uow:
            return uow.session.connection().execute(_count(bool(outcomes), bool(excluding), answered), {
                "sender": sender, "since": since, "outcomes": list(outcomes), "excluding": list(excluding)}).scalar_one()

    def strangers_mailed(self, since: datetime) -> int:
        with UnitOfWork(self.engine) as uow:
            return strangers_mailed(uow.session, since)

    def errors_since(self, since: datetime) -> int:
        """How many mails were set aside for the moderator since ``since``."""
        with UnitOfWork(self.engine) as uow:
            return uow.session.exec(select(func.count()).select_from(InboundMail).where(
                InboundMail.outcome == "error", InboundMail.received_at >= since)).one()

    def last_uid(self, mailbox: str, uidvalidity: int) -> int:
        with UnitOfWork(self.engine) as uow:
            return uow.session.exec(select(func.max(InboundMail.uid)).where(
                InboundMail.mailbox == mailbox, InboundMail.uidvalidity == uidvalidity)).one() or 0

    # ------------------------------------------------------------------ mail we sent

    def game_of_messages(self, message_ids: list[str]) -> int | None:
        """The game of the first of these Message-IDs that is a game mail we sent."""
        replied = self.asked_in_reply(message_ids)
        return replied.game_id if replied else None

    def recipients_of(self, message_ids: list[str]) -> list[tuple[int | None, str]]:
        """(game, recipient) of the mails we sent with these Message-IDs."""
        if not message_ids:
            return []
        with UnitOfWork(self.engine) as uow:
            return list(uow.session.exec(
                select(OutboxMail.game_id, OutboxMail.recipient).where(OutboxMail.message_id.in_(message_ids))
            ).all())

    def relayed_in_reply(self, message_ids: list[str], moderator: str) -> tuple[int, str] | None:
        """(game, player) of a player's word to the moderator that these Message-IDs answer, if they answer one."""
        if not message_ids or not moderator:
            return None
        with UnitOfWork(self.engine) as uow:
            rows = uow.session.exec(select(OutboxMail.game_id, OutboxMail.headers).where(
                OutboxMail.message_id.in_(message_ids), OutboxMail.recipient == moderator,
                OutboxMail.game_id.is_not(None))).all()  # type: ignore[union-attr]
        return next(((game_id, headers[PLAYER_HEADER]) for game_id, headers in rows
                     if game_id is not None and (headers or {}).get(PLAYER_HEADER)), None)

    def asked_in_reply(self, message_ids: list[str]) -> AskedDecision | None:
        """What the first of these Message-IDs that is a game mail we sent asked for (its ``number`` is None
        when that mail asked for no decision); None when none of them is one of our game mails."""
        if not message_ids:
            return None
        with UnitOfWork(self.engine) as uow:
            rows = uow.session.exec(
                select(OutboxMail.message_id, OutboxMail.game_id, OutboxMail.decision, OutboxMail.decision_key,
                       OutboxMail.decision_words)
                .where(OutboxMail.message_id.in_(message_ids), OutboxMail.game_id.is_not(None))  # type: ignore[union-attr]
            ).all()
        found = {mid: AskedDecision(game_id, number, key, words) for mid, game_id, number, key, words in rows}
        return next((found[mid] for mid in message_ids if mid in found), None)

    def sent_to(self, message_ids: list[str], game_id: int, recipient: str,
                limit: int = RECENT_MAILS) -> list[tuple[str, str]]:
        """(subject, text) of the mails a reply answers (``message_ids``) and of the last ``limit`` mails sent to
        ``recipient`` of the game or of no one game (a digest of several games): what a player's reply may hold of
        ours, pasted back or quoted in its subject."""
        with UnitOfWork(self.engine) as uow:
            connection = uow.session.connection()
            answered = connection.execute(_SENT_AS, {"ids": list(message_ids)}).all() if message_ids else []
            recent = connection.execute(_SENT_TO, {"game_id": game_id, "recipient": recipient, "limit": limit}).all()
        return [(subject, text) for subject, text in (*answered, *recent)]

    def asked(self, game_id: int, number: int) -> AskedDecision | None:
        """The decision ``number`` of a game as its latest mail that asked for it recorded it (after an undo a
        number can come back, and then the latest is the one players saw last)."""
        with UnitOfWork(self.engine) as uow:
            row = uow.session.connection().execute(_ASKED, {"game_id": game_id, "number": number}).first()
        return AskedDecision(game_id, number, row[0], row[1]) if row else None

    # ------------------------------------------------------------------ writing

    def queue_mail(
        self, to: str | None, subject: str, body: str, *, game_id: int | None = None, in_reply_to: str | None = None,
        thread: str | None = None, inbound: InboundMail | None = None, also: Iterable[OutboxMail] = (),
        html: str | None = None, asked: AskedDecision | None = None,
    ) -> str | None:
        """Queue one mail (a reply to a player), and record the inbound mail it answers, in one transaction;
        ``also``, more mails that belong to the same transaction (a word to the moderator). ``asked``: the
        decision the mail asks for (a list of choices), stored as a game mail stores its own, so that a Reply to
        it answers that decision only.

        ``thread`` (the game's thread root) heads References, so a reply stays in the game's thread in clients
        that thread by References. ``in_reply_to`` goes into the reply's headers only when it is a valid
        Message-ID: a value from a received mail never reaches a header we write unchecked. ``to`` must be an
        address a mail can be sent to; one that is not is never queued (it would only fail), and the inbound
        record says so. Returns the new mail's Message-ID (None when nothing is queued to ``to``: only the
        inbound record and ``also`` are stored)."""
        if to is not None and not is_address(to):
            if inbound is not None:
                inbound.reason = f"not answered: {to[:60]!r} is not an address a mail can be sent to"
            to = None
        mail = self.reply_mail(to, subject, body, game_id=game_id, in_reply_to=in_reply_to, thread=thread) \
            if to is not None else None
        if mail is not None:
            mail.html_body = html
            if asked is not None:
                mail.decision, mail.decision_key, mail.decision_words = asked.number, asked.key, asked.words
        with UnitOfWork(self.engine, write=True) as uow:
            if mail is not None:
                uow.session.add(mail)
            if inbound is not None:
                uow.session.add(inbound)
            uow.session.add_all(also)
            uow.commit()
        return mail.message_id if mail is not None else None

    def reply_mail(self, to: str, subject: str, body: str, *, game_id: int | None = None,
                   in_reply_to: str | None = None, thread: str | None = None) -> OutboxMail:
        """The row of a reply, as ``queue_mail`` queues it, for a caller that writes it in its own transaction (a
        signup mail's reply, with what the mail changed: services.mail_in.signup_mail)."""
        now = self.clock()
        message_id = self.new_message_id()
        answered = in_reply_to if in_reply_to and is_message_id(in_reply_to) else None
        headers = {"Message-ID": message_id, "Auto-Submitted": "auto-replied" if answered else "auto-generated"}
        if game_id is not None:
            headers["X-Pbem-Game"] = str(game_id)
        if answered:
            headers["In-Reply-To"] = answered
        references = [mid for mid in (thread, answered) if mid]
        if references:
            headers["References"] = " ".join(references)
        return OutboxMail(game_id=game_id, recipient=to, subject=subject, headers=headers, text_body=body,
                          next_attempt_at=now, message_id=message_id, created_at=now)
