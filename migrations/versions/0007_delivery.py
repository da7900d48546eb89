"""delivery: which mails each player gets (turns, all, digest) and the last event their mails told them of

Revision ID: 0007
Revises: 0006
Create Date: 2026-11-23
"""
from typing import Sequence, Union

from alembic import op
import sqlalchemy as sa


revision: str = '0007'
down_revision: Union[str, None] = '0006'
branch_labels: Union[str, Sequence[str], None] = None
depends_on: Union[str, Sequence[str], None] = None


def upgrade() -> None:
    with op.batch_alter_table('games', schema=None) as batch_op:
        batch_op.add_column(sa.Column('delivery', sa.String(40), server_default='turns', nullable=False))
    with op.batch_alter_table('seats', schema=None) as batch_op:
        batch_op.add_column(sa.Column('delivery', sa.String(40), server_default='', nullable=False))
        batch_op.add_column(sa.Column('told_seq', sa.Integer(), server_default='0', nullable=False))
        batch_op.add_column(sa.Column('digest_at', sa.DateTime(timezone=True), nullable=True))
    # A game under way: its players have been told of everything so far, as the old mails told everybody.
    op.execute("UPDATE seats SET told_seq = COALESCE((SELECT MAX(seq) FROM events WHERE events.game_id = seats.game_id), 0)")


def downgrade() -> None:
    with op.batch_alter_table('seats', schema=None) as batch_op:
        batch_op.drop_column('digest_at')
        batch_op.drop_column('told_seq')
        batch_op.drop_column('delivery')
    with op.batch_alter_table('games', schema=None) as batch_op:
        batch_op.drop_column('delivery')
