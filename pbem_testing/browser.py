"""A real browser for the tests: headless Chromium driven by Selenium, to render HTML
mails and web pages at a phone's and a desktop's width and check what a reader sees.

Chromium and its WebDriver come from the system (Debian: ``chromium``,
``chromium-driver``; ``tests/install-servers.sh`` installs them). Selenium is told
where both are, so Selenium Manager never runs (it would try to download a driver).

    with Browser() as browser:
        page = browser.open("<h1>Hello</h1>", width=390)
        assert page.document_width <= page.viewport_width  # no horizontal scrolling
        assert page.visible_without_scrolling("Hello")
        assert page.images_loaded(), page.broken_images()
        print("screenshot:", page.screenshot(screenshot_dir() / "hello-390.png"))

One Chromium serves every page; each ``open()`` replaces the page before it.

The width is exactly the layout width in CSS pixels (``window.innerWidth ==
width``, device pixel ratio 1) at any width, set with the DevTools command
``Emulation.setDeviceMetricsOverride``; scrollbars take no room (as on a phone).
Chromium's *mobile* emulation is off by default, on purpose: in it a page without a
``<meta name="viewport">`` is laid out 980 px wide, and a page with one that is wider
than the screen is zoomed out until it fits (``innerWidth`` becomes the content's
width), so "the document is no wider than the viewport" would hold for the very pages
that scroll sideways on a phone. ``open(..., mobile=True)`` turns it on for tests of
that behaviour; ``page.viewport_meta`` tells what the page itself asks for.
"""

from __future__ import annotations

import atexit
import base64
import email.message
import itertools
import os
import re
import shutil
import tempfile
import time
import urllib.parse
import weakref
from pathlib import Path
from typing import TYPE_CHECKING, Any, Mapping

if TYPE_CHECKING:
    from selenium.webdriver.chrome.webdriver import WebDriver

PHONE_WIDTH = 390
DESKTOP_WIDTH = 900

# Flags for a headless Chromium in a container, as root, without a GPU or a network.
CHROMIUM_FLAGS = (
    "--headless=new",
    "--no-sandbox",  # root cannot use Chromium's sandbox, and containers often lack user namespaces
    "--disable-dev-shm-usage",  # Docker's /dev/shm is 64 MB: shared memory goes to /tmp instead
    "--disable-gpu",
    "--hide-scrollbars",  # a scrollbar would take 15 px of the width; phones overlay theirs
    "--force-device-scale-factor=1",
    "--font-render-hinting=none",  # the same text widths and screenshots on every machine
    "--window-size=900,900",
    "--lang=en-US",
    "--no-first-run",
    "--no-default-browser-check",
    "--disable-extensions",
    "--disable-background-networking",  # no update checks, no safe-browsing lists: there is no internet
    "--disable-component-update",
    "--disable-sync",
    "--disable-default-apps",
    "--mute-audio",
)

_page_numbers = itertools.count(1)


def chromium_binary() -> str | None:
    """Chromium's executable: ``$PBEM_CHROMIUM`` if set, else Debian's binary itself
    (/usr/lib/chromium/chromium: the /usr/bin/chromium shell wrapper adds only desktop
    flags and costs 0.1 s), else ``chromium``, ``chromium-browser`` or ``google-chrome`` on PATH."""
    chosen = os.environ.get("PBEM_CHROMIUM")
    if chosen is not None:
        return chosen if os.access(chosen, os.X_OK) and Path(chosen).is_file() else None
    if os.access("/usr/lib/chromium/chromium", os.X_OK):
        return "/usr/lib/chromium/chromium"
    for name in ("chromium", "chromium-browser", "google-chrome"):
        found = shutil.which(name)
        if found:
            return found
    return None


def chromedriver_binary() -> str | None:
    """The WebDriver: ``$PBEM_CHROMEDRIVER`` if set, else /usr/bin/chromedriver (Debian's
    chromium-driver, the same version as chromium), else ``chromedriver`` on PATH."""
    chosen = os.environ.get("PBEM_CHROMEDRIVER")
    if chosen is not None:
        return chosen if os.access(chosen, os.X_OK) and Path(chosen).is_file() else None
    if os.access("/usr/bin/chromedriver", os.X_OK):
        return "/usr/bin/chromedriver"
    return shutil.which("chromedriver")


