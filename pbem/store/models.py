"""Every table pbem keeps, in one module.

History is append-only: a game's ``events`` are never updated or deleted (an
undo is itself an event), and ``snapshots`` are caches of the engine state that
can always be rebuilt from the seed and the events.
"""

from __future__ import annotations

from datetime import datetime, timezone
from functools import lru_cache
from typing import Any, Optional

from sqlalchemy import (JSON, BigInteger, Column, DateTime, Index, Integer, MetaData, String, Text, UniqueConstraint,
                        event, false)
from sqlalchemy import text as sql_text
from sqlmodel import Field, SQLModel
from sqlmodel.main import SQLModelConfig

from ..mail.message import MAX_ADDRESS
from .statuses import GameStatus, OutboxStatus  # noqa: F401 - the status columns' words, named with their tables

# Named constraints let Alembic's batch mode (SQLite) alter them later.
SQLModel.metadata.naming_convention = {
    "ix": "ix_%(column_0_label)s",
    "uq": "uq_%(table_name)s_%(column_0_N_name)s",
    "ck": "ck_%(table_name)s_%(constraint_name)s",
    "fk": "fk_%(table_name)s_%(column_0_name)s_%(referred_table_name)s",
    "pk": "pk_%(table_name)s",
}
metadata: MetaData = SQLModel.metadata
# Rows are made by the database layer, never validated from input: pydantic builds a model's validator only if
# one is ever asked for, instead of for every table on every start (a third of what loading this module costs).
DEFERRED = SQLModelConfig(defer_build=True)


def utcnow() -> datetime:
    return datetime.now(timezone.utc)


def _when(**kw: Any) -> Any:
    return Field(sa_column=Column(DateTime(timezone=True), **kw))


# The longest values kept. Every text column has a declared limit (a VARCHAR length, or ``info["limit"]`` on a
# TEXT column), and every row is cut to them before it is written (``fit_row``, below): on SQLite, which ignores
# lengths, and on PostgreSQL, which refuses what is longer, alike. A value from a mail never decides whether
# the mail's record can be written.
ADDRESS = MAX_ADDRESS  # RFC 5321's longest path, less the angle brackets
MESSAGE_ID = 255  # a valid Message-ID is at most MAX_MESSAGE_ID (250); ledger keys are shorter
SUBJECT = 255
NAME = 200
WORD = 40  # kinds, statuses, outcomes: our own words
OWNER = 120  # a worker's name: host, pid and a token


def _text(limit: int, **kw: Any) -> Any:
    """A TEXT column whose values are cut to ``limit`` characters before they are written."""
    return Field(sa_column=Column(Text, info={"limit": limit}, **kw))


def _string(length: int, **kw: Any) -> Any:
    return Field(sa_type=String(length), **kw)


class Game(SQLModel, table=True):
    model_config = DEFERRED
    __tablename__ = "games"
    # Partial: a few rows, whatever the database's statistics say of a column that is false nearly everywhere.
    # Its condition is written as each database's query says it (SQLite matches the text).
    __table_args__ = (Index("ix_games_robot_due", "id", sqlite_where=sql_text("robot_due = 1"),
                            postgresql_where=sql_text("robot_due = true")),)

    id: Optional[int] = Field(default=None, primary_key=True)
    kind: str = _string(WORD, index=True)  # the engine's name, e.g. "fifth-avenue"
    variant: str = _string(WORD, default="standard")
    seed: int = Field(sa_column=Column(BigInteger, nullable=False))
    status: str = _string(WORD, default=GameStatus.ACTIVE, index=True)
    settings: dict = Field(default_factory=dict, sa_column=Column(JSON, nullable=False))  # the engine's options
    # Deadlines: {"deadline": s, "bid_deadline": s, "reminder": fraction, "on_timeout": ...} (services.common.deadlines)
    timing: dict = Field(default_factory=dict, sa_column=Column(JSON, nullable=False, server_default="{}"))
    # Which mails a player gets unless they chose for themselves (services.mail_out.delivery): turns, all or digest.
    delivery: str = _string(WORD, default="turns", sa_column_kwargs={"server_default": "turns"})
    # Whether game mails carry a picture of the board ("on" or "off") unless a player chose for themselves.
    pictures: str = _string(WORD, default="on", sa_column_kwargs={"server_default": "on"})
    # Whether the archive's web site shows the game ("yes" or "no": the moderator left it out; pbem.archive).
    archive: str = _string(WORD, default="yes", sa_column_kwargs={"server_default": "yes"})
    # The subject of every mail of the game, set when it is created and never changed (a replaced seat keeps
    # the thread; services.mail_out.notices.game_subject).
    subject: str = _string(SUBJECT, default="", sa_column_kwargs={"server_default": ""})
    created_at: datetime = _when(nullable=False)
    updated_at: datetime = _when(nullable=False)
    # A robot seat must decide now (kept by ``deadlines.open_clock`` at every change, services.table.robot_seats): the
    # worker's pass finds its robots' work in an index of these games alone (``ix_games_robot_due``), not by
    # loading every game that has a robot.
    robot_due: bool = Field(default=False, sa_column_kwargs={"server_default": false()})


