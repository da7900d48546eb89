"""Issue 18: the archive's web site in a real browser (headless Chromium, ``pbem_testing.browser``), from the
file system (file:// URLs) as a reader who downloaded the folder would open it.

The archive holds three finished games (two of Fifth Avenue, of two players each, and a Manhattan of three)
and a running Fifth Avenue, played once for the module through the game service (``pbem_testing.archive_games``),
built with ``pbem.archive.site.build``. In the browser:

- the index filters by a player (only their games stay) and sorts by the game number;
- a game page steps through the game: first, next, back, the slider, the arrow keys and #step-N in the
  address each show one step, whose event words and board are the ones ``history.record`` gives for it;
  the score chart is there with a line per player;
- without JavaScript the game page lists every step and the index every row, with no stepper or filters;
- every page is no wider than a phone's 390 px, and no page shows a hand of the running game (except the
  finished games' pages, whose own hands may by chance read the same, are not searched).

Screenshots go to ``screenshot_dir() / "archive"`` (printed with their paths). Without Chromium these tests are
skipped, and fail under CI=true (the ``browser`` fixture).
"""

from __future__ import annotations

import itertools
import shutil
from collections.abc import Iterator
from dataclasses import dataclass
from datetime import UTC, datetime, timedelta
from pathlib import Path

import pytest

from pbem.archive import history
from pbem.archive.records import GameRecord
from pbem.archive.site import build
from pbem.games import get_game
from pbem.services.table.service import GameService
from pbem.store.db import make_engine
from pbem_testing.archive_games import Setup, play, random_commands
from pbem_testing.browser import (
    DESKTOP_WIDTH,
    PHONE_WIDTH,
    Browser,
    Page,
    screenshot_dir,
)

pytestmark = pytest.mark.xdist_group("archive_in_a_browser")  # its module-scoped fixtures are made once, on one worker

ANN, BOB, CY, DEE = (("Annabel", "ann@example.org"), ("Bartholomew", "bob@example.org"),
                     ("Cyrus", "cy@example.org"), ("Delphine", "dee@example.org"))
START = datetime(2026, 3, 1, 9, 0, tzinfo=UTC)
RUNNING = Setup("fifth-avenue", (CY, DEE), seed=2, commands=30)
SETUPS = [Setup("fifth-avenue", (ANN, BOB), seed=0), Setup("manhattan", (ANN, BOB, CY), seed=5),
          Setup("fifth-avenue", (BOB, DEE), seed=8), RUNNING]
RUNNING_ID = 4


@dataclass
class Archive:
    folder: Path
    records: dict[int, GameRecord]
    running_hands: set[str]
    keys: dict[str, str]  # a player's address -> their key in this installation


def hands_seen(setup: Setup) -> set[str]:
    """Every hand of every seat at every point the game reached (``hand_text`` of each seat's view)."""
    module = get_game(setup.kind)
    state = module.new_game(players=len(setup.players), seed=setup.seed)
    seats = range(len(setup.players))
    hands = {module.hand_text(state.view(seat)) for seat in seats}
    for seat, command in random_commands(setup.kind, len(setup.players), setup.seed)[:setup.commands]:
        state.apply_command(seat, command)
        hands |= {module.hand_text(state.view(viewer)) for viewer in seats}
    return hands


@pytest.fixture(scope="module")
def archive(sqlite_template: Path, tmp_path_factory: pytest.TempPathFactory) -> Iterator[Archive]:
    folder = tmp_path_factory.mktemp("archive-in-a-browser")
    shutil.copy(sqlite_template, folder / "games.sqlite3")
    engine = make_engine(f"sqlite:///{folder / 'games.sqlite3'}")
    minutes = itertools.count()
    service = GameService(engine, clock=lambda: START + timedelta(minutes=next(minutes)))
    for setup in SETUPS:
        play(service, setup)
    report = build(engine, folder / "site")
    print(f"site of {len(SETUPS)} games built in {report.seconds:.2f} s ({report.steps} steps)")
    records = {game_id: history.record(engine, game_id) for game_id in (1, 2)}
    keys = {address: history.player_key(engine, address) for setup in SETUPS for _, address in setup.players}
    engine.dispose()
    yield Archive(folder / "site", records, hands_seen(RUNNING), keys)


@pytest.fixture(scope="module")
def shots() -> Path:
    folder = screenshot_dir() / "archive"
    folder.mkdir(parents=True, exist_ok=True)
    for old in folder.glob("*.png"):  # only this run's pages
        old.unlink()
    return folder


def screenshot(page: Page, shots: Path, name: str) -> None:
    print(f"screenshot of {name} at {page.width} px: {page.screenshot(shots / f'{name}-{page.width}.png')}")


