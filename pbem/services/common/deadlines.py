"""Deadlines: how long a player has for each decision, and what happens when they take longer.

Every game has a ``Timing`` (set at creation, changed with ``pbem game set``):
the time for a decision, the time for an auction bid, when to remind (a
fraction of it) and what a passed deadline does. When a decision becomes due,
the game service opens a ``DecisionClock`` for it (``open_clock``); making the
decision closes it. The worker looks at the open clocks on every cycle
(``DeadlineService.check``):

- a reminder at ``reminder`` of the time, with the board and the options;
  a player who must act in several games gets one digest a day instead;
- at the deadline, a bid is passed for the player (announced to all); any
  other decision is played by the game's documented default in games set to
  ``on-timeout=auto``, and otherwise the moderator is mailed; the late player
  is told, and told again every day until something happens;
- a worker that did not look for longer than the outage gap does not fire
  everything that passed meanwhile: those deadlines move by the gap, and the
  moderator is told.

Announced absences (``away DATE to DATE``) move every deadline that falls in
them past their end (``absence_shift``).

Deadlines count in UTC and are shown in UTC: players live in many zones.
"""

from __future__ import annotations

from datetime import date, datetime, time, timedelta, timezone

from sqlalchemy import bindparam, update
from sqlmodel import Session, select

from ...games import get_game
from ...timespans import TimingError, aware
from ...store.models import Absence, DecisionClock, Game, GameStatus, Mark, Seat

from .game_info import GameInfo
from .timing import Timing

MAX_ABSENCE = timedelta(days=21)  # one absence at most this long
MAX_PENDING_ABSENCES = 3  # announced absences not yet over, per player
ANNOUNCE_AHEAD = timedelta(days=366)  # how far ahead an absence may start: dates near year 9999 never reach the clocks
LATE_NOTICE_EVERY = timedelta(days=1)
DIGEST_EVERY = timedelta(days=1)
CHECK_MARK = "deadline-check"
CLOCKS_MARK = "deadline-clocks"  # the running games that had no clock (from before clocks) were given one


# --------------------------------------------------------------------------- clocks


def open_clocks(s: Session, game_id: int) -> list[DecisionClock]:
    return list(s.exec(select(DecisionClock).where(DecisionClock.game_id == game_id,
                                                   DecisionClock.closed_at.is_(None))).all())


# Built once and run as plain SQL: every applied mail closes a clock, and the ORM's version of this statement
# (built anew, then matched against the objects in the session) cost more than the rest of opening one.
_CLOSE_CLOCKS = (update(DecisionClock).where(DecisionClock.game_id == bindparam("which_game"),
                                             DecisionClock.closed_at.is_(None))
                 .values(closed_at=bindparam("now")))


def close_clock(s: Session, game_id: int, now: datetime) -> None:
    """Close the game's open clock. A DecisionClock object the session holds keeps its old closed_at: callers
    read the clocks again after this, never before it."""
    s.connection().execute(_CLOSE_CLOCKS, {"which_game": game_id, "now": now})


def open_clock(s: Session, game: Game, info: GameInfo, now: datetime) -> DecisionClock | None:
    """Close the game's open clock and start one for the decision now due (none if nobody must decide).

    Sets ``info.due_at``, which the mails asking for the decision show, and ``game.robot_due``: every change
    of a game's position, status or players comes here, so the worker's robots find the games where one of
    them must decide in that column's index (services.table.robot_seats) without loading the others."""
    close_clock(s, game.id, now)
    state = info.state
    info.due_at = None
    game.robot_due = False
    if game.status != GameStatus.ACTIVE or state is None or state.is_terminal():
        return None
    engine = get_game(game.kind)
    kind = engine.decision_kind(state)
    seat = state.current_player()
    game.robot_due = bool(info.player(seat).robot)
    timing = Timing.from_dict(game.timing)
    length = timing.length(kind)
    due, remind = now + length, now + length * timing.reminder
    shift, why = absence_shift(s, info.email_of(seat), due, now)
    clock = DecisionClock(game_id=game.id, decision=state.moves, seat=seat, kind=kind, asked_at=now,
                          due_at=due + shift, remind_at=remind + shift, extended=why)
    s.add(clock)
    info.due_at = clock.due_at
    return clock


