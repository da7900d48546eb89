"""`pbem worker` and `pbem config check`: the mail side."""

from __future__ import annotations

import json
import signal
import threading
from typing import TYPE_CHECKING, Optional

import typer

from ..logs import FORMATS, LEVELS, LogSettings, Say, configured
from ..words import plural
from .context import AppContext, app_context, fail, out

if TYPE_CHECKING:
    from ..config import MailConfig

config_app = typer.Typer(help="The configuration: see whether it works.", no_args_is_help=True)


def _mail_config(ctx: typer.Context) -> MailConfig:
    """The mail settings with their password files read: the worker and the check log in to the servers."""
    return app_context(ctx).mail(required=True)  # type: ignore[return-value]


def _choice(value: str | None, choices: tuple[str, ...], option: str) -> str | None:
    """An option's value, one of ``choices`` in any case; anything else is one error line (exit code 1)."""
    if value is None or value.strip().lower() in choices:
        return None if value is None else value.strip().lower()
    fail(f"{option} must be one of {', '.join(choices)}, not {value!r}")


def worker(
    ctx: typer.Context,
    once: bool = typer.Option(False, "--once", help="Do one pass (read the mailbox, answer, send the outbox) and exit."),
    log_format: Optional[str] = typer.Option(
        None, "--log-format", metavar="text|json", show_default=False,
        help="The log's lines: text (default; under systemd with journald priorities and no time of our own) or "
             "json (one object a line). Default: [worker] log_format, PBEM_LOG_FORMAT, else text."),
    log_level: Optional[str] = typer.Option(
        None, "--log-level", metavar="debug|info|warning|error", show_default=False,
        help="The least level logged. Default: [worker] log_level, PBEM_LOG_LEVEL, else info."),
) -> None:
    """Read the game mailbox, apply the players' commands, answer, and send the outbox.

    Without --once it runs until stopped (SIGTERM or Ctrl-C finish the current mail first),
    one pass every poll interval.

    The log: info lines on stdout, warnings and errors on stderr; under systemd each line carries its
    priority for the journal (journalctl -p err -u pbem-worker lists the errors).

    Example:

        pbem worker --once

        pbem worker

        pbem worker --log-format json --log-level warning
    """
    chosen = _choice(log_format, FORMATS, "--log-format"), _choice(log_level, LEVELS, "--log-level")
    context = app_context(ctx)
    settings = context.config.log  # the config file's and the environment's, checked with the rest
    mail = _mail_config(ctx)
    with configured(LogSettings(format=chosen[0] or settings.format, level=chosen[1] or settings.level)):
        _work(context, mail, once)


def _work(context: AppContext, mail: MailConfig, once: bool) -> None:
    from imapclient.exceptions import IMAPClientError

    from ..worker import MailWorker
    from ..store.db import is_transient

    log = Say("pbem.worker")
    # Started while the database restarts, it waits a little (issue 40). Its commits are flushed once a batch of
    # mails, before they leave the mailbox, and before a mail is sent (docs/architecture.md, "Power cuts").
    engine = context.engine(patient=log.warning, flushed=False)
    runner = MailWorker(engine, mail, mail_domain=context.config.mail_domain, archive=context.config.archive,
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
            f"{len(report.sent.retry)} to retry, {len(report.sent.failed)} failed", read=len(report.processed),
            sent=len(report.sent.sent), retry=len(report.sent.retry), failed=len(report.sent.failed))
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