class Seat(SQLModel, table=True):
    model_config = DEFERRED
    __tablename__ = "seats"
    __table_args__ = (UniqueConstraint("game_id", "seat"),)

    id: Optional[int] = Field(default=None, primary_key=True)
    game_id: int = Field(foreign_key="games.id", index=True)
    seat: int
    name: str = _string(NAME)
    email: str = _string(ADDRESS, index=True)
    # When the game asks for one: a word that must be in every mail of this seat (From is easy to forge).
    secret: str = _string(NAME, default="", sa_column_kwargs={"server_default": ""})
    # The player's own choice of mails ("" = the game's), and the last event their mails have told them of:
    # the next game mail starts with everything public after it, so mailing less loses nothing.
    delivery: str = _string(WORD, default="", sa_column_kwargs={"server_default": ""})
    told_seq: int = Field(default=0, sa_column_kwargs={"server_default": "0"})
    pictures: str = _string(WORD, default="", sa_column_kwargs={"server_default": ""})  # "" = the game's
    # The start of the player's day of delivery "digest": set when they (or their game) choose it, then at each
    # daily mail; NULL otherwise. Indexed: the timekeeper finds the day's mails due by it (services.clock.timekeeper).
    digest_at: Optional[datetime] = _when(nullable=True, index=True)
    # A seat one of pbem's robots plays ("heuristic" or "strong", services.table.robot_seats); "" for a person.
    robot: str = _string(WORD, default="", sa_column_kwargs={"server_default": ""})


class Event(SQLModel, table=True):
    model_config = DEFERRED
    __tablename__ = "events"
    __table_args__ = (UniqueConstraint("game_id", "seq"),)

    id: Optional[int] = Field(default=None, primary_key=True)
    game_id: int = Field(foreign_key="games.id", index=True)
    seq: int  # 1, 2, 3, ... within the game
    actor: str = _string(ADDRESS)  # a player's email, "moderator" or "system"
    seat: Optional[int] = None  # the seat a command was played for
    kind: str = _string(WORD)  # created, command, undo, replace_player, pause, resume, abort
    text: str = _text(2000, default="", nullable=False)  # as written
    source: str = _string(MESSAGE_ID + 10, default="system")  # "cli", "mail:<Message-ID>", "system", "import"
    data: dict = Field(default_factory=dict, sa_column=Column(JSON, nullable=False))
    created_at: datetime = _when(nullable=False)


class Snapshot(SQLModel, table=True):
    model_config = DEFERRED
    __tablename__ = "snapshots"
    __table_args__ = (UniqueConstraint("game_id", "seq"),)

    id: Optional[int] = Field(default=None, primary_key=True)
    game_id: int = Field(foreign_key="games.id", index=True)
    seq: int  # the state after this event
    state: str = Field(sa_column=Column(Text, nullable=False))  # the engine's JSON, byte for byte
    created_at: datetime = _when(nullable=False)


REFUSED_ROW = "seat_email != ''"  # a mail refused because it did not prove the seat it spoke for
STRANGER_ROW = "to_stranger"  # a mail whose sender, in no game, pbem mailed: the strangers' daily budget counts these


