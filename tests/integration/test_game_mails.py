"""The mails a game sends: golden files, hidden information, and decisions asked of the right player.

Golden files under tests/data/mails/ hold every mail (subject and text part) a
scenario queues, and tests/data/mails/html/ the HTML part of a few of them. With
PBEM_UPDATE_GOLDEN=1 they are rewritten; review the diff before committing it
(open an .html file in a browser, at a phone's width too).

The HTML part renders the same content as the text part (``same_content``): over
every mail of complete games, the same command shapes and the same numbers in each
section (scores, hands, bids, the board).
"""

from __future__ import annotations

import os
import re
from collections import Counter
from datetime import datetime, timezone
from html.parser import HTMLParser
from pathlib import Path

import pytest
from sqlalchemy import update
from sqlmodel import Session, select

from pbem.services.mail_out.receipts import is_receipt
from pbem.games.fifth_avenue import new_game
from pbem.games.legal import spelled
from pbem.games.rng import Rng
from pbem.render.text import hand_text
from pbem.services.table.service import GameService
from pbem.services.offline.simulate import choose
from pbem.store.db import make_engine
from pbem.store.models import Event, OutboxMail
from pbem.store.statuses import OutboxStatus

GOLDEN = Path(__file__).parent.parent / "data" / "mails"
NAMES = [("Ann", "ann@example.org"), ("Bob", "bob@example.org"), ("Cy", "cy@example.org"), ("Dee", "dee@example.org")]


NOON = datetime(2026, 11, 22, 12, 0, tzinfo=timezone.utc)


def random_commands(players: int, seed: int, limit: int = 5000) -> list[tuple[int, str, list[str]]]:
    """(seat, command, kinds of events) of a by-kind random game."""
    state = new_game(players, seed)
    rng = Rng(seed)
    played = []
    while not state.is_terminal() and len(played) < limit:
        action = choose(state.legal_actions(), rng, "by-kind")
        seat = state.current_player()
        events = state.apply_action(seat, action)
        played.append((seat, str(action), [e["kind"] for e in events]))
    return played


class Table:
    """A game played through the service, reading what it mails."""

    def __init__(self, engine, players: int, seed: int, *, kind: str = "fifth-avenue", **options) -> None:
        self.service = GameService(engine, clock=lambda: NOON)  # a fixed clock: the deadlines in the mails
        self.players = NAMES[:players]
        self.game = self.service.create_game(kind, self.players, seed=seed, options=options)
        self.seen = 0
        self.receipts: list[OutboxMail] = []  # the short mails without a board (services.mail_out.receipts)

    def new_mails(self) -> list[OutboxMail]:
        """The game mails (with the board) queued since the last call; receipts go to ``receipts``."""
        with Session(self.service.engine) as s:
            mails = s.exec(select(OutboxMail).where(OutboxMail.game_id == self.game, OutboxMail.id > self.seen)
                           .order_by(OutboxMail.id)).all()
        if mails:
            self.seen = mails[-1].id
        self.receipts += [mail for mail in mails if is_receipt(mail)]
        return [mail for mail in mails if not is_receipt(mail)]

    def submit(self, seat: int, text: str) -> None:
        """A player's mail, in a pass of the worker of its own: what it queued is sent before the next mail (else
        an unsent mail would fold into the next one to the same player: tests/integration/test_mail_folding.py)."""
        self.service.submit(self.game, self.players[seat][1], text)
        with self.service.engine.begin() as connection:
            connection.execute(update(OutboxMail).where(OutboxMail.game_id == self.game,
                                                        OutboxMail.status == OutboxStatus.QUEUED)
                               .values(status=OutboxStatus.SENT))


def golden(name: str, mails: list[OutboxMail]) -> None:
    """Every mail's subject and text part; each mail's HTML part carries the same content (``same_content``)."""
    for m in mails:
        same_content(m.text_body, m.html_body)
    text = "".join(f"=== to: {m.recipient}\nsubject: {m.subject}\n\n{m.text_body}\n" for m in mails)
    _compare(GOLDEN / name, text)


