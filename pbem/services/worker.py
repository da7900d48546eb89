"""The mail worker: one pass reads the game mailbox, answers it, and sends the outbox.

Each mail is processed in its own transaction (its inbound record, the game
change and the mails it causes, together) and moved out of the inbox only after
that commit. A mail whose Message-ID is already recorded was processed before
(the worker stopped between commit and move, or the mail arrived twice): it is
moved and not processed again. Automatic mail (bounces, auto-replies, lists,
our own) is recorded and never answered, so no mail loop can start. A mail the
code fails on is recorded as an error and set aside for the moderator; the
pass goes on.
"""

from __future__ import annotations

import asyncio
import socket
import time
import traceback
from dataclasses import dataclass, field
from datetime import datetime, timedelta
from typing import Callable

from sqlalchemy import Engine

from .. import crashpoints
from ..adapters.imap_inbox import Inbox
from ..adapters.outbox_sender import SendReport, send_pending
from ..config import MailConfig
from ..mail.message import automatic_reason, message_id, sender
from ..mail.text import read_message
from ..store.models import InboundMail, utcnow
from .games import GameService
from .mail_commands import MailCommands

from imapclient.exceptions import IMAPClientError

KEPT = ("applied", "info")  # outcomes whose mail goes to the processed folder; the rest to rejected
RATE_LIMIT = 60  # mails per sender and hour that applied nothing; more are recorded and not processed
RECONNECT_ERRORS = (IMAPClientError, OSError, socket.timeout, EOFError)


@dataclass
class PassReport:
    processed: list[tuple[int, str, str]] = field(default_factory=list)  # (uid, sender, outcome)
    already_done: list[int] = field(default_factory=list)
    sent: SendReport = field(default_factory=SendReport)


