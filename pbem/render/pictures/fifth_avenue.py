"""The Fifth Avenue city as a picture for a phone: City Hall on top, Central Park at the foot.

The picture is ``WIDTH`` (370) pixels wide, the width a mail's HTML shows it at
on a 390 px phone, so it is shown at its own size there and its smallest
letters (``SMALL``, 11 px) are 11 CSS px tall. The places stand in rows by
their distance from City Hall, as in the text board's ``map_rows`` (34th Street
West left of East, Times Square between the 42nd Streets), joined by the
commissioners' streets. A district is a ring of five plots, in the order the
rules walk them (each next to the one before and after it), the back side's
sixth plot in the middle. A plot is a disc of its color; a skyscraper pile on it
is a block of its owner's color with its height written on it; businesses are
white badges with their initial (B boutique, J jeweler, G gallery, P perfume).
The commissioners standing in a district are pawns beside its code, the markers
they left discs at its top right. A district with a building stop is grayed and
says so. City Hall shows the commissioners there and the markers still waiting;
Central Park the commissioners there, the skyscrapers below it by owner (in
their colors) and its businesses. Then the key, and at the foot every owner's
color with the player's whole name (wrapped, never cut) and score; the picture
is as tall as the names need.

The place the decision is about (``marked``: the district or Central Park
being auctioned, the district where a skyscraper is to be built, and its plot)
has a thick frame and header in the mark color.

The picture is public: it draws nothing that differs between the views of two
seats (no hand, no "you"), so every player of a position gets the same bytes.
``layout(back_side)`` gives the geometry (places, plots, where a plot's color
and a skyscraper's color show), which tests read instead of pixel numbers.

Why one module of some 560 lines: the picture is drawn in one pass over one layout, each piece a short
function placed by the same geometry, and its alt text must say what those pieces show; the drawing tools
are in ``canvas`` and the colors in ``palette``.
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from functools import lru_cache
from typing import Any


from pbem.games.fifth_avenue.board import CENTRAL_PARK, CITY_HALL, Board, load_board

from ..text import map_rows, owner_names
from .canvas import Box, Canvas, Still, text_width, wrap
from .palette import (
    MARK,
    BOARD_COLORS,
    BUSINESS_LETTERS,
    COMMISSIONER_COLORS,
    PLOT_COLORS,
    Color,
    fifth_avenue_owner,
    picture_palette,
)

WIDTH = 370
MARGIN = 6
SMALL = 11  # the smallest letters: 11 CSS px shown 370 px wide
TITLE_H = 22  # the title strip: the side and the game's progress (the mail and the page name the game)
COL_GAP = 7  # between the districts of a row: the streets show here
ROW_GAP = 10  # between rows
DISTRICT_W = (WIDTH - 2 * MARGIN - 2 * COL_GAP) // 3  # three districts side by side at most
HEADER_H = 26  # a district's code and who stands there
RING_R = 33  # from a district's ring centre to a plot's centre
PLOT_R = 15  # a plot's radius
DISTRICT_H = HEADER_H + round(RING_R * (1 + math.cos(math.radians(36)))) + 2 * PLOT_R + 8
HALL_H = 44  # City Hall's row
PARK_H = 78  # Central Park's row
TOKEN_W, TOKEN_H = 19, 19  # a skyscraper pile on a plot
BADGE_R = 7.5  # a business badge
LINE_H = 19  # a line of the key and of the players
MARK_W = 3  # the marked place's frame

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
        return x, y + self.radius - 3

    @property
    def token(self) -> tuple[int, int]:
        """A pixel that shows the owner's color when a skyscraper stands on the plot (clear of its number)."""
        x, y = self.center
        return x - TOKEN_W // 2 + 2, y + TOKEN_H // 2 - 2


@dataclass(frozen=True)
class Layout:
    width: int
    height: int  # down to the players' names, whose lines each picture adds (``draw``)
    places: dict[str, Box]  # CH, the districts, CP -> (x0, y0, x1, y1)
    plots: dict[tuple[str, str], Plot]  # (district, plot color or "center") -> where it is drawn
    key_top: int
    legend_top: int  # the players' first line


