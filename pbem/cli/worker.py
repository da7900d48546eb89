"""`pbem worker` and `pbem config check`: the mail side."""

from __future__ import annotations

import json
import signal
import sys
import threading
from datetime import datetime, timezone
from typing import TYPE_CHECKING

import typer

from ..words import plural
from .context import app_context, fail, out

if TYPE_CHECKING:
    from ..config import MailConfig

config_app = typer.Typer(help="The configuration: see whether it works.", no_args_is_help=True)


def _mail_config(ctx: typer.Context) -> MailConfig:
    """The mail settings with their password files read: the worker and the check log in to the servers."""
    return app_context(ctx).mail(required=True)  # type: ignore[return-value]


_WRITING = threading.Lock()  # a relay thread may log too: whole lines, never two run together


def log_line(line: str) -> None:
    """The worker's log: one line with the time. A plain write, not the console's: a rich print costs about a
    millisecond, and a line is written for every mail (bench/mail.py). Module-level: the outbox process gets
    it by name."""
    with _WRITING:
        sys.stdout.write(f"{datetime.now(timezone.utc):%Y-%m-%d %H:%M:%S} {line}\n")
        sys.stdout.flush()


def worker(
    ctx: typer.Context,
    once: bool = typer.Option(False, "--once", help="Do one pass (read the mailbox, answer, send the outbox) and exit."),
) -> None:
    """Read the game mailbox, apply the players' commands, answer, and send the outbox.

    Without --once it runs until stopped (SIGTERM or Ctrl-C finish the current mail first),
    one pass every poll interval.

    Example:

        pbem worker --once

        pbem worker
    """
    from imapclient.exceptions import IMAPClientError

    from ..worker import MailWorker
    from ..store.db import is_transient

    context = app_context(ctx)
    mail = _mail_config(ctx)
    log = log_line
    # Started while the database restarts, it waits a little (issue 40). Its commits are flushed once a batch of
    # mails, before they leave the mailbox, and before a mail is sent (docs/architecture.md, "Power cuts").
    engine = context.engine(patient=log, flushed=False)
    runner = MailWorker(engine, mail, log=log, mail_domain=context.config.mail_domain, archive=context.config.archive,
                        signup=context.config.signup)
    if once:
        try:
            report = runner.run_once()
        except (IMAPClientError, OSError) as exc:
            fail(f"the mail server failed: {exc}")
        except Exception as exc:
            if not is_transient(exc):
                raise
            fail(f"the database failed: {str(exc).strip().splitlines()[0] if str(exc).strip() else type(exc).__name__}")
        log(f"pass: {plural(len(report.processed), 'mail')} read, {len(report.sent.sent)} sent, "
            f"{len(report.sent.retry)} to retry, {len(report.sent.failed)} failed")
        return
    stop = threading.Event()

    def request_stop(signum: int, _frame: object) -> None:
        log(f"{signal.Signals(signum).name}: finishing the current mail, then stopping")
        stop.set()

    for signum in (signal.SIGTERM, signal.SIGINT):
        signal.signal(signum, request_stop)
    runner.run_forever(stop.is_set)
    log("stopped")


def config_check(ctx: typer.Context, as_json: bool = typer.Option(False, "--json", help="Print JSON.")) -> None:
    """Connect to the database, the IMAP server and the SMTP server, and say what works.

    Exit code 1 when the IMAP or SMTP server fails (each is tried, and --json says which); a database that
    cannot be used, or no mail settings at all, stop it first with one line, as every command.

    Example:

        pbem config check

        pbem config check --json
    """
    from imapclient.exceptions import IMAPClientError

    import asyncio

    import aiosmtplib

    from ..adapters.imap_inbox import Inbox
    from ..store.db import stored_revision
    from .context import shown_url

    context = app_context(ctx)
    engine = context.engine()
    facts: dict[str, dict[str, object]] = {"database": {
        "url": shown_url(context.config.database_url), "from": context.config.database_url_from, "ok": True,
        "revision": stored_revision(engine)}}
    mail = _mail_config(ctx)

    def say(text: str) -> None:  # as each check ends: a server that does not answer takes 20 s
        if not as_json:
            out.print(text, highlight=False)

    say(f"database: {context.config.database_url_from}\n  ok: reachable, schema current")
    imap = facts["imap"] = {"host": mail.imap.host, "port": mail.imap.port, "security": mail.imap.security,
                            "user": mail.imap.user, "mailbox": mail.mailbox, "ok": False, "mails": None,
                            "error": None}
    try:
        with Inbox(mail.imap, timeout=20) as inbox:
            box = inbox.open(mail.mailbox)
        imap.update(ok=True, mails=len(box.uids))
        say(f"imap {mail.imap.host}:{mail.imap.port} ({mail.imap.security})\n  ok: logged in as "
            f"{mail.imap.user}, {mail.mailbox} holds {plural(len(box.uids), 'mail')}")
    except (IMAPClientError, OSError) as exc:
        imap["error"] = str(exc)
        say(f"imap {mail.imap.host}:{mail.imap.port}\n  FAILED: {exc}")

    async def login() -> None:
        client = aiosmtplib.SMTP(hostname=mail.smtp.host, port=mail.smtp.port, use_tls=mail.smtp.security == "ssl",
                                 start_tls=True if mail.smtp.security == "starttls" else False, timeout=20)
        await client.connect()
        if mail.smtp.user:
            await client.login(mail.smtp.user, mail.smtp.password)
        await client.quit()

    smtp = facts["smtp"] = {"host": mail.smtp.host, "port": mail.smtp.port, "security": mail.smtp.security,
                            "user": mail.smtp.user, "ok": False, "error": None}
    try:
        asyncio.run(login())
        smtp["ok"] = True
        say(f"smtp {mail.smtp.host}:{mail.smtp.port} ({mail.smtp.security})\n  ok: connected"
            + (" and logged in" if mail.smtp.user else ""))
    except (aiosmtplib.SMTPException, OSError) as exc:
        smtp["error"] = str(exc)
        say(f"smtp {mail.smtp.host}:{mail.smtp.port}\n  FAILED: {exc}")
    works = bool(imap["ok"] and smtp["ok"])
    if as_json:
        typer.echo(json.dumps({"ok": works, **facts}, indent=2))
    if not works:
        raise typer.Exit(code=1)


config_app.command("check")(config_check)
