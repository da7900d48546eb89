"""What every command needs: the configuration, the database, the service.

Built lazily, so `pbem --help` and `pbem sim` never touch a database. Imported by every command module, so it
imports nothing heavy at its top: the database layer and the services are loaded by the command that needs them
(a command that only reads loads no mail code; `pbem --version` loads none of this).
"""

from __future__ import annotations

from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Callable, NoReturn

import typer
from rich.console import Console
from rich.markup import escape

from ..config import Config, ConfigError, load_config
from ..words import plural

if TYPE_CHECKING:
    from sqlalchemy import Engine
    from sqlalchemy.exc import DBAPIError

    from ..config import MailConfig
    from ..services.table.game_reader import GameReader
    from ..services.table.service import GameService
    from ..services.mail_out.send_now import SentNow

out = Console()
err = Console(stderr=True)
BACKENDS = ("sqlite", "postgresql")


def say_error(message: str) -> None:
    """One line on stderr: ``error: <message>``.

    A driver's message over several lines is joined; what the user typed (a command line, an
    address) may hold brackets, so the message is never read as Rich markup.
    """
    from ..logs import to_journal

    message = " ".join(str(message).split())
    # Under systemd (stderr is the journal's stream): the priority for journald, so `journalctl -p err` finds it.
    journal = "<3>" if to_journal(err.file) else ""
    err.print(f"{journal}[bold red]error:[/] {escape(message)}", highlight=False, soft_wrap=True)


def fail(message: str) -> NoReturn:
    """One clear line on stderr and exit code 1."""
    say_error(message)
    raise typer.Exit(code=1)


def shown_url(url: str) -> str:
    """A database URL as it may be printed: without its password."""
    from sqlalchemy.engine import make_url
    from sqlalchemy.exc import ArgumentError

    try:
        return make_url(url).render_as_string(hide_password=True)
    except ArgumentError:
        return url


def first_line(exc: BaseException) -> str:
    """The first line of what a database driver says (its own exception under SQLAlchemy's)."""
    orig = getattr(exc, "orig", None) or exc
    text = str(orig).strip()
    return text.splitlines()[0] if text else type(orig).__name__


