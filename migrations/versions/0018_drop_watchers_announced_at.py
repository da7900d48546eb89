"""drop watchers.announced_at: since issue 47 a "watch" event tells the players of a new watcher, and nothing
reads or writes the column any more

Going down adds it again, filled with each watcher's ``since`` (when the players were told before issue 47).

Revision ID: 0018
Revises: 0017
Create Date: 2026-11-29
"""
from typing import Sequence, Union

from alembic import op
import sqlalchemy as sa


revision: str = '0018'
down_revision: Union[str, None] = '0017'
branch_labels: Union[str, Sequence[str], None] = None
depends_on: Union[str, Sequence[str], None] = None

watchers = sa.table("watchers", sa.column("since", sa.DateTime(timezone=True)),
                    sa.column("announced_at", sa.DateTime(timezone=True)))


def upgrade() -> None:
    # Plain ALTER TABLE DROP COLUMN on both databases (SQLite has it since 3.35; a batch would copy the table).
    op.drop_column('watchers', 'announced_at')


def downgrade() -> None:
    op.add_column('watchers', sa.Column('announced_at', sa.DateTime(timezone=True), nullable=True))
    op.execute(watchers.update().values(announced_at=watchers.c.since))
