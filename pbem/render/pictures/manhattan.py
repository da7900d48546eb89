"""Manhattan's six cities as a picture for a phone, seen from the reader's side of the table.

The picture is ``WIDTH`` (370) pixels wide, the width a mail's HTML shows it at
on a 390 px phone, so it is shown at its own size there and its smallest
letters (``SMALL``, 11 px) are 11 CSS px tall. The cities stand two a row.
Each city is a 3 x 3 grid drawn as its reader sees it from their own side
(``view["viewer"]``'s side; the public view from the south side), so that the
small number in a site's corner is the number of the reader's card that builds
there (``games.manhattan.board.absolute_site``, as the text board numbers
them). A site with a tower is filled with its owner's color (the color on top)
and shows its height in floors; when several colors share the tower, a strip
along its foot shows each color's share of the floors (who may build on it).
The single tallest tower has a gold frame; a city's single majority shows as a
swatch of its color in the city's header. Along each edge of the table: the
side's name and the colors of the player sitting there ("you" below). Below the
cities every player's colors, whole name (wrapped, never cut), side and score;
the picture is as tall as the names need.

A city the mail's decision is about (``mark``, given by the caller: Manhattan's
view does not say where the last part was built) has a thick frame and header
in the mark color.

``layout()`` gives the geometry (every city's box and every site's box by the
reader's card number, and a pixel showing a site's fill) for tests.
"""

from __future__ import annotations

from dataclasses import dataclass
from functools import lru_cache
from typing import Any

from pbem.games.manhattan.board import SIDES, absolute_site, load_board

from ..text import owner_names
from .canvas import Box, Canvas, Still, text_width, wrap
from .palette import BOARD_COLORS, MARK, Color, manhattan_color, picture_palette

WIDTH = 370
MARGIN = 6
SMALL = 11  # the smallest letters: 11 CSS px shown 370 px wide
TITLE_H = 22  # the title strip: the round and the side (the mail and the page name the game)
EDGE = 18  # the strip along each edge of the board: the side's name and its player's colors
CITY_GAP = 8
SITE_GAP = 3
CITY_PAD = 5
HEADER_H = 22
CITY_W = (WIDTH - 2 * MARGIN - 2 * EDGE - CITY_GAP) // 2
SITE = (CITY_W - 2 * CITY_PAD - 2 * SITE_GAP) // 3
CITY_H = HEADER_H + 3 * SITE + 2 * SITE_GAP + CITY_PAD
LINE_H = 19  # a line of the players and of the key
STRIP_H = 7  # the floors' strip at a site's foot
MARK_W = 3

PAPER = BOARD_COLORS["paper"]
TEXT = BOARD_COLORS["text"]
FAINT = BOARD_COLORS["faint"]
LINE = BOARD_COLORS["line"]
EMPTY = BOARD_COLORS["empty site"]
KEY = ["Corner numbers: the cards that build there.", "Big number: floors. Strip: floors by color."]


# =========================================================================== geometry


@dataclass(frozen=True)
class Layout:
    width: int
    height: int  # down to the players' lines, which each picture adds (``drawing``)
    board: Box  # the cities with the sides' edges around them
    cities: dict[str, Box]
    sites: dict[tuple[str, int], Box]  # (city, the reader's card number 1-9) -> the site's box
    key_top: int
    legend_top: int

    def site_point(self, city: str, card: int) -> tuple[int, int]:
        """A pixel that shows the site's fill (its owner's color, or the empty site's), clear of its writing."""
        x0, y0, x1, y1 = self.sites[(city, card)]
        return int(x1) - 5, int(y0 + y1) // 2 - 4


@lru_cache(maxsize=None)
def layout() -> Layout:
    codes = load_board().city_codes
    per_row = 2
    rows = (len(codes) + per_row - 1) // per_row
    board_w = per_row * CITY_W + (per_row - 1) * CITY_GAP + 2 * EDGE
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
    key_top = top + board_h + 6
    legend_top = key_top + len(KEY) * LINE_H + 4
    return Layout(WIDTH, legend_top, (left, top, left + board_w, top + board_h), cities, sites, key_top, legend_top)


def reader_side(view: dict[str, Any]) -> int:
    """The side the cities are drawn from: the viewer's, or the south side (0) for the public view."""
    viewer = view["viewer"]
    return view["side"][viewer] if viewer is not None and 0 <= viewer < len(view["side"]) else 0


# =========================================================================== drawing


def draw(view: dict[str, Any], *, players: list[str], mark: str | None = None) -> bytes:
    """The cities of ``view`` (``State.view(seat)``) as PNG bytes, from the viewer's side; ``mark`` is a city
    the decision is about."""
    return drawing(view, players=players, mark=mark).png(palette())


