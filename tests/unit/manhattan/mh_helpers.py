"""Shared helpers for the Manhattan rule tests.

Positions are built by playing the choice of parts with legal commands and
then overwriting the plain-data state (cities, hands, chosen parts, ...).
Seats and colors with 4 players: 0 blue, 1 red, 2 green, 3 black (board.json),
the colors of the rulebook's scoring example.
"""

from __future__ import annotations

from pbem.games.manhattan import State, new_game

BLUE, RED, GREEN, BLACK = 0, 1, 2, 3
CITIES = ("manhattan", "sydney", "frankfurt", "hongkong", "saopaulo", "cairo")


def choose_all(s: State) -> State:
    """Everybody chooses the first listed parts (the smallest) until the building starts."""
    while not s.is_terminal() and s.phase == "choose":
        s.apply_command(s.current_player(), s.legal_commands()[0])
    return s


def building(players: int = 4, seed: int = 1) -> State:
    """A game whose first round's parts are chosen: seat 0 plays a card."""
    return choose_all(new_game(players=players, seed=seed))


def clear(s: State) -> None:
    for sites in s.cities.values():
        for i in range(len(sites)):
            sites[i] = []


def put(s: State, city: str, site: int, *parts: tuple[str, int]) -> None:
    """put(s, 'sydney', 7, ('red', 2), ('blue', 3)): the tower on site 7, bottom to top."""
    s.cities[city][site - 1] = [[color, size] for color, size in parts]


def counts(*sizes: int) -> list[int]:
    """counts(1, 1, 4) -> [2, 0, 0, 1]."""
    return [sizes.count(size) for size in (1, 2, 3, 4)]


def give(s: State, color: str, *sizes: int) -> None:
    """Set the parts ``color`` still has to place this round."""
    s.chosen[color] = counts(*sizes)


def kinds(events) -> list[str]:
    return [e["kind"] for e in events]