class InboundMail(SQLModel, table=True):
    model_config = DEFERRED
    __tablename__ = "inbound_mails"
    # The digests of refused mail look at the refusals of the last hours (services.mail_in.refusals), not at every mail
    # ever recorded: an index of the mails refused for a seat alone, by time.
    # The answers an address had this hour, and what all strangers were mailed today (services.mail_in.answers),
    # are counted by sender and by time.
    __table_args__ = (Index("ix_inbound_mails_refused", "received_at", sqlite_where=sql_text(REFUSED_ROW),
                            postgresql_where=sql_text(REFUSED_ROW)),
                      Index("ix_inbound_mails_sender", "sender", "received_at"),
                      Index("ix_inbound_mails_to_stranger", "received_at", sqlite_where=sql_text(STRANGER_ROW),
                            postgresql_where=sql_text(STRANGER_ROW)))

    id: Optional[int] = Field(default=None, primary_key=True)
    message_id: str = _string(MESSAGE_ID, unique=True)  # the ledger key (pbem.mail.message.ledger_key)
    mailbox: str = _string(NAME, default="")
    uidvalidity: Optional[int] = Field(default=None, sa_column=Column(BigInteger))
    uid: Optional[int] = Field(default=None, sa_column=Column(BigInteger))
    sender: str = _string(ADDRESS, default="")
    game_id: Optional[int] = Field(default=None, foreign_key="games.id", index=True)
    outcome: str = _string(WORD, default="")  # applied, rejected, ignored, error, ...
    reason: str = _text(4000, default="", nullable=False)
    received_at: datetime = _when(nullable=False)
    # A mail refused because it could not prove it came from a seat (no or a wrong secret word, another address
    # answering that seat's mail): the seat's address, told of it in the next digest (services.mail_in.refusals).
    seat_email: str = _string(ADDRESS, default="", sa_column_kwargs={"server_default": ""})
    # pbem answered this mail (a reply or a code) and its sender played in no game: one of the strangers' mails of the
    # day ([signup] stranger_mails_per_day, docs/limits.md).
    to_stranger: bool = Field(default=False, sa_column_kwargs={"server_default": false()})


class MailClaim(SQLModel, table=True):
    """A mail of the mailbox one worker is working on: taken before the work, dropped once the mail is filed.
    Several workers may read one mailbox; each mail is worked on and moved by the one that claimed it."""
    model_config = DEFERRED

    __tablename__ = "mail_claims"

    mailbox: str = _string(NAME, primary_key=True)
    uidvalidity: int = Field(sa_column=Column(BigInteger, primary_key=True))
    uid: int = Field(sa_column=Column(BigInteger, primary_key=True))
    owner: str = _string(OWNER)  # the worker: "host pid token" (services.operations.claims.Instance)
    until: datetime = _when(nullable=False)  # the claim's lease: after it another worker may take the mail


class OutboxMail(SQLModel, table=True):
    model_config = DEFERRED
    __tablename__ = "outbox"
    __table_args__ = (Index("ix_outbox_decision", "game_id", "decision"),)

    id: Optional[int] = Field(default=None, primary_key=True)
    game_id: Optional[int] = Field(default=None, foreign_key="games.id", index=True)
    recipient: str = _string(ADDRESS)
    subject: str = _string(SUBJECT)
    headers: dict = Field(default_factory=dict, sa_column=Column(JSON, nullable=False))
    text_body: str = Field(sa_column=Column(Text, nullable=False))
    html_body: Optional[str] = Field(default=None, sa_column=Column(Text))
    status: str = _string(WORD, default=OutboxStatus.QUEUED, index=True)
    attempts: int = 0
    next_attempt_at: datetime = _when(nullable=False)
    sent_at: Optional[datetime] = _when(nullable=True)
    last_error: str = _text(2000, default="", nullable=False)
    message_id: str = _string(MESSAGE_ID, unique=True)
    created_at: datetime = _when(nullable=False)
    claimed_by: str = _string(OWNER, default="", sa_column_kwargs={"server_default": ""})  # the sending worker
    # The decision a game mail asked its recipient for (the engine's move count), with its context's key and
    # words: a reply to this mail applies only while that context is still open (services.mail_in.mail_commands).
    decision: Optional[int] = None
    decision_key: str = _string(OWNER, default="", sa_column_kwargs={"server_default": ""})
    decision_words: str = _string(SUBJECT, default="", sa_column_kwargs={"server_default": ""})
    # What the mail's picture of the board is drawn from, when it has one (render.pictures.recipe): drawn when
    # the mail is sent, by the sender, once for all the mails of a position.
    picture: Optional[dict] = Field(default=None, sa_column=Column(JSON, nullable=True))
    # For a game mail that tells only what happened since its reader's last mail and the game as it stands (no
    # note, nothing added): that reader's last told event before it. While it waits unsent, a later mail to
    # the same reader may take its place by telling everything since then (services.mail_out.mail_folding).
    told_from: Optional[int] = None


