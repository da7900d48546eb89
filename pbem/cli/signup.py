"""`pbem game open`, `tables`, `start`, `close`, `approve`, `watchers`, `unwatch`: the moderator's side of tables players start by
mail (docs/signup.md). Commands of the `pbem game` group, apart from ``game`` (over 500 lines already); each
wraps one call of the signup service (services.table.signup)."""

from __future__ import annotations

import json
from typing import Any, Optional

import typer

from ..games import names
from ..limits import MAX_GAME_ID
from .context import app_context, fail, out
from .game import app, service_errors
from .tables import Column, people_table, wide_option


def _signup(ctx: typer.Context) -> Any:
    from ..services.table.signup_admin import SignupAdmin

    context = app_context(ctx)
    mail = context.config.mail
    return SignupAdmin(context.service(), context.config.signup, moderator=mail.moderator if mail else "")


def _number(number: int, what: str) -> None:
    if not 1 <= number <= MAX_GAME_ID:
        fail(f"there is no {what} {number}")


@app.command("open")
@service_errors
def game_open(
    ctx: typer.Context,
    kind: str = typer.Argument(..., help=f"The game: {', '.join(names())}."),
    players: Optional[int] = typer.Option(None, "--players", help="Its seats (default: the rules' most)."),
    back_side: bool = typer.Option(False, "--back-side", help="Fifth Avenue's 6-plot side of the board."),
    deadline: str = typer.Option("", "--deadline", help="The time for a decision, such as 48h or 3d (default 72h)."),
) -> None:
    """Open a table that players join by mail ('join N'), whatever \\[signup] new says; print its number. It
    starts when its seats are full. Example: pbem game open fifth-avenue --players 3 --deadline 2d"""
    from ..services.table.signup_words import SignupLineError, read_signup_line

    line = f"new {kind}" + (f" players {players}" if players is not None else "") + (" side back" if back_side else "") \
        + (f" deadline {deadline}" if deadline else "")
    try:
        read = read_signup_line(line)
    except SignupLineError as exc:
        fail(f"{exc.why} (for example: pbem game open {exc.instead.removeprefix('new ')})")
    assert read is not None
    table = _signup(ctx).open_by_moderator(read.kind, players=read.players, back_side=read.back_side,
                                           deadline=read.deadline)
    typer.echo(table)


@app.command("tables")
@service_errors
def game_tables(
    ctx: typer.Context,
    status: Optional[str] = typer.Option(None, "--status", help="Only tables with this status: waiting, open, "
                                                                  "started, closed."),
    page: int = typer.Option(1, "--page", min=1, max=MAX_GAME_ID, help="Which page of tables, the newest first."),
    limit: int = typer.Option(50, "--limit", min=1, max=1000, help="Tables a page."),
    wide: bool = wide_option(),
    as_json: bool = typer.Option(False, "--json", help="Print JSON (the tables of the page)."),
) -> None:
    """The tables players open and join by mail, the newest first, a page at a time: number, game, status, who
    sits at each (with --wide their addresses and the opener's) and the game a started one became. Example: pbem
    game tables --status waiting --page 2"""
    tables, total = _signup(ctx).tables(status, page=page, limit=limit)
    if as_json:
        typer.echo(json.dumps([{"table": t.id, "kind": t.kind, "words": t.words, "seats": t.seats, "opener": t.opener,
                                "status": t.status, "game": t.game_id, "created_at": t.created_at.isoformat(),
                                "seated": [{"name": n, "email": e} for n, e in t.seated]} for t in tables], indent=2))
        return
    columns = [Column("table", whole=True), Column("game"), Column("status", whole=True), Column("seated"),
               Column("opener", only="wide"), Column("became", whole=True)]
    rows = [(str(t.id), t.words, t.status,
             ", ".join(f"{n} <{e}>" if wide else n for n, e in t.seated) or "-", t.opener,
             f"game {t.game_id}" if t.game_id else "-") for t in tables]
    out.print(people_table(None, columns, rows, wide=wide) if rows else "No tables." if page == 1 else
              f"No tables on page {page}.")
    if total > page * limit:
        out.print(f"{total} tables; page {page} shows {len(rows)}: --page {page + 1} for more.", highlight=False)


@app.command("start")
@service_errors
def game_start(
    ctx: typer.Context,
    table: int = typer.Argument(..., help="The table's number."),
    robots: bool = typer.Option(False, "--with-robots", help="Robots (the quick one) in its free seats."),
) -> None:
    """Start a table now as a game with the players it has (at least the rules' fewest), whoever opened it, and
    print the game's number; its players get their first mails at once. Example: pbem game start 3 --with-robots"""
    _number(table, "table")
    context = app_context(ctx)
    context.service(sends_mail=True)  # the password files are read before anything changes
    game_id = _signup(ctx).start_by_moderator(table, robots=robots)
    context.send_now(game_id)
    typer.echo(game_id)


@app.command("close")
@service_errors
def game_close(ctx: typer.Context, table: int = typer.Argument(..., help="The table's number.")) -> None:
    """Close a table that has not started: it never will, and its players are mailed so by the worker.
    Example: pbem game close 3"""
    _number(table, "table")
    seated = _signup(ctx).close(table)
    typer.echo(f"table {table} is closed" + (f"; told: {', '.join(seated)}" if seated else ""))


@app.command("approve")
@service_errors
def game_approve(ctx: typer.Context, table: int = typer.Argument(..., help="The table's number.")) -> None:
    """Let a table opened by mail be joined (\\[signup] approve = yes, or true); its opener is mailed by the worker.
    Example: pbem game approve 3"""
    _number(table, "table")
    words = _signup(ctx).approve(table)
    typer.echo(f"table {table} is open: {words}")


@app.command("watchers")
@service_errors
def game_watchers(
    ctx: typer.Context,
    game: int = typer.Argument(..., help="The game's number."),
    as_json: bool = typer.Option(False, "--json", help="Print JSON."),
) -> None:
    """Who watches a game (by mail: 'watch N') and since when. Example: pbem game watchers 12 --json"""
    _number(game, "game")
    watchers = _signup(ctx).watchers(game)
    if as_json:
        typer.echo(json.dumps({"game": game, "watchers": [{"email": email, "since": since.isoformat()}
                                                          for email, since in watchers]}, indent=2))
        return
    rows = [(email, since.strftime("%Y-%m-%d %H:%M")) for email, since in watchers]
    out.print(people_table(None, [Column("watcher"), Column("since", whole=True)], rows) if rows
              else f"Nobody watches game {game}.")


@app.command("unwatch")
@service_errors
def game_unwatch(
    ctx: typer.Context,
    game: int = typer.Argument(..., help="The game's number."),
    email: str = typer.Argument(..., help="The watcher's address."),
) -> None:
    """Stop a watcher's mails of a game. Example: pbem game unwatch 12 dee@example.org"""
    _number(game, "game")
    _signup(ctx).remove_watcher(game, email)
    typer.echo(f"{email} no longer watches game {game}")
