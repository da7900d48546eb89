"""Typer application. Every command: help with an example, a table for people, --json for scripts."""

from __future__ import annotations

from pathlib import Path
from typing import Optional

import typer

from .. import __version__
from . import archive as archive_commands
from . import db as db_commands
from . import demo as demo_commands
from . import helptext  # noqa: F401 - what --help shows for an option's value
from . import game as game_commands
from . import mail as mail_commands
from . import outbox as outbox_commands
from . import signup as signup_commands  # noqa: F401 - commands of the game group (pbem game open, approve, ...)
from . import sim as sim_commands
from . import status as status_commands
from . import worker as worker_commands
from .context import AppContext, out
from .errors import RUNS_A_COMMAND, PbemGroup

app = typer.Typer(
    name="pbem",
    help="pbem: a play-by-email turn processor for board games (Fifth Avenue, Manhattan).",
    no_args_is_help=True,
    add_completion=True,  # pbem --install-completion, --show-completion (docs/cli.md, Shell completion)
    rich_markup_mode="rich",
    cls=PbemGroup,
)
app.add_typer(db_commands.app, name="db")
app.add_typer(game_commands.app, name="game")
app.add_typer(mail_commands.app, name="mail")
app.add_typer(outbox_commands.app, name="outbox")
app.add_typer(archive_commands.app, name="archive")
app.add_typer(worker_commands.config_app, name="config")
app.command("worker")(worker_commands.worker)
app.command("demo")(demo_commands.demo)
app.command("status")(status_commands.status)
app.command("sim")(sim_commands.sim)


def _version(value: bool) -> None:
    if value:
        out.print(f"pbem {__version__}")
        raise typer.Exit()


@app.callback()
def _root(
    ctx: typer.Context,
    db: Optional[str] = typer.Option(None, "--db", help="Database URL (else PBEM_DATABASE_URL, the config file, or a SQLite file in your data directory).", show_default=False),
    config: Optional[Path] = typer.Option(None, "--config", help="Config file (else PBEM_CONFIG or the user config directory's pbem/config.toml, which alone may be absent; /dev/null for none).", show_default=False),
    version: bool = typer.Option(False, "--version", callback=_version, is_eager=True, help="Show the version and exit."),
) -> None:
    """pbem: a play-by-email turn processor for board games."""
    ctx.obj = AppContext(db=db, config_file=config)
    if ctx.meta.get(RUNS_A_COMMAND, True) and not ctx.resilient_parsing:
        ctx.obj.config  # noqa: B018 - checked now, for every command: a wrong setting stops it before it starts
