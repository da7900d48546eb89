"""The HTML part of real game mails in a real browser ("Boards that read on every screen", point 3).

Four seeded games are played to their end through the service on SQLite, once for the module: Fifth
Avenue with 4 players on the back side of the board, Fifth Avenue with 2 players and the robot on the front
side, Manhattan with 2 players (two colors each) and with 4. From the mails they queue, a set is chosen by
what each mail is, never by its index: the first mail of the game; the first mail of every kind of decision a
player is asked (the decision's context, ``decision_key`` up to its first colon, and the commands it asks
for: Fifth Avenue's placement, choice of an action, cards, commissioner move, bid and build; Manhattan's
choice of parts and card play); an auction with a bid on the table, the robot's draw (2 players); the first
mail after a building stop (Fifth Avenue) or after a round was scored (Manhattan); the end of the game.
``test_the_set_of_mails_covers_what_the_issue_asks`` fails when a kind is missing, so the set cannot shrink
without notice.

Each mail is sent through ``outbox_sender.build_message`` as the worker would build it, and its HTML part
(``mail_html``: inline pictures made ``data:`` URIs) is opened in headless Chromium at 390 px (a phone) and at
900 px (a desktop) wide, where: the document is no wider than the viewport (no sideways scrolling); at 900 px
the decision sentence (the text part's, shown in bold in the highlighted box) is wholly on the first screen;
at 390 px the first 700 px hold the decision with its deadline and example, a bid mail's bids so far, high bid
and the reader's cards that can bid, and the last mail's final scores and winner (issue 35, point 2;
``first_screen_parts``, measured with getBoundingClientRect);
every Fifth Avenue place (City Hall, the districts, Central Park) or Manhattan city is there once; every
picture loaded. A screenshot of each mail at each width goes to ``screenshot_dir() / "mails"`` (printed with
its path; look at them, nothing compares them pixel by pixel). The places are found by the class ``place``
(kept through the CSS inlining for the @media rules) and their headings; Manhattan's cities, which keep no
class or attribute, as an element holding just the city's name followed by its 3x3 grid of sites.

``test_every_mail_with_a_board_carries_its_picture``: each of those mails carries a picture of the board, one
``<img src="cid:...">`` matched by an image/png part of the message, that loads, has an alt text, and weighs
at most 80 KB.

Without Chromium these tests are skipped, and fail under CI=true (the ``browser`` fixture).
"""

from __future__ import annotations

import email.message
import re
import shutil
import time
from dataclasses import dataclass, field
from datetime import datetime, timezone
from functools import cached_property
from html.parser import HTMLParser
from pathlib import Path
from typing import Any, Iterator

import pytest
from sqlmodel import Session, select

from pbem.adapters.outbox_sender import build_message
from pbem.games import get_game
from pbem.games.fifth_avenue.board import load_board as load_fifth_avenue_board
from pbem.games.manhattan.board import load_board as load_manhattan_board
from pbem.games.rng import Rng
from pbem.services.table.service import GameService
from pbem.services.offline.simulate import choose
from pbem.store.db import make_engine
from pbem.store.models import OutboxMail
from pbem_testing.browser import DESKTOP_WIDTH, PHONE_WIDTH, Browser, Page, mail_html, screenshot_dir
from pbem_testing.link_shapes import read_mailto

pytestmark = pytest.mark.xdist_group("mails_in_a_browser")  # its module-scoped fixtures are made once, on one worker

WIDTHS = (PHONE_WIDTH, DESKTOP_WIDTH)
SENDER = "game@example.test"
NOON = datetime(2026, 11, 22, 12, 0, tzinfo=timezone.utc)  # a fixed clock: the same deadlines in every run
MAX_PICTURE_BYTES = 80 * 1024
# Names as long as real ones get: the tables must still fit a phone with four of them.
LONG_NAMES = [("Annabelle", "ann@example.org"), ("Bartholomew", "bob@example.org"),
              ("Cornelia", "cy@example.org"), ("Desmond", "dee@example.org")]
SHORT_NAMES = [("Ann", "ann@example.org"), ("Bob", "bob@example.org")]


