"""The mail worker: one pass reads the game mailbox, answers it, and sends the outbox.

Each mail is processed in its own transaction (its inbound record, the game
change and the mails it causes, together) and moved out of the inbox only after
that commit. A mail whose Message-ID is already recorded was processed before
(the worker stopped between commit and move, or the mail arrived twice): it is
moved and not processed again. Automatic mail (bounces, auto-replies, lists,
our own) is recorded and never answered, so no mail loop can start. A mail the
code fails on is recorded as an error and set aside for the moderator; the
pass goes on. After the mail, the deadlines get their turn (``Timekeeper``:
reminders, timeouts, late notices). The long-running worker sends the outbox
from a process of its own (``OutboxProcess``) while it reads the next mail;
a ``--once`` pass sends it itself, after each mail.
"""

from __future__ import annotations

import socket
import time
from dataclasses import dataclass, field
from datetime import datetime, timedelta
from email.message import EmailMessage
from typing import Callable, NamedTuple

from imapclient.exceptions import IMAPClientError
from sqlalchemy import Engine

from . import crashpoints
from .adapters.imap_inbox import Inbox, MailboxState
from .adapters.outbox_sender import SendReport
from .config import ArchiveConfig, MailConfig, SignupConfig
from .mail.message import is_bounce, ledger_key, sender, subject
from .mail.text import read_message
from .logs import Say
from .words import plural
from .store.db import TRANSIENT_DELAY, TRANSIENT_TRIES, DatabaseUnavailable, is_transient, patiently
from .store.models import InboundMail, OutboxMail, utcnow
from .store.uow import reading
from .services.mail_out import notices
from .services.operations.claims import Instance, MailClaims
from .services.table.service import GameService
from .services.operations.heartbeat import FOREVER, ONCE, ONCE_EVERY, Heartbeat
from .services.common.ledger import MailLedger, error_summary
from .services.mail_in.mail_commands import ANSWERS_AN_HOUR, MailCommands
from .services.mail_in.choices_mail import CHOICES
from .services.mail_in.signup_mail import SIGNUP_CHANGED, SIGNUP_INFO
from .services.mail_in.refusals import RefusalDigest
from .services.mail_out.outbox_process import OutboxProcess, shareable, tell_moderator_of_failures
from .services.mail_out.relay import OutboxRelay, merge
from .services.table.robot_seats import MOST_SECONDS_A_PASS, RobotPlayers
from .services.mail_in.screening import RATE_LIMIT, over_limit, why_ignored
from .services.clock.timekeeper import Timekeeper

# outcomes whose mail goes to the processed folder; the rest to rejected
KEPT = ("applied", "info", CHOICES, "away", "talk", "settings", SIGNUP_CHANGED, SIGNUP_INFO)
CLAIM_BATCH = 20  # mails claimed at once, then processed and moved out of the mailbox in one IMAP command
RECONNECT_ERRORS = (IMAPClientError, OSError, socket.timeout, EOFError, DatabaseUnavailable)
HELD_RECHECK = 5.0  # seconds: how soon a pass that left mails to another worker looks again (a dead one's
# claims are freed by the next pass of a worker on its host, and no new mail may come to start one)
ROBOTS_AFTER_A_MAIL = 2.0  # seconds the robots of a game may decide after a person's mail to it, before the next
# mail is read: a quick robot takes milliseconds, a searching one up to 2 s a decision (docs/robots.md). Seconds of
# this thread's CPU, as every robots' limit (services.table.robot_seats), so a busy machine changes nothing
RENEW_IDLE = 240.0  # seconds: an IDLE is ended and begun again this often (servers drop one after 30 minutes
# at the earliest, RFC 2177), so a long poll interval still looks at the mailbox every few minutes
SET_ASIDE_NOTICES = 10  # notices an hour to the moderator of mails set aside; beyond that they are only recorded


class Processed(NamedTuple):
    """What became of one mail: the folder it goes to, its sender, the outcome, and the game its commands moved."""

    folder: str
    who: str
    outcome: str
    moved: int | None = None  # the game, when the mail's commands were applied