def golden_html(name: str, mail: OutboxMail) -> None:
    """One mail's HTML part, as a file a browser opens: tests/data/mails/html/NAME. The answer links' ``ref``
    token is the mail's random Message-ID (issue 44): written as REF."""
    assert mail.html_body.count("ref%20") == len(re.findall(r"ref%20[A-Za-z0-9_-]{22}\"", mail.html_body))
    _compare(GOLDEN / "html" / name, re.sub(r"ref%20[A-Za-z0-9_-]{22}\"", 'ref%20REF"', mail.html_body))


def _compare(path: Path, text: str) -> None:
    if os.environ.get("PBEM_UPDATE_GOLDEN"):
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(text)
    assert path.exists(), f"{path} is missing: run with PBEM_UPDATE_GOLDEN=1"
    assert text == path.read_text()


# --------------------------------------------------------------------------- the HTML part says what the text says


class _Sections(HTMLParser):
    """An HTML part's visible text by section (a heading h1-h4 starts one; the text before the first is
    section ""), and the commands of its command list (<ul class="commands">, one <code> a command)."""

    def __init__(self) -> None:
        super().__init__(convert_charrefs=True)
        self.sections: list[list[str]] = [["", ""]]
        self.commands: list[str] = []
        self.in_heading = False
        self.skip = 0  # inside <style>, <title>
        self.list_depth = 0  # inside the command list
        self.code: list[str] | None = None

    def handle_starttag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        classes = (dict(attrs).get("class") or "").split()
        if tag in ("style", "title"):
            self.skip += 1
        elif tag in ("h1", "h2", "h3", "h4"):
            self.sections.append(["", ""])
            self.in_heading = True
        elif tag == "ul" and ("commands" in classes or self.list_depth):
            self.list_depth += 1
        elif tag == "code" and self.list_depth:
            self.code = []
        elif tag in ("br", "p", "li", "tr", "td", "th", "div", "table"):
            self._text(" ")

    def handle_endtag(self, tag: str) -> None:
        if tag in ("style", "title"):
            self.skip -= 1
        elif tag in ("h1", "h2", "h3", "h4"):
            self.in_heading = False
        elif tag == "ul" and self.list_depth:
            self.list_depth -= 1
        elif tag == "code" and self.code is not None:
            self.commands.append(" ".join("".join(self.code).split()))
            self.code = None
        elif tag in ("p", "li", "td", "th", "div"):
            self._text(" ")

    def handle_data(self, data: str) -> None:
        if not self.skip:
            self._text(data)
            if self.code is not None:
                self.code.append(data)

    def _text(self, data: str) -> None:
        self.sections[-1][0 if self.in_heading else 1] += data


def html_sections(html: str) -> tuple[list[tuple[str, str]], list[str]]:
    """[(heading, the section's text, heading included)], whitespace normalised; and the command shapes."""
    parser = _Sections()
    parser.feed(html)
    parser.close()
    sections = [(" ".join(head.split()), " ".join(f"{head} {body}".split())) for head, body in parser.sections]
    return sections, parser.commands


# (name, the text part's line that starts the section, the heading that starts the HTML part's). A text
# section runs to the next section's line (the mail's own "since" sections to their blank line); an HTML
# section to the next heading. The first screen's block (services.mail_out.first_screen: the bids so far, the final
# scores) runs to its blank line, like the "since" sections.
SECTIONS = [
    ("since", r"Since your last mail", "Since your last mail"),
    ("bids so far", r"Bids for .+ so far:$", "Bids for "),
    ("final scores", r"Final scores:$", "Final scores"),
    ("earlier", r"Earlier since your last mail:", "Earlier since your last mail"),
    ("header", r"Fifth Avenue -- ", "Fifth Avenue: "),
    ("city", r"THE CITY:", "The city"),
    ("supply row", r"SUPPLY ROW:", "Supply row"),
    ("card stacks", r"CARD STACKS:", "Card stacks"),
    ("players", r"PLAYERS ", "Players"),
    ("auctions", r"AUCTIONS:", "Auctions"),
    ("auction", r"AUCTION FOR ", "Auction for "),
    ("building", r"BUILDING$", "Building"),
    ("hand", r"Your hand:", "Your hand"),
    ("final scoring", r"FINAL SCORING:", "Final scoring"),
    ("send", r"WHAT YOU MAY SEND NOW", "What you may send now"),
    ("header", r"Manhattan -- ", "Manhattan: "),
    ("cities", r"THE CITIES:", "The cities"),
    ("scoring", r"Scoring of round \d+:", "Scoring of round "),
]
# Sections whose numbers the HTML part has exactly as the text part (no more): the others add to them (what
# happened is followed by the decision; the final scoring names each district by its code for every player).
EXACT = {"header", "city", "supply row", "card stacks", "players", "auction", "hand", "cities", "scoring", "send"}
STARTS = re.compile("|".join(f"(?:{start})" for _, start, _ in SECTIONS))