OPEN = "closed_at IS NULL"  # a decision clock still running (the partial indexes' condition)


class DecisionClock(SQLModel, table=True):
    """The deadline of one decision: opened when the decision becomes due, closed when it is made (or the
    game is paused, undone, ended). A game has at most one open clock."""
    model_config = DEFERRED

    __tablename__ = "decision_clocks"
    # Only open clocks (one a running game) are ever looked for, never the closed ones (one for every decision
    # ever made): each index holds the open clocks a step of the timekeeper looks for, ordered by when they fall
    # due, so a look at nothing due reads nothing, however many games wait.
    __table_args__ = (
        Index("ix_decision_clocks_open", "game_id", sqlite_where=sql_text(OPEN), postgresql_where=sql_text(OPEN)),
        Index("ix_decision_clocks_due", "due_at", sqlite_where=sql_text(f"{OPEN} AND expired_at IS NULL"),
              postgresql_where=sql_text(f"{OPEN} AND expired_at IS NULL")),
        Index("ix_decision_clocks_remind", "remind_at", sqlite_where=sql_text(f"{OPEN} AND reminded_at IS NULL"),
              postgresql_where=sql_text(f"{OPEN} AND reminded_at IS NULL")),
        Index("ix_decision_clocks_late", "late_notice_at", sqlite_where=sql_text(f"{OPEN} AND expired_at IS NOT NULL"),
              postgresql_where=sql_text(f"{OPEN} AND expired_at IS NOT NULL")),
    )

    id: Optional[int] = Field(default=None, primary_key=True)
    game_id: int = Field(foreign_key="games.id", index=True)
    decision: int  # the engine's move count when the decision became due
    seat: int
    kind: str = _string(WORD)  # "move" or "bid": which deadline applies
    asked_at: datetime = _when(nullable=False)
    due_at: datetime = _when(nullable=False)
    remind_at: datetime = _when(nullable=False)
    reminded_at: Optional[datetime] = _when(nullable=True)
    expired_at: Optional[datetime] = _when(nullable=True)  # the deadline passed and was dealt with
    late_notice_at: Optional[datetime] = _when(nullable=True)  # the last "you are late" mail
    closed_at: Optional[datetime] = _when(nullable=True)
    extended: str = Field(default="", sa_column=Column(Text, nullable=False, server_default=""))  # why it moved


class Absence(SQLModel, table=True):
    """A player's announced time away (``away DATE to DATE``): deadlines that fall in it move past it."""
    model_config = DEFERRED

    __tablename__ = "absences"

    id: Optional[int] = Field(default=None, primary_key=True)
    email: str = _string(ADDRESS, index=True)
    starts_at: datetime = _when(nullable=False)
    ends_at: datetime = _when(nullable=False)
    created_at: datetime = _when(nullable=False)


class Mark(SQLModel, table=True):
    """When something last happened that must not happen too often or must be noticed when it stops:
    ``deadline-check`` (the worker's last look at the deadlines), ``digest:<email>`` (a player's last digest)."""
    model_config = DEFERRED

    __tablename__ = "marks"

    name: str = _string(ADDRESS + 20, primary_key=True)
    at: datetime = _when(nullable=False)


