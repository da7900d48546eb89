"""The Alembic migrations and the SQLModel tables describe the same schema."""

from __future__ import annotations

from pathlib import Path

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


def test_the_migration_files_name_their_revisions_in_one_line(tmp_path) -> None:
    """The quick schema check every command makes (``require_current_schema``) reads the newest revision from the
    file names: each file is named after its revision, its parent is the file before it, and the last is
    Alembic's head."""
    from alembic.script import ScriptDirectory

    from pbem.store.db import alembic_config, shipped_revisions

    engine = make_engine(f"sqlite:///{tmp_path / 'names.sqlite3'}")
    script = ScriptDirectory.from_config(alembic_config(engine))
    revisions = shipped_revisions()
    assert revisions == sorted(r.revision for r in script.walk_revisions())
    for parent, child in zip([None] + revisions, revisions):
        assert script.get_revision(child).down_revision == parent
        assert len(list((Path(script.dir) / "versions").glob(f"{child}_*.py"))) == 1, child
    assert revisions[-1] == head_revision(engine)


def test_the_quick_check_reads_the_revision_alembic_wrote(tmp_path) -> None:
    from pbem.store.db import stored_revision

    engine = make_engine(f"sqlite:///{tmp_path / 'quick.sqlite3'}")
    assert stored_revision(engine) is None
    with pytest.raises(SchemaError, match="not initialised"):
        require_current_schema(engine)
    upgrade(engine)
    assert stored_revision(engine) == current_revision(engine) == head_revision(engine)
    require_current_schema(engine)
