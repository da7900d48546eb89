"""Every failure of the `pbem` command is one line on stderr, ``error: ...``, and exit code 1.

Click (under Typer) would print a usage error (a bad option value, a missing argument) as a box of several
lines and exit with 2, and a database that fails under a command would end in a traceback. The root group
here turns both into the one line the rest of the CLI prints with ``fail``. It also tells the root's callback
whether a command is going to run (``RUNS_A_COMMAND``), which then checks the configuration first.
"""

from __future__ import annotations

import re
import sys
from typing import Any, Sequence

import typer
from typer.core import TyperGroup

from .context import AppContext, say_error

# Click's exceptions, as the installed Typer raises them (newer Typer carries a copy of Click of its own).
_click = sys.modules[typer.BadParameter.__module__]
ClickException: type[Exception] = _click.ClickException
UsageError: type[Exception] = _click.UsageError
NoSuchOption: type[Exception] = _click.NoSuchOption
ABORT = tuple({typer.Abort, getattr(_click, "Abort", typer.Abort)})
# `pbem` or `pbem game` alone raise this (Click 8.2 and later) after the help is shown; older Click exits with 0.
NO_ARGS = tuple(x for x in [getattr(_click, "NoArgsIsHelpError", None)] if x is not None)
_NEGATIVE = re.compile(r"-[0-9]")
RUNS_A_COMMAND = "pbem.runs_a_command"  # in ctx.meta: False when the arguments only ask for help


def usage_message(exc: Any) -> str:
    """A usage error (a Click exception) in one line, with the command whose help tells how it is used."""
    if isinstance(exc, NoSuchOption) and _NEGATIVE.match(exc.option_name):
        message = f"{exc.option_name} is not a number this command takes: numbers here are 1 or more"
    else:
        message = " ".join(exc.format_message().split()).rstrip(".")
    ctx = getattr(exc, "ctx", None)
    if ctx is not None and isinstance(exc, UsageError):
        message += f" (see {ctx.command_path} --help)"
    return message


class PbemGroup(TyperGroup):
    """The root command: usage errors and failing databases become one ``error:`` line and exit code 1."""

    def parse_args(self, ctx: Any, args: list[str]) -> list[str]:
        # Every command checks the configuration before it starts (a typo in it fails `pbem sim` too), but the
        # help must show whatever the configuration holds: `pbem game`, `pbem game list --help`.
        given = list(args)
        rest = super().parse_args(ctx, args)
        name = given[len(given) - len(rest) - 1] if len(given) > len(rest) else None
        sub = self.get_command(ctx, name) if name else None
        ctx.meta[RUNS_A_COMMAND] = "--help" not in given and not (getattr(sub, "commands", None) and not rest)
        return rest

    def invoke(self, ctx: Any) -> Any:
        try:
            return super().invoke(ctx)
        except Exception as exc:
            # The database failed under a command that did not expect it. Only a command that loaded the database
            # layer can see that, so SQLAlchemy is looked up, not imported: a command that needs none starts sooner.
            database = sys.modules.get("sqlalchemy.exc")
            if database is None or not isinstance(exc, database.DBAPIError):
                raise
            context = ctx.obj if isinstance(ctx.obj, AppContext) else AppContext()
            say_error(context.database_failure(exc))
            raise typer.Exit(1) from exc

    def main(self, args: Sequence[str] | None = None, prog_name: str | None = None,  # type: ignore[override]
             complete_var: str | None = None, standalone_mode: bool = True, **extra: Any) -> Any:
        try:
            code = super().main(args, prog_name, complete_var, standalone_mode=False, **extra)
        except NO_ARGS as exc:  # the help, not an error
            help_text = exc.format_message()  # type: ignore[attr-defined]
            if help_text:  # (Typer's rich help has printed itself already)
                typer.echo(help_text)
            code = 0
        except ClickException as exc:
            say_error(usage_message(exc))
            code = 1
        except ABORT:
            say_error("aborted")
            code = 1
        if not standalone_mode:
            return code
        sys.exit(code if isinstance(code, int) else 0)
