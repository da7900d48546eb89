"""`pbem mail ...`: what the processor makes of players' mail."""

from __future__ import annotations

import json
from pathlib import Path

import typer
from rich.markup import escape

from ..words import plural
from .context import app_context, fail, out

MAX_MAIL_BYTES = 50 * 2**20  # larger than any mail server lets through

app = typer.Typer(help="Players' mail: see how a mail is read and answered.", no_args_is_help=True)


@app.command("explain")
def mail_explain(
    ctx: typer.Context,
    file: Path = typer.Argument(..., help="A mail as a .eml file (RFC 5322)."),
    as_json: bool = typer.Option(False, "--json", help="Print JSON."),
) -> None:
    """Show how a mail would be processed, without changing anything.

    The text that was read, the game and player it matches, each command and
    what it would do or why it would be refused, and the reply that would be sent.
    A mail the worker ignores (an auto-reply, a bounce, a list's mail, our own,
    a sender over the rate limit) shows only why: it is never answered.

    Example:

        pbem mail explain reply.eml

        pbem mail explain reply.eml --json
    """
    from ..services.mail_in.screening import explain

    try:
        if not file.is_file():  # a folder, or a device that never ends (/dev/zero)
            fail(f"{file} is not a mail file" if file.exists() else f"cannot read {file}: No such file or directory")
        with file.open("rb") as handle:
            raw = handle.read(MAX_MAIL_BYTES + 1)
    except OSError as exc:
        fail(f"cannot read {file}: {exc.strerror}")
    if len(raw) > MAX_MAIL_BYTES:
        fail(f"{file} is larger than {MAX_MAIL_BYTES // 2**20} MB, more than a mail server passes on")
    context = app_context(ctx)
    mail = context.config.mail
    explained = explain(raw, context.service(), game_address=mail.game_address if mail else "",
                        moderator=mail.moderator if mail else "", signup=context.config.signup)
    if as_json:
        typer.echo(json.dumps(explained.to_dict(), indent=2, default=str))
        return
    report = explained.report
    # What the mail says is the sender's text: escaped, never read as Rich markup.
    out.print(f"[bold]From:[/] {escape(report.sender or '(no sender)')}    [bold]Subject:[/] {escape(report.subject)}",
              highlight=False)
    if explained.ignored:
        out.print("[bold]Outcome:[/] ignored (changes nothing): the worker records this mail and does not process it",
                  highlight=False)
        out.print(f"[bold]Why:[/] {escape(explained.ignored)}", highlight=False)
        out.print("[bold]No reply:[/] ignored mail is never answered", highlight=False)
        return
    out.print(f"[bold]Read:[/] {report.text.body_type} body, {plural(len(report.text.lines), 'line')} of the player's own"
              + escape(f"; skipped: {', '.join(report.text.ignored)}" if report.text.ignored else ""), highlight=False)
    for line in report.text.lines:
        out.print(f"  | {line}", highlight=False, markup=False)
    game = f"game {report.game_id} (matched by {report.matched_by})" if report.game_id else "no game"
    seat = f", seat {report.seat + 1}" if report.seat is not None else ""
    decision = f", answers decision {report.decision} (now {report.current_decision})" if report.decision is not None else ""
    out.print(f"[bold]Matched:[/] {game}{seat}{decision}", highlight=False)
    out.print(f"[bold]Outcome:[/] {report.outcome}" + (" (would change the game)" if report.changed else " (changes nothing)"),
              highlight=False)
    for r in report.lines:
        out.print(f"  {r.status:>9}: {r.line}" + (f"  {r.read_from_words()}" if r.read_from else "")
                  + (f"  -- {r.note}" if r.note else ""), highlight=False, markup=False)
    if report.not_answered:
        out.print(f"[bold]No reply:[/] {escape(report.not_answered)}", highlight=False)
    elif report.reply_body:
        out.print(f"[bold]Reply to {escape(report.reply_to or '')}:[/] {escape(report.reply_subject or '')}", highlight=False)
        out.print(report.reply_body, highlight=False, markup=False)
