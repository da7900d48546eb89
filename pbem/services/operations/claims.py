"""Which worker works on which mail: claims on the mailbox's mails and on the outbox's rows.

Several workers may serve one mailbox and one database (a second one started by mistake, or one on each of
two hosts). Before a worker reads a mail it claims the mail's UID in the database; a mail another worker
holds is left alone, and only the claimer moves it out of the mailbox, after its commit. The ledger's
unique key still decides, whatever the claims: a mail is applied at most once.

A claim is a lease. A worker that dies leaves its claims (and the outbox rows it was sending) behind: a
worker on the same host sees that the process is gone and frees them at once, so a restarted worker goes on
where the dead one stopped; claims of another host wait for their lease to run out.
"""

from __future__ import annotations

import os
import secrets
import socket
from dataclasses import dataclass
from datetime import datetime, timedelta
from typing import Callable

from sqlalchemy import Engine, delete, update
from sqlalchemy.exc import IntegrityError
from sqlmodel import select

from ...store.models import MailClaim, OutboxMail, OutboxStatus, utcnow
from ...store.uow import UnitOfWork
from ..common.deadlines import aware

LEASE = timedelta(minutes=10)

_LIVE: set[str] = set()  # the tokens of the workers alive in this process


@dataclass(frozen=True)
class Instance:
    """One worker: its host, its process and a token of its own (two workers may share a process, in tests,
    and a restarted worker may get the pid of the one that died)."""

    host: str
    pid: int
    token: str

    def __str__(self) -> str:
        return f"{self.host} {self.pid} {self.token}"

    @classmethod
    def start(cls) -> "Instance":
        instance = cls(socket.gethostname()[:80], os.getpid(), secrets.token_hex(6))
        _LIVE.add(instance.token)
        return instance


def is_gone(owner: str) -> bool:
    """Whether the worker named ``owner`` is known to be dead: it ran on this host and its process is gone (or
    it is this process, and not one of its live workers). A worker of another host is never known dead."""
    host, _, rest = owner.partition(" ")
    pid_text, _, token = rest.partition(" ")
    if host != socket.gethostname()[:80] or not pid_text.isdigit():
        return False
    pid = int(pid_text)
    if pid == os.getpid():
        return token not in _LIVE
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return True
    except (PermissionError, OverflowError):
        return False
    return False


class MailClaims:
    def __init__(self, engine: Engine, instance: Instance, *, clock: Callable[[], datetime] = utcnow,
                 lease: timedelta = LEASE) -> None:
        self.engine = engine
        self.owner = str(instance)
        self.clock = clock
        self.lease = lease

    def claim(self, mailbox: str, uidvalidity: int, uids: list[int]) -> list[int]:
        """Claim these mails; returns those now this worker's (free ones, its own, and those whose holder
        is dead or whose lease ran out), in order. One transaction for them all."""
        if not uids:
            return []
        now = self.clock()
        try:
            with UnitOfWork(self.engine, write=True) as uow:
                s = uow.session
                query = select(MailClaim).where(MailClaim.mailbox == mailbox, MailClaim.uidvalidity == uidvalidity,
                                                MailClaim.uid.in_(uids))
                held = {c.uid: c for c in s.exec(query.with_for_update()).all()}
                mine = []
                for uid in uids:
                    claim = held.get(uid)
                    if claim is None:
                        s.add(MailClaim(mailbox=mailbox, uidvalidity=uidvalidity, uid=uid, owner=self.owner,
                                        until=now + self.lease))
                    elif claim.owner == self.owner or aware(claim.until) <= now or is_gone(claim.owner):
                        claim.owner, claim.until = self.owner, now + self.lease
                        s.add(claim)
                    else:
                        continue
                    mine.append(uid)
                uow.commit()
                return mine
        except IntegrityError:
            return []  # another worker claimed one of them at the same moment: the next pass sees which

    def renew(self, mailbox: str, uidvalidity: int, uids: list[int]) -> list[int]:
        """Renew the claims on these mails, in a flushed transaction: every commit so far reaches the disk with it
        (store.db.make_engine), those of the mails' outcomes included. Called before the mails leave the mailbox,
        so a power cut cannot lose the outcome of a mail that is gone from it. Returns the mails still this
        worker's (only the claimer moves a mail; a claim is taken over only after its lease ran out)."""
        if not uids:
            return []
        until = self.clock() + self.lease
        with UnitOfWork(self.engine, write=True, flushed=True) as uow:
            # An UPDATE writes its rows even when a value stays the same (the ORM would skip it): a transaction
            # that writes nothing flushes nothing.
            kept = set(uow.session.exec(update(MailClaim).where(  # type: ignore[call-overload]
                MailClaim.mailbox == mailbox, MailClaim.uidvalidity == uidvalidity, MailClaim.uid.in_(uids),
                MailClaim.owner == self.owner).values(until=until).returning(MailClaim.uid)).scalars())
            uow.commit()
        return [uid for uid in uids if uid in kept]

    def release(self, mailbox: str, uidvalidity: int, uids: list[int]) -> None:
        """These mails are filed: their claims go."""
        if not uids:
            return
        with UnitOfWork(self.engine, write=True) as uow:
            uow.session.exec(delete(MailClaim).where(  # type: ignore[call-overload]
                MailClaim.mailbox == mailbox, MailClaim.uidvalidity == uidvalidity, MailClaim.uid.in_(uids),
                MailClaim.owner == self.owner))
            uow.commit()

    def free_the_dead(self) -> list[str]:
        """Free what dead workers of this host held: their claims, and their outbox rows still 'sending' (those
        go back to the queue; one of them may have been accepted just before the death: the documented
        window). Returns the dead workers found."""
        with UnitOfWork(self.engine) as uow:
            owners = set(uow.session.exec(select(MailClaim.owner).distinct()).all())
            owners |= set(uow.session.exec(select(OutboxMail.claimed_by).where(
                OutboxMail.status == OutboxStatus.SENDING).distinct()).all())
        dead = sorted(owner for owner in owners if owner and owner != self.owner and is_gone(owner))
        if dead:
            with UnitOfWork(self.engine, write=True) as uow:
                uow.session.exec(delete(MailClaim).where(MailClaim.owner.in_(dead)))  # type: ignore[call-overload]
                # A row 'sending' whose lease has run out is claimed again (outbox_sender.claim): end it now.
                uow.session.exec(update(OutboxMail).where(  # type: ignore[call-overload]
                    OutboxMail.status == OutboxStatus.SENDING, OutboxMail.claimed_by.in_(dead),
                ).values(next_attempt_at=self.clock()))
                uow.commit()
        return dead
