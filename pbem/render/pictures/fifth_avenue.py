"""The Fifth Avenue city as a picture: City Hall on the left, Central Park on the right, as on the board.

The places stand in columns by their distance from City Hall (the text board's
``map_rows``, turned a quarter: 34th Street West above East, Times Square
between the 42nd Streets), joined by the commissioners' streets. A district is a
ring of five plots, in the order the rules walk them (each next to the one
before and after it), the back side's sixth plot in the middle. A plot is a disc
of its color; a skyscraper pile on it is a block of its owner's color with its
height written on it; businesses are white badges with their initial (B
boutique, J jeweler, G gallery, P perfume). A commissioner is a pawn of its
color at the top left of the district it stands in; the markers it left are
discs at the top right. A district with a building stop is grayed and says so.
City Hall shows the commissioners there and the markers still waiting; Central
Park the commissioners there, the skyscrapers below it by owner and its
businesses. Below the map: every owner's color with the player's name and
score, and the key.

The picture is public: it draws nothing that differs between the views of two
seats (no hand, no "you"), so every player of a position gets the same bytes.
``layout(back_side)`` gives the geometry (places, plots, where a plot's color
and a skyscraper's color show), which tests read instead of pixel numbers.
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from functools import lru_cache
from typing import Any

from PIL import Image

from pbem.games.fifth_avenue.board import CENTRAL_PARK, CITY_HALL, Board, load_board

from ..text import map_rows, owner_names
from .canvas import Box, Canvas, fit, text_width
from .palette import (
    BOARD_COLORS,
    BUSINESS_LETTERS,
    COMMISSIONER_COLORS,
    PLOT_COLORS,
    Color,
    fifth_avenue_owner,
    picture_palette,
)

WIDTH = 640
MARGIN = 10
TITLE_H = 34  # the title strip
COL_GAP = 14  # between columns of places: the streets show here
ROW_GAP = 8  # between districts of one column
HALL_W = 60  # City Hall's column
PARK_W = 90  # Central Park's column
DISTRICT_W = 138
HEADER_H = 20  # a district's name
RING_R = 45  # from a district's ring centre to a plot's centre
PLOT_R = 20  # a plot's radius
DISTRICT_H = HEADER_H + 4 + round(RING_R * (1 + math.cos(math.radians(36)))) + 2 * PLOT_R + 6
TOKEN_W, TOKEN_H = 22, 24  # a skyscraper pile on a plot
BADGE_R = 8  # a business badge
LEGEND_H = 86

PAPER = BOARD_COLORS["paper"]
TEXT = BOARD_COLORS["text"]
FAINT = BOARD_COLORS["faint"]
LINE = BOARD_COLORS["line"]


# =========================================================================== geometry


@dataclass(frozen=True)
class Plot:
    center: tuple[int, int]
    radius: int

    @property
    def swatch(self) -> tuple[int, int]:
        """A pixel that always shows the plot's own color (below any skyscraper or badge)."""
        x, y = self.center
        return x, y + self.radius - 4

    @property
    def token(self) -> tuple[int, int]:
        """A pixel that shows the owner's color when a skyscraper stands on the plot (clear of its number)."""
        x, y = self.center
        return x - TOKEN_W // 2 + 3, y + TOKEN_H // 2 - 3


@dataclass(frozen=True)
class Layout:
    width: int
    height: int
    places: dict[str, Box]  # CH, the districts, CP -> (x0, y0, x1, y1)
    plots: dict[tuple[str, str], Plot]  # (district, plot color or "center") -> where it is drawn
    legend_top: int