def follow(browser: Browser, css_selector: str) -> None:
    """Click the element and wait for the page it leads to."""
    from selenium.webdriver.common.by import By
    from selenium.webdriver.support.wait import WebDriverWait

    driver = browser.driver
    old = driver.find_element(By.TAG_NAME, "html")
    driver.find_element(By.CSS_SELECTOR, css_selector).click()
    WebDriverWait(driver, 10).until(lambda d: d.find_element(By.TAG_NAME, "html") != old
                                    and d.execute_script("return document.readyState") == "complete")


def click(browser: Browser, css_selector: str) -> None:
    from selenium.webdriver.common.by import By

    browser.driver.find_element(By.CSS_SELECTOR, css_selector).click()


_SHOWN_STEP = """
const shown = [...document.querySelectorAll('.step')].filter(s => s.checkVisibility());
const text = e => e ? e.textContent.replace(/\\s+/g, ' ').trim() : '';
return {shown: shown.map(s => s.id), hash: location.hash,
        slider: document.querySelector('.stepper input[type=range]').value,
        label: text(document.querySelector('.stepper output')),
        words: shown.length ? text(shown[0].querySelector('.event')) : '',
        board: shown.length ? text(shown[0].querySelector('.board')) : ''};
"""
_TEXT_OF_HTML = """
const holder = document.createElement('div');
holder.innerHTML = arguments[0];
return holder.textContent.replace(/\\s+/g, ' ').trim();
"""


def assert_shows(page: Page, record: GameRecord, number: int) -> None:
    """The page shows step ``number`` alone, with the words and the board ``history.record`` has for it."""
    shown = page.js(_SHOWN_STEP)
    step = record.steps[number]
    assert shown["shown"] == [f"step-{number}"], shown["shown"]
    assert shown["slider"] == str(number) and shown["label"] == f"Step {number} of {len(record.steps) - 1}", shown
    assert all(" ".join(words.split()) in shown["words"] for words in step.words), (step.words, shown["words"])
    assert shown["board"] == page.js(_TEXT_OF_HTML, step.board_html)


_UNDER_THE_STEPPER = """
const bar = document.querySelector('.stepper').getBoundingClientRect();
const head = document.getElementById(arguments[0] + '-head').getBoundingClientRect();
return {bar_bottom: bar.bottom, head_top: head.top, gap: head.top - bar.bottom};
"""


def assert_not_under_the_stepper(page: Page, number: int) -> None:
    """The heading of step ``number``, jumped to, shows below the sticky stepper (issue 35: it was covered)."""
    found = page.js(_UNDER_THE_STEPPER, f"step-{number}")
    print(f"step {number} at {page.width} px: its heading {found['gap']:.0f} px below the stepper")
    assert 0 <= found["gap"] <= 40, found


def test_the_index_filters_by_a_player_and_sorts(browser: Browser, archive: Archive, shots: Path) -> None:
    page = browser.open(archive.folder / "index.html", width=DESKTOP_WIDTH)
    visible_games = "return [...document.querySelectorAll('[data-games] tbody tr')].filter(r => !r.hidden)" \
                    ".map(r => Number(r.cells[0].dataset.value));"
    assert page.js(visible_games) == [4, 3, 2, 1]  # newest first
    assert page.js("return document.querySelector('[data-filters]').hidden") is False
    key = archive.keys[CY[1]]
    page.js("const s = document.querySelector('select[name=player]'); s.value = arguments[0];"
            "s.dispatchEvent(new Event('change', {bubbles: true}));", key)
    assert page.js(visible_games) == [4, 2]  # Cyrus's games
    assert "2 of 4 games" in page.js("return document.querySelector('[data-filters] output').textContent")
    screenshot(page, shots, "index-filtered")
    page.js("const s = document.querySelector('select[name=player]'); s.value = '';"
            "s.dispatchEvent(new Event('change', {bubbles: true}));")
    click(browser, "[data-games] thead th:first-child button")
    assert page.js(visible_games) == [1, 2, 3, 4]
    assert page.js("return document.querySelector('[data-games] thead th').getAttribute('aria-sort')") == "ascending"
    click(browser, "[data-games] thead th:first-child button")
    assert page.js(visible_games) == [4, 3, 2, 1]


