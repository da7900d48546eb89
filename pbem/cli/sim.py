"""`pbem sim`: random games of any game, played to the end, for testing the engines and the rules."""

from __future__ import annotations

import json
import sys

import typer

from ..games import get_game, names
from ..limits import MAX_SEED
from .context import err, fail, out
from .tables import Column, people_table

MAX_SIM_GAMES = 1_000_000  # about a day of simulating; more is a typo


def sim(
    game: str = typer.Argument(..., help=f"Game name: {', '.join(names())}."),
    players: int = typer.Option(4, "--players", "-p", help="Number of players."),
    games: int = typer.Option(1, "--games", "-k", min=1, max=MAX_SIM_GAMES, help="How many games to play."),
    seed: int = typer.Option(1, "--seed", "-s", min=0, max=MAX_SEED, help="Seed of the first game; game i uses seed+i-1."),
    back_side: bool = typer.Option(False, "--back-side", help="Play on the back side of the board, where the game has one (Fifth Avenue: 6 plots a district)."),
    policy: str = typer.Option("uniform", "--policy", help="uniform: any legal command alike; by-kind: a kind of command first, then one of it."),
    as_json: bool = typer.Option(False, "--json", help="Print one JSON document instead of a table."),
) -> None:
    """Play random games of any game to the end (uniform over legal commands) and report each one.

    Example:

        pbem sim fifth-avenue --players 4 --games 10 --seed 7

        pbem sim fifth-avenue --players 2 --back-side --games 3 --json

        pbem sim fifth-avenue --players 3 --games 100 --policy by-kind

        pbem sim manhattan --players 2 --games 10
    """
    from rich.progress import BarColumn, MofNCompleteColumn, Progress, TextColumn, TimeElapsedColumn

    from ..services.offline.simulate import POLICIES, simulate

    try:
        engine = get_game(game)
    except KeyError as exc:
        fail(str(exc.args[0]))
    options = {"back_side": back_side} if back_side else {}
    if policy not in POLICIES:
        fail(f"unknown policy {policy!r}; use one of {', '.join(POLICIES)}")
    if players not in engine.PLAYERS:
        fail(f"{engine.TITLE} is for {', '.join(map(str, engine.PLAYERS))} players, not {players}")
    if seed + games - 1 > MAX_SEED:
        fail(f"the seeds of {games} games from {seed} run past {MAX_SEED}, the largest seed")
    with Progress(
        TextColumn("simulating"), BarColumn(), MofNCompleteColumn(), TimeElapsedColumn(),
        console=err, transient=True, disable=games < 20 or not sys.stderr.isatty(),
    ) as progress:
        task = progress.add_task("games", total=games)
        try:
            results = simulate(engine.NAME, players, games, seed, policy=policy,
                               on_game_done=lambda _: progress.advance(task), **options)
        except (TypeError, ValueError) as exc:  # an option this game does not have
            fail(f"{engine.TITLE}: {exc}")
    if as_json:
        doc = {
            "game": engine.NAME,
            "players": players,
            "back_side": back_side,
            "seed": seed,
            "policy": policy,
            "games": [r.to_dict() for r in results],
        }
        typer.echo(json.dumps(doc, indent=2))
        return
    title = (f"{engine.TITLE}: {games} random game{'s' if games > 1 else ''}, {players} players"
             + (", back side" if back_side else ""))
    rows = [(str(r.game), str(r.seed), ", ".join(f"player {w + 1}" for w in r.winners), " / ".join(map(str, r.scores)),
             str(r.commands), r.ended_by.replace("_", " ")) for r in results]
    out.print(people_table(title, (
        Column("game", whole=True, justify="right"), Column("seed", justify="right"), Column("winner"),
        Column("scores"), Column("commands", justify="right"), Column("ended by")), rows))