def browser_missing() -> str | None:
    """Why no Browser can start here, or None when everything is installed."""
    missing = []
    if chromium_binary() is None:
        missing.append("chromium" + (f" ($PBEM_CHROMIUM={os.environ['PBEM_CHROMIUM']})" if "PBEM_CHROMIUM" in os.environ else ""))
    if chromedriver_binary() is None:
        missing.append("chromedriver" + (f" ($PBEM_CHROMEDRIVER={os.environ['PBEM_CHROMEDRIVER']})"
                                         if "PBEM_CHROMEDRIVER" in os.environ else ""))
    try:
        import selenium  # noqa: F401
    except ImportError:
        missing.append("the selenium package (pip install -e '.[test]')")
    if not missing:
        return None
    return f"{' and '.join(missing)} not installed (Debian: apt-get install chromium chromium-driver)"


def browser_available() -> bool:
    return browser_missing() is None


def repository_root() -> Path:
    """The checkout this module is in (an editable install), else the working folder."""
    root = Path(__file__).resolve().parents[2]
    return root if (root / "pyproject.toml").is_file() else Path.cwd()


def screenshot_dir() -> Path:
    """Where tests write screenshots (made if missing): ``$PBEM_SCREENSHOTS``, else
    ``test-artifacts/screenshots/`` in the repository (ignored by git)."""
    chosen = os.environ.get("PBEM_SCREENSHOTS")
    folder = Path(chosen) if chosen else repository_root() / "test-artifacts" / "screenshots"
    folder.mkdir(parents=True, exist_ok=True)
    return folder


def inline_cid_images(html: str, images: Mapping[str, tuple[str, bytes]]) -> str:
    """``html`` with each ``src="cid:NAME"`` whose NAME is in ``images`` (name -> (mime
    type, bytes)) turned into a ``data:`` URI, so a browser shows a mail's inline pictures.
    Names are Content-IDs with or without their angle brackets; the cid: URL may be
    %-encoded (RFC 2392). Unknown names stay as they are (and fail ``images_loaded()``)."""
    by_name = {name.strip().strip("<>"): value for name, value in images.items()}

    def replace(match: re.Match[str]) -> str:
        name = urllib.parse.unquote(match.group("name"))
        if name not in by_name:
            return match.group(0)
        mime, data = by_name[name]
        uri = f"data:{mime};base64,{base64.b64encode(data).decode('ascii')}"
        return f"{match.group('before')}{match.group('quote')}{uri}{match.group('quote')}"

    pattern = r"""(?P<before>\bsrc\s*=\s*)(?P<quote>["']?)cid:(?P<name>[^"'\s>]+)(?P=quote)"""
    return re.sub(pattern, replace, html, flags=re.IGNORECASE)


def mail_html(message: email.message.Message) -> str:
    """The HTML part of a mail, its inline pictures (parts with a Content-ID) made
    ``data:`` URIs: what a mail program shows, ready for ``Browser.open``."""
    html: str | None = None
    images: dict[str, tuple[str, bytes]] = {}
    for part in message.walk():
        if part.is_multipart():
            continue
        content_id = part.get("Content-ID")
        if part.get_content_type() == "text/html" and html is None and not part.get_filename():
            payload = part.get_payload(decode=True) or b""
            html = payload.decode(part.get_content_charset() or "utf-8", errors="replace")
        elif content_id:
            images[content_id] = (part.get_content_type(), part.get_payload(decode=True) or b"")
    if html is None:
        raise ValueError("the mail has no text/html part")
    return inline_cid_images(html, images)


class BrowserError(RuntimeError):
    pass


_started: weakref.WeakSet[Browser] = weakref.WeakSet()


@atexit.register
def _stop_leftovers() -> None:
    for instance in list(_started):
        instance.stop()