@dataclass
class AppContext:
    db: str | None = None
    config_file: Path | None = None
    _config: Config | None = field(default=None, repr=False)
    _mail: MailConfig | None = field(default=None, repr=False)
    _engine: Engine | None = field(default=None, repr=False)

    @property
    def config(self) -> Config:
        """The configuration, checked whole (pbem.config): a file, a key, a variable or a value pbem does not
        know stops the command here, before any database or folder is touched."""
        if self._config is None:
            try:
                self._config = load_config(self.db, self.config_file)
            except ConfigError as exc:
                fail(str(exc))
        return self._config

    def mail(self, *, required: bool = True) -> MailConfig | None:
        """The mail settings with the password files read, for a command that logs in to a mail server. Only
        such a command reads them: the others run when a password file cannot be read. None (``required``
        false) when no mail servers are configured."""
        mail = self.config.mail
        if mail is None:
            if required:
                from ..resources import doc_page

                fail("no mail servers configured: set [imap] and [smtp] in the config file or "
                     f"PBEM_IMAP_HOST/PBEM_SMTP_HOST (see {doc_page('cli.md')})")
            return None
        if self._mail is None:
            try:
                self._mail = mail.with_secrets()
            except ConfigError as exc:
                fail(str(exc))
        return self._mail

    @property
    def where(self) -> str:
        """The database for people: its URL without the password, and where the URL came from."""
        return f"{shown_url(self.config.database_url)} ({self.config.database_url_from})"

    def engine(self, *, check_schema: bool = True, create: bool = False, missing_ok: bool = False,
               patient: Callable[[str], None] | None = None, flushed: bool = True) -> Engine:
        """The database. A SQLite file must exist and be a database; ``create`` (pbem db upgrade) lets a new file
        be made (and the folder of the default location), ``missing_ok`` only looks (pbem db status).
        ``patient`` (the worker, which a supervisor starts while the database may be restarting): the schema check
        is tried again while the database fails under it, each try told to this log, before the one error line.
        ``flushed=False`` (the worker): commits are not flushed one by one (store.db.make_engine)."""
        from sqlalchemy.engine import make_url
        from sqlalchemy.exc import ArgumentError, DBAPIError, SQLAlchemyError

        from ..store.db import (DatabaseFileError, SchemaError, check_sqlite_file, make_engine, patiently,
                                require_current_schema, sqlite_file)

        if self._engine is None:
            url = self.config.database_url
            try:
                backend = make_url(url).get_backend_name()
                path = sqlite_file(url)
            except (ArgumentError, ValueError):  # (pbem.config has refused what it can see without SQLAlchemy)
                fail(f"{shown_url(url)} ({self.config.database_url_from}) is not a database URL; use "
                     "sqlite:///path/to/file.sqlite3 or postgresql://user@host:5432/dbname")
            if backend not in BACKENDS:
                fail(f"cannot use the database {self.where}: pbem works with {' and '.join(BACKENDS)} URLs, "
                     f"not {backend}")
            folder = create and self.config.database_url_from == "default"
            if path is not None:
                try:
                    check_sqlite_file(path, may_create=create or missing_ok, create_folder=folder or missing_ok)
                except DatabaseFileError as exc:
                    fail(str(exc))
            try:
                self._engine = make_engine(url, create_folder=folder, flushed=flushed)
            except (SQLAlchemyError, ValueError, ImportError) as exc:
                fail(f"cannot use the database {self.where}: {first_line(exc)}")
        if check_schema:
            engine = self._engine
            try:
                if patient is None:
                    require_current_schema(engine)
                else:
                    patiently(lambda: require_current_schema(engine), what="checking the schema", log=patient)
            except SchemaError as exc:
                fail(str(exc))
            except DBAPIError as exc:
                fail(self.database_failure(exc))
        return self._engine

    def database_failure(self, exc: DBAPIError) -> str:
        """One line for a database that failed under a command: damaged, unreachable, or refusing."""
        from sqlalchemy.engine import make_url
        from sqlalchemy.exc import OperationalError

        from ..store.db import is_damage, read_only_file, sqlite_file

        url = self.config.database_url
        path = sqlite_file(url) if make_url(url).get_backend_name() == "sqlite" else None
        if is_damage(exc):
            return f"the database {path or self.where} is damaged: {first_line(exc)}; nothing was changed"
        if path is not None and read_only_file(url) is not None:
            return (f"no permission to change the database {path}: this user may read it, not write it (the "
                    "reading commands work; run this one as the worker's user, e.g. sudo -u pbem); nothing was changed")
        if isinstance(exc, OperationalError):
            return f"cannot reach the database {self.where}: {first_line(exc)}"
        return f"the database {self.where} failed: {first_line(exc)}; nothing was changed"

    def service(self, *, sends_mail: bool = False) -> GameService:
        """The game service. ``sends_mail``: the command sends the mail its change queues (``send_now``), so the
        password files are read first: a command that could not send fails before it changes anything."""
        from ..services.table.service import GameService

        if sends_mail:
            self.mail(required=False)
        return GameService(self.engine(), mail_domain=self.config.mail_domain, archive=self.config.archive)

    def reader(self) -> GameReader:
        """The games, for a command that only reads them: without the service's mail side, so it starts sooner."""
        from ..services.table.game_reader import GameReader

        return GameReader(self.engine(), mail_domain=self.config.mail_domain)

    def send_now(self, game_id: int) -> SentNow:
        """After a command changed game ``game_id`` (committed): its queued mail, sent now (services.mail_out.send_now)
        when the mail servers are configured. What could not go out stays queued for the worker, and one line
        on stderr says so; the command still succeeds."""
        from ..services.mail_out.send_now import SentNow, send_game_mail

        try:  # (read already by service(sends_mail=True), before the change)
            mail = self.config.mail and (self._mail or self.config.mail.with_secrets())
        except ConfigError as exc:  # the change is committed: the worker sends its mail once the file is readable
            result = SentNow(problem=str(exc))
        else:
            result = send_game_mail(self.engine(check_schema=False), mail, game_id)
        if result.problem:
            err.print(f"mail queued; the worker will send it ({' '.join(result.problem.split())})",
                      highlight=False, markup=False, soft_wrap=True)
        if result.failed:
            err.print(f"{plural(result.failed, 'mail')} could not be sent ({' '.join(result.refusal.split())}); "
                      "pbem outbox list --status failed shows them, pbem outbox retry queues them again",
                      highlight=False, markup=False, soft_wrap=True)
        return result


def app_context(ctx: typer.Context) -> AppContext:
    obj = ctx.find_root().obj
    if not isinstance(obj, AppContext):
        obj = AppContext()
        ctx.find_root().obj = obj
    return obj
