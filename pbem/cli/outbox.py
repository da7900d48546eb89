"""`pbem outbox ...`: the mails pbem has queued and sent. Each command wraps one service call."""

from __future__ import annotations

import json
from datetime import datetime
from typing import TYPE_CHECKING, Any, Optional

import typer

from ..limits import MAX_GAME_ID
from ..store.statuses import OutboxStatus
from .context import app_context, fail, out
from .game import service_errors
from .tables import Column, people_table, wide_option

if TYPE_CHECKING:
    from ..services.mail_out.outbox import OutboxEntry

app = typer.Typer(help="The outbox: every mail queued and sent.", no_args_is_help=True)


def _echo_json(doc: Any) -> None:
    typer.echo(json.dumps(doc, indent=2, default=str))


def _iso(moment: datetime | None) -> str | None:
    return moment.isoformat() if moment else None


def _time(moment: datetime | None) -> str:
    return moment.strftime("%Y-%m-%d %H:%M") if moment else "-"


def _existing(number: int | None, what: str) -> None:
    """Stop at a number no row can have: ids are INTEGERs (2**31 - 1 at most on every database), and a larger
    one must never reach the database (SQLite cannot even take one of 2**63)."""
    if number is not None and not 1 <= number <= MAX_GAME_ID:
        fail(f"there is no {what} {number}")


def _summary(e: OutboxEntry) -> dict[str, Any]:
    return {"id": e.id, "game": e.game_id, "recipient": e.recipient, "subject": e.subject, "status": e.status,
            "attempts": e.attempts, "created_at": _iso(e.created_at), "next_attempt_at": _iso(e.next_attempt_at),
            "sent_at": _iso(e.sent_at), "message_id": e.message_id, "last_error": e.last_error}


@app.command("list")
@service_errors
def outbox_list(
    ctx: typer.Context,
    game: Optional[int] = typer.Option(None, "--game", help="Only the mails of this game."),
    status: Optional[str] = typer.Option(None, "--status", help=f"Only mails with this status: {', '.join(OutboxStatus.ALL)}."),
    limit: Optional[int] = typer.Option(None, "--limit", help="Only the newest N mails (still listed oldest first)."),
    wide: bool = wide_option(),
    as_json: bool = typer.Option(False, "--json", help="Print JSON (without the bodies; see `pbem outbox show`)."),
) -> None:
    """List the mails in the outbox, oldest first: recipient, status, attempts and when it was sent; --wide
    adds the subject and when it was queued.

    Example:

        pbem outbox list --game 3 --status queued

        pbem outbox list --wide

        pbem outbox list --limit 20 --json
    """
    from ..services.mail_out.outbox import OutboxService

    _existing(game, "game")
    if limit is not None:
        limit = min(limit, MAX_GAME_ID)  # more than there can be mails: all of them
    entries = OutboxService(app_context(ctx).engine()).list(game_id=game, status=status, limit=limit)
    if as_json:
        _echo_json([_summary(e) for e in entries])
        return
    rows = [(str(e.id), str(e.game_id) if e.game_id is not None else "-", e.recipient, e.subject, e.status,
             str(e.attempts), _time(e.created_at), _time(e.sent_at)) for e in entries]
    out.print(people_table("outbox", (
        Column("id", whole=True, justify="right"), Column("game", whole=True, justify="right"), Column("recipient"),
        Column("subject", only="wide"), Column("status"), Column("attempts", justify="right"),
        Column("created", only="wide"), Column("sent")), rows, wide=wide))


@app.command("show")
@service_errors
def outbox_show(
    ctx: typer.Context,
    mail: int = typer.Argument(..., help="Mail number (the id in `pbem outbox list`)."),
    as_json: bool = typer.Option(False, "--json", help="Print JSON, with the headers and both bodies."),
) -> None:
    """Show one mail: its headers, subject, recipient and status, then the text part and the HTML part.

    Example:

        pbem outbox show 12

        pbem outbox show 12 --json
    """
    from ..services.mail_out.outbox import OutboxService

    _existing(mail, "mail")
    e = OutboxService(app_context(ctx).engine()).show(mail)
    if as_json:
        _echo_json({**_summary(e), "headers": e.headers, "text_body": e.text_body, "html_body": e.html_body})
        return
    for name, value in e.headers.items():
        typer.echo(f"{name}: {value}")
    typer.echo(f"Subject: {e.subject}")
    typer.echo(f"To: {e.recipient}")
    sent = f", sent {_time(e.sent_at)}" if e.sent_at else f", next attempt {_time(e.next_attempt_at)}"
    typer.echo(f"Status: {e.status} ({e.attempts} attempt{'' if e.attempts == 1 else 's'}, "
               f"created {_time(e.created_at)}{sent})")
    if e.last_error:
        typer.echo(f"Last error: {e.last_error}")
    typer.echo("")
    typer.echo("--- text part ---")
    typer.echo(e.text_body.rstrip("\n"))
    typer.echo("")
    if e.html_body:
        typer.echo("--- HTML part ---")
        typer.echo(e.html_body.rstrip("\n"))
    else:
        typer.echo("(no HTML part)")


@app.command("retry")
@service_errors
def outbox_retry(
    ctx: typer.Context,
    mails: Optional[list[int]] = typer.Argument(None, help="Mail numbers to retry (default: every failed mail)."),
) -> None:
    """Put failed mails back in the queue; the worker sends them on its next pass.

    Example:

        pbem outbox retry

        pbem outbox retry 12 13
    """
    from ..services.mail_out.outbox import OutboxService

    for mail in mails or []:
        _existing(mail, "mail")
    retried = OutboxService(app_context(ctx).engine()).retry(mails or None)
    typer.echo(f"Queued again: {', '.join(map(str, retried))}." if retried else "No failed mail to retry.")