@dataclass(frozen=True)
class Setup:
    label: str  # names the game in screenshots and messages
    kind: str
    names: list[tuple[str, str]]
    seed: int
    options: dict[str, Any] = field(default_factory=dict)


GAMES = [
    Setup("fifth-avenue-4p-back", "fifth-avenue", LONG_NAMES, seed=9, options={"back_side": True}),
    Setup("fifth-avenue-2p-robot", "fifth-avenue", SHORT_NAMES, seed=0),
    Setup("manhattan-2p", "manhattan", SHORT_NAMES, seed=11),
    Setup("manhattan-4p", "manhattan", LONG_NAMES, seed=13),
]
LABELS = [game.label for game in GAMES]

# What the set must hold for each game: the decision kinds (see ``decision_kind``) and the other roles.
FIFTH_AVENUE_KINDS = {"placement/place", "turn/action", "turn/cards", "turn/move", "auction/bid+pass", "build/build"}
MANHATTAN_KINDS = {"choose/choose", "build/play"}
FIFTH_AVENUE_ROLES = {"start", "auction-with-a-bid", "after-a-building-stop", "end"}
MANHATTAN_ROLES = {"start", "after-a-round-scored", "end"}


@dataclass
class Chosen:
    """One mail of the set and the roles it plays in it."""
    game: Setup
    mail: OutboxMail
    roles: list[str]

    @cached_property
    def message(self) -> email.message.Message:
        """The mail as the sender builds it (a mail it cannot build fails the tests that look at it, alone)."""
        return build_message(self.mail, SENDER, "")

    @cached_property
    def html(self) -> str:
        """Its HTML part as a mail program shows it: the cid: pictures as data: URIs."""
        return mail_html(self.message)

    @property
    def name(self) -> str:
        return f"{self.game.label}-{self.mail.id:03d}-{'+'.join(self.roles)}"

    def __str__(self) -> str:
        return f"mail {self.mail.id} of {self.game.label} ({', '.join(self.roles)}) to {self.mail.recipient}"


@dataclass
class Played:
    setup: Setup
    mails: list[OutboxMail]
    chosen: list[Chosen]
    seconds: float


# --------------------------------------------------------------------------- what a mail is


SHAPES = re.compile(r"^Commands you may send now \(<a\|b> means a or b\):\n((?:  .+\n)+)", re.M)


def asked_commands(text: str) -> list[str]:
    """The first words of the command shapes a mail asking a decision lists (a wrapped shape's continuation
    lines start deeper)."""
    found = SHAPES.search(text)
    assert found, f"a decision mail without its commands:\n{text[:800]}"
    return [line.split()[0] for line in found.group(1).splitlines() if not line.startswith("      ")]


def decision_kind(mail: OutboxMail) -> str | None:
    """The kind of decision a mail asks, as "context/commands": the context is ``decision_key`` up to its first
    colon (placement, turn, auction, build, choose), the commands the first words of the shapes it lists, Fifth
    Avenue's actions A to D as "action" ("turn/action", "turn/cards", "auction/bid+pass", "build/play"). None
    for a mail that asks nothing."""
    if mail.decision is None:
        return None
    context = mail.decision_key.split(":")[0]
    assert context and mail.decision_words, f"mail {mail.id} asks decision {mail.decision} without its context"
    verbs = sorted({"action" if verb in ("A", "B", "C", "D") else verb for verb in asked_commands(mail.text_body)})
    return f"{context}/{'+'.join(verbs)}"


def role_of_kind(kind: str) -> str:
    return "asks-" + kind.replace("/", "-").replace("+", "-")


def decision_sentence(mail: OutboxMail) -> str:
    """The sentence under the preview that says what to send (the text part's second paragraph, without its
    example): what the HTML part shows in bold in the highlighted box."""
    paragraphs = [" ".join(p.split()) for p in mail.text_body.split("\n\n")]
    sentence = paragraphs[1].split("For example: ")[0].strip()
    assert sentence, f"no decision sentence in mail {mail.id}:\n{mail.text_body[:800]}"
    return sentence