@lru_cache(maxsize=None)
def layout(back_side: bool = False) -> Layout:
    """Where everything of the city is drawn on the given side of the board."""
    board = load_board(back_side)
    rows = [[place["code"] for place in row["places"]] for row in map_rows(board)]
    places: dict[str, Box] = {}
    y = TITLE_H + 8
    for row in rows:
        if row[0] in (CITY_HALL, CENTRAL_PARK):
            height = HALL_H if row[0] == CITY_HALL else PARK_H
            places[row[0]] = (MARGIN, y, WIDTH - MARGIN, y + height)
        else:
            height = DISTRICT_H
            total = len(row) * DISTRICT_W + (len(row) - 1) * COL_GAP
            x = (WIDTH - total) // 2
            for code in row:
                places[code] = (x, y, x + DISTRICT_W, y + height)
                x += DISTRICT_W + COL_GAP
        y += height + ROW_GAP
    plots: dict[tuple[str, str], Plot] = {}
    for code in board.district_codes:
        x0, y0, x1, _ = places[code]
        cx = (x0 + x1) // 2
        cy = y0 + HEADER_H + PLOT_R + RING_R
        ring = board.district(code).ring
        for i, color in enumerate(ring):
            angle = 2 * math.pi * i / len(ring)
            plots[(code, color)] = Plot((round(cx + RING_R * math.sin(angle)), round(cy - RING_R * math.cos(angle))),
                                        PLOT_R)
        if board.sixth_plot:
            plots[(code, board.sixth_plot)] = Plot((cx, cy), PLOT_R)
    key_top = y
    legend_top = key_top + len(_key_lines(back_side)) * LINE_H + 8
    return Layout(WIDTH, legend_top, places, plots, key_top, legend_top)


def marked(view: dict[str, Any]) -> tuple[str, str | None] | None:
    """(place, plot or None) that the decision waited for is about: the site of the auction under way, or the
    district and plot where its winner builds; None between auctions and builds."""
    for frame in reversed(view["frames"]):
        if frame["kind"] == "auction":
            return frame["site"], None
        if frame["kind"] == "build":
            return frame["site"], (None if frame["site"] == CENTRAL_PARK else frame.get("color"))
    return None


# =========================================================================== drawing


def draw(view: dict[str, Any], *, players: list[str]) -> bytes:
    """The city of ``view`` (``State.view(seat)``) as PNG bytes; ``players`` are the names by seat. The place
    to mark is the view's own (``marked``)."""
    return drawing(view, players=players).png(palette())


def drawing(view: dict[str, Any], *, players: list[str]) -> Canvas:
    """The picture before it is stored (its ``labels`` say what text it holds, and how large).

    It starts from the board's still parts (``_still``: drawn once per side of the board), and draws what the
    position changes over them, in the order of a drawing from scratch; the players' lines below them."""
    board = load_board(view["back_side"])
    geo = layout(view["back_side"])
    names = owner_names(players[: view["players"]], robot=view["players"] == 2)
    lines = _legend_lines(view, names)
    canvas = Canvas.over(_still(view["back_side"]), height=geo.legend_top + len(lines) * LINE_H + 6,
                         background=PAPER)
    _title(canvas, view, board)
    for code in board.district_codes:
        _district(canvas, view, board, geo, code)
    _city_hall(canvas, view, board, geo.places[CITY_HALL])
    _central_park(canvas, view, board, geo.places[CENTRAL_PARK])
    mark = marked(view)
    if mark is not None:
        _mark(canvas, board, geo, view, *mark)
    _legend(canvas, lines, geo.legend_top)
    return canvas


@lru_cache(maxsize=8)
def _still(back_side: bool) -> Still:
    """What every position of a side of the board shows alike: the title bar, the streets, the districts with
    their codes and empty plots, City Hall's and Central Park's frames, the key."""
    board = load_board(back_side)
    geo = layout(back_side)
    canvas = Canvas(geo.width, geo.height, PAPER)
    canvas.rect((0, 0, WIDTH, TITLE_H), BOARD_COLORS["text"])
    _streets(canvas, board, geo)
    for code in board.district_codes:
        _district_frame(canvas, board, geo, code, stopped=False)
    x0, y0, x1, y1 = geo.places[CITY_HALL]
    canvas.rect(geo.places[CITY_HALL], BOARD_COLORS["city hall"], LINE, 1.5, radius=8)
    canvas.text((x0 + 8, (y0 + y1) / 2), "City Hall", 13, TEXT, anchor="lm", bold=True)
    canvas.text((x0 + _HALL_MARKERS_X, (y0 + y1) / 2), "markers", SMALL, FAINT, anchor="lm")
    x0, y0, x1, y1 = geo.places[CENTRAL_PARK]
    canvas.rect(geo.places[CENTRAL_PARK], BOARD_COLORS["central park"], BOARD_COLORS["park edge"], 1.5, radius=8)
    canvas.text((x0 + 8, y0 + 12), "Central Park", 13, TEXT, anchor="lm", bold=True)
    canvas.text((x0 + 8, y0 + 36), "skyscrapers", SMALL, TEXT, anchor="lm")
    canvas.text((x0 + 8, y0 + 60), "businesses", SMALL, TEXT, anchor="lm")
    _key(canvas, board, geo.key_top)
    return canvas.still()


