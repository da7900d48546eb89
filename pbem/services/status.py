"""Is the worker alive and keeping up? What `pbem status` reports, read from the database alone.

Nothing here connects to IMAP or SMTP: what the mailbox holds is what the worker last saw there (the figures
its heartbeat carries, services.heartbeat). One read transaction gathers

- the workers: their heartbeats, each one running, silent, stopped or (``--once``) finished;
- the mailbox as last seen: when it was read, the mails in it and when the oldest arrived;
- the outbox: mails queued, failed, and how long the oldest one has waited;
- the decisions past their deadline: all of them, and those the worker has not dealt with yet;
- the schema: the revision in ``alembic_version`` (one plain query; Alembic itself is not loaded), against
  the newest migration shipped.

and a problem, one line each, for every reason the system is not healthy: no worker heartbeat within three of
its intervals, a failed mail, a mailbox backlog or an unhandled deadline older than ``max_backlog``, a queued
mail older than ``max_outbox_wait``, a schema that is not the newest.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from datetime import datetime, timedelta
from typing import Any, Callable

from sqlalchemy import Engine, func, select
from sqlalchemy.exc import DBAPIError

from ..store.models import DecisionClock, Game, GameStatus, OutboxMail, OutboxStatus, WorkerHeartbeat, utcnow
from ..store.uow import UnitOfWork
from ..timespans import format_duration
from ..words import plural
from .claims import is_gone
from .deadlines import aware
from .heartbeat import ONCE

BEATS_MISSED = 3  # a worker without a beat for this many of its intervals is not running
LONG_SILENT = timedelta(hours=1)  # ... and one silent this long (and ten intervals) is shown as stopped
MAX_BACKLOG = timedelta(minutes=15)
MAX_OUTBOX_WAIT = timedelta(minutes=15)
WAITING = (OutboxStatus.QUEUED, OutboxStatus.SENDING)

RUNNING, SILENT, STOPPED, FINISHED = "running", "silent", "stopped", "finished"


@dataclass
class WorkerState:
    host: str
    pid: int
    token: str
    mode: str  # "worker" or "once"
    state: str  # running, silent, stopped, finished (a --once pass that ended)
    why: str  # the state in words: "stopped at ...", "its process is gone", ...
    started_at: datetime
    beat_at: datetime
    interval: float  # seconds between beats, at most
    stopped_at: datetime | None
    trouble: str
    age: float  # seconds since the last beat

    @property
    def name(self) -> str:
        return f"{self.host} pid {self.pid}"

    @property
    def fresh(self) -> bool:
        """Its last beat is within BEATS_MISSED intervals, and it is still at work (a --once run: its timer)."""
        return self.age <= BEATS_MISSED * self.interval and (self.state == RUNNING or (
            self.mode == ONCE and self.state == FINISHED))


@dataclass
class MailboxState:
    worker: str  # who read it
    read_at: datetime  # when its last pass opened the mailbox
    found: int  # mails in it then
    found_oldest: datetime | None
    ended_at: datetime | None  # when that pass ended; None while it runs
    left: int | None  # mails in it then
    left_oldest: datetime | None

    @property
    def waiting(self) -> int:
        return self.found if self.left is None else self.left

    @property
    def oldest(self) -> datetime | None:
        return self.found_oldest if self.left is None else self.left_oldest


@dataclass
class OutboxState:
    queued: int = 0  # queued or being sent
    failed: int = 0
    oldest_id: int | None = None  # the mail waiting longest
    oldest_at: datetime | None = None
    oldest_attempts: int = 0
    oldest_error: str = ""


@dataclass
class DeadlineState:
    past: int = 0  # open decisions whose deadline has passed (the moderator told or not)
    oldest_due: datetime | None = None
    oldest_game: int | None = None
    unhandled: int = 0  # ... of them, those the worker has not dealt with yet
    unhandled_due: datetime | None = None
    unhandled_game: int | None = None


@dataclass
class SchemaState:
    revision: str | None  # None: not initialised
    head: str | None  # the newest migration shipped; None when it cannot be told
    known: bool  # whether this pbem has a migration of that revision

    @property
    def current(self) -> bool:
        return self.revision is not None and self.revision == self.head


@dataclass
class Status:
    checked_at: datetime
    schema: SchemaState
    workers: list[WorkerState] | None  # None: the schema has no heartbeats yet
    mailbox: MailboxState | None  # None: no worker has told of it
    outbox: OutboxState | None
    deadlines: DeadlineState | None
    max_backlog: timedelta
    max_outbox_wait: timedelta
    problems: list[str] = field(default_factory=list)

    @property
    def healthy(self) -> bool:
        return not self.problems

    def to_dict(self) -> dict[str, Any]:
        """Every figure, for ``--json``: moments in ISO 8601 (UTC), lengths of time in seconds."""
        now = self.checked_at
        m, o, d = self.mailbox, self.outbox, self.deadlines
        return {
            "healthy": self.healthy,
            "problems": self.problems,
            "checked_at": _iso(now),
            "thresholds": {"max_backlog_seconds": self.max_backlog.total_seconds(),
                           "max_outbox_wait_seconds": self.max_outbox_wait.total_seconds(),
                           "beats_missed": BEATS_MISSED},
            "schema": {"revision": self.schema.revision, "head": self.schema.head, "current": self.schema.current},
            "workers": None if self.workers is None else [
                {"host": w.host, "pid": w.pid, "token": w.token, "mode": w.mode, "state": w.state, "why": w.why,
                 "started_at": _iso(w.started_at), "beat_at": _iso(w.beat_at), "beat_age_seconds": round(w.age, 1),
                 "interval_seconds": w.interval, "stopped_at": _iso(w.stopped_at), "trouble": w.trouble}
                for w in self.workers],
            "mailbox": None if m is None else {
                "read_by": m.worker, "read_at": _iso(m.read_at), "pass_running": m.ended_at is None,
                "found": m.found, "found_oldest": _iso(m.found_oldest), "pass_ended_at": _iso(m.ended_at),
                "left": m.left, "left_oldest": _iso(m.left_oldest), "waiting": m.waiting, "oldest": _iso(m.oldest),
                "backlog_seconds": _age(now, m.oldest)},
            "outbox": None if o is None else {
                "queued": o.queued, "failed": o.failed, "oldest_waiting_id": o.oldest_id,
                "oldest_waiting_at": _iso(o.oldest_at), "oldest_waiting_seconds": _age(now, o.oldest_at),
                "oldest_waiting_attempts": o.oldest_attempts, "oldest_waiting_error": o.oldest_error},
            "deadlines": None if d is None else {
                "past": d.past, "oldest_due": _iso(d.oldest_due), "oldest_game": d.oldest_game,
                "unhandled": d.unhandled, "unhandled_oldest_due": _iso(d.unhandled_due),
                "unhandled_oldest_game": d.unhandled_game},
        }


def _iso(moment: datetime | None) -> str | None:
    return moment.isoformat() if moment else None


def _age(now: datetime, moment: datetime | None) -> float | None:
    return None if moment is None else round(max(0.0, (now - moment).total_seconds()), 1)


def _maybe(moment: datetime | None) -> datetime | None:
    return aware(moment) if moment is not None else None


def ago(seconds: float) -> str:
    """'12 s', '3 minutes', '2 hours': how long ago, for people."""
    return f"{int(seconds)} s" if seconds < 90 else format_duration(seconds)


def every(seconds: float) -> str:
    return f"{seconds:g} s" if seconds < 90 else format_duration(seconds)


# --------------------------------------------------------------------------- the schema, without Alembic


def _missing_table(exc: DBAPIError) -> bool:
    orig = exc.orig
    return getattr(orig, "sqlstate", None) == "42P01" or "no such table" in str(orig).lower()


def read_schema(engine: Engine) -> SchemaState:
    """The database's revision (one query of ``alembic_version``) against the newest migration shipped (read
    from the migration files' names, as every command's schema check does)."""
    from ..store.db import shipped_revisions, stored_revision

    revision, shipped = stored_revision(engine), shipped_revisions()
    return SchemaState(revision, shipped[-1] if shipped else None, revision in shipped)


# --------------------------------------------------------------------------- the read


class StatusService:
    def __init__(self, engine: Engine, *, clock: Callable[[], datetime] = utcnow) -> None:
        self.engine = engine
        self.clock = clock

    def read(self, *, max_backlog: timedelta = MAX_BACKLOG, max_outbox_wait: timedelta = MAX_OUTBOX_WAIT) -> Status:
        schema = read_schema(self.engine)
        now = aware(self.clock())
        sections: list[Callable[[Any, datetime], Any]] = [self._workers, self._outbox, self._deadlines]
        if schema.current:
            with UnitOfWork(self.engine) as uow:  # one transaction: the figures of one moment
                workers, outbox, deadlines = (section(uow.session, now) for section in sections)
        else:  # an older (or newer) schema may lack a table: each part alone, and what cannot be read is unknown
            workers, outbox, deadlines = (self._tolerant(section, now) for section in sections)
        status = Status(now, schema, None if workers is None else workers[0],
                        None if workers is None else workers[1], outbox, deadlines, max_backlog, max_outbox_wait)
        status.problems = problems(status)
        return status

    def _tolerant(self, section: Callable[[Any, datetime], Any], now: datetime) -> Any:
        try:
            with UnitOfWork(self.engine) as uow:
                return section(uow.session, now)
        except DBAPIError as exc:
            if not _missing_table(exc):
                raise
            return None

    # ------------------------------------------------------------------ sections

    def _workers(self, s: Any, now: datetime) -> tuple[list[WorkerState], MailboxState | None]:
        rows = s.execute(select(WorkerHeartbeat.__table__)).all()  # type: ignore[attr-defined]
        workers = sorted((_worker(row, now) for row in rows), key=lambda w: w.beat_at, reverse=True)
        read = [row for row in rows if row.mailbox_read_at is not None]
        mailbox = None
        if read:
            row = max(read, key=lambda r: aware(r.mailbox_read_at))
            ended = _maybe(row.pass_ended_at)
            mailbox = MailboxState(f"{row.host} pid {row.pid}", aware(row.mailbox_read_at), row.mail_found or 0,
                                   _maybe(row.mail_found_oldest), ended, row.mail_left if ended else None,
                                   _maybe(row.mail_left_oldest) if ended else None)
        return workers, mailbox

    def _outbox(self, s: Any, now: datetime) -> OutboxState:
        found = OutboxState()
        counts = s.execute(select(OutboxMail.status, func.count()).where(  # type: ignore[call-overload]
            OutboxMail.status.in_((*WAITING, OutboxStatus.FAILED))).group_by(OutboxMail.status)).all()
        for status, count in counts:
            if status == OutboxStatus.FAILED:
                found.failed += count
            else:
                found.queued += count
        if found.queued:
            first = select(OutboxMail.id, OutboxMail.created_at, OutboxMail.attempts, OutboxMail.last_error)
            oldest = s.execute(first.where(OutboxMail.status.in_(WAITING))  # type: ignore[attr-defined]
                               .order_by(OutboxMail.created_at, OutboxMail.id).limit(1)).first()
            found.oldest_id, found.oldest_at = oldest.id, aware(oldest.created_at)
            found.oldest_attempts, found.oldest_error = oldest.attempts, oldest.last_error or ""
        return found

    def _deadlines(self, s: Any, now: datetime) -> DeadlineState:
        found = DeadlineState()
        clocks = select(DecisionClock.game_id, DecisionClock.due_at, DecisionClock.expired_at)
        rows = s.execute(clocks.join(Game, Game.id == DecisionClock.game_id)  # type: ignore[arg-type]
                         .where(DecisionClock.closed_at.is_(None), Game.status == GameStatus.ACTIVE,
                                DecisionClock.due_at <= now)).all()
        for game, due, expired in sorted(rows, key=lambda r: aware(r.due_at)):
            due = aware(due)
            found.past += 1
            if found.oldest_due is None:
                found.oldest_due, found.oldest_game = due, game
            if expired is None:  # the worker has not dealt with it: it plays the default or tells the moderator
                found.unhandled += 1
                if found.unhandled_due is None:
                    found.unhandled_due, found.unhandled_game = due, game
        return found


def _worker(row: Any, now: datetime) -> WorkerState:
    beat, stopped = aware(row.beat_at), _maybe(row.stopped_at)
    age = max(0.0, (now - beat).total_seconds())
    interval = float(row.beat_interval) or 60.0
    if stopped is not None:
        state = FINISHED if row.mode == ONCE else STOPPED
        why = (f"its pass ended {ago((now - stopped).total_seconds())} ago" if state == FINISHED
               else f"stopped {ago((now - stopped).total_seconds())} ago")
        if row.trouble and state == STOPPED:
            why += f" ({row.trouble})"
    elif is_gone(f"{row.host} {row.pid} {row.token}"):
        state, why = STOPPED, "its process is gone (killed, or it crashed)"
    elif age <= BEATS_MISSED * interval:
        state, why = RUNNING, f"last beat {ago(age)} ago"
    elif age <= max(LONG_SILENT.total_seconds(), 10 * interval):
        state, why = SILENT, f"silent for {ago(age)}"
    else:
        state, why = STOPPED, f"silent for {ago(age)}"
    return WorkerState(row.host, int(row.pid), row.token, row.mode, state, why, aware(row.started_at), beat,
                       interval, stopped, row.trouble or "", age)


# --------------------------------------------------------------------------- health


def problems(status: Status) -> list[str]:
    """One line for each reason the system is not healthy; none when it is."""
    now, found = status.checked_at, []
    max_backlog = status.max_backlog.total_seconds()
    schema = status.schema
    if schema.head is None:
        found.append("the newest migration cannot be told: the migrations folder of this pbem is missing or broken")
    elif schema.revision is None:
        found.append(f"the database is not initialised (pbem needs schema {schema.head}): run `pbem db upgrade`")
    elif not schema.known:
        found.append(f"the database is at schema {schema.revision}, which this pbem does not know (it needs "
                     f"{schema.head}): it was written by a newer pbem; upgrade pbem")
    elif not schema.current:
        found.append(f"the database is at schema {schema.revision}, pbem needs {schema.head}: run `pbem db upgrade`")

    if status.workers is not None and not any(w.fresh for w in status.workers):
        if not status.workers:
            found.append("no worker heartbeat: no worker has run (`pbem worker` writes one on every pass)")
        else:
            last = status.workers[0]
            why = "" if last.state == SILENT else f"; {last.why}"
            if last.trouble and last.state != STOPPED:
                why += f"; the last it said: {last.trouble}"
            found.append(f"no worker heartbeat within {BEATS_MISSED} of its intervals: the last came from "
                         f"{last.name} {ago(last.age)} ago (it beats every {every(last.interval)}){why}")
    for w in status.workers or []:
        if w.fresh and w.trouble:
            found.append(f"worker {w.name}: {w.trouble}")

    m = status.mailbox
    if m is not None and m.waiting and m.oldest is not None and now - m.oldest > status.max_backlog:
        found.append(f"mailbox backlog: {plural(m.waiting, 'mail')} waiting (as {m.worker} saw it "
                     f"{ago((now - m.read_at).total_seconds())} ago), the oldest arrived "
                     f"{ago((now - m.oldest).total_seconds())} ago (more than {every(max_backlog)})")

    o = status.outbox
    if o is not None and o.failed:
        found.append(f"outbox: {plural(o.failed, 'mail')} failed (`pbem outbox list --status failed` shows them, "
                     "`pbem outbox retry` queues them again)")
    if o is not None and o.oldest_at is not None and now - o.oldest_at > status.max_outbox_wait:
        error = f", last error: {o.oldest_error}" if o.oldest_error else ""
        found.append(f"outbox: mail {o.oldest_id} has waited {ago((now - o.oldest_at).total_seconds())} to be sent "
                     f"(more than {every(status.max_outbox_wait.total_seconds())}; "
                     f"{plural(o.oldest_attempts, 'attempt')}{error})")

    d = status.deadlines
    if d is not None and d.unhandled_due is not None and now - d.unhandled_due > status.max_backlog:
        found.append(f"deadlines: {plural(d.unhandled, 'decision')} past the deadline not yet dealt with by the "
                     f"worker; the oldest, game {d.unhandled_game}, was due "
                     f"{ago((now - d.unhandled_due).total_seconds())} ago (more than {every(max_backlog)})")
    return found
