"""The HTML part of the game mails (pbem.render.mail, pbem.render.html, templates/*/*.html.j2): issue 17, point 1.

Mails are rendered from real positions of seeded random games of both games, with a context built as
services.mail_out.notices.Mailer.mail builds it, and read back with the standard library's HTML parser: the sections as
headings, the decision in bold, the commands one <code> a shape, the Fifth Avenue places in the commissioners'
order, Manhattan's six cities as 3x3 grids seen from the reader's side, every colour written as its name and
set with its text colour, all CSS inline, nothing wider than a phone, no other player's hand. When chromium is
installed, a few mails are also laid out at 390 px and must not be wider.
"""

from __future__ import annotations

import html as html_module
import re
import shutil
import subprocess
from html.parser import HTMLParser
from pathlib import Path
from typing import Any, Iterator

import pytest

from pbem import render
from pbem.games import get_game
from pbem.games.fifth_avenue import new_game as new_fifth_avenue
from pbem.games.manhattan import new_game as new_manhattan
from pbem.games.manhattan.board import absolute_site, load_board as load_manhattan_board
from pbem.games.rng import Rng
from pbem.render.html import FIFTH_AVENUE_PALETTE, MANHATTAN_PALETTE
from pbem.render.mail import html_part, render_notice, style_sheet, used_style_sheet
from pbem.render.text import hand_text, owner_names, wrap
from pbem.services.offline.simulate import choose

pytestmark = pytest.mark.xdist_group("render_html")  # its module-scoped fixtures are made once, on one worker

LONG = ["Alexandrina Featherstonehaugh", "Bartholomew Cholmondeley", "Carla Díaz-Ramírez", "Dorothea Worthington"]
PLACES = ["CH", "34W", "34E", "42W", "TS", "42E", "52W", "52E", "CP"]  # City Hall, the districts, Central Park
PHONE = 360  # no fixed width above this: a 390 px phone less the page's margins
VOID = {"br", "img", "meta", "hr", "input", "link", "wbr", "col", "area", "base", "source"}


# =========================================================================== reading HTML


class Node:
    def __init__(self, tag: str, attrs: dict[str, str], parent: Node | None) -> None:
        self.tag, self.attrs, self.parent = tag, attrs, parent
        self.children: list[Node | str] = []

    @property
    def style(self) -> dict[str, str]:
        """The style attribute as {property: value}."""
        result = {}
        for item in (self.attrs.get("style") or "").split(";"):
            if ":" in item:
                name, value = item.split(":", 1)
                result[name.strip().lower()] = value.strip()
        return result

    @property
    def classes(self) -> list[str]:
        return (self.attrs.get("class") or "").split()

    def text(self) -> str:
        """The visible text, whitespace normalised (a <br> or a cell is a space)."""
        parts: list[str] = []

        def walk(node: Node) -> None:
            for child in node.children:
                if isinstance(child, str):
                    parts.append(child)
                elif child.tag not in ("style", "title", "script"):
                    if child.tag in ("br", "td", "th", "p", "li", "div", "tr"):
                        parts.append(" ")
                    walk(child)
                    if child.tag in ("td", "th", "p", "li", "div"):
                        parts.append(" ")

        walk(self)
        return " ".join("".join(parts).split())

    def all(self, tag: str | None = None) -> Iterator[Node]:
        for child in self.children:
            if isinstance(child, Node):
                if tag is None or child.tag == tag:
                    yield child
                yield from child.all(tag)

    def own(self, tag: str) -> list[Node]:
        """Children of this tag, looking through a <tbody>."""
        found = []
        for child in self.children:
            if isinstance(child, Node):
                if child.tag == tag:
                    found.append(child)
                elif child.tag in ("tbody", "thead"):
                    found += child.own(tag)
        return found


