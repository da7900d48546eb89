"""A game's players hear who watches it (docs/signup.md): the watchers they were not told of yet, in one mail,
at most once a day.

A watch costs its watcher a confirmed code, but one address could watch, stop and watch again; so each new
watcher is marked told (``Watcher.announced_at``) when the players hear of it, and a game's players hear of new
watchers no sooner than a day after they last did (the mark ``watchers-told:<game>``). A watcher that began
meanwhile waits: the next one to begin after that day, or the timekeeper's look at the watchers' daily mails
(services.clock.timekeeper), tells of it. (Issue 47 may put these names into the next game mail instead; the
mark on each watcher is what such a mail would read.)
"""

from __future__ import annotations

from datetime import timedelta
from typing import Any

from sqlmodel import Session, select

from ...store.models import Game, Seat, Watcher
from ...words import listing
from ..common.deadlines import get_mark, set_mark
from ..mail_out import notices
from .signup_words import name_of

EVERY = timedelta(days=1)


def _mark(game_id: int) -> str:
    return f"watchers-told:{game_id}"


def announce_watchers(s: Session, games: Any, game_id: int) -> int:
    """Tell the players of ``game_id`` of its watchers not told yet, if their last such mail is a day old (or
    there was none). Returns how many mails were queued."""
    now = games.clock()
    last = get_mark(s, _mark(game_id))
    if last is not None and now - last < EVERY:
        return 0
    new = s.exec(select(Watcher).where(Watcher.game_id == game_id, Watcher.announced_at.is_(None))  # type: ignore[union-attr]
                 .order_by(Watcher.id)).all()
    if not new:
        return 0
    names = listing([name_of(watcher.email) for watcher in new])
    verb = "watches" if len(new) == 1 else "watch"
    text = (f"{names} now {verb} game {game_id}: they are mailed what everybody sees (never a hand), once a day. "
            "(Players hear of new watchers at most once a day.)")
    game = s.get(Game, game_id)
    seats = s.exec(select(Seat).where(Seat.game_id == game_id, Seat.robot == "")).all()
    s.add_all([notices.plain_mail(seat.email, game.subject if game else "", [text], games.new_message_id, now,
                                  game_id=game_id, tagged=False) for seat in seats])
    for watcher in new:
        watcher.announced_at = now
        s.add(watcher)
    set_mark(s, _mark(game_id), now)
    return len(seats)


__all__ = ["EVERY", "announce_watchers"]