class Browser:
    """One headless Chromium (see the module doc). ``start()`` or ``with Browser() as b``;
    ``startup_seconds`` is how long the start took."""

    def __init__(self, chromium: str | None = None, chromedriver: str | None = None, load_timeout: float = 120.0) -> None:
        self.chromium = chromium
        self.chromedriver = chromedriver
        self.load_timeout = load_timeout
        self.startup_seconds: float | None = None
        self.directory: Path | None = None
        self._driver: WebDriver | None = None
        self._page: Page | None = None

    # -- life cycle ---------------------------------------------------------------

    def start(self) -> None:
        if self._driver is not None:
            raise BrowserError("the browser is already running")
        started = time.monotonic()
        chromium = self.chromium or chromium_binary()
        chromedriver = self.chromedriver or chromedriver_binary()
        if chromium is None or chromedriver is None:
            raise BrowserError(browser_missing() or "chromium or chromedriver not found")
        from selenium import webdriver
        from selenium.common.exceptions import WebDriverException
        from selenium.webdriver.chrome.options import Options
        from selenium.webdriver.chrome.service import Service

        self.directory = Path(tempfile.mkdtemp(prefix="pbem-browser-"))
        _started.add(self)
        options = Options()
        options.binary_location = chromium
        for flag in CHROMIUM_FLAGS:
            options.add_argument(flag)
        options.add_argument(f"--user-data-dir={self.directory / 'profile'}")
        # An explicit driver path: Selenium skips Selenium Manager (which would look for a driver online).
        service = Service(executable_path=chromedriver, log_output=str(self.directory / "chromedriver.log"))
        try:
            self._driver = webdriver.Chrome(options=options, service=service)
        except WebDriverException as exc:
            log = self._log_tail()
            self.stop()
            raise BrowserError(f"Chromium did not start ({chromium}, {chromedriver}): {exc.msg}\n{log}") from exc
        except BaseException:
            self.stop()
            raise
        self._driver.set_page_load_timeout(self.load_timeout)
        self.startup_seconds = time.monotonic() - started

    def stop(self) -> None:
        _started.discard(self)
        self._page = None
        driver, self._driver = self._driver, None
        if driver is not None:
            try:
                driver.quit()
            except Exception:  # noqa: BLE001 - a crashed browser is stopped too
                pass
        directory, self.directory = self.directory, None
        if directory is not None:
            shutil.rmtree(directory, ignore_errors=True)

    def __enter__(self) -> Browser:
        if self._driver is None:
            self.start()
        return self

    def __exit__(self, *exc_info: object) -> None:
        self.stop()

    @property
    def driver(self) -> WebDriver:
        """The Selenium WebDriver, for what Page does not offer."""
        if self._driver is None:
            raise BrowserError("the browser is not running (start() it, or use it as a context manager)")
        return self._driver

    def _log_tail(self, lines: int = 20) -> str:
        if self.directory is None:
            return ""
        try:
            text = (self.directory / "chromedriver.log").read_text(errors="replace")
        except OSError:
            return ""
        return "--- tail of chromedriver.log ---\n" + "\n".join(text.splitlines()[-lines:])

    # -- pages ----------------------------------------------------------------------

    def open(self, html: str | Path, width: int, height: int = 900, *, mobile: bool = False) -> Page:
        """Show ``html`` (a string of HTML, or the Path of a file) in a viewport of
        ``width`` x ``height`` CSS pixels, scrolled to the top, once it has loaded (images
        and fonts too). The page before it is gone; its Page object raises."""
        driver = self.driver
        if isinstance(html, Path):
            url = html.resolve().as_uri()
        else:
            assert self.directory is not None
            path = self.directory / f"page-{next(_page_numbers)}.html"
            path.write_text(html, encoding="utf-8")
            url = path.as_uri()
        self._page = None
        driver.execute_cdp_cmd("Emulation.setDeviceMetricsOverride", {
            "width": width, "height": height, "deviceScaleFactor": 1, "mobile": mobile,
            "screenWidth": width, "screenHeight": height,
        })
        started = time.monotonic()
        driver.get(url)
        driver.execute_async_script("const done = arguments[arguments.length - 1]; document.fonts.ready.then(() => done());")
        driver.execute_script("window.scrollTo(0, 0);")
        page = Page(self, url, width, height, mobile, time.monotonic() - started)
        self._page = page
        return page


# Scripts run in the page. Each text node holding ``text`` gives the box of that text itself (a <pre> wider than
# the screen may still show a short word whole); text split over several nodes ("Score: <b>12</b>") gives the
# box of the innermost elements holding it.
_TEXT_BOXES = """
const text = arguments[0];
const squash = s => s.replace(/\\s+/g, ' ');
const wanted = squash(text);
const shown = element => element && element.checkVisibility({opacityProperty: true, visibilityProperty: true});
const box = (rect, how) => ({top: rect.top, left: rect.left, bottom: rect.bottom, right: rect.right,
                             width: rect.width, height: rect.height, how: how});
const boxes = [];
const walker = document.createTreeWalker(document.body || document.documentElement, NodeFilter.SHOW_TEXT);
for (let node = walker.nextNode(); node; node = walker.nextNode()) {
  let from = node.data.indexOf(text);
  while (from >= 0) {
    if (shown(node.parentElement)) {
      const range = document.createRange();
      range.setStart(node, from);
      range.setEnd(node, from + text.length);
      const rect = range.getBoundingClientRect();
      if (rect.width > 0 && rect.height > 0) boxes.push(box(rect, 'text'));
    }
    from = node.data.indexOf(text, from + 1);
  }
}
if (boxes.length === 0) {
  const holders = [...(document.body || document.documentElement).querySelectorAll('*')]
    .filter(e => squash(e.textContent).includes(wanted));
  for (const e of holders) {
    if ([...e.children].some(c => squash(c.textContent).includes(wanted)) || !shown(e)) continue;
    const rect = e.getBoundingClientRect();
    if (rect.width > 0 && rect.height > 0) boxes.push(box(rect, 'element'));
  }
}
return boxes;
"""

