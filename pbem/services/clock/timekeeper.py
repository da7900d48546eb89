"""The worker's look at the deadlines, once every cycle.

``Timekeeper.check()`` goes through the open decision clocks (see
``services.common.deadlines``) in this order:

1. the outage gap: if the last look was longer ago than ``outage_gap``, the
   deadlines and reminders that fell in between move by that time instead of
   all firing now, and the moderator is told;
2. active games with no open clock (games from before deadlines existed) get
   one, in the first look at a database;
3. passed deadlines: a bid is played for the player (``timeout_command``);
   another decision too in games set to on-timeout=auto, else the clock is
   marked expired, the player gets a late notice and the moderator a mail;
4. late notices again, once a day, while an expired decision stays unmade;
5. reminders, with the board and the options; a player due a reminder who
   must act in several games gets one digest of all of them, once a day;
6. the daily mail of each player with delivery "digest" (services.mail_out.delivery):
   what happened since their last mail, when anything did;
7. the watchers' daily mails, and the players told of new watchers (at most once a day);
8. open tables that nobody new joined for ``[signup] idle_days`` close (services.table.idle_tables).

Every change to a game is made under that game's lock, and each step checks
again under the lock that the decision is still the one it looked at: a
player's mail applied meanwhile, or another worker, wins.

Each step finds its work in an index of what falls due (the open clocks by
deadline, by reminder and by late notice; the digest players by the end of
their day), so a look at which nothing is due reads nothing of the games
that wait, however many they are (bench/idle_pass.py).
"""

from __future__ import annotations

from collections import defaultdict
from dataclasses import dataclass, field
from datetime import datetime, timedelta
from typing import Callable

from sqlalchemy import and_, update
from sqlmodel import Session, select

from ...config import SignupConfig
from ...games import get_game
from ...logs import Say
from ...store.models import DecisionClock, Event, Game, GameStatus, Seat, Watcher
from ...store.uow import UnitOfWork
from ..mail_out import notices
from ..mail_out.watching import watcher_mail
from ...timespans import format_duration, format_moment
from ...words import plural
from ..common.deadlines import (CHECK_MARK, CLOCKS_MARK, DIGEST_EVERY, LATE_NOTICE_EVERY, aware, get_mark, open_clock,
                        open_clocks, set_mark)
from ..common.ledger import MailLedger
from ..table.idle_tables import close_idle_tables, idle_tables
from ..table.service import GameService
from ..common.errors import CommandRejected, DecisionMoved, GameNotActive
from ..common.game_info import GameInfo

OUTAGE_GAP = timedelta(hours=1)


@dataclass
class TimekeeperReport:
    outage: timedelta | None = None
    opened: list[int] = field(default_factory=list)  # games that had no clock
    played: list[tuple[int, str]] = field(default_factory=list)  # (game, command played at a deadline)
    expired: list[int] = field(default_factory=list)  # games whose decision is late, moderator told
    late_notices: list[int] = field(default_factory=list)
    reminded: list[int] = field(default_factory=list)
    digests: list[str] = field(default_factory=list)  # players who got a digest
    daily: list[tuple[int, str]] = field(default_factory=list)  # (game, player) daily mails of delivery "digest"
    watchers: list[tuple[int, str]] = field(default_factory=list)  # (game, watcher) mails to watchers
    closed_tables: list[int] = field(default_factory=list)  # open tables nobody new joined for [signup] idle_days

    def lines(self) -> list[str]:
        said = []
        if self.outage:
            said.append(f"the worker was away {format_duration(self.outage.total_seconds())}: deadlines moved")
        said += [f"game {g}: deadline passed, played {c!r}" for g, c in self.played]
        said += [f"game {g}: deadline passed, the moderator is told" for g in self.expired]
        said += [f"game {g}: late notice" for g in self.late_notices]
        said += [f"game {g}: reminder" for g in self.reminded]
        said += [f"digest to {e}" for e in self.digests]
        said += [f"game {g}: daily mail to {e}" for g, e in self.daily]
        said += [f"game {g}: mail to its watcher {e}" for g, e in self.watchers]
        said += [f"table {t}: closed, nobody new joined it" for t in self.closed_tables]
        return said


