"""`pbem archive ...`: the game history archive as a static web site. Each command wraps one call of
``pbem.archive`` (``site.build``, ``history.hide_player``, ``serve.site_server``)."""

from __future__ import annotations

import json
import sys
from pathlib import Path

import typer

from .context import app_context, err, fail, out

app = typer.Typer(help="The game archive: a static web site of every game, move by move, and every player.",
                  no_args_is_help=True)
FOLDER = typer.Argument(..., help="The site's folder (made if missing).", show_default=False)
BUILT_FOLDER = typer.Argument(..., help="The site's folder (as `pbem archive build` wrote it).", show_default=False)
PORT = typer.Option(8000, "--port", min=0, max=65535, help="The port to listen on (0: any free one).")
HOST = typer.Option("127.0.0.1", "--host", help="The address to listen on (0.0.0.0: every one of this machine).")
EMAIL = typer.Argument(..., help="The player's address.", show_default=False)


@app.command("build")
def archive_build(
    ctx: typer.Context,
    folder: Path = FOLDER,
    full: bool = typer.Option(False, "--full", help="Draw every step and write every page anew, not only what changed since the last build."),
    as_json: bool = typer.Option(False, "--json", help="Print what was written as JSON."),
) -> None:
    """Write the archive's web site into FOLDER, or bring it up to date: only the games that changed since
    the last build are drawn again. The pages open from the file system and from any web server.

    Example:

        pbem archive build site/

        pbem archive build /var/www/games --full --json
    """
    from rich.progress import (
        BarColumn,
        MofNCompleteColumn,
        Progress,
        TextColumn,
        TimeElapsedColumn,
    )

    from ..archive.site import build

    if folder.exists() and not folder.is_dir():
        fail(f"{folder} is not a folder")
    engine = app_context(ctx).engine()
    with Progress(TextColumn("drawing games"), BarColumn(), MofNCompleteColumn(), TimeElapsedColumn(),
                  console=err, transient=True, disable=as_json or not sys.stderr.isatty()) as progress:
        task = progress.add_task("games", total=None)

        def advance(done: int, total: int) -> None:
            progress.update(task, completed=done, total=total)

        try:
            report = build(engine, folder, full=full, progress=advance)
        except OSError as exc:
            fail(f"cannot write the site into {folder}: {exc.strerror or exc}")
    if as_json:
        typer.echo(json.dumps(report.to_dict(), indent=2))
        return
    index = Path(report.folder) / "index.html"
    if report.pages or report.removed:
        done = (f"{report.games} game {'page' if report.games == 1 else 'pages'} written "
                f"({report.steps} {'step' if report.steps == 1 else 'steps'} drawn), "
                f"{report.pages} {'page' if report.pages == 1 else 'pages'} in all"
                + (f", {report.removed} removed" if report.removed else ""))
    else:
        done = "nothing changed since the last build"
    out.print(f"{done} ({report.seconds:.1f} s): {index.resolve().as_uri()}", highlight=False, markup=False,
              soft_wrap=True)


@app.command("serve")
def archive_serve(
    folder: Path = BUILT_FOLDER,
    port: int = PORT,
    host: str = HOST,
) -> None:
    """Serve the site in FOLDER over HTTP, to look at it in a browser (Ctrl-C stops): its pages and nothing
    else (no folder listings, not the build's .pbem-archive folder, no link out of the folder). For the
    public, any web server serves the folder (deploy/web/ has settings for Caddy and nginx).

    Example:

        pbem archive serve site/

        pbem archive serve site/ --port 8080 --host 0.0.0.0
    """
    from ..archive.serve import site_server

    if not (folder / "index.html").is_file():
        fail(f"{folder} holds no archive (write one with: pbem archive build {folder})")

    def log(line: str) -> None:
        err.print(line, highlight=False, markup=False, soft_wrap=True)

    try:
        server = site_server(folder, host, port, log)
    except (OSError, OverflowError, UnicodeError) as exc:
        fail(f"cannot listen on {host}:{port}: {getattr(exc, 'strerror', None) or exc}")
    with server:
        shown_host, shown_port = server.server_address[:2]
        shown_host = f"[{shown_host}]" if ":" in str(shown_host) else shown_host
        out.print(f"serving {folder} at http://{shown_host}:{shown_port}/ (Ctrl-C stops)", highlight=False,
                  markup=False, soft_wrap=True)
        try:
            server.serve_forever()
        except KeyboardInterrupt:
            out.print("stopped", highlight=False)


def _set_hidden(ctx: typer.Context, email: str, hidden: bool) -> None:
    from sqlmodel import Session, select

    from ..archive.history import hidden_name, hide_player
    from ..services.common.errors import BadRequest
    from ..services.common.input_checks import checked_address
    from ..store.models import Seat

    try:
        address = checked_address(email)
    except BadRequest as exc:
        fail(exc.message)
    engine = app_context(ctx).engine()
    key = hide_player(engine, address, hidden=hidden)
    with Session(engine) as s:
        plays = s.exec(select(Seat.game_id).where(Seat.email == address).limit(1)).first() is not None
    if not plays:  # a typo hides nobody: say so, and keep the setting for a game to come
        err.print(f"no game has a player {address} yet; the setting holds for their games to come",
                  highlight=False, markup=False, soft_wrap=True)
    shown = f"as {hidden_name(key)}" if hidden else "by their name"
    out.print(f"the archive shows {address} {shown} from its next build (player page players/{key}.html)",
              highlight=False, markup=False, soft_wrap=True)


@app.command("hide-name")
def archive_hide_name(
    ctx: typer.Context,
    email: str = EMAIL,
) -> None:
    """Show a player in the archive without their name: as "Player" and the start of their key, on every
    page, in every game (the next build writes the pages anew). Their name and its first word, in any case,
    are replaced in what people wrote too (talk, the moderator's reasons). The address is never on the site
    either way, and the key cannot be told from it without this installation's database.

    Example:

        pbem archive hide-name ann@example.org
    """
    _set_hidden(ctx, email, True)


@app.command("show-name")
def archive_show_name(
    ctx: typer.Context,
    email: str = EMAIL,
) -> None:
    """Show a player hidden with `pbem archive hide-name` by their name again (from the next build).

    Example:

        pbem archive show-name ann@example.org
    """
    _set_hidden(ctx, email, False)
