"""`pbem game ...`: the moderator's commands. Each one wraps one service call; a command that changed a game
then sends the mail it queued (``AppContext.send_now``), so the players have it at once.

Why one module of some 540 lines: it is the one Typer group of `pbem game`, sixteen commands of a dozen or more
lines each (their options and help text), and every command is a thin wrapper; its helpers are in ``context``."""

from __future__ import annotations

import functools
import json
from pathlib import Path
from typing import Any, Callable, Optional

import typer

from ..games import names
from ..limits import MAX_SEED
from ..services.common.errors import CommandRejected, ServiceError
from ..services.common.game_info import GameInfo
from ..services.mail_out.delivery import has_auctions
from ..store.statuses import GameStatus
from ..words import plural
from .context import app_context, fail, out
from .tables import Column, people_table, wide_option

app = typer.Typer(help="Games: create, inspect, play for a player, fix and archive.", no_args_is_help=True)
REASON = typer.Option("", "--reason", help="Why, in a few words: the players' mails say it.")


def service_errors(func: Callable[..., Any]) -> Callable[..., Any]:
    """A refused request becomes one line on stderr and exit code 1."""

    @functools.wraps(func)
    def wrapper(*args: Any, **kwargs: Any) -> Any:
        try:
            return func(*args, **kwargs)
        except CommandRejected as exc:
            hint = f" Legal now: {', '.join(exc.legal[:6])}{' ...' if len(exc.legal) > 6 else ''}" if exc.legal else ""
            fail(exc.message + hint)
        except ServiceError as exc:
            fail(exc.message)

    return wrapper


def _echo_json(doc: Any) -> None:
    typer.echo(json.dumps(doc, indent=2, default=str))


def _names(info: GameInfo) -> list[str]:
    return [p.name for p in sorted(info.players, key=lambda p: p.seat)]


def _late(info: GameInfo, now: Any) -> float:
    """Seconds past the deadline of the decision now due (0 when not late)."""
    return max(0.0, (now - info.due_at).total_seconds()) if info.due_at and info.to_act else 0.0


def _player(info: GameInfo, email: str) -> str:
    return next((f"{p.name} <{p.email}>" for p in info.players if p.email == email), email)


def _player_name(info: GameInfo, email: str) -> str:
    return next((p.name for p in info.players if p.email == email), email)


@app.command("new")
@service_errors
def game_new(
    ctx: typer.Context,
    kind: str = typer.Argument(..., help=f"The game: {', '.join(names())}."),
    player: list[str] = typer.Option(..., "--player", "-p", help="NAME=EMAIL, once per player, in seat order (the first starts); NAME=robot or NAME=robot:strong seats one of pbem's robots."),
    seed: Optional[int] = typer.Option(None, "--seed", min=0, max=MAX_SEED,
                                       help="Seed of the game's randomness, 0 or more (default: random)."),
    back_side: bool = typer.Option(False, "--back-side", help="Play on the back side of the board, where the game has one (Fifth Avenue: 6 plots a district)."),
    secret_words: bool = typer.Option(False, "--secret-words", help="Give every player a secret word that each of their mails must carry (told only to them; pbem game show lists them)."),
    deadline: str = typer.Option("72h", "--deadline", help="Time for a decision (72h, 3d, 36h, ...)."),
    bid_deadline: str = typer.Option("24h", "--bid-deadline", help="Time for an auction bid."),
    reminder: str = typer.Option("75%", "--reminder", help="Remind the player when this share of the time has passed."),
    on_timeout: str = typer.Option("moderator", "--on-timeout", help="At a missed deadline (other than a bid, which is always passed): 'moderator' mails the moderator, 'auto' plays the game's default, 'robot' lets a robot play the seat until its player sends a command."),
    as_json: bool = typer.Option(False, "--json", help="Print {\"game\": N} instead of the number alone."),
) -> None:
    """Create a game and print its number (games are numbered 1, 2, 3, ...).

    Example:

        pbem game new fifth-avenue --player Ann=ann@example.org --player Bob=bob@example.org --player Cy=cy@example.org

        pbem game new fifth-avenue -p Ann=ann@example.org -p Bob=bob@example.org --back-side --secret-words

        pbem game new fifth-avenue -p Ann=ann@example.org -p Bob=bob@example.org --deadline 48h --on-timeout auto

        pbem game new manhattan -p Ann=ann@example.org -p Bob=bob@example.org -p Cy=cy@example.org

        pbem game new fifth-avenue -p Ann=ann@example.org -p Robo=robot -p Maxi=robot:strong
    """
    from ..services.common.timing import Timing
    from ..timespans import TimingError

    players = []
    for item in player:
        name, sep, email = item.partition("=")
        if not sep:
            fail(f"'{item}' is not NAME=EMAIL")
        players.append((name, email))
    options = {"back_side": True} if back_side else {}
    try:
        timing = Timing().changed({"deadline": deadline, "bid-deadline": bid_deadline, "reminder": reminder,
                                   "on-timeout": on_timeout})
    except TimingError as exc:
        fail(str(exc))
    context = app_context(ctx)
    game_id = context.service(sends_mail=True).create_game(kind, players, seed=seed, options=options,
                                            secret_words=secret_words, timing=timing)
    context.send_now(game_id)
    if as_json:
        _echo_json({"game": game_id})
    else:
        typer.echo(game_id)


