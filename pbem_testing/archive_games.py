"""Whole games played through the game service for the archive's tests, as fast as the service allows.

The commands are the engine's by-kind random player's (``services.offline.simulate``), chosen ahead on a copy of the
game; the service then gets each player's commands in a row as one submission (a mail of several lines), so a
game of a hundred commands costs a few dozen submissions and their mails instead of a hundred.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from pbem.games import get_game
from pbem.games.rng import Rng
from pbem.services.table.service import GameService
from pbem.services.offline.simulate import choose


@dataclass(frozen=True)
class Setup:
    """One game to play: its players as (name, address) in seat order, and how far (None: to its end)."""

    kind: str
    players: tuple[tuple[str, str], ...]
    seed: int
    options: dict[str, Any] = field(default_factory=dict)
    commands: int | None = None


def random_commands(kind: str, players: int, seed: int, **options: Any) -> list[tuple[int, str]]:
    """(seat, command) of a whole game with the by-kind random player."""
    state = get_game(kind).new_game(players=players, seed=seed, **options)
    rng = Rng(seed)
    played: list[tuple[int, str]] = []
    while not state.is_terminal():
        if len(played) >= 5000:
            raise RuntimeError(f"{kind} with seed {seed} does not end")
        action = choose(state.legal_actions(), rng, "by-kind")
        seat = state.current_player()
        state.apply_action(seat, action)
        played.append((seat, str(action)))
    return played


def in_turns(commands: list[tuple[int, str]]) -> list[tuple[int, list[str]]]:
    """The commands as submissions: each run of one seat's commands together."""
    runs: list[tuple[int, list[str]]] = []
    for seat, command in commands:
        if runs and runs[-1][0] == seat:
            runs[-1][1].append(command)
        else:
            runs.append((seat, [command]))
    return runs


def submit_commands(service: GameService, game_id: int, players: tuple[tuple[str, str], ...],
                    commands: list[tuple[int, str]]) -> None:
    for seat, lines in in_turns(commands):
        service.submit(game_id, players[seat][1], "\n".join(lines))


def play(service: GameService, setup: Setup) -> tuple[int, list[tuple[int, str]]]:
    """Create the game and play it as far as ``setup`` says; its number and the commands still to play."""
    commands = random_commands(setup.kind, len(setup.players), setup.seed, **setup.options)
    game_id = service.create_game(setup.kind, list(setup.players), seed=setup.seed, options=dict(setup.options))
    now, later = commands[:setup.commands], commands[len(commands[:setup.commands]):]
    submit_commands(service, game_id, setup.players, now)
    return game_id, later


__all__ = ["Setup", "in_turns", "play", "random_commands", "submit_commands"]
