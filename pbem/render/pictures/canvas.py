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
as long for 5% fewer bytes). Text uses Pillow's built-in font only
(``ImageFont.load_default(size=...)``), so no font file need be installed;
``printable`` writes what it lacks in its letters ("Díaz" as "Diaz"). Drawing
is deterministic: the same calls give the same bytes.
"""

from __future__ import annotations

import io
import unicodedata
from collections.abc import Iterable, Sequence
from functools import lru_cache

from PIL import Image, ImageDraw, ImageFont

from .palette import Color, all_colors

SCALE = 2
COMPRESS_LEVEL = 6
Box = tuple[float, float, float, float]
Point = tuple[float, float]
RGB = tuple[int, int, int]


@lru_cache(maxsize=None)
def font(size: float) -> ImageFont.FreeTypeFont | ImageFont.ImageFont:
    """Pillow's built-in font at ``size`` output pixels (drawn at ``SCALE`` times that)."""
    return ImageFont.load_default(size=round(size * SCALE))


_SPELLED = {"ß": "ss", "æ": "ae", "Æ": "AE", "œ": "oe", "Œ": "OE", "ø": "o", "Ø": "O", "ł": "l", "Ł": "L",
            "đ": "d", "Đ": "D", "ð": "d", "þ": "th", "ı": "i", "–": "-", "—": "-", "‘": "'", "“": '"', "”": '"'}


@lru_cache(maxsize=None)
def _has_glyph(char: str) -> bool:
    """Whether the built-in font draws ``char`` (it covers ASCII and a little more), not its empty box."""
    probe = font(12)
    missing = probe.getmask("\ue000")
    mask = probe.getmask(char)
    return not (mask.size == missing.size and bytes(mask) == bytes(missing))


@lru_cache(maxsize=4096)
def printable(text: str) -> str:
    """``text`` in the characters the built-in font has: "Díaz" -> "Diaz", "Weiß" -> "Weiss", else "?"."""
    out = []
    for char in text:
        if char.isascii() or _has_glyph(char):
            out.append(char)
            continue
        plain = _SPELLED.get(char) or "".join(c for c in unicodedata.normalize("NFKD", char)
                                              if not unicodedata.combining(c))
        out.append(plain if plain and all(c.isascii() or _has_glyph(c) for c in plain) else "?")
    return "".join(out)


@lru_cache(maxsize=4096)
def text_width(text: str, size: float) -> float:
    """How wide ``text`` is in output pixels."""
    return font(size).getlength(printable(text)) / SCALE


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
    in drawing pixels; ``bold`` adds a one pixel stroke, as ``ImageDraw.text`` draws it."""
    f = font(size)
    stroke = 1 if bold else 0
    left, top, right, bottom = f.getbbox(text, anchor=anchor, stroke_width=stroke)
    mask = Image.new("L", (max(1, right - left), max(1, bottom - top)), 0)
    ImageDraw.Draw(mask).text((-left, -top), text, font=f, fill=255, anchor=anchor, stroke_width=stroke,
                              stroke_fill=255 if bold else None)
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


class Canvas:
    def __init__(self, width: int, height: int, background: Color) -> None:
        self.width, self.height = width, height
        self.image = Image.new("RGB", (width * SCALE, height * SCALE), background.rgb)
        self.draw = ImageDraw.Draw(self.image)

    @classmethod
    def over(cls, still: Image.Image) -> Canvas:
        """A canvas starting from a copy of ``still`` (another canvas's ``still()``), which stays as it is."""
        canvas = cls.__new__(cls)
        canvas.image = still.copy()
        canvas.width, canvas.height = canvas.image.width // SCALE, canvas.image.height // SCALE
        canvas.draw = ImageDraw.Draw(canvas.image)
        return canvas

    def still(self) -> Image.Image:
        """The drawing so far, to start other pictures from (``Canvas.over``)."""
        return self.image.copy()

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
        """Text at ``xy`` (Pillow's anchors: "la" left-top, "mm" middle, "rs" right-baseline, ...); ``bold``
        thickens the strokes a little (the built-in font has one weight)."""
        mask, left, top = _letters(printable(text), size, anchor, bold)
        x, y = xy
        self.image.paste(fill.rgb, (round(x * SCALE) + left, round(y * SCALE) + top), mask)

    def vertical_text(self, center: Point, text: str, size: float, fill: Color, background: Color,
                      clockwise: bool = False) -> None:
        """Text read bottom to top (or top to bottom with ``clockwise``), centred on ``center``."""
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


__all__ = ["COMPRESS_LEVEL", "Canvas", "SCALE", "fit", "font", "printable", "text_width"]