class _Builder(HTMLParser):
    def __init__(self) -> None:
        super().__init__(convert_charrefs=True)
        self.root = Node("#document", {}, None)
        self.current = self.root

    def handle_starttag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        node = Node(tag, {k: v or "" for k, v in attrs}, self.current)
        self.current.children.append(node)
        if tag not in VOID:
            self.current = node

    def handle_startendtag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        self.current.children.append(Node(tag, {k: v or "" for k, v in attrs}, self.current))

    def handle_endtag(self, tag: str) -> None:
        node = self.current
        while node is not self.root and node.tag != tag:
            node = node.parent  # type: ignore[assignment]
        assert node is not self.root, f"</{tag}> closes nothing open"
        self.current = node.parent  # type: ignore[assignment]

    def handle_data(self, data: str) -> None:
        self.current.children.append(data)


def parse(html: str) -> Node:
    builder = _Builder()
    builder.feed(html)
    builder.close()
    assert builder.current is builder.root, f"<{builder.current.tag}> is never closed"
    return builder.root


def headings(doc: Node, tag: str) -> list[str]:
    return [h.text() for h in doc.all(tag)]


def section(doc: Node, title: str) -> str:
    """The visible text from the heading starting with ``title`` to the next heading."""
    text = doc.text()
    heads = [h.text() for h in doc.all() if h.tag in ("h2", "h3")]
    start = next(h for h in heads if h.startswith(title))
    after = heads[heads.index(start) + 1:]
    body = text.split(start, 1)[1]
    return (body.split(after[0], 1)[0] if after else body).strip()


def commands(doc: Node) -> list[str]:
    lists = [ul for ul in doc.all("ul") if "commands" in ul.classes]
    assert len(lists) <= 1
    return [li.text() for li in lists[0].own("li")] if lists else []


def _rules(css: str) -> dict[str, dict[str, str]]:
    """A style sheet's rules of one class each: class -> its declarations."""
    return {name: dict(d.split(":", 1) for d in body.split(";") if d)
            for name, body in re.findall(r"^\.([\w-]+)\{([^{}]*)\}$", css, re.M)}


def paint_of(node: Node) -> tuple[str, str]:
    """The background and text colour a swatch gets from the mails' style sheet, by its classes."""
    rules = _rules(style_sheet())
    painted = [rules[name] for name in node.classes if name in rules and "background" in rules[name]]
    assert len(painted) == 1, (node.classes, painted)
    return painted[0]["background"], painted[0].get("color", "")


# =========================================================================== positions and mails


def positions(kind: str, players: int, seed: int, **options: Any) -> Iterator[Any]:
    """Every position of a seeded random game (``by-kind`` plays Fifth Avenue's auctions often)."""
    state = (new_fifth_avenue(players, seed=seed, **options) if kind == "fifth-avenue"
             else new_manhattan(players=players, seed=seed))
    rng = Rng(seed)
    yield state
    while not state.is_terminal():
        state.apply_action(state.current_player(), choose(state.legal_actions(), rng,
                                                          "by-kind" if kind == "fifth-avenue" else "uniform"))
        yield state


def first(kind: str, players: int, condition, seeds=range(40), **options: Any) -> Any:  # type: ignore[no-untyped-def]
    for seed in seeds:
        for state in positions(kind, players, seed, **options):
            if condition(state):
                return state
    raise AssertionError("no such position")


def frame(state: Any, kind: str) -> dict[str, Any] | None:
    return next((f for f in state.view(None)["frames"] if f["kind"] == kind), None)