@lru_cache(maxsize=None)
def layout(back_side: bool = False) -> Layout:
    """Where everything of the city is drawn on the given side of the board."""
    board = load_board(back_side)
    columns = [[place["code"] for place in row["places"]] for row in map_rows(board)]
    most = max(len(column) for column in columns if column[0] not in (CITY_HALL, CENTRAL_PARK))
    map_top = TITLE_H + 6
    map_h = most * DISTRICT_H + (most - 1) * ROW_GAP
    places: dict[str, Box] = {}
    widths = [HALL_W if c[0] == CITY_HALL else PARK_W if c[0] == CENTRAL_PARK else DISTRICT_W for c in columns]
    spare = WIDTH - 2 * MARGIN - sum(widths) - COL_GAP * (len(columns) - 1)
    x = MARGIN + spare // 2
    for column, width in zip(columns, widths):
        if column[0] == CITY_HALL:
            height = DISTRICT_H
        elif column[0] == CENTRAL_PARK:
            height = 2 * DISTRICT_H + ROW_GAP
        else:
            height = len(column) * DISTRICT_H + (len(column) - 1) * ROW_GAP
        y = map_top + (map_h - height) // 2
        for code in column:
            h = height if code in (CITY_HALL, CENTRAL_PARK) else DISTRICT_H
            places[code] = (x, y, x + width, y + h)
            y += h + ROW_GAP
        x += width + COL_GAP
    plots: dict[tuple[str, str], Plot] = {}
    for code in board.district_codes:
        x0, y0, x1, _ = places[code]
        cx = (x0 + x1) // 2
        cy = y0 + HEADER_H + 4 + PLOT_R + RING_R
        ring = board.district(code).ring
        for i, color in enumerate(ring):
            angle = 2 * math.pi * i / len(ring)
            plots[(code, color)] = Plot((round(cx + RING_R * math.sin(angle)), round(cy - RING_R * math.cos(angle))),
                                        PLOT_R)
        if board.sixth_plot:
            plots[(code, board.sixth_plot)] = Plot((cx, cy), PLOT_R)
    legend_top = map_top + map_h + 10
    return Layout(WIDTH, legend_top + LEGEND_H, places, plots, legend_top)


# =========================================================================== drawing


def draw(view: dict[str, Any], *, players: list[str]) -> bytes:
    """The city of ``view`` (``State.view(seat)``) as PNG bytes; ``players`` are the names by seat.

    It starts from the board's still parts (``_still``: drawn once per side of the board), and draws what the
    position changes over them, in the order of a drawing from scratch."""
    board = load_board(view["back_side"])
    geo = layout(view["back_side"])
    names = owner_names(players[: view["players"]], robot=view["players"] == 2)
    districts = tuple((code, view["districts"].get(code, board.name(code))) for code in board.district_codes)
    canvas = Canvas.over(_still(view["back_side"], districts))
    _title(canvas, view, board, names)
    for code in board.district_codes:
        _district(canvas, view, board, geo, code)
    _city_hall(canvas, view, board, geo.places[CITY_HALL])
    _central_park(canvas, view, board, geo.places[CENTRAL_PARK], names)
    _legend(canvas, view, names, geo.legend_top)
    return canvas.png(palette())


@lru_cache(maxsize=8)
def _still(back_side: bool, districts: tuple[tuple[str, str], ...]) -> Image.Image:
    """What every position of a side of the board shows alike: the title bar, the streets, the districts
    (``districts``: code, name) with their empty plots, City Hall's and Central Park's frames, the key."""
    board = load_board(back_side)
    geo = layout(back_side)
    canvas = Canvas(geo.width, geo.height, PAPER)
    canvas.rect((0, 0, WIDTH, TITLE_H), BOARD_COLORS["text"])
    canvas.text((MARGIN + 2, TITLE_H / 2), "FIFTH AVENUE", 17, BOARD_COLORS["district"], anchor="lm", bold=True)
    _streets(canvas, board, geo)
    for code, name in districts:
        _district_frame(canvas, board, geo, code, name, stopped=False)
    _place_frame(canvas, geo.places[CITY_HALL], BOARD_COLORS["city hall"], LINE, ["City", "Hall"])
    x0, top, x1, _ = geo.places[CITY_HALL]
    canvas.text(((x0 + x1) / 2, top + _HALL_MARKERS_Y), "markers", 9, FAINT, anchor="mt")
    _place_frame(canvas, geo.places[CENTRAL_PARK], BOARD_COLORS["central park"], BOARD_COLORS["park edge"],
                 ["Central", "Park"])
    _key(canvas, board, geo.legend_top)
    return canvas.still()


