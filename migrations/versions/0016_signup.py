"""signup: tables players open, join and start by mail, the requests waiting for their mailed code, and a game's
watchers (issue 36; services.table.signup)

Four new tables, nothing else changed: going down drops them with what they hold (open tables, waiting
requests, watchers); the games started from tables stay games.

Revision ID: 0016
Revises: 0015
Create Date: 2026-11-27
"""
from typing import Sequence, Union

from alembic import op
import sqlalchemy as sa


revision: str = '0016'
down_revision: Union[str, None] = '0015'
branch_labels: Union[str, Sequence[str], None] = None
depends_on: Union[str, Sequence[str], None] = None

ADDRESS, NAME, WORD = 254, 200, 40


def _when(name: str, nullable: bool) -> sa.Column:
    return sa.Column(name, sa.DateTime(timezone=True), nullable=nullable)


def upgrade() -> None:
    op.create_table(
        'signup_tables',
        sa.Column('id', sa.Integer(), nullable=False),
        sa.Column('kind', sa.String(WORD), nullable=False),
        sa.Column('options', sa.JSON(), nullable=False),
        sa.Column('timing', sa.JSON(), nullable=False),
        sa.Column('seats', sa.Integer(), nullable=False),
        sa.Column('opener', sa.String(ADDRESS), nullable=False),
        sa.Column('status', sa.String(WORD), nullable=False),
        sa.Column('game_id', sa.Integer(), nullable=True),
        _when('created_at', False),
        _when('started_at', True),
        sa.ForeignKeyConstraint(['game_id'], ['games.id'], name=op.f('fk_signup_tables_game_id_games')),
        sa.PrimaryKeyConstraint('id', name=op.f('pk_signup_tables')),
    )
    op.create_index(op.f('ix_signup_tables_opener'), 'signup_tables', ['opener'], unique=False)
    op.create_index(op.f('ix_signup_tables_status'), 'signup_tables', ['status'], unique=False)
    op.create_table(
        'signup_seats',
        sa.Column('id', sa.Integer(), nullable=False),
        sa.Column('table_id', sa.Integer(), nullable=False),
        sa.Column('email', sa.String(ADDRESS), nullable=False),
        sa.Column('name', sa.String(NAME), nullable=False),
        _when('joined_at', False),
        sa.ForeignKeyConstraint(['table_id'], ['signup_tables.id'], name=op.f('fk_signup_seats_table_id_signup_tables')),
        sa.PrimaryKeyConstraint('id', name=op.f('pk_signup_seats')),
        sa.UniqueConstraint('table_id', 'email', name=op.f('uq_signup_seats_table_id_email')),
    )
    op.create_index(op.f('ix_signup_seats_email'), 'signup_seats', ['email'], unique=False)
    op.create_index(op.f('ix_signup_seats_table_id'), 'signup_seats', ['table_id'], unique=False)
    op.create_table(
        'signup_requests',
        sa.Column('id', sa.Integer(), nullable=False),
        sa.Column('email', sa.String(ADDRESS), nullable=False),
        sa.Column('action', sa.String(WORD), nullable=False),
        sa.Column('data', sa.JSON(), nullable=False),
        sa.Column('code_hash', sa.String(64), nullable=False),
        _when('created_at', False),
        _when('expires_at', False),
        _when('done_at', True),
        sa.PrimaryKeyConstraint('id', name=op.f('pk_signup_requests')),
        sa.UniqueConstraint('code_hash', name=op.f('uq_signup_requests_code_hash')),
    )
    op.create_index(op.f('ix_signup_requests_email'), 'signup_requests', ['email'], unique=False)
    op.create_table(
        'watchers',
        sa.Column('id', sa.Integer(), nullable=False),
        sa.Column('game_id', sa.Integer(), nullable=False),
        sa.Column('email', sa.String(ADDRESS), nullable=False),
        _when('since', False),
        sa.Column('told_seq', sa.Integer(), server_default='0', nullable=False),
        _when('due_at', True),
        sa.ForeignKeyConstraint(['game_id'], ['games.id'], name=op.f('fk_watchers_game_id_games')),
        sa.PrimaryKeyConstraint('id', name=op.f('pk_watchers')),
        sa.UniqueConstraint('game_id', 'email', name=op.f('uq_watchers_game_id_email')),
    )
    op.create_index(op.f('ix_watchers_due_at'), 'watchers', ['due_at'], unique=False)
    op.create_index(op.f('ix_watchers_email'), 'watchers', ['email'], unique=False)
    op.create_index(op.f('ix_watchers_game_id'), 'watchers', ['game_id'], unique=False)


def downgrade() -> None:
    for table in ('watchers', 'signup_requests', 'signup_seats', 'signup_tables'):
        op.drop_table(table)
