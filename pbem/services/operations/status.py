"""Is the worker alive and keeping up? What `pbem status` reports, read from the database alone.

Nothing here connects to IMAP or SMTP: what the mailbox holds is what the worker last saw there (the figures
its heartbeat carries, services.operations.heartbeat). One read transaction gathers

- the workers: their heartbeats, each one long-running or a ``--once`` run, and running, silent (no beat, no
  stop), dead (its process gone without stopping), stopped (it stopped itself) or (``--once``) finished;
- the mailbox as last seen: when it was read, the mails in it and when the oldest arrived;
- the outbox: mails queued, failed, and how long the oldest one has waited;
- the decisions past their deadline: all of them, and those the worker has not dealt with yet;
- the schema: the revision in ``alembic_version`` (one plain query; Alembic itself is not loaded), against
  the newest migration shipped.

and a problem, one line each, for every reason the system is not healthy: no worker at work (none beat within
three of its intervals), a long-running worker that stopped beating without stopping (silent or dead) and was not
replaced by a later one on its host, a failed mail, a mailbox backlog or an unhandled deadline older than
``max_backlog``, a queued mail older than ``max_outbox_wait``, a schema that is not the newest.

Why a silent long-running worker counts whatever ``--once`` runs do: a timer's pass every few minutes keeps the
mail moving and the heartbeats fresh, and would hide for good that the worker meant to serve the mailbox hangs or
died. A worker that was stopped (SIGTERM, Ctrl-C) is no problem of its own, so a deployment may go over from a
long-running worker to a timer; a silent or dead one is, until a long-running worker on its host starts after it
(a restart), its row is a day old (``RETENTION``; the next worker's beat removes it) or the moderator forgets it
(``forget``).
"""

from __future__ import annotations

from dataclasses import dataclass, field
from datetime import datetime, timedelta
from typing import Any, Callable

from sqlalchemy import Engine, delete, func, select
from sqlalchemy.exc import DBAPIError

from ...store.models import DecisionClock, Game, GameStatus, OutboxMail, OutboxStatus, WorkerHeartbeat, utcnow
from ...store.uow import UnitOfWork
from ...timespans import format_duration
from ...words import plural
from .claims import is_gone
from ..common.deadlines import aware
from ..common.errors import BadRequest
from .heartbeat import GONE, ONCE, RETENTION

BEATS_MISSED = 3  # a worker without a beat for this many of its intervals is not running
MAX_BACKLOG = timedelta(minutes=15)
MAX_OUTBOX_WAIT = timedelta(minutes=15)
WAITING = (OutboxStatus.QUEUED, OutboxStatus.SENDING)

RUNNING, SILENT, DEAD, STOPPED, FINISHED = "running", "silent", "dead", "stopped", "finished"
LONG_RUNNING, ONCE_RUN = "long-running", "--once"  # the kinds of worker, as status shows them
_TABLE = WorkerHeartbeat.__table__  # type: ignore[attr-defined]


