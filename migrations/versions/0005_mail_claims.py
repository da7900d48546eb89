"""mail claims: several workers on one mailbox; who sends an outbox row; refused mail owed to a seat

Revision ID: 0005
Revises: 0004
Create Date: 2026-11-23
"""
from typing import Sequence, Union

from alembic import op
import sqlalchemy as sa


revision: str = '0005'
down_revision: Union[str, None] = '0004'
branch_labels: Union[str, Sequence[str], None] = None
depends_on: Union[str, Sequence[str], None] = None


def upgrade() -> None:
    op.create_table(
        'mail_claims',
        sa.Column('mailbox', sa.String(200), nullable=False),
        sa.Column('uidvalidity', sa.BigInteger(), nullable=False),
        sa.Column('uid', sa.BigInteger(), nullable=False),
        sa.Column('owner', sa.String(120), nullable=False),
        sa.Column('until', sa.DateTime(timezone=True), nullable=False),
        sa.PrimaryKeyConstraint('mailbox', 'uidvalidity', 'uid', name=op.f('pk_mail_claims')),
    )
    with op.batch_alter_table('outbox', schema=None) as batch_op:
        batch_op.add_column(sa.Column('claimed_by', sa.String(120), server_default='', nullable=False))
    with op.batch_alter_table('inbound_mails', schema=None) as batch_op:
        batch_op.add_column(sa.Column('seat_email', sa.String(254), server_default='', nullable=False))


def downgrade() -> None:
    with op.batch_alter_table('inbound_mails', schema=None) as batch_op:
        batch_op.drop_column('seat_email')
    with op.batch_alter_table('outbox', schema=None) as batch_op:
        batch_op.drop_column('claimed_by')
    op.drop_table('mail_claims')