def drawing(view: dict[str, Any], *, players: list[str], mark: str | None = None) -> Canvas:
    """The picture before it is stored (its ``labels`` say what text it holds, and how large).

    It starts from the board's still parts (``_still``: drawn once), and draws what the position and the reader
    change over them, in the order of a drawing from scratch; the players' lines below them."""
    board = load_board()
    geo = layout()
    names = owner_names(players[: view["players"]])
    side = reader_side(view)
    lines = _legend_lines(view, names, board)
    canvas = Canvas.over(_still(tuple((code, view["cities"][code]["name"]) for code in board.city_codes)),
                         height=geo.legend_top + len(lines) * LINE_H + 6, background=PAPER)
    _title(canvas, view, board, side)
    _edges(canvas, view, board, geo, side)
    tallest = _tallest(view)
    for code in board.city_codes:
        _city(canvas, view["cities"][code], geo, code, side, tallest, code == mark)
    _legend(canvas, view, lines, geo.legend_top)
    return canvas


@lru_cache(maxsize=8)
def _still(cities: tuple[tuple[str, str], ...]) -> Still:
    """What every position shows alike, from every side: the title bar, the table with the cities (``cities``:
    code, name) and their empty sites, the key."""
    geo = layout()
    canvas = Canvas(geo.width, geo.height, PAPER)
    canvas.rect((0, 0, WIDTH, TITLE_H), TEXT)
    x0, y0, x1, y1 = geo.board
    canvas.rect(geo.board, BOARD_COLORS["street"], LINE, 1, radius=10)
    canvas.rect((x0 + EDGE - 4, y0 + EDGE - 4, x1 - EDGE + 4, y1 - EDGE + 4), BOARD_COLORS["district"], None,
                radius=6)
    for code, name in cities:
        _city_frame(canvas, geo, code, name, None)
    y = geo.key_top + LINE_H / 2
    for line in KEY:
        canvas.text((MARGIN + 4, y), line, SMALL, TEXT, anchor="lm")
        y += LINE_H
    x = WIDTH - MARGIN - 4 - 14
    canvas.rect((x, geo.key_top + 3, x + 14, geo.key_top + 17), BOARD_COLORS["city"], BOARD_COLORS["tallest"], 3,
                radius=2)
    canvas.text((x - 5, geo.key_top + LINE_H / 2), "tallest", SMALL, TEXT, anchor="rm")
    return canvas.still()


def _city_frame(canvas: Canvas, geo: Layout, code: str, name: str, header: Color | None) -> None:
    """A city with its empty sites (each with the reader's card number); ``header`` fills its name's band."""
    box = geo.cities[code]
    canvas.rect(box, BOARD_COLORS["city"], LINE, 1, radius=6)
    ink = TEXT
    if header is not None:
        canvas.rect((box[0], box[1], box[2], box[1] + HEADER_H - 3), header, None, radius=6)
        ink = header.ink
    canvas.text((box[0] + CITY_PAD + 1, box[1] + HEADER_H / 2), name, 13, ink, anchor="lm", bold=True)
    for card in range(1, 10):
        sx, sy, _, _ = site = geo.sites[(code, card)]
        canvas.rect(site, EMPTY, None, radius=3)
        canvas.text((sx + 3, sy + 2), str(card), SMALL, FAINT, anchor="lt")


@lru_cache(maxsize=None)
def palette() -> tuple[tuple[int, int, int], ...]:
    """The pictures' PNG palette: the named colors and the blends of the colors they draw side by side."""
    players = [manhattan_color(color) for color in load_board().colors]
    light, street, city, tallest = (BOARD_COLORS[name] for name in ("district", "street", "city", "tallest"))
    letters = (
        (light, TEXT), (TEXT, PAPER), (TEXT, street), (FAINT, street), (TEXT, city), (FAINT, EMPTY),
        (MARK.ink, MARK), *((color.ink, color) for color in players),
    )
    edges = (
        (LINE, PAPER), (LINE, street), (light, street), (LINE, city), (EMPTY, city), (tallest, city),
        (MARK, street), (MARK, city), (MARK, light), (tallest, PAPER), (LINE, MARK),
        *((LINE, color) for color in players), *((city, color) for color in players),
        *((tallest, color) for color in players),
    )
    return picture_palette(letters, edges)


def _title(canvas: Canvas, view: dict[str, Any], board: Any, side: int) -> None:
    """The round and the side the cities are seen from, on one line (who won is said with the players, at the
    foot; the game's name is the mail's and the page's heading: issue 35, point 5)."""
    when = "game over" if view["result"] is not None else f"round {view['round']} of {view['rounds']}"
    canvas.text((MARGIN + 2, TITLE_H / 2), f"{when} · seen from the {board.side_names[side]} side", SMALL,
                BOARD_COLORS["district"], anchor="lm")


def _seat_at(view: dict[str, Any]) -> dict[int, int]:
    """Side of the table -> the seat sitting there."""
    return {side: seat for seat, side in enumerate(view["side"])}