@lru_cache(maxsize=None)
def palette() -> tuple[tuple[int, int, int], ...]:
    """The pictures' PNG palette: the named colors and the blends of the colors they draw side by side."""
    light, stopped, street = BOARD_COLORS["district"], BOARD_COLORS["stopped"], BOARD_COLORS["street"]
    hall, park, business = BOARD_COLORS["city hall"], BOARD_COLORS["central park"], BOARD_COLORS["business"]
    owners = [fifth_avenue_owner(owner) for owner in range(4)]
    letters = (
        (TEXT, light), (TEXT, PAPER), (TEXT, business), (TEXT, hall), (TEXT, park), (TEXT, BOARD_COLORS["empty site"]),
        (FAINT, hall), (FAINT, park), (light, stopped), (light, BOARD_COLORS["stop sign"]),
        *((owner.ink, owner) for owner in owners),
    )
    fills = [PAPER, light, street, hall, business, BOARD_COLORS["empty site"], *PLOT_COLORS.values(), *owners,
             *COMMISSIONER_COLORS.values()]
    edges = (
        *((LINE, fill) for fill in fills),
        (street, PAPER), (light, street), (LINE, stopped), (street, stopped), (light, stopped),
        (BOARD_COLORS["park edge"], PAPER), (BOARD_COLORS["park edge"], street), (BOARD_COLORS["park edge"], park),
    )
    return picture_palette(letters, edges)


def _title(canvas: Canvas, view: dict[str, Any], board: Board, names: list[str]) -> None:
    side = "back side" if view["back_side"] else "front side"
    sets_left = sum(1 for group in view["supply_row"] if group)
    facts = [f"{view['players']} players", side, f"building stops {len(view['stopped'])} of {board.building_stops}"]
    if view["result"] is not None:
        winners = [names[w] for w in view["result"]["winners"]]
        facts.append("game over: " + " and ".join(winners) + (" win" if len(winners) > 1 else " wins"))
    else:
        facts.append(f"supply row: {sets_left} of {len(view['supply_row'])} sets left")
    canvas.text((WIDTH - MARGIN - 2, TITLE_H / 2), fit("  ·  ".join(facts), 12, WIDTH - 160), 12,
                BOARD_COLORS["district"], anchor="rm")


def _center(box: Box) -> tuple[float, float]:
    return (box[0] + box[2]) / 2, (box[1] + box[3]) / 2


def _streets(canvas: Canvas, board: Board, geo: Layout) -> None:
    """The commissioners' streets: from each place to the places a commissioner may walk on to."""
    for here, nexts in board.graph.items():
        for there in nexts:
            (x0, y0), (x1, y1) = _center(geo.places[here]), _center(geo.places[there])
            canvas.line([(x0, y0), (x1, y1)], BOARD_COLORS["street"], width=9)
            canvas.line([(x0, y0), (x1, y1)], BOARD_COLORS["district"], width=1)


def _pawn(canvas: Canvas, x: float, y: float, color: Color, size: float = 1.0) -> None:
    """A commissioner: a pawn standing with its foot's middle at (x, y)."""
    s = size
    canvas.polygon([(x - 6 * s, y), (x + 6 * s, y), (x + 3 * s, y - 9 * s), (x - 3 * s, y - 9 * s)], color, LINE, 1.2)
    canvas.circle((x, y - 12 * s), 4.5 * s, color, LINE, 1.2)


def _marker(canvas: Canvas, x: float, y: float, color: Color) -> None:
    """A commissioner's marker: a flat disc centred at (x, y)."""
    canvas.circle((x, y), 6.5, color, LINE, 1.2)
    canvas.circle((x, y), 2, LINE)


def _skyscraper(canvas: Canvas, center: tuple[float, float], owner: int, height: int) -> None:
    x, y = center
    color = fifth_avenue_owner(owner)
    left, top = x - TOKEN_W / 2, y - TOKEN_H / 2
    canvas.rect((left + 2, top + 2, left + TOKEN_W + 2, top + TOKEN_H + 2), BOARD_COLORS["line"], radius=3)  # shadow
    canvas.rect((left, top, left + TOKEN_W, top + TOKEN_H), color, LINE, 1, radius=3)
    canvas.text((x, y + 0.5), str(height), 15, color.ink, anchor="mm", bold=True)