@lru_cache(maxsize=None)
def palette() -> tuple[tuple[int, int, int], ...]:
    """The pictures' PNG palette: the named colors and the blends of the colors they draw side by side."""
    light, stopped, street = BOARD_COLORS["district"], BOARD_COLORS["stopped"], BOARD_COLORS["street"]
    hall, park, business = BOARD_COLORS["city hall"], BOARD_COLORS["central park"], BOARD_COLORS["business"]
    owners = [fifth_avenue_owner(owner) for owner in range(4)]
    letters = (
        (TEXT, light), (TEXT, PAPER), (TEXT, business), (TEXT, hall), (TEXT, park), (TEXT, BOARD_COLORS["empty site"]),
        (FAINT, hall), (FAINT, park), (light, stopped), (light, BOARD_COLORS["stop sign"]), (MARK.ink, MARK),
        (light, TEXT), *((owner.ink, owner) for owner in owners),
    )
    fills = [PAPER, light, street, hall, park, business, BOARD_COLORS["empty site"], *PLOT_COLORS.values(), *owners,
             *COMMISSIONER_COLORS.values()]
    edges = (
        *((LINE, fill) for fill in fills),
        (street, PAPER), (light, street), (LINE, stopped), (street, stopped), (light, stopped),
        (BOARD_COLORS["park edge"], PAPER), (BOARD_COLORS["park edge"], street), (BOARD_COLORS["park edge"], park),
        (MARK, PAPER), (MARK, street), (MARK, light), (MARK, park), (LINE, MARK),
    )
    return picture_palette(letters, edges)


def _title(canvas: Canvas, view: dict[str, Any], board: Board) -> None:
    """The side and the game's progress, on one line (who won is said with the players, at the foot). The
    game's name and its players are the mail's and the page's heading and the foot's: a line of letters on the
    dark strip is some 700 bytes of every picture (issue 35, point 5)."""
    side = "back side" if view["back_side"] else "front side"
    sets_left = sum(1 for group in view["supply_row"] if group)
    progress = f"{side} · building stops {len(view['stopped'])} of {board.building_stops}"
    if view["result"] is not None:
        progress += " · game over"
    else:
        progress += f" · supply row: {sets_left} of {len(view['supply_row'])} sets left"
    canvas.text((MARGIN + 2, TITLE_H / 2), progress, SMALL, BOARD_COLORS["district"], anchor="lm")


def _center(box: Box) -> tuple[float, float]:
    return (box[0] + box[2]) / 2, (box[1] + box[3]) / 2


def _streets(canvas: Canvas, board: Board, geo: Layout) -> None:
    """The commissioners' streets: from each place to the places a commissioner may walk on to."""
    for here, nexts in board.graph.items():
        for there in nexts:
            (x0, y0), (x1, y1) = _center(geo.places[here]), _center(geo.places[there])
            if here == CITY_HALL:  # from City Hall's row straight down to the district
                x0 = x1
            if there == CENTRAL_PARK:
                x1 = x0
            canvas.line([(x0, y0), (x1, y1)], BOARD_COLORS["street"], width=8)
            canvas.line([(x0, y0), (x1, y1)], BOARD_COLORS["district"], width=1)


def _pawn(canvas: Canvas, x: float, y: float, color: Color, size: float = 1.0) -> None:
    """A commissioner: a pawn standing with its foot's middle at (x, y)."""
    s = size
    canvas.polygon([(x - 6 * s, y), (x + 6 * s, y), (x + 3 * s, y - 9 * s), (x - 3 * s, y - 9 * s)], color, LINE, 1.2)
    canvas.circle((x, y - 12 * s), 4.5 * s, color, LINE, 1.2)


def _marker(canvas: Canvas, x: float, y: float, color: Color) -> None:
    """A commissioner's marker: a flat disc centred at (x, y)."""
    canvas.circle((x, y), 6, color, LINE, 1.2)
    canvas.circle((x, y), 2, LINE)


