"""The Manhattan components and the geometry of the sides, loaded from ``board.json``.

Everything countable (cities, cards, parts, seating) lives in the data file.
The geometry is two pure functions: a building card shows a site of a 3 x 3
city *as seen from the side of the board its player sits at*, so the same card
means a different site for each side (a quarter turn per side). Sites are
numbered 1-9 in reading order as seen from side 0 (seat 1's side, "south"):
1 is the far left, 3 the far right, 7 the near left, 9 the near right. A card
is numbered the same way, but as seen from its player's own side (docs/rules.md
M3, M4).
"""

from __future__ import annotations

import json
import unicodedata
from dataclasses import dataclass
from functools import cache
from importlib import resources

SIDES = 4
SITES = 9


@dataclass(frozen=True)
class City:
    code: str
    name: str
    aliases: tuple[str, ...]


@dataclass(frozen=True)
class Seating:
    """Where each seat sits and which colors it plays, for one player count."""

    sides: tuple[int, ...]
    colors: tuple[tuple[str, ...], ...]
    rounds: int
    parts_per_round: int  # per color and round


@dataclass(frozen=True)
class Board:
    cities: tuple[City, ...]
    grid: int
    cards_per_site: int
    hand_size: int
    colors: tuple[str, ...]
    color_aliases: dict[str, str]
    parts: tuple[int, ...]  # how many parts of 1, 2, 3 and 4 stories per color
    side_names: tuple[str, ...]
    seating: dict[int, Seating]
    tallest_points: int
    majority_points: int
    tower_points: int
    city_aliases: dict[str, str]  # normalised alias -> code

    @property
    def city_codes(self) -> tuple[str, ...]:
        return tuple(c.code for c in self.cities)

    @property
    def sizes(self) -> tuple[int, ...]:
        return tuple(range(1, len(self.parts) + 1))

    @property
    def parts_per_color(self) -> int:
        return sum(self.parts)

    @property
    def cards(self) -> int:
        return SITES * self.cards_per_site

    def city(self, code: str) -> City:
        for c in self.cities:
            if c.code == code:
                return c
        raise KeyError(code)

    def name(self, code: str) -> str:
        return self.city(code).name


def normalise(text: str) -> str:
    """Lower case without accents, hyphens as spaces: 'São-Paulo' -> 'sao paulo'."""
    text = unicodedata.normalize("NFKD", text.lower())
    text = "".join(ch for ch in text if not unicodedata.combining(ch))
    return " ".join(text.replace("-", " ").split())


@cache
def load_board() -> Board:
    raw = json.loads(resources.files(__package__).joinpath("board.json").read_text("utf-8"))
    cities = tuple(City(c["code"], c["name"], tuple(c["aliases"])) for c in raw["cities"])
    aliases: dict[str, str] = {}
    for c in cities:
        for alias in (c.code, c.name, *c.aliases):
            aliases[normalise(alias)] = c.code
            aliases[normalise(alias).replace(" ", "")] = c.code
    seating = {
        int(n): Seating(tuple(s["sides"]), tuple(tuple(cs) for cs in s["colors"]), s["rounds"], s["parts_per_round"])
        for n, s in raw["seating"].items()
    }
    parts = raw["parts"]
    return Board(
        cities=cities,
        grid=raw["grid"],
        cards_per_site=raw["cards_per_site"],
        hand_size=raw["hand_size"],
        colors=tuple(raw["colors"]),
        color_aliases=dict(raw["color_aliases"]),
        parts=tuple(parts[str(size)] for size in range(1, len(parts) + 1)),
        side_names=tuple(raw["sides"]),
        seating=seating,
        tallest_points=raw["scoring"]["tallest"],
        majority_points=raw["scoring"]["majority"],
        tower_points=raw["scoring"]["tower"],
        city_aliases=aliases,
    )


# --------------------------------------------------------------------------- the sides of the board


def _turn(row: int, col: int) -> tuple[int, int]:
    """A quarter turn: a position seen from side d, as seen from side d - 1 (the player to the right)."""
    return col, 2 - row


def absolute_site(side: int, card: int) -> int:
    """The site (1-9, numbered as seen from side 0) that ``card`` names for a player at ``side``.

    >>> absolute_site(0, 1), absolute_site(1, 1), absolute_site(2, 1), absolute_site(3, 1)
    (1, 3, 9, 7)
    """
    if not 0 <= side < SIDES or not 1 <= card <= SITES:
        raise ValueError(f"no card {card} on side {side}")
    row, col = divmod(card - 1, 3)
    for _ in range(side):
        row, col = _turn(row, col)
    return row * 3 + col + 1


def seen_from(side: int, site: int) -> int:
    """The card number a player at ``side`` sees for ``site`` (numbered as seen from side 0): the inverse.

    >>> seen_from(1, 3)
    1
    """
    if not 0 <= side < SIDES or not 1 <= site <= SITES:
        raise ValueError(f"no site {site} on side {side}")
    row, col = divmod(site - 1, 3)
    for _ in range((SIDES - side) % SIDES):
        row, col = _turn(row, col)
    return row * 3 + col + 1


def seating(players: int) -> Seating:
    return load_board().seating[players]


def seat_sides(players: int) -> tuple[int, ...]:
    """The side of the board each seat plays from (docs/rules.md M3)."""
    return seating(players).sides


def seat_colors(players: int) -> tuple[tuple[str, ...], ...]:
    """The colors each seat plays (two each with 2 players; docs/rules.md M5)."""
    return seating(players).colors


__all__ = [
    "SIDES",
    "SITES",
    "Board",
    "City",
    "Seating",
    "absolute_site",
    "load_board",
    "normalise",
    "seat_colors",
    "seat_sides",
    "seating",
    "seen_from",
]
