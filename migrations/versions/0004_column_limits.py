"""column limits: every text column of ours has a declared length

Revision ID: 0004
Revises: 0003
Create Date: 2026-11-23

pbem cuts every value to its column's limit before writing it (pbem.store.models.fit_row), so the limits
hold on both databases. Here PostgreSQL's columns get the same lengths; SQLite ignores a VARCHAR's length,
so its tables are left as they are rather than copied for nothing. A longer value already stored is cut
the way pbem would have cut it.
"""
from typing import Sequence, Union

from alembic import op
import sqlalchemy as sa


revision: str = '0004'
down_revision: Union[str, None] = '0003'
branch_labels: Union[str, Sequence[str], None] = None
depends_on: Union[str, Sequence[str], None] = None

LIMITS = {
    "games": {"kind": 40, "variant": 40, "status": 40},
    "seats": {"name": 200, "email": 254, "secret": 200},
    "events": {"actor": 254, "kind": 40, "source": 265},
    "inbound_mails": {"message_id": 255, "mailbox": 200, "sender": 254, "outcome": 40},
    "outbox": {"recipient": 254, "subject": 255, "status": 40, "message_id": 255},
    "decision_clocks": {"kind": 40},
    "absences": {"email": 254},
    "marks": {"name": 274},
}


def upgrade() -> None:
    if op.get_bind().dialect.name != "postgresql":
        return
    for table, columns in LIMITS.items():
        for column, length in columns.items():
            op.alter_column(table, column, type_=sa.String(length), existing_type=sa.String(),
                            postgresql_using=f"left({column}, {length})")


def downgrade() -> None:
    if op.get_bind().dialect.name != "postgresql":
        return
    for table, columns in LIMITS.items():
        for column in columns:
            op.alter_column(table, column, type_=sa.String(), existing_type=sa.String(columns[column]))
