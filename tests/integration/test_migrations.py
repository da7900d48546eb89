"""The Alembic migrations and the SQLModel tables describe the same schema."""

from __future__ import annotations

import pytest
from alembic.autogenerate import compare_metadata
from alembic.runtime.migration import MigrationContext
from sqlalchemy import inspect

from pbem.store.db import SchemaError, current_revision, head_revision, make_engine, require_current_schema, upgrade
from pbem.store.models import metadata


def test_autogenerate_finds_no_difference(db_engine) -> None:
    with db_engine.connect() as connection:
        assert compare_metadata(MigrationContext.configure(connection), metadata) == []
    assert current_revision(db_engine) == head_revision(db_engine)
    require_current_schema(db_engine)


def test_a_new_database_is_behind_until_upgraded(tmp_path) -> None:
    engine = make_engine(f"sqlite:///{tmp_path / 'fresh' / 'pbem.sqlite3'}")
    with pytest.raises(SchemaError, match="run `pbem db upgrade`"):
        require_current_schema(engine)
    assert upgrade(engine) == (None, head_revision(engine))
    assert set(metadata.tables) <= set(inspect(engine).get_table_names())
    assert upgrade(engine) == (head_revision(engine), head_revision(engine))  # idempotent
    require_current_schema(engine)


def test_a_database_from_a_newer_pbem_says_so_and_is_left_alone(tmp_path) -> None:
    engine = make_engine(f"sqlite:///{tmp_path / 'newer.sqlite3'}")
    upgrade(engine)
    with engine.begin() as connection:
        connection.exec_driver_sql("UPDATE alembic_version SET version_num = '9999'")
    for call in (require_current_schema, upgrade):
        with pytest.raises(SchemaError, match="revision 9999, which this pbem does not know .*upgrade pbem"):
            call(engine)
    assert current_revision(engine) == "9999"
