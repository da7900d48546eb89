"""`pbem db ...`: the database schema."""

from __future__ import annotations

import json
from typing import TYPE_CHECKING

import typer

from .context import AppContext, app_context, fail, out

if TYPE_CHECKING:
    from sqlalchemy import Engine

app = typer.Typer(help="The database: create it or bring it to the current schema.", no_args_is_help=True)


@app.command("upgrade")
def db_upgrade(ctx: typer.Context) -> None:
    """Create the database or migrate it to the schema this pbem needs.

    Example:

        pbem db upgrade

        pbem --db postgresql://127.0.0.1/pbem db upgrade
    """
    from sqlalchemy.exc import DBAPIError

    from ..store.db import SchemaError, upgrade

    context = app_context(ctx)
    engine = context.engine(check_schema=False, create=True)
    _refuse_damage(context, engine)
    try:
        before, after = upgrade(engine)
    except SchemaError as exc:
        fail(f"cannot upgrade the database ({context.config.database_url_from}): {exc}")
    except DBAPIError as exc:
        fail(context.database_failure(exc))
    if before == after:
        out.print(f"The database is already at revision {after}.")
    else:
        out.print(f"Upgraded the database from {before or 'empty'} to revision {after}.")


@app.command("status")
def db_status(ctx: typer.Context, as_json: bool = typer.Option(False, "--json", help="Print JSON.")) -> None:
    """Say which database is used, where its URL came from, and whether its schema is current.

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
    doc = {
        "url": engine.url.render_as_string(hide_password=True),
        "from": context.config.database_url_from,
        "revision": current,
        "head": head,
        "current": current == head,
    }
    if as_json:
        typer.echo(json.dumps(doc, indent=2))
        return
    if missing:
        state = f"{'empty' if path and path.exists() else 'no such file'}: run `pbem db upgrade` to create it"
    elif doc["current"]:
        state = "current"
    elif current is not None and not known_revision(engine, current):
        state = f"newer than this pbem knows (it needs {head}): upgrade pbem"
    else:
        state = "behind: run `pbem db upgrade`"
    out.print(f"database {doc['url']} (from {doc['from']}), revision {current or 'none'}, {state}", soft_wrap=True)


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
