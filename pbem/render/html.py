"""HTML boards for the HTML part of the game mails: the same content as the text boards, for phones and webmail.

The text part of a mail draws the board in 72 monospace columns (``render.text``, ``render.manhattan``); the
HTML part draws the same position from the same view with headings, tables and colours, and reflows down to
a phone's 390 CSS pixels: the Fifth Avenue districts in the commissioners' order as boxes that stand two a row
on a wide screen and one a row on a narrow one, Manhattan's six cities as 3x3 grids seen from the reader's
side. The words and the layout live in ``templates/fifth_avenue/board.html.j2`` and
``templates/manhattan/board.html.j2``; this module prepares what they need, reusing the text renderers'
helpers (names, the supply row's lines, the map's order, hands and bids, the last scoring) and supplies the
colours. ``render.mail`` puts the board into the mail and inlines the CSS.

``PALETTES`` holds every colour a board of each game paints (Fifth Avenue's plot, card and commissioner
colours, Manhattan's player colours), each as a background and the text colour that reads on it, so a client
that inverts colours for dark mode keeps every coloured cell readable; a colour's name is always written in or
beside its swatch. The colours are the pictures' own (``render.pictures.palette``: its hex and its ink), so the
HTML part paints a colour as the picture of the board above it does: Fifth Avenue's green (a plot's, a card's)
is the plots' light green, Manhattan's green (a player's) the players' darker green.
"""

from __future__ import annotations

from functools import lru_cache
from typing import Any, Mapping

import jinja2
from markupsafe import Markup, escape

from pbem.games.fifth_avenue.board import load_board
from pbem.games.manhattan.board import absolute_site
from pbem.games.manhattan.board import load_board as load_manhattan_board

from . import manhattan as manhattan_text
from .pictures.palette import COMMISSIONER_COLORS, PLAYER_COLORS, PLOT_COLORS, Color, manhattan_color
from .text import MAP_FIELDS, TEMPLATE_DIR, _environment, city_context, city_key, bid_text, hand_parts, map_rows, owner_names, supply_lines


def _swatch(color: Color) -> tuple[str, str]:
    """A named colour of the pictures as (background, text on it)."""
    return color.hex, color.ink.hex


# game -> colour name -> (background, text on it), from the pictures' palette. Fifth Avenue paints its plot
# and card colours (the cards are the plots' colours, and black) with the back side's sixth plot ("center"),
# and its commissioners (white, beige); Manhattan its players' colours (blue, red, green, black).
FIFTH_AVENUE_PALETTE: dict[str, tuple[str, str]] = {
    name: _swatch(color) for name, color in {**PLOT_COLORS, **COMMISSIONER_COLORS,
                                             "black": PLAYER_COLORS["black"]}.items()
}
MANHATTAN_PALETTE: dict[str, tuple[str, str]] = {
    name: _swatch(manhattan_color(name)) for name in load_manhattan_board().colors
}
PALETTES: dict[str, dict[str, tuple[str, str]]] = {"fifth-avenue": FIFTH_AVENUE_PALETTE,
                                                   "manhattan": MANHATTAN_PALETTE}
NEUTRAL = ("#e8e8e8", "#111")  # a colour pbem does not know (never on a real board)


# =========================================================================== entry point


def render_board_html(kind: str, view: dict[str, Any], *, players: list[str], bids_above: bool = False) -> Markup:
    """The board of ``kind`` as an HTML fragment (styled by classes: ``render.mail`` inlines the CSS); with
    ``bids_above``, an auction's bids are at the mail's top (``text.render_board``)."""
    if kind == "fifth-avenue":
        context = {**fifth_avenue_context(view, players), "bids_above": bids_above}
        template = "fifth_avenue/board.html.j2"
    elif kind == "manhattan":
        context, template = manhattan_context(view, players), "manhattan/board.html.j2"
    else:
        raise ValueError(f"no HTML board for {kind!r}")
    return Markup(html_environment().get_template(template).render(context))


# =========================================================================== Fifth Avenue