@dataclass
class WorkerState:
    host: str
    pid: int
    token: str
    mode: str  # "worker" or "once", as the heartbeat says
    state: str  # running, silent, dead, stopped, finished (a --once pass that ended)
    why: str  # the state in words: "stopped 5 minutes ago", "its process is gone ...", ...
    started_at: datetime
    beat_at: datetime
    interval: float  # seconds between beats, at most
    stopped_at: datetime | None
    trouble: str
    age: float  # seconds since the last beat
    replaced_by: str | None = None  # a silent or dead long-running worker: the later one of its host
    problem: str | None = None  # the problem this worker is, in one line

    @property
    def kind(self) -> str:
        return ONCE_RUN if self.mode == ONCE else LONG_RUNNING

    @property
    def name(self) -> str:
        return f"{self.host} pid {self.pid} ({self.kind})"

    @property
    def fresh(self) -> bool:
        """Its last beat is within BEATS_MISSED intervals, and it is still at work (a --once run: its timer)."""
        return self.age <= BEATS_MISSED * self.interval and (self.state == RUNNING or (
            self.mode == ONCE and self.state == FINISHED))

    def to_dict(self) -> dict[str, Any]:
        return {"host": self.host, "pid": self.pid, "token": self.token, "kind": self.kind, "mode": self.mode,
                "state": self.state, "why": self.why, "started_at": _iso(self.started_at),
                "beat_at": _iso(self.beat_at), "beat_age_seconds": round(self.age, 1),
                "interval_seconds": self.interval, "stopped_at": _iso(self.stopped_at), "trouble": self.trouble,
                "replaced_by": self.replaced_by, "problem": self.problem}


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
            "workers": None if self.workers is None else [w.to_dict() for w in self.workers],
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
    from ...store.db import shipped_revisions, stored_revision

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

    def forget(self, token: str) -> WorkerState:
        """Remove the heartbeat of the worker ``token`` that is not running (one silent or dead for good, or
        stopped), so that status no longer counts it; returns it as it was."""
        now = aware(self.clock())
        with UnitOfWork(self.engine, write=True) as uow:
            mine = _TABLE.c.token == token
            row = uow.session.execute(select(_TABLE).where(mine)).first()
            if row is None:
                raise BadRequest(f"no worker has the token {token!r} (`pbem status` shows each worker's token)")
            worker = _worker(row, now)
            if worker.state == RUNNING:
                raise BadRequest(f"worker {worker.name} is running (its last beat {ago(worker.age)} ago); only a "
                                 "worker that is not running can be forgotten")
            uow.session.execute(delete(_TABLE).where(mine))
            uow.commit()
        return worker

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
        rows = s.execute(select(_TABLE)).all()
        # The newest beat first; workers that beat at the same moment by host, pid and token, not in the order the
        # database happens to return them (on PostgreSQL an updated row may come back first or last).
        rows = sorted(rows, key=lambda row: (row.host, row.pid, row.token))
        workers = judge(sorted((_worker(row, now) for row in rows), key=lambda w: w.beat_at, reverse=True))
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
    trouble = "" if row.trouble == GONE else row.trouble or ""
    if row.trouble == GONE or (stopped is None and is_gone(f"{row.host} {row.pid} {row.token}")):
        # (a row marked GONE by an older pbem has a stopped_at, its last beat: it died all the same)
        state, why, stopped = DEAD, "its process is gone (killed, or it crashed)", None
    elif stopped is not None:
        state = FINISHED if row.mode == ONCE else STOPPED
        why = (f"its pass ended {ago((now - stopped).total_seconds())} ago" if state == FINISHED
               else f"stopped {ago((now - stopped).total_seconds())} ago")
        if trouble and state == STOPPED:
            why += f" ({trouble})"
    elif age <= BEATS_MISSED * interval:
        state, why = RUNNING, f"last beat {ago(age)} ago"
    else:
        state, why = SILENT, f"no beat for {ago(age)}"
    return WorkerState(row.host, int(row.pid), row.token, row.mode, state, why, aware(row.started_at), beat,
                       interval, stopped, trouble, age)


def judge(workers: list[WorkerState]) -> list[WorkerState]:
    """Note the problem each worker is of its own: a long-running one that stopped beating without stopping,
    unless a later long-running worker of its host started after its last beat (a restart, by systemd or by
    hand: its host has a worker again) or it is a day silent."""
    for w in workers:
        if w.mode == ONCE or w.state not in (SILENT, DEAD):
            continue  # a --once run that hangs or dies holds up its timer: no worker at work, soon
        later = [o for o in workers if o.mode != ONCE and o.host == w.host and o.token != w.token
                 and o.started_at >= w.beat_at]
        if later:
            w.replaced_by = min(later, key=lambda o: o.started_at).name
            w.why += f"; replaced by {w.replaced_by}"
        elif w.age > RETENTION.total_seconds():
            w.why += "; no longer counted (no beat for over a day)"
        else:
            said = f"; the last it said: {w.trouble}" if w.trouble else ""
            how = (f"no beat for {ago(w.age)} (it beats every {every(w.interval)}) and it was not stopped{said}"
                   if w.state == SILENT else
                   f"its process is gone (killed, or it crashed), its last beat {ago(w.age)} ago")
            w.problem = (f"worker {w.name} has stopped beating: {how} (restart it, or `pbem status --forget "
                         f"{w.token}` if it is gone for good)")
    return workers


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

    workers = status.workers or []
    if status.workers is not None and not any(w.fresh for w in workers):
        if not workers:
            found.append("no worker heartbeat: no worker has run (`pbem worker` writes one on every pass)")
        elif workers[0].problem is None:  # (a worker with a problem of its own says it below)
            last = workers[0]
            why = "" if last.state == SILENT else f"; {last.why}"
            if last.trouble and last.state != STOPPED:
                why += f"; the last it said: {last.trouble}"
            found.append(f"no worker at work (none beat within {BEATS_MISSED} of its intervals): the last beat came "
                         f"from {last.name} {ago(last.age)} ago (it beats every {every(last.interval)}){why}")
    found += [w.problem for w in workers if w.problem]
    found += [f"worker {w.name}: {w.trouble}" for w in workers if w.fresh and w.trouble]

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
