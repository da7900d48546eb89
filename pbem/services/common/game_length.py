"""About how long a game takes by mail, told before one joins (the answer to 'games') and in a game's first mail,
as Board Game Arena says how long a game lasts before one sits down.

From this server's own history when it has one: the median, over the finished games of the same kind and number
of players (at least FROM_HISTORY of them), of the days from the game's creation to its last change. Until then
from a stated model: bench/days.py plays games through the game service with people who each read their mail
READS times a day, at hours drawn between 8:00 and 24:00 of their own time zone, and answer all the game asks of
them then; its medians for three players (seed 1) are MODEL_DAYS. Every player's turns wait for their reads, so
other numbers of players are scaled by players / 3. What a table at quicker readers takes is less: the words say
"at 3 reads a day".
"""

from __future__ import annotations

from statistics import median

from sqlalchemy import func
from sqlmodel import Session, select

from ...store.models import Game, GameStatus, Seat

READS = 3
MODEL_DAYS = {"fifth-avenue": 46.3, "manhattan": 23.3}  # bench/days.py --reads 3 --seed 1, 3 players, the median
FROM_HISTORY = 3  # finished games of a kind and size needed before their median replaces the model
LOOKED_AT = 50  # the newest finished games of a kind a listing reads


def modelled_days(kind: str, players: int) -> float:
    """The model's days for a game of ``kind`` with ``players`` (3 players as bench/days.py measured)."""
    return MODEL_DAYS.get(kind, max(MODEL_DAYS.values())) * max(players, 2) / 3


def history_days(s: Session, kind: str, players: int) -> float | None:
    """The median days of this server's finished games of ``kind`` with ``players`` seats, or None if fewer than
    FROM_HISTORY."""
    seats = select(Seat.game_id, func.count().label("n")).group_by(Seat.game_id).subquery()
    rows = s.exec(select(Game.created_at, Game.updated_at).join(seats, seats.c.game_id == Game.id)
                  .where(Game.kind == kind, Game.status == GameStatus.FINISHED, seats.c.n == players)
                  .order_by(Game.id.desc()).limit(LOOKED_AT)).all()  # type: ignore[union-attr]
    if len(rows) < FROM_HISTORY:
        return None
    return median((ended - created).total_seconds() / 86400 for created, ended in rows)


def length_words(s: Session, kind: str, players: int) -> str:
    """'about 7 weeks at 3 reads a day' (from this server's finished games when it has enough, else the model)."""
    found = history_days(s, kind, players)
    days = modelled_days(kind, players) if found is None else found
    return f"about {duration_words(days)} at {READS} reads a day" + ("" if found is None else " (as games here took)")


def duration_words(days: float) -> str:
    """A length a reader takes in at once: days up to two weeks, then weeks, then months."""
    if days < 1.5:
        return "a day"
    if days < 14:
        return f"{round(days)} days"
    if days < 60:
        return f"{round(days / 7)} weeks"
    return f"{round(days / 30)} months"


__all__ = ["FROM_HISTORY", "MODEL_DAYS", "READS", "duration_words", "history_days", "length_words", "modelled_days"]
