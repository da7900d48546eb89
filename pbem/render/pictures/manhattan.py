"""Manhattan's six cities as a picture, seen from the reader's side of the table.

Each city is a 3 x 3 grid drawn as its reader sees it from their own side
(``view["viewer"]``'s side; the public view from the south side), so that the
small number in a site's corner is the number of the reader's card that builds
there (``games.manhattan.board.absolute_site``, as the text board numbers
them). A site with a tower is filled with its owner's color (the color on top)
and shows its height in floors; when several colors share the tower, a strip
along its foot shows each color's share of the floors (who may build on it).
The single tallest tower has a gold frame; a city's single majority is named in
its header. The players' names stand along the edges of the board where they
sit (the reader below), each with their colors; below the cities every player
with their colors and score.

``layout()`` gives the geometry (every city's box and every site's box by the
reader's card number, and a pixel showing a site's fill) for tests.
"""

from __future__ import annotations

from dataclasses import dataclass
from functools import lru_cache
from typing import Any

from PIL import Image

from pbem.games.manhattan.board import SIDES, absolute_site, load_board

from ..text import owner_names
from .canvas import Box, Canvas, fit, text_width
from .palette import BOARD_COLORS, Color, manhattan_color, picture_palette

WIDTH = 640
MARGIN = 8
TITLE_H = 34
EDGE = 22  # the strip along each edge of the board with the name of the player sitting there
CITY_GAP = 12
SITE = 55
SITE_GAP = 3
CITY_PAD = 6
HEADER_H = 22
CITY_W = 3 * SITE + 2 * SITE_GAP + 2 * CITY_PAD
CITY_H = HEADER_H + 3 * SITE + 2 * SITE_GAP + CITY_PAD
LEGEND_H = 56
STRIP_H = 8  # the floors' strip at a site's foot

PAPER = BOARD_COLORS["paper"]
TEXT = BOARD_COLORS["text"]
FAINT = BOARD_COLORS["faint"]
LINE = BOARD_COLORS["line"]
EMPTY = BOARD_COLORS["empty site"]


# =========================================================================== geometry


@dataclass(frozen=True)
class Layout:
    width: int
    height: int
    board: Box  # the cities with the players' edges around them
    cities: dict[str, Box]
    sites: dict[tuple[str, int], Box]  # (city, the reader's card number 1-9) -> the site's box
    legend_top: int

    def site_point(self, city: str, card: int) -> tuple[int, int]:
        """A pixel that shows the site's fill (its owner's color, or the empty site's), clear of its writing."""
        x0, y0, x1, y1 = self.sites[(city, card)]
        return int(x1) - 6, int(y0 + y1) // 2 - 4


@lru_cache(maxsize=None)
def layout() -> Layout:
    codes = load_board().city_codes
    per_row = 3
    rows = (len(codes) + per_row - 1) // per_row
    inner_w = per_row * CITY_W + (per_row - 1) * CITY_GAP
    board_w = inner_w + 2 * EDGE
    left = (WIDTH - board_w) // 2
    top = TITLE_H + 6
    board_h = rows * CITY_H + (rows - 1) * CITY_GAP + 2 * EDGE
    cities: dict[str, Box] = {}
    sites: dict[tuple[str, int], Box] = {}
    for i, code in enumerate(codes):
        row, col = divmod(i, per_row)
        x0 = left + EDGE + col * (CITY_W + CITY_GAP)
        y0 = top + EDGE + row * (CITY_H + CITY_GAP)
        cities[code] = (x0, y0, x0 + CITY_W, y0 + CITY_H)
        for card in range(1, 10):
            r, c = divmod(card - 1, 3)
            sx = x0 + CITY_PAD + c * (SITE + SITE_GAP)
            sy = y0 + HEADER_H + r * (SITE + SITE_GAP)
            sites[(code, card)] = (sx, sy, sx + SITE, sy + SITE)
    legend_top = top + board_h + 8
    return Layout(WIDTH, legend_top + LEGEND_H, (left, top, left + board_w, top + board_h), cities, sites,
                  legend_top)


def reader_side(view: dict[str, Any]) -> int:
    """The side the cities are drawn from: the viewer's, or the south side (0) for the public view."""
    viewer = view["viewer"]
    return view["side"][viewer] if viewer is not None and 0 <= viewer < len(view["side"]) else 0


