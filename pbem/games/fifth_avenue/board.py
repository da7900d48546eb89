"""The Fifth Avenue board and components, loaded from ``board.json``.

Everything countable or positional lives in the data file so that a
reconstructed choice (for example the order of plot colors around a district)
can be swapped without touching the rules.
"""

from __future__ import annotations

import json
from dataclasses import dataclass
from functools import lru_cache
from importlib import resources

CITY_HALL = "CH"
CENTRAL_PARK = "CP"
BLACK = "black"
VALUES = (4, 5, 6)


@dataclass(frozen=True)
class District:
    code: str
    name: str
    aliases: tuple[str, ...]
    ring: tuple[str, ...]


@dataclass(frozen=True)
class Board:
    """Static data for one side of the board."""

    back_side: bool
    plot_colors: tuple[str, ...]
    business_types: tuple[str, ...]
    businesses_per_type: int
    player_colors: tuple[str, ...]
    skyscrapers_per_color: int
    start_marker: int
    start_on_board: int
    start_supply: int
    colored_cards: dict[int, int]
    black_cards: dict[int, int]
    start_black: int
    build_limit: dict[int, int]
    district_vp: tuple[int, ...]
    supply_sets: tuple[int, ...]
    special_scorings: tuple[tuple[int, int, int], ...]  # (after_sets, vp, districts)
    markers_per_commissioner: int
    building_stops: int
    central_park_draw: int
    districts: tuple[District, ...]
    place_names: dict[str, str]
    place_aliases: dict[str, str]  # alias (lower case) -> code
    sixth_plot: str | None
    sixth_plot_aliases: tuple[str, ...]
    commissioners: tuple[str, ...]
    graph: dict[str, tuple[str, ...]]
    color_aliases: dict[str, str]
    business_aliases: dict[str, str]

    @property
    def district_codes(self) -> tuple[str, ...]:
        return tuple(d.code for d in self.districts)

    def district(self, code: str) -> District:
        for d in self.districts:
            if d.code == code:
                return d
        raise KeyError(code)

    def plots(self, code: str) -> tuple[str, ...]:
        """Every plot of a district: the colored ring, then the sixth plot."""
        ring = self.district(code).ring
        return ring + ((self.sixth_plot,) if self.sixth_plot else ())

    def adjacent_plots(self, code: str, plot: str) -> tuple[str, ...]:
        return _adjacency(self, code)[plot]

    def name(self, code: str) -> str:
        return self.place_names[code]


def _adjacency(board: Board, code: str) -> dict[str, tuple[str, ...]]:
    return _ADJ_CACHE[(board.back_side, code)]


_ADJ_CACHE: dict[tuple[bool, str], dict[str, tuple[str, ...]]] = {}


def _build_adjacency(board: Board) -> None:
    for d in board.districts:
        ring = d.ring
        n = len(ring)
        adj: dict[str, tuple[str, ...]] = {}
        for i, color in enumerate(ring):
            neighbours = (ring[(i - 1) % n], ring[(i + 1) % n])
            if board.sixth_plot:
                neighbours = neighbours + (board.sixth_plot,)
            adj[color] = neighbours
        if board.sixth_plot:
            adj[board.sixth_plot] = ring
        _ADJ_CACHE[(board.back_side, d.code)] = adj


@lru_cache(maxsize=None)
def load_board(back_side: bool = False) -> Board:
    raw = json.loads(resources.files(__package__).joinpath("board.json").read_text("utf-8"))
    districts = tuple(
        District(d["code"], d["name"], tuple(a.lower() for a in d["aliases"]), tuple(d["ring"]))
        for d in raw["districts"]
    )
    place_names = {code: p["name"] for code, p in raw["places"].items()}
    place_aliases = {}
    for code, p in raw["places"].items():
        place_aliases[code.lower()] = code
        for alias in p["aliases"]:
            place_aliases[alias.lower()] = code
    for d in districts:
        place_names[d.code] = d.name
        place_aliases[d.code.lower()] = d.code
        place_aliases[d.name.lower()] = d.code
        for alias in d.aliases:
            place_aliases[alias] = d.code
    back = raw["back_side"]
    board = Board(
        back_side=back_side,
        plot_colors=tuple(raw["plot_colors"]),
        business_types=tuple(raw["business_types"]),
        businesses_per_type=raw["businesses_per_type"],
        player_colors=tuple(raw["player_colors"]),
        skyscrapers_per_color=raw["skyscrapers_per_color"],
        start_marker=raw["start"]["marker"],
        start_on_board=raw["start"]["on_board"],
        start_supply=raw["start"]["supply"],
        colored_cards={int(k): v for k, v in raw["colored_cards"].items()},
        black_cards={int(k): v for k, v in raw["black_cards"].items()},
        start_black=raw["start_hand"]["black"],
        build_limit={int(k): v for k, v in raw["build_limit"].items()},
        district_vp=tuple(raw["district_vp"]),
        supply_sets=tuple(raw["supply_sets"]),
        special_scorings=tuple((s["after_sets"], s["vp"], s["districts"]) for s in raw["special_scorings"]),
        markers_per_commissioner=raw["markers_per_commissioner"],
        building_stops=raw["building_stops"],
        central_park_draw=raw["central_park_draw"],
        districts=districts,
        place_names=place_names,
        place_aliases=place_aliases,
        sixth_plot=back["sixth_plot"] if back_side else None,
        sixth_plot_aliases=tuple(back["sixth_plot_aliases"]) if back_side else (),
        commissioners=tuple(raw["commissioners"]),
        graph={k: tuple(v) for k, v in raw["commissioner_graph"].items()},
        color_aliases=dict(raw["aliases"]["colors"]),
        business_aliases=dict(raw["aliases"]["businesses"]),
    )
    _build_adjacency(board)
    return board
