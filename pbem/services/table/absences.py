"""Absences: a player says they will be away (a mail line 'away DATE to DATE').

The days are whole days in UTC. Every deadline of theirs that falls in that time, in each of their active or
paused games, moves past it (``deadlines.absence_shift``), and the other players of those games are told
(``notices.absence_announced``). ``deadlines.check_absence`` holds the limits (how far ahead, how long, how
many pending); a request over them is refused with BadRequest and changes nothing.
"""

from __future__ import annotations

from datetime import date, datetime, timedelta
from typing import TYPE_CHECKING

from sqlmodel import Session, select

from ...store.models import Absence, Event, Game, GameStatus, Seat
from ...store.uow import UnitOfWork
from ..common import deadlines
from ..mail_out import notices
from ..common.errors import BadRequest
from ..common.input_checks import checked_address
from ..common.timing import TimingError

if TYPE_CHECKING:
    from .games import GameChanges


class Absences:
    """A player's absences, over the games of ``games`` (its database, clock and mail domain)."""

    def __init__(self, games: GameChanges) -> None:
        self.games = games

    def check(self, email: str, first: date, last: date, *, planned: int = 0) -> None:
        """Refuse (BadRequest) an absence that ``add`` would refuse; ``planned``: more absences the same request
        adds before this one."""
        now = self.games.clock()
        with UnitOfWork(self.games.engine) as uow:
            _check(uow.session, checked_address(email), first, last, now, planned)

    def add(self, email: str, first: date, last: date) -> list[int]:
        """``email`` is away from ``first`` to ``last`` (whole days, UTC): their deadlines that fall in that time
        move past it, and the other players of their active games are told. Returns those games."""
        games = self.games
        email = checked_address(email)
        now = games.clock()
        with UnitOfWork(games.engine, write=True) as uow:
            s = uow.session
            _check(s, email, first, last, now)
            starts, ends = deadlines.day_start(first), deadlines.day_start(last + timedelta(days=1))
            s.add(Absence(email=email, starts_at=starts, ends_at=ends, created_at=now))
            s.flush()
            seats = s.exec(select(Seat).join(Game).where(
                Seat.email == email, Game.status.in_((GameStatus.ACTIVE, GameStatus.PAUSED)))
                .order_by(Seat.game_id)).all()  # locks in game order: no deadlock with another worker
            changed = []
            for seat in seats:
                game = games.lock(uow, seat.game_id)
                for clock in deadlines.open_clocks(s, game.id):
                    if clock.seat == seat.seat and starts <= deadlines.aware(clock.due_at) < ends:
                        shift, why = deadlines.absence_shift(s, email, deadlines.aware(clock.due_at), now)
                        clock.due_at, clock.remind_at = clock.due_at + shift, clock.remind_at + shift
                        clock.extended = "; ".join(x for x in (clock.extended, why) if x)
                        s.add(clock)
                last = ends - timedelta(days=1)
                span = f"from {starts:%A %-d %B} to {last:%A %-d %B %Y}"
                s.add(Event(game_id=game.id, seq=games.last_seq(s, game.id) + 1, actor=email, seat=seat.seat,
                            kind="away", text=span, source="mail", created_at=now,
                            data={"words": f"{seat.name} will be away {span}; deadlines in that time move later."}))
                info = games.load(s, game)
                games.post(s, info, lambda info: notices.absence_announced(
                    info, seat.seat, starts, ends, games.new_message_id, now, games.mail_domain))
                changed.append(game.id)
            uow.commit()
            return changed


def _check(s: Session, email: str, first: date, last: date, now: datetime, planned: int = 0) -> None:
    try:
        deadlines.check_absence(first, last, now.date(), len(deadlines.pending_absences(s, email, now)) + planned)
    except TimingError as exc:
        raise BadRequest(str(exc)) from exc


__all__ = ["Absences"]
