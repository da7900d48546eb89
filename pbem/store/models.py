"""Every table pbem keeps, in one module.

History is append-only: a game's ``events`` are never updated or deleted (an
undo is itself an event), and ``snapshots`` are caches of the engine state that
can always be rebuilt from the seed and the events.
"""

from __future__ import annotations

from datetime import datetime, timezone
from typing import Any, Optional

from sqlalchemy import JSON, BigInteger, Column, DateTime, MetaData, Text, UniqueConstraint
from sqlmodel import Field, SQLModel

# Named constraints let Alembic's batch mode (SQLite) alter them later.
SQLModel.metadata.naming_convention = {
    "ix": "ix_%(column_0_label)s",
    "uq": "uq_%(table_name)s_%(column_0_N_name)s",
    "ck": "ck_%(table_name)s_%(constraint_name)s",
    "fk": "fk_%(table_name)s_%(column_0_name)s_%(referred_table_name)s",
    "pk": "pk_%(table_name)s",
}
metadata: MetaData = SQLModel.metadata


def utcnow() -> datetime:
    return datetime.now(timezone.utc)


def _when(**kw: Any) -> Any:
    return Field(sa_column=Column(DateTime(timezone=True), **kw))


class GameStatus:
    ACTIVE = "active"
    PAUSED = "paused"
    FINISHED = "finished"
    ABORTED = "aborted"
    ALL = (ACTIVE, PAUSED, FINISHED, ABORTED)


class Game(SQLModel, table=True):
    __tablename__ = "games"

    id: Optional[int] = Field(default=None, primary_key=True)
    kind: str = Field(index=True)  # the engine's name, e.g. "fifth-avenue"
    variant: str = "standard"
    seed: int = Field(sa_column=Column(BigInteger, nullable=False))
    status: str = Field(default=GameStatus.ACTIVE, index=True)
    settings: dict = Field(default_factory=dict, sa_column=Column(JSON, nullable=False))  # the engine's options
    # Deadlines: {"deadline": s, "bid_deadline": s, "reminder": fraction, "on_timeout": ...} (services.deadlines)
    timing: dict = Field(default_factory=dict, sa_column=Column(JSON, nullable=False, server_default="{}"))
    created_at: datetime = _when(nullable=False)
    updated_at: datetime = _when(nullable=False)


class Seat(SQLModel, table=True):
    __tablename__ = "seats"
    __table_args__ = (UniqueConstraint("game_id", "seat"),)

    id: Optional[int] = Field(default=None, primary_key=True)
    game_id: int = Field(foreign_key="games.id", index=True)
    seat: int
    name: str
    email: str = Field(index=True)
    # When the game asks for one: a word that must be in every mail of this seat (From is easy to forge).
    secret: str = Field(default="", sa_column_kwargs={"server_default": ""})


class Event(SQLModel, table=True):
    __tablename__ = "events"
    __table_args__ = (UniqueConstraint("game_id", "seq"),)

    id: Optional[int] = Field(default=None, primary_key=True)
    game_id: int = Field(foreign_key="games.id", index=True)
    seq: int  # 1, 2, 3, ... within the game
    actor: str  # a player's email, "moderator" or "system"
    seat: Optional[int] = None  # the seat a command was played for
    kind: str  # created, command, undo, replace_player, pause, resume, abort
    text: str = Field(default="", sa_column=Column(Text, nullable=False))  # as written
    source: str = "system"  # "cli", "mail:<Message-ID>", "system", "import"
    data: dict = Field(default_factory=dict, sa_column=Column(JSON, nullable=False))
    created_at: datetime = _when(nullable=False)


class Snapshot(SQLModel, table=True):
    __tablename__ = "snapshots"
    __table_args__ = (UniqueConstraint("game_id", "seq"),)

    id: Optional[int] = Field(default=None, primary_key=True)
    game_id: int = Field(foreign_key="games.id", index=True)
    seq: int  # the state after this event
    state: str = Field(sa_column=Column(Text, nullable=False))  # the engine's JSON, byte for byte
    created_at: datetime = _when(nullable=False)


class InboundMail(SQLModel, table=True):
    __tablename__ = "inbound_mails"

    id: Optional[int] = Field(default=None, primary_key=True)
    message_id: str = Field(unique=True)
    mailbox: str = ""
    uidvalidity: Optional[int] = Field(default=None, sa_column=Column(BigInteger))
    uid: Optional[int] = Field(default=None, sa_column=Column(BigInteger))
    sender: str = ""
    game_id: Optional[int] = Field(default=None, foreign_key="games.id", index=True)
    outcome: str = ""  # applied, rejected, ignored, ...
    reason: str = Field(default="", sa_column=Column(Text, nullable=False))
    received_at: datetime = _when(nullable=False)


class OutboxStatus:
    QUEUED = "queued"
    SENDING = "sending"
    SENT = "sent"
    FAILED = "failed"


class OutboxMail(SQLModel, table=True):
    __tablename__ = "outbox"

    id: Optional[int] = Field(default=None, primary_key=True)
    game_id: Optional[int] = Field(default=None, foreign_key="games.id", index=True)
    recipient: str
    subject: str
    headers: dict = Field(default_factory=dict, sa_column=Column(JSON, nullable=False))
    text_body: str = Field(sa_column=Column(Text, nullable=False))
    html_body: Optional[str] = Field(default=None, sa_column=Column(Text))
    status: str = Field(default=OutboxStatus.QUEUED, index=True)
    attempts: int = 0
    next_attempt_at: datetime = _when(nullable=False)
    sent_at: Optional[datetime] = _when(nullable=True)
    last_error: str = Field(default="", sa_column=Column(Text, nullable=False))
    message_id: str = Field(unique=True)
    created_at: datetime = _when(nullable=False)


class DecisionClock(SQLModel, table=True):
    """The deadline of one decision: opened when the decision becomes due, closed when it is made (or the
    game is paused, undone, ended). A game has at most one open clock."""

    __tablename__ = "decision_clocks"

    id: Optional[int] = Field(default=None, primary_key=True)
    game_id: int = Field(foreign_key="games.id", index=True)
    decision: int  # the engine's move count when the decision became due
    seat: int
    kind: str  # "move" or "bid": which deadline applies
    asked_at: datetime = _when(nullable=False)
    due_at: datetime = _when(nullable=False)
    remind_at: datetime = _when(nullable=False)
    reminded_at: Optional[datetime] = _when(nullable=True)
    expired_at: Optional[datetime] = _when(nullable=True)  # the deadline passed and was dealt with
    late_notice_at: Optional[datetime] = _when(nullable=True)  # the last "you are late" mail
    closed_at: Optional[datetime] = _when(nullable=True, index=True)
    extended: str = Field(default="", sa_column=Column(Text, nullable=False, server_default=""))  # why it moved


class Absence(SQLModel, table=True):
    """A player's announced time away (``away DATE to DATE``): deadlines that fall in it move past it."""

    __tablename__ = "absences"

    id: Optional[int] = Field(default=None, primary_key=True)
    email: str = Field(index=True)
    starts_at: datetime = _when(nullable=False)
    ends_at: datetime = _when(nullable=False)
    created_at: datetime = _when(nullable=False)


class Mark(SQLModel, table=True):
    """When something last happened that must not happen too often or must be noticed when it stops:
    ``deadline-check`` (the worker's last look at the deadlines), ``digest:<email>`` (a player's last digest)."""

    __tablename__ = "marks"

    name: str = Field(primary_key=True)
    at: datetime = _when(nullable=False)
