"""A small drawing surface for the board pictures: drawn twice as large, then halved, then stored as a PNG.

Pillow draws shapes without anti-aliasing, so a ``Canvas`` draws at ``SCALE``
times the picture's size and halves it at the end (each output pixel the mean
of a 2 x 2 block): edges and letters come out smooth, and the inside of every
shape drawn on whole output pixels keeps its exact color. Every coordinate a
caller gives is in output pixels.

A picture's still parts (what no position changes: the title bar, the streets,
the frames, the key) are drawn once: ``still()`` keeps a canvas's drawing so
far, and ``Canvas.over(still)`` starts the next picture from a copy of it.
Letters are rendered once per text, size and weight and then only stamped in
their color (``text``, ``vertical_text``).

The result is a palette PNG (well under half the size of the same picture in
full color) on a fixed palette, given by the caller (``palette.picture_palette``):
the named colors of ``palette`` first, exact (so a test can read a plot's color
off a pixel; their channels are multiples of 4 for that, see ``palette``), then
the blends of the color pairs the picture puts side by side (its anti-aliased
edges and letters). Every pixel takes the nearest entry, undithered, and the
PNG is deflated at ``COMPRESS_LEVEL`` (level 9, ``optimize``, costs seven times
as long for 5% fewer bytes). Drawing is deterministic: the same calls give
the same bytes.

Text is set in Open Sans (regular and bold), which the ``ttf-opensans``
package installs with pbem: its 938 glyphs cover Latin with every accent of
Europe's languages, Greek and Cyrillic, so names are drawn as people write them
("Zoë Lefèvre", "Łukasz Żółć", "Ωμέγα", "Дмитрий"). Pillow's own font, which
needs no file, has ASCII only. A letter the font still lacks (a Chinese name)
is written without its accent or as "?" (``printable``), never as an empty
box. Every text a canvas draws is kept in ``labels`` (its text and size), so a
test can measure how large the smallest label shows on a phone.
"""

from __future__ import annotations

import io
import unicodedata
from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from functools import lru_cache

import ttf_opensans
from PIL import Image, ImageDraw, ImageFont

from .palette import Color, all_colors

SCALE = 2
COMPRESS_LEVEL = 6
Box = tuple[float, float, float, float]
Point = tuple[float, float]
RGB = tuple[int, int, int]


@lru_cache(maxsize=None)
def font(size: float, bold: bool = False) -> ImageFont.FreeTypeFont:
    """Open Sans at ``size`` output pixels (drawn at ``SCALE`` times that). Pillow's basic layout, not Raqm:
    the scripts of names here need no shaping, and the same text then gives the same pixels on every install,
    with or without libraqm."""
    face = ttf_opensans.OPENSANS_BOLD if bold else ttf_opensans.OPENSANS_REGULAR
    return ImageFont.truetype(str(face.path), round(size * SCALE), layout_engine=ImageFont.Layout.BASIC)


_SPELLED = {"ß": "ss", "æ": "ae", "Æ": "AE", "œ": "oe", "Œ": "OE", "ø": "o", "Ø": "O", "ł": "l", "Ł": "L",
            "đ": "d", "Đ": "D", "ð": "d", "þ": "th", "ı": "i", "–": "-", "—": "-", "‘": "'", "“": '"', "”": '"'}


@lru_cache(maxsize=None)
def _has_glyph(char: str) -> bool:
    """Whether the font draws ``char`` with a glyph of its own, not the box it draws for a missing one."""
    probe = font(12)
    missing = probe.getmask("\ue000")
    mask = probe.getmask(char)
    return not (mask.size == missing.size and bytes(mask) == bytes(missing))


@lru_cache(maxsize=4096)
def printable(text: str) -> str:
    """``text`` in the characters the font has: accents and scripts it covers as they are, a letter it lacks
    without its accent ("ǅ" -> "DŽ") or as "?"."""
    out = []
    for char in unicodedata.normalize("NFC", text):  # one glyph for "e" and a combining accent
        if char.isspace():
            out.append(" ")
            continue
        if char.isascii() or _has_glyph(char):
            out.append(char)
            continue
        plain = _SPELLED.get(char) or "".join(c for c in unicodedata.normalize("NFKD", char)
                                              if not unicodedata.combining(c))
        out.append(plain if plain and all(c.isascii() or _has_glyph(c) for c in plain) else "?")
    return "".join(out)


