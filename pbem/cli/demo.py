"""`pbem demo`: a whole game by mail on this machine, with local mail servers and robot players."""

from __future__ import annotations

import importlib.util
import signal
import threading
import time
from typing import TYPE_CHECKING, Any, Optional

import typer

from ..games import names
from ..limits import MAX_SEED
from ..words import plural
from .context import AppContext, app_context, fail, out, shown_url

if TYPE_CHECKING:
    from ..demo import Demo, DemoSeat

DEMO_GAME = "fifth-avenue"  # the game the demo plays unless told another
DEMO_DATABASE = "demo.sqlite3"  # beside the default database, when that one holds other games' unsent mail


def _own_database(context: AppContext) -> str:
    """The URL of the demo's own database: a SQLite file beside the default one."""
    from ..store.db import sqlite_file

    default = sqlite_file(context.config.database_url)
    assert default is not None, "the default database is a SQLite file"
    return f"sqlite:///{default.with_name(DEMO_DATABASE)}"


def _mail_errors() -> tuple[type[BaseException], ...]:
    from imapclient.exceptions import IMAPClientError

    from ..demo.mailserver import MailServerError
    from ..demo.players import RobotError

    return (IMAPClientError, OSError, RobotError, MailServerError)


def _say(line: str = "") -> None:
    out.print(line, highlight=False, markup=False, soft_wrap=True)


def _turns(count: int) -> str:
    return plural(count, "turn")


def _mail_count(runner: Demo) -> str:
    """The game's mails (to the players) apart from the players' (to the game), and the game's per decision; the
    receipts without a board apart from the game mails: '312 game mails for 295 decisions (1.06 a decision), 40
    receipts, 280 mails from the players.'"""
    game, decisions = runner.game_mails, runner.decision
    rate = f" ({game / decisions:.2f} a decision)" if decisions else ""
    return (f"{plural(game, 'game mail')} for {plural(decisions, 'decision')}{rate}, "
            f"{plural(runner.receipts, 'receipt')}, {plural(runner.player_mails, 'mail')} from the players.")


def _mail_client_help(demo: Demo, seat: DemoSeat) -> None:
    from ..demo import GAME_ADDRESS

    assert demo.mail is not None
    mail = demo.mail
    _say(f"You play seat {seat.seat + 1} as {seat.name} <{seat.address}>. Point any mail client at the local servers:")
    _say(f"  incoming mail (IMAP): server {mail.host}, port {mail.imap_port}, no encryption (no SSL/STARTTLS), "
         "normal password")
    _say(f"  outgoing mail (SMTP): server {mail.host}, port {mail.smtp_port}, no encryption, no authentication "
         "(or the same user name and password)")
    _say(f"  user name: {seat.address}    password: {seat.password}")
    _say(f"The game's mails arrive in that inbox; answer them (Reply) with your command on top. The game's address "
         f"is {GAME_ADDRESS}. The mailboxes live in this process: they are gone when the demo ends.")
    _say()


