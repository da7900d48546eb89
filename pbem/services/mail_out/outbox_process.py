"""The long-running worker's outbox relay, in a process of its own.

Python runs one thread at a time, and sending a player's mail (building it,
flattening it, the SMTP exchange, marking it sent) costs about as much CPU as
applying the mail that caused it. A relay thread beside the worker's would
take turns with it; a process of its own sends while the worker applies the
next mail, on the machine's other core. That is Mailman's design too: its
incoming and outgoing runners are separate processes that share only the
database.

``OutboxProcess`` is the worker's side: ``start()``, ``wake()`` after each
committed mail, ``take_report()`` for the log, ``stop()`` (the relay sends
what is due, then ends). The process is started with ``spawn`` (no copy of
the worker's connections) and opens its own database engine; it claims the
outbox rows in the worker's name (``owner``), so the worker's claims and the
process's are one worker's for ``pbem status`` and for the other workers. A
process that dies is started again at the next ``wake()``; one whose worker
is gone ends by itself.
"""

from __future__ import annotations

import ctypes
import ctypes.util
import multiprocessing
import os
import signal
import time
import traceback
from datetime import datetime
from typing import Any, Callable

from sqlalchemy import Engine

from ...adapters.outbox_sender import SendReport
from ...config import MailConfig
from ...logs import LogSettings, Say, active, configure
from ...store.models import utcnow
from ...words import plural
from ..common.ledger import MailLedger
from .relay import OutboxRelay, merge

PARENT_CHECK = 5.0  # seconds: how often an idle relay process looks whether its worker still runs


def tell_moderator_of_failures(engine: Engine, mail: MailConfig, ledger: MailLedger, clock: Callable[[], datetime],
                               failed: list[int]) -> None:
    """Mails that could not be sent, ever: the moderator is told (unless it was a mail to the moderator)."""
    if not mail.moderator or not failed:
        return
    from . import notices  # only when a mail failed for good: the sending process starts without the renderers
    from .outbox import OutboxService

    outbox = OutboxService(engine)
    lost = [m for m in map(outbox.show, failed) if m.recipient != mail.moderator]
    if lost:
        ledger.queue_mail(None, "", "", also=[notices.to_moderator(
            mail.moderator, f"{plural(len(lost), 'mail')} could not be sent",
            [f"#{m.id} to {m.recipient}: {m.subject} -- {m.last_error}" for m in lost]
            + ["", "pbem outbox list --status failed shows them; pbem outbox retry queues them again."],
            ledger.new_message_id, clock())])


def shareable(engine: Engine) -> bool:
    """Whether another process can open the database ``engine`` opens (an in-memory SQLite cannot)."""
    database = engine.url.database or ""
    return not (engine.dialect.name == "sqlite" and (database in ("", ":memory:") or "mode=memory" in database))


class OutboxProcess:
    def __init__(self, engine: Engine, mail: MailConfig, *, owner: str, mail_domain: str,
                 log: Callable[[str], None] | None = None, interval: float = 60.0, idle: float = 10.0) -> None:
        """The process logs as this one does (pbem.logs.configure, with the settings this one's ran with); ``log``
        (a test's), when given, must be a module-level function: the process gets it by name."""
        self.url = engine.url.render_as_string(hide_password=False)
        self.mail = mail
        self.owner = owner
        self.mail_domain = mail_domain
        self.log = Say.of(__name__, log)
        self.also = self.log.also
        self.interval = interval
        self.idle = idle
        self._context = multiprocessing.get_context("spawn")
        self._process: Any = None
        self._pipe: Any = None  # our end: WAKE and STOP go down it, the process's SendReports come up
        self._report = SendReport()

    @property
    def running(self) -> bool:
        return self._process is not None

    def start(self) -> None:
        # A pipe, not Events and a Queue: those need semaphores, and with them a resource-tracker process too.
        self._pipe, theirs = self._context.Pipe()
        self._process = self._context.Process(
            target=serve, name="pbem-outbox", daemon=True,
            args=(self.url, self.mail, self.owner, self.mail_domain, self.also, self.interval, self.idle, theirs,
                  active()))
        self._process.start()
        theirs.close()
        self.wake()  # mail queued while no worker ran (by the moderator's CLI, say) goes out now

    def wake(self) -> None:
        """There is new mail in the outbox."""
        if not self._process.is_alive():
            self._collect()
            self.log.error(f"the outbox process ended (exit code {self._process.exitcode}); starting it again")
            self._pipe.close()
            self.start()
            return
        self._pipe.send_bytes(WAKE)

    def take_report(self) -> SendReport:
        self._collect()
        report, self._report = self._report, SendReport()
        return report

    def stop(self, timeout: float = 60.0) -> None:
        """Send what is due, then end the process."""
        if self._process is None:
            return
        try:
            self._pipe.send_bytes(STOP)
        except OSError:
            pass  # it is gone already
        end = time.monotonic() + timeout
        while self._process.is_alive() and time.monotonic() < end:
            self._collect()  # its reports, read while it finishes: a full pipe would hold it up
            self._process.join(0.05)
        if self._process.is_alive():
            self.log.warning(f"the outbox process did not end within {timeout:g} s; stopping it")
            self._process.kill()  # it ignores SIGTERM (see serve())
            self._process.join(5)
        self._collect()
        self._pipe.close()
        self._process = self._pipe = None

    def _collect(self) -> None:
        try:
            while self._pipe is not None and self._pipe.poll(0):
                merge(self._report, self._pipe.recv())
        except (EOFError, OSError):
            pass  # the process ended: what it had not reported is in the database all the same


