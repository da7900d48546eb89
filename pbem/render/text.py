"""Plain-text boards for email: at most 72 columns, read in a monospace font.

The words and the layout live in jinja2 templates under ``templates/``; this
module prepares what the templates need (short names, the map's rows and
connector lines, the groups of the supply row) and supplies the display
filters (``cards``: counts of 4s, 5s and 6s as ``4 4 5``; ``owner``: an owner
number as a name; ``biz``: businesses as ``Bou Jew``; ...). It reads the board's
static data (names, plot rings, the commissioners' paths) but changes nothing
and does no I/O besides loading templates.
"""

from __future__ import annotations

import functools
import json
import re
import textwrap
from collections.abc import Callable, Iterable, Mapping
from functools import lru_cache
from typing import Any

import jinja2

from pbem.games.fifth_avenue.board import BLACK, CENTRAL_PARK, CITY_HALL, VALUES, Board, load_board
from pbem.resources import shipped_folder

WIDTH = 72  # the widest line of any rendering
MAP_WIDTH = 71  # the map is centred in this many columns
BOX = 23  # width of a district's box on the map, borders included
WIDE_BOX = 2 * BOX + 1  # City Hall and Central Park span two district columns
NAME = 10  # a table's name column: a longer name takes a line of its own above the numbers (``name_rows``)

BUSINESS_ABBREVIATIONS = {"boutique": "Bou", "jeweler": "Jew", "gallery": "Gal", "perfume": "Per"}

TEMPLATE_DIR = shipped_folder("templates")


# =========================================================================== entry point


def render_board(view: dict[str, Any], *, players: list[str], hands: Mapping[int, dict] | None = None,
                 bids_above: bool = False) -> str:
    """The Fifth Avenue board as text.

    ``view`` is ``State.view(seat)`` (or ``State.view(None)`` for the public
    board); ``players`` are the display names by seat. The viewer's own hand is
    shown when the view carries one. ``hands`` (the moderator's board) maps
    every seat to its hand, and then all hands are shown. ``bids_above``: the mail shows the auction's bids at
    its top (``services.mail_out.first_screen``), and the board says so instead of listing them again.
    """
    if len(players) < view["players"]:
        raise ValueError(f"{view['players']} players in the game but {len(players)} names given")
    board = load_board(view["back_side"])
    names = owner_names(players[: view["players"]], robot=view["players"] == 2)
    frames = {frame["kind"]: frame for frame in view["frames"]}  # the top frame of each kind
    context = {
        "city_map": city_map(view, names),
        "v": view,
        "names": names,
        "hands": None if hands is None else {int(seat): hand for seat, hand in hands.items()},
        "bids_above": bids_above,
        "robot": view["players"] if view["players"] == 2 else None,
        "colors": board.plot_colors,  # the board's orders, not the view's: a view read back
        "commissioners": board.commissioners,  # from JSON has its keys sorted
        "rings": {code: board.plots(code) for code in board.district_codes},
        "district_codes": board.district_codes,
        "markers_each": board.markers_per_commissioner,
        "building_stops": board.building_stops,
        "supply_lines": supply_lines(board, view["supply_row"]),
        "special_after": [after_sets for after_sets, _, _ in board.special_scorings],
        "turn": frames.get("turn"),
        "auctions": frames.get("auctions"),
        "auction": frames.get("auction"),
        "build": frames.get("build"),
        "place_names": dict(board.place_names),
    }
    text = _environment().get_template("fifth_avenue/board.txt.j2").render(context)
    lines = [line.rstrip() for line in text.splitlines()]
    while lines and not lines[-1]:
        lines.pop()
    return "\n".join(lines) + "\n"


# What the city map shows of a view: the same for every reader of a position, so a change mailed to four
# players draws it once (a quarter of a game mail's rendering before).
MAP_FIELDS = ("back_side", "districts", "commissioners", "markers", "stopped", "plots", "central_park", "cp_businesses")


def city_map(view: Mapping[str, Any], names: list[str]) -> str:
    """The map of ``view``'s city (districts, City Hall, Central Park, the lines between), as text."""
    return _city_map(city_key(view, names))