def demo(
    ctx: typer.Context,
    game: str = typer.Option(DEMO_GAME, "--game", "-g", help=f"The game: {', '.join(names())}."),
    players: int = typer.Option(3, "--players", "-p", help="Number of players, 2 to 4."),
    seed: int = typer.Option(1, "--seed", "-s", min=0, max=MAX_SEED, help="Seed of the game and of the robots' choices: the same seed plays the same game."),
    human: Optional[str] = typer.Option(None, "--human", help="Take the first seat yourself with this address and any mail client.", show_default=False),
    max_turns: Optional[int] = typer.Option(None, "--max-turns", min=1, help="Stop after this many turns (the game stays in the archive, unfinished).", show_default=False),
) -> None:
    """Play a whole game by mail on this machine: local mail servers, robot players, the real worker.

    IMAP (pymap) and SMTP (aiosmtpd) run inside this process on 127.0.0.1: no root, no system packages.

    Each robot reads its own inbox and answers like a mail client; the worker applies the commands and mails everybody.

    One line per turn, then the final board; the game stays in the database (pbem game show N, pbem game export N).
    When the default database holds unsent mail of other games (which the demo's worker would send), the demo plays
    in demo.sqlite3 beside it and says so; a database you named is refused instead.

    Ctrl-C stops after the current mail and leaves the game in the archive, unfinished.

    Example:

        pbem demo

        pbem demo --players 4 --seed 7

        pbem demo --players 2 --human me@example.org

        pbem demo --game manhattan --players 4
    """
    missing = [name for name in ("pymap", "aiosmtpd") if importlib.util.find_spec(name) is None]
    if missing:  # before the database: a demo that cannot run creates nothing
        fail(f"pbem demo needs its mail servers, {' and '.join(missing)}, which come with the extra 'demo': "
             "pip install 'pbem[demo]'")
    from sqlalchemy.exc import DBAPIError, SQLAlchemyError

    from ..demo import Demo, DemoError
    from ..services.common.errors import BadRequest
    from ..services.common.input_checks import checked_address
    from ..store.db import sqlite_file, upgrade

    context = app_context(ctx)
    if human is not None:
        try:
            checked_address(human)  # the rule the game service keeps addresses by
        except BadRequest as exc:
            fail(f"--human needs an email address: {exc.message}")

    def prepared(context: AppContext) -> Demo:
        engine = context.engine(check_schema=False, create=True)
        try:  # the demo's first step, like `pbem db upgrade`: a database to play in, whatever the options
            upgrade(engine)
        except DBAPIError as exc:
            fail(context.database_failure(exc))
        except SQLAlchemyError as exc:
            fail(f"cannot prepare the database ({context.config.database_url_from}): {getattr(exc, 'orig', exc)}")
        try:
            return Demo(engine, game=game, players=players, seed=seed, human=human)
        except DemoError as exc:
            fail(exc.message)

    runner = prepared(context)
    moved_from = None
    if context.config.database_url_from == "default":
        # The README's order: `pbem game new` with the players' addresses, then `pbem demo`. That game's opening
        # mails wait for a worker, and the demo's worker would send them (to its own servers, which refuse them):
        # in the database nobody named, the demo plays beside it instead. A database named by --db, the
        # environment or the config file is the operator's choice: it is refused (Demo.check_outbox).
        waiting = runner.others_unsent()
        if waiting:
            moved_from = (sqlite_file(context.config.database_url), waiting)
            context = AppContext(db=_own_database(context), config_file=context.config_file)
            runner = prepared(context)
    pbem = f"pbem --db {shown_url(context.db)}" if context.db else "pbem"
    if moved_from is not None:
        path, waiting = moved_from
        _say(f"Your database {path} holds {plural(waiting, 'unsent mail')} of your own games, which the demo's "
             f"worker would send: the demo plays in a database of its own, {sqlite_file(context.config.database_url)}.")

    stop = threading.Event()
    interrupted: list[str] = []

    def request_stop(signum: int, _frame: Any) -> None:
        interrupted.append(signal.Signals(signum).name)
        stop.set()
        signal.signal(signal.SIGINT, signal.default_int_handler)  # a second Ctrl-C stops at once

    previous = {signum: signal.signal(signum, request_stop) for signum in (signal.SIGINT, signal.SIGTERM)}
    started = time.monotonic()
    try:
        try:
            runner.start()
            _play(runner, pbem, stop, max_turns, started)
        except KeyboardInterrupt:  # a second Ctrl-C
            interrupted.append("SIGINT")
        except DemoError as exc:
            fail(exc.message)
        except _mail_errors() as exc:
            where = f" (game {runner.game_id} stays in the archive)" if runner.game_id else ""
            fail(f"the demo's mail failed: {exc}{where}")
        except SQLAlchemyError as exc:
            fail(f"the database failed ({context.config.database_url_from}): {getattr(exc, 'orig', exc)}")
        if interrupted:
            where = (f"game {runner.game_id} stays in the archive, unfinished: {pbem} game show {runner.game_id}"
                     if runner.game_id else "no game was created")
            _say(f"stopped ({interrupted[0]}) after {_turns(runner.turns)}; {where}")
            raise typer.Exit(code=130)
    finally:
        runner.stop()
        for signum, handler in previous.items():
            signal.signal(signum, handler)