@app.command("list")
@service_errors
def game_list(
    ctx: typer.Context,
    status: Optional[str] = typer.Option(None, "--status", help=f"Only games with this status: {', '.join(GameStatus.ALL)}."),
    wide: bool = wide_option(),
    as_json: bool = typer.Option(False, "--json", help="Print JSON."),
) -> None:
    """List the games with their players, status and who must act; --wide adds the scores, the last change
    and the addresses of who must act.

    Example:

        pbem game list --status active

        pbem game list --wide
    """
    from datetime import datetime, timezone

    from ..services.table.game_list import list_games
    from ..timespans import format_duration

    context = app_context(ctx)
    games = list_games(context.engine(), status, context.config.archive)
    now = datetime.now(timezone.utc)
    if as_json:
        _echo_json([
            {"game": g.id, "kind": g.kind, "variant": g.variant, "status": g.status,
             "players": [{"seat": p.seat, "name": p.name, "email": p.email} for p in g.players],
             "to_act": g.to_act, "scores": g.scores, "events": g.last_seq, "updated_at": g.updated_at.isoformat(),
             "due_at": g.due_at.isoformat() if g.due_at else None,
             "late_seconds": int(_late(g, now)) if _late(g, now) else 0}
            for g in games
        ])
        return
    rows = []
    for g in games:
        late = _late(g, now)
        due = (f"late {format_duration(late)}" if late else
               f"in {format_duration((g.due_at - now).total_seconds())}" if g.due_at else "-")
        rows.append((str(g.id), g.title + (" (back side)" if g.variant == "back-side" else ""), g.status,
                     ", ".join(_names(g)), ", ".join(_player_name(g, e) for e in g.to_act) or "-",
                     ", ".join(_player(g, e) for e in g.to_act) or "-", due,
                     " / ".join(str(g.scores[p.email]) for p in g.players), g.updated_at.strftime("%Y-%m-%d %H:%M")))
    out.print(people_table("games", (
        Column("game", whole=True, justify="right"), Column("kind"), Column("status"), Column("players"),
        Column("to act", only="narrow"), Column("to act", only="wide"), Column("due"),
        Column("scores", only="wide"), Column("updated", only="wide")), rows, wide=wide))


@app.command("show")
@service_errors
def game_show(
    ctx: typer.Context,
    game: int = typer.Argument(..., help="Game number."),
    as_email: Optional[str] = typer.Option(None, "--as", help="Show only what this player sees."),
    as_json: bool = typer.Option(False, "--json", help="Print JSON (the engine's serialised state)."),
) -> None:
    """Show the board: the moderator sees every hand; --as shows one player's view.

    Example:

        pbem game show 3

        pbem game show 3 --as ann@example.org --json
    """
    from .. import render

    info, view = app_context(ctx).reader().view(game, as_email)
    if as_json:
        state = view if as_email else json.loads(info.state.to_json())
        doc = {"game": info.id, "kind": info.kind, "status": info.status, "state": state,
               "scores": info.scores, "to_act": info.to_act, "over": info.over,
               "winner": info.winners[0] if len(info.winners) == 1 else (info.winners or None)}
        if not as_email:  # the moderator's view: the players with their secret words
            doc["players"] = [{"seat": p.seat, "name": p.name, "email": p.email, "secret": p.secret or None}
                              for p in info.players]
        _echo_json(doc)
        return
    typer.echo(f"{info.title} #{info.id} ({info.status})")
    if not as_email and any(p.secret for p in info.players):
        typer.echo("secret words: " + ", ".join(f"{p.name} {p.secret}" for p in info.players))
    from ..services.mail_out.chronicle import board_names

    drawn = (render.board(info.kind, view, players=board_names(info)) if as_email
             else render.moderator_board(info.kind, info.state, players=board_names(info)))
    typer.echo(drawn, nl=False)