def city_key(view: Mapping[str, Any], names: list[str], fields: tuple[str, ...] = MAP_FIELDS) -> str:
    """What a drawing of the city shows of ``view``, as a cache key: the same for every reader of a position."""
    return json.dumps([names, {field: view[field] for field in fields}], sort_keys=True)


def city_context(key: str) -> dict[str, Any]:
    """The context a drawing of the city gets from ``city_key``: its ``v`` holds only the key's fields, so a
    field the drawing used and the key lacked would fail there, not go stale in a cache."""
    names, fields = json.loads(key)
    board = load_board(fields["back_side"])
    return {
        "v": fields,
        "names": names,
        "commissioners": board.commissioners,
        "rings": {code: board.plots(code) for code in board.district_codes},
        "markers_each": board.markers_per_commissioner,
        "map_rows": map_rows(board),
        "place_names": dict(board.place_names),
    }


@lru_cache(maxsize=16)
def _city_map(key: str) -> str:
    return _environment().get_template("fifth_avenue/map.txt.j2").render(city_context(key)).rstrip("\n")


def render_moderator_board(state: Any, *, players: list[str]) -> str:
    """The board with every hand: the moderator's."""
    return render_board(state.view(None), players=players, hands={seat: state.hands[seat] for seat in range(len(players))})


# =========================================================================== names


def short_name(display: str) -> str:
    """``Ann Lee <ann@example.org>`` -> ``Ann Lee``; a bare address gives its local part."""
    name = display.split("<", 1)[0].strip().strip('"').strip()
    if not name:
        match = re.search(r"([^<>@\s]+)@", display)
        name = match.group(1) if match else display.strip()
    return name or "?"


# A robot seat's name ends so ("Robo (robot)", services.table.robot_names.robot_name). The map and the tables show
# "Robo", and the sentences the whole name.
ROBOT_SEAT = re.compile(r" \((strong )?robot\)$")


def owner_names(players: list[str], robot: bool = False) -> list[str]:
    """Distinct names by owner number, whole (never cut: the boards wrap a long one); the robot (owner 2 of 2
    players) is "robot"."""
    names = [ROBOT_SEAT.sub("", short_name(p)) for p in players]
    if len(set(n.lower() for n in names)) < len(names) or "robot" in (n.lower() for n in names):
        names = [f"{n}#{i + 1}" for i, n in enumerate(names)]
    return names + (["robot"] if robot else [])


# =========================================================================== layout


def map_rows(board: Board) -> list[dict[str, Any]]:
    """The places in rows by their distance from City Hall, with the lines joining them.

    Each row: ``places`` (code, offset, width) and ``connector``, the line
    drawn under the row towards the next one (None for the last row).
    """
    depth = {CITY_HALL: 0}
    pending = [CITY_HALL]
    while pending:
        here = pending.pop(0)
        for there in board.graph.get(here, ()):
            if there not in depth:
                depth[there] = depth[here] + 1
                pending.append(there)
    order = [CITY_HALL, *board.district_codes, CENTRAL_PARK]
    rows: list[list[dict[str, Any]]] = [[] for _ in range(max(depth.values()) + 1)]
    for code in order:
        if code in depth:
            rows[depth[code]].append({"code": code})
    for row in rows:
        width = WIDE_BOX if len(row) == 1 else BOX
        total = len(row) * (width + 1) - 1
        if total > MAP_WIDTH:
            raise ValueError("the map has too many districts side by side for 72 columns")
        start = (MAP_WIDTH - total) // 2
        for i, place in enumerate(row):
            place.update(offset=start + i * (width + 1), width=width)
    where = {place["code"]: place for row in rows for place in row}
    result = []
    for i, row in enumerate(rows):
        connector = None
        if i + 1 < len(rows):
            line = [" "] * MAP_WIDTH
            for parent in row:
                for child_code in board.graph.get(parent["code"], ()):
                    child = where[child_code]
                    col, char = _edge(parent, child)
                    line[col] = char
            connector = "".join(line).rstrip()
        result.append({"places": row, "connector": connector})
    return result


def _edge(parent: dict[str, Any], child: dict[str, Any]) -> tuple[int, str]:
    """Where and how to draw the line from a box to a box of the next row."""
    pc = parent["offset"] + parent["width"] // 2
    cc = child["offset"] + child["width"] // 2
    if parent["width"] != child["width"]:  # straight down from/to a wide box
        return (cc if child["width"] < parent["width"] else pc), "|"
    if pc == cc:
        return pc, "|"
    return (pc + cc) // 2, ("/" if cc < pc else "\\")