class WorkerHeartbeat(SQLModel, table=True):
    """One worker's sign of life (services.operations.heartbeat), written after each pass of a long-running worker
    (one follows every IDLE wait) and once by each pass of ``pbem worker --once``; with what it last saw in the mailbox.
    ``pbem status`` reads it (services.operations.status). Rows of workers silent for a day are removed."""
    model_config = DEFERRED

    __tablename__ = "worker_heartbeats"

    token: str = _string(WORD, primary_key=True)  # the worker's own token (services.operations.claims.Instance)
    host: str = _string(NAME)
    pid: int = Field(sa_column=Column(BigInteger, nullable=False))
    mode: str = _string(WORD)  # "worker" (long-running) or "once" (pbem worker --once, run by a timer)
    beat_interval: float  # seconds it means to leave at most between two beats
    started_at: datetime = _when(nullable=False)
    beat_at: datetime = _when(nullable=False)
    stopped_at: Optional[datetime] = _when(nullable=True)  # it stopped (or, --once, its pass ended)
    trouble: str = _text(300, default="", nullable=False)  # what failed last (a lost connection); "" when working
    # The mailbox as the worker last saw it: when its last pass opened it, the mails in it then and the arrival
    # (INTERNALDATE) of the oldest; what was left when the pass ended (NULL while the pass runs).
    mailbox_read_at: Optional[datetime] = _when(nullable=True)
    mail_found: Optional[int] = None
    mail_found_oldest: Optional[datetime] = _when(nullable=True)
    pass_ended_at: Optional[datetime] = _when(nullable=True)
    mail_left: Optional[int] = None
    mail_left_oldest: Optional[datetime] = _when(nullable=True)


class ArchiveHiddenPlayer(SQLModel, table=True):
    """A player the moderator keeps out of the archive's web site by name: its pages call them "Player <key>".
    Kept by the key of their address (``pbem.archive.history.player_key``), so the table holds no address."""
    model_config = DEFERRED

    __tablename__ = "archive_hidden_players"

    key: str = _string(WORD, primary_key=True)
    hidden_at: datetime = _when(nullable=False)
    # A key of the old, unkeyed formula (before migration 0013), of a player who was in no game then: matched
    # by that formula until the moderator hides or shows them again.
    legacy: bool = Field(default=False, sa_column_kwargs={"server_default": false()})


class ArchiveSecret(SQLModel, table=True):
    """The archive's one row: the secret its players' keys are made with (an HMAC of the address, so an address
    cannot be matched to a key without the database; never written into the site), made once by the migration,
    and a number the moderator's archive switches raise (a game left out or shown, a name hidden or shown),
    which a build compares with the one it last saw (pbem.archive.site)."""
    model_config = DEFERRED

    __tablename__ = "archive_secret"

    id: int = Field(default=1, sa_column=Column(Integer, primary_key=True, autoincrement=False))
    secret: str = _string(64)  # 32 random bytes, in hex
    generation: int = Field(default=0, sa_column=Column(BigInteger, nullable=False, server_default="0"))
    created_at: datetime = _when(nullable=False)


class SignupTable(SQLModel, table=True):
    """A table players opened by mail (or the moderator with ``pbem game open``), waiting for its players
    (services.table.signup). Numbered in a series of its own; once started it is a game (``game_id``)."""
    model_config = DEFERRED

    __tablename__ = "signup_tables"

    id: Optional[int] = Field(default=None, primary_key=True)
    kind: str = _string(WORD)  # the engine's name
    options: dict = Field(default_factory=dict, sa_column=Column(JSON, nullable=False))  # the engine's options
    timing: dict = Field(default_factory=dict, sa_column=Column(JSON, nullable=False))  # as Game.timing
    seats: int  # how many players it is for
    opener: str = _string(ADDRESS, index=True)  # who opened it ("moderator" for the CLI)
    # waiting (for the moderator's approval), open, started, closed (its opener left, or the moderator closed it)
    status: str = _string(WORD, index=True)
    game_id: Optional[int] = Field(default=None, foreign_key="games.id")
    created_at: datetime = _when(nullable=False)
    started_at: Optional[datetime] = _when(nullable=True)


class SignupSeat(SQLModel, table=True):
    """A player's seat at a table that has not started, in the order they were taken."""
    model_config = DEFERRED

    __tablename__ = "signup_seats"
    __table_args__ = (UniqueConstraint("table_id", "email"),)

    id: Optional[int] = Field(default=None, primary_key=True)
    table_id: int = Field(foreign_key="signup_tables.id", index=True)
    email: str = _string(ADDRESS, index=True)
    name: str = _string(NAME)
    joined_at: datetime = _when(nullable=False)