def _skyscraper(canvas: Canvas, center: tuple[float, float], owner: int, height: int) -> None:
    x, y = center
    color = fifth_avenue_owner(owner)
    left, top = x - TOKEN_W / 2, y - TOKEN_H / 2
    canvas.rect((left, top, left + TOKEN_W, top + TOKEN_H), color, LINE, 1, radius=3)
    canvas.text((x, y + 0.5), str(height), 14, color.ink, anchor="mm", bold=True)


def _badge(canvas: Canvas, center: tuple[float, float], business: str, radius: float = BADGE_R) -> None:
    letter = BUSINESS_LETTERS.get(business, business[:1].upper())
    canvas.circle(center, radius, BOARD_COLORS["business"], LINE, 1)
    canvas.text((center[0], center[1] + 0.5), letter, SMALL, TEXT, anchor="mm", bold=True)


def _badges(canvas: Canvas, center: tuple[float, float], businesses: list[str]) -> None:
    x, y = center
    if len(businesses) == 1:
        _badge(canvas, (x, y), businesses[0])
    elif len(businesses) == 2:
        _badge(canvas, (x - BADGE_R, y), businesses[0])
        _badge(canvas, (x + BADGE_R, y), businesses[1])
    elif businesses:  # never seen in play; drawn overlapping all the same
        spots = [(x - 6, y - 6), (x + 6, y - 6), (x - 6, y + 6), (x + 6, y + 6)]
        for spot, business in zip(spots, businesses):
            _badge(canvas, spot, business)


def _district_frame(canvas: Canvas, board: Board, geo: Layout, code: str, stopped: bool,
                    header: Color | None = None) -> None:
    """A district without what stands on it: its frame, its code and its plots (grayed with a building
    stop); ``header`` fills the band of its code (the marked place's)."""
    box = geo.places[code]
    x0, y0, x1, y1 = box
    canvas.rect(box, BOARD_COLORS["stopped"] if stopped else BOARD_COLORS["district"], LINE, 1, radius=6)
    ink = BOARD_COLORS["district"] if stopped else TEXT
    if header is not None:
        canvas.rect((x0, y0, x1, y0 + HEADER_H - 2), header, None, radius=6)
        ink = header.ink
    canvas.text((x0 + 5, y0 + 10), code, 13, ink, anchor="lm", bold=True)
    if not stopped:
        for plot in board.plots(code):
            spot = geo.plots[(code, plot)]
            fill = PLOT_COLORS[plot] if plot in PLOT_COLORS else PLOT_COLORS["center"]
            canvas.circle(spot.center, spot.radius, fill, LINE, 1)
    else:
        for plot in board.plots(code):
            spot = geo.plots[(code, plot)]
            canvas.circle(spot.center, spot.radius, None, BOARD_COLORS["street"], 1.5)
        cx, cy = _center((x0, y0 + HEADER_H, x1, y1))
        canvas.rect((x0 + 5, cy - 20, x1 - 5, cy + 20), BOARD_COLORS["stop sign"], BOARD_COLORS["district"], 2,
                    radius=4)
        canvas.text((cx, cy - 7), "BUILDING", 13, BOARD_COLORS["district"], anchor="mm", bold=True)
        canvas.text((cx, cy + 8), "STOP", 13, BOARD_COLORS["district"], anchor="mm", bold=True)


def _district(canvas: Canvas, view: dict[str, Any], board: Board, geo: Layout, code: str) -> None:
    """What stands in a district, over its frame (the still picture's, or drawn anew for a building stop)."""
    x0, y0, x1, _ = geo.places[code]
    if code in view["stopped"]:  # drawn over the still district, covering it whole
        _district_frame(canvas, board, geo, code, stopped=True)
    else:
        for plot in board.plots(code):
            cell = view["plots"][code][plot]
            center = geo.plots[(code, plot)].center
            if cell.get("owner") is not None and cell.get("height"):
                _skyscraper(canvas, center, int(cell["owner"]), int(cell["height"]))
            elif cell.get("businesses"):
                _badges(canvas, center, list(cell["businesses"]))
    _people(canvas, view, board, geo, code)