def roles_of(setup: Setup, mails: list[OutboxMail]) -> dict[int, list[str]]:
    """Mail id -> the roles it plays in the set: the first mail of the game, of each decision kind, and of
    each other kind of mail the issue names."""
    def first(role: str, test) -> None:  # type: ignore[no-untyped-def]
        mail = next((m for m in mails if test(m)), None)
        if mail is not None:
            roles.setdefault(mail.id, []).append(role)

    roles: dict[int, list[str]] = {}
    first("start", lambda m: True)
    kinds = list(dict.fromkeys(k for k in map(decision_kind, mails) if k is not None))
    for kind in kinds:
        first(role_of_kind(kind), lambda m, kind=kind: decision_kind(m) == kind)
    if setup.kind == "fifth-avenue":
        first("auction-with-a-bid", lambda m: decision_kind(m) == "auction/bid+pass"
              and re.search(r"^ *High bid: \d+ by ", m.text_body, re.M))
        first("after-a-building-stop", lambda m: re.search(r"\bdeclared a building stop\b", m.text_body))
        if len(setup.names) == 2:
            first("robot-drew-black", lambda m: "the robot drew black" in m.text_body.lower())
    else:
        first("after-a-round-scored", lambda m: re.search(r"^Scoring of round \d+:", m.text_body, re.M))
    first("end", lambda m: m.text_body.startswith("Game over: "))
    return roles


# --------------------------------------------------------------------------- the games, once for the module


def random_commands(setup: Setup) -> list[tuple[int, str]]:
    """(seat, command) of a whole game with the engine's by-kind random player (``services.offline.simulate``)."""
    state = get_game(setup.kind).new_game(players=len(setup.names), seed=setup.seed, **setup.options)
    rng = Rng(setup.seed)
    played = []
    while not state.is_terminal():
        assert len(played) < 5000, f"{setup.label} does not end"
        action = choose(state.legal_actions(), rng, "by-kind")
        seat = state.current_player()
        state.apply_action(seat, action)
        played.append((seat, str(action)))
    return played


def play(engine, setup: Setup) -> Played:  # type: ignore[no-untyped-def]
    started = time.monotonic()
    service = GameService(engine, clock=lambda: NOON)
    game = service.create_game(setup.kind, setup.names, seed=setup.seed, options=dict(setup.options))
    for seat, command in random_commands(setup):  # one command a mail: every decision mails its player
        service.submit(game, setup.names[seat][1], command)
    assert service.get(game).over, setup.label
    with Session(engine) as s:
        mails = list(s.exec(select(OutboxMail).where(OutboxMail.game_id == game).order_by(OutboxMail.id)).all())
    roles = roles_of(setup, mails)
    chosen = [Chosen(setup, mail, roles[mail.id]) for mail in mails if mail.id in roles]
    return Played(setup, mails, chosen, time.monotonic() - started)


@pytest.fixture(scope="module")
def games(sqlite_template: Path, tmp_path_factory: pytest.TempPathFactory) -> Iterator[dict[str, Played]]:
    path = tmp_path_factory.mktemp("mails-in-a-browser") / "games.sqlite3"
    shutil.copy(sqlite_template, path)
    engine = make_engine(f"sqlite:///{path}")
    played = {setup.label: play(engine, setup) for setup in GAMES}
    engine.dispose()
    for game in played.values():
        print(f"{game.setup.label}: {len(game.mails)} mails, {len(game.chosen)} chosen, played in {game.seconds:.2f} s")
    yield played


@pytest.fixture(scope="module")
def shots() -> Path:
    folder = screenshot_dir() / "mails"
    folder.mkdir(parents=True, exist_ok=True)
    for old in folder.glob("*.png"):  # only this run's mails, so an old name never passes for a new one
        old.unlink()
    return folder


# --------------------------------------------------------------------------- the set covers the issue's list