def text_sections(text: str) -> list[tuple[str, str]]:
    """The text part's sections [(name, text)], each text with its whitespace normalised."""
    lines = text.split("\n")
    found: list[tuple[str, str]] = []
    for i, line in enumerate(lines):
        for name, start, _ in SECTIONS:
            if re.match(start, line):
                end = i + 1
                while end < len(lines) and not STARTS.match(lines[end]) and \
                        not (name in ("since", "earlier", "bids so far", "final scores") and not lines[end].strip()):
                    end += 1
                found.append((name, " ".join(" ".join(lines[i:end]).split())))
                break
    return found


def numbers(text: str) -> Counter[str]:
    return Counter(re.findall(r"\d+", text))


def same_content(text: str, html: str) -> None:
    """The HTML part of a game mail says what its text part says: every section of the text part (what
    happened, the board's sections, the hand, the auction, the final scoring, the commands) has its section
    in the HTML part, with every number of it (scores, hands, bids, supplies, heights...) as often, and no
    more where the layouts allow counting (EXACT); the same command shapes, in the same order; the same example.
    Fails with what differs."""
    sections, commands = html_sections(html)
    heading = {name: prefix for name, _, prefix in SECTIONS}
    for name, part in text_sections(text):
        matches = [body for head, body in sections if head.startswith(heading[name].strip())]
        # the header's heading comes in two games' words: take the one that is there
        if name == "header":
            matches = [body for head, body in sections
                       if head.startswith("Fifth Avenue: ") or head.startswith("Manhattan: ")]
        assert matches, f"no section {heading[name]!r} in the HTML part for the text's {part[:80]!r}"
        have = numbers(matches[0])
        want = numbers(part)
        missing = want - have
        assert not missing, f"{name}: the HTML part lacks {dict(missing)}\ntext: {part[:600]}\nhtml: {matches[0][:600]}"
        if name in EXACT:
            extra = have - want
            assert not extra, f"{name}: the HTML part has more {dict(extra)}\ntext: {part[:600]}\nhtml: {matches[0][:600]}"
    if "Commands you may send now" in text:
        assert commands == mailed_shapes(text), (commands, mailed_shapes(text))
        example = mailed_example(text)
        # a mail with answer links shows them instead of the example (issue 44): each is one to tap
        assert example in " ".join(section for _, section in sections) or '<div class="taps">' in html, example
    else:
        assert not commands, commands


@pytest.fixture
def sqlite_engine(tmp_path: Path, sqlite_template: Path):
    import shutil

    path = tmp_path / "mails.sqlite3"
    shutil.copy(sqlite_template, path)
    engine = make_engine(f"sqlite:///{path}")
    yield engine
    engine.dispose()


def test_golden_new_game(sqlite_engine) -> None:
    table = Table(sqlite_engine, 3, seed=0)
    mails = table.new_mails()
    assert [m.recipient for m in mails] == [e for _, e in NAMES[:3]]
    assert {m.subject for m in mails} == {"[Fifth Avenue #1] Ann, Bob, Cy"}  # one subject, one thread per game
    assert [m.decision for m in mails] == [0, None, None]  # only the first player is asked
    assert mails[0].headers["X-Pbem-Decision"] == "0" and "X-Pbem-Decision" not in mails[1].headers
    assert all(m.headers["From-Name"] == "Fifth Avenue #1 (pbem)" for m in mails)
    golden("new_game_3p.txt", mails)
    golden_html("new_game_3p_ann.html", mails[0])  # asked to place, with the first mail's short help


