"""pbem mails the moderator at most ``MODERATOR_MAILS_AN_HOUR`` times an hour, all its notices together.

Every mail pbem writes to the moderator (``notices.to_moderator``: mails set aside, bounces, refused mail, a
robot that cannot play, a late player, a player's words, a worker that was away) is queued ``held``. Before
each round of sending (``services.mail_out.relay``), ``release`` lets the held mails go while the last hour has room:
each as it is while they fit; when more wait than fit, the rest together in one digest; and the mails that had
to wait for the hour to have room again, together in one digest. So nothing that
players or strangers make pbem do can flood the moderator: a burst beyond the budget comes as one mail, and
every mail of it stays readable whole with ``pbem outbox show ID``.
"""

from __future__ import annotations

import textwrap
from datetime import datetime, timedelta

from sqlalchemy import Engine, func, or_
from sqlmodel import Session, select

from ...mail.message import new_message_id
from ...store.models import Mark, OutboxMail
from ...store.statuses import OutboxStatus
from ...store.uow import UnitOfWork
from ...words import plural
from . import notices
from ..common.deadlines import set_mark

MODERATOR_MAILS_AN_HOUR = 20
FULL_MARK = "moderator-hour-full:"  # a mark: the hour's budget was used up while mails to this address waited
HOUR = timedelta(hours=1)
DIGEST_WHOLE = 30  # mails of a digest told with their text; the others by their subject
DIGEST_LINES = 20  # lines of each such mail's text
DIGEST_LISTED = 200  # mails of a digest named at all; the rest are counted


def release(engine: Engine, now: datetime, domain: str) -> int:
    """Let the held mails to the moderator go while the hour has room (see the module's doc). Returns how many
    mails were queued: held ones let go, and a digest."""
    with UnitOfWork(engine) as uow:  # the usual case, and every idle round: nothing is held
        if uow.session.exec(select(OutboxMail.id).where(OutboxMail.status == OutboxStatus.HELD).limit(1)).first() \
                is None:
            return 0
    queued = 0
    with UnitOfWork(engine, write=True) as uow:
        uow.serialize("moderator mail")  # two senders never both see room for the same last mail
        s = uow.session
        held = s.exec(select(OutboxMail).where(OutboxMail.status == OutboxStatus.HELD).order_by(OutboxMail.id)).all()
        for recipient in dict.fromkeys(mail.recipient for mail in held):
            waiting = [mail for mail in held if mail.recipient == recipient]
            room = MODERATOR_MAILS_AN_HOUR - used(s, recipient, now)
            full = FULL_MARK + recipient
            if room <= 0:
                set_mark(s, full, now)  # what waits now goes in one digest when the hour has room again
                continue
            waited = s.get(Mark, full)
            if waited is not None:
                s.delete(waited)
                alone = []
            else:
                alone = waiting if len(waiting) <= room else waiting[: room - 1]
            for mail in alone:
                mail.status, mail.next_attempt_at = OutboxStatus.QUEUED, now
                s.add(mail)
            together = waiting[len(alone):]
            if together:
                s.add(digest(recipient, together, now, new_message_id(domain)))
                for mail in together:
                    mail.status = OutboxStatus.FOLDED
                    s.add(mail)
            queued += len(alone) + (1 if together else 0)
        uow.commit()
    return queued


def used(s: Session, recipient: str, now: datetime) -> int:
    """The mails to ``recipient`` the last hour counts: sent in it, or on their way (queued, being sent)."""
    return s.exec(select(func.count()).select_from(OutboxMail).where(
        OutboxMail.recipient == recipient,
        or_(OutboxMail.status.in_((OutboxStatus.QUEUED, OutboxStatus.SENDING)),  # type: ignore[attr-defined]
            (OutboxMail.status == OutboxStatus.SENT) & (OutboxMail.sent_at >= now - HOUR)))).one()


def digest(moderator: str, mails: list[OutboxMail], now: datetime, message_id: str) -> OutboxMail:
    """One mail that tells the moderator of ``mails`` (held, oldest first): the first DIGEST_WHOLE with their
    text, the next ones by subject, the rest counted."""
    lines = textwrap.wrap(
        f"pbem mails you at most {MODERATOR_MAILS_AN_HOUR} times an hour, and this hour had no room for "
        f"{plural(len(mails), 'more mail')}: here they are in one. Each is whole in 'pbem outbox show ID'. A reply "
        "to this mail reaches no player: answer one with 'pbem game tell GAME --player EMAIL \"...\"'.", 72)
    for mail in mails[:DIGEST_WHOLE]:
        text = mail.text_body.rstrip().splitlines()
        lines += ["", f"#{mail.id} {mail.subject} ({mail.created_at:%a %d %b %H:%M} UTC)", *text[:DIGEST_LINES]]
        if len(text) > DIGEST_LINES:
            lines.append(f"({plural(len(text) - DIGEST_LINES, 'more line')}: pbem outbox show {mail.id})")
    named = mails[DIGEST_WHOLE:DIGEST_LISTED]
    if named:
        lines += ["", "And, by their subjects:"] + [f"#{mail.id} {mail.subject}" for mail in named]
    if len(mails) > DIGEST_LISTED:
        lines += ["", f"And {plural(len(mails) - DIGEST_LISTED, 'more mail')}: pbem outbox list --status folded"]
    return notices.plain_mail(moderator, f"moderator: {plural(len(mails), 'notice')} in one mail", lines,
                              lambda: message_id, now, verbatim=True)


__all__ = ["MODERATOR_MAILS_AN_HOUR", "digest", "release", "used"]