@pytest.mark.parametrize("label", LABELS)
def test_the_set_of_mails_covers_what_the_issue_asks(games: dict[str, Played], label: str) -> None:
    game = games[label]
    roles = {role for chosen in game.chosen for role in chosen.roles}
    kinds = {k for k in map(decision_kind, game.mails) if k is not None}
    fifth_avenue = game.setup.kind == "fifth-avenue"
    want_kinds, want_roles = (FIFTH_AVENUE_KINDS, FIFTH_AVENUE_ROLES) if fifth_avenue else (MANHATTAN_KINDS,
                                                                                             MANHATTAN_ROLES)
    assert want_kinds <= kinds, f"{label}: decision kinds {sorted(kinds)} lack {sorted(want_kinds - kinds)}"
    assert want_roles <= roles, f"{label}: no mail for {sorted(want_roles - roles)}"
    assert {role_of_kind(kind) for kind in kinds} <= roles  # the first mail of each kind is in the set
    assert len(game.chosen) >= (8 if fifth_avenue else 4), [str(c) for c in game.chosen]
    by_role = {role: chosen for chosen in game.chosen for role in chosen.roles}
    first = by_role["start"]
    assert first.mail.id == game.mails[0].id and first.mail.decision == 0, str(first)
    assert by_role["end"].mail.text_body.startswith("Game over: ") and by_role["end"].mail.decision is None
    if fifth_avenue:
        assert "Building stop: out of play" in by_role["after-a-building-stop"].mail.html_body  # the board shows it
        assert re.search(r"<h3[^>]*>Auction for ", by_role["auction-with-a-bid"].mail.html_body)
        assert 'class="mine"' in by_role["auction-with-a-bid"].mail.html_body  # its first screen is measured
        if len(game.setup.names) == 2:
            assert "robot-drew-black" in roles
    else:
        assert re.search(r"<h3[^>]*>Scoring of round \d+", by_role["after-a-round-scored"].mail.html_body)


def test_both_sides_of_the_fifth_avenue_board_and_both_sizes_of_manhattan_are_there(
        games: dict[str, Played]) -> None:
    header = re.compile(r"<h2[^>]*>((?:Fifth Avenue|Manhattan): [^<]*)</h2>")
    headers = {label: header.search(game.chosen[0].mail.html_body or "").group(1) for label, game in games.items()}
    assert headers["fifth-avenue-4p-back"].startswith("Fifth Avenue: 4 players, back side")
    assert headers["fifth-avenue-2p-robot"].startswith("Fifth Avenue: 2 players, front side")
    assert headers["manhattan-2p"].startswith("Manhattan: 2 players")
    assert headers["manhattan-4p"].startswith("Manhattan: 4 players")


# --------------------------------------------------------------------------- in the browser


_PLACES = """
return [...document.querySelectorAll('.place')].map(p => {
  const head = p.querySelector('th');
  const r = p.getBoundingClientRect();
  return {head: head ? head.textContent.replace(/\\s+/g, ' ').trim() : '',
          left: r.left, right: r.right, width: r.width, height: r.height};
});
"""

# A Manhattan city: an element whose whole text is the city's name, followed by its 3x3 grid of sites.
_CITIES = """
const names = arguments[0];
const found = {};
for (const name of names) found[name] = [];
for (const e of document.body.querySelectorAll('*')) {
  const text = e.textContent.replace(/\\s+/g, ' ').trim();
  if (!(text in found) || e.children.length) continue;
  const grid = e.nextElementSibling;
  if (!grid || grid.tagName !== 'TABLE' || grid.querySelectorAll('td').length !== 9) continue;
  const r = e.parentElement.getBoundingClientRect();
  found[text].push({left: r.left, right: r.right, width: r.width, height: r.height});
}
return found;
"""

# Where an element ends, from the top of the document (None when there is none).
_BOTTOM = """
const e = document.querySelector(arguments[0]);
if (!e) return null;
return e.getBoundingClientRect().bottom + window.scrollY;
"""
FIRST_SCREEN_PX = 700  # of a phone 390 px wide, what shows before any scrolling (issue 35, point 2)


def first_screen_parts(chosen: Chosen) -> dict[str, str]:
    """What must end within the first 700 px at 390 px, by CSS selector: the decision with its deadline and
    example in every mail that asks one; in a bid mail the bids so far with the high bid, and the reader's
    own cards that can bid with the most they can bid; in the mail that ends the game the final scores and
    the winner (services.mail_out.first_screen)."""
    parts = {}
    if chosen.mail.decision is not None:
        parts["the decision, deadline and example"] = ".decision"
    if (decision_kind(chosen.mail) or "").startswith("auction/"):
        parts["the bids so far"] = ".answer table"
        parts["the high bid"] = ".answer p:not(.mine)"
        parts["the reader's cards that can bid"] = ".answer p.mine"
    if chosen.mail.text_body.startswith("Game over: "):
        parts["the final scores and the winner"] = ".answer"
    return parts


