"""game subject: the subject of every mail of a game, set when the game is created and never changed

A game's mails kept one thread only while its players' names stayed: the subject was made anew from them for
every mail, so a replaced seat began a new subject. A running game keeps the subject its players' latest mails
carry (made here from its seats, as pbem made it until now).

Revision ID: 0015
Revises: 0014
Create Date: 2026-11-28
"""
from typing import Sequence, Union

from alembic import op
import sqlalchemy as sa


revision: str = '0015'
down_revision: Union[str, None] = '0014'
branch_labels: Union[str, Sequence[str], None] = None
depends_on: Union[str, Sequence[str], None] = None

TITLES = {"fifth-avenue": "Fifth Avenue", "manhattan": "Manhattan"}  # the engines' titles when this was written
SUBJECT = 255

games = sa.table("games", sa.column("id", sa.Integer), sa.column("kind", sa.String), sa.column("subject", sa.String))
seats = sa.table("seats", sa.column("game_id", sa.Integer), sa.column("seat", sa.Integer),
                 sa.column("name", sa.String))


def upgrade() -> None:
    # Plain ALTER TABLE ADD COLUMN on both databases: a batch would copy the games table on SQLite, which its
    # foreign keys forbid once games exist.
    op.add_column('games', sa.Column('subject', sa.String(length=SUBJECT), server_default='', nullable=False))
    connection = op.get_bind()
    names: dict[int, list[str]] = {}
    for row in connection.execute(sa.select(seats.c.game_id, seats.c.name).order_by(seats.c.game_id, seats.c.seat)):
        names.setdefault(row.game_id, []).append(row.name)
    for row in connection.execute(sa.select(games.c.id, games.c.kind)).all():
        title = TITLES.get(row.kind, row.kind)
        subject = f"[{title} #{row.id}] " + ", ".join(names.get(row.id, []))
        connection.execute(games.update().where(games.c.id == row.id).values(subject=subject[:SUBJECT]))


def downgrade() -> None:
    op.drop_column('games', 'subject')  # SQLite 3.35 or newer drops it in place, as PostgreSQL