def mail(kind: str, state: Any, seat: int, names: list[str] | None = None, **extra: Any) -> tuple[str, str]:
    """(text, html) of the mail to ``seat`` about ``state``, its context built as Mailer.mail builds it."""
    engine = get_game(kind)
    names = names or LONG[: state.players]
    view = state.view(seat)
    decision = None
    if not state.is_terminal() and state.current_player() == seat:
        notes = engine.decision_notes(state)
        example = state.legal_commands()[0]
        decision = {"number": state.moves, "sentence": wrap(f"It is your turn. For example: {example}"),
                    "notes": notes[2:], "shapes": engine.legal_shapes(state)}
    context = {
        "preview": "Your turn" if decision else "The game as it stands.",
        "happened": [[wrap("* Ann played: A", hang="  "), wrap("  - Ann took 3 skyscrapers 4 5", hang="    ")]],
        "below": [], "earlier": 0, "note": [wrap("You play seat 1.")],
        "decision": decision, "waiting": "" if decision else "Waiting: somebody else.", "secret": "",
        "over": state.is_terminal(), "board": render.board(kind, view, players=names).rstrip(), "extra": [],
        "kind": kind, "view": view, "players": names, "reader": seat, **extra,
    }
    return render_notice("[Test #1] " + ", ".join(names), context)


def fifth_avenue_mails() -> list[tuple[str, Any, int]]:
    """(what, state, reader) of Fifth Avenue positions worth a mail each."""
    return [
        ("placement", new_fifth_avenue(3, seed=0), 0),
        ("action", first("fifth-avenue", 4, lambda s: frame(s, "turn") and s.view(None)["scores"][0] > 0), 0),
        ("auction", first("fifth-avenue", 4, lambda s: (f := frame(s, "auction")) and f["bids"]), None),
        ("central park", first("fifth-avenue", 3, lambda s: (f := frame(s, "auction")) and f["site"] == "CP"), None),
        ("build", first("fifth-avenue", 3, lambda s: frame(s, "build") is not None), None),
        ("robot", first("fifth-avenue", 2, lambda s: (f := frame(s, "auction")) and f.get("robot_cards"),
                        back_side=True), None),
        ("end", first("fifth-avenue", 4, lambda s: s.is_terminal(), seeds=[7]), 1),
        ("end, back side", first("fifth-avenue", 2, lambda s: s.is_terminal(), seeds=[3], back_side=True), 0),
    ]


def manhattan_mails() -> list[tuple[str, Any, int]]:
    return [
        ("choose", new_manhattan(players=3, seed=0), 0),
        ("build", first("manhattan", 4, lambda s: s.phase == "build" and s.round == 2), None),
        ("two colors", first("manhattan", 2, lambda s: s.phase == "build" and s.round == 3), None),
        ("end", first("manhattan", 4, lambda s: s.is_terminal(), seeds=[3]), 2),
    ]


FIFTH_AVENUE = fifth_avenue_mails()
MANHATTAN = manhattan_mails()
ALL = [("fifth-avenue", *m) for m in FIFTH_AVENUE] + [("manhattan", *m) for m in MANHATTAN]


def reader(state: Any, seat: int | None) -> int:
    """The given seat, or whoever must decide now."""
    return seat if seat is not None else state.current_player()


@pytest.fixture(scope="module")
def rendered() -> dict[str, tuple[str, Any, int, str, str]]:
    """Every mail of ALL: what -> (kind, state, reader, text, html)."""
    result = {}
    for kind, what, state, seat in ALL:
        seat = reader(state, seat)
        text, html = mail(kind, state, seat)
        result[f"{kind}: {what}"] = (kind, state, seat, text, html)
    return result


# =========================================================================== structure