def _people(canvas: Canvas, view: dict[str, Any], board: Board, geo: Layout, code: str) -> None:
    """The commissioners standing in a district (after its code) and the markers they left (top right)."""
    x0, y0, x1, _ = geo.places[code]
    here = [c for c in board.commissioners if view["commissioners"].get(c) == code]
    for i, commissioner in enumerate(here):
        _pawn(canvas, x0 + 44 + 15 * i, y0 + 17, COMMISSIONER_COLORS[commissioner], 0.95)
    left = [c for c in board.commissioners if code in view["markers"].get(c, [])]
    for i, commissioner in enumerate(left):
        _marker(canvas, x1 - 10 - 14 * i, y0 + 10, COMMISSIONER_COLORS[commissioner])


_HALL_PAWNS_X = 100  # from City Hall's left edge: its commissioners
_HALL_MARKERS_X = 150  # the word "markers", then the markers waiting in a row per commissioner


def _city_hall(canvas: Canvas, view: dict[str, Any], board: Board, box: Box) -> None:
    """The commissioners in City Hall and the markers waiting there (its frame is still)."""
    x0, top, x1, y1 = box
    cy = (top + y1) / 2
    here = [c for c in board.commissioners if view["commissioners"].get(c) == CITY_HALL]
    for i, commissioner in enumerate(here):
        _pawn(canvas, x0 + _HALL_PAWNS_X + 18 * i, cy + 9, COMMISSIONER_COLORS[commissioner], 1.1)
    x = x0 + _HALL_MARKERS_X + text_width("markers", SMALL) + 12
    for row, commissioner in enumerate(board.commissioners):
        waiting = board.markers_per_commissioner - len(view["markers"].get(commissioner, []))
        y = cy + (row - (len(board.commissioners) - 1) / 2) * 14
        for i in range(waiting):
            _marker(canvas, x + i * 14, y, COMMISSIONER_COLORS[commissioner])
        if not waiting:
            canvas.text((x, y), "none", SMALL, FAINT, anchor="lm")


def _central_park(canvas: Canvas, view: dict[str, Any], board: Board, box: Box) -> None:
    """The commissioners in Central Park, its skyscrapers by owner (in their colors: the players' lines below
    name them) and its businesses (its frame and words are still)."""
    x0, top, x1, y1 = box
    here = [c for c in board.commissioners if view["commissioners"].get(c) == CENTRAL_PARK]
    for i, commissioner in enumerate(here):
        _pawn(canvas, x0 + 110 + 18 * i, top + 20, COMMISSIONER_COLORS[commissioner], 1.1)
    x = x0 + 8 + text_width("skyscrapers", SMALL) + 8
    for owner, count in enumerate(view["central_park"]):
        color = fifth_avenue_owner(owner)
        canvas.rect((x, top + 27, x + 22, top + 45), color, LINE, 1, radius=3)
        canvas.text((x + 11, top + 36.5), str(count), 12, color.ink, anchor="mm", bold=True)
        x += 28
    x = x0 + 8 + text_width("businesses", SMALL) + 8 + BADGE_R
    for business in view["cp_businesses"]:
        if x + BADGE_R > x1 - 4:
            break
        _badge(canvas, (x, top + 60), business)
        x += 2 * BADGE_R + 3
    if not view["cp_businesses"]:
        canvas.text((x - BADGE_R, top + 60), "none", SMALL, FAINT, anchor="lm")


def _mark(canvas: Canvas, board: Board, geo: Layout, view: dict[str, Any], code: str, plot: str | None) -> None:
    """The place the decision is about: its header in the mark color and a thick frame (a ring round the plot
    where the winner builds)."""
    x0, y0, x1, y1 = geo.places[code]
    if code not in (CITY_HALL, CENTRAL_PARK) and code not in view["stopped"]:
        canvas.rect((x0, y0, x1, y0 + HEADER_H - 2), MARK, None, radius=6)
        canvas.text((x0 + 5, y0 + 10), code, 13, MARK.ink, anchor="lm", bold=True)
        _people(canvas, view, board, geo, code)
    canvas.rect((x0 - 1, y0 - 1, x1 + 1, y1 + 1), None, MARK, MARK_W, radius=7)
    if plot is not None and (code, plot) in geo.plots:
        spot = geo.plots[(code, plot)]
        canvas.circle(spot.center, spot.radius + 3, None, MARK, 2.5)


Legend = list[list[tuple[int | None, str]]]  # lines of (owner, text): the owner's swatch, or None for a name's rest
_SWATCH_W = 26  # a player's swatch and the space after it
_ITEM_GAP = 14  # between two players on a line