WAKE, STOP = b"w", b"s"
PR_SET_PDEATHSIG = 1  # linux/prctl.h


def _die_with_the_worker() -> None:
    """On Linux, the kernel kills this process the moment its worker dies: a killed worker's successor frees
    the outbox rows it held and sends them, and this process must not be sending them too. (Elsewhere the
    process looks every PARENT_CHECK seconds while it waits.)"""
    parent = multiprocessing.parent_process()
    try:
        libc = ctypes.CDLL(ctypes.util.find_library("c") or "libc.so.6", use_errno=True)
        libc.prctl(PR_SET_PDEATHSIG, signal.SIGKILL)
    except (OSError, AttributeError):
        return
    if parent is not None and os.getppid() != parent.pid:
        os._exit(0)  # the worker died before the kernel was asked


def serve(url: str, mail: MailConfig, owner: str, mail_domain: str, also: Callable[[str], None] | None,
          interval: float, idle: float, pipe: Any, settings: LogSettings | None = None) -> None:
    """The relay process: a round of sending whenever woken, at least every ``interval`` seconds (for retries);
    the SMTP connection closes after ``idle`` seconds without mail. Ends after a last round when told to stop,
    or when the worker is gone."""
    from ...store.db import make_engine

    _die_with_the_worker()
    if settings is not None:
        configure(settings)
    log = Say(__name__, also)
    for signum in (signal.SIGINT, signal.SIGTERM):  # Ctrl-C and systemd reach the whole process group: the
        signal.signal(signum, signal.SIG_IGN)      # worker stops this process itself, after a last round
    engine = make_engine(url, create_folder=False, flushed=False)  # a mark lost in a power cut: a mail sent again
    ledger = MailLedger(engine, clock=utcnow, mail_domain=mail_domain)
    relay = OutboxRelay(engine, mail, clock=utcnow, log=log, interval=interval, idle=idle, owner=owner,
                        failed=lambda ids: tell_moderator_of_failures(engine, mail, ledger, utcnow, ids))
    parent = multiprocessing.parent_process()
    last_mail = last_round = time.monotonic()
    try:
        while True:
            woken = pipe.poll(min(PARENT_CHECK, interval))
            stopping = False
            try:
                while pipe.poll(0):  # every wake so far is answered by the one round below
                    stopping |= pipe.recv_bytes() == STOP
            except EOFError:
                stopping = True  # the worker is gone: a last round, then end
            if not woken and parent is not None and not parent.is_alive():
                return  # the worker was killed: its successor sends (and frees this worker's claims)
            if not woken and time.monotonic() - last_round < interval:
                if relay.connected and time.monotonic() - last_mail > idle:
                    relay.close()  # no connection held open while nothing happens
                continue
            last_round = time.monotonic()
            try:
                report = relay.send_now()
            except Exception:  # the database or a bug: say so, and try again on the next round
                log.error("sending the outbox failed:\n" + traceback.format_exc(limit=5))
                report = SendReport()
                time.sleep(1.0)
            if report.sent or report.retry or report.failed:
                last_mail = time.monotonic()
                try:
                    pipe.send(report)
                except OSError:
                    return  # the worker is gone; the rows say what was sent
            if stopping:
                return
    finally:
        relay.close()
        engine.dispose()
