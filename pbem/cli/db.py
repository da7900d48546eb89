"""`pbem db ...`: the database schema."""

from __future__ import annotations

import json

import typer
from sqlalchemy.exc import OperationalError

from ..store.db import SchemaError, current_revision, head_revision, known_revision, upgrade
from .context import app_context, fail, out

app = typer.Typer(help="The database: create it or bring it to the current schema.", no_args_is_help=True)


@app.command("upgrade")
def db_upgrade(ctx: typer.Context) -> None:
    """Create the database or migrate it to the schema this pbem needs.

    Example:

        pbem db upgrade

        pbem --db postgresql://127.0.0.1/pbem db upgrade
    """
    context = app_context(ctx)
    engine = context.engine(check_schema=False)
    try:
        before, after = upgrade(engine)
    except (OperationalError, SchemaError) as exc:
        fail(f"cannot upgrade the database ({context.config.database_url_from}): {getattr(exc, 'orig', exc)}")
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
    context = app_context(ctx)
    engine = context.engine(check_schema=False)
    try:
        current = current_revision(engine)
    except OperationalError as exc:
        fail(f"cannot reach the database ({context.config.database_url_from}): {exc.orig}")
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
    if doc["current"]:
        state = "current"
    elif current is not None and not known_revision(engine, current):
        state = f"newer than this pbem knows (it needs {head}): upgrade pbem"
    else:
        state = "behind: run `pbem db upgrade`"
    out.print(f"database {doc['url']} (from {doc['from']}), revision {current or 'none'}, {state}", soft_wrap=True)
