"""A small drawing surface for the board pictures: drawn twice as large, then halved, then stored as a PNG.

Pillow draws shapes without anti-aliasing, so a ``Canvas`` draws at ``SCALE``
times the picture's size and halves it at the end (each output pixel the mean
of a 2 x 2 block): edges and letters come out smooth, and the inside of every
shape drawn on whole output pixels keeps its exact color. Every coordinate a
caller gives is in output pixels. The result is a palette PNG (well under half
the size of the same picture in full color): the named colors of ``palette``
come first in its palette and stay exact (so a test can read a plot's color off
a pixel; their channels are multiples of 4 for that, see ``palette``), the
other entries are the picture's own blends (anti-aliased edges and letters).
Text uses Pillow's built-in font only (``ImageFont.load_default(size=...)``),
so no font file need be installed; ``printable`` writes what it lacks in its
letters ("Díaz" as "Diaz"). Drawing is deterministic: the same calls give the
same bytes.
"""

from __future__ import annotations

import io
import unicodedata
from collections.abc import Iterable, Sequence
from functools import lru_cache

from PIL import Image, ImageDraw, ImageFont

from .palette import Color, all_colors

SCALE = 2
Box = tuple[float, float, float, float]
Point = tuple[float, float]


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


class Canvas:
    def __init__(self, width: int, height: int, background: Color) -> None:
        self.width, self.height = width, height
        self.image = Image.new("RGB", (width * SCALE, height * SCALE), background.rgb)
        self.draw = ImageDraw.Draw(self.image)

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
        x, y = xy
        self.draw.text((round(x * SCALE), round(y * SCALE)), printable(text), font=font(size), fill=fill.rgb,
                       anchor=anchor, stroke_width=1 if bold else 0, stroke_fill=fill.rgb if bold else None)

    def vertical_text(self, center: Point, text: str, size: float, fill: Color, background: Color,
                      clockwise: bool = False) -> None:
        """Text read bottom to top (or top to bottom with ``clockwise``), centred on ``center``."""
        f = font(size)
        text = printable(text)
        left, top, right, bottom = f.getbbox(text)
        strip = Image.new("RGB", (right - left + 4, bottom - top + 4), background.rgb)
        ImageDraw.Draw(strip).text((2 - left, 2 - top), text, font=f, fill=fill.rgb)
        strip = strip.transpose(Image.Transpose.ROTATE_270 if clockwise else Image.Transpose.ROTATE_90)
        x, y = center
        self.image.paste(strip, (round(x * SCALE) - strip.width // 2, round(y * SCALE) - strip.height // 2))

    # ------------------------------------------------------------------ the result
    def png(self) -> bytes:
        """The picture at its size, as palette PNG bytes."""
        image = self.image.reduce(SCALE)
        exact = list(all_colors())
        # the blends, learnt from a quarter of the pixels (twice as fast, as good)
        adaptive = image.reduce(2).quantize(colors=256 - len(exact), method=Image.Quantize.MEDIANCUT,
                                            dither=Image.Dither.NONE)
        flat = [channel for rgb in exact for channel in rgb] + list(adaptive.getpalette() or [])
        flat = flat[: 256 * 3]
        palette = Image.new("P", (1, 1))
        palette.putpalette(flat + [0] * (768 - len(flat)))
        indexed = image.quantize(palette=palette, dither=Image.Dither.NONE)
        out = io.BytesIO()
        indexed.save(out, format="PNG", optimize=True)
        return out.getvalue()


__all__ = ["Canvas", "SCALE", "fit", "font", "printable", "text_width"]
