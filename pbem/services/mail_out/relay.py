"""The outbox relay: sends the outbox over one SMTP connection, in the caller's thread or in one of its own.

``send_now()`` sends every due mail and returns; that is what ``pbem worker
--once`` does after each mail, so a pass is one sequence of steps. The
long-running worker ``start()``s the relay instead: a thread that sends
whenever it is ``wake()``d (after each committed mail) and at least every
``interval`` seconds (for retries), while the worker reads and applies the
next mail. Sending and applying then overlap, as Mailman's incoming and
outgoing runners do: a burst of mail is answered at the pace of the slower
of the two, not of both added up.

Either way the SMTP connection is opened by the first mail to send, kept
while mail keeps coming, and closed after ``idle`` seconds without any.
One connection by default: a mail the SMTP server accepted and we had not yet
marked sent goes out again after a crash (the documented window of
``outbox_sender``), and with one connection at most one mail is ever in that
window. ``parallel`` connections send a burst faster (a server answers a mail
only once it has delivered it) but can each double a mail in a crash.
Rows are claimed in the database (``outbox_sender.claim``) in the name of
``owner`` (the worker), so the relay, a ``--once`` run and other workers
never send one row twice, and a dead worker's rows are freed by its successor.
"""

from __future__ import annotations

import asyncio
import threading
import time
import traceback
from datetime import datetime, timedelta
from typing import Callable

from sqlalchemy import Engine

from ...adapters.outbox_sender import SendReport, SmtpConnection, send_pending
from ...config import MailConfig
from ...logs import Say
from .moderator_mail import release as release_to_moderator


RELEASE_EVERY = timedelta(seconds=5)  # between two looks at the moderator's held mails, on the service's clock:
# what the moderator gets then depends on the time the mails carry, never on how fast this machine got through them


def merge(total: SendReport, more: SendReport) -> None:
    total.sent += more.sent
    total.retry += more.retry
    total.failed += more.failed


class OutboxRelay:
    def __init__(self, engine: Engine, mail: MailConfig, *, clock: Callable[[], datetime],
                 log: Callable[[str], None] | None = None, interval: float = 60.0, idle: float = 10.0,
                 parallel: int = 1, failed: Callable[[list[int]], None] = lambda ids: None, owner: str = "") -> None:
        self.engine = engine
        self.mail = mail
        self.clock = clock
        self.log = Say.of(__name__, log)
        self.interval = interval
        self.idle = idle
        self.parallel = parallel
        self.owner = owner
        self.failed = failed  # told of the mails that failed for good, after each round
        self._runner: asyncio.Runner | None = None
        self._connections: list[SmtpConnection] = []
        self._thread: threading.Thread | None = None
        self._changed = threading.Condition()
        self._asked = 0  # wake() calls so far
        self._served = 0  # the wake() calls that a completed round had seen when it began
        self._stopping = False
        self._report = SendReport()  # what the thread sent since the last take_report()
        self._release_after: datetime | None = None  # when the moderator's held mails are looked at again
        # (services.mail_out.moderator_mail); None: at the next round

    @property
    def running(self) -> bool:
        return self._thread is not None

    @property
    def connected(self) -> bool:
        """Whether an SMTP connection is open."""
        return any(connection.connected for connection in self._connections)

    # ------------------------------------------------------------------ in the caller's thread

    def send_now(self, *, moderator: bool = False) -> SendReport:
        """Send every due mail, in this thread; with ``moderator``, let the moderator's held mails go first
        whenever they were last looked at (else at most every RELEASE_EVERY seconds)."""
        assert not self.running, "the relay's thread sends; wake() it instead"
        if moderator:
            self._release_after = None
        return self._send()

    def close(self) -> None:
        """Close the SMTP connection (it opens again when there is mail to send)."""
        runner, connections, self._runner, self._connections = self._runner, self._connections, None, []
        if runner is not None:
            try:
                for connection in connections:
                    runner.run(connection.close())
            finally:
                runner.close()

    # ------------------------------------------------------------------ the thread

    def start(self) -> None:
        self._stopping = False
        self._thread = threading.Thread(target=self._serve, name="pbem-outbox", daemon=True)
        self._thread.start()
        self.wake()  # mail queued while no worker ran (by the moderator's CLI, say) goes out now

    def wake(self) -> None:
        """There is new mail in the outbox."""
        with self._changed:
            self._asked += 1
            self._changed.notify_all()

    def drain(self, timeout: float | None = None) -> bool:
        """Wait until a round that began after this call has sent what was due; False on timeout."""
        with self._changed:
            self._asked += 1
            wanted = self._asked
            self._changed.notify_all()
            return self._changed.wait_for(lambda: self._served >= wanted or self._thread is None, timeout)

    def take_report(self) -> SendReport:
        with self._changed:
            report, self._report = self._report, SendReport()
        return report

    def stop(self, timeout: float = 60.0) -> None:
        """Send what is due, then end the thread."""
        if self._thread is None:
            return
        self.drain(timeout)
        with self._changed:
            self._stopping = True
            self._changed.notify_all()
        self._thread.join(timeout)
        self._thread = None

    def _serve(self) -> None:
        last_mail = time.monotonic()
        try:
            while True:
                with self._changed:
                    self._changed.wait_for(lambda: self._asked > self._served or self._stopping,
                                           min(self.interval, self.idle) if self._connections else self.interval)
                    if self._stopping:
                        return
                    began = self._asked
                try:
                    report = self._send()
                except Exception:  # the database or a bug: say so, and try again on the next round
                    self.log.error("sending the outbox failed:\n" + traceback.format_exc(limit=5))
                    report = SendReport()
                    time.sleep(1.0)
                if report.sent or report.retry or report.failed:
                    last_mail = time.monotonic()
                elif time.monotonic() - last_mail > self.idle:
                    self.close()  # no connection held open while nothing happens
                with self._changed:
                    merge(self._report, report)
                    self._served = max(self._served, began)
                    self._changed.notify_all()
        finally:
            self.close()

    # ------------------------------------------------------------------ sending

    def _send(self) -> SendReport:
        report = self._send_round()
        if report.failed:
            self.failed(report.failed)
        return report

    def _send_round(self) -> SendReport:
        # The moderator's held mails first: those the hour has room for go out in this round. Looked at every few
        # seconds, not in every round (a round follows each mail the worker reads): notices are not that urgent.
        now = self.clock()
        if self._release_after is None or now >= self._release_after:
            release_to_moderator(self.engine, now, self.mail.game_address.rpartition("@")[2] or "pbem.invalid")
            self._release_after = now + RELEASE_EVERY
        if self._runner is None:
            self._runner = asyncio.Runner()
            # send_now() keeps one connection, so a --once pass stays one sequence of steps.
            count = self.parallel if self.running else 1
            self._connections = [SmtpConnection(self.mail.smtp) for _ in range(count)]
        return self._runner.run(send_pending(self.engine, self.mail.smtp, self.mail.game_address,
                                             sender_name=self.mail.sender_name, clock=self.clock,
                                             connections=self._connections, owner=self.owner))
