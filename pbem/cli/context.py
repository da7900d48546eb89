"""What every command needs: the configuration, the database, the service.

Built lazily, so `pbem --help` and `pbem sim` never touch a database.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from pathlib import Path

import typer
from rich.console import Console
from rich.markup import escape
from sqlalchemy import Engine
from sqlalchemy.exc import OperationalError, SQLAlchemyError

from ..config import Config, ConfigError, load_config
from ..services.games import GameService
from ..store.db import SchemaError, make_engine, require_current_schema

out = Console()
err = Console(stderr=True)


def fail(message: str) -> None:
    """One clear line on stderr and a non-zero exit.

    A driver's message over several lines is joined; what the user typed (a command line, an
    address) may hold brackets, so the message is never read as Rich markup.
    """
    message = " ".join(str(message).split())
    err.print(f"[bold red]error:[/] {escape(message)}", highlight=False, soft_wrap=True)
    raise typer.Exit(code=1)


@dataclass
class AppContext:
    db: str | None = None
    config_file: Path | None = None
    _config: Config | None = field(default=None, repr=False)
    _engine: Engine | None = field(default=None, repr=False)

    @property
    def config(self) -> Config:
        if self._config is None:
            try:
                self._config = load_config(self.db, self.config_file)
            except ConfigError as exc:
                fail(str(exc))
        return self._config  # type: ignore[return-value]

    def engine(self, *, check_schema: bool = True) -> Engine:
        if self._engine is None:
            try:
                self._engine = make_engine(self.config.database_url)
            except (SQLAlchemyError, ValueError) as exc:
                fail(f"cannot use the database {self.config.database_url!r}: {exc}")
        if check_schema:
            try:
                require_current_schema(self._engine)
            except SchemaError as exc:
                fail(str(exc))
            except OperationalError as exc:
                fail(f"cannot reach the database ({self.config.database_url_from}): {exc.orig}")
        return self._engine  # type: ignore[return-value]

    def service(self) -> GameService:
        return GameService(self.engine(), mail_domain=self.config.mail_domain)


def app_context(ctx: typer.Context) -> AppContext:
    obj = ctx.find_root().obj
    if not isinstance(obj, AppContext):
        obj = AppContext()
        ctx.find_root().obj = obj
    return obj