@app.command("legal")
@service_errors
def game_legal(
    ctx: typer.Context,
    game: int = typer.Argument(..., help="Game number."),
    as_json: bool = typer.Option(False, "--json", help="Print JSON."),
) -> None:
    """Who must act now, and every legal command line for them.

    Example:

        pbem game legal 3 --json
    """
    info, legal = app_context(ctx).reader().legal(game)
    if as_json:
        _echo_json({"game": info.id, "over": info.over, "to_act": legal})
        return
    if not legal:
        typer.echo(f"Game {info.id} is {'over' if info.over else info.status}: nobody acts.")
        return
    for email, commands in legal.items():
        typer.echo(f"{_player(info, email)} may send ({plural(len(commands), 'command')}):")
        for command in commands:
            typer.echo(f"  {command}")


@app.command("play")
@service_errors
def game_play(
    ctx: typer.Context,
    game: int = typer.Argument(..., help="Game number."),
    commands: str = typer.Argument(..., help="Command lines, separated by ';' or newlines."),
    as_email: str = typer.Option(..., "--as", help="The player the moderator acts for."),
    reason: str = REASON,
    as_json: bool = typer.Option(False, "--json", help="Print JSON."),
) -> None:
    """Act for a player (recorded in the history as done by the moderator; every player is mailed).

    Example:

        pbem game play 3 --as ann@example.org "A; cards orange green; move white 34W" --reason "Ann asked by phone"
    """
    from ..services.mail_out.notices import with_names

    context = app_context(ctx)
    service = context.service(sends_mail=True)
    try:
        done = service.submit(game, as_email, commands, source="cli", by="moderator", reason=reason)
    except CommandRejected as exc:  # the engine says 'player 2 bids ...': the moderator reads names
        exc.message = with_names(service.get(game), exc.message)
        raise
    sent = context.send_now(game)
    if as_json:
        _echo_json({"game": done.game_id, "seat": done.seat, "commands": done.commands, "effects": done.effects,
                    "events": [done.first_seq, done.last_seq], "over": done.over, "sent": sent.sent})
        return
    for effect in done.effects:
        typer.echo(f"- {effect}")


@app.command("history")
@service_errors
def game_history(
    ctx: typer.Context,
    game: int = typer.Argument(..., help="Game number."),
    wide: bool = wide_option(),
    as_json: bool = typer.Option(False, "--json", help="Print JSON."),
) -> None:
    """Every event of a game: number, time, actor and what was written; --wide adds where it came from.

    Example:

        pbem game history 3

        pbem game history 3 --wide
    """
    entries = app_context(ctx).reader().history(game)
    if as_json:
        _echo_json([{"seq": e.seq, "time": e.time.isoformat(), "actor": e.actor, "seat": e.seat, "kind": e.kind,
                     "text": e.text, "source": e.source, "data": e.data} for e in entries])
        return
    rows = []
    for e in entries:
        text = e.text + {"moderator": " (by the moderator)", "deadline": " (at the deadline)"}.get(e.data.get("by"), "")
        if e.data.get("reason"):
            text += f" (the moderator's reason: {e.data['reason']})"
        rows.append((str(e.seq), e.time.strftime("%Y-%m-%d %H:%M:%S"), e.actor, e.kind, text, e.source))
    out.print(people_table(f"game {game}: history", (
        Column("#", whole=True, justify="right"), Column("time"), Column("actor"), Column("kind"), Column("text"),
        Column("source", only="wide")), rows, wide=wide))


@app.command("undo")
@service_errors
def game_undo(
    ctx: typer.Context,
    game: int = typer.Argument(..., help="Game number."),
    to: Optional[int] = typer.Option(None, "--to", help="Restore the state right after this event number."),
    steps: Optional[int] = typer.Option(None, "--steps", help="Take back this many commands."),
    reason: str = REASON,
) -> None:
    """Restore an earlier state by replaying from the seed; the undo is recorded, nothing is deleted, and
    every player is mailed the board as it is again.

    Example:

        pbem game undo 3 --steps 1 --reason "Bob's mail was misread"

        pbem game undo 3 --to 12
    """
    from ..services.mail_out.notices import undo_words

    context = app_context(ctx)
    service = context.service(sends_mail=True)
    target, undone = service.undo(game, to=to, steps=steps, reason=reason)
    context.send_now(game)
    names = {p.seat: p.name for p in service.get(game).players}
    played = {e.seq: (e.seat, e.data.get("command", e.text)) for e in service.history(game) if e.seq in undone}
    taken = f": the moderator {undo_words(names, [played[seq] for seq in undone], [])}" if undone else ""
    typer.echo(f"Game {game} is back as it was after event {target}{taken}.")