def _badge(canvas: Canvas, center: tuple[float, float], business: str, radius: float = BADGE_R) -> None:
    letter = BUSINESS_LETTERS.get(business, business[:1].upper())
    canvas.circle(center, radius, BOARD_COLORS["business"], LINE, 1)
    canvas.text((center[0], center[1] + 0.5), letter, radius * 1.35, TEXT, anchor="mm", bold=True)


def _badges(canvas: Canvas, center: tuple[float, float], businesses: list[str]) -> None:
    x, y = center
    if len(businesses) == 1:
        _badge(canvas, (x, y), businesses[0])
    elif len(businesses) == 2:
        _badge(canvas, (x - BADGE_R - 0.5, y), businesses[0])
        _badge(canvas, (x + BADGE_R + 0.5, y), businesses[1])
    elif businesses:  # never seen in play; drawn small all the same
        r = 6
        spots = [(x - r, y - r), (x + r, y - r), (x - r, y + r), (x + r, y + r)]
        for spot, business in zip(spots, businesses):
            _badge(canvas, spot, business, r)
        if len(businesses) > 4:
            canvas.text((x, y + PLOT_R - 2), f"+{len(businesses) - 4}", 9, TEXT, anchor="ms")


def _district_frame(canvas: Canvas, board: Board, geo: Layout, code: str, name: str, stopped: bool) -> None:
    """A district without what stands on it: its frame, its name and its plots (grayed with a building stop)."""
    box = geo.places[code]
    x0, y0, x1, y1 = box
    canvas.rect(box, BOARD_COLORS["stopped"] if stopped else BOARD_COLORS["district"], LINE, 1, radius=6)
    ink = BOARD_COLORS["district"] if stopped else TEXT
    canvas.text((x0 + 6, y0 + HEADER_H / 2 + 1), code, 13, ink, anchor="lm", bold=True)
    canvas.text((x1 - 6, y0 + HEADER_H / 2 + 1), fit(name, 10, x1 - x0 - 44), 10, ink, anchor="rm")
    for plot in board.plots(code):
        spot = geo.plots[(code, plot)]
        if stopped:
            canvas.circle(spot.center, spot.radius, None, BOARD_COLORS["street"], 1.5)
        else:
            fill = PLOT_COLORS[plot] if plot in PLOT_COLORS else PLOT_COLORS["center"]
            canvas.circle(spot.center, spot.radius, fill, LINE, 1)
    if stopped:
        cx, cy = _center((x0, y0 + HEADER_H, x1, y1))
        canvas.rect((x0 + 10, cy - 14, x1 - 10, cy + 14), BOARD_COLORS["stop sign"], BOARD_COLORS["district"], 2,
                    radius=4)
        canvas.text((cx, cy), "BUILDING STOP", 12, BOARD_COLORS["district"], anchor="mm", bold=True)


def _district(canvas: Canvas, view: dict[str, Any], board: Board, geo: Layout, code: str) -> None:
    """What stands in a district, over its frame (the still picture's, or drawn anew for a building stop)."""
    x0, y0, x1, _ = geo.places[code]
    if code in view["stopped"]:  # drawn over the still district, covering it whole
        _district_frame(canvas, board, geo, code, view["districts"].get(code, board.name(code)), stopped=True)
    else:
        for plot in board.plots(code):
            cell = view["plots"][code][plot]
            center = geo.plots[(code, plot)].center
            if cell.get("owner") is not None and cell.get("height"):
                _skyscraper(canvas, center, int(cell["owner"]), int(cell["height"]))
            elif cell.get("businesses"):
                _badges(canvas, center, list(cell["businesses"]))
    # the commissioners standing here (top left) and the markers they left (top right)
    here = [c for c in board.commissioners if view["commissioners"].get(c) == code]
    for i, commissioner in enumerate(here):
        _pawn(canvas, x0 + 13 + 17 * i, y0 + HEADER_H + 25, COMMISSIONER_COLORS[commissioner], 1.2)
    left = [c for c in board.commissioners if code in view["markers"].get(c, [])]
    for i, commissioner in enumerate(left):
        _marker(canvas, x1 - 12 - 16 * i, y0 + HEADER_H + 12, COMMISSIONER_COLORS[commissioner])