def beside(places: list[dict[str, Any]], render: Callable[[str], Any]) -> str:
    """Draw a box around ``render(code)`` for every place and set the boxes side by side; a line too long for its
    box wraps in it (``_box_lines``)."""
    boxes = []
    for place in places:
        body = [line.rstrip() for line in str(render(place["code"])).splitlines() if line.strip()]
        boxes.append((place, [part for line in body for part in _box_lines(line, place["width"] - 2)]))
    height = max(len(body) for _, body in boxes) + 2
    canvas = [[" "] * MAP_WIDTH for _ in range(height)]
    for place, body in boxes:
        inner = place["width"] - 2
        border = "+" + "-" * inner + "+"
        lines = [border] + ["|" + b.ljust(inner) + "|" for b in body]
        lines += ["|" + " " * inner + "|"] * (height - 1 - len(lines)) + [border]
        for y, text in enumerate(lines):
            x = place["offset"]
            canvas[y][x : x + len(text)] = text
    return "\n".join("".join(row).rstrip() for row in canvas)


def _box_lines(line: str, width: int) -> list[str]:
    """A line of a box on the map in lines of ``width`` columns: a long one (a long name) wraps, the lines after
    the first indented under its second word ("orange Zoë Lefèvre" / "       x2"), never cut."""
    if len(line) <= width:
        return [line]
    second = re.search(r"\S\s+(?=\S)", line)
    # A word is never broken (issue 47: "Zoë Lefèvre-Martinez" read "Lefèvre-Martin" / "ez x1"): the indent
    # of the lines after the first shrinks until the longest word fits; only a word wider than the box breaks.
    longest = max((len(word) for word in line.split()[1:]), default=0)
    indent = min(second.end() if second and second.end() <= width // 2 else 2, max(0, width - longest))
    return textwrap.wrap(line, width=width, subsequent_indent=" " * indent, break_on_hyphens=False) or [line[:width]]


def named_row(lead: str, name: str, rest: str, width: int = NAME, hang: int | None = None) -> str:
    """A table's row: ``lead``, the name in a column of ``width``, then ``rest``. A longer name is never cut: it
    takes lines of its own (wrapped at ``WIDTH``) and the row goes on below it, its name column blank;
    ``hang`` wraps a long row with that many spaces before its lines after the first."""
    if len(name) <= width:
        head: list[str] = []
        row = lead + name.ljust(width) + rest
    else:
        head = textwrap.wrap(name, width=WIDTH, initial_indent=lead, subsequent_indent=lead,
                             break_on_hyphens=False)
        row = " " * (len(lead) + width) + rest
    if hang is not None and len(row) > WIDTH:
        row = wrap(row, hang=" " * hang)
    return "\n".join([*head, row.rstrip()])


def column_heads(lead: int, names: Iterable[str], width: int = NAME) -> str:
    """The heads of a table's columns of ``width`` (each right-aligned and followed by a space, after ``lead``
    columns): a name longer than its column wraps inside it onto the lines below, never cut."""
    parts = [textwrap.wrap(name, width=width, break_on_hyphens=False, break_long_words=False) or [""]
             for name in names]
    depth = max((len(p) for p in parts), default=1)
    lines = []
    for i in range(depth):
        cells = [p[len(p) - depth + i] if i >= depth - len(p) else "" for p in parts]
        # A word wider than its column is never broken (issue 47): it takes a line of its own above the row,
        # ending where its column ends and reaching left over the columns before it.
        for column, cell in enumerate(cells):
            if len(cell) > width:
                lines.append(cell.rjust(lead + (column + 1) * (width + 1) - 1))
        lines.append((" " * lead + "".join("%*s " % (width, "" if len(c) > width else c) for c in cells)).rstrip())
    return "\n".join(line for line in lines if line)


def supply_lines(board: Board, supply_row: list[list[str]]) -> list[dict[str, Any]]:
    """The supply row in lines, each ending where a special scoring (or the game) follows."""
    current = next((i for i, group in enumerate(supply_row) if group), None)
    after = {after_sets: (vp, districts) for after_sets, vp, districts in board.special_scorings}
    lines: list[dict[str, Any]] = []
    sets: list[dict[str, Any]] = []
    for i, group in enumerate(supply_row):
        sets.append({"number": i + 1, "businesses": list(group), "current": i == current})
        last = i + 1 == len(supply_row)
        if i + 1 in after or last:
            vp, districts = after.get(i + 1, (None, None))
            lines.append({"sets": sets, "vp": vp, "districts": districts, "done": not group, "last": last})
            sets = []
    return lines


# =========================================================================== filters


def cards(counts: Iterable[int]) -> str:
    """Counts of 4s, 5s and 6s as the cards themselves: [2, 1, 0] -> "4 4 5"."""
    return " ".join(str(v) for v, n in zip(VALUES, counts) for _ in range(n))


def card_count(counts: Iterable[int]) -> int:
    return sum(counts)


def hand_parts(hand: Mapping[str, list[int]], colors: Iterable[str] = ()) -> list[str]:
    """A hand as ["orange 4 5", "black 4 4 6"]: colors in board order, black last, none without cards."""
    colors = [c for c in colors if c != BLACK]
    order = colors + sorted(c for c in hand if c not in colors and c != BLACK) + [BLACK]
    return [f"{c} {cards(hand[c])}" for c in order if c in hand and sum(hand[c])] or ["no cards"]


def hand_text(hand: Mapping[str, list[int]], colors: Iterable[str] = ()) -> str:
    """A hand as "orange 4 5, black 4 4 6"."""
    return ", ".join(hand_parts(hand, colors))


def hand_size(hand: Mapping[str, list[int]]) -> int:
    return sum(sum(counts) for counts in hand.values())


def bid_text(bid: Mapping[str, Any]) -> str:
    """A bid on the table: "gray 4 5 + black 6"."""
    parts = []
    if bid.get("color") and bid["color"] != BLACK and sum(bid["colored"]):
        parts.append(f"{bid['color']} {cards(bid['colored'])}")
    if bid.get("color") == BLACK and sum(bid["colored"]):  # not made by the engine; shown all the same
        parts.append(f"black {cards(bid['colored'])}")
    if sum(bid["black"]):
        parts.append(f"black {cards(bid['black'])}")
    return " + ".join(parts) or "no cards"


def bid_total(bid: Mapping[str, Any] | None) -> int:
    if not bid:
        return 0
    return sum(v * (a + b) for v, a, b in zip(VALUES, bid["colored"], bid["black"]))


def high_bidder(frame: Mapping[str, Any]) -> tuple[int | None, int]:
    """(owner, total) of the highest bid on the table; (None, 0) without bids."""
    best, best_total = None, 0
    for owner, bid in frame["bids"].items():
        total = bid_total(bid)
        if total > best_total:
            best, best_total = int(owner), total
    return best, best_total


def businesses(items: Iterable[str]) -> str:
    return " ".join(BUSINESS_ABBREVIATIONS.get(b, b[:3].title()) for b in items)


def fit(text: Any, width: int) -> str:
    """Cut ``text`` to ``width`` columns, marking a cut with "~"."""
    text = str(text)
    return text if len(text) <= width else text[: width - 1] + "~"


def wrap(text: Any, width: int = WIDTH, indent: str = "", hang: str | None = None) -> str:
    """Fill ``text`` to ``width`` columns; ``hang`` indents the lines after the first."""
    return _filled(str(text), width, indent, indent if hang is None else hang)


@functools.lru_cache(maxsize=8192)
def _filled(text: str, width: int, indent: str, hang: str) -> str:
    # One change of a game mails every player the same sentences, and each mail repeats what happened since
    # that player's last one: the same few hundred lines are filled again and again (a sixth of the CPU of a
    # game's mails went to textwrap before this cache).
    return textwrap.fill(text, width=width, initial_indent=indent, subsequent_indent=hang, break_on_hyphens=False)


SAID = " | "  # between a speaker's name and each line of their words: no line of pbem's own starts so


def said_lines(speaker: str, lines: Iterable[str], indent: str = "  ", width: int = WIDTH) -> list[str]:
    """What a person wrote, relayed: every line, and every line a long one is filled into, begins with the
    speaker's name ("  Ann | ..."), so that no line of it can pass for one of pbem's own."""
    mark = f"{indent}{speaker}{SAID}"
    width = max(width, len(mark) + 30)  # a long name still leaves its words room
    out: list[str] = []
    for line in lines:
        filled = textwrap.wrap(line, width=width, initial_indent=mark, subsequent_indent=mark,
                               break_on_hyphens=False, drop_whitespace=True)
        out += filled or [mark.rstrip()]
    return out


def wrap_items(
    items: Iterable[Any], lead: str = "", width: int = WIDTH, sep: str = ", ", hang: str = "  ", tail: str = ""
) -> str:
    """``lead``, the items joined by ``sep``, then ``tail``: filled to ``width`` without breaking an item."""
    glue = "\xa0"  # textwrap does not break at a no-break space
    words = [str(item).replace(" ", glue) for item in items]
    text = textwrap.fill(
        lead + sep.join(words) + tail.replace(" ", glue),
        width=width,
        subsequent_indent=hang,
        break_long_words=True,
        break_on_hyphens=False,
    )
    return text.replace(glue, " ")


def plural(n: int, word: str, many: str | None = None) -> str:
    return f"{n} {word if n == 1 else (many or word + 's')}"


def ordinal(n: int) -> str:
    """1 -> "1st", 2 -> "2nd", 11 -> "11th"."""
    suffix = "th" if 10 <= n % 100 <= 20 else {1: "st", 2: "nd", 3: "rd"}.get(n % 10, "th")
    return f"{n}{suffix}"


def listing(items: Iterable[Any], empty: str = "none") -> str:
    """["a", "b", "c"] -> "a, b and c"."""
    items = [str(i) for i in items]
    if not items:
        return empty
    return items[0] if len(items) == 1 else ", ".join(items[:-1]) + " and " + items[-1]


@jinja2.pass_context
def owner(context: Any, number: Any) -> str:
    """An owner number (a seat, or the robot's number) as a short name."""
    names = context["names"]
    number = int(number)
    return names[number] if 0 <= number < len(names) else f"owner {number + 1}"


@jinja2.pass_context
def place(context: Any, code: str) -> str:
    return context["place_names"].get(code, code)


@jinja2.pass_context
def with_names(context: Any, text: str) -> str:
    """'player 2 chooses ...' -> 'player 2 (Bob) chooses ...'."""
    names = context["names"]

    def named(match: re.Match[str]) -> str:
        seat = int(match.group(1)) - 1
        return f"{match.group(0)} ({names[seat]})" if 0 <= seat < len(names) else match.group(0)

    return re.sub(r"\bplayer (\d+)\b", named, text)


@jinja2.pass_context
def names_only(context: Any, text: str) -> str:
    """'player 2 chooses ...' -> 'Bob chooses ...': players read names, never seat numbers."""
    names = context["names"]

    def named(match: re.Match[str]) -> str:
        seat = int(match.group(1)) - 1
        return names[seat] if 0 <= seat < len(names) else match.group(0)

    return re.sub(r"\b[Pp]layer (\d+)\b", named, text)


# =========================================================================== the environment


@lru_cache(maxsize=None)
def _environment() -> jinja2.Environment:
    env = jinja2.Environment(
        loader=jinja2.FileSystemLoader(TEMPLATE_DIR),
        trim_blocks=True,
        lstrip_blocks=True,
        keep_trailing_newline=True,
        undefined=jinja2.StrictUndefined,
        extensions=["jinja2.ext.do"],
        autoescape=False,  # plain text: nothing to escape
    )
    env.filters.update(
        cards=cards,
        card_count=card_count,
        hand=hand_text,
        hand_parts=hand_parts,
        hand_size=hand_size,
        bid=bid_text,
        bid_total=bid_total,
        biz=businesses,
        fit=fit,
        wrap=wrap,
        wrap_items=wrap_items,
        plural=plural,
        listing=listing,
        ordinal=ordinal,
        owner=owner,
        place=place,
        with_names=with_names,
        names_only=names_only,
    )
    env.globals.update(beside=beside, high_bidder=high_bidder, named_row=named_row, column_heads=column_heads)
    return env