def retime_clock(s: Session, game: Game, now: datetime) -> DecisionClock | None:
    """After new timing: the open clock's deadline counted again from when the decision was asked."""
    for clock in open_clocks(s, game.id):
        timing = Timing.from_dict(game.timing)
        length = timing.length(clock.kind)
        asked = aware(clock.asked_at)
        clock.due_at, clock.remind_at = asked + length, asked + length * timing.reminder
        if aware(clock.due_at) > now:
            clock.expired_at = clock.late_notice_at = None  # late no more: the new deadline is ahead
        if aware(clock.remind_at) > now:
            clock.reminded_at = None
        s.add(clock)
        return clock
    return None


# --------------------------------------------------------------------------- the days of delivery "digest"


def start_digest_days(s: Session, game: Game, now: datetime) -> None:
    """After the game's or a player's choice of mails changed (or the game came in by import): each player of a
    running game now on delivery "digest" has a day running (``Seat.digest_at``; one that ended long ago, from
    an earlier choice, starts again now), and the others have none. The timekeeper finds the days that end in
    that column's index, so it never looks for digest players among all the seats."""
    running = game.status in (GameStatus.ACTIVE, GameStatus.PAUSED)
    for seat in s.exec(select(Seat).where(Seat.game_id == game.id)).all():
        if not running or (seat.delivery or game.delivery) != "digest":
            seat.digest_at = None
        elif seat.digest_at is None or aware(seat.digest_at) <= now - DIGEST_EVERY:
            seat.digest_at = now
        s.add(seat)


# --------------------------------------------------------------------------- absences


def day_start(day: date) -> datetime:
    return datetime.combine(day, time(0, 0), tzinfo=timezone.utc)


# Built once: every decision asked runs it (bench/mail.py).
_PENDING_ABSENCES = select(Absence).where(Absence.email == bindparam("email"), Absence.ends_at > bindparam("now")) \
    .order_by(Absence.starts_at)


def absence_shift(s: Session, email: str, due: datetime, now: datetime) -> tuple[timedelta, str]:
    """How far a deadline of ``email`` moves for the absences it falls in, and why (in words)."""
    shift, why = timedelta(0), []
    for absence in s.exec(_PENDING_ABSENCES, params={"email": email, "now": now}).all():  # type: ignore[call-overload]
        starts, ends = aware(absence.starts_at), aware(absence.ends_at)
        if starts <= due + shift < ends:
            shift += ends - starts
            why.append(f"away {starts:%d %b} to {ends - timedelta(days=1):%d %b}")
    return shift, "; ".join(why)


def pending_absences(s: Session, email: str, now: datetime) -> list[Absence]:
    return list(s.exec(_PENDING_ABSENCES, params={"email": email, "now": now}).all())  # type: ignore[call-overload]


def check_absence(first: date, last: date, today: date, pending: int) -> None:
    if last < first:
        raise TimingError(f"an absence must end on or after its first day, not before ({first} to {last})")
    if last < today:
        raise TimingError(f"that absence is over already ({first} to {last})")
    if last - first + timedelta(days=1) > MAX_ABSENCE:
        raise TimingError(f"an absence may last at most {MAX_ABSENCE.days} days; ask the moderator to pause the "
                          "game for a longer one")
    if first - today > ANNOUNCE_AHEAD:
        raise TimingError(f"an absence may be announced at most {ANNOUNCE_AHEAD.days} days ahead ({first} is "
                          "further away); announce it nearer the time")
    if pending >= MAX_PENDING_ABSENCES:
        raise TimingError(f"you have {pending} absences announced already, the most there may be")


# --------------------------------------------------------------------------- marks


def get_mark(s: Session, name: str) -> datetime | None:
    mark = s.get(Mark, name)
    return aware(mark.at) if mark is not None else None


def set_mark(s: Session, name: str, at: datetime) -> None:
    mark = s.get(Mark, name) or Mark(name=name, at=at)
    mark.at = at
    s.add(mark)
