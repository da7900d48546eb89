"""The Manhattan board as plain text for email: at most 72 columns, read in a monospace font.

Each player sees the six cities from their own side of the table, so that the
number in the corner of every site is the number of the card that builds
there for them: a card names a site as seen from its player's side
(``games.manhattan.board.absolute_site``). The public and the moderator's board
are drawn from side 0 (south). A site shows its owner (the color on top) and
height on its first line, and the floors of every color in it on its second
(the floors decide who may build on it), on as many lines as they need: every
floor of every color is shown. The cities stand one below the other, each
``BOX_WIDTH`` columns wide, so that the board reads the same at 72 columns and
on a phone's narrow screen (about 40-50 columns). The words and the layout live
in ``templates/manhattan/board.txt.j2``; this module prepares the city boxes.
"""

from __future__ import annotations

from typing import Any, Mapping

from pbem.games.manhattan.board import absolute_site, load_board, seen_from

from .text import _environment, owner_names

CELL = 12  # a site's width inside its borders
BOX_WIDTH = 3 * CELL + 4  # a city's box, borders included: 40 columns
FLOORS_INDENT = "  "
INITIAL = {"blue": "b", "red": "r", "green": "g", "black": "k"}  # k: b is blue's


def render_board(view: dict[str, Any], *, players: list[str], hands: Mapping[int, list[int]] | None = None) -> str:
    """``view`` is ``State.view(seat)`` (or ``State.view(None)``); ``hands`` (the moderator's board) maps every
    seat to its cards."""
    board = load_board()
    viewer = view["viewer"]
    side = view["side"][viewer] if viewer is not None else 0
    names = owner_names(players[: view["players"]])
    color_owner = {color: names[seat] for seat, colors in enumerate(view["colors"]) for color in colors}
    boxes = [_city_box(view["cities"][code], side) for code in board.city_codes]
    context = {
        "v": view, "names": names, "side": side, "side_name": board.side_names[side], "city_rows": boxes,
        "hands": None if hands is None else {int(seat): list(cards) for seat, cards in hands.items()},
        "chosen": {color: _parts(counts) for color, counts in view["chosen"].items()},
        "hand_sizes": ", ".join(f"{names[seat]} {count}" for seat, count in enumerate(view["hand_sizes"])),
        "last_scoring": _last_scoring(view, names, color_owner, board, side),
        "hand_grid": _hand_grid(view.get("hand", [])),
    }
    text = _environment().get_template("manhattan/board.txt.j2").render(context)
    lines = [line.rstrip() for line in text.splitlines()]
    while lines and not lines[-1]:
        lines.pop()
    return "\n".join(lines) + "\n"


def render_moderator_board(state: Any, *, players: list[str]) -> str:
    """The board with every hand: the moderator's. It says what the player to move is told, who alone learns
    that none of their cards can build (docs/rules.md M15)."""
    view = state.view(None)
    if state.current_player() >= 0:
        view["waiting_for"] = state.view(state.current_player())["waiting_for"]
    return render_board(view, players=players, hands=dict(enumerate(state.hands)))


def _hand_grid(cards: list[int]) -> list[str]:
    """The hand drawn as sites, as the reader sees a city from their side: how many cards build on each."""
    counts = [cards.count(card) for card in range(1, 10)]
    labels = ("far ", "    ", "near")
    return [f"{labels[row]}  " + " ".join(str(counts[row * 3 + col]) if counts[row * 3 + col] else "."
                                         for col in range(3)) for row in range(3)]


def _parts(counts: list[int]) -> str:
    """Counts of parts by size as the parts: [1, 2, 0, 1] -> '1 2 2 4'."""
    return " ".join(str(size) for size, count in enumerate(counts, start=1) for _ in range(count)) or "-"


def _last_scoring(view: Mapping[str, Any], names: list[str], color_owner: Mapping[str, str], board: Any,
                  side: int) -> str:
    """The last round's scoring in a sentence; points are per player (a 2-player seat adds its two colors).
    The tallest tower's site is numbered as the board above draws it (from ``side``)."""
    if not view["history"]:
        return ""
    last = view["history"][-1]
    tallest = last["tallest"]
    parts = [f"the tallest tower, {tallest['height']} stories on site {seen_from(side, tallest['site'])} of "
             f"{board.name(tallest['city'])}, {board.tallest_points} to {tallest['color']} "
             f"({color_owner[tallest['color']]})"
             if tallest else "no single tallest tower"]
    won = [f"{board.name(city)} to {color}" for city, color in last["majorities"].items() if color]
    parts.append(f"majorities ({board.majority_points} each): " + (", ".join(won) if won else "none"))
    parts.append(f"towers ({board.tower_points} each): "
                 + ", ".join(f"{color} {n}" for color, n in last["towers"].items()))
    gained = ", ".join(f"{name} +{points}" for name, points in zip(names, last["points"]))
    return f"Scoring of round {last['round']}: " + "; ".join(parts) + f". Points: {gained}."


def _city_box(city: Mapping[str, Any], side: int) -> list[str]:
    """A city as seen from ``side``: its name, then three rows of three sites, numbered as that side's cards.

    A site's first line is its number, owner and height; below come its floors per color, as many lines as
    they take (a row of sites is as tall as its tallest cell; a row of empty sites is one line), so no floor
    is ever cut off."""
    border = "+" + "+".join(["-" * CELL] * 3) + "+"
    lines = [border, "|" + f" {city['name'].upper()}".ljust(BOX_WIDTH - 2) + "|", border]
    for row in range(3):
        cells = []
        for col in range(3):
            card = row * 3 + col + 1
            site = city["sites"][absolute_site(side, card) - 1]
            cells.append([f"{card} {_owner_and_height(site)}", *_floor_lines(site)])
        height = max(len(cell) for cell in cells)
        for i in range(height):
            lines.append("|" + "|".join(_fit(cell[i] if i < len(cell) else "") for cell in cells) + "|")
        lines.append(border)
    return lines


def _owner_and_height(site: Mapping[str, Any]) -> str:
    if not site["parts"]:
        return "  -"
    return f"{site['owner']} {site['height']}"


def _floors(site: Mapping[str, Any]) -> list[str]:
    """The floors of each color in the tower, most first: ['b5', 'r2']."""
    floors = sorted(site["floors"].items(), key=lambda item: (-item[1], item[0])) if site["floors"] else []
    return [f"{INITIAL.get(color, color[:1])}{n}" for color, n in floors if n]


def _floor_lines(site: Mapping[str, Any]) -> list[str]:
    """The floors filled into as many lines as fit the cell; none for an empty site."""
    lines: list[str] = []
    for item in _floors(site):
        if not lines or len(FLOORS_INDENT) + len(lines[-1]) + 1 + len(item) > CELL:
            lines.append(item)
        else:
            lines[-1] += " " + item
    return [FLOORS_INDENT + line for line in lines]


def _fit(text: str) -> str:
    """A cell's line padded to the cell; nothing is ever longer (floors wrap), a cut would show as '~'."""
    return text.ljust(CELL) if len(text) <= CELL else text[: CELL - 1] + "~"


__all__ = ["BOX_WIDTH", "render_board", "render_moderator_board"]