@dataclass
class PassReport:
    processed: list[tuple[int, str, str]] = field(default_factory=list)  # (uid, sender, outcome)
    already_done: list[int] = field(default_factory=list)
    sent: SendReport = field(default_factory=SendReport)
    held_elsewhere: int = 0  # mails left in the mailbox because another worker had claimed them


class MailWorker:
    def __init__(
        self, engine: Engine, mail: MailConfig, *, clock: Callable[[], datetime] = utcnow,
        log: Callable[[str], None] | None = None, mail_domain: str | None = None, rate_limit: int = RATE_LIMIT,
        archive: ArchiveConfig = ArchiveConfig(), signup: SignupConfig = SignupConfig(),
        answers_an_hour: int = ANSWERS_AN_HOUR,
    ) -> None:
        self.engine = engine
        self.mail = mail
        self.clock = clock
        self.log = Say.of(__name__, log)  # the logging module's "pbem.worker" (pbem.logs), and ``log`` if given
        self.rate_limit = rate_limit
        self.games = GameService(engine, clock=clock, mail_domain=mail_domain or mail.game_address.split("@")[-1],
                                 archive=archive)
        self.ledger = MailLedger(engine, clock=clock, mail_domain=self.games.mail_domain)
        self.commands = MailCommands(self.games, ledger=self.ledger, moderator=mail.moderator, signup=signup,
                                     answers_an_hour=answers_an_hour)
        self.instance = Instance.start()
        self.claims = MailClaims(engine, self.instance, clock=clock)
        self.heartbeat = Heartbeat(engine, self.instance, clock=clock, log=log)  # what `pbem status` reads
        self.relay = OutboxRelay(engine, mail, clock=clock, log=log, interval=mail.poll_interval,
                                 failed=lambda ids: tell_moderator_of_failures(engine, mail, self.ledger, clock, ids),
                                 owner=str(self.instance))
        self.sender: OutboxProcess | OutboxRelay | None = None  # what sends while run_forever() reads
        self.refusals = RefusalDigest(self.ledger, moderator=mail.moderator)
        self.robots = RobotPlayers(self.games)
        self.robots_unfinished = False  # the last pass's robots stopped at their limit with decisions still due
        self.timekeeper = Timekeeper(self.games, moderator=mail.moderator,
                                     outage_gap=timedelta(seconds=mail.outage_gap), log=log, signup=signup)

    def run_once(self) -> PassReport:
        """One pass, every step in this thread: each mail is answered before the next is read."""
        report = PassReport()
        self.heartbeat.start(ONCE, max(self.mail.poll_interval, ONCE_EVERY))  # a timer runs it again
        try:
            with Inbox(self.mail.imap) as inbox:
                self.read_inbox(inbox, report)
            self.robots_and_deadlines()
            merge(report.sent, self.relay.send_now(moderator=True))
            self.keep_archive()
            self.heartbeat.beat(stopped=True)
        except Exception as exc:  # pbem status tells why, until a pass of the timer works again
            self.heartbeat.beat(stopped=True, trouble=f"the pass failed ({type(exc).__name__}: {exc})")
            raise
        finally:
            self.relay.close()
        return report

    def run_forever(self, stop: Callable[[], bool], *, renew: float = RENEW_IDLE) -> None:
        """Serve the mailbox until ``stop()``: IDLE between passes (renewed every few minutes), reconnecting
        with backoff when the server or the connection fails. The current mail is always finished.

        The outbox relay's process sends meanwhile: what a mail caused goes out while the next one is read
        (a thread of this process instead, for a database no other process can open). ``log`` must then be
        a module-level function: the process gets it by name."""
        self.heartbeat.start(FOREVER, min(self.mail.poll_interval, renew))
        self.sender = OutboxProcess(self.engine, self.mail, owner=str(self.instance), mail_domain=self.games.mail_domain,
                                    log=self.log, interval=self.mail.poll_interval) \
            if shareable(self.engine) else self.relay
        self.sender.start()
        try:
            self._serve(stop, renew)
        finally:
            self.sender.stop()
            self._log_sent(self.sender.take_report())
            self.sender = None
            self._last_beat()

    def _last_beat(self) -> None:
        """Write that this worker stopped. A database that keeps failing meanwhile does not make a clean stop a
        failure: the beat is only missing, and ``pbem status`` reads the worker as silent, then gone."""
        try:
            patiently(lambda: self.heartbeat.beat(stopped=True), what="the last heartbeat", log=self.log.warning)
        except Exception as exc:
            if not is_transient(exc):
                raise
            self.log.warning(f"the last heartbeat was not written: the database failed ({type(exc).__name__})")

    def _serve(self, stop: Callable[[], bool], renew: float) -> None:
        delay = 1.0
        while not stop():
            try:
                with Inbox(self.mail.imap) as inbox:
                    self.log(f"connected to {self.mail.imap.host}:{self.mail.imap.port}, watching {self.mail.mailbox}")
                    delay = 1.0
                    while not stop():
                        report = PassReport()
                        self.read_inbox(inbox, report, stop)
                        if self.robots_and_deadlines():
                            self.sender.wake()  # type: ignore[union-attr]  # set by run_forever()
                        self._log_sent(self.sender.take_report())  # type: ignore[union-attr]
                        self.keep_archive()
                        self.heartbeat.beat()
                        if report.processed or self.robots_unfinished:
                            # Mail that came during the pass was announced then, not to the IDLE to come; robots
                            # that stopped at a pass's limit go on after a look at the mailbox.
                            continue
                        soon = HELD_RECHECK if report.held_elsewhere else self.mail.poll_interval
                        inbox.wait(min(self.mail.poll_interval, renew, soon), stop)
            except Exception as exc:
                if not isinstance(exc, RECONNECT_ERRORS) and not is_transient(exc):
                    raise  # a failure of the service itself: let the supervisor see it
                database = isinstance(exc, DatabaseUnavailable) or is_transient(exc)
                what = "the database failed" if database else "mail server connection lost"
                # A server that drops an IDLE connection is routine (a warning); a database that fails is not.
                (self.log.error if database else self.log.warning)(
                    f"{what} ({type(exc).__name__}: {exc}); reconnecting in {delay:.0f} s")
                trouble = f"{what} ({type(exc).__name__}: {exc})"
                self.heartbeat.beat(trouble=trouble)
                end = time.monotonic() + delay
                beat_at = time.monotonic() + self.heartbeat.interval
                while time.monotonic() < end and not stop():
                    time.sleep(0.2)
                    if time.monotonic() >= beat_at:  # waiting, not hung: pbem status tells the two apart
                        self.heartbeat.beat(trouble=trouble)
                        beat_at = time.monotonic() + self.heartbeat.interval
                delay = min(delay * 2, 300.0)

    def robots_and_deadlines(self) -> bool:
        """After the mail: the robots whose decision is due play (before the deadlines, so a robot is never
        late), then the deadlines' turn, then the robots again if it changed anything (a robot may have taken a
        late player's seat, on-timeout=robot). True if anything was queued."""
        moved, timed = self.let_robots_play(), self.keep_time()
        if timed:
            moved |= self.let_robots_play()
        return moved or timed

    def let_robots_play(self, game_ids: list[int] | None = None, seconds: float = MOST_SECONDS_A_PASS) -> bool:
        """The robots' turn: every robot seat whose decision is due plays it (services.table.robot_seats), in
        ``game_ids`` (default: every game where one must decide, found by index), so a person's move and the
        robots' answers to it go out in one pass, for at most ``seconds``. True if any robot moved."""
        moved = self.robots.play_due(game_ids, seconds=seconds)
        for line in moved.lines():
            self.log(line)
        for line in self.robots.tell_moderator(moved.failed, self.mail.moderator):
            self.log.warning(line)
        self.robots_unfinished = moved.more
        return bool(moved.moves)

    def keep_time(self) -> bool:
        """The deadlines' turn (reminders, timeouts, late notices), and the digests of refused mail; True if it
        queued anything."""
        said = self.timekeeper.check().lines() + [f"refused mail told to {to}" for to in self.refusals.tell()]
        for line in said:
            self.log(line)
        return bool(said)

    def keep_archive(self) -> None:
        """The archive's web site brought up to date with this pass (``[archive] dir``): the pages of the games
        that changed. A failure is logged and the mail goes on: the next pass tries again."""
        folder = self.games.archive.folder
        if folder is None:
            return
        # The site shows only what a power cut cannot take back: a step once drawn is never drawn again, and a
        # mail whose lost outcome is read again may move its game otherwise (docs/architecture.md, "Power cuts").
        if not self.heartbeat.beat(flushed=True):
            return  # the database failed (the heartbeat said so): the next pass tries again
        from .archive.site import build  # the site's templates load only for a worker that keeps one

        try:
            built = build(self.engine, folder)
        except Exception as exc:  # noqa: BLE001 - the archive must never stop the games
            self.log.error(f"the archive at {folder} was not updated ({type(exc).__name__}: {exc})")
            return
        if built.pages:
            self.log(f"archive: {plural(built.pages, 'page')} written, {plural(built.steps, 'step')} drawn")

    def _log_sent(self, sent: SendReport) -> None:
        if sent.sent or sent.failed:
            (self.log.warning if sent.failed else self.log.info)(
                f"sent {plural(len(sent.sent), 'mail')}, {len(sent.retry)} to retry, {len(sent.failed)} failed",
                sent=len(sent.sent), retry=len(sent.retry), failed=len(sent.failed))

    def read_inbox(self, inbox: Inbox, report: PassReport, stop: Callable[[], bool] = lambda: False) -> None:
        """Process every mail in the mailbox, each in its own transaction. Mails are claimed CLAIM_BATCH at a
        time (another worker's are left to it), processed, and moved out together (one MOVE per folder), always
        after their commits; then their claims go."""
        for folder in (self.mail.processed_folder, self.mail.rejected_folder):
            inbox.ensure_folder(folder)
        box = inbox.open(self.mail.mailbox)
        self.heartbeat.pass_started(len(box.uids), inbox.arrived(box.uids[0]) if box.uids else None)
        dead = self.claims.free_the_dead()
        if dead:
            self.log.warning(f"freed the mails and the outbox of {plural(len(dead), 'stopped worker')}: "
                             f"{', '.join(dead)}")
        last = self.ledger.last_uid(box.name, box.uidvalidity)
        for start in range(0, len(box.uids), CLAIM_BATCH):
            if stop():
                break  # what is left waits for the next start; the current mail was finished
            batch = box.uids[start:start + CLAIM_BATCH]
            mine = self.claims.claim(box.name, box.uidvalidity, batch)
            report.held_elsewhere += len(batch) - len(mine)
            committed: dict[str, list[int]] = {}  # folder -> mails whose outcome is committed, still in the mailbox
            try:
                for uid in mine:
                    if stop():
                        break
                    self._read_one(inbox, box, uid, last, committed, report)
                # The outcomes reach the disk before the mails leave the mailbox: the worker's commits are not
                # flushed one by one (store.db.make_engine; docs/architecture.md, "Power cuts").
                still_mine = set(self.claims.renew(box.name, box.uidvalidity,
                                                   [uid for uids in committed.values() for uid in uids]))
                if committed:
                    crashpoints.reached("outcomes flushed, mails not moved")
                for folder, uids in committed.items():
                    moving = [uid for uid in uids if uid in still_mine]  # a claim taken over: its holder moves it
                    if moving:
                        inbox.move(moving, folder)
                        crashpoints.reached("mails moved")
            except BaseException:
                try:  # another worker may file what was committed; this one's failure goes on up
                    self.claims.release(box.name, box.uidvalidity, mine)
                except Exception:
                    pass
                raise
            self.claims.release(box.name, box.uidvalidity, mine)
            self.heartbeat.beat(busy=True)  # a long pass: a beat an interval
        self.heartbeat.pass_ended(*inbox.backlog())

    def _read_one(self, inbox: Inbox, box: MailboxState, uid: int, last: int, committed: dict[str, list[int]],
                  report: PassReport) -> None:
        if uid <= last:
            # Seen before under this UIDVALIDITY: processed, but the move did not happen.
            key = ledger_key(read_message(inbox.headers(uid)), f"{box.name} {box.uidvalidity} {uid}")
            recorded = self.ledger.outcome(key)
            if recorded is not None:
                committed.setdefault(self.folder_for(recorded), []).append(uid)
                report.already_done.append(uid)
                return
        raw = inbox.fetch(uid)
        if raw is None:
            return  # gone: another worker filed it before we claimed it
        crashpoints.reached("mail fetched")
        folder, who, outcome, moved = self.process(raw, box.name, box.uidvalidity, uid)
        crashpoints.reached("mail committed, not moved")
        if outcome == "already processed":
            report.already_done.append(uid)
        else:
            report.processed.append((uid, who, outcome))
        committed.setdefault(folder, []).append(uid)
        self.log(f"mail {uid} from {who or '(no sender)'}: {outcome}", uid=uid, sender=who, outcome=outcome)
        if moved is not None:
            # The robots answer before this mail is: its answer and theirs go out as one mail (services.mail_out.mail_folding).
            # For a short while only: the next mails of the pass (other games') wait for them; what is left of
            # their decisions is played after the mail.
            self.let_robots_play([moved], seconds=ROBOTS_AFTER_A_MAIL)
        if self.sender is not None:
            self.sender.wake()  # it sends the answers while we read the next mail
        else:
            merge(report.sent, self.relay.send_now())  # answer this mail before reading the next

    def process(self, raw: bytes, mailbox: str, uidvalidity: int, uid: int) -> Processed:
        """Process one mail in one transaction; returns (folder, sender, outcome).

        Whatever goes wrong with this mail is this mail's failure alone (Mailman's shunt): its transaction
        is rolled back, it is recorded as an error and set aside for the moderator, and the pass goes on. A
        database that fails under it (a dropped connection, a restart) is not the mail's fault: the mail is
        tried again, and when the database keeps failing the pass stops with ``DatabaseUnavailable``,
        leaving the mail unrecorded in the mailbox for the next pass."""
        msg = read_message(raw)
        key = ledger_key(msg, f"{mailbox} {uidvalidity} {uid}")
        who = sender(msg) or ""
        delay = TRANSIENT_DELAY
        for attempt in range(1, TRANSIENT_TRIES + 1):
            try:
                return self._process(msg, raw, key, who, mailbox, uidvalidity, uid)
            except Exception as exc:
                if not is_transient(exc):
                    recorded = self._recorded(key)
                    if recorded is not None:  # another worker recorded the same mail (a copy) first
                        return Processed(self.folder_for(recorded), who, "already processed")
                    return self._set_aside(msg, key, who, mailbox, uidvalidity, uid, exc)
                if attempt == TRANSIENT_TRIES:
                    raise DatabaseUnavailable(f"the database kept failing while mail {uid} was processed: "
                                              f"{error_summary(exc).splitlines()[0]}") from exc
                self.log.warning(f"mail {uid}: the database failed ({type(exc).__name__}); trying it again in "
                                 f"{delay:g} s", uid=uid)
                time.sleep(delay)
                delay *= 4
        raise AssertionError("unreachable: the last try returns or raises")

    def _process(self, msg: EmailMessage, raw: bytes, key: str, who: str, mailbox: str, uidvalidity: int,
                 uid: int) -> Processed:
        with reading(self.engine):  # the lookups before the mail's one write share a transaction
            return self._handle_mail(msg, raw, key, who, mailbox, uidvalidity, uid)

    def _handle_mail(self, msg: EmailMessage, raw: bytes, key: str, who: str, mailbox: str, uidvalidity: int,
                     uid: int) -> Processed:
        recorded = self.ledger.outcome(key)
        if recorded is not None:  # a second copy, or the worker stopped between the commit and the move
            return Processed(self.folder_for(recorded), who, "already processed")
        inbound = InboundMail(message_id=key, mailbox=mailbox, uidvalidity=uidvalidity, uid=uid, sender=who,
                              received_at=self.clock())
        reason = why_ignored(msg, ledger=self.ledger, game_address=self.mail.game_address, rate_limit=self.rate_limit)
        if reason:
            inbound.outcome, inbound.reason = "ignored", reason
            self.ledger.queue_mail(None, "", "", inbound=inbound, also=self._bounce_notice(msg, reason, who, key))
            return Processed(self.mail.rejected_folder, who, f"ignored ({reason})")
        limit = over_limit(msg, ledger=self.ledger, moderator=self.mail.moderator, rate_limit=self.rate_limit)
        result = self.commands.handle(raw, inbound=inbound, parsed=msg, over_limit=limit)
        outcome = f"ignored ({limit})" if limit and result.outcome == "ignored" else result.outcome
        return Processed(self.folder_for(result.outcome), who, outcome,
                         result.game_id if result.outcome == "applied" else None)

    def _recorded(self, key: str) -> str | None:
        try:
            return self.ledger.outcome(key)
        except Exception:
            return None

    def _set_aside(self, msg: EmailMessage, key: str, who: str, mailbox: str, uidvalidity: int, uid: int,
                   exc: Exception) -> Processed:
        """Record the mail as an error, tell the moderator (and the sender, when a player) once, and send it to
        the rejected folder. The record holds only values already cut to their columns, so it cannot fail the
        way the mail did; if it fails all the same, the mail is still set aside, never tried again in a loop."""
        summary = error_summary(exc)
        first = summary.splitlines()[0]
        # The frames go to the log, for whoever fixes it; the row keeps the one line (a reason is no traceback).
        self.log.error(f"mail {uid} from {who or '(no sender)'}: set aside: {summary}", uid=uid, sender=who,
                       outcome="error")
        try:
            if self.ledger.outcome(key) is None:  # the failure may have come after the mail's own commit
                inbound = InboundMail(message_id=key, mailbox=mailbox, uidvalidity=uidvalidity, uid=uid, sender=who,
                                      outcome="error", reason=first, received_at=self.clock())
                self.ledger.queue_mail(None, "", "", inbound=inbound, also=self._set_aside_notices(msg, key, who, summary))
        except Exception as again:
            if is_transient(again):
                raise DatabaseUnavailable(f"the database failed while mail {uid} was set aside") from again
            self.log.error(f"mail {uid}: its failure could not be recorded either ({error_summary(again).splitlines()[0]})")
        return Processed(self.mail.rejected_folder, who, "error (set aside for the moderator)")

    def _set_aside_notices(self, msg: EmailMessage, key: str, who: str, summary: str) -> list[OutboxMail]:
        now = self.clock()
        mails = []
        if self.mail.moderator and self.ledger.errors_since(now - timedelta(hours=1)) < SET_ASIDE_NOTICES:
            mails.append(notices.to_moderator(self.mail.moderator, f"a mail from {who or 'an unknown sender'} was set aside", [
                f"A mail could not be processed and nothing in it was applied. From: {who or '(none we can read)'}; "
                f"Subject: {subject(msg)}; recorded as {key}.",
                f"What went wrong: {summary.splitlines()[0]}",
                "",
                f"It is in the {self.mail.rejected_folder} folder and will not be tried again. Save it and run "
                "pbem mail explain FILE to see what pbem makes of it. (At most "
                f"{SET_ASIDE_NOTICES} of these notices an hour; the rest are only recorded.)"], self.ledger.new_message_id, now))
        if who and who != self.mail.moderator and self.games.games_of(who):
            mails.append(notices.plain_mail(who, "your mail could not be processed", [
                f"Your mail (Subject: {subject(msg) or '(none)'}) could not be processed because of an error on our "
                "side. Nothing in it was applied.",
                "The moderator has been told. Please wait for the moderator's word before sending it again."],
                self.ledger.new_message_id, now))
        return mails

    def _bounce_notice(self, msg: EmailMessage, reason: str, who: str, mid: str) -> list[OutboxMail]:
        """A bounce means a player's address fails: the moderator is told (other automatic mail is only recorded)."""
        if not self.mail.moderator or not is_bounce(reason):
            return []
        return [notices.to_moderator(self.mail.moderator, f"a bounce from {who or 'an unknown sender'}", [
            f"A delivery report came back ({reason}): Subject: {subject(msg)}; From: {who}; Message-ID: {mid}.",
            "It is in the pbem-rejected folder. A player's address may have stopped working: pbem outbox list "
            "--status failed, and pbem game replace-player if so."], self.ledger.new_message_id, self.clock())]

    def folder_for(self, outcome: str) -> str:
        """Where a mail goes once its outcome is committed: answered mail to the processed folder, the rest
        (refused, ignored, set aside) to the rejected one."""
        return self.mail.processed_folder if outcome in KEPT else self.mail.rejected_folder
