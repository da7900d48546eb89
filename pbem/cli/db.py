"""`pbem db ...`: the database schema."""

from __future__ import annotations

import json
import sqlite3
from pathlib import Path
from typing import TYPE_CHECKING, Optional

import typer

from ..words import plural
from .context import AppContext, app_context, fail, out

if TYPE_CHECKING:
    from sqlalchemy import Engine

    from ..store.db import Revision

app = typer.Typer(help="The database: create it, bring it to the current schema, take it down to an older one, back it "
                       "up and check it.",
                  no_args_is_help=True)


@app.command("upgrade")
def db_upgrade(
    ctx: typer.Context,
    to: Optional[str] = typer.Option(None, "--to", metavar="REV", show_default=False,
                                     help="Stop at this revision (as `pbem db status` names them) instead of the "
                                          "newest."),
    as_json: bool = typer.Option(False, "--json", help="Print JSON."),
) -> None:
    """Create the database or migrate it to the schema this pbem needs (or to revision REV).

    A revision below the database's is refused: going down is `pbem db downgrade`.

    Example:

        pbem db upgrade

        pbem db upgrade --to 0012 --json

        pbem --db postgresql://127.0.0.1/pbem db upgrade
    """
    from sqlalchemy.exc import DBAPIError

    from ..store.db import SchemaError, revisions, upgrade

    context = app_context(ctx)
    engine = context.engine(check_schema=False, create=True)
    _refuse_damage(context, engine)
    try:
        before, after = upgrade(engine, to)
        applied = _between(revisions(engine), before, after)
    except SchemaError as exc:
        fail(f"cannot upgrade the database ({context.config.database_url_from}): {exc}")
    except DBAPIError as exc:
        fail(context.database_failure(exc))
    if as_json:
        _echo_json(context, engine, before, after, applied=applied)
    elif before == after:
        out.print(f"The database is already at revision {after or 'none'}.")
    else:
        out.print(f"Upgraded the database from {before or 'empty'} to revision {after}.")


@app.command("downgrade")
def db_downgrade(
    ctx: typer.Context,
    revision: str = typer.Argument(..., metavar="REV", show_default=False,
                                   help="The revision to go down to (`pbem db status` names the database's; "
                                        "`base` removes every table of pbem's)."),
    yes: bool = typer.Option(False, "--yes", help="Go down although the newer revisions' tables and columns are "
                                                  "dropped with what they hold."),
    as_json: bool = typer.Option(False, "--json", help="Print JSON."),
) -> None:
    """Take the database down to revision REV, for an older pbem: undo every newer migration.

    What the newer revisions added (tables, columns, and what they hold) is dropped, so it asks for --yes
    first; without it, it says what would be undone and changes nothing. Run it with the pbem that made the
    database (an older one does not know how to undo the newer revisions), with the workers stopped, after a
    backup.

    Example:

        pbem db downgrade 0012

        pbem db downgrade 0012 --yes --json
    """
    from sqlalchemy.exc import DBAPIError

    from ..store.db import SchemaError, downgrade, downgrade_plan

    context = app_context(ctx)
    engine = context.engine(check_schema=False)
    _refuse_damage(context, engine)
    try:
        before, undone = downgrade_plan(engine, revision)
        if undone and not yes:
            names = ", ".join(found.revision for found in undone)
            fail(f"going down from revision {before} to {revision} undoes {plural(len(undone), 'revision')} "
                 f"({names}): the tables and columns added since are dropped with what they hold; back the "
                 "database up, stop the workers, and add --yes to do it")
        before, after, undone = downgrade(engine, revision)
    except SchemaError as exc:
        fail(f"cannot downgrade the database ({context.config.database_url_from}): {exc}")
    except DBAPIError as exc:
        fail(context.database_failure(exc))
    if as_json:
        _echo_json(context, engine, before, after, undone=undone)
        return
    if not undone:
        out.print(f"The database is already at revision {after or 'none'}.")
        return
    from .tables import Column, people_table

    out.print(f"Downgraded the database from {before} to revision {after or 'none (no table of pbem left)'}.")
    out.print(people_table("undone", (Column("revision", whole=True), Column("what it had added")),
                           [(found.revision, found.title) for found in undone]))


@app.command("status")
def db_status(ctx: typer.Context, as_json: bool = typer.Option(False, "--json", help="Print JSON.")) -> None:
    """Say which database is used, where its URL came from, and whether its schema is current.

    Exit code 0 when the schema is the one this pbem needs; 1 when it is behind (or there is no database yet:
    `pbem db upgrade`) or ahead (written by a newer pbem: upgrade pbem), so a script can wait for it.

    Example:

        pbem db status --json
    """
    from sqlalchemy.exc import DBAPIError

    from ..store.db import current_revision, head_revision, known_revision, sqlite_file

    context = app_context(ctx)
    engine = context.engine(check_schema=False, missing_ok=True)
    path = sqlite_file(context.config.database_url)
    # A file that is not there or empty is looked at, not opened: SQLite would create it, or write its header.
    missing = path is not None and (not path.exists() or path.stat().st_size == 0)
    current = None
    if not missing:
        _refuse_damage(context, engine)
        try:
            current = current_revision(engine)
        except DBAPIError as exc:
            fail(context.database_failure(exc))
    head = head_revision(engine)
    if current == head:
        state = "current"
    elif current is not None and not known_revision(engine, current):
        state = "ahead"
    else:
        state = "behind"
    doc = {
        "url": engine.url.render_as_string(hide_password=True),
        "from": context.config.database_url_from,
        "revision": current,
        "head": head,
        "current": state == "current",
        "state": state,
    }
    if as_json:
        typer.echo(json.dumps(doc, indent=2))
    else:
        if missing:
            said = f"{'empty' if path and path.exists() else 'no such file'}: run `pbem db upgrade` to create it"
        elif state == "current":
            said = "current"
        elif state == "ahead":
            said = f"newer than this pbem knows (it needs {head}): upgrade pbem"
        else:
            said = "behind: run `pbem db upgrade`"
        out.print(f"database {doc['url']} (from {doc['from']}), revision {current or 'none'}, {said}", soft_wrap=True)
    if state != "current":
        raise typer.Exit(code=1)