# =========================================================================== drawing


def draw(view: dict[str, Any], *, players: list[str]) -> bytes:
    """The cities of ``view`` (``State.view(seat)``) as PNG bytes, from the viewer's side.

    It starts from the board's still parts (``_still``: drawn once), and draws what the position and the reader
    change over them, in the order of a drawing from scratch."""
    board = load_board()
    geo = layout()
    names = owner_names(players[: view["players"]])
    side = reader_side(view)
    canvas = Canvas.over(_still(tuple((code, view["cities"][code]["name"]) for code in board.city_codes)))
    _title(canvas, view, board, names, side)
    _edges(canvas, view, board, geo, names, side)
    tallest = _tallest(view)
    for code in board.city_codes:
        _city(canvas, view["cities"][code], geo, code, side, tallest, names, view)
    _legend(canvas, view, names, geo.legend_top, side, board)
    return canvas.png(palette())


@lru_cache(maxsize=8)
def _still(cities: tuple[tuple[str, str], ...]) -> Image.Image:
    """What every position shows alike, from every side: the title bar, the table with the cities (``cities``:
    code, name) and their empty sites, the tallest tower's key."""
    geo = layout()
    canvas = Canvas(geo.width, geo.height, PAPER)
    canvas.rect((0, 0, WIDTH, TITLE_H), TEXT)
    canvas.text((MARGIN + 4, TITLE_H / 2), "MANHATTAN", 17, BOARD_COLORS["district"], anchor="lm", bold=True)
    x0, y0, x1, y1 = geo.board
    canvas.rect(geo.board, BOARD_COLORS["street"], LINE, 1, radius=10)
    canvas.rect((x0 + EDGE - 4, y0 + EDGE - 4, x1 - EDGE + 4, y1 - EDGE + 4), BOARD_COLORS["district"], None,
                radius=6)
    for code, name in cities:
        box = geo.cities[code]
        canvas.rect(box, BOARD_COLORS["city"], LINE, 1, radius=6)
        canvas.text((box[0] + CITY_PAD + 1, box[1] + HEADER_H / 2 + 1), name, 13, TEXT, anchor="lm", bold=True)
        for card in range(1, 10):
            sx, sy, _, _ = site = geo.sites[(code, card)]
            canvas.rect(site, EMPTY, None, radius=3)
            canvas.text((sx + 4, sy + 3), str(card), 10, FAINT, anchor="lt")
    y = geo.legend_top + 12 + 26
    gx = WIDTH - MARGIN - 120
    canvas.rect((gx, y - 7, gx + 14, y + 7), BOARD_COLORS["city"], BOARD_COLORS["tallest"], 3, radius=2)
    canvas.text((gx + 20, y), "the tallest tower", 10, TEXT, anchor="lm")
    return canvas.still()


@lru_cache(maxsize=None)
def palette() -> tuple[tuple[int, int, int], ...]:
    """The pictures' PNG palette: the named colors and the blends of the colors they draw side by side."""
    players = [manhattan_color(color) for color in load_board().colors]
    light, street, city, tallest = (BOARD_COLORS[name] for name in ("district", "street", "city", "tallest"))
    letters = (
        (light, TEXT), (TEXT, PAPER), (TEXT, street), (FAINT, street), (TEXT, city), (FAINT, EMPTY),
        *((color.ink, color) for color in players),
    )
    edges = (
        (LINE, PAPER), (LINE, street), (light, street), (LINE, city), (EMPTY, city), (tallest, city),
        *((LINE, color) for color in players), *((city, color) for color in players),
        *((tallest, color) for color in players),
    )
    return picture_palette(letters, edges)


def _title(canvas: Canvas, view: dict[str, Any], board: Any, names: list[str], side: int) -> None:
    light = BOARD_COLORS["district"]
    facts = [f"{view['players']} players"]
    if view["result"] is not None:
        winners = [names[w] for w in view["result"]["winners"]]
        facts.append("game over: " + " and ".join(winners) + (" win" if len(winners) > 1 else " wins"))
    else:
        facts.append(f"round {view['round']} of {view['rounds']}")
    facts.append(f"seen from the {board.side_names[side]} side")
    canvas.text((WIDTH - MARGIN - 4, TITLE_H / 2), fit("  ·  ".join(facts), 12, WIDTH - 150), 12, light,
                anchor="rm")