def test_a_mail_has_its_sections_as_headings_and_its_decision_in_bold(rendered) -> None:
    for what, (kind, state, seat, text, html) in rendered.items():
        doc = parse(html)
        h2, h3 = headings(doc, "h2"), headings(doc, "h3")
        assert "Since your last mail" in h2, what
        game = "Fifth Avenue: " if kind == "fifth-avenue" else "Manhattan: "
        assert any(h.startswith(game + f"{state.players} players") for h in h2), (what, h2)
        board = (["The city", "Supply row", "Card stacks", "Players", "Your hand"] if kind == "fifth-avenue"
                 else ["The cities", "Players", "Your hand"])
        assert [h for h in h3 if h in board] == board, (what, h3)  # in the text part's order
        asked = not state.is_terminal() and state.current_player() == seat
        if asked:
            assert f"What you may send now (decision {state.moves})" in h2, what
            bold = [b.text() for b in doc.all("strong")]
            assert "It is your turn." in bold, (what, bold)  # the decision, in bold, its example a command
            example = state.legal_commands()[0]
            assert any(code.text() == example for code in doc.all("code")), what
        else:
            assert not any(h.startswith("What you may send now") for h in h2), what
        if kind == "fifth-avenue":
            auction = frame(state, "auction")
            assert any(h.startswith("Auction for ") for h in h3) == (auction is not None), what
            assert ("Building" in h3) == (frame(state, "build") is not None), what
            assert ("Final scoring" in h3) == state.is_terminal(), what
        else:
            assert any(h.startswith("Scoring of round ") for h in h3) == bool(state.view(None)["history"]), what


def test_the_commands_are_one_code_a_shape_in_the_order_of_the_text(rendered) -> None:
    asked = 0
    for what, (kind, state, seat, text, html) in rendered.items():
        doc = parse(html)
        if state.is_terminal() or state.current_player() != seat:
            assert commands(doc) == [], what
            continue
        asked += 1
        shapes = get_game(kind).legal_shapes(state)
        assert commands(doc) == shapes, what
        for li in next(ul for ul in doc.all("ul") if "commands" in ul.classes).own("li"):
            assert [c.tag for c in li.children if isinstance(c, Node)] == ["code"], what  # one code, nothing else
    assert asked >= 6


def test_the_fifth_avenue_city_is_its_places_in_the_commissioners_order_with_named_colors(rendered) -> None:
    for what, (kind, state, seat, text, html) in rendered.items():
        if kind != "fifth-avenue":
            continue
        doc = parse(html)
        view = state.view(seat)
        place_heads = [th.text() for div in doc.all("div") if "place" in div.classes for th in div.all("th")
                       if re.match(r"^(CH|CP|\d\d[WE]|TS) ", th.text())]
        assert [h.split()[0] for h in place_heads] == PLACES, (what, place_heads)
        # every district's plots in ring order: a swatch with the color's name, painted with its colors
        board = state.board
        boxes = [div for div in doc.all("div") if "place" in div.classes]
        assert len(boxes) == len(PLACES)
        for box, code in zip(boxes, PLACES):
            if code in ("CH", "CP") or code in view["stopped"]:
                continue
            swatches = [row.own("td")[0] for row in box.all("tr") if len(row.own("td")) == 2]
            assert [td.text() for td in swatches] == list(board.plots(code)), (what, code)
            for td in swatches:
                assert paint_of(td) == FIFTH_AVENUE_PALETTE[td.text()], (what, code, td.text())
            for plot, row in zip(board.plots(code), (r for r in box.all("tr") if len(r.own("td")) == 2)):
                cell = view["plots"][code][plot]
                shown = row.own("td")[1].text()
                if cell["owner"] is not None and cell["height"]:
                    names = owner_names(LONG[: state.players], robot=state.players == 2)
                    assert shown == f"{names[cell['owner']]} ×{cell['height']}", (what, code, plot, shown)
                elif cell["businesses"]:
                    assert shown == ", ".join(cell["businesses"]), (what, code, plot, shown)
                else:
                    assert shown == "–", (what, code, plot, shown)


