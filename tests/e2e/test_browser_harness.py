"""The browser harness (pbem_testing.browser) can fail: each check is shown both
passing on a page that is right and failing on one that is wrong, in a real headless
Chromium at a phone's width (390 px) and a desktop's (900 px)."""

from __future__ import annotations

import os
import struct
import subprocess
import sys
import zlib
from email.message import EmailMessage
from pathlib import Path

import pytest

from pbem_testing.browser import (DESKTOP_WIDTH, PHONE_WIDTH, Browser, BrowserError, Page, inline_cid_images,
                                  mail_html, screenshot_dir)

WIDTHS = (PHONE_WIDTH, DESKTOP_WIDTH)

# Like today's HTML mail part: the text in a <pre>, here 700 px wide whatever the screen.
FIXED_WIDTH = """<!DOCTYPE html>
<html><head><meta charset="utf-8"><title>Fixed</title></head>
<body>
<pre style="width: 700px; font-family: 'DejaVu Sans Mono', monospace; font-size: 13px;">
Turn 7: it is your move, Ann.                              FAR-RIGHT-WORD
  A B C D E F G H
1 . . . . . . . .
</pre>
</body></html>
"""

RESPONSIVE = """<!DOCTYPE html>
<html><head><meta charset="utf-8"><meta name="viewport" content="width=device-width, initial-scale=1">
<title>Responsive</title>
<style>
  body { margin: 0; padding: 8px; font-family: 'DejaVu Sans', sans-serif; }
  main { max-width: 600px; margin: 0 auto; }
  pre { white-space: pre-wrap; overflow-wrap: anywhere; }
  .board { width: 100%; max-width: 360px; aspect-ratio: 1; background: #eee; }
</style></head>
<body><main>
<h1>Turn 7</h1>
<p>It is your move, Ann. A paragraph long enough to need several lines on a phone and still no sideways scrolling.</p>
<pre>A_long_unbroken_word_that_would_overflow_without_overflow_wrap_anywhere_in_its_style</pre>
<div class="board"></div>
</main></body></html>
"""

BELOW_THE_FOLD = """<!DOCTYPE html>
<html><head><meta charset="utf-8"><title>Long</title></head>
<body>
<h1>Your turn</h1>
<div style="height: 3000px">filler</div>
<p>Far down the page</p>
<p style="display: none">Hidden words</p>
</body></html>
"""


def png(width: int = 2, height: int = 2, rgb: tuple[int, int, int] = (200, 30, 30)) -> bytes:
    """A small PNG, made without Pillow."""
    def chunk(kind: bytes, data: bytes) -> bytes:
        return struct.pack(">I", len(data)) + kind + data + struct.pack(">I", zlib.crc32(kind + data) & 0xFFFFFFFF)

    rows = b"".join(b"\x00" + bytes(rgb) * width for _ in range(height))
    header = struct.pack(">IIBBBBB", width, height, 8, 2, 0, 0, 0)
    return b"\x89PNG\r\n\x1a\n" + chunk(b"IHDR", header) + chunk(b"IDAT", zlib.compress(rows)) + chunk(b"IEND", b"")


def png_size(path: Path) -> tuple[int, int]:
    data = path.read_bytes()
    assert data.startswith(b"\x89PNG\r\n\x1a\n") and data[12:16] == b"IHDR", f"{path} is not a PNG"
    return struct.unpack(">II", data[16:24])


def shoot(page: Page, name: str) -> Path:
    path = page.screenshot(screenshot_dir() / f"harness-{name}-{page.width}.png")
    print(f"screenshot: {path}")
    return path


@pytest.mark.parametrize("width", WIDTHS)
def test_the_viewport_is_exactly_the_width_asked_for(browser: Browser, width: int) -> None:
    page = browser.open(RESPONSIVE, width)
    assert (page.viewport_width, page.viewport_height) == (width, 900)
    assert page.js("return [document.documentElement.clientWidth, window.devicePixelRatio]") == [width, 1]


def test_a_fixed_width_page_scrolls_sideways_on_a_phone_and_not_on_a_desktop(browser: Browser) -> None:
    phone = browser.open(FIXED_WIDTH, PHONE_WIDTH)
    assert phone.viewport_width == PHONE_WIDTH
    assert phone.document_width > phone.viewport_width
    assert phone.scrolls_horizontally
    assert phone.visible_without_scrolling("Turn 7: it is your move, Ann.")
    assert not phone.visible_without_scrolling("FAR-RIGHT-WORD"), phone.text_boxes("FAR-RIGHT-WORD")
    phone_shot = shoot(phone, "fixed")
    assert png_size(phone_shot)[0] >= 700  # the screenshot shows the overflow too

    desktop = browser.open(FIXED_WIDTH, DESKTOP_WIDTH)
    assert desktop.document_width <= desktop.viewport_width == DESKTOP_WIDTH
    assert desktop.visible_without_scrolling("FAR-RIGHT-WORD")
    assert png_size(shoot(desktop, "fixed"))[0] == DESKTOP_WIDTH


@pytest.mark.parametrize("width", WIDTHS)
def test_a_responsive_page_fits_every_width(browser: Browser, width: int) -> None:
    page = browser.open(RESPONSIVE, width)
    assert page.document_width <= page.viewport_width == width
    assert not page.scrolls_horizontally
    assert page.visible_without_scrolling("It is your move, Ann.")
    assert page.count("h1") == 1 and page.count("div.board") == 1 and page.count("table") == 0
    assert page.viewport_meta == "width=device-width, initial-scale=1"
    path = shoot(page, "responsive")
    assert path.stat().st_size > 100
    assert png_size(path) == (width, page.document_height)
    assert page.viewport_width == width  # the full-page screenshot left the emulated viewport as it was


