"""The worker's heartbeat: a row of ``worker_heartbeats`` that says it is alive and what it saw in the mailbox.

A long-running worker beats after each pass, and a pass follows each IDLE wait (at most
``min(poll_interval, 240 s)``), so its beats come at most that far apart, plus the length of a pass;
``pbem worker --once`` beats once, when its pass ends. A beat is one small transaction (an UPDATE of the worker's own row; the first one an INSERT),
never one a mail. ``pbem status`` (services.operations.status) reads the rows.

The first beat of a worker also tidies up: rows silent for ``RETENTION`` go, rows of this host's workers whose
process is gone are marked ``GONE`` (in ``trouble``; ``stopped_at`` stays empty, since they did not stop: status
tells a worker that died from one that was stopped), and the rows of earlier ``--once`` runs on the same host
that ended or died go (the newest run speaks for them). A long-running worker does the same once every
``TIDY_EVERY``.

A beat never fails the worker: a database that fails under it is the next mail's business, and the failure
is logged once (and its end once).
"""

from __future__ import annotations

from dataclasses import dataclass
from datetime import datetime, timedelta
from typing import Any, Callable

from sqlalchemy import Engine, delete, insert, select, update

from ...logs import Say
from ...store.models import WorkerHeartbeat, fit, utcnow
from .claims import Instance, is_gone

RETENTION = timedelta(days=1)  # a row silent this long is removed
TIDY_EVERY = timedelta(hours=1)
ONCE_EVERY = 300.0  # seconds: the shipped timer's period (deploy/systemd/pbem-worker-once.timer)
FOREVER, ONCE = "worker", "once"
GONE = "its process ended without stopping"  # the trouble noted for a worker found dead by another of its host

_TABLE = WorkerHeartbeat.__table__  # type: ignore[attr-defined]


@dataclass
class MailboxReading:
    """What one pass saw: the mails in the mailbox when it opened it, and those left when it ended."""

    read_at: datetime
    found: int
    found_oldest: datetime | None
    ended_at: datetime | None = None
    left: int | None = None
    left_oldest: datetime | None = None


class Heartbeat:
    def __init__(self, engine: Engine, instance: Instance, *, clock: Callable[[], datetime] = utcnow,
                 log: Callable[[str], None] | None = None) -> None:
        self.engine = engine.execution_options(pbem_write=True)
        self.instance = instance
        self.clock = clock
        self.log = Say.of(__name__, log)
        self.mode = FOREVER
        self.interval = 60.0
        self.reading: MailboxReading | None = None
        self._started: datetime | None = None
        self._written: datetime | None = None  # the last beat written
        self._tidied: datetime | None = None
        self._failing = False

    def start(self, mode: str, interval: float) -> None:
        """How this worker runs: ``FOREVER`` beating at most ``interval`` seconds apart, or ``ONCE``."""
        self.mode, self.interval = mode, float(interval)
        self._started = self._started or self.clock()

    # ------------------------------------------------------------------ the mailbox, noted (no database)

    def pass_started(self, found: int, oldest: datetime | None) -> None:
        self.reading = MailboxReading(self.clock(), found, oldest)

    def pass_ended(self, left: int, oldest: datetime | None) -> None:
        if self.reading is not None:
            self.reading.ended_at, self.reading.left, self.reading.left_oldest = self.clock(), left, oldest

    # ------------------------------------------------------------------ beats

    def beat(self, *, stopped: bool = False, trouble: str = "", busy: bool = False, flushed: bool = False) -> bool:
        """Write that this worker is alive (and, ``stopped``, that it stops or its ``--once`` pass ended), with
        the last reading of the mailbox. ``busy``: in the middle of a long pass, only if the last beat is an
        interval old. ``flushed``: in a flushed transaction, which carries every commit before it to the disk
        (store.db.make_engine). False when the database failed (the beat is not written)."""
        now = self.clock()
        if busy and (now - (self._written or self._started or now)).total_seconds() < self.interval:
            return True
        values: dict[str, Any] = dict(host=self.instance.host, pid=self.instance.pid, mode=self.mode,
                                      beat_interval=self.interval, beat_at=now, stopped_at=now if stopped else None,
                                      trouble=fit(WorkerHeartbeat.trouble, " ".join(trouble.split())))
        if self.reading is not None:
            r = self.reading
            values.update(mailbox_read_at=r.read_at, mail_found=r.found, mail_found_oldest=r.found_oldest,
                          pass_ended_at=r.ended_at, mail_left=r.left, mail_left_oldest=r.left_oldest)
        try:
            with self.engine.execution_options(pbem_flush=flushed).begin() as connection:
                mine = _TABLE.c.token == self.instance.token
                updated = self._written is not None and connection.execute(
                    update(_TABLE).where(mine).values(**values)).rowcount
                if not updated:  # the first beat (or its row was removed meanwhile)
                    self._started = self._started or now
                    connection.execute(delete(_TABLE).where(mine))
                    connection.execute(insert(_TABLE).values(token=self.instance.token, started_at=self._started,
                                                             **values))
                if self._tidied is None or now - self._tidied >= TIDY_EVERY:
                    self._tidy(connection, now)
                    self._tidied = now
        except Exception as exc:  # the worker goes on; its next mail meets the database on its own
            if not self._failing:
                self.log.error(f"the heartbeat could not be written ({type(exc).__name__}: "
                         f"{' '.join(str(exc).split())[:200]}); pbem status will not see this worker")
            self._failing = True
            return False
        if self._failing:
            self.log("the heartbeat is written again")
        self._failing = False
        self._written = now
        return True

    def _tidy(self, connection: Any, now: datetime) -> None:
        connection.execute(delete(_TABLE).where(_TABLE.c.beat_at < now - RETENTION))
        alive = connection.execute(select(_TABLE.c.token, _TABLE.c.host, _TABLE.c.pid).where(
            _TABLE.c.host == self.instance.host, _TABLE.c.stopped_at.is_(None), _TABLE.c.trouble != GONE,
            _TABLE.c.token != self.instance.token)).all()
        gone = [token for token, host, pid in alive if is_gone(f"{host} {pid} {token}")]
        if gone:  # noted for a status run on another host, which cannot look at this host's processes
            connection.execute(update(_TABLE).where(_TABLE.c.token.in_(gone)).values(trouble=GONE))
        if self.mode == ONCE:  # one row for the timer's runs on this host: the newest
            connection.execute(delete(_TABLE).where(
                _TABLE.c.host == self.instance.host, _TABLE.c.mode == ONCE, _TABLE.c.token != self.instance.token,
                _TABLE.c.stopped_at.is_not(None) | (_TABLE.c.trouble == GONE)))