def _legend_lines(view: dict[str, Any], names: list[str]) -> Legend:
    """The players, side by side as long as they fit the width: each owner's swatch, the whole name and the
    score (and who won). A name too long for a line wraps onto lines of its own."""
    winners = set(view["result"]["winners"]) if view["result"] is not None else set()
    room = WIDTH - 2 * MARGIN - 4
    lines: Legend = [[]]
    used = 0.0
    for owner, name in enumerate(names):
        label = name
        if owner < view["players"]:
            label += f" {view['scores'][owner]} VP" + (" wins" if owner in winners else "")
        parts = wrap(label, 12, room - _SWATCH_W)
        width = _SWATCH_W + text_width(parts[0], 12) + _ITEM_GAP
        if lines[-1] and (len(parts) > 1 or used + width > room):
            lines.append([])
            used = 0
        lines[-1].append((owner, parts[0]))
        used += width
        if len(parts) > 1:
            lines += [[(None, part)] for part in parts[1:]]
            lines.append([])
            used = 0
    return [line for line in lines if line]


def _legend(canvas: Canvas, lines: Legend, top: float) -> None:
    """Every owner's color with the player's name and score."""
    y = top + LINE_H / 2
    for line in lines:
        x = MARGIN + 4
        for owner, text in line:
            if owner is not None:
                color = fifth_avenue_owner(owner)
                canvas.rect((x, y - 8, x + 18, y + 8), color, LINE, 1, radius=3)
            canvas.text((x + _SWATCH_W, y), text, 12, TEXT, anchor="lm")
            x += _SWATCH_W + text_width(text, 12) + _ITEM_GAP
        y += LINE_H


def _key_lines(back_side: bool) -> list[list[str]]:
    """The key's items (``_key_item``), in lines that fit the width."""
    board = load_board(back_side)
    items = [*BUSINESS_LETTERS, "commissioners", "markers", "skyscraper", "plots"]
    items += [plot for plot in PLOT_COLORS if plot in board.plot_colors or plot == board.sixth_plot]
    lines: list[list[str]] = [[]]
    room = WIDTH - 2 * MARGIN - 4
    used = 0.0
    for item in items:
        width = _key_item_width(item, board)
        if lines[-1] and used + width > room or item == "plots":
            lines.append([])
            used = 0
        lines[-1].append(item)
        used += width
    return [line for line in lines if line]


def _key_label(item: str, board: Board) -> str:
    if item == board.sixth_plot:
        return "center (sixth plot)"
    return {"skyscraper": "skyscrapers high", "plots": "plots:"}.get(item, item)


def _key_icon_width(item: str) -> float:
    return {"commissioners": 28, "markers": 28, "skyscraper": 20, "plots": 0}.get(item, 2 * BADGE_R + 3 if item in
                                                                               BUSINESS_LETTERS else 17)


def _key_item_width(item: str, board: Board) -> float:
    return _key_icon_width(item) + text_width(_key_label(item, board), SMALL) + 12


def _key(canvas: Canvas, board: Board, top: float) -> None:
    """The key: the businesses, the commissioners and markers, a skyscraper, the plots."""
    y = top + LINE_H / 2
    for line in _key_lines(board.sixth_plot is not None):
        x = MARGIN + 4
        for item in line:
            if item in BUSINESS_LETTERS:
                _badge(canvas, (x + BADGE_R, y), item)
            elif item == "commissioners":
                _pawn(canvas, x + 6, y + 8, COMMISSIONER_COLORS["white"], 0.85)
                _pawn(canvas, x + 19, y + 8, COMMISSIONER_COLORS["beige"], 0.85)
            elif item == "markers":
                _marker(canvas, x + 6, y, COMMISSIONER_COLORS["white"])
                _marker(canvas, x + 19, y, COMMISSIONER_COLORS["beige"])
            elif item == "skyscraper":
                canvas.rect((x, y - 8, x + 15, y + 8), BOARD_COLORS["empty site"], LINE, 1, radius=3)
                canvas.text((x + 7.5, y + 0.5), "3", 12, TEXT, anchor="mm", bold=True)
            elif item != "plots":
                canvas.circle((x + 7, y), 7, PLOT_COLORS[item], LINE, 1)
            label = _key_label(item, board)
            canvas.text((x + _key_icon_width(item), y), label, SMALL, TEXT, anchor="lm")
            x += _key_item_width(item, board)
        y += LINE_H


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