def city_html(view: Mapping[str, Any], names: list[str]) -> Markup:
    """Fifth Avenue's places as HTML: the same for every reader of a position, so drawn once for all of them
    (as the text board's map is: ``text.city_map``)."""
    return Markup(_city_html(city_key(view, names, (*MAP_FIELDS, "game"))))  # the game: its colours


@lru_cache(maxsize=16)
def _city_html(key: str) -> str:
    context = city_context(key)
    context["places"] = [place["code"] for row in context["map_rows"] for place in row["places"]]
    return html_environment().get_template("fifth_avenue/city.html.j2").render(context)


def fifth_avenue_context(view: dict[str, Any], players: list[str]) -> dict[str, Any]:
    """What templates/fifth_avenue/board.html.j2 needs: as the text board's context (``text.render_board``),
    with the places in the commissioners' order instead of the map's rows of boxes."""
    if len(players) < view["players"]:
        raise ValueError(f"{view['players']} players in the game but {len(players)} names given")
    board = load_board(view["back_side"])
    frames = {frame["kind"]: frame for frame in view["frames"]}
    names = owner_names(players[: view["players"]], robot=view["players"] == 2)
    return {
        "v": view,
        "city_html": city_html(view, names),
        "names": names,
        "robot": view["players"] if view["players"] == 2 else None,
        "colors": board.plot_colors,
        "commissioners": board.commissioners,
        "rings": {code: board.plots(code) for code in board.district_codes},
        "district_codes": board.district_codes,
        "places": [place["code"] for row in map_rows(board) for place in row["places"]],
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


def colored_parts(parts: list[str]) -> list[tuple[str, str]]:
    """["orange 4 5", "black 6"] (``text.hand_parts``) -> [("orange", "4 5"), ("black", "6")]; "no cards"
    stays a part without a colour: [("", "no cards")]."""
    result = []
    for part in parts:
        color, _, cards = part.partition(" ")
        result.append((color, cards) if color in FIFTH_AVENUE_PALETTE else ("", part))
    return result


def hand_colors(hand: Mapping[str, list[int]], colors: Any = ()) -> list[tuple[str, str]]:
    """A hand as (colour, cards) pairs in the text board's order: [("orange", "4 5"), ("black", "4 4 6")]."""
    return colored_parts(hand_parts(hand, colors))


def bid_colors(bid: Mapping[str, Any]) -> list[tuple[str, str]]:
    """A bid on the table as (colour, cards) pairs, as ``text.bid_text`` writes it: gray 4 5 + black 6."""
    return colored_parts(bid_text(bid).split(" + "))


# =========================================================================== Manhattan


def manhattan_context(view: dict[str, Any], players: list[str]) -> dict[str, Any]:
    """What templates/manhattan/board.html.j2 needs: the cities as rows of sites seen from the reader's side
    (numbered as the reader's cards), the players by colour, the hand as sites; the rest as the text board."""
    board = load_manhattan_board()
    viewer = view["viewer"]
    side = view["side"][viewer] if viewer is not None else 0
    names = owner_names(players[: view["players"]])
    color_owner = {color: names[seat] for seat, colors in enumerate(view["colors"]) for color in colors}
    cities = [{"code": code, "name": view["cities"][code]["name"], "rows": _city_rows(view["cities"][code], side)}
              for code in board.city_codes]
    hand = list(view.get("hand", []))
    return {
        "v": view, "names": names, "side": side, "side_name": board.side_names[side], "cities": cities,
        "chosen": {color: manhattan_text._parts(counts) for color, counts in view["chosen"].items()},
        "hand_sizes": ", ".join(f"{names[seat]} {count}" for seat, count in enumerate(view["hand_sizes"])),
        "last_scoring": manhattan_text._last_scoring(view, names, color_owner, board, side),
        "hand_rows": [[{"card": row * 3 + col + 1, "count": hand.count(row * 3 + col + 1)} for col in range(3)]
                      for row in range(3)],
    }


def _city_rows(city: Mapping[str, Any], side: int) -> list[list[dict[str, Any]]]:
    """A city's sites in three rows from ``side``, each numbered as that side's cards (1 far left, 9 near
    right): the card, the owner (the colour on top), the height and the floors of each colour."""
    rows = []
    for row in range(3):
        cells = []
        for col in range(3):
            card = row * 3 + col + 1
            site = city["sites"][absolute_site(side, card) - 1]
            cells.append({"card": card, "owner": site["owner"] if site["parts"] else None,
                          "height": site["height"], "floors": manhattan_text._floors(site)})
        rows.append(cells)
    return rows


# =========================================================================== filters


@jinja2.pass_context
def paint(context: jinja2.runtime.Context, name: str | None) -> str:
    """The class of a swatch of colour ``name`` on the board of the view ``v`` (the colours of its game): its
    background and the text colour that reads on it, by a rule of ``SWATCH_CSS``."""
    return swatch_class(context["v"]["game"], name)


def paint_site(owner: str | None) -> str:
    """A Manhattan site's class: its owner's colour, or a translucent grey (and the page's text colour) when empty."""
    return swatch_class("manhattan", owner) if owner else EMPTY_SITE_CLASS


_GAME_PREFIX = {"fifth-avenue": "fa", "manhattan": "mh"}
EMPTY_SITE_CLASS = "mh-empty"
NEUTRAL_CLASS = "sw-other"


def swatch_class(game: str, name: str | None) -> str:
    """``fa-orange``, ``mh-green``: a colour's class is its game's, as each game paints a colour its own way."""
    return f"{_GAME_PREFIX[game]}-{name}" if name in PALETTES[game] else NEUTRAL_CLASS


def _swatch_css() -> str:
    rules = [f".{swatch_class(game, name)}{{background:{background};color:{text}}}"
             for game, palette in PALETTES.items() for name, (background, text) in palette.items()]
    rules.append(f".{NEUTRAL_CLASS}{{background:{NEUTRAL[0]};color:{NEUTRAL[1]}}}")
    rules.append(f".{EMPTY_SITE_CLASS}{{background:rgba(127,127,127,.1)}}")  # a grey for light and dark alike
    return "\n".join(rules)


# Every swatch's colours, a rule a class, for the mails' style sheet and the archive's (render.mail.style_sheet,
# archive.site.site_css). A swatch was painted by its own style attribute: 40 bytes some 60 times a mail, a
# seventh of a board mail's HTML part (issue 35, point 5). A client that drops the style sheet shows the colour's
# name, which every swatch writes, on the page's own background.
SWATCH_CSS = _swatch_css()


def breakable(command: str) -> Markup:
    """A command shape that may break after each "|" of its choices (<wbr>: nothing is added when copied), so
    "<manhattan|sydney|...>" wraps on a phone instead of being cut inside a word."""
    return escape(command).replace("|", Markup("|<wbr>"))


def business_names(items: Any) -> str:
    """Businesses in full, where the text board abbreviates them (``text.businesses``): "gallery, boutique"."""
    return ", ".join(items)


# =========================================================================== the environment


@lru_cache(maxsize=None)
def html_environment() -> jinja2.Environment:
    """The text boards' environment, escaping HTML, with the HTML boards' own filters besides the text ones."""
    env = jinja2.Environment(
        loader=jinja2.FileSystemLoader(TEMPLATE_DIR),
        autoescape=True,
        trim_blocks=True,
        lstrip_blocks=True,
        undefined=jinja2.StrictUndefined,
        extensions=["jinja2.ext.do"],
    )
    text = _environment()
    env.filters.update(text.filters)
    env.globals.update(text.globals)
    env.filters.update(breakable=breakable, paint=paint, paint_site=paint_site, businesses=business_names, hand_colors=hand_colors,
                       bid_colors=bid_colors)
    return env


__all__ = ["FIFTH_AVENUE_PALETTE", "MANHATTAN_PALETTE", "PALETTES", "SWATCH_CSS", "swatch_class", "bid_colors", "fifth_avenue_context", "hand_colors", "html_environment",
           "manhattan_context", "paint", "render_board_html"]
