"""due work found by index: games whose robot must move, open clocks by when they fall due, digest days, refusals

An idle pass of the worker costs the same with 10 or 10,000 running games: each step looks up what is due in an
index instead of reading every game, seat or clock. The indexes of few rows are partial (SQLite matches their
condition by its text: it is written as the queries say it). ``games.robot_due`` is filled from the open
clocks (a robot's seat to decide); the players on delivery "digest" who have no day yet start it now.

Revision ID: 0014
Revises: 0013
Create Date: 2026-11-27
"""
from datetime import datetime, timezone
from typing import Sequence, Union

from alembic import op
import sqlalchemy as sa


revision: str = '0014'
down_revision: Union[str, None] = '0013'
branch_labels: Union[str, Sequence[str], None] = None
depends_on: Union[str, Sequence[str], None] = None

OPEN = "closed_at IS NULL"
REFUSED = "seat_email != ''"
CLOCK_INDEXES = (  # name, column, condition besides OPEN
    ("ix_decision_clocks_open", "game_id", ""),
    ("ix_decision_clocks_due", "due_at", " AND expired_at IS NULL"),
    ("ix_decision_clocks_remind", "remind_at", " AND reminded_at IS NULL"),
    ("ix_decision_clocks_late", "late_notice_at", " AND expired_at IS NOT NULL"),
)

games = sa.table("games", sa.column("id", sa.Integer), sa.column("status", sa.String),
                 sa.column("delivery", sa.String), sa.column("robot_due", sa.Boolean))
seats = sa.table("seats", sa.column("game_id", sa.Integer), sa.column("seat", sa.Integer),
                 sa.column("robot", sa.String), sa.column("delivery", sa.String),
                 sa.column("digest_at", sa.DateTime(timezone=True)))
clocks = sa.table("decision_clocks", sa.column("game_id", sa.Integer), sa.column("seat", sa.Integer),
                  sa.column("closed_at", sa.DateTime(timezone=True)))


def upgrade() -> None:
    # Plain ALTER TABLE ADD COLUMN on both databases: a batch would copy the games table on SQLite, which its
    # foreign keys forbid once games exist.
    op.add_column('games', sa.Column('robot_due', sa.Boolean(), server_default=sa.false(), nullable=False))
    op.create_index('ix_games_robot_due', 'games', ['id'], unique=False, sqlite_where=sa.text("robot_due = 1"),
                    postgresql_where=sa.text("robot_due = true"))
    # Every running game keeps an open clock for the seat that must decide (a game from before clocks gets one at
    # the worker's next look, which marks it then).
    robot_to_decide = sa.exists().where(
        clocks.c.game_id == games.c.id, clocks.c.closed_at.is_(None), seats.c.game_id == clocks.c.game_id,
        seats.c.seat == clocks.c.seat, seats.c.robot != "")
    op.execute(games.update().where(games.c.status == "active", robot_to_decide).values(robot_due=True))

    op.create_index(op.f('ix_seats_digest_at'), 'seats', ['digest_at'], unique=False)
    on_digest = sa.exists().where(
        games.c.id == seats.c.game_id, games.c.status.in_(("active", "paused")),
        sa.or_(seats.c.delivery == "digest", sa.and_(seats.c.delivery == "", games.c.delivery == "digest")))
    op.execute(seats.update().where(seats.c.digest_at.is_(None), on_digest)
               .values(digest_at=datetime.now(timezone.utc)))

    op.drop_index('ix_decision_clocks_closed_at', table_name='decision_clocks')
    for name, column, more in CLOCK_INDEXES:
        op.create_index(name, 'decision_clocks', [column], unique=False, sqlite_where=sa.text(OPEN + more),
                        postgresql_where=sa.text(OPEN + more))
    op.create_index('ix_inbound_mails_refused', 'inbound_mails', ['received_at'], unique=False,
                    sqlite_where=sa.text(REFUSED), postgresql_where=sa.text(REFUSED))


def downgrade() -> None:
    op.drop_index('ix_inbound_mails_refused', table_name='inbound_mails')
    for name, _, _ in CLOCK_INDEXES:
        op.drop_index(name, table_name='decision_clocks')
    op.create_index('ix_decision_clocks_closed_at', 'decision_clocks', ['closed_at'], unique=False)
    op.drop_index(op.f('ix_seats_digest_at'), table_name='seats')
    op.drop_index('ix_games_robot_due', table_name='games')
    op.drop_column('games', 'robot_due')  # SQLite 3.35 or newer drops it in place, as PostgreSQL