@app.command("replace-player")
@service_errors
def game_replace_player(
    ctx: typer.Context,
    game: int = typer.Argument(..., help="Game number."),
    old_email: str = typer.Argument(..., help="The leaving player's email."),
    new_email: str = typer.Argument(..., help="The new player's email, or robot / robot:strong for one of pbem's robots."),
    name: Optional[str] = typer.Option(None, "--name", help="The new player's name (default: keep the seat's name)."),
    reason: str = REASON,
) -> None:
    """Give a player's seat to somebody else, or to a robot; the hand and score stay with the seat. Everybody is
    mailed. A robot plays its decisions in the worker's next pass.

    Examples:

        pbem game replace-player 3 bob@example.org dora@example.org --name Dora --reason "Bob left"

        pbem game replace-player 3 cy@example.org robot --reason "Cy dropped out"
    """
    context = app_context(ctx)
    player = context.service(sends_mail=True).replace_player(game, old_email, new_email, name, reason=reason,
                                                             moderator=context.config.mail.moderator if context.config.mail else "")
    context.send_now(game)
    typer.echo(f"Seat {player.seat + 1} of game {game} is now {player.name} <{player.email}>.")


def _status_command(action: str, verb: str) -> Callable[..., None]:
    @service_errors
    def command(ctx: typer.Context, game: int = typer.Argument(..., help="Game number."), reason: str = REASON) -> None:
        context = app_context(ctx)
        status = context.service(sends_mail=True).set_status(game, action, reason=reason)
        context.send_now(game)
        typer.echo(f"Game {game} is {status}.")

    command.__doc__ = (f"{verb} Every player is mailed.\n\n    Example:\n\n        pbem game {action} 3 "
                       f"--reason \"{'Ann is moving house' if action != 'abort' else 'two players left'}\"\n    ")
    return command


app.command("pause")(_status_command("pause", "Pause a game: no commands are accepted until it is resumed."))
app.command("resume")(_status_command("resume", "Resume a paused game."))
app.command("abort")(_status_command("abort", "End a game for good without a winner; its history is kept."))


@app.command("set")
@service_errors
def game_set(
    ctx: typer.Context,
    game: int = typer.Argument(..., help="Game number."),
    settings: list[str] = typer.Argument(..., help="KEY=VALUE: deadline=72h, bid-deadline=24h, reminder=75%, on-timeout=moderator|auto|robot, mail=turns|all|digest, pictures=on|off, archive=yes|no."),
    player: Optional[str] = typer.Option(None, "--player", help="mail= and pictures= for this player only (default: the game's setting, for every player who made no choice)."),
    reason: str = REASON,
) -> None:
    """Change a game's deadlines, which mails its players get, whether the mails carry a picture of the board, or
    whether the archive's web site shows the game.

    Deadlines: the decision now due is timed anew from when it was asked; everybody is mailed.

    mail=turns (the default: a mail when a player must decide, answers, auction results they bid in, the
    moderator's changes, the end), mail=all (a mail whenever anything public happens) or mail=digest (one mail
    a day, plus the mails asking to decide). Players may choose for themselves by mail ('mail digest').

    pictures=on (the default: every game mail carries a picture of the board in its HTML part) or pictures=off.
    Players may choose for themselves by mail ('pictures off').

    archive=yes (the default: the archive's web site shows the game, move by move) or archive=no (the site leaves
    it out). Nobody is mailed.

    Example:

        pbem game set 3 deadline=48h bid-deadline=12h

        pbem game set 3 on-timeout=auto reminder=50% --reason "we play faster now"

        pbem game set 3 mail=all --player ann@example.org

        pbem game set 3 pictures=off

        pbem game set 3 archive=no
    """
    from ..services.common.timing import Timing

    pairs = {}
    for item in settings:
        key, sep, value = item.partition("=")
        if not sep or not value:
            fail(f"'{item}' is not KEY=VALUE; the keys are {', '.join(Timing.SETTINGS)}, mail, pictures, archive")
        pairs[key] = value
    context = app_context(ctx)
    mode, pictures, archive = pairs.pop("mail", None), pairs.pop("pictures", None), pairs.pop("archive", None)
    if player and archive is not None:
        fail("archive= is the game's, not a player's: set it without --player")
    if archive is not None:
        from ..archive.history import set_archive
        from ..services.table.archive_settings import checked_archive

        archive = checked_archive(archive)  # before anything is changed
    if player and mode is None and pictures is None:
        fail("--player goes with mail=... or pictures=...: deadlines are the same for every player")
    if player and pairs:
        fail("deadlines are the same for every player: set them without --player")
    whose = f" for {player}" if player else ""
    if mode is not None:
        mode = context.service().set_delivery(game, mode, player)
        typer.echo(f"Game {game}: mail{whose} = {mode}.")
    if pictures is not None:
        pictures = context.service().set_pictures(game, pictures, player)
        typer.echo(f"Game {game}: pictures{whose} = {pictures}.")
    if archive is not None:
        archive = set_archive(context.engine(), game, archive)
        typer.echo(f"Game {game}: archive = {archive}.")
    if pairs:
        games = context.service(sends_mail=True)
        timing = games.set_timing(game, pairs, reason=reason)
        context.send_now(game)
        typer.echo(f"Game {game}: {timing.describe(auctions=has_auctions(games.get(game).kind))}.")