def _whole_turns(played: list[tuple[int, str, list[str]]]) -> dict[str, tuple[int, int]]:
    """For each action letter, the first turn (start, end) without auctions in it."""
    found: dict[str, tuple[int, int]] = {}
    i = 0
    while i < len(played):
        seat, command, _ = played[i]
        letter = command.split()[0]
        if letter in ("A", "B", "C", "D"):
            j = i + 1
            while j < len(played) and played[j][0] == seat and played[j][1].split()[0] in ("cards", "move"):
                j += 1
            kinds = {k for _, _, ks in played[i:j] for k in ks}
            if letter not in found and "auctions" not in kinds and "game_over" not in kinds and j - i >= 2:
                found[letter] = (i, j)
            i = j
        else:
            i += 1
    return found


def test_golden_a_turn_of_each_action(sqlite_engine) -> None:
    played = random_commands(3, 0)
    turns = _whole_turns(played)
    assert set(turns) == {"A", "B", "C", "D"}
    table = Table(sqlite_engine, 3, seed=0)
    done = 0
    collected = []
    for letter in sorted(turns, key=lambda k: turns[k][0]):
        start, end = turns[letter]
        for seat, command, _ in played[done:start]:
            table.submit(seat, command)
        table.new_mails()
        seat = played[start][0]
        table.submit(seat, "\n".join(command for _, command, _ in played[start:end]))  # one mail, one whole turn
        collected += table.new_mails()
        done = end
    golden("turns_of_each_action_3p.txt", collected)


def _auction_set(played, want) -> tuple[int, int]:
    start = None
    for i, (_, _, kinds) in enumerate(played):
        if "auctions" in kinds:
            start, seen = i, set()
        if start is not None:
            seen.update(kinds)
            if "auctions_end" in kinds:
                if want(seen, played[start:i + 1]):
                    return start, i + 1
                start = None
    raise AssertionError("no such auction set")


def test_golden_auction_set_with_building_stop_and_central_park(sqlite_engine) -> None:
    played = random_commands(3, 2)  # the first seed whose random game has an auction set with a building stop
    start, end = _auction_set(played, lambda kinds, _: "building_stop" in kinds)
    table = Table(sqlite_engine, 3, seed=2)
    for seat, command, _ in played[:start]:
        table.submit(seat, command)
    table.new_mails()
    mails = []
    for seat, command, _ in played[start:end]:
        table.submit(seat, command)
        mails += table.new_mails()
    previews = " | ".join(m.text_body.splitlines()[0] for m in mails)  # the line that says what a mail wants
    assert "Bid or pass: the auction for Central Park" in previews
    assert re.search(r"\b(Ann|Bob|Cy) won [\w ]+ with \d+ in \w+", previews)  # a result, named
    assert {m.subject for m in mails} == {f"[Fifth Avenue #{table.game}] Ann, Bob, Cy"}
    # The building stop reaches every player, in the mail that declared it or in their next one.
    for _, email in table.players:
        assert any(re.search(r"^  - \w+ declared a building stop", m.text_body, re.M)
                   for m in mails if m.recipient == email), email
    assert not re.search(r"\bplayer \d", previews)  # people by name: "Bob declared a building stop ..."
    assert not any(re.search(r"^\s*[-*] player \d", m.text_body, re.M) for m in mails)
    golden("auction_set_3p.txt", mails)
    golden_html("auction_set_3p_first.html", mails[0])  # an auction opens: bid or pass


def test_golden_robot_auction(sqlite_engine) -> None:
    played = random_commands(2, 0)
    start, end = _auction_set(played, lambda kinds, _: "robot_bid" in kinds and "won" in kinds)
    table = Table(sqlite_engine, 2, seed=0)
    for seat, command, _ in played[:start]:
        table.submit(seat, command)
    table.new_mails()
    mails = []
    for seat, command, _ in played[start:end]:
        table.submit(seat, command)
        mails += table.new_mails()
    assert any("the robot drew black" in m.text_body for m in mails)
    golden("robot_auction_2p.txt", mails)
    golden_html("robot_auction_2p.html", next(m for m in mails if "the robot drew black" in m.text_body))