_IN_BOLD = """
const wanted = arguments[0];
return [...document.querySelectorAll('strong, b')]
  .filter(e => e.textContent.replace(/\\s+/g, ' ').trim() === wanted).length;
"""


def fifth_avenue_places(back_side: bool) -> list[str]:
    board = load_fifth_avenue_board(back_side)
    return [f"{code} {board.place_names[code]}" for code in ("CH", *board.district_codes, "CP")]


def manhattan_cities() -> list[str]:
    board = load_manhattan_board()
    return [city.name for city in board.cities]


def board_problems(chosen: Chosen, page: Page, where: str) -> list[str]:
    """Every district (Fifth Avenue: City Hall, the districts, Central Park) or city (Manhattan) shown once,
    inside the viewport's width."""
    problems = []
    width = page.viewport_width
    if chosen.game.kind == "fifth-avenue":
        expected = fifth_avenue_places(bool(chosen.game.options.get("back_side")))
        boxes = page.js(_PLACES)
        heads = [box["head"] for box in boxes]
        for place in expected:
            if heads.count(place) != 1:
                problems.append(f"{where}: the place {place!r} is shown {heads.count(place)} times, not once "
                                f"(places shown: {heads})")
        if sorted(heads) != sorted(expected):
            problems.append(f"{where}: places {heads}, expected {expected}")
        if heads and (heads[0] != expected[0] or heads[-1] != expected[-1]):
            problems.append(f"{where}: the places run {heads[0]!r} ... {heads[-1]!r}, not City Hall ... Central Park")
        for box in boxes:
            if box["width"] <= 0 or box["height"] <= 0 or box["left"] < 0 or box["right"] > width:
                problems.append(f"{where}: the place {box['head']!r} is not wholly on screen: {box}")
    else:
        expected = manhattan_cities()
        found = page.js(_CITIES, expected)
        for city in expected:
            boxes = found[city]
            if len(boxes) != 1:
                problems.append(f"{where}: the city {city!r} with its 3x3 grid is shown {len(boxes)} times, not once")
            for box in boxes:
                if box["width"] <= 0 or box["height"] <= 0 or box["left"] < 0 or box["right"] > width:
                    problems.append(f"{where}: the city {city!r} is not wholly on screen: {box}")
    return problems


def sent_html(chosen: Chosen) -> tuple[str | None, list[str]]:
    """The HTML part of the mail as sent, or why there is none."""
    try:
        return chosen.html, []
    except Exception as exc:  # noqa: BLE001 - reported with the mail it belongs to
        return None, [f"{chosen}: build_message or mail_html failed: {type(exc).__name__}: {exc}"]


def mail_problems(browser: Browser, chosen: Chosen, folder: Path) -> list[str]:
    html, problems = sent_html(chosen)
    if html is None:
        return problems
    for width in WIDTHS:
        where = f"{chosen} at {width} px"
        page = browser.open(html, width=width)
        shot = page.screenshot(folder / f"{chosen.name}-{width}.png")
        print(f"screenshot of {where}: {shot}")
        document, viewport = page.document_width, page.viewport_width
        if document > viewport:
            problems.append(f"{where}: the document is {document} px wide in a {viewport} px viewport "
                            f"(it scrolls sideways); see {shot}")
        if width == DESKTOP_WIDTH and chosen.mail.decision is not None:
            sentence = decision_sentence(chosen.mail)
            if page.js(_IN_BOLD, sentence) != 1:
                problems.append(f"{where}: the decision sentence {sentence!r} is not once in bold")
            height = page.viewport_height
            whole = [b for b in page.text_boxes(sentence) if b["bottom"] <= height]
            if not page.visible_without_scrolling(sentence) or not whole:
                problems.append(f"{where}: the decision sentence {sentence!r} is not wholly on the first "
                                f"{height} px (boxes: {page.text_boxes(sentence)}); see {shot}")
        if width == PHONE_WIDTH:
            for what, selector in first_screen_parts(chosen).items():
                bottom = page.js(_BOTTOM, selector)
                if bottom is None or bottom > FIRST_SCREEN_PX:
                    problems.append(f"{where}: {what} ({selector}) ends at {bottom} px, not within the first "
                                    f"{FIRST_SCREEN_PX} px; see {shot}")
                else:
                    print(f"{where}: {what} ends at {bottom:.0f} px")
        problems += board_problems(chosen, page, where)
        problems += tap_problems(chosen, page, where)
        if not page.images_loaded():
            problems.append(f"{where}: pictures that did not load: {[s[:80] for s in page.broken_images()]}")
    return problems