def test_a_game_steps_through_its_events(browser: Browser, archive: Archive, shots: Path) -> None:
    from selenium.webdriver.common.by import By
    from selenium.webdriver.common.keys import Keys

    page = browser.open(archive.folder / "index.html", width=DESKTOP_WIDTH)
    follow(browser, "a[href='games/1.html']")
    record = archive.records[1]
    last = len(record.steps) - 1
    assert page.js("return location.pathname").endswith("/games/1.html")
    assert_shows(page, record, last)  # a game opens at its last step
    chart = page.js("const svg = document.querySelector('svg.chart-drawing'); return svg && "
                    "{lines: svg.querySelectorAll('polyline').length, title: svg.querySelector('title').textContent,"
                    " width: svg.getBoundingClientRect().width};")
    assert chart and chart["lines"] == 2 and chart["title"] == "Scores over game 1" and chart["width"] > 300, chart

    click(browser, "[data-go=first]")
    assert_shows(page, record, 0)
    assert page.js("return document.querySelector('[data-go=previous]').disabled") is True
    screenshot(page, shots, "game-1-step-0")
    click(browser, "[data-go=next]")
    assert_shows(page, record, 1)
    assert page.js("return location.hash") == "#step-1"
    click(browser, "[data-go=next]")
    assert_shows(page, record, 2)
    click(browser, "[data-go=previous]")
    assert_shows(page, record, 1)
    page.js("const r = document.querySelector('.stepper input[type=range]'); r.value = 40;"
            "r.dispatchEvent(new Event('input', {bubbles: true}));")
    assert_shows(page, record, 40)
    browser.driver.find_element(By.TAG_NAME, "body").send_keys(Keys.ARROW_RIGHT)
    assert_shows(page, record, 41)
    screenshot(page, shots, "game-1-step-41")
    click(browser, "[data-go=last]")
    assert_shows(page, record, last)
    assert page.js("return document.querySelector('[data-go=next]').disabled") is True

    browser.driver.get(page.js("return location.href.split('#')[0]") + "#step-7")  # a link to one step
    assert_shows(page, record, 7)
    assert_not_under_the_stepper(page, 7)
    page.js("location.hash = '#step-12'")  # a link within the page
    assert_shows(page, record, 12)
    assert_not_under_the_stepper(page, 12)
    manhattan = archive.records[2]
    page = browser.open(archive.folder / "games" / "2.html", width=PHONE_WIDTH)
    assert_shows(page, manhattan, len(manhattan.steps) - 1)
    click(browser, "[data-go=first]")
    click(browser, "[data-go=next]")
    assert_shows(page, manhattan, 1)
    screenshot(page, shots, "game-2-step-1")
    browser.driver.get("about:blank")
    browser.driver.get((archive.folder / "games" / "2.html").resolve().as_uri() + "#step-9")  # opened at a step
    assert_shows(page, manhattan, 9)
    assert_not_under_the_stepper(page, 9)  # at 390 px the stepper's buttons take two lines


def test_without_javascript_every_step_and_every_game_shows(browser: Browser, archive: Archive) -> None:
    driver = browser.driver
    driver.execute_cdp_cmd("Emulation.setScriptExecutionDisabled", {"value": True})
    try:
        page = browser.open(archive.folder / "games" / "1.html", width=DESKTOP_WIDTH)
        steps = page.js("return [...document.querySelectorAll('.step')].filter(s => s.checkVisibility()).length;")
        assert steps == len(archive.records[1].steps)
        assert page.js("return document.querySelector('[data-stepper]').checkVisibility()") is False
        page = browser.open(archive.folder / "index.html", width=DESKTOP_WIDTH)
        assert page.js("return [...document.querySelectorAll('[data-games] tbody tr')]"
                       ".filter(r => r.checkVisibility()).length;") == len(SETUPS)
        assert page.js("return document.querySelector('[data-filters]').checkVisibility()") is False
    finally:
        driver.execute_cdp_cmd("Emulation.setScriptExecutionDisabled", {"value": False})


def test_every_page_fits_a_phone_and_shows_no_hand_of_a_running_game(browser: Browser, archive: Archive,
                                                                       shots: Path) -> None:
    finished_pages = {archive.folder / "games" / f"{game_id}.html" for game_id in (1, 2, 3)}
    problems = []
    for path in sorted(archive.folder.rglob("*.html")):
        name = path.relative_to(archive.folder).as_posix()
        page = browser.open(path, width=PHONE_WIDTH)
        if page.scrolls_horizontally:
            problems.append(f"{name}: {page.document_width} px wide at {PHONE_WIDTH} px")
        if path not in finished_pages:
            text = page.js("return document.documentElement.textContent;")
            problems += [f"{name}: a hand of the running game: {hand}" for hand in archive.running_hands if hand in text]
        if not name.startswith("players/") or name.endswith(f"{archive.keys[CY[1]]}.html"):
            screenshot(page, shots, name.replace("/", "-").removesuffix(".html"))
    running = browser.open(archive.folder / "games" / f"{RUNNING_ID}.html", width=PHONE_WIDTH)
    assert running.count(".step") == RUNNING.commands + 1 and running.count(".hands") == 0
    assert not problems, "\n".join(problems)