@app.command("tell")
@service_errors
def game_tell(
    ctx: typer.Context,
    game: int = typer.Argument(..., help="Game number."),
    text: str = typer.Argument(..., help="What you say: it is mailed in the game's thread and kept in its history."),
    player: Optional[str] = typer.Option(None, "--player", help="Only to this player (default: everybody)."),
) -> None:
    """Say something to the players of a game (or to one): 'The moderator says: ...'.

    A player who wrote to you with 'moderator ...' gets your answer this way, or by a reply to pbem's mail.

    Example:

        pbem game tell 3 "Bob is ill this week; his deadlines move."

        pbem game tell 3 --player ann@example.org "Yes: black cards go with any color."
    """
    from ..services.table.table_talk import TableTalk

    context = app_context(ctx)
    count = TableTalk(context.service(sends_mail=True)).tell(game, text, player)
    sent = context.send_now(game).sent
    typer.echo(f"Told {plural(count, 'player')} in game {game}; " + ("sent." if count and sent >= count else
                                                                      "the worker sends the mail."))


@app.command("resend")
@service_errors
def game_resend(
    ctx: typer.Context,
    game: int = typer.Argument(..., help="Game number."),
    player: Optional[str] = typer.Option(None, "--player", help="Only to this player (default: everybody)."),
) -> None:
    """Mail the board as it stands again, with the request to whoever must decide.

    Example:

        pbem game resend 3

        pbem game resend 3 --player ann@example.org
    """
    context = app_context(ctx)
    count = context.service(sends_mail=True).resend(game, player)
    sent = context.send_now(game).sent
    typer.echo(f"Queued {plural(count, 'mail')} for game {game}; "
               + ("sent." if count and sent >= count else "the worker sends them."))


@app.command("export")
@service_errors
def game_export(
    ctx: typer.Context,
    game: int = typer.Argument(..., help="Game number."),
    fmt: str = typer.Option("json", "--format", help="json (re-importable) or text (for people)."),
    output: Optional[Path] = typer.Option(None, "--output", "-o", help="Write to this file instead of stdout."),
) -> None:
    """The complete record of a game: players, seed, settings, every event, final scores.

    Example:

        pbem game export 3 --output game3.json

        pbem game export 3 --format text
    """
    from ..services.offline.transcript import export_text

    if fmt not in ("json", "text"):
        fail(f"unknown format '{fmt}'; use json or text")
    doc = app_context(ctx).service().export(game)
    text = json.dumps(doc, indent=2) + "\n" if fmt == "json" else export_text(doc)
    if output:
        try:
            output.write_text(text)
        except OSError as exc:
            fail(f"cannot write {output}: {exc.strerror}")
        typer.echo(f"Wrote game {game} to {output}.")
    else:
        typer.echo(text, nl=False)


@app.command("import")
@service_errors
def game_import(
    ctx: typer.Context,
    file: Path = typer.Argument(..., help="A file written by `pbem game export --format json`."),
) -> None:
    """Rebuild an exported game under a new number; its final state equals the original's exactly.

    Example:

        pbem game import game3.json
    """
    from ..services.table.game_transfer import read_export

    doc = read_export(file)  # read and parsed with caps before the database is opened
    game_id = app_context(ctx).service().import_game(doc)
    typer.echo(game_id)