def test_the_manhattan_cities_are_3x3_grids_seen_from_the_reader_and_colored_by_owner(rendered) -> None:
    board = load_manhattan_board()
    for what, (kind, state, seat, text, html) in rendered.items():
        if kind != "manhattan":
            continue
        doc = parse(html)
        view = state.view(seat)
        side = view["side"][seat]
        grids = [t for t in doc.all("table") if len(t.own("tr")) == 3 and all(len(r.own("td")) == 3 for r in t.own("tr"))
                 and t.own("tr")[0].own("td")[0].text().startswith("1")]
        names = [t.parent.own("p")[0].text() for t in grids]  # type: ignore[union-attr]
        assert names == [view["cities"][code]["name"] for code in board.city_codes], (what, names)
        for grid, code in zip(grids, board.city_codes):
            cells = [td for tr in grid.own("tr") for td in tr.own("td")]
            for card, td in enumerate(cells, start=1):
                site = view["cities"][code]["sites"][absolute_site(side, card) - 1]
                words = td.text().split()
                assert words[0] == str(card), (what, code, card, words)
                if site["parts"]:
                    assert words[1:3] == [str(site["height"]), site["owner"]], (what, code, card, words)
                    assert paint_of(td) == MANHATTAN_PALETTE[site["owner"]], (what, code, card)
                else:
                    assert words[1:] == ["–"] and "color" not in td.style, (what, code, card, words)


# =========================================================================== what the HTML may use


def test_the_style_sheet_is_one_block_in_the_head_and_colours_stay_inline(rendered) -> None:
    """Issue 35, point 5: the style sheet is one <style> block in the head (inlined into every element it was
    three quarters of the part's bytes); what a client that drops it must still show is inline: each colour
    swatch's colours (checked by the tests of the colours above) and the picture's width."""
    for what, (kind, state, seat, text, html) in rendered.items():
        doc = parse(html)
        blocks = list(doc.all("style"))
        assert len(blocks) == 1 and blocks[0].parent is not None and blocks[0].parent.tag == "head", what
        sheet = "".join(blocks[0].children)
        assert sheet == used_style_sheet(style_sheet(), html), what  # the rules this mail's elements use
        assert len(sheet) < len(style_sheet()) and "/*" not in sheet, what
        used = {name for node in doc.all() for name in node.classes}
        assert used <= set(re.findall(r"\.([a-z][a-z-]*)", style_sheet())) | {"commands"}, (what, used)
        assert not any(node.tag in ("script", "link", "iframe", "object", "form") for node in doc.all()), what
        assert not re.search(r"(src|href)=\"(?!cid:)", html), what  # no external resource, no link
        metas = {m.attrs.get("name"): m.attrs.get("content") for m in doc.all("meta")}
        assert metas.get("color-scheme") == "light dark", what
        assert max(len(line) for line in html.splitlines()) < 998, what  # a mail's line limit (RFC 5322)


def class_styles() -> dict[str, dict[str, str]]:
    """The style sheet's declarations by the class a rule's selector ends in (".grid .n" counts for "n"):
    more than a browser would apply, which is what a limit wants."""
    found: dict[str, dict[str, str]] = {}
    for selectors, body in re.findall(r"([^{}@]+)\{([^{}]*)\}", style_sheet()):
        for selector in selectors.split(","):
            last = re.search(r"\.([a-z][a-z-]*)$", selector.strip())
            if last:
                for item in body.split(";"):
                    if ":" in item:
                        name, value = item.split(":", 1)
                        found.setdefault(last.group(1), {})[name.strip()] = value.replace("!important", "").strip()
    return found


def test_nothing_is_wider_than_a_phone(rendered) -> None:
    sheet = class_styles()
    for what, (kind, state, seat, text, html) in rendered.items():
        doc = parse(html)
        for node in doc.all():
            width = node.attrs.get("width")
            if width and width.isdigit():
                assert int(width) <= PHONE, (what, node.tag, width)
            style = {key: value for name in node.classes for key, value in sheet.get(name, {}).items()} | node.style
            for name in ("width", "min-width"):
                value = style.get(name, "")
                px = re.fullmatch(r"(\d+)px", value)
                assert not px or int(px.group(1)) <= PHONE, (what, node.tag, name, value)
            max_width = re.fullmatch(r"(\d+)px", style.get("max-width", ""))
            assert not max_width or int(max_width.group(1)) <= 640, (what, node.tag)
            assert "nowrap" not in style.get("white-space", "") or len(node.text()) <= 40, \
                (what, node.tag, node.text())  # only short things may refuse to wrap
        for pre in doc.all("pre"):
            assert max(len(line) for line in pre.text().splitlines() or [""]) <= 40, what


