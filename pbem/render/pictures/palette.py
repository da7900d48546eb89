"""The named colors of the board pictures, as hex strings with readable names.

One place for every color a picture fills with, so that the HTML part of a mail
can show the very same colors (a player's name on a swatch of their color, a
plot's color in a table): ``PLOT_COLORS`` (Fifth Avenue's five plot colors and
the back side's sixth plot), ``PLAYER_COLORS`` (the players' colors of both
games), ``COMMISSIONER_COLORS`` (Fifth Avenue's two commissioners and their
markers) and the colors of the board itself (``BOARD_COLORS``: paper, streets,
City Hall, Central Park, ...). ``fifth_avenue_owner`` gives an owner number's
color (the board's ``player_colors`` in order: the 2-player robot, owner 2, is
blue); ``manhattan_color`` a Manhattan color's (the game's colors are named
after them). Every ``Color`` knows its ``ink``: black or white, whichever reads
better written on it.

Every channel of every color here is a multiple of 4: Pillow maps a picture's
pixels to its palette through a cache of 4 x 4 x 4 blocks of colors, each block
taking the palette entry nearest its first color, so a named color stays
exactly itself only if it is that first color (``canvas.Canvas.png``).

A picture's PNG palette is fixed (``picture_palette``): the named colors, then
for every pair of colors the picture puts side by side (letters on a ground,
a line around a fill) the blends between them that drawing at twice the size
and halving makes. No picture needs its own palette learnt from its pixels.
"""

from __future__ import annotations

from dataclasses import dataclass
from functools import cache, cached_property

from pbem.games.fifth_avenue.board import load_board as _fifth_avenue_board


@dataclass(frozen=True)
class Color:
    name: str  # readable: "orange", "dark gray"
    hex: str  # "#F08830"

    @cached_property  # drawn with thousands of times a picture
    def rgb(self) -> tuple[int, int, int]:
        value = self.hex.lstrip("#")
        return int(value[0:2], 16), int(value[2:4], 16), int(value[4:6], 16)

    @cached_property
    def luminance(self) -> float:
        """Relative luminance (WCAG), 0 black to 1 white."""

        def channel(c: int) -> float:
            c = c / 255
            return c / 12.92 if c <= 0.03928 else ((c + 0.055) / 1.055) ** 2.4

        r, g, b = (channel(c) for c in self.rgb)
        return 0.2126 * r + 0.7152 * g + 0.0722 * b

    @cached_property
    def ink(self) -> Color:
        """The text color that reads best on this color: ``INK`` or ``PAPER_WHITE``, whichever has the higher WCAG
        contrast ratio with it."""
        on_ink = (self.luminance + 0.05) / (INK.luminance + 0.05)
        on_white = (PAPER_WHITE.luminance + 0.05) / (self.luminance + 0.05)
        return INK if on_ink >= on_white else PAPER_WHITE


INK = Color("black", "#202020")
PAPER_WHITE = Color("white", "#FCFCFC")

# Fifth Avenue's plots, in the board's order, and the back side's sixth plot.
PLOT_COLORS: dict[str, Color] = {
    "orange": Color("orange", "#F08830"),
    "green": Color("green", "#8CC050"),
    "brown": Color("brown", "#9C6C44"),
    "violet": Color("violet", "#9870CC"),
    "gray": Color("gray", "#A8ACB0"),
    "center": Color("center (sixth plot)", "#F4E8D0"),
}

# The players' colors of both games: Fifth Avenue's red, yellow, blue and green (by owner number), Manhattan's
# blue, red, green and black. The player's green is darker than the plots' green.
PLAYER_COLORS: dict[str, Color] = {
    "red": Color("red", "#D8283C"),
    "yellow": Color("yellow", "#F8C814"),
    "blue": Color("blue", "#2864C8"),
    "green": Color("green", "#147838"),
    "black": Color("black", "#282828"),
}

COMMISSIONER_COLORS: dict[str, Color] = {
    "white": Color("white", "#FCFCFC"),
    "beige": Color("beige", "#D8B880"),
}