_BROKEN_IMAGES = """
return [...document.images]
  .filter(img => !img.complete || img.naturalWidth === 0)
  .map(img => img.currentSrc || img.getAttribute('src') || '(no src)');
"""


class Page:
    """What ``Browser.open`` shows: measurements and a screenshot. Lengths are CSS pixels."""

    def __init__(self, browser: Browser, url: str, width: int, height: int, mobile: bool, load_seconds: float) -> None:
        self.browser = browser
        self.url = url
        self.width = width
        self.height = height
        self.mobile = mobile
        self.load_seconds = load_seconds

    def js(self, script: str, *args: Any) -> Any:
        """Run ``script`` (a function body: ``return ...``) in the page."""
        if self.browser._page is not self:
            raise BrowserError("this page was replaced by a later Browser.open()")
        return self.browser.driver.execute_script(script, *args)

    @property
    def document_width(self) -> int:
        """How wide the document is: the larger scrollWidth of <html> and <body>."""
        return self.js("return Math.max(document.documentElement.scrollWidth, document.body ? document.body.scrollWidth : 0);")

    @property
    def document_height(self) -> int:
        return self.js("return Math.max(document.documentElement.scrollHeight, document.body ? document.body.scrollHeight : 0);")

    @property
    def viewport_width(self) -> int:
        """``window.innerWidth``: the ``width`` asked for (unless ``mobile`` zooms out)."""
        return self.js("return window.innerWidth;")

    @property
    def viewport_height(self) -> int:
        return self.js("return window.innerHeight;")

    @property
    def scrolls_horizontally(self) -> bool:
        return self.document_width > self.viewport_width

    @property
    def viewport_meta(self) -> str | None:
        """The content of the page's ``<meta name="viewport">``, None without one."""
        return self.js("const m = document.querySelector('meta[name=\"viewport\" i]'); return m ? m.content : null;")

    def text_boxes(self, text: str) -> list[dict[str, Any]]:
        """The boxes (top, left, bottom, right, width, height, and how: "text" or
        "element") in which ``text`` is shown, relative to the top of the first screen."""
        return self.js(_TEXT_BOXES, text)

    def visible_without_scrolling(self, text: str) -> bool:
        """Whether ``text`` is shown on the first screen: some box of it starts above the
        bottom of the viewport (and not above its top) and lies wholly within its width."""
        width, height = self.js("return [window.innerWidth, window.innerHeight];")
        return any(b["top"] >= 0 and b["top"] < height and b["left"] >= 0 and b["right"] <= width
                   for b in self.text_boxes(text))

    def count(self, css_selector: str) -> int:
        return self.js("return document.querySelectorAll(arguments[0]).length;", css_selector)

    def broken_images(self) -> list[str]:
        """The sources of the <img> elements that did not load (a ``cid:`` source never does)."""
        return self.js(_BROKEN_IMAGES)

    def images_loaded(self) -> bool:
        """Whether every <img> has loaded a picture (complete, naturalWidth > 0)."""
        return not self.broken_images()

    def screenshot(self, path: str | Path) -> Path:
        """Write a PNG of the whole page (beyond the viewport, to the right as well as
        down) to ``path``; returns the path."""
        if self.browser._page is not self:
            raise BrowserError("this page was replaced by a later Browser.open()")
        result = self.browser.driver.execute_cdp_cmd(
            "Page.captureScreenshot", {"format": "png", "captureBeyondViewport": True})
        path = Path(path)
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_bytes(base64.b64decode(result["data"]))
        return path

    def __repr__(self) -> str:
        return f"<Page {self.url} at {self.width}x{self.height}{' mobile' if self.mobile else ''}>"
