"""pictures: whether game mails carry a picture of the board (the game's choice, each player's own) and what
a queued mail's picture is drawn from

Revision ID: 0009
Revises: 0008
Create Date: 2026-11-25
"""
from typing import Sequence, Union

from alembic import op
import sqlalchemy as sa


revision: str = '0009'
down_revision: Union[str, None] = '0008'
branch_labels: Union[str, Sequence[str], None] = None
depends_on: Union[str, Sequence[str], None] = None


def upgrade() -> None:
    with op.batch_alter_table('games', schema=None) as batch_op:
        batch_op.add_column(sa.Column('pictures', sa.String(40), server_default='on', nullable=False))
    with op.batch_alter_table('seats', schema=None) as batch_op:
        batch_op.add_column(sa.Column('pictures', sa.String(40), server_default='', nullable=False))
    with op.batch_alter_table('outbox', schema=None) as batch_op:
        batch_op.add_column(sa.Column('picture', sa.JSON(), nullable=True))


def downgrade() -> None:
    with op.batch_alter_table('outbox', schema=None) as batch_op:
        batch_op.drop_column('picture')
    with op.batch_alter_table('seats', schema=None) as batch_op:
        batch_op.drop_column('pictures')
    with op.batch_alter_table('games', schema=None) as batch_op:
        batch_op.drop_column('pictures')
