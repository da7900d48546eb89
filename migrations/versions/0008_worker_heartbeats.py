"""worker heartbeats: each worker's sign of life and what it last saw in the mailbox (pbem status)

Revision ID: 0008
Revises: 0007
Create Date: 2026-11-25
"""
from typing import Sequence, Union

from alembic import op
import sqlalchemy as sa


revision: str = '0008'
down_revision: Union[str, None] = '0007'
branch_labels: Union[str, Sequence[str], None] = None
depends_on: Union[str, Sequence[str], None] = None


def upgrade() -> None:
    op.create_table(
        'worker_heartbeats',
        sa.Column('token', sa.String(40), nullable=False),
        sa.Column('host', sa.String(200), nullable=False),
        sa.Column('pid', sa.BigInteger(), nullable=False),
        sa.Column('mode', sa.String(40), nullable=False),
        sa.Column('beat_interval', sa.Float(), nullable=False),
        sa.Column('started_at', sa.DateTime(timezone=True), nullable=False),
        sa.Column('beat_at', sa.DateTime(timezone=True), nullable=False),
        sa.Column('stopped_at', sa.DateTime(timezone=True), nullable=True),
        sa.Column('trouble', sa.Text(), nullable=False),
        sa.Column('mailbox_read_at', sa.DateTime(timezone=True), nullable=True),
        sa.Column('mail_found', sa.Integer(), nullable=True),
        sa.Column('mail_found_oldest', sa.DateTime(timezone=True), nullable=True),
        sa.Column('pass_ended_at', sa.DateTime(timezone=True), nullable=True),
        sa.Column('mail_left', sa.Integer(), nullable=True),
        sa.Column('mail_left_oldest', sa.DateTime(timezone=True), nullable=True),
        sa.PrimaryKeyConstraint('token', name=op.f('pk_worker_heartbeats')),
    )


def downgrade() -> None:
    op.drop_table('worker_heartbeats')