BOARD_COLORS: dict[str, Color] = {
    "paper": Color("paper", "#F8F0E8"),
    "district": Color("district", "#FCFCF8"),
    "street": Color("street", "#D0C8B8"),
    "line": Color("line", "#6C685C"),
    "text": Color("text", "#2C2824"),
    "faint": Color("faint text", "#787468"),
    "city hall": Color("City Hall", "#E4D8C4"),
    "central park": Color("Central Park", "#B8DCA0"),
    "park edge": Color("park edge", "#609848"),
    "stopped": Color("building stop", "#706864"),
    "stop sign": Color("stop sign", "#C82828"),
    "empty site": Color("empty site", "#E8E4D8"),
    "city": Color("city", "#FCFCFC"),
    "business": Color("business", "#FCFCFC"),
    "tallest": Color("tallest tower", "#F0B800"),
}

# The place a mail's decision is about (the district being auctioned, the city of the last build): a color no
# player, plot or part of the board has.
MARK = Color("mark", "#D01C8C")

BUSINESS_LETTERS = {"boutique": "B", "jeweler": "J", "gallery": "G", "perfume": "P"}


def fifth_avenue_owner(owner: int) -> Color:
    """The color of a Fifth Avenue owner number (a seat; the 2-player robot is owner 2)."""
    names = _fifth_avenue_board().player_colors
    return PLAYER_COLORS[names[owner % len(names)]]


def fifth_avenue_owner_colors(owners: int) -> list[Color]:
    return [fifth_avenue_owner(owner) for owner in range(owners)]


def manhattan_color(name: str) -> Color:
    """The color of a Manhattan color (blue, red, green, black)."""
    return PLAYER_COLORS[name]


@cache
def all_colors() -> tuple[tuple[int, int, int], ...]:
    """Every named color once, as RGB: the picture's palette keeps them exact."""
    seen: dict[tuple[int, int, int], None] = {}
    for group in (PLOT_COLORS, PLAYER_COLORS, COMMISSIONER_COLORS, BOARD_COLORS, {"mark": MARK}):
        for color in group.values():
            seen[color.rgb] = None
            seen[color.ink.rgb] = None
    return tuple(seen)


Pair = tuple[Color, Color]


def mix(top: Color, ground: Color, share: float) -> tuple[int, int, int]:
    """``share`` (0 to 1) of ``top`` over ``ground``, as RGB."""
    r, g, b = (round(a * share + z * (1 - share)) for a, z in zip(top.rgb, ground.rgb))
    return r, g, b


LETTER_STEPS, EDGE_STEPS = 3, 2


@cache
def picture_palette(letters: tuple[Pair, ...], edges: tuple[Pair, ...]) -> tuple[tuple[int, int, int], ...]:
    """A picture's PNG palette: every named color first (so they stay exact), then the blends that halving a
    drawing at twice the size makes of each pair of colors side by side: letters (anti-aliased by the font: any
    share, taken in thirds) and the edges of shapes (Pillow draws them sharp, so halved they are 1/4, 1/2 or
    3/4 of a color: the half alone is kept). A blend that Pillow's 4 x 4 x 4 blocks would map to an entry
    already there is left out. At most 256 colors.

    Fewer blends, fewer kinds of pixel for the PNG to deflate: letters in eighths and edges in quarters made a
    Fifth Avenue picture 19.5 KB (212 colors), quarters and halves 17.9 KB (101), a Manhattan one 16.0 and
    14.5 KB; letters in thirds take 2% more off (issue 35), and a letter still reads smooth at a phone's size."""
    colors = list(all_colors())
    blocks = {(r >> 2, g >> 2, b >> 2) for r, g, b in colors}
    for pairs, steps in ((letters, LETTER_STEPS), (edges, EDGE_STEPS)):
        for top, ground in pairs:
            for step in range(1, steps):
                rgb = mix(top, ground, step / steps)
                block = (rgb[0] >> 2, rgb[1] >> 2, rgb[2] >> 2)
                if block not in blocks:
                    blocks.add(block)
                    colors.append(rgb)
    if len(colors) > 256:
        raise ValueError(f"{len(colors)} colors: a PNG palette holds 256")
    return tuple(colors)


__all__ = [
    "BOARD_COLORS",
    "BUSINESS_LETTERS",
    "COMMISSIONER_COLORS",
    "Color",
    "MARK",
    "PLAYER_COLORS",
    "PLOT_COLORS",
    "Pair",
    "all_colors",
    "fifth_avenue_owner",
    "fifth_avenue_owner_colors",
    "manhattan_color",
    "mix",
    "picture_palette",
]