def _seat_at(view: dict[str, Any]) -> dict[int, int]:
    """Side of the table -> the seat sitting there."""
    return {side: seat for seat, side in enumerate(view["side"])}


def _edges(canvas: Canvas, view: dict[str, Any], board: Any, geo: Layout, names: list[str], side: int) -> None:
    """Who sits along the table's edges (still): the reader's side below, then left, opposite (above) and right."""
    x0, y0, x1, y1 = geo.board
    seats = _seat_at(view)
    for turn in range(SIDES):  # 0 below (the reader), 1 left, 2 above, 3 right
        at = (side + turn) % SIDES
        seat = seats.get(at)
        label = board.side_names[at]
        colors: list[str] = []
        if seat is not None:
            label = f"{names[seat]} ({label})"
            if view["viewer"] == seat:
                label = f"you, {label}"
            colors = list(view["colors"][seat])
        ink = TEXT if seat is not None else FAINT
        length = text_width(label, 11) + 14 * len(colors)
        if turn in (0, 2):
            y = y1 - EDGE / 2 if turn == 0 else y0 + EDGE / 2
            x = (x0 + x1) / 2 - length / 2
            for color in colors:
                _swatch(canvas, (x + 5, y), manhattan_color(color), 5)
                x += 14
            canvas.text((x, y), label, 11, ink, anchor="lm", bold=seat is not None and seat == view["viewer"])
        else:
            x = x0 + EDGE / 2 if turn == 1 else x1 - EDGE / 2
            # left reads bottom to top, right top to bottom; the swatches come first in reading order
            direction = -1 if turn == 1 else 1
            y = (y0 + y1) / 2 - direction * length / 2
            for color in colors:
                _swatch(canvas, (x, y + direction * 5), manhattan_color(color), 5)
                y += direction * 14
            text_len = text_width(label, 11)
            canvas.vertical_text((x, y + direction * text_len / 2), label, 11, ink, BOARD_COLORS["street"],
                                 clockwise=turn == 3)


def _swatch(canvas: Canvas, center: tuple[float, float], color: Color, radius: float) -> None:
    x, y = center
    canvas.rect((x - radius, y - radius, x + radius, y + radius), color, LINE, 1, radius=2)


def _tallest(view: dict[str, Any]) -> tuple[str, int] | None:
    """(city, site) of the single tallest tower, if one is taller than all the others."""
    best, where = 0, []
    for code, city in view["cities"].items():
        for site in city["sites"]:
            if site["height"] > best:
                best, where = site["height"], [(code, site["site"])]
            elif site["height"] == best and best:
                where.append((code, site["site"]))
    return where[0] if len(where) == 1 else None


def _majority(city: dict[str, Any]) -> str | None:
    counts: dict[str, int] = {}
    for site in city["sites"]:
        if site["owner"]:
            counts[site["owner"]] = counts.get(site["owner"], 0) + 1
    if not counts:
        return None
    most = max(counts.values())
    leaders = [color for color, n in counts.items() if n == most]
    return leaders[0] if len(leaders) == 1 else None


def _city(canvas: Canvas, city: dict[str, Any], geo: Layout, code: str, side: int, tallest: tuple[str, int] | None,
          names: list[str], view: dict[str, Any]) -> None:
    """A city's majority and its towers, over its still frame and empty sites."""
    _, y0, x1, _ = geo.cities[code]
    leader = _majority(city)
    if leader is not None:
        owner = next((names[seat] for seat, colors in enumerate(view["colors"]) if leader in colors), leader)
        label = fit(f"most: {owner}", 10, CITY_W - text_width(city["name"], 13) - 34)
        right = x1 - CITY_PAD
        canvas.text((right, y0 + HEADER_H / 2 + 1), label, 10, TEXT, anchor="rm")
        _swatch(canvas, (right - text_width(label, 10) - 8, y0 + HEADER_H / 2 + 1), manhattan_color(leader), 4.5)
    for card in range(1, 10):
        site = city["sites"][absolute_site(side, card) - 1]
        _site(canvas, geo.sites[(code, card)], card, site, tallest == (code, site["site"]))