_TAPS = """
return [...document.querySelectorAll('.taps a')].map(a => {
  const r = a.getBoundingClientRect();
  return {text: a.textContent, href: a.href, height: r.height, left: r.left, right: r.right};
});
"""
TAP_PX = 44  # the least height of a target for a thumb (issue 44, point 4)


def tap_problems(chosen: Chosen, page: Page, where: str) -> list[str]:
    """A mail that asks a decision has its answers as links, each a target at least TAP_PX tall within the
    viewport's width with its command written on it (the first line of the body it opens; a More link, the words
    of its group); no other mail has any."""
    taps = page.js(_TAPS)
    if chosen.mail.decision is None:
        return [f"{where}: links to tap in a mail that asks nothing: {taps}"] if taps else []
    if not taps:
        return [f"{where}: no links to tap in a mail that asks a decision"]
    problems = []
    for tap in taps:
        command = read_mailto(tap["href"])[1]["body"].split("\r\n")[0]
        written = tap["text"]
        if written.startswith("More: "):  # a group's link asks for its mail of choices (issue 44, point 1)
            words, _, part = written[len("More: "):].partition(" \u2026")
            written = f"choices {words}" + (f" #{part.split()[0].lstrip('(')}" if part.strip() else "")
        if written != command:
            problems.append(f"{where}: the link {tap['text']!r} opens the command {command!r}")
        if tap["height"] < TAP_PX or tap["left"] < 0 or tap["right"] > page.viewport_width:
            problems.append(f"{where}: the link {tap['text']!r} is {tap['height']:.0f} px tall (at least {TAP_PX}) "
                            f"from {tap['left']:.0f} to {tap['right']:.0f} px")
    print(f"{where}: {len(taps)} links, {min(t['height'] for t in taps):.0f} px tall or more")
    return problems


@pytest.mark.parametrize("label", LABELS)
def test_each_mail_reads_at_a_phones_and_a_desktops_width(browser: Browser, games: dict[str, Played],
                                                          shots: Path, label: str) -> None:
    """No sideways scrolling at 390 and 900 px; at 900 the decision on the first screen; every place or city
    once; the pictures loaded. All mails are looked at before the test fails, with every problem."""
    started = time.monotonic()
    problems = []
    for chosen in games[label].chosen:
        problems += mail_problems(browser, chosen, shots)
    print(f"{label}: {len(games[label].chosen)} mails at {len(WIDTHS)} widths in {time.monotonic() - started:.2f} s")
    assert not problems, "\n".join(problems)


# --------------------------------------------------------------------------- the picture of the board


class _Images(HTMLParser):
    def __init__(self) -> None:
        super().__init__(convert_charrefs=True)
        self.images: list[dict[str, str | None]] = []

    def handle_starttag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        if tag == "img":
            self.images.append(dict(attrs))


def images_of(html: str) -> list[dict[str, str | None]]:
    parser = _Images()
    parser.feed(html)
    parser.close()
    return parser.images


def carries_the_board(chosen: Chosen) -> bool:
    return re.search(r"<h2[^>]*>(Fifth Avenue|Manhattan): ", chosen.mail.html_body or "") is not None