def _edges(canvas: Canvas, view: dict[str, Any], board: Any, geo: Layout, side: int) -> None:
    """Who sits along the table's edges: the side's name and its player's colors (the players' lines below
    name them); the reader's side below ("you"), then left, opposite (above) and right."""
    x0, y0, x1, y1 = geo.board
    seats = _seat_at(view)
    for turn in range(SIDES):  # 0 below (the reader), 1 left, 2 above, 3 right
        at = (side + turn) % SIDES
        seat = seats.get(at)
        label = board.side_names[at]
        colors: list[str] = list(view["colors"][seat]) if seat is not None else []
        if seat is not None and view["viewer"] == seat:
            label = f"you ({label})"
        ink = TEXT if seat is not None else FAINT
        length = text_width(label, SMALL) + 13 * len(colors)
        if turn in (0, 2):
            y = y1 - EDGE / 2 + 1 if turn == 0 else y0 + EDGE / 2 - 1
            x = (x0 + x1) / 2 - length / 2
            for color in colors:
                _swatch(canvas, (x + 5, y), manhattan_color(color), 5)
                x += 13
            canvas.text((x, y), label, SMALL, ink, anchor="lm", bold=seat is not None and seat == view["viewer"])
        else:
            x = x0 + EDGE / 2 - 1 if turn == 1 else x1 - EDGE / 2 + 1
            direction = -1 if turn == 1 else 1  # left reads bottom to top, right top to bottom
            y = (y0 + y1) / 2 - direction * length / 2
            for color in colors:
                _swatch(canvas, (x, y + direction * 5), manhattan_color(color), 5)
                y += direction * 13
            canvas.vertical_text((x, y + direction * text_width(label, SMALL) / 2), label, SMALL, ink,
                                 BOARD_COLORS["street"], clockwise=turn == 3)


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
          marked: bool) -> None:
    """A city's majority and its towers, over its still frame and empty sites (drawn anew when marked)."""
    x0, y0, x1, y1 = geo.cities[code]
    if marked:
        _city_frame(canvas, geo, code, city["name"], MARK)
    leader = _majority(city)
    if leader is not None:  # its color's swatch: the players' lines below say whose
        _swatch(canvas, (x1 - CITY_PAD - 6, y0 + HEADER_H / 2), manhattan_color(leader), 6)
        canvas.text((x1 - CITY_PAD - 16, y0 + HEADER_H / 2), "most", SMALL, MARK.ink if marked else TEXT,
                    anchor="rm")
    for card in range(1, 10):
        site = city["sites"][absolute_site(side, card) - 1]
        _site(canvas, geo.sites[(code, card)], card, site, tallest == (code, site["site"]))
    if marked:
        canvas.rect((x0 - 1, y0 - 1, x1 + 1, y1 + 1), None, MARK, MARK_W, radius=7)


def _site(canvas: Canvas, box: Box, card: int, site: dict[str, Any], tallest: bool) -> None:
    x0, y0, x1, y1 = box
    if not site["parts"]:  # as the still picture has it
        return
    fill = manhattan_color(site["owner"])
    canvas.rect(box, fill, LINE, 1, radius=3)
    canvas.text((x0 + 3, y0 + 2), str(card), SMALL, fill.ink, anchor="lt")
    canvas.text(((x0 + x1) / 2 + 3, (y0 + y1) / 2 - 1), str(site["height"]), 20, fill.ink, anchor="mm", bold=True)
    floors = {color: n for color, n in site["floors"].items() if n}
    if len(floors) > 1:
        order = sorted(floors.items(), key=lambda item: (-item[1], item[0]))
        total = sum(floors.values())
        left, right = x0 + 4, x1 - 4
        top, bottom = y1 - 4 - STRIP_H, y1 - 4
        x = float(left)
        for i, (color, n) in enumerate(order):
            end = right if i == len(order) - 1 else x + (right - left) * n / total
            canvas.rect((round(x), top, round(end), bottom), manhattan_color(color), BOARD_COLORS["city"], 1)
            x = end
    if tallest:
        canvas.rect(box, None, BOARD_COLORS["tallest"], 3, radius=3)


def _legend_lines(view: dict[str, Any], names: list[str], board: Any) -> list[tuple[int | None, str]]:
    """The players' lines: (seat, text) for each player's first line, (None, text) for the rest of a long
    name. The whole name, wrapped; then the side, the score and who won."""
    winners = set(view["result"]["winners"]) if view["result"] is not None else set()
    lines: list[tuple[int | None, str]] = []
    for seat, name in enumerate(names):
        label = f"{name} ({board.side_names[view['side'][seat]]})  {view['scores'][seat]} points"
        if seat in winners:
            label += "  wins"
        room = WIDTH - 2 * MARGIN - 12 - 19 * max(len(colors) for colors in view["colors"])
        for i, line in enumerate(wrap(label, 12, room, bold=seat == view["viewer"])):
            lines.append((seat if i == 0 else None, line))
    return lines


def _legend(canvas: Canvas, view: dict[str, Any], lines: list[tuple[int | None, str]], top: float) -> None:
    y = top + LINE_H / 2
    indent = MARGIN + 6 + 19 * max(len(colors) for colors in view["colors"])
    seat = None
    for owner, line in lines:
        if owner is not None:
            seat = owner
            x = MARGIN + 6
            for color in view["colors"][owner]:
                _swatch(canvas, (x + 8, y), manhattan_color(color), 8)
                x += 19
        canvas.text((indent + 3, y), line, 12, TEXT, anchor="lm", bold=seat == view["viewer"])
        y += LINE_H


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