def test_a_mail_shows_its_readers_hand_and_no_other(rendered) -> None:
    checked = 0
    for what, (kind, state, seat, text, html) in rendered.items():
        doc = parse(html)
        own = section(doc, "Your hand")
        other = (seat + 1) % state.players
        if kind == "fifth-avenue":
            colors = state.board.plot_colors
            mine, theirs = hand_text(state.hands[seat], colors), hand_text(state.hands[other], colors)
            assert mine in own, (what, own)
        else:
            mine = ", ".join(map(str, state.hands[seat])) or "none"
            theirs = ", ".join(map(str, state.hands[other])) or "none"
            assert own.startswith(f"Cards {mine}. "), (what, own)
            theirs = f"Cards {theirs}."
        if theirs != mine and theirs not in mine:
            checked += 1
            assert theirs not in doc.text(), what
    assert checked >= 8


def test_the_players_table_fits_four_long_names(rendered) -> None:
    """The Fifth Avenue players' table keeps to six narrow columns, whatever the names: a name is whole, never
    cut (it wraps in its cell), and the notes 'to act' and 'you' are badges beside it, not a column."""
    _, state, seat, _, html = rendered["fifth-avenue: action"]
    doc = parse(html)
    table = next(t for t in doc.all("table") if t.own("tr") and t.own("tr")[0].text().startswith("player score"))
    rows = table.own("tr")
    assert len(rows) == 1 + 4 and all(len(r.own("td")) == 6 for r in rows[1:])
    assert [r.own("td")[1].text().split(" to act")[0].split(" you")[0] for r in rows[1:]] == \
        LONG


def test_a_picture_is_shown_near_the_board_only_when_given() -> None:
    state = new_fifth_avenue(3, seed=0)
    _, without = mail("fifth-avenue", state, 0)
    assert "<img" not in without
    picture = {"cid": "board-1@pbem", "alt": "The board: Fifth Avenue, 3 players", "width": 640, "height": 900}
    _, html = mail("fifth-avenue", state, 0, picture=picture)
    imgs = list(parse(html).all("img"))
    assert len(imgs) == 1
    img = imgs[0]
    assert img.attrs["src"] == "cid:board-1@pbem" and img.attrs["alt"] == picture["alt"]
    assert (img.attrs["width"], img.attrs["height"]) == ("640", "900")
    # The column's width, never more than the picture's own: a picture a client blocks keeps the page a phone's width.
    assert img.style["width"] == "100%" and img.style["max-width"] == "640px" and img.style["height"] == "auto"
    assert html.index("<img") < html.index(">The city<")  # before the board's first section


def test_the_html_part_stays_far_below_the_size_where_clients_cut_mails(rendered) -> None:
    """Gmail shows only the first 102 KB of a mail's HTML; the largest HTML parts are a third of that."""
    assert max(len(html.encode()) for *_, html in rendered.values()) < 50_000


# =========================================================================== mails of text only


