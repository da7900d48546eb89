"""archive: whether the archive's web site shows a game, and the players it shows without their name

Revision ID: 0010
Revises: 0009
Create Date: 2026-11-26
"""
from typing import Sequence, Union

from alembic import op
import sqlalchemy as sa


revision: str = '0010'
down_revision: Union[str, None] = '0009'
branch_labels: Union[str, Sequence[str], None] = None
depends_on: Union[str, Sequence[str], None] = None


def upgrade() -> None:
    with op.batch_alter_table('games', schema=None) as batch_op:
        batch_op.add_column(sa.Column('archive', sa.String(40), server_default='yes', nullable=False))
    op.create_table(
        'archive_hidden_players',
        sa.Column('key', sa.String(40), nullable=False),
        sa.Column('hidden_at', sa.DateTime(timezone=True), nullable=False),
        sa.PrimaryKeyConstraint('key', name=op.f('pk_archive_hidden_players')),
    )


def downgrade() -> None:
    op.drop_table('archive_hidden_players')
    with op.batch_alter_table('games', schema=None) as batch_op:
        batch_op.drop_column('archive')
