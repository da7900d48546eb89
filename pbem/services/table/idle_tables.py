"""Open tables that nobody new joins close (docs/signup.md): a table, open or waiting for approval, whose last
new player (or whose opening) is ``[signup] idle_days`` old is closed, and the players at it are told. A few
addresses cannot keep tables open for good, nor keep the list of ``games`` full of them. The timekeeper looks
once a pass (services.clock.timekeeper): one query of the tables by status.
"""

from __future__ import annotations

from datetime import timedelta

from sqlalchemy import exists
from sqlmodel import Session, select

from ...store.models import SignupSeat, SignupTable
from ...words import plural
from ..mail_out import notices
from .signup_checks import CLOSED, OPEN, WAITING
from .signup_words import table_words


def idle_tables(s: Session, games, idle_days: int) -> list[SignupTable]:  # type: ignore[no-untyped-def]
    """The tables, open or waiting, that no new player joined for ``idle_days`` (found by their status)."""
    since = games.clock() - timedelta(days=idle_days)
    joined_since = exists().where(SignupSeat.table_id == SignupTable.id, SignupSeat.joined_at > since)
    return list(s.exec(select(SignupTable).where(SignupTable.status.in_((OPEN, WAITING)),  # type: ignore[attr-defined]
                                                 SignupTable.created_at <= since, ~joined_since)).all())


def close_idle_tables(s: Session, games, idle_days: int) -> list[int]:  # type: ignore[no-untyped-def]
    """Close the tables of ``s`` that no new player joined for ``idle_days``; returns their numbers. The caller
    commits."""
    now = games.clock()
    idle = idle_tables(s, games, idle_days)
    for table in idle:
        table.status = CLOSED
        s.add(table)
        for seat in s.exec(select(SignupSeat).where(SignupSeat.table_id == table.id)).all():
            s.add(notices.plain_mail(seat.email, f"table {table.id} is closed", [
                f"Table {table.id} ({table_words(table)}) is closed: nobody new joined it for "
                f"{plural(idle_days, 'day')}, and a table that waits that long closes. Send 'games' for the open "
                "tables, or open one again with 'new'."], games.new_message_id, now))
    return [table.id or 0 for table in idle]


__all__ = ["close_idle_tables", "idle_tables"]
