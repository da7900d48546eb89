"""signup budgets: the mails pbem sent strangers are counted by day, an address's answers by hour, and a game's
players hear of new watchers once a day (issue 42)

``inbound_mails.to_stranger`` marks a mail whose sender, in no game, pbem answered (a reply or a code): the
strangers' daily budget counts them in a partial index by time. ``ix_inbound_mails_sender`` finds an address's
mails of the last hour. ``watchers.announced_at`` is when the players were told of that watcher: the watchers of
before were told when they began, so they are marked told then. Going down drops the three; nothing is lost that
pbem needs (a day's counts start again from nothing).

Revision ID: 0017
Revises: 0016
Create Date: 2026-11-29
"""
from typing import Sequence, Union

from alembic import op
import sqlalchemy as sa


revision: str = '0017'
down_revision: Union[str, None] = '0016'
branch_labels: Union[str, Sequence[str], None] = None
depends_on: Union[str, Sequence[str], None] = None

STRANGER = "to_stranger"
watchers = sa.table("watchers", sa.column("since", sa.DateTime(timezone=True)),
                    sa.column("announced_at", sa.DateTime(timezone=True)))


def upgrade() -> None:
    # Plain ALTER TABLE ADD COLUMN on both databases (a batch would copy the tables on SQLite).
    op.add_column('inbound_mails', sa.Column('to_stranger', sa.Boolean(), server_default=sa.false(), nullable=False))
    op.create_index('ix_inbound_mails_sender', 'inbound_mails', ['sender', 'received_at'], unique=False)
    op.create_index('ix_inbound_mails_to_stranger', 'inbound_mails', ['received_at'], unique=False,
                    sqlite_where=sa.text(STRANGER), postgresql_where=sa.text(STRANGER))
    op.add_column('watchers', sa.Column('announced_at', sa.DateTime(timezone=True), nullable=True))
    op.execute(watchers.update().values(announced_at=watchers.c.since))


def downgrade() -> None:
    op.drop_column('watchers', 'announced_at')
    op.drop_index('ix_inbound_mails_to_stranger', table_name='inbound_mails')
    op.drop_index('ix_inbound_mails_sender', table_name='inbound_mails')
    op.drop_column('inbound_mails', 'to_stranger')