def picture_problems(browser: Browser, chosen: Chosen) -> list[str]:
    html, problems = sent_html(chosen)
    if html is None:
        return problems
    images = images_of(chosen.mail.html_body or "")
    cids = [img.get("src") or "" for img in images if (img.get("src") or "").lower().startswith("cid:")]
    if len(images) != 1 or len(cids) != 1:
        return [(f"{chosen}: {len(images)} <img> in the HTML part, {len(cids)} of them cid: (one picture of the "
                 f"board wanted): {[str(img.get('src'))[:60] for img in images]}")]
    cid = cids[0][4:]
    parts = {str(part.get("Content-ID", "")).strip().strip("<>"): part for part in chosen.message.walk()
             if not part.is_multipart() and part.get("Content-ID")}
    part = parts.get(cid)
    if part is None:
        return [f"{chosen}: <img src='cid:{cid}'> but the message's Content-IDs are {sorted(parts)}"]
    data = part.get_payload(decode=True) or b""
    if part.get_content_type() != "image/png" or not data.startswith(b"\x89PNG\r\n\x1a\n"):
        problems.append(f"{chosen}: the part {cid} is {part.get_content_type()}, {data[:8]!r}..., not a PNG")
    if len(data) > MAX_PICTURE_BYTES:
        problems.append(f"{chosen}: the picture weighs {len(data)} bytes, more than {MAX_PICTURE_BYTES}")
    if not (images[0].get("alt") or "").strip():
        problems.append(f"{chosen}: the picture has no alt text")
    page = browser.open(html, width=PHONE_WIDTH)
    if not page.images_loaded() or page.count("img") != 1:
        problems.append(f"{chosen}: the picture did not load in the browser: {page.broken_images()}")
    return problems


def blocked_problems(browser: Browser, chosen: Chosen) -> list[str]:
    """A client that shows no pictures: the page must still fit a phone (the <img> is where it was)."""
    blocked = browser.open(chosen.mail.html_body or "", width=PHONE_WIDTH)
    if blocked.document_width > blocked.viewport_width:
        return [f"{chosen}: with its picture blocked the mail is {blocked.document_width} px wide at "
                f"{blocked.viewport_width}"]
    return []


def test_every_mail_with_a_board_carries_its_picture(browser: Browser, games: dict[str, Played]) -> None:
    chosen = [c for game in games.values() for c in game.chosen if carries_the_board(c)]
    assert len(chosen) >= 20, len(chosen)
    problems = [problem for c in chosen for problem in picture_problems(browser, c)]
    # The picture's place is the template's: the first board mail of each game is enough to check it blocked.
    firsts = {id(game): next(c for c in game.chosen if carries_the_board(c)) for game in games.values()}
    problems += [problem for c in firsts.values() for problem in blocked_problems(browser, c)]
    assert not problems, f"{len(problems)} problems in {len(chosen)} mails:\n" + "\n".join(problems)


# --------------------------------------------------------------------------- a client that drops <style>


def test_each_mail_reads_with_its_style_sheet_dropped(browser: Browser, games: dict[str, Played]) -> None:
    """The style sheet is one <style> block (issue 35, point 5), which a client (an old Outlook, a webmail's
    forward) may drop: without it every mail still fits a phone, its decision is in bold, its commands and
    every colour's name are there."""
    problems = []
    for chosen in (c for game in games.values() for c in game.chosen):
        html, problems_here = sent_html(chosen)
        if html is None:
            problems += problems_here
            continue
        bare = re.sub(r"<style>.*?</style>", "", html, flags=re.S)
        assert "<style" not in bare
        page = browser.open(bare, width=PHONE_WIDTH)
        if page.document_width > page.viewport_width:
            problems.append(f"{chosen}: without its style sheet {page.document_width} px wide at {PHONE_WIDTH}")
        if chosen.mail.decision is not None and page.js(_IN_BOLD, decision_sentence(chosen.mail)) != 1:
            problems.append(f"{chosen}: without its style sheet the decision is not in bold")
        if chosen.mail.decision is not None and page.count("ul.commands code") != len(
                asked_commands(chosen.mail.text_body)) and page.count("ul.commands code") == 0:
            problems.append(f"{chosen}: without its style sheet no commands")
    assert not problems, "\n".join(problems)