class Timekeeper:
    def __init__(self, games: GameService, *, moderator: str = "", outage_gap: timedelta = OUTAGE_GAP,
                 log: Callable[[str], None] | None = None, signup: SignupConfig = SignupConfig()) -> None:
        self.games = games
        self.signup = signup
        self.ledger = MailLedger(games.engine, clock=games.clock, mail_domain=games.mail_domain)
        self.moderator = moderator
        self.outage_gap = outage_gap
        self.log = Say.of(__name__, log)
        self._all_clocked = False  # the one look for games without a clock is done (``_open_missing``)

    @property
    def clock(self) -> Callable[[], datetime]:
        return self.games.clock

    def check(self) -> TimekeeperReport:
        report = TimekeeperReport()
        now = aware(self.clock())
        self._mind_the_gap(now, report)
        self._open_missing(now, report)
        self._passed_deadlines(now, report)
        self._late_notices(now, report)
        self._reminders(now, report)
        self._daily_mails(now, report)
        self._watchers(now, report)
        self._idle_tables(report)
        return report

    # ------------------------------------------------------------------ 1. the outage gap

    def _mind_the_gap(self, now: datetime, report: TimekeeperReport) -> None:
        with UnitOfWork(self.games.engine, write=True) as uow:
            uow.serialize("deadline check")  # two workers never both see one gap, nor both write the first mark
            s = uow.session
            last = get_mark(s, CHECK_MARK)
            set_mark(s, CHECK_MARK, now)
            if last is not None and now - last > self.outage_gap:
                gap = now - last
                moved = []
                fell = {clock.id: clock for clock in s.exec(select(DecisionClock).where(  # each in its own index
                    DecisionClock.closed_at.is_(None), DecisionClock.expired_at.is_(None),
                    DecisionClock.due_at > last, DecisionClock.due_at <= now)).all()}
                fell.update({clock.id: clock for clock in s.exec(select(DecisionClock).where(
                    DecisionClock.closed_at.is_(None), DecisionClock.reminded_at.is_(None),
                    DecisionClock.remind_at > last, DecisionClock.remind_at <= now)).all()})
                for clock in sorted(fell.values(), key=lambda c: c.id):
                    due, remind = aware(clock.due_at), aware(clock.remind_at)
                    if clock.expired_at is None and (last < due <= now or (clock.reminded_at is None and
                                                                         last < remind <= now)):
                        clock.due_at, clock.remind_at = due + gap, remind + gap
                        clock.extended = "; ".join(x for x in (clock.extended, "the worker was away") if x)
                        s.add(clock)
                        moved.append(clock.game_id)
                report.outage = gap
                if self.moderator:
                    s.add(notices.to_moderator(self.moderator, "the worker was away", [
                        f"The mail worker did not look at the deadlines from {format_moment(last)} to "
                        f"{format_moment(now)} ({format_duration(gap.total_seconds())}).",
                        "",
                        (f"The deadlines and reminders that fell in that time moved by as much, in "
                         f"{'game' if len(set(moved)) == 1 else 'games'} {', '.join(map(str, sorted(set(moved))))}, "
                         "so they do not all fire at once."
                         if moved else "No deadline or reminder fell in that time."),
                    ], self.games.new_message_id, now))
                self.log.warning(f"the worker was away {format_duration(gap.total_seconds())}; {plural(len(moved), 'deadline')} moved")
            uow.commit()

    # ------------------------------------------------------------------ 2. games without a clock

    def _open_missing(self, now: datetime, report: TimekeeperReport) -> None:
        """Every change that leaves a game to decide opens its clock, so only games from before there were clocks
        can lack one: they are looked for once in a database's life (a mark says it was done), not at every
        pass, where the look would read every running game."""
        if self._all_clocked:
            return
        with UnitOfWork(self.games.engine) as uow:
            if get_mark(uow.session, CLOCKS_MARK) is not None:
                self._all_clocked = True
                return
            ticking = select(DecisionClock.game_id).where(DecisionClock.closed_at.is_(None))
            missing = uow.session.exec(select(Game.id).where(Game.status == GameStatus.ACTIVE,
                                                             Game.id.not_in(ticking))).all()
        for game_id in missing:
            with self.games.changing(game_id) as (uow, game, info):
                if not open_clocks(uow.session, game_id) and open_clock(uow.session, game, info, now):
                    uow.commit()
                    report.opened.append(game_id)
        with UnitOfWork(self.games.engine, write=True) as uow:
            set_mark(uow.session, CLOCKS_MARK, now)
            uow.commit()
        self._all_clocked = True

    # ------------------------------------------------------------------ 3. passed deadlines

    def _due(self, *conditions) -> list[DecisionClock]:  # type: ignore[no-untyped-def]
        """The open clocks of running games that meet ``conditions``, nearest deadline first. The clocks are read
        alone, in the index their conditions name; their games only then: a join would let the database start from
        the games and read every running one."""
        with UnitOfWork(self.games.engine) as uow:
            s = uow.session
            clocks = list(s.exec(select(DecisionClock).where(DecisionClock.closed_at.is_(None), *conditions)).all())
            clocks.sort(key=lambda clock: (aware(clock.due_at), clock.id))  # in SQL, the order would choose the index
            if clocks:
                running = set(s.exec(select(Game.id).where(Game.id.in_({c.game_id for c in clocks}),
                                                           Game.status == GameStatus.ACTIVE)).all())
                clocks = [clock for clock in clocks if clock.game_id in running]
            s.expunge_all()  # read-only copies: each step reads its clock again under the game's lock
            return clocks

    def _passed_deadlines(self, now: datetime, report: TimekeeperReport) -> None:
        for clock in self._due(DecisionClock.expired_at.is_(None), DecisionClock.due_at <= now):
            info = self.games.get(clock.game_id)
            if info.state.moves != clock.decision or info.over:
                continue  # decided meanwhile
            if clock.kind == "bid" or info.timing.on_timeout == "auto":
                if self._play_default(clock, info, now, report):
                    continue
            elif info.timing.on_timeout == "robot":
                self._robot_takes_over(clock, now, report)
                continue
            self._expire(clock, now, report)

    def _play_default(self, clock: DecisionClock, info: GameInfo, now: datetime, report: TimekeeperReport) -> bool:
        command = get_game(info.kind).timeout_command(info.state)
        email = info.email_of(clock.seat)
        try:
            self.games.submit(info.id, email, command, source="deadline", by="deadline", decision=clock.decision)
        except (DecisionMoved, GameNotActive):
            return True  # the player (or the moderator) was quicker
        except CommandRejected as exc:  # cannot happen with a correct engine; the moderator decides instead
            self.log.warning(f"game {info.id}: the deadline's command {command!r} was refused: {exc.message}")
            return False
        report.played.append((info.id, command))
        self.log(f"game {info.id}: {email}'s deadline passed; played {command!r}")
        if clock.kind != "bid" and self.moderator:
            self.ledger.queue_mail(None, "", "", also=[notices.to_moderator(
                self.moderator, f"{info.title} #{info.id}: a deadline passed", [
                    f"{self._who(info, clock.seat)} did not decide by {format_moment(aware(clock.due_at))} "
                    f"(decision {clock.decision}). The game is set to play its default, so this was played for "
                    f"them: {command}.",
                ], self.games.new_message_id, now, game_id=info.id)])
        return True

    def _robot_takes_over(self, clock: DecisionClock, now: datetime, report: TimekeeperReport) -> None:
        """on-timeout=robot: a robot plays the late player's seat from now on (the worker's robots' turn makes
        the decision), until the player sends a command. Everybody is told, the player first of all."""
        with self.games.changing(clock.game_id) as (uow, game, info):
            s = uow.session
            current = _expiring(s, clock, info, now)
            if current is None:
                return
            seat = s.exec(select(Seat).where(Seat.game_id == game.id, Seat.seat == current.seat)).one()
            seat.robot = "heuristic"
            s.add(seat)
            game.robot_due = True  # the late seat's decision is the robot's now: the worker's robots find it
            s.add(game)
            name = info.player(current.seat).name
            words = (f"{name}'s deadline passed, so a robot plays for {name} from now on, until {name} sends a "
                     "command (any command of theirs takes the seat back).")
            info.last_seq += 1
            s.add(Event(game_id=game.id, seq=info.last_seq, actor="system", seat=current.seat, kind="robot_cover",
                        text="a robot plays the seat", source="deadline", data={"words": words}, created_at=now))
            self.games.post(s, info, lambda info: notices.moderator_change(info, self.games.new_message_id, now,
                                                                           self.games.mail_domain))
            uow.commit()
        report.expired.append(clock.game_id)
        self.log(f"game {clock.game_id}: deadline passed; a robot plays seat {clock.seat + 1} until its player is back")

    def _expire(self, clock: DecisionClock, now: datetime, report: TimekeeperReport) -> None:
        with self.games.changing(clock.game_id) as (uow, game, info):
            s = uow.session
            current = _expiring(s, clock, info, now)
            if current is None:
                return
            due = aware(current.due_at)
            info.due_at = due
            self.games.post(s, info, lambda info: [notices.late_notice(
                info, current.seat, now - due, self.games.new_message_id, now, self.games.mail_domain)])
            if self.moderator:
                s.add(notices.to_moderator(self.moderator, f"{info.title} #{info.id}: {self._who(info, current.seat)} "
                                           "is late", self._late_lines(info, current, now),
                                           self.games.new_message_id, now, game_id=info.id))
            uow.commit()
        report.expired.append(clock.game_id)
        self.log(f"game {clock.game_id}: deadline passed; the moderator is told")

    def _late_lines(self, info: GameInfo, clock: DecisionClock, now: datetime) -> list[str]:
        who = self._who(info, clock.seat)
        email = info.email_of(clock.seat)
        legal = info.state.legal_commands()
        return [
            f"{who} <{email}> did not decide by {format_moment(aware(clock.due_at))} (decision {clock.decision} of "
            f"game {info.id}). They were told, and are told again every day until something happens.",
            "",
            "What you can do:",
            f"  pbem game play {info.id} --as {email} \"{legal[0]}\" --reason \"...\"   (play for them)",
            f"  pbem game set {info.id} on-timeout=auto   (let the game play its default at deadlines)",
            f"  pbem game set {info.id} deadline=96h   (give everybody more time)",
            f"  pbem game replace-player {info.id} {email} NEW_EMAIL",
            f"  pbem game pause {info.id}",
        ]

    # ------------------------------------------------------------------ 4. late notices, daily

    def _late_notices(self, now: datetime, report: TimekeeperReport) -> None:
        for clock in self._due(DecisionClock.expired_at.is_not(None),
                               DecisionClock.late_notice_at <= now - LATE_NOTICE_EVERY):
            with self.games.changing(clock.game_id) as (uow, game, info):
                s = uow.session
                current = _still_due(s, clock.id, info)
                if current is None or aware(current.late_notice_at) > now - LATE_NOTICE_EVERY:
                    continue
                current.late_notice_at = now
                s.add(current)
                info.due_at = aware(current.due_at)
                self.games.post(s, info, lambda info: [notices.late_notice(
                    info, current.seat, now - info.due_at, self.games.new_message_id, now, self.games.mail_domain)])
                uow.commit()
            report.late_notices.append(clock.game_id)

    # ------------------------------------------------------------------ 5. reminders and digests

    def _reminders(self, now: datetime, report: TimekeeperReport) -> None:
        due = self._due(DecisionClock.expired_at.is_(None), DecisionClock.reminded_at.is_(None),
                        DecisionClock.remind_at <= now)
        if not due:
            return  # the usual pass: nothing to remind, so the other waiting clocks need not be read
        # Whether a reminder goes alone or in a digest depends on the other decisions its player waits on: those
        # of the players due a reminder only, found through their addresses.
        with UnitOfWork(self.games.engine) as uow:
            s = uow.session
            at_seat = and_(Seat.game_id == DecisionClock.game_id, Seat.seat == DecisionClock.seat)
            players = set(s.exec(select(Seat.email).join(DecisionClock, at_seat)
                                 .where(DecisionClock.id.in_([c.id for c in due]))).all())
            waiting = list(s.exec(select(DecisionClock, Seat.email).join(Seat, at_seat)
                                  .join(Game, Game.id == DecisionClock.game_id)
                                  .where(Seat.email.in_(players), DecisionClock.closed_at.is_(None),
                                         DecisionClock.expired_at.is_(None), Game.status == GameStatus.ACTIVE)
                                  .order_by(DecisionClock.due_at)).all())
            s.expunge_all()  # read-only copies, as _due's
        by_player: dict[str, list[DecisionClock]] = defaultdict(list)
        for clock, email in waiting:
            by_player[email].append(clock)
        for email, clocks in by_player.items():
            due_now = [c for c in clocks if c.reminded_at is None and aware(c.remind_at) <= now]
            if not due_now:
                continue
            if len(clocks) == 1:
                self._remind(clocks[0], now, report)
            else:
                self._digest(email, clocks, now, report)

    def _remind(self, clock: DecisionClock, now: datetime, report: TimekeeperReport) -> None:
        with self.games.changing(clock.game_id) as (uow, game, info):
            s = uow.session
            current = _still_due(s, clock.id, info)
            if current is None or current.reminded_at is not None:
                return
            current.reminded_at = now
            s.add(current)
            info.due_at = aware(current.due_at)
            self.games.post(s, info, lambda info: [notices.reminder(info, current.seat, self.games.new_message_id,
                                                                    now, self.games.mail_domain)])
            uow.commit()
        report.reminded.append(clock.game_id)

    def _digest(self, email: str, clocks: list[DecisionClock], now: datetime, report: TimekeeperReport) -> None:
        """One mail for all the games the player must act in, at most once a day; it counts as their reminders."""
        name = f"digest:{email}"
        with UnitOfWork(self.games.engine, write=True) as uow:
            s = uow.session
            last = get_mark(s, name)
            if last is not None and now - last < DIGEST_EVERY:
                return
            sections: list[tuple[datetime, GameInfo, str]] = []
            for clock in sorted(clocks, key=lambda c: c.game_id):  # locks in game order: no deadlock
                info = self.games.load(s, self.games.lock(uow, clock.game_id))
                current = _still_due(s, clock.id, info)
                if current is None or current.reminded_at is not None:  # another worker reminded meanwhile
                    continue
                current.reminded_at = now
                s.add(current)
                info.due_at = aware(current.due_at)
                self.games.recent(s, info)
                sections.append((info.due_at, info, notices.reminder(info, current.seat, self.games.new_message_id,
                                                                     now, self.games.mail_domain).text_body))
                self.games.told(s, info, {current.seat})
            if len(sections) < 2:
                return  # decided meanwhile: the single reminder comes on the next look
            ordered = [(info, text) for _, info, text in sorted(sections, key=lambda x: x[0])]  # nearest due first
            s.add(notices.digest(email, ordered, self.games.new_message_id, now))
            set_mark(s, name, now)
            uow.commit()
        report.digests.append(email)

    # ------------------------------------------------------------------ 6. daily mails (delivery "digest")

    def _daily_mails(self, now: datetime, report: TimekeeperReport) -> None:
        """A player with delivery "digest" gets, once a day, what happened since their last mail (if anything
        did). Their day starts when they (or their game) choose it (``deadlines.start_digest_days``); the days
        that end are found in the index of ``seats.digest_at``. A seat found there that no longer wants the
        mail (another choice, or its game is over) loses its day, so it is not found again."""
        with UnitOfWork(self.games.engine) as uow:
            ended = uow.session.exec(
                select(Seat.id, Seat.game_id, Seat.seat, Seat.delivery, Game.delivery, Game.status).join(Game)
                .where(Seat.digest_at <= now - DIGEST_EVERY)).all()
        due, done_with = [], []
        for seat_id, game_id, seat_number, own, games_choice, status in ended:
            if (own or games_choice) == "digest" and status in (GameStatus.ACTIVE, GameStatus.PAUSED):
                due.append((game_id, seat_number))
            else:
                done_with.append(seat_id)
        if done_with:
            with UnitOfWork(self.games.engine, write=True) as uow:
                uow.session.connection().execute(update(Seat).where(
                    Seat.id.in_(done_with), Seat.digest_at <= now - DIGEST_EVERY).values(digest_at=None))
                uow.commit()
        for game_id, seat_number in sorted(due):
            with self.games.changing(game_id) as (uow, game, info):
                s = uow.session
                seat = s.exec(select(Seat).where(Seat.game_id == game_id, Seat.seat == seat_number)).one()
                if seat.digest_at is None or aware(seat.digest_at) > now - DIGEST_EVERY:
                    continue  # another worker sent it meanwhile, or the player chose otherwise
                seat.digest_at = now
                s.add(seat)
                mails = self.games.post(s, info, lambda info: [mail for mail in [notices.daily(
                    info, seat_number, self.games.new_message_id, now, self.games.mail_domain)] if mail])
                if mails:
                    report.daily.append((game_id, seat.email))
                uow.commit()

    def _watchers(self, now: datetime, report: TimekeeperReport) -> None:
        """A game's watchers (docs/signup.md) get what happened once a day, found by the index of their due
        times; a game that ended tells them so in a last mail, and they watch no more."""
        with UnitOfWork(self.games.engine) as uow:
            due = sorted(set(uow.session.exec(select(Watcher.game_id).where(Watcher.due_at <= now)).all()))
        for game_id in due:
            with self.games.changing(game_id) as (uow, game, info):
                s = uow.session
                watchers = s.exec(select(Watcher).where(Watcher.game_id == game_id, Watcher.due_at <= now)).all()
                if not watchers:
                    continue  # another worker sent them meanwhile
                after = min(w.told_seq for w in watchers)
                rows = s.exec(select(Event).where(Event.game_id == game_id, Event.seq > after).order_by(Event.seq)).all()
                over = game.status not in (GameStatus.ACTIVE, GameStatus.PAUSED)
                if info.over:
                    self.games.recent(s, info)  # the final scores credit a seat to all who played it
                for watcher in watchers:
                    mail = watcher_mail(info, watcher.email, rows, watcher.told_seq, self.games.new_message_id, now,
                                        self.games.mail_domain)
                    if mail is not None:
                        s.add(mail)
                        report.watchers.append((game_id, watcher.email))
                    if over:
                        s.delete(watcher)
                        continue
                    watcher.told_seq, watcher.due_at = info.last_seq, now + DIGEST_EVERY
                    s.add(watcher)
                uow.commit()

    def _idle_tables(self, report: TimekeeperReport) -> None:
        with UnitOfWork(self.games.engine) as uow:  # a look, then a write only when a table is due
            if not idle_tables(uow.session, self.games, self.signup.idle_days):
                return
        with UnitOfWork(self.games.engine, write=True) as uow:
            uow.serialize("signup")  # as a join: a table never closes under a player taking its last seat
            report.closed_tables = close_idle_tables(uow.session, self.games, self.signup.idle_days)
            uow.commit()

    @staticmethod
    def _who(info: GameInfo, seat: int) -> str:
        return notices.player_label(info, seat)


def _expiring(s: Session, clock: DecisionClock, info: GameInfo, now: datetime) -> DecisionClock | None:
    """The clock, read again under the game's lock and marked expired now; None when it was decided or dealt
    with meanwhile."""
    current = _still_due(s, clock.id, info)
    if current is None or current.expired_at is not None:
        return None
    current.expired_at = current.late_notice_at = now
    s.add(current)
    return current


def _still_due(s: Session, clock_id: int, info: GameInfo) -> DecisionClock | None:
    """The clock read again under its game's lock, if its decision is still the one due (else a player's mail,
    the moderator or another worker came first)."""
    current = s.get(DecisionClock, clock_id)
    if current is None or current.closed_at is not None or info.state.moves != current.decision:
        return None
    return current


__all__ = ["OUTAGE_GAP", "Timekeeper", "TimekeeperReport"]