def test_text_below_the_first_screen_is_not_visible_without_scrolling(browser: Browser) -> None:
    page = browser.open(BELOW_THE_FOLD, DESKTOP_WIDTH, 900)
    assert page.visible_without_scrolling("Your turn")
    far = page.text_boxes("Far down the page")
    assert far and far[0]["top"] > 3000  # it is there, only further down
    assert not page.visible_without_scrolling("Far down the page")
    assert not page.visible_without_scrolling("Hidden words")  # display: none
    assert not page.visible_without_scrolling("Not on the page at all")
    shoot(page, "below-the-fold")


def test_text_split_over_elements_is_found_in_the_innermost_one(browser: Browser) -> None:
    page = browser.open("<p id=score>Score: <b>12</b> points</p>", PHONE_WIDTH)
    assert page.visible_without_scrolling("Score: 12 points")
    assert [box["how"] for box in page.text_boxes("Score: 12 points")] == ["element"]


def test_a_broken_image_fails_and_a_cid_image_made_a_data_uri_loads(browser: Browser, tmp_path: Path) -> None:
    broken = browser.open(f'<p>Board</p><img src="{(tmp_path / "missing.png").as_uri()}" alt="board">', PHONE_WIDTH)
    assert not broken.images_loaded()
    assert broken.broken_images() == [(tmp_path / "missing.png").as_uri()]

    mail = '<p>Board</p><img src="cid:board@pbem" alt="board" width="40"><img src=\'cid:other\'>'
    assert not browser.open(mail, PHONE_WIDTH).images_loaded()  # cid: never loads in a browser
    inlined = inline_cid_images(mail, {"<board@pbem>": ("image/png", png()), "other": ("image/png", png(3, 1))})
    assert "cid:" not in inlined
    page = browser.open(inlined, PHONE_WIDTH)
    assert page.images_loaded(), page.broken_images()
    assert page.js("return [...document.images].map(i => i.naturalWidth)") == [2, 3]
    assert page.count("img") == 2
    shoot(page, "cid-images")

    unknown = inline_cid_images(mail, {"board@pbem": ("image/png", png())})
    assert not browser.open(unknown, PHONE_WIDTH).images_loaded()  # a name nobody gave stays cid:


def test_mail_html_takes_the_html_part_and_its_inline_pictures(browser: Browser) -> None:
    message = EmailMessage()
    message["Subject"] = "Turn 7"
    message.set_content("Turn 7\n")
    message.add_alternative('<html><body><h1>Turn 7</h1><img src="cid:board.1%40pbem"></body></html>', subtype="html")
    message.get_payload()[1].add_related(png(), "image", "png", cid="<board.1@pbem>")
    page = browser.open(mail_html(message), PHONE_WIDTH)
    assert page.images_loaded(), page.broken_images()
    assert page.visible_without_scrolling("Turn 7")


def test_a_page_replaced_by_a_later_open_cannot_be_measured(browser: Browser) -> None:
    first = browser.open("<p>one</p>", PHONE_WIDTH)
    browser.open("<p>two</p>", PHONE_WIDTH)
    with pytest.raises(BrowserError, match="replaced"):
        first.document_width


def test_a_file_opens_as_well_as_a_string(browser: Browser, tmp_path: Path) -> None:
    path = tmp_path / "page.html"
    path.write_text(RESPONSIVE, encoding="utf-8")
    page = browser.open(path, PHONE_WIDTH)
    assert page.url == path.as_uri()
    assert page.visible_without_scrolling("Turn 7")


def test_mobile_emulation_would_hide_the_overflow_which_is_why_it_is_off(browser: Browser) -> None:
    """Chromium's own mobile emulation lays a page without a viewport meta out 980 px wide, and zooms a wider
    page with one out to its content's width: either way innerWidth is no longer the screen's width."""
    without_meta = browser.open(FIXED_WIDTH, PHONE_WIDTH, mobile=True)
    assert without_meta.viewport_width == 980 and not without_meta.scrolls_horizontally
    with_meta = FIXED_WIDTH.replace("<head>", '<head><meta name="viewport" content="width=device-width">')
    zoomed_out = browser.open(with_meta, PHONE_WIDTH, mobile=True)
    assert zoomed_out.viewport_width > PHONE_WIDTH and not zoomed_out.scrolls_horizontally
    assert browser.open(with_meta, PHONE_WIDTH).scrolls_horizontally


@pytest.mark.parametrize(("ci", "outcome"), [("true", "error"), ("", "skipped")])
def test_without_chromium_the_fixture_fails_in_ci_and_skips_elsewhere(ci: str, outcome: str, tmp_path: Path) -> None:
    env = dict(os.environ, CI=ci, PBEM_CHROMIUM=str(tmp_path / "no-chromium"))
    proc = subprocess.run(
        [sys.executable, "-m", "pytest", "-q", "-rfEs", "-p", "no:cacheprovider",
         f"{__file__}::test_a_page_replaced_by_a_later_open_cannot_be_measured"],
        capture_output=True, text=True, env=env, timeout=120, cwd=Path(__file__).parents[2])
    assert f"1 {outcome}" in proc.stdout, proc.stdout + proc.stderr  # a fixture's pytest.fail is an error at setup
    assert proc.returncode == (1 if ci else 0), proc.stdout
    assert "chromium ($PBEM_CHROMIUM=" in proc.stdout, proc.stdout
    if ci:
        assert "Chromium is required in CI" in proc.stdout, proc.stdout