# below the top of a tall place (City Hall, Central Park): its two-line name, then what is there
_PLACE_TITLE_H = 8 + 2 * 15 + 4
_HALL_PAWNS_Y = _PLACE_TITLE_H + 20  # City Hall's commissioners (their feet)
_HALL_MARKERS_Y = _HALL_PAWNS_Y + 10  # the word "markers"; the markers waiting 19 below


def _place_frame(canvas: Canvas, box: Box, fill: Color, edge: Color, title: list[str]) -> None:
    """A tall place (City Hall, Central Park) with its name on top, ``_PLACE_TITLE_H`` high with two lines."""
    canvas.rect(box, fill, edge, 1.5, radius=8)
    x0, y0, x1, _ = box
    y = y0 + 8
    for line in title:
        canvas.text(((x0 + x1) / 2, y), line, 12, TEXT, anchor="mt", bold=True)
        y += 15


def _city_hall(canvas: Canvas, view: dict[str, Any], board: Board, box: Box) -> None:
    """The commissioners in City Hall and the markers waiting there (its frame is still)."""
    x0, top, x1, _ = box
    cx = (x0 + x1) / 2
    here = [c for c in board.commissioners if view["commissioners"].get(c) == CITY_HALL]
    y = top + _HALL_PAWNS_Y
    for i, commissioner in enumerate(here):
        _pawn(canvas, cx + (i - (len(here) - 1) / 2) * 18, y, COMMISSIONER_COLORS[commissioner], 1.1)
    y = top + _HALL_MARKERS_Y + 19
    for commissioner in board.commissioners:
        waiting = board.markers_per_commissioner - len(view["markers"].get(commissioner, []))
        for i in range(waiting):
            _marker(canvas, cx + (i - 1) * 15, y, COMMISSIONER_COLORS[commissioner])
        if not waiting:
            canvas.text((cx, y), "-", 10, FAINT, anchor="mm")
        y += 15


def _central_park(canvas: Canvas, view: dict[str, Any], board: Board, box: Box, names: list[str]) -> None:
    """The commissioners in Central Park, its skyscrapers by owner and its businesses (its frame is still)."""
    x0, top, x1, y1 = box
    cx = (x0 + x1) / 2
    y = top + _PLACE_TITLE_H
    here = [c for c in board.commissioners if view["commissioners"].get(c) == CENTRAL_PARK]
    if here:
        y += 20
        for i, commissioner in enumerate(here):
            _pawn(canvas, cx + (i - (len(here) - 1) / 2) * 18, y, COMMISSIONER_COLORS[commissioner], 1.1)
        y += 4
    y += 6
    canvas.text((cx, y), "skyscrapers", 9, TEXT, anchor="mt")
    y += 14
    for owner, count in enumerate(view["central_park"]):
        color = fifth_avenue_owner(owner)
        canvas.rect((x0 + 8, y, x0 + 26, y + 18), color, LINE, 1, radius=3)
        canvas.text((x0 + 17, y + 9.5), str(count), 11, color.ink, anchor="mm", bold=True)
        canvas.text((x0 + 31, y + 9), fit(names[owner] if owner < len(names) else "?", 10, x1 - x0 - 36), 10,
                    TEXT, anchor="lm")
        y += 22
    y += 4
    canvas.text((cx, y), "businesses", 9, TEXT, anchor="mt")
    y += 14
    per_row = 4
    for i, business in enumerate(view["cp_businesses"]):
        row, col = divmod(i, per_row)
        bx = cx + (col - (per_row - 1) / 2) * 18
        by = y + 8 + row * 18
        if by + 8 > y1 - 4:
            break
        _badge(canvas, (bx, by), business)
    if not view["cp_businesses"]:
        canvas.text((cx, y + 4), "none", 9, FAINT, anchor="mt")


def _legend(canvas: Canvas, view: dict[str, Any], names: list[str], top: float) -> None:
    """Every owner's color with the player's name and score (the key below it is still: ``_key``)."""
    x = MARGIN + 4
    y = top + 12
    for owner, name in enumerate(names):
        color = fifth_avenue_owner(owner)
        canvas.rect((x, y - 9, x + 18, y + 9), color, LINE, 1, radius=3)
        label = name
        if owner < view["players"]:
            label += f"  {view['scores'][owner]} VP"
        canvas.text((x + 24, y), label, 12, TEXT, anchor="lm")
        x += 24 + text_width(label, 12) + 18