@lru_cache(maxsize=4096)
def text_width(text: str, size: float, bold: bool = False) -> float:
    """How wide ``text`` is in output pixels."""
    return font(size, bold).getlength(printable(text)) / SCALE


def wrap(text: str, size: float, width: float, bold: bool = False) -> list[str]:
    """``text`` in lines of at most ``width`` output pixels, broken between words, and inside a word only when
    the word alone is wider: nothing is left out."""
    words = text.split()
    lines: list[str] = []
    for word in words:
        if lines and text_width(lines[-1] + " " + word, size, bold) <= width:
            lines[-1] += " " + word
            continue
        while text_width(word, size, bold) > width and len(word) > 1:
            cut = len(word) - 1
            while cut > 1 and text_width(word[:cut], size, bold) > width:
                cut -= 1
            lines.append(word[:cut])
            word = word[cut:]
        lines.append(word)
    return lines or [""]


def fit(text: str, size: float, width: float) -> str:
    """``text`` cut (with "...") to at most ``width`` output pixels."""
    if text_width(text, size) <= width:
        return text
    while text and text_width(text + "...", size) > width:
        text = text[:-1]
    return text.rstrip() + "..." if text else ""


@lru_cache(maxsize=2048)
def _letters(text: str, size: float, anchor: str, bold: bool) -> tuple[Image.Image, int, int]:
    """``text`` rendered once as a coverage mask (255 = ink), and where its top left lies from the anchor point,
    in drawing pixels; ``bold`` in the bold face."""
    f = font(size, bold)
    left, top, right, bottom = f.getbbox(text, anchor=anchor)
    mask = Image.new("L", (max(1, right - left), max(1, bottom - top)), 0)
    ImageDraw.Draw(mask).text((-left, -top), text, font=f, fill=255, anchor=anchor)
    return mask, left, top


@lru_cache(maxsize=256)
def _strip(text: str, size: float, fill: RGB, background: RGB, clockwise: bool) -> Image.Image:
    """``text`` on a strip of ``background``, turned a quarter (``Canvas.vertical_text``)."""
    f = font(size)
    left, top, right, bottom = f.getbbox(text)
    strip = Image.new("RGB", (right - left + 4, bottom - top + 4), background)
    ImageDraw.Draw(strip).text((2 - left, 2 - top), text, font=f, fill=fill)
    return strip.transpose(Image.Transpose.ROTATE_270 if clockwise else Image.Transpose.ROTATE_90)


@lru_cache(maxsize=16)
def _palette_image(colors: tuple[RGB, ...]) -> Image.Image:
    image = Image.new("P", (1, 1))
    image.putpalette([channel for rgb in colors for channel in rgb])  # only these: the PNG's PLTE as short
    return image


@dataclass(frozen=True)
class Label:
    text: str
    size: float  # the font's size in output pixels (what CSS calls font-size)


@dataclass(frozen=True)
class Still:
    """A canvas's drawing so far and the labels on it (``Canvas.still``)."""
    image: Image.Image
    labels: tuple[Label, ...]


