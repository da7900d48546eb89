"""asked decisions: each game mail that asks for a decision records which one, so a reply lands only on it

Revision ID: 0006
Revises: 0005
Create Date: 2026-11-23
"""
from typing import Sequence, Union

from alembic import op
import sqlalchemy as sa


revision: str = '0006'
down_revision: Union[str, None] = '0005'
branch_labels: Union[str, Sequence[str], None] = None
depends_on: Union[str, Sequence[str], None] = None


def upgrade() -> None:
    with op.batch_alter_table('outbox', schema=None) as batch_op:
        batch_op.add_column(sa.Column('decision', sa.Integer(), nullable=True))
        batch_op.add_column(sa.Column('decision_key', sa.String(120), server_default='', nullable=False))
        batch_op.add_column(sa.Column('decision_words', sa.String(255), server_default='', nullable=False))
        batch_op.create_index(batch_op.f('ix_outbox_decision'), ['game_id', 'decision'], unique=False)


def downgrade() -> None:
    with op.batch_alter_table('outbox', schema=None) as batch_op:
        batch_op.drop_index(batch_op.f('ix_outbox_decision'))
        batch_op.drop_column('decision_words')
        batch_op.drop_column('decision_key')
        batch_op.drop_column('decision')