def test_plain_mails_and_digests_get_paragraphs_and_wrapping_drawn_blocks() -> None:
    state = new_fifth_avenue(3, seed=0)
    board = render.board("fifth-avenue", state.view(0), players=["Ann", "Bob", "Cy"])
    text = ("You must decide in 2 games. Instead of a reminder for each, they come\ntogether here, once a day.\n\n"
            "==== Fifth Avenue #12 ==========================================\n\n"
            "Reminder: your turn\n\n* Ann played: A\n  - Ann took 3 skyscrapers into\n    their supply\n\n"
            + board)
    html = html_part("[pbem] digest: your move in 2 games (#12, #13)", text)
    doc = parse(html)
    assert headings(doc, "h2") == ["Fifth Avenue #12"]
    paragraphs = [p.text() for p in doc.all("p")]
    assert paragraphs[0] == "You must decide in 2 games. Instead of a reminder for each, they come together here, " \
                            "once a day."
    assert "* Ann played: A - Ann took 3 skyscrapers into their supply" in paragraphs
    pres = list(doc.all("pre"))
    assert pres and all(pre.style["white-space"] == "pre-wrap" for pre in pres)  # never wider than the screen
    assert any("+----" in "".join(c for c in pre.children if isinstance(c, str)) for pre in pres)
    assert html_module.unescape(re.sub(r"<[^>]+>", "", html)).count("SUPPLY ROW") == 1
    assert [("".join(n.children)) for n in doc.all("style")] == [used_style_sheet(style_sheet(), html)]
    metas = {m.attrs.get("name"): m.attrs.get("content") for m in doc.all("meta")}
    assert metas.get("color-scheme") == "light dark"


# =========================================================================== laid out by a browser


CHROMIUM = next((shutil.which(name) for name in ("chromium", "chromium-browser", "google-chrome")
                 if shutil.which(name)), None)


@pytest.mark.skipif(CHROMIUM is None, reason="no chromium to lay the mails out")
def test_a_browser_lays_the_mails_out_within_a_phones_width(rendered, tmp_path: Path) -> None:
    """Each mail in an iframe 390 px wide (and 360): the page is no wider than the frame. (Headless chromium's
    own windows are at least 500 px wide, hence the frames.)"""
    names = ["fifth-avenue: auction", "fifth-avenue: end", "fifth-avenue: robot", "manhattan: two colors",
             "manhattan: end"]
    frames = "".join(
        f'<iframe id="f{i}" width="{width}" height="800" srcdoc="{html_module.escape(rendered[name][4])}"></iframe>'
        for i, (name, width) in enumerate((n, w) for n in names for w in (390, 360)))
    page = tmp_path / "host.html"
    page.write_text(f"""<!DOCTYPE html><html><body>{frames}<script>
window.addEventListener('load', () => {{
  const out = [...document.querySelectorAll('iframe')].map(f =>
      f.contentDocument.documentElement.scrollWidth + '/' + f.contentWindow.innerWidth);
  const pre = document.createElement('pre'); pre.id = 'RESULT'; pre.textContent = out.join(' ');
  document.body.appendChild(pre);
}});
</script></body></html>""")
    run = subprocess.run([CHROMIUM, "--headless=new", "--no-sandbox", "--disable-gpu", "--hide-scrollbars",
                          "--window-size=1200,900", "--virtual-time-budget=5000", "--dump-dom", page.as_uri()],
                         capture_output=True, text=True, timeout=120)
    found = re.search(r'<pre id="RESULT">(.*?)</pre>', run.stdout)
    assert found, run.stderr[-2000:]
    sizes = [tuple(map(int, pair.split("/"))) for pair in found.group(1).split()]
    labels = [f"{n} at {w}" for n in names for w in (390, 360)]
    assert len(sizes) == len(labels)
    for label, (scroll, inner) in zip(labels, sizes):
        assert scroll <= inner, f"{label}: the page is {scroll} px wide"


def test_a_mail_carries_the_rules_its_elements_use() -> None:
    """Issue 35, point 5: the style sheet of a mail keeps a rule when its selector may match an element of the
    mail (every class and element name of it is there), and drops a block (@media) left empty."""
    css = ".a{color:red}\n.b .a,p.a{margin:0}\nh3{x:1}\n.c{y:2}\n@media screen{.c{z:3}\n}\n@media print{.a{w:4}\n}"
    body = '<p class="a">x</p><div class="b">'
    assert used_style_sheet(css, body) == ".a{color:red}\n.b .a,p.a{margin:0}\n@media print{.a{w:4}\n}"
