"""archive secret: a player's key on the archive's site is an HMAC of their address with a secret made once, here

The players hidden so far get their keys anew.

Revision ID: 0013
Revises: 0012
Create Date: 2026-11-27
"""
import hashlib
import hmac
import json
import secrets
from datetime import datetime, timezone
from typing import Sequence, Union

from alembic import op
import sqlalchemy as sa


revision: str = '0013'
down_revision: Union[str, None] = '0012'
branch_labels: Union[str, Sequence[str], None] = None
depends_on: Union[str, Sequence[str], None] = None

# Both formulas as they are at this revision (pbem.archive.history may change later; this file must not).
OLD_SALT = "pbem-archive:"


def _old_key(email: str) -> str:
    return hashlib.sha256((OLD_SALT + email.strip().lower()).encode("utf-8")).hexdigest()[:12]


def _new_key(secret: str, email: str) -> str:
    return hmac.new(bytes.fromhex(secret), email.strip().lower().encode("utf-8"), hashlib.sha256).hexdigest()[:12]


def _addresses(bind: sa.engine.Connection) -> set[str]:
    """Every address the archive may show a player for: the seats', and those of players replaced since."""
    found = set(bind.execute(sa.text("SELECT DISTINCT email FROM seats")).scalars())
    for data in bind.execute(sa.text("SELECT data FROM events WHERE kind = 'replace_player'")).scalars():
        data = json.loads(data) if isinstance(data, str) else (data or {})
        found |= {side["email"] for side in (data.get("old"), data.get("new"))
                  if isinstance(side, dict) and side.get("email")}
    return found


def _rekey(bind: sa.engine.Connection, key_of: dict[str, str], legacy: bool) -> None:
    """Every row of archive_hidden_players whose key ``key_of`` knows gets the key it maps to; the rest are
    marked ``legacy`` (upgrade: a player in no game yet, whose address only the old formula can be matched
    against when they first play)."""
    table = sa.table('archive_hidden_players', sa.column('key', sa.String), sa.column('hidden_at', sa.DateTime),
                     sa.column('legacy', sa.Boolean))
    rows = bind.execute(sa.select(table.c.key, table.c.hidden_at)).all()
    kept = {key for key, _ in rows}
    for key, hidden_at in rows:
        bind.execute(table.delete().where(table.c.key == key))
        new = key_of.get(key)
        if new is None:
            bind.execute(table.insert().values(key=key, hidden_at=hidden_at, legacy=legacy))
        elif new not in kept or new == key:
            bind.execute(table.insert().values(key=new, hidden_at=hidden_at, legacy=False))
            kept.add(new)


def upgrade() -> None:
    op.create_table(
        'archive_secret',
        sa.Column('id', sa.Integer(), autoincrement=False, nullable=False),
        sa.Column('secret', sa.String(64), nullable=False),
        sa.Column('generation', sa.BigInteger(), server_default='0', nullable=False),
        sa.Column('created_at', sa.DateTime(timezone=True), nullable=False),
        sa.PrimaryKeyConstraint('id', name=op.f('pk_archive_secret')),
    )
    with op.batch_alter_table('archive_hidden_players', schema=None) as batch_op:
        batch_op.add_column(sa.Column('legacy', sa.Boolean(), server_default=sa.false(), nullable=False))
    bind = op.get_bind()
    secret = secrets.token_hex(32)
    bind.execute(sa.text("INSERT INTO archive_secret (id, secret, generation, created_at)"
                         " VALUES (1, :secret, 1, :now)"), {"secret": secret, "now": datetime.now(timezone.utc)})
    # The players hidden so far were kept by the old, unkeyed key: whoever played (or was replaced) by an address
    # whose old key is hidden stays hidden under the new key.
    if bind.execute(sa.text("SELECT COUNT(*) FROM archive_hidden_players")).scalar_one():
        _rekey(bind, {_old_key(email): _new_key(secret, email) for email in _addresses(bind)}, legacy=True)


def downgrade() -> None:
    bind = op.get_bind()
    secret = bind.execute(sa.text("SELECT secret FROM archive_secret WHERE id = 1")).scalar()
    if secret and bind.execute(sa.text("SELECT COUNT(*) FROM archive_hidden_players")).scalar_one():
        _rekey(bind, {_new_key(secret, email): _old_key(email) for email in _addresses(bind)}, legacy=False)
    with op.batch_alter_table('archive_hidden_players', schema=None) as batch_op:
        batch_op.drop_column('legacy')
    op.drop_table('archive_secret')