class MailWorker:
    def __init__(
        self, engine: Engine, mail: MailConfig, *, clock: Callable[[], datetime] = utcnow,
        log: Callable[[str], None] = lambda line: None, mail_domain: str | None = None, rate_limit: int = RATE_LIMIT,
    ) -> None:
        self.engine = engine
        self.mail = mail
        self.clock = clock
        self.log = log
        self.rate_limit = rate_limit
        self.games = GameService(engine, clock=clock, mail_domain=mail_domain or mail.game_address.split("@")[-1])
        self.send_each = True  # send what a mail caused right after it: a player's answer does not wait for a batch
        self.commands = MailCommands(self.games)

    def run_once(self) -> PassReport:
        report = PassReport()
        with Inbox(self.mail.imap) as inbox:
            self.read_inbox(inbox, report)
        self._merge(report.sent, self.send_outbox())
        return report

    def run_forever(self, stop: Callable[[], bool], *, renew: float = 240.0) -> None:
        """Serve the mailbox until ``stop()``: IDLE between passes (renewed every few minutes), reconnecting
        with backoff when the server or the connection fails. The current mail is always finished."""
        delay = 1.0
        while not stop():
            try:
                with Inbox(self.mail.imap) as inbox:
                    self.log(f"connected to {self.mail.imap.host}:{self.mail.imap.port}, watching {self.mail.mailbox}")
                    delay = 1.0
                    while not stop():
                        report = PassReport()
                        self.read_inbox(inbox, report, stop)
                        self._merge(report.sent, self.send_outbox())
                        if report.sent.sent or report.sent.failed:
                            self.log(f"sent {len(report.sent.sent)} mail(s), {len(report.sent.retry)} to retry, "
                                     f"{len(report.sent.failed)} failed")
                        if report.processed:
                            continue  # mail that came during the pass was announced then, not to the IDLE to come
                        inbox.wait(min(self.mail.poll_interval, renew), stop)
            except RECONNECT_ERRORS as exc:
                self.log(f"mail server connection lost ({type(exc).__name__}: {exc}); reconnecting in {delay:.0f} s")
                end = time.monotonic() + delay
                while time.monotonic() < end and not stop():
                    time.sleep(0.2)
                delay = min(delay * 2, 300.0)

    def read_inbox(self, inbox: Inbox, report: PassReport, stop: Callable[[], bool] = lambda: False) -> None:
        for folder in (self.mail.processed_folder, self.mail.rejected_folder):
            inbox.ensure_folder(folder)
        box = inbox.open(self.mail.mailbox)
        last = self.games.last_uid(box.name, box.uidvalidity)
        for uid in box.uids:
            if stop():
                return  # what is left waits for the next start; the current mail was finished
            if uid <= last:
                # Seen before under this UIDVALIDITY: processed, but the move did not happen.
                mid = inbox.message_id(uid)
                recorded = self.games.inbound_outcome(mid) if mid else None
                if recorded is not None:
                    inbox.move(uid, self.folder_for(recorded))
                    report.already_done.append(uid)
                    continue
            raw = inbox.fetch(uid)
            if raw is None:
                continue
            crashpoints.reached("mail fetched")
            folder, who, outcome = self.process(raw, box.name, box.uidvalidity, uid)
            crashpoints.reached("mail committed, not moved")
            if outcome == "already processed":
                report.already_done.append(uid)
            else:
                report.processed.append((uid, who, outcome))
            inbox.move(uid, folder)
            crashpoints.reached("mail moved")
            self.log(f"mail {uid} from {who or '(no sender)'}: {outcome}")
            if self.send_each:
                self._merge(report.sent, self.send_outbox())  # answer this mail before reading the next

    @staticmethod
    def _merge(total: SendReport, more: SendReport) -> None:
        total.sent += more.sent
        total.retry += more.retry
        total.failed += more.failed

    def process(self, raw: bytes, mailbox: str, uidvalidity: int, uid: int) -> tuple[str, str, str]:
        """Process one mail in one transaction; returns (folder, sender, outcome)."""
        msg = read_message(raw)
        who = sender(msg) or ""
        mid = message_id(msg) or f"<pbem-no-id-{uidvalidity}-{uid}@{mailbox}>"
        recorded = self.games.inbound_outcome(mid)
        if recorded is not None:  # a second copy, or the worker stopped between the commit and the move
            return self.folder_for(recorded), who, "already processed"
        inbound = InboundMail(message_id=mid, mailbox=mailbox, uidvalidity=uidvalidity, uid=uid, sender=who,
                              received_at=self.clock())
        reason = automatic_reason(msg, (self.mail.game_address,))
        # Only mails that applied nothing count: a lively auction is many mails, while a loop or abuse repeats
        # without changing anything.
        if not reason and who and self.games.inbound_count(
                who, self.clock() - timedelta(hours=1), excluding=("applied",)) >= self.rate_limit:
            reason = f"rate limit: more than {self.rate_limit} mails from {who} in an hour that applied nothing"
        if reason:
            inbound.outcome, inbound.reason = "ignored", reason
            self.games.queue_mail(None, "", "", inbound=inbound)
            return self.mail.rejected_folder, who, f"ignored ({reason})"
        try:
            result = self.commands.handle(raw, inbound=inbound)
        except Exception:  # a bug must not stop the worker: record it and set the mail aside for a human
            inbound.outcome, inbound.reason = "error", traceback.format_exc(limit=5)[-4000:]
            inbound.game_id = None
            if self.games.inbound_outcome(mid) is None:  # the failure may have come after the mail's own commit
                self.games.queue_mail(None, "", "", inbound=inbound)
            return self.mail.rejected_folder, who, "error (set aside for the moderator)"
        return self.folder_for(result.outcome), who, result.outcome

    def folder_for(self, outcome: str) -> str:
        """Where a mail goes once its outcome is committed: answered mail to the processed folder, the rest
        (refused, ignored, set aside) to the rejected one."""
        return self.mail.processed_folder if outcome in KEPT else self.mail.rejected_folder

    def send_outbox(self) -> SendReport:
        return asyncio.run(send_pending(self.engine, self.mail.smtp, self.mail.game_address, clock=self.clock))