def _site(canvas: Canvas, box: Box, card: int, site: dict[str, Any], tallest: bool) -> None:
    x0, y0, x1, y1 = box
    if not site["parts"]:  # as the still picture has it
        return
    fill = manhattan_color(site["owner"])
    canvas.rect(box, fill, LINE, 1, radius=3)
    canvas.text((x0 + 4, y0 + 3), str(card), 10, fill.ink, anchor="lt")
    canvas.text(((x0 + x1) / 2, (y0 + y1) / 2 - 2), str(site["height"]), 22, fill.ink, anchor="mm", bold=True)
    floors = {color: n for color, n in site["floors"].items() if n}
    if len(floors) > 1:
        order = sorted(floors.items(), key=lambda item: (-item[1], item[0]))
        total = sum(floors.values())
        left, right = x0 + 5, x1 - 5
        top, bottom = y1 - 5 - STRIP_H, y1 - 5
        x = float(left)
        for i, (color, n) in enumerate(order):
            end = right if i == len(order) - 1 else x + (right - left) * n / total
            canvas.rect((round(x), top, round(end), bottom), manhattan_color(color), BOARD_COLORS["city"], 1)
            x = end
    if tallest:
        canvas.rect(box, None, BOARD_COLORS["tallest"], 3, radius=3)


def _legend(canvas: Canvas, view: dict[str, Any], names: list[str], top: float, side: int, board: Any) -> None:
    x = MARGIN + 6
    y = top + 12
    for seat, name in enumerate(names):
        for color in view["colors"][seat]:
            _swatch(canvas, (x + 8, y), manhattan_color(color), 8)
            x += 19
        label = f"{name}  {view['scores'][seat]} points"
        canvas.text((x + 3, y), label, 12, TEXT, anchor="lm", bold=seat == view["viewer"])
        x += 3 + text_width(label, 12) + 20
    y += 26
    whose = "your cards" if view["viewer"] is not None else f"the cards of the {board.side_names[side]} side"
    key = f"Corner numbers: {whose}. Big number: floors. Strip: floors by color."
    canvas.text((MARGIN + 6, y), fit(key, 10, WIDTH - 2 * MARGIN - 130), 10, TEXT, anchor="lm")


# =========================================================================== words


def alt_text(view: dict[str, Any], *, players: list[str]) -> str:
    """The picture in a few words: the round, who owns how many towers, the scores, the tallest tower."""
    board = load_board()
    names = owner_names(players[: view["players"]])
    side = reader_side(view)
    towers = [0] * view["players"]
    color_seat = {color: seat for seat, colors in enumerate(view["colors"]) for color in colors}
    for city in view["cities"].values():
        for site in city["sites"]:
            if site["owner"] in color_seat:
                towers[color_seat[site["owner"]]] += 1
    when = "game over" if view["result"] is not None else f"round {view['round']} of {view['rounds']}"
    head = f"Manhattan board, {when}, seen from the {board.side_names[side]} side"
    parts = [f"{name} ({'/'.join(view['colors'][seat])}) {view['scores'][seat]} points, "
             f"{towers[seat]} {'tower' if towers[seat] == 1 else 'towers'}"
             for seat, name in enumerate(names)]
    tail = []
    tallest = _tallest(view)
    if tallest is not None:
        code, number = tallest
        site = view["cities"][code]["sites"][number - 1]
        owner = names[color_seat[site["owner"]]]
        tail.append(f"Tallest tower: {site['height']} floors in {board.name(code)} ({owner}).")
    if view["result"] is not None:
        winners = [names[w] for w in view["result"]["winners"]]
        tail.append(" and ".join(winners) + (" win." if len(winners) > 1 else " wins."))
    text = head + ": " + "; ".join(parts) + "." + "".join(" " + t for t in tail)
    if len(text) > 300:
        short = [f"{name} {view['scores'][seat]} points" for seat, name in enumerate(names)]
        text = head + ": " + ", ".join(short) + "." + "".join(" " + t for t in tail[-1:])
    return text


__all__ = ["Layout", "alt_text", "draw", "layout", "reader_side"]