def test_golden_end_of_game(sqlite_engine) -> None:
    played = random_commands(3, 0)
    table = Table(sqlite_engine, 3, seed=0)
    for seat, command, _ in played[:-1]:
        table.submit(seat, command)
    table.new_mails()
    seat, command, _ = played[-1]
    table.submit(seat, command)
    mails = table.new_mails()
    assert len(mails) == 3 and all(m.text_body.startswith("Game over: ") for m in mails)  # the end: news for all
    assert all("FINAL SCORING" in m.text_body and m.decision is None for m in mails)
    golden("end_of_game_3p.txt", mails)
    golden_html("end_of_game_3p_ann.html", mails[0])  # the final scoring


@pytest.mark.parametrize("players, seed", [(3, 0)])  # 2 and 4 players, both databases: the next test's games
def test_the_html_part_of_every_mail_of_a_complete_game_says_what_the_text_part_says(sqlite_engine, players,
                                                                                       seed) -> None:
    """Issue 17, point 4: over every mail of a whole game (the robot's with 2 players), the HTML part has the
    text part's command shapes and example, and each section's numbers: scores, hands, bids, the board."""
    table = Table(sqlite_engine, players, seed=seed)
    mails = table.new_mails()
    for seat, command, _ in random_commands(players, seed):
        table.submit(seat, command)
        mails += table.new_mails()
    assert table.service.get(table.game).over
    kinds = {name for m in mails for name, _ in text_sections(m.text_body)}
    assert {"since", "city", "supply row", "card stacks", "players", "auction", "building", "hand", "send",
            "final scoring", "bids so far", "final scores"} <= kinds, kinds  # every section was compared somewhere
    for mail in mails:
        same_content(mail.text_body, mail.html_body)


def test_the_comparison_of_the_parts_fails_when_the_html_part_drops_or_changes_something(sqlite_engine) -> None:
    """same_content is no formality: without the supply row, with a score changed, a command left out, or
    another hand shown, it fails."""
    table = Table(sqlite_engine, 3, seed=0)
    mail = table.new_mails()[0]
    same_content(mail.text_body, mail.html_body)
    no_supply_row = re.sub(r"<h3[^>]*>Supply row</h3>.*?(?=<h3)", "", mail.html_body, flags=re.S)
    fewer_commands = re.sub(r"<li[^>]*><code[^>]*>place 52E.*?</li>", "", mail.html_body, flags=re.S)
    score = re.compile(r"(<td[^>]*>Ann.*?</td>\s*<td[^>]*>)0(</td>)", re.S)
    changed_score = score.sub(r"\g<1>7\g<2>", mail.html_body, count=1)
    other_hand = re.sub(r"(>orange</span> )5", r"\g<1>6", mail.html_body, count=1)
    for broken in (no_supply_row, fewer_commands, changed_score, other_hand):
        assert broken != mail.html_body
        with pytest.raises(AssertionError):
            same_content(mail.text_body, broken)


SHAPES = re.compile(r"^Commands you may send now \(<a\|b> means a or b\):\n((?:  .+\n)+)", re.M)


def mailed_shapes(text: str) -> list[str]:
    """The command shapes a mail lists under 'Commands you may send now', a wrapped shape joined again."""
    found = SHAPES.search(text)
    assert found, text
    shapes: list[str] = []
    for line in found.group(1).splitlines():
        if line.startswith("      ") and shapes:  # a shape's continuation
            shapes[-1] += " " + line.strip()
        else:
            shapes.append(line.strip())
    return shapes


def mailed_example(text: str) -> str:
    """The command a mail's decision sentence gives as an example ("For example: bid brown 4", or the engine's
    note "..., for example 'choose 1 1 1 1'.")."""
    paragraph = " ".join(next(p for p in text.split("\n\n") if "for example" in p.lower()).split())
    if "For example: " in paragraph:
        return paragraph.split("For example: ", 1)[1]
    return paragraph.split("for example '", 1)[1].split("'")[0]