class SignupRequest(SQLModel, table=True):
    """A ``new``, ``join`` or ``watch`` by mail waiting for the code mailed to its address (a forged From never
    sees it). Only the code's SHA-256 hash is kept; a request is done once, or expires."""
    model_config = DEFERRED

    __tablename__ = "signup_requests"

    id: Optional[int] = Field(default=None, primary_key=True)
    email: str = _string(ADDRESS, index=True)
    action: str = _string(WORD)  # new, join, watch
    data: dict = Field(default_factory=dict, sa_column=Column(JSON, nullable=False))  # what the line asked for
    code_hash: str = _string(64, unique=True)
    created_at: datetime = _when(nullable=False)
    expires_at: datetime = _when(nullable=False)
    done_at: Optional[datetime] = _when(nullable=True)


class Watcher(SQLModel, table=True):
    """An address that follows a running game without a seat: it is mailed the public side of the game
    (services.mail_out.watching), once a day. ``told_seq``: the last event its mails told."""
    model_config = DEFERRED

    __tablename__ = "watchers"
    __table_args__ = (UniqueConstraint("game_id", "email"),)

    id: Optional[int] = Field(default=None, primary_key=True)
    game_id: int = Field(foreign_key="games.id", index=True)
    email: str = _string(ADDRESS, index=True)
    since: datetime = _when(nullable=False)
    told_seq: int = Field(default=0, sa_column_kwargs={"server_default": "0"})
    # When its next mail is due (the day after its last): the timekeeper finds the watchers' mails due by it.
    due_at: Optional[datetime] = _when(nullable=True, index=True)


# --------------------------------------------------------------------------- limits, enforced


def limit_of(column: Any) -> int | None:
    """The most characters ``column`` keeps (a model attribute or a Column), None for no limit."""
    if hasattr(column, "property"):  # a model's attribute
        column = column.property.columns[0]
    return getattr(column.type, "length", None) or column.info.get("limit")


def fit(column: Any, value: Any) -> Any:
    """``value`` as ``column`` keeps it: cut to its limit, without NUL characters (PostgreSQL refuses them)."""
    if isinstance(value, str):
        value = value.replace("\x00", "")
        limit = limit_of(column)
        return value[:limit] if limit else value
    return value


def _without_nul(value: Any) -> Any:
    if isinstance(value, str):
        return value.replace("\x00", "")
    if isinstance(value, dict):
        return {_without_nul(k): _without_nul(v) for k, v in value.items()}
    if isinstance(value, list):
        return [_without_nul(v) for v in value]
    return value


def _has_nul(value: Any) -> bool:
    if isinstance(value, str):
        return "\x00" in value
    if isinstance(value, dict):
        return any(_has_nul(k) or _has_nul(v) for k, v in value.items())
    if isinstance(value, list):
        return any(map(_has_nul, value))
    return False


@lru_cache(maxsize=None)
def _limits(table: Any) -> tuple[tuple[str, int | None], ...]:
    return tuple((column.key, limit_of(column)) for column in table.columns)


def fit_row(_mapper: Any, _connection: Any, row: Any) -> None:
    """Cut every value of ``row`` to its column before it is written (a mapper event of every table). A value
    already fit is left as it is, found so without copying it: every row a mail writes passes here (its game's
    events, a picture's recipe, the mails' bodies), and copying and comparing them was a tenth of the worker's
    writing (bench/mail.py)."""
    for key, limit in _limits(row.__table__):
        value = getattr(row, key, None)
        if isinstance(value, str):
            if "\x00" in value or (limit and len(value) > limit):
                setattr(row, key, value.replace("\x00", "")[:limit] if limit else value.replace("\x00", ""))
        elif isinstance(value, (dict, list)) and _has_nul(value):
            setattr(row, key, _without_nul(value))


for _table in (Game, Seat, Event, Snapshot, InboundMail, OutboxMail, DecisionClock, Absence, Mark, WorkerHeartbeat,
               ArchiveHiddenPlayer, ArchiveSecret, SignupTable, SignupSeat, SignupRequest, Watcher):
    event.listen(_table, "before_insert", fit_row)
    event.listen(_table, "before_update", fit_row)