def _play(runner: Demo, pbem: str, stop: threading.Event, max_turns: int | None, started: float) -> None:
    from rich.progress import Progress, SpinnerColumn, TextColumn, TimeElapsedColumn

    assert runner.mail is not None and runner.info is not None
    names = [s.name for s in runner.seats]
    robots = [s.name for s in runner.seats if not s.human]
    _say(f"pbem demo: {runner.info.title}, {runner.players} players ({', '.join(names)}), seed {runner.seed}; "
         f"game {runner.game_id}")
    _say(f"mail: IMAP {runner.mail.host}:{runner.mail.imap_port}, SMTP {runner.mail.host}:{runner.mail.smtp_port} "
         f"(pymap and aiosmtpd in this process); robots: {', '.join(robots) or 'none'}")
    human = runner.human
    if human is not None:
        _mail_client_help(runner, human)
    else:
        _say()
    waiting_said = -1
    # On the same console as the turn lines (rich prints them above the live line); only on a terminal.
    with Progress(SpinnerColumn(), TextColumn("{task.description}"), TimeElapsedColumn(), console=out,
                  transient=True, disable=not out.is_terminal) as progress:
        task = progress.add_task("starting", total=None)
        while not stop.is_set():
            step = runner.step()
            for line in step.lines:
                _say(line)
            for outcome in step.human_outcomes:
                if outcome not in ("applied", "info") and human is not None:
                    _say(f"(a mail from {human.name}: {outcome}; the game's answer says why)")
            if runner.finished:
                break
            if max_turns is not None and runner.turns >= max_turns:
                break
            if step.paused:
                progress.update(task, description="the game is paused (pbem game resume), Ctrl-C stops")
                stop.wait(1.0)
            elif step.waiting_for is not None:
                if waiting_said != runner.decision:
                    waiting_said = runner.decision
                    _say(f"waiting for {step.waiting_for.name}'s mail (decision {runner.decision}) ...")
                progress.update(task, description=f"turn {runner.turns + 1}: waiting for {step.waiting_for.name}'s "
                                                  f"mail (decision {runner.decision}), Ctrl-C stops")
                stop.wait(1.0)
            else:
                progress.update(task, description=f"turn {runner.turns + 1}, decision {runner.decision}: "
                                                  f"{plural(runner.game_mails, 'game mail')}, "
                                                  f"{plural(runner.player_mails, 'answer')}")
    if stop.is_set():
        return
    info = runner.info
    elapsed = time.monotonic() - started
    _say()
    if runner.finished:
        typer.echo(runner.board().rstrip("\n"))
        _say()
        by_name = {p.email: p.name for p in info.players}
        scores = ", ".join(f"{by_name[email]} {points}" for email, points in info.scores.items())
        winners = [by_name[email] for email in info.winners]
        if len(winners) == 1:
            _say(f"{winners[0]} wins ({scores}).")
        elif winners:
            _say(f"{' and '.join(winners)} share the win ({scores}).")
        else:
            _say(f"The game ended without a winner ({scores}).")
        _say(f"{_turns(runner.turns)}, {plural(runner.decision, 'decision')} in {elapsed:.0f} s.")
    else:
        _say(f"stopped after {_turns(runner.turns)} (--max-turns); {plural(runner.decision, 'decision')} "
             f"in {elapsed:.0f} s. The game stays unfinished.")
    _say(_mail_count(runner))
    _say(f"Game {runner.game_id} is in the archive: {pbem} game show {runner.game_id}   "
         f"{pbem} game export {runner.game_id}")
    _say(f"Move by move in a browser: {pbem} archive build site && {pbem} archive serve site")