def mailed_commands(state, text: str) -> list[str]:  # type: ignore[no-untyped-def]
    """The commands a player can read off a mail asking for a decision, checked against the legal ones.

    An exact shape ('B <boutique|jeweler> 34W gray') spells legal commands only; a bounded one ('choose <1|2>
    <1|2> (no more of a size than you have left)') spells the legal ones and more; a bid shape ('bid brown
    <some of 4 5> ...') stands for the legal bids of its color. Together they cover every legal command, and
    the example is legal. Returns the exact and bounded commands that are legal, and the example."""
    legal = state.legal_commands()
    shapes = mailed_shapes(text)
    exact = [c for shape in shapes if "some of" not in shape and " (" not in shape for c in spelled(shape)]
    assert set(exact) <= set(legal), set(exact) - set(legal)
    bounded = [c for shape in shapes if "some of" not in shape and " (" in shape
               for c in spelled(shape.split(" (")[0]) if c in legal]
    bids = [shape.split()[:2] for shape in shapes if "some of" in shape]
    covered = set(exact) | set(bounded) | {c for c in legal if c.split()[:2] in bids}
    assert covered == set(legal), set(legal) - covered
    example = mailed_example(text)
    assert example in legal, example
    return list(dict.fromkeys(exact + bounded + [example]))


@pytest.mark.parametrize("players,seed,back_side", [(2, 5, False), (3, 6, True), (4, 7, False)])
def test_complete_games_by_mail_ask_each_decision_of_the_right_player(database_url: str, players, seed, back_side) -> None:
    """Play whole games only from what the mails say, checking every mail on the way."""
    engine = make_engine(database_url)
    table = Table(engine, players, seed, back_side=back_side)
    rng = Rng(seed)
    emails = [e for _, e in table.players]
    subject = f"[Fifth Avenue #{table.game}] " + ", ".join(name for name, _ in table.players)
    mails = table.new_mails()
    decisions = 0
    while True:
        info = table.service.get(table.game)
        state = info.state
        for mail in mails:  # hidden information: only the recipient's own hand, ever
            seat = emails.index(mail.recipient)
            assert "HANDS" not in mail.text_body
            shown = re.findall(r"^Your hand: (.*(?:\n  .*)*)", mail.text_body, re.M)
            assert len(shown) == 1, mail.text_body[:200]
            assert " ".join(shown[0].split()).startswith(hand_text(state.hands[seat], state.board.plot_colors))
            # every line fits 72 columns, and the HTML part says what the text part says, the same hand included
            assert max(len(line) for line in mail.text_body.splitlines()) <= 72, mail.text_body[:200]
            same_content(mail.text_body, mail.html_body)
            hand = next(body for head, body in html_sections(mail.html_body)[0] if head == "Your hand")
            assert hand_text(state.hands[seat], state.board.plot_colors) in hand, hand
            # one subject for the whole game; people by name in what happened
            assert mail.subject == subject
            assert not re.search(r"\bplayer \d", mail.text_body.split("\n\n", 1)[0]), mail.text_body[:200]
            assert not re.search(r"^\s*[-*] player \d", mail.text_body, re.M), mail.text_body[:200]
        if info.over:
            assert mails and all(m.text_body.startswith("Game over: ") and m.decision is None for m in mails)
            assert sorted(m.recipient for m in mails) == sorted(emails)  # the end is news for everybody
            break
        asked = [m for m in mails if m.decision is not None]
        assert [m.recipient for m in asked] == [emails[state.current_player()]], state.moves  # asked once, no more
        assert asked[0].decision == state.moves and asked[0].headers["X-Pbem-Decision"] == str(state.moves)
        assert f"WHAT YOU MAY SEND NOW (decision {state.moves})" in asked[0].text_body
        command = choose(mailed_commands(state, asked[0].text_body), rng, "uniform")
        table.submit(emails.index(asked[0].recipient), command)
        decisions += 1
        mails = table.new_mails()
        assert decisions < 3000
    # The receipts (bids an auction answered later): no hand, no board, 72 columns, the game's subject.
    assert table.receipts
    for receipt in table.receipts:
        assert "Your hand" not in receipt.text_body and receipt.html_body is None and receipt.subject == subject
        assert max(len(line) for line in receipt.text_body.splitlines()) <= 72, receipt.text_body
    engine.dispose()
    assert decisions > 20