def _key(canvas: Canvas, board: Board, top: float) -> None:
    """The key below the players: the businesses, the commissioners and markers, a skyscraper, the plots."""
    y = top + 12 + 26
    x = MARGIN + 4
    for business, letter in BUSINESS_LETTERS.items():
        _badge(canvas, (x + BADGE_R, y), business)
        canvas.text((x + 2 * BADGE_R + 4, y), business, 10, TEXT, anchor="lm")
        x += 2 * BADGE_R + 4 + text_width(business, 10) + 12
    x += 6
    _pawn(canvas, x + 6, y + 8, COMMISSIONER_COLORS["white"], 0.9)
    _pawn(canvas, x + 20, y + 8, COMMISSIONER_COLORS["beige"], 0.9)
    canvas.text((x + 30, y), "commissioners", 10, TEXT, anchor="lm")
    x += 30 + text_width("commissioners", 10) + 12
    _marker(canvas, x + 6, y, COMMISSIONER_COLORS["white"])
    _marker(canvas, x + 20, y, COMMISSIONER_COLORS["beige"])
    canvas.text((x + 30, y), "markers", 10, TEXT, anchor="lm")
    x += 30 + text_width("markers", 10) + 12
    canvas.rect((x, y - 9, x + 16, y + 9), BOARD_COLORS["empty site"], LINE, 1, radius=3)
    canvas.text((x + 8, y + 0.5), "3", 11, TEXT, anchor="mm", bold=True)
    canvas.text((x + 21, y), "skyscrapers high", 10, TEXT, anchor="lm")
    y += 24
    x = MARGIN + 4
    canvas.text((x, y), "plots:", 10, TEXT, anchor="lm")
    x += text_width("plots:", 10) + 8
    for plot, color in PLOT_COLORS.items():
        if plot not in board.plot_colors and plot != board.sixth_plot:
            continue
        canvas.circle((x + 7, y), 7, color, LINE, 1)
        label = "center (sixth plot)" if plot == board.sixth_plot else plot
        canvas.text((x + 18, y), label, 10, TEXT, anchor="lm")
        x += 18 + text_width(label, 10) + 12


# =========================================================================== words


def alt_text(view: dict[str, Any], *, players: list[str]) -> str:
    """The picture in a few words: who has what and the scores."""
    names = owner_names(players[: view["players"]], robot=view["players"] == 2)
    built = [0] * len(names)
    districts: list[set[str]] = [set() for _ in names]
    for code, cells in view["plots"].items():
        for cell in cells.values():
            owner = cell.get("owner")
            if owner is not None and cell.get("height") and 0 <= owner < len(names):
                built[owner] += cell["height"]
                districts[owner].add(code)
    side = "back" if view["back_side"] else "front"
    head = f"Fifth Avenue board ({side} side)"
    parts = []
    for owner, name in enumerate(names):
        color = fifth_avenue_owner(owner).name
        where = f"{_plural(built[owner], 'skyscraper')} in {_plural(len(districts[owner]), 'district')}"
        if owner < view["players"]:
            parts.append(f"{name} ({color}) {view['scores'][owner]} VP, {where}")
        else:
            parts.append(f"{name} ({color}) {where}")
    tail = []
    if view["stopped"]:
        tail.append("building stops: " + ", ".join(view["stopped"]))
    if view["result"] is not None:
        winners = [names[w] for w in view["result"]["winners"]]
        tail.append("game over, " + " and ".join(winners) + (" win" if len(winners) > 1 else " wins"))
    end = "" if not tail else " " + _sentence("; ".join(tail))
    text = head + ": " + "; ".join(parts) + "." + end
    if len(text) > 300:  # many long names: scores only
        short = [f"{name} {view['scores'][owner]} VP" for owner, name in enumerate(names[: view["players"]])]
        text = head + ": " + ", ".join(short) + "." + end
    return text


def _plural(n: int, word: str) -> str:
    return f"{n} {word}" if n == 1 else f"{n} {word}s"


def _sentence(text: str) -> str:
    return text[:1].upper() + text[1:] + "."


__all__ = ["Layout", "Plot", "alt_text", "draw", "layout"]