@app.command("backup")
def db_backup(
    ctx: typer.Context,
    file: Path = typer.Argument(..., metavar="FILE", help="The new file the backup is written to (never overwritten)."),
    as_json: bool = typer.Option(False, "--json", help="Print JSON."),
) -> None:
    """Copy the SQLite database to FILE, safely while the worker runs (SQLite's online backup API).

    The copy is one consistent moment of the database, a single file; check it with `pbem db check FILE`.
    A PostgreSQL database is backed up with PostgreSQL's own pg_dump (the command says how).

    Example:

        pbem db backup /var/backups/pbem/pbem-$(date +%F).sqlite3

        pbem db check /var/backups/pbem/pbem-2026-11-29.sqlite3
    """
    from sqlalchemy.engine import make_url

    from ..store.db import DatabaseFileError, backup_sqlite, sqlite_file

    context = app_context(ctx)
    url = context.config.database_url
    if make_url(url).get_backend_name() != "sqlite":
        fail("pbem db backup copies SQLite files; back up PostgreSQL with its own pg_dump, which copies a running "
             "database consistently: pg_dump --format=custom --file=pbem.dump DBNAME (restore: pg_restore "
             "--dbname=NEWDB pbem.dump, then pbem --db postgresql://.../NEWDB db check)")
    context.engine()  # the file exists and is pbem's database at the current schema
    source = sqlite_file(url)
    assert source is not None
    try:
        size = backup_sqlite(source, file.expanduser())
    except DatabaseFileError as exc:
        fail(str(exc))
    except (OSError, sqlite3.Error) as exc:
        fail(f"the backup to {file} failed: {exc}; no file {file} was made")
    if as_json:
        typer.echo(json.dumps({"backup": str(file), "bytes": size}, indent=2))
    else:
        out.print(f"backed up {source} to {file} ({size:,} bytes); check it: pbem db check {file}",
                  highlight=False, markup=False, soft_wrap=True)


@app.command("check")
def db_check(
    ctx: typer.Context,
    file: Optional[Path] = typer.Argument(None, metavar="[FILE]", show_default=False,
                                          help="A SQLite file to check (a backup); without it, the database in use."),
    as_json: bool = typer.Option(False, "--json", help="Print JSON."),
) -> None:
    """Check a database or a backup: its schema revision, the rows of each table, and every game replayed.

    Each game is played again from its seed and the commands in force, and must come to the state its stored
    snapshot and later events give. Exit code 0 when all holds, 1 with one line for each problem. It only reads.

    Example:

        pbem db check /var/backups/pbem/pbem-2026-11-29.sqlite3

        pbem db check --json

        pbem --db postgresql://pbem@127.0.0.1/restored db check
    """
    from sqlalchemy.exc import DBAPIError

    from ..services.table.database_check import check_database
    from ..store.db import DatabaseFileError, check_sqlite_file, make_engine

    context = app_context(ctx)
    if file is None:
        engine = context.engine(check_schema=False)
        where = context.where
    else:
        path = file.expanduser()
        try:
            check_sqlite_file(path)
        except DatabaseFileError as exc:
            fail(str(exc))
        engine = make_engine(f"sqlite:///{path.resolve()}", create_folder=False)
        where = str(path)
    try:
        found = check_database(engine)
    except DBAPIError as exc:
        fail(f"cannot read {where}: {exc.orig if getattr(exc, 'orig', None) else exc}")
    finally:
        engine.dispose()
    if as_json:
        typer.echo(json.dumps({"database": where, **found.to_dict()}, indent=2))
    else:
        for problem in found.problems:
            out.print(f"problem: {problem}", highlight=False, markup=False, soft_wrap=True)
        rows = ", ".join(f"{count} {name}" for name, count in found.counts.items())
        out.print(f"{where}: revision {found.revision or 'none'}; {plural(found.games, 'game')} replayed to its "
                  f"stored state; {rows or 'no rows counted'}", highlight=False, markup=False, soft_wrap=True)
        if found.sound:
            out.print("sound", highlight=False)
    if not found.sound:
        raise typer.Exit(code=1)


def _between(known: list[Revision], before: str | None, after: str | None) -> list[Revision]:
    """The revisions an upgrade from ``before`` to ``after`` applied, oldest first."""
    names = [found.revision for found in known]
    start = names.index(before) + 1 if before in names else 0
    end = names.index(after) + 1 if after in names else 0
    return known[start:end]


def _echo_json(context: AppContext, engine: Engine, before: str | None, after: str | None, **done: list[Revision]) \
        -> None:
    doc = {"url": engine.url.render_as_string(hide_password=True), "from": context.config.database_url_from,
           "before": before, "after": after}
    doc.update({key: [{"revision": found.revision, "title": found.title} for found in found_list]
                for key, found_list in done.items()})
    typer.echo(json.dumps(doc, indent=2))


def _refuse_damage(context: AppContext, engine: Engine) -> None:
    """Stop with one line if SQLite finds the database file damaged (it reads every page)."""
    from sqlalchemy.exc import DBAPIError

    from ..store.db import sqlite_damage, sqlite_file

    try:
        damage = sqlite_damage(engine)
    except DBAPIError as exc:
        fail(context.database_failure(exc))
    if damage:
        fail(f"the database {sqlite_file(context.config.database_url)} is damaged: {damage}; nothing was changed")