class Canvas:
    def __init__(self, width: int, height: int, background: Color) -> None:
        self.width, self.height = width, height
        self.image = Image.new("RGB", (width * SCALE, height * SCALE), background.rgb)
        self.draw = ImageDraw.Draw(self.image)
        self.labels: list[Label] = []

    @classmethod
    def over(cls, still: Still, height: int | None = None, background: Color | None = None) -> Canvas:
        """A canvas starting from a copy of ``still`` (another canvas's ``still()``), which stays as it is;
        ``height`` (output pixels) makes it taller, the room below ``still`` filled with ``background``."""
        canvas = cls.__new__(cls)
        if height is None or height * SCALE == still.image.height:
            canvas.image = still.image.copy()
        else:
            canvas.image = Image.new("RGB", (still.image.width, height * SCALE), background.rgb if background else 0)
            canvas.image.paste(still.image, (0, 0))
        canvas.width, canvas.height = canvas.image.width // SCALE, canvas.image.height // SCALE
        canvas.draw = ImageDraw.Draw(canvas.image)
        canvas.labels = list(still.labels)
        return canvas

    def still(self) -> Still:
        """The drawing so far, to start other pictures from (``Canvas.over``)."""
        return Still(self.image.copy(), tuple(self.labels))

    # ------------------------------------------------------------------ shapes (output pixels)
    @staticmethod
    def _box(box: Box) -> tuple[int, int, int, int]:
        x0, y0, x1, y1 = box
        return round(x0 * SCALE), round(y0 * SCALE), round(x1 * SCALE) - 1, round(y1 * SCALE) - 1

    @staticmethod
    def _points(points: Iterable[Point]) -> list[tuple[int, int]]:
        return [(round(x * SCALE), round(y * SCALE)) for x, y in points]

    def rect(self, box: Box, fill: Color | None, outline: Color | None = None, width: float = 1,
             radius: float = 0) -> None:
        """A rectangle covering the output pixels from (x0, y0) up to, not including, (x1, y1)."""
        self.draw.rounded_rectangle(self._box(box), radius=round(radius * SCALE),
                                    fill=fill.rgb if fill else None, outline=outline.rgb if outline else None,
                                    width=round(width * SCALE) if outline else 0)

    def circle(self, center: Point, radius: float, fill: Color | None, outline: Color | None = None,
               width: float = 1) -> None:
        x, y = center
        self.draw.ellipse(self._box((x - radius, y - radius, x + radius, y + radius)),
                          fill=fill.rgb if fill else None, outline=outline.rgb if outline else None,
                          width=round(width * SCALE) if outline else 0)

    def polygon(self, points: Sequence[Point], fill: Color | None, outline: Color | None = None,
                width: float = 1) -> None:
        self.draw.polygon(self._points(points), fill=fill.rgb if fill else None,
                          outline=outline.rgb if outline else None, width=round(width * SCALE) if outline else 0)

    def line(self, points: Sequence[Point], fill: Color, width: float = 1) -> None:
        self.draw.line(self._points(points), fill=fill.rgb, width=round(width * SCALE), joint="curve")

    def text(self, xy: Point, text: str, size: float, fill: Color, anchor: str = "la", bold: bool = False) -> None:
        """Text at ``xy`` (Pillow's anchors: "la" left-top, "mm" middle, "rs" right-baseline, ...)."""
        self.labels.append(Label(text, size))
        mask, left, top = _letters(printable(text), size, anchor, bold)
        x, y = xy
        self.image.paste(fill.rgb, (round(x * SCALE) + left, round(y * SCALE) + top), mask)

    def vertical_text(self, center: Point, text: str, size: float, fill: Color, background: Color,
                      clockwise: bool = False) -> None:
        """Text read bottom to top (or top to bottom with ``clockwise``), centred on ``center``."""
        self.labels.append(Label(text, size))
        strip = _strip(printable(text), size, fill.rgb, background.rgb, clockwise)
        x, y = center
        self.image.paste(strip, (round(x * SCALE) - strip.width // 2, round(y * SCALE) - strip.height // 2))

    # ------------------------------------------------------------------ the result
    def png(self, palette: tuple[RGB, ...] | None = None) -> bytes:
        """The picture at its size, as palette PNG bytes on ``palette`` (at most 256 colors, the named ones
        first: ``palette.picture_palette``); by default the named colors alone."""
        image = self.image.reduce(SCALE)
        indexed = image.quantize(palette=_palette_image(palette or all_colors()), dither=Image.Dither.NONE)
        out = io.BytesIO()
        indexed.save(out, format="PNG", compress_level=COMPRESS_LEVEL)
        return out.getvalue()


__all__ = ["COMPRESS_LEVEL", "Canvas", "Label", "SCALE", "Still", "fit", "font", "printable", "text_width", "wrap"]