def test_one_thread_per_game_whose_root_does_not_reveal_the_seed(database_url: str) -> None:
    """The seed and the engine give every hand and every stack: no header or body may carry it."""
    engine = make_engine(database_url)
    seed = 3797987116
    table = Table(engine, 3, seed)
    other = Table(engine, 3, seed + 1)
    played = random_commands(3, seed, limit=12)
    for seat, command, _ in played:
        table.submit(seat, command)
    mails = table.new_mails()
    roots = {m.headers["References"] for m in mails}
    assert len(mails) > 12 and len(roots) == 1
    assert all(m.headers["In-Reply-To"] == m.headers["References"] != m.message_id for m in mails)
    assert {m.headers["References"] for m in other.new_mails()}.isdisjoint(roots)  # another game, another thread
    for m in mails:
        assert str(seed) not in " ".join([*m.headers.values(), m.subject, m.text_body, m.html_body or ""])
    engine.dispose()


def _replay_until(table: Table, played, stop: int) -> None:
    for seat, command, _ in played[:stop]:
        table.submit(seat, command)
    table.new_mails()


def _last_events(table: Table) -> list[dict]:
    """The public engine events of the game's newest command, as stored for the players' mails."""
    with Session(table.service.engine) as s:
        row = s.exec(select(Event).where(Event.game_id == table.game, Event.kind == "command")
                     .order_by(Event.seq.desc())).first()
    return row.data["events"]


def test_a_build_with_one_choice_is_applied_without_asking(sqlite_engine) -> None:
    seed, step = next(
        (seed, i) for seed in range(20) for i, (_, command, kinds) in enumerate(random_commands(3, seed))
        if command.split()[0] in ("bid", "pass") and "won" in kinds and {"built", "building_stop"} & set(kinds)
    )
    played = random_commands(3, seed)
    table = Table(sqlite_engine, 3, seed)
    _replay_until(table, played, step)
    seat, command, _ = played[step]
    table.submit(seat, command)
    mails = table.new_mails()
    info = table.service.get(table.game)
    won = next(e for e in _last_events(table) if e["kind"] == "won")
    # the win and what was built go to the auction's other bidders and whoever must decide next; the sender, whose
    # bid or pass ended it, reads them in their receipt unless they decide next (issue 47, point 2)
    emails = [e for _, e in table.players]
    told = {emails[b] for b in won["bidders"]} - {emails[seat]} | {emails[info.state.current_player()]}
    assert sorted(m.recipient for m in mails) == sorted(told)
    if emails[seat] not in told:
        receipt = table.receipts[-1]
        assert receipt.recipient == emails[seat] and re.search(r"^  - \w+ (built \d|built nothing|chose to build "
                                                                r"nothing|declared a building stop)", receipt.text_body, re.M)
    # nobody is asked to choose the only choice: the one request is the next player's action
    assert not any(m.text_body.startswith("You won") for m in mails)
    assert [m.recipient for m in mails if m.decision is not None] == [emails[info.state.current_player()]]
    assert all(re.search(r"^  - \w+ (built \d|built nothing|chose to build nothing|declared a building stop)",
                         m.text_body, re.M) for m in mails)


def test_after_the_auctions_the_interrupted_player_gets_their_turn_back(sqlite_engine) -> None:
    """Action C moving a commissioner from Central Park to City Hall stops the turn before its cards."""
    seed, start = next(
        (seed, i) for seed in range(20) for i, (_, command, kinds) in enumerate(random_commands(3, seed))
        if command.startswith("C ") and "auctions" in kinds
    )
    played = random_commands(3, seed)
    end = next(j for j in range(start, len(played)) if "auctions_end" in played[j][2])
    trigger = played[start][0]
    table = Table(sqlite_engine, 3, seed)
    _replay_until(table, played, end)
    seat, command, _ = played[end]
    table.submit(seat, command)
    mails = table.new_mails()
    email = table.players[trigger][1]
    back = [m for m in mails if m.recipient == email]
    assert len(back) == 1 and back[0].decision is not None
    assert back[0].text_body.startswith("Your turn: take two colored cards")
    assert "Still to do this turn: take two colored cards" in " ".join(back[0].text_body.split())
    assert "the auctions are over" in back[0].text_body
    # The others were not asked anything: they hear that the auctions are over in their next mail.
    waiting = {e for _, e in table.players} - {m.recipient for m in mails}
    for seat, command, _ in played[end + 1:]:
        if not waiting:
            break
        table.submit(seat, command)
        for m in table.new_mails():
            if m.recipient in waiting:
                assert "the auctions are over" in m.text_body, m.text_body[:1500]
                waiting.discard(m.recipient)
    assert not waiting
