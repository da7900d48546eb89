"""pbem.mail.text: the lines a player wrote, from real clients' mail shapes.

The corpus in tests/data/mail holds one .eml per client shape, each with a
sidecar ``<name>.expected.json``: {"lines": [...], "body_type": ..., "description": ...}
and, where the HTML alternative reads differently, "html_lines".
"""

from __future__ import annotations

import base64
import json
import random
import time
from email import policy
from email.message import EmailMessage
from email.parser import BytesParser
from pathlib import Path

import pytest

from pbem.games.fifth_avenue import new_game
from pbem.mail.text import (
    MAX_READ_BYTES,
    MAX_HTML_BYTES,
    MAX_HTML_TAGS,
    MAX_TEXT_BYTES,
    MAX_TEXT_LINES,
    MailText,
    _find_bodies,
    decode_bytes,
    decode_payload,
    extract_text,
    html_to_text,
    read_message,
    reply_lines,
    unflow,
)
from pbem.render.text import render_board

pytestmark = pytest.mark.xdist_group("mail_text")  # its module-scoped fixtures are made once, on one worker

CORPUS = Path(__file__).resolve().parents[2] / "data" / "mail"
EMLS = sorted(CORPUS.glob("*.eml"))
PLAYERS = ["Ann", "Bob", "Cy", "Dee"]


def expected(eml: Path) -> dict:
    return json.loads(eml.with_name(eml.stem + ".expected.json").read_text(encoding="utf-8"))


def lines_of(text: str) -> list[str]:
    return reply_lines(text)[0]


def quote(text: str, prefix: str = "> ") -> str:
    return "\n".join(prefix + line if line else prefix.rstrip() for line in text.split("\n"))


def plain_mail(body: str, charset: str = "utf-8", cte: str | None = None, subtype: str = "plain", **params) -> EmailMessage:
    msg = EmailMessage()
    msg["From"] = "Ann Lee <ann@example.org>"
    msg["To"] = "Fifth Avenue <pbem@example.org>"
    msg["Subject"] = "Re: [Fifth Avenue #3] your turn (decision 57)"
    msg.set_content(body, subtype=subtype, charset=charset, cte=cte)
    for key, value in params.items():
        msg.set_param(key, value)
    return msg


def raw_mail(headers: str, body: bytes) -> EmailMessage:
    return read_message(headers.replace("\n", "\r\n").encode("ascii") + b"\r\n" + body)


@pytest.fixture(scope="module")
def board() -> str:
    """A real board as we send it, with the text our notices put above it."""
    state = new_game(3, 1)
    return (
        "Bob played: place 42W brown\n\n- Bob places a skyscraper on the brown plot of 42nd Street West\n\n"
        "It is your turn. You may send: place 34W orange, place 34W green ... (12 in all)\n\n"
        + render_board(state.view(0), players=PLAYERS[:3])
    )


# =========================================================================== the corpus


def test_corpus_is_there():
    assert len(EMLS) >= 32
    for eml in EMLS:
        data = expected(eml)
        assert set(data) >= {"lines", "body_type", "description"}, eml.name
        assert data["body_type"] in ("plain", "html")


@pytest.mark.parametrize("eml", EMLS, ids=lambda p: p.stem)
def test_corpus(eml: Path):
    want = expected(eml)
    got = extract_text(read_message(eml.read_bytes()))
    assert got.lines == want["lines"]
    assert got.body_type == want["body_type"]
    assert got.oversized is want.get("oversized", False)
    assert not any(line.startswith(">") for line in got.lines)
    assert got.body.strip()
    assert all(isinstance(note, str) and note for note in got.ignored)


def _alternatives() -> list[Path]:
    found = []
    for eml in EMLS:
        plain, html = _find_bodies(read_message(eml.read_bytes()), [])
        if plain and html:
            found.append(eml)
    return found


ALTERNATIVES = _alternatives()


def test_corpus_has_html_alternatives():
    assert len(ALTERNATIVES) >= 15


@pytest.mark.parametrize("eml", ALTERNATIVES, ids=lambda p: p.stem)
def test_corpus_html_alternative_reads_the_same(eml: Path):
    """Where a mail has both, its HTML alternative alone gives the same lines as its text part."""
    plain, html = _find_bodies(read_message(eml.read_bytes()), [])
    want = expected(eml)
    text = "\n".join(html_to_text(decode_payload(part)) for part in html)
    assert lines_of(text) == want.get("html_lines", want["lines"])


@pytest.mark.parametrize("eml", EMLS, ids=lambda p: p.stem)
def test_corpus_crlf_and_lf_read_the_same(eml: Path):
    raw = eml.read_bytes()
    lf = raw.replace(b"\r\n", b"\n")
    crlf = lf.replace(b"\n", b"\r\n")
    assert extract_text(read_message(lf)).lines == extract_text(read_message(crlf)).lines == expected(eml)["lines"]


@pytest.mark.parametrize("eml", EMLS, ids=lambda p: p.stem)
def test_corpus_truncated_never_raises(eml: Path):
    raw = eml.read_bytes()
    for cut in range(0, len(raw), max(1, len(raw) // 25)):
        result = extract_text(read_message(raw[:cut]))
        assert isinstance(result, MailText)
        assert clean(result)


# =========================================================================== quotes


def test_quoted_lines_at_any_depth_are_dropped():
    text = "A\n> one\n>> two\n> > three\n   > indented\n>\n>no space\nmove white 34W"
    lines, ignored = reply_lines(text)
    assert lines == ["A", "move white 34W"]
    assert ignored == ["6 quoted lines"]


def test_bottom_posted_reply_keeps_the_text_after_the_quote(board):
    text = "On Mon, 3 Mar 2025 at 10:15, Fifth Avenue <pbem@example.org> wrote:\n\n" + quote(board) + "\n\ncards orange green\n"
    assert lines_of(text) == ["cards orange green"]


def test_interleaved_reply_keeps_every_answer(board):
    parts = board.split("\n")
    text = "\n".join(
        ["On 03.03.25 10:15, Fifth Avenue wrote:", quote("\n".join(parts[:3])), "", "nice one", "",
         quote("\n".join(parts[3:20])), "A", "", quote("\n".join(parts[20:])), "", "move beige TS"]
    )
    assert lines_of(text) == ["nice one", "A", "move beige TS"]


@pytest.mark.parametrize(
    "attribution",
    [
        "On Mon, 3 Mar 2025 at 10:15, Fifth Avenue <pbem@example.org> wrote:",
        "On Mon, Mar 3, 2025 at 10:15\u202fAM Fifth Avenue <pbem@example.org> wrote:",
        "On 3 Mar 2025, at 10:15, Fifth Avenue <pbem@example.org> wrote:",
        "On 03.03.25 10:15, Fifth Avenue wrote:",
        "On Mon, Mar 3, 2025 at 10:15 AM Fifth Avenue (Moderator) <\npbem@example.org> wrote:",
        "On Mon, Mar 3, 2025 at 10:15 AM Fifth Avenue\n<pbem@example.org>\nwrote:",
        "Am 03.03.2025 um 10:15 schrieb Fifth Avenue <pbem@example.org>:",
        "Am Mo., 3. März 2025 um 10:15 Uhr schrieb Fifth Avenue <\npbem@example.org>:",
        "Le lun. 3 mars 2025 à 10:15, Fifth Avenue <pbem@example.org> a\u00a0écrit\u00a0:",
        "Le 03/03/2025 à 10:15, Fifth Avenue a écrit :",
        "El lun, 3 mar 2025 a las 10:15, Fifth Avenue (<pbem@example.org>) escribió:",
        "El 3 mar 2025, a las 10:15, Fifth Avenue <pbem@example.org> escribió:",
        "Il giorno lun 3 mar 2025 alle ore 10:15 Fifth Avenue <pbem@example.org> ha scritto:",
        "Op ma 3 mrt 2025 om 10:15 schreef Fifth Avenue <pbem@example.org>:",
        "Fifth Avenue <pbem@example.org> wrote:",
        "pbem@example.org schrieb:",
    ],
)
def test_attribution_and_its_quote_are_dropped(attribution, board):
    text = f"pass\n\n{attribution}\n\n{quote(board)}\n"
    lines, ignored = reply_lines(text)
    assert lines == ["pass"]
    assert any("attribution" in note for note in ignored)


def test_wrote_line_without_a_quote_after_it_is_kept():
    assert lines_of("Bob wrote:\nI'd rather pass\npass") == ["Bob wrote:", "I'd rather pass", "pass"]


def test_a_line_beginning_with_on_is_not_an_attribution():
    text = "On second thought:\nmove white 34W\nOn 34W please"
    assert lines_of(text) == ["On second thought:", "move white 34W", "On 34W please"]


# Gmail's attribution in languages that put the date first and have no "On".
DATE_FIRST = [
    "man. 23. nov. 2026 kl. 10:00 skrev Ann <ann@example.org>:",  # Norwegian
    "pon., 23 lis 2026 o 10:00 Ann <ann@example.org> napisał(a):",  # Polish
    "ma 23. marrask. 2026 klo 10.00 Ann (ann@example.org) kirjoitti:",  # Finnish
    "пн, 23 нояб. 2026 г. в 10:00, Ann <ann@example.org>:",  # Russian
    "po 23. 11. 2026 v 10:00 odesílatel Ann <ann@example.org> napsal:",  # Czech
    "2026年11月23日(月) 10:00 Ann <ann@example.org>:",  # Japanese
    "2026年11月23日(月) 10:00 Ann <ann@example.org>：",  # Japanese, full-width colon
]


@pytest.mark.parametrize(
    "attribution",
    DATE_FIRST
    + [
        # wrapped by Gmail, mostly before the address
        "man. 23. nov. 2026 kl. 10:00 skrev Ann Lee <\nann@example.org>:",
        "pon., 23 lis 2026 o 10:00 Ann Lee <ann@example.org>\nnapisał(a):",
        "ma 23. marrask. 2026 klo 10.00 Ann Lee (\nann@example.org) kirjoitti:",
        "пн, 23 нояб. 2026 г. в 10:00, Ann Lee (Moderator) <\nann@example.org>:",
        "po 23. 11. 2026 v 10:00 odesílatel Ann Lee <\nann@example.org> napsal:",
        "2026年11月23日(月) 10:00 Ann Lee <\nann@example.org>:",
        # Zoho, framed in dashes
        "---- On Mon, 23 Nov 2026 10:00:00 +0000 Ann <ann@example.org> wrote ----",
        "---- On Mon, 23 Nov 2026 10:00:00 +0000 Ann <ann@example.org>\nwrote ----",
        "---- On Mon, 23 Nov 2026 10:00:00 +0000 Ann\n<ann@example.org> wrote ----",
        # Yahoo, split over two lines, the second starting with the address, with leading spaces
        "On Monday, November 23, 2026, 10:00:00 AM GMT, Ann\n<ann@example.org> wrote:",
        "    On Monday, November 23, 2026, 10:00:00 AM GMT, Ann <\n   ann@example.org> wrote:  ",
        "    On Monday, November 23, 2026, 10:00:00 AM GMT,\n <ann@example.org> wrote:",
        "    Am Montag, 23. November 2026, 10:00:00 MEZ hat Ann\n<ann@example.org> Folgendes geschrieben:  ",
    ],
)
def test_attributions_of_more_clients_and_languages_are_dropped(attribution, board):
    # with the quote below, and alone (our mail cut off, or sent back unquoted further down)
    for text in (f"bid brown 4 6\n\n{attribution}\n\n{quote(board)}\n", f"bid brown 4 6\n\n{attribution}\n"):
        lines, ignored = reply_lines(text)
        assert lines == ["bid brown 4 6"]
        assert "1 attribution line ('On ... wrote:')" in ignored


@pytest.mark.parametrize(
    "attribution",
    [
        "man. 23. nov. 2026 kl. 10:00 skrev Ann Lee\n<ann@example.org>:",
        "2026年11月23日(月) 10:00 Ann <\nann@example.org>:",
        "On Mon, 23 Nov 2026 at 10:00, Ann Lee\n<ann@example.org>\nwrote:",
    ],
)
def test_a_players_line_just_above_an_attribution_is_not_taken_into_it(attribution):
    lines, ignored = reply_lines(f"bid brown 4 6\n{attribution}\n> quoted\n")
    assert lines == ["bid brown 4 6"]
    assert ignored == ["1 quoted line", "1 attribution line ('On ... wrote:')"]


def test_players_lines_with_a_colon_a_date_or_an_address_are_kept():
    text = (
        "bid: brown 4 6\nNote: I am away 2026-12-24\nAt 10:00: bid brown 4 6\nOn Monday I wrote: pass\n"
        "Ask Bob <bob@example.org> about it:\nBob <bob@example.org> said at 10:00 that he passes\n"
        "----- 2026 -----"
    )
    assert reply_lines(text) == (text.split("\n"), [])


@pytest.mark.parametrize(
    "attribution",
    [
        "On Mon, 23 Nov 2026 at 10:00, pbem <game@example.org> wrote:",
        "On 23 November 2026 10:00:00 CET, Fifth Avenue <pbem@example.org> wrote:",
        "Am 23.11.2026 um 10:00 schrieb pbem <game@example.org>:",
        "Le lun. 23 nov. 2026 à 10:00, pbem <game@example.org> a écrit :",
        *DATE_FIRST,
    ],
)
def test_a_command_after_the_attribution_on_the_same_line_is_kept(attribution):
    lines, ignored = reply_lines(f"{attribution} bid brown 4 6\n> quoted\n")
    assert lines == ["bid brown 4 6"]
    assert ignored == ["1 quoted line", "attribution before 'bid brown 4 6' on the same line"]


def test_only_the_attribution_is_cut_from_its_line():
    text = "On Mon, 23 Nov 2026 at 10:00, pbem <game@example.org> wrote: bid: brown 4 6\n> quoted\nthanks"
    assert lines_of(text) == ["bid: brown 4 6", "thanks"]
    # what follows is read as a line of its own
    assert reply_lines("On Mon, 23 Nov 2026 at 10:00, pbem <game@example.org> wrote: end\npass") == (
        [], ["attribution before 'end' on the same line", "text after 'end' (1 line)"])


# =========================================================================== Outlook and forwards


@pytest.mark.parametrize(
    "separator",
    [
        "-----Original Message-----\nFrom: Fifth Avenue [mailto:pbem@example.org]\nSent: Monday, March 3, 2025 10:15 AM\n"
        "To: Bob\nSubject: [Fifth Avenue #3] your turn",
        "-----Ursprüngliche Nachricht-----\nVon: Fifth Avenue <pbem@example.org>\nGesendet: Montag, 3. März 2025 10:15\n"
        "An: Bob\nBetreff: [Fifth Avenue #3] your turn",
        "________________________________\nFrom: Fifth Avenue <pbem@example.org>\nSent: Monday, March 3, 2025 10:15\n"
        "To: Bob\nSubject: [Fifth Avenue #3] your turn",
        "From: Fifth Avenue <pbem@example.org>\nSent: Monday, March 3, 2025 10:15 AM\nTo: Bob\nSubject: your turn",
        "*From:* Fifth Avenue <pbem@example.org>\n*Sent:* Monday, March 3, 2025 10:15 AM\n*To:* Bob",
        "Von: Fifth Avenue <pbem@example.org>\nGesendet: Montag, 3. März 2025 10:15\nAn: Bob\nBetreff: your turn",
        "De : Fifth Avenue <pbem@example.org>\nEnvoyé : lundi 3 mars 2025 10:15\nÀ : Bob\nObjet : your turn",
        "De: Fifth Avenue <pbem@example.org>\nEnviado el: lunes, 3 de marzo de 2025 10:15\nPara: Bob\nAsunto: your turn",
        "From: Fifth Avenue <pbem@example.org>\nDate: Monday, 3 March 2025 at 10:15\nTo: Bob\nSubject: your turn",
        "Od: Fifth Avenue <pbem@example.org>\nWysłano: poniedziałek, 23 listopada 2026 10:00\nDo: Bob\nDW: Cy\n"
        "Temat: your turn",
        "-----Wiadomość oryginalna-----\nOd: Fifth Avenue <pbem@example.org>\nWysłano: 23 listopada 2026 10:00\n"
        "Do: Bob\nTemat: your turn",
        "Lähettäjä: Fifth Avenue <pbem@example.org>\nLähetetty: maanantai 23. marraskuuta 2026 10.00\n"
        "Vastaanottaja: Bob\nKopio: Cy\nAihe: your turn",
        "От: Fifth Avenue <pbem@example.org>\nОтправлено: 23 ноября 2026 г. 10:00\nКому: Bob\nКопия: Cy\n"
        "Тема: your turn",
        "Från: Fifth Avenue <pbem@example.org>\nSkickat: den 23 november 2026 10:00\nTill: Bob\nKopia: Cy\n"
        "Ämne: your turn",
        "________________________________\nFrån: Fifth Avenue <pbem@example.org>\nSkickat: den 23 november 2026 10:00\n"
        "Till: Bob\nÄmne: your turn",
        "Fra: Fifth Avenue <pbem@example.org>\nSendt: 23. november 2026 10:00\nTil: Bob\nEmne: your turn",
        "Fra: Fifth Avenue <pbem@example.org>\nDato: mandag 23. november 2026 kl. 10:00\nTil: Bob\nEmne: your turn",
    ],
)
def test_outlook_header_block_drops_everything_below(separator, board):
    # top-posted: the original below is not quoted, and even a command-like line there is not read
    text = f"D 42W\n\nBob\n\n{separator}\n\n{board}\nA\n"
    lines, ignored = reply_lines(text)
    assert lines == ["D 42W", "Bob"]
    assert ignored and "original message" in ignored[-1]


def test_a_lone_from_line_is_not_a_header_block():
    assert lines_of("From: me, Ann\nA\n\nthanks") == ["From: me, Ann", "A", "thanks"]


@pytest.mark.parametrize(
    "text",
    ["To: Bob, pass", "Til: Bob, pass\nEmne: bid brown 4 6", "Do: Bob\nTemat: pass", "Кому: Bob\nТема: pass",
     "Till: Bob, pass", "Od: me\nA\nthanks"],
)
def test_header_lines_without_a_from_line_before_them_are_the_players(text):
    assert lines_of(text) == text.split("\n")


@pytest.mark.parametrize(
    "marker",
    [
        "---------- Forwarded message ---------",
        "-------- Forwarded Message --------",
        "Begin forwarded message:",
        "---------- Weitergeleitete Nachricht ----------",
        "Anfang der weitergeleiteten Nachricht:",
        "-------- Message transféré --------",
        "---------- Mensaje reenviado ---------",
    ],
)
def test_inline_forward_is_not_the_players_text(marker, board):
    text = f"Here it is again:\nmove white CH\n\n{marker}\nFrom: Fifth Avenue <pbem@example.org>\nDate: Mon\n\n{board}\n"
    lines, ignored = reply_lines(text)
    assert lines == ["Here it is again:", "move white CH"]
    assert "forwarded" in ignored[-1]


# =========================================================================== signatures and 'end'


@pytest.mark.parametrize("delimiter", ["-- ", "--", "  -- "])
def test_signature_and_everything_after_is_dropped(delimiter):
    text = f"build 2\n{delimiter}\nAnn Lee\nB gallery 42W gray\n\n> quoted\n"
    lines, ignored = reply_lines(text)
    assert lines == ["build 2"]
    assert ignored[-1] == "signature (4 lines)"


def test_dashes_inside_a_line_are_not_a_signature():
    assert lines_of("bid gray 4 -- no wait\n--- \nbid gray 5") == ["bid gray 4 -- no wait", "---", "bid gray 5"]


@pytest.mark.parametrize(
    "signature",
    [
        "Sent from my iPhone",
        "Sent from my iPad",
        "Sent from my Android",
        "Sent from my Samsung Galaxy smartphone.",
        "Sent from my Android device with K-9 Mail. Please excuse my brevity.",
        "Get Outlook for iOS",
        "Get Outlook for Android<https://aka.ms/AAb9ysg>",
        "Sent from Mail for Windows",
        "Sent from Mail for Windows 10",
        "Sent from Outlook",
        "Sent from Yahoo Mail on Android",
        "Sent with Proton Mail secure email.",
        "Von meinem iPhone gesendet",
        "Von meinem Samsung Galaxy Smartphone gesendet.",
        "Gesendet von Mail für Windows",
        "Envoyé de mon iPhone",
        "Enviado desde mi iPhone",
    ],
)
def test_phone_signature_and_what_follows_are_dropped(signature):
    text = f"cards orange green\n\n{signature}\n\nmove white 34W\n"
    lines, ignored = reply_lines(text)
    assert lines == ["cards orange green"]
    assert ignored[-1].startswith("phone signature")


def test_sent_from_inside_a_sentence_is_kept():
    text = "I sent from my phone earlier, ignore that\npass"
    assert lines_of(text) == ["I sent from my phone earlier, ignore that", "pass"]


@pytest.mark.parametrize("end", ["end", "END", "End", "  end  "])
def test_end_stops_reading(end):
    lines, ignored = reply_lines(f"A\ncards orange green\n{end}\nmove white 34W\nsee you\n")
    assert lines == ["A", "cards orange green"]
    assert ignored == ["text after 'end' (2 lines)"]


def test_end_only_alone_and_unquoted():
    assert lines_of("> end\nthe end is near\nend of my turn: pass\nA") == ["the end is near", "end of my turn: pass", "A"]


def test_end_as_the_last_line_notes_nothing():
    assert reply_lines("pass\nend\n\n") == (["pass"], [])


# =========================================================================== our board pasted back


def test_our_whole_mail_pasted_back(board):
    lines, ignored = reply_lines(f"cards orange green\n\n{board}")
    assert lines == ["cards orange green"]
    assert ignored[-1].startswith("our board pasted back (")


@pytest.mark.parametrize(
    "first",
    [
        "Fifth Avenue -- 3 players, front side of the board",
        "It is your turn. You may send: A, B gallery 34W orange",
        "Bob played: move white 52E",
        "+---------------------+ +---------------------+",
        "            +---------------------------------------------+",
        "|34W 34th Street West | |34E 34th Street East |",
        "|CH City Hall                                 |",
        "Board for Ann (player 1).",
        "Board for Ann (seat 1).",
        "Waiting for: Bob bids or passes in the auction for Times Square.",
        "THE CITY: commissioners walk from City Hall to Central Park",
        "SUPPLY ROW: action B places a business from the current set (>)",
        "CARD STACKS: top card (cards in the stack)",
        "PLAYERS        score  supply  general  cards",
        "Only you see this:",
        "A game of Fifth Avenue begins: Ann, Bob, Cy.",
        "The moderator changed the game: Bob replaced Ann.",
    ],
)
def test_each_line_we_recognise_starts_our_board(first):
    assert lines_of(f"move beige 42W\n{first}\nA\nmore\n") == ["move beige 42W"]


def _boards() -> list[tuple[str, str]]:
    """Real boards in every kind of moment: setup, turns, auctions, building, the end; 2 to 4 players."""
    boards = []
    for players, back in ((2, False), (3, False), (4, True)):
        state = new_game(players, 5, back_side=back)
        rng = random.Random(players)
        seen: set[str] = set()
        while True:
            kinds = {frame["kind"] for frame in state.view(None)["frames"]} or {"over"}
            for kind in sorted(kinds - seen):
                seen.add(kind)
                seat = state.current_player() if not state.is_terminal() else 0
                hands = {s: state.view(s)["hand"] for s in range(players)}
                for who, view, shown in (("player", state.view(seat), None), ("public", state.view(None), None),
                                         ("moderator", state.view(None), hands)):
                    boards.append((f"{players}p-{kind}-{who}",
                                   render_board(view, players=PLAYERS[:players], hands=shown)))
            if state.is_terminal():
                break
            state.apply_command(state.current_player(), rng.choice(state.legal_commands()))
    return boards


BOARDS = _boards()


@pytest.mark.parametrize("name, text", BOARDS, ids=[name for name, _ in BOARDS])
def test_every_section_of_real_boards_is_recognised(name, text):
    """Pasting our board from the first line of any of its sections leaves nothing of it."""
    board_lines = text.split("\n")
    starts = [0] + [i + 1 for i, line in enumerate(board_lines) if not line.strip() and i + 1 < len(board_lines)]
    for start in starts:
        assert lines_of("pass\n" + "\n".join(board_lines[start:])) == ["pass"], board_lines[start]


def test_boards_cover_auctions_building_and_the_end():
    kinds = {name.split("-")[1] for name, _ in BOARDS}
    assert {"placement", "turn", "auction", "build", "over"} <= kinds


def test_our_board_quoted_is_just_a_quote(board):
    assert reply_lines("A\n" + quote(board))[0] == ["A"]


# =========================================================================== lines


def test_lines_are_stripped_and_blank_lines_dropped():
    text = "  A  \n\n\t\ncards orange green\u00a0\n\u200bmove\u00a0white 34W\r\n"
    assert lines_of(text) == ["A", "cards orange green", "move white 34W"]


def test_chatter_is_kept():
    assert lines_of("Hi all!\nI'll be late this week.\n\nAnn") == ["Hi all!", "I'll be late this week.", "Ann"]


def test_game_line_and_multi_commands_are_kept():
    assert lines_of("game 3\nA\ncards orange green\nmove white 34W") == ["game 3", "A", "cards orange green", "move white 34W"]


def test_empty_text():
    assert reply_lines("") == ([], [])
    assert reply_lines("\n\n  \n") == ([], [])


# =========================================================================== HTML


def test_html_blockquote_becomes_quoted_lines():
    html = "<div>A</div><blockquote>one<br>two<blockquote>deep</blockquote>back</blockquote><p>pass</p>"
    assert html_to_text(html).split("\n") == ["A", "> one", "> two", "> > deep", "> back", "pass"]
    assert lines_of(html_to_text(html)) == ["A", "pass"]


def test_html_breaks_entities_scripts_and_styles():
    html = (
        "<html><head><title>t</title><style>p {color: red}</style></head><body>"
        "<p>move&nbsp;white&nbsp;34W</p><div>Tom &amp; Jerry &lt;3 &eacute;&#233;&#xe9;</div>"
        "A<br>B<br/>C<script>document.write('pass')</script><!-- a comment -->"
        "<ul><li>one</li><li>two</li></ul><table><tr><td>bid</td><td>gray 4</td></tr></table></body></html>"
    )
    assert html_to_text(html).split("\n") == [
        "move white 34W", "Tom & Jerry <3 ééé", "A", "B", "C", "one", "two", "bid gray 4",
    ]


def test_html_whitespace_is_collapsed_outside_pre():
    html = "<div>  cards\n   orange\tgreen </div><pre>line one\n  line two</pre>"
    assert lines_of(html_to_text(html)) == ["cards orange green", "line one", "line two"]


def test_html_gmail_quote():
    html = (
        '<div dir="ltr">B gallery 42W gray</div><br><div class="gmail_quote"><div dir="ltr" class="gmail_attr">'
        'On Mon, 3 Mar 2025 at 10:15, Fifth Avenue &lt;<a href="mailto:pbem@example.org">pbem@example.org</a>&gt; wrote:'
        '<br></div><blockquote class="gmail_quote">Bob played: A<br>It is your turn.</blockquote></div>'
    )
    assert lines_of(html_to_text(html)) == ["B gallery 42W gray"]


def test_html_signatures():
    gmail = '<div>pass</div><div class="gmail_signature" data-smartmail="gmail_signature">Ann<br>B gallery</div>'
    thunderbird = '<p>pass</p><div class="moz-signature">-- <br>Ann</div>'
    outlook = '<div>pass</div><div id="Signature"><p>Ann Lee</p><p>Team Lead</p></div>'
    for html in (gmail, thunderbird, outlook):
        assert lines_of(html_to_text(html)) == ["pass"], html


def test_html_outlook_reply_header():
    html = (
        '<div>stop</div><hr style="display:inline-block;width:98%"><div id="divRplyFwdMsg" dir="ltr">'
        "<b>From:</b> Fifth Avenue &lt;pbem@example.org&gt;<br><b>Sent:</b> Monday<br><b>To:</b> Bob<br>"
        "<b>Subject:</b> your turn</div><div>A</div>"
    )
    assert lines_of(html_to_text(html)) == ["stop"]


def test_html_malformed_never_raises():
    for html in ["<div><blockquote>a<p>b</div>c", "</blockquote></blockquote>x", "<<<>>>&&&;", "<p", "<!--",
                 "<head><p>body text never closed", "<pre>a\nb", "<script>never closed", "<blockquote>" * 5000 + "x",
                 "<![CDATA[x]]>y", "<?xml version='1.0'?><p>ok</p>", "&#xffffffff; &#0; &bogus;"]:
        assert isinstance(html_to_text(html), str)


def test_html_unclosed_head_does_not_hide_the_body():
    assert lines_of(html_to_text("<html><head><meta charset=utf-8><body><p>pass</p>")) == ["pass"]


def test_html_only_mail_is_read_as_html():
    msg = plain_mail("<p>cards orange green</p><blockquote>Bob played: A</blockquote>", subtype="html")
    result = extract_text(msg)
    assert result.body_type == "html"
    assert result.lines == ["cards orange green"]
    assert result.body.startswith("cards orange green\n> Bob played: A")


def test_plain_preferred_over_html():
    msg = plain_mail("A\n")
    msg.add_alternative("<p>B gallery 42W gray</p>", subtype="html")
    result = extract_text(msg)
    assert (result.body_type, result.lines) == ("plain", ["A"])


def test_empty_plain_part_falls_back_to_html():
    msg = plain_mail("\n  \n")
    msg.add_alternative("<p>pass</p>", subtype="html")
    assert (extract_text(msg).body_type, extract_text(msg).lines) == ("html", ["pass"])


# =========================================================================== MIME structure


def test_attachments_are_ignored():
    msg = plain_mail("A\n")
    msg.add_attachment(b"\x89PNG\r\n\x1a\n", maintype="image", subtype="png", filename="board.png")
    msg.add_attachment("pass\nstop\n", subtype="plain", filename="notes.txt")
    result = extract_text(msg)
    assert result.lines == ["A"]
    assert "attachment image/png (board.png)" in result.ignored
    assert "attachment text/plain (notes.txt)" in result.ignored


def test_only_an_attachment_gives_no_body():
    msg = EmailMessage()
    msg.add_attachment("pass\n", subtype="plain", filename="move.txt")
    result = extract_text(msg)
    assert (result.body, result.body_type, result.lines) == ("", "none", [])


def test_text_attachment_by_disposition_alone():
    msg = plain_mail("pass\n")
    msg.replace_header("Content-Type", "text/plain")
    msg["Content-Disposition"] = "attachment"
    assert extract_text(msg).body_type == "none"


def test_forwarded_message_part_is_not_the_players_text():
    inner = plain_mail("stop\n")
    outer = plain_mail("A\n")
    outer.add_attachment(inner)  # message/rfc822
    result = extract_text(outer)
    assert result.lines == ["A"]
    assert any("message/rfc822" in note for note in result.ignored)
    only = EmailMessage()
    only.set_content(inner)
    assert extract_text(only).body_type == "none"


def split_by_image(first: str, second: str, subtype: str = "plain", image: str = 'inline; filename="IMG_0042.png"',
                   flowed: tuple[bool, bool] = (False, False)) -> EmailMessage:
    """Apple Mail's and iOS's shape: a multipart/mixed of text, an inline image, text."""
    def text_part(body: str, is_flowed: bool) -> str:
        params = "; format=flowed" if is_flowed else ""
        return f"--b\nContent-Type: text/{subtype}; charset=utf-8{params}\n\n{body}\n"

    disposition = f"Content-Disposition: {image}\n" if image else ""
    raw = (
        "Content-Type: multipart/mixed; boundary=b\n\n" + text_part(first, flowed[0])
        + f"--b\nContent-Type: image/png\n{disposition}Content-Transfer-Encoding: base64\n\niVBORw0KGgo=\n"
        + text_part(second, flowed[1]) + "--b--\n"
    )
    return read_message(raw.encode())


@pytest.mark.parametrize("image", ['inline; filename="IMG_0042.png"', "inline", ""])
def test_text_split_by_an_inline_image_is_read_whole(image):
    second = "bid brown 4 6\n\n> On 23 Nov 2026, at 10:00, Fifth Avenue <pbem@example.org> wrote:\n> Cy played: A\n"
    result = extract_text(split_by_image("Look at the violet stack:", second, image=image))
    assert (result.body_type, result.lines) == ("plain", ["Look at the violet stack:", "bid brown 4 6"])
    assert result.body.startswith("Look at the violet stack:\nbid brown 4 6\n")


def test_html_split_by_an_inline_image_is_read_whole():
    second = "<div>bid brown 4 6</div><blockquote type=\"cite\">Cy played: A</blockquote>"
    result = extract_text(split_by_image("<html><body><div>Look:</div></body></html>", second, subtype="html"))
    assert (result.body_type, result.lines) == ("html", ["Look:", "bid brown 4 6"])


def test_each_split_part_is_unflowed_by_its_own_format():
    msg = split_by_image("I will take the cards this \ntime.", "cards orange green \nmove white 34W",
                         flowed=(True, False))
    assert extract_text(msg).lines == ["I will take the cards this time.", "cards orange green", "move white 34W"]


def test_split_text_still_skips_attachments_and_forwarded_mail():
    msg = plain_mail("Look at the violet stack:\n")
    msg.add_attachment(b"\x89PNG\r\n\x1a\n", maintype="image", subtype="png", disposition="inline", filename="a.png")
    msg.add_attachment("bid brown 4 6\n", subtype="plain", disposition="inline")
    msg.add_attachment("pass\n", subtype="plain", filename="notes.txt")
    msg.add_attachment(plain_mail("stop\n"))  # message/rfc822
    result = extract_text(msg)
    assert result.lines == ["Look at the violet stack:", "bid brown 4 6"]
    assert "attachment text/plain (notes.txt)" in result.ignored


def test_an_alternative_gives_one_part_of_each_kind():
    """Alternatives say the same thing again: they are not joined, and the plain one pairs with the (split) HTML."""
    raw = (
        "Content-Type: multipart/alternative; boundary=alt\n\n--alt\nContent-Type: text/plain\n\nLook:\nbid brown 4 6\n"
        "--alt\nContent-Type: text/plain\n\nLook again:\nbid brown 4 6\n"
        "--alt\nContent-Type: multipart/mixed; boundary=mix\n\n--mix\nContent-Type: text/html\n\n<p>Look:</p>\n"
        "--mix\nContent-Type: image/png\nContent-Disposition: inline\n\nx\n"
        "--mix\nContent-Type: text/html\n\n<p>bid brown 4 6</p>\n--mix--\n--alt--\n"
    )
    msg = read_message(raw.encode())
    result = extract_text(msg)
    assert (result.body_type, result.lines) == ("plain", ["Look:", "bid brown 4 6"])
    assert "another text/plain alternative" in result.ignored
    plain, html = _find_bodies(msg, [])
    assert (len(plain), len(html)) == (1, 2)
    assert lines_of("\n".join(html_to_text(decode_payload(part)) for part in html)) == ["Look:", "bid brown 4 6"]


def test_nested_multipart_mixed():
    raw = (
        "Content-Type: multipart/mixed; boundary=outer\n\n--outer\nContent-Type: multipart/mixed; boundary=mid\n\n"
        "--mid\nContent-Type: multipart/alternative; boundary=inner\n\n--inner\nContent-Type: text/plain\n\n"
        "move white 34W\n--inner\nContent-Type: text/html\n\n<p>x</p>\n--inner--\n--mid\n"
        "Content-Type: application/pdf\n\n%PDF\n--mid--\n--outer--\n"
    )
    result = extract_text(read_message(raw.encode()))
    assert (result.body_type, result.lines) == ("plain", ["move white 34W"])


# =========================================================================== charsets and transfer encodings


@pytest.mark.parametrize("cte", ["quoted-printable", "base64", "8bit"])
@pytest.mark.parametrize("charset", ["utf-8", "iso-8859-1", "windows-1252", "iso-8859-15"])
def test_charsets_and_transfer_encodings(charset, cte):
    text = "Grüße, Gérard\nB Parfümerie 52W grün\n"
    result = extract_text(plain_mail(text, charset=charset, cte=cte))
    assert result.lines == ["Grüße, Gérard", "B Parfümerie 52W grün"]


def test_qp_soft_line_breaks_are_joined():
    body = b"A very long line that the mail client broke with a soft line break somewhere in=\r\n the middle\r\npass\r\n"
    msg = raw_mail("Content-Type: text/plain; charset=utf-8\nContent-Transfer-Encoding: quoted-printable\n", body)
    assert extract_text(msg).lines == [
        "A very long line that the mail client broke with a soft line break somewhere in the middle", "pass"]


def test_decode_fallbacks():
    assert decode_bytes("Grüße".encode("utf-8"), "utf-8") == "Grüße"
    assert decode_bytes("Grüße".encode("latin-1"), "iso-8859-1") == "Grüße"
    assert decode_bytes("“quoted” €".encode("cp1252"), "iso-8859-1") == "“quoted” €"  # labelled Latin-1, written cp1252
    assert decode_bytes("Grüße".encode("utf-8"), "us-ascii") == "Grüße"  # labelled ASCII, written UTF-8
    assert decode_bytes("Grüße".encode("utf-8"), "no-such-charset") == "Grüße"
    assert decode_bytes("Grüße".encode("latin-1"), "no-such-charset") == "Grüße"
    assert decode_bytes("Grüße".encode("latin-1"), "") == "Grüße"
    assert decode_bytes("Grüße".encode("latin-1"), "utf-8") == "Grüße"  # labelled UTF-8, is not
    assert decode_bytes(b"\x81\x8d\x8f\x90\x9d", "") == "\x81\x8d\x8f\x90\x9d"  # not even cp1252: Latin-1
    assert "\ufffd" in decode_bytes(b"\x82\xa0\xff", "shift_jis")  # wrong bytes for a known charset: replaced


@pytest.mark.parametrize("charset", ["x-unknown", "utf-99", '"', "", "utf-8\x00", "base64", "rot13", "idna", "a" * 300])
def test_wrong_charset_names_never_raise(charset):
    body = "cards orange green\nGrüße\n".encode("utf-8")
    msg = raw_mail(f'Content-Type: text/plain; charset="{charset}"\nContent-Transfer-Encoding: 8bit\n', body)
    result = extract_text(msg)
    assert result.lines[0] == "cards orange green"


def test_utf16_body():
    body = "pass\r\n".encode("utf-16")
    msg = raw_mail("Content-Type: text/plain; charset=utf-16\nContent-Transfer-Encoding: base64\n",
                   base64.encodebytes(body))
    assert extract_text(msg).lines == ["pass"]


# =========================================================================== format=flowed


def test_unflow_joins_soft_breaks_and_keeps_quotes():
    text = "a long line that \ngoes on\n> quoted soft \n> and more\n>> deeper\n space-stuffed\n-- \nsig"
    assert unflow(text).split("\n") == [
        "a long line that goes on", "> quoted soft and more", ">> deeper", "space-stuffed", "-- ", "sig"]
    assert unflow("one \ntwo", delsp=True) == "onetwo"


def test_flowed_mail_is_unflowed():
    msg = raw_mail("Content-Type: text/plain; charset=utf-8; format=flowed\n",
                   b"I will take the cards this \r\ntime.\r\ncards orange green\r\n")
    assert extract_text(msg).lines == ["I will take the cards this time.", "cards orange green"]


def test_trailing_space_without_flowed_is_a_hard_break():
    msg = raw_mail("Content-Type: text/plain; charset=utf-8\n", b"cards orange green \r\nmove white 34W\r\n")
    assert extract_text(msg).lines == ["cards orange green", "move white 34W"]


# =========================================================================== oversized


def test_oversized_plain():
    body = ("pass\n" + "x" * 99 + "\n") * (MAX_TEXT_BYTES // 100 + 10)
    result = extract_text(plain_mail(body))
    assert result.oversized is True
    assert result.lines == []
    assert result.body_type == "plain"
    assert any("oversized" in note for note in result.ignored)


def test_more_own_lines_than_the_limit_is_oversized():
    """Short lines cost as much to read as long ones: their number is bounded too."""
    result = extract_text(plain_mail("pass\n" + "x\n" * MAX_TEXT_LINES))
    assert (result.oversized, result.lines) == (True, [])
    assert result.ignored[-1] == f"oversized: the player's own lines are more than {MAX_TEXT_LINES}"
    assert extract_text(plain_mail("pass\n" + "x\n" * (MAX_TEXT_LINES - 1))).lines[0] == "pass"


def test_a_dense_html_body_is_read():
    """Tags by the ten thousand, closed and left open (bench/hostile.py times such a body: before the parser
    kept count of its open tags it took 46 s)."""
    html = "<p>pass</p>" + "<b> </b>" * 15_000 + "<i>y" * 9_000 + "</i><p>done</p>"
    result = extract_text(raw_mail("Content-Type: text/html; charset=utf-8\n", html.encode()))
    assert result.lines == ["pass", "y" * 9_000, "done"] and not result.oversized


def test_an_html_body_is_read_up_to_its_most_tags_and_the_player_told():
    # Issue 41: 1 MB of 124,000 tags cost 2.2 s of CPU to handle; the text after MAX_HTML_TAGS tags is not read.
    html = "<p>pass</p>" + "<b> </b>" * (MAX_HTML_TAGS // 2) + "<p>done</p>"
    result = extract_text(raw_mail("Content-Type: text/html; charset=utf-8\n", html.encode()))
    assert result.lines == ["pass"] and not result.oversized
    assert result.unread == [f"text after {MAX_HTML_TAGS} HTML tags (not read)"]


def test_oversized_counts_utf8_bytes_not_characters():
    body = "ü" * (MAX_TEXT_BYTES // 2 + 10)  # fewer characters than MAX_TEXT_BYTES, more bytes
    assert len(body) < MAX_TEXT_BYTES
    assert extract_text(plain_mail(body)).oversized is True


def test_just_under_the_limit_is_read():
    body = "pass\n" + "y" * (MAX_TEXT_BYTES - 100) + "\n"
    result = extract_text(plain_mail(body, cte="base64"))
    assert result.oversized is False
    assert result.lines[0] == "pass"


def test_oversized_html_is_not_parsed():
    html = "<p>pass</p>" + "<div>" * (MAX_HTML_BYTES // 5 + 1)
    result = extract_text(raw_mail("Content-Type: text/html; charset=utf-8\n", html.encode()))
    assert (result.oversized, result.lines, result.body_type) == (True, [], "html")
    assert result.body == html  # its source, unread


OUR_LINE = "It is your turn. You may send: place 34W orange, place 34W green, place 34W brown"
OWN_LINE = "I think we should talk about the orange plot before anyone builds there"


def filler(size: int, prefix: str = "", line: str = OUR_LINE) -> str:
    """About ``size`` bytes of ``line``, each starting with ``prefix``."""
    line = prefix + line + "\n"
    return line * (size // len(line) + 1)


LONG_QUOTES = {
    "quoted": lambda: filler(1_500_000, "> "),
    "attribution and quote": lambda: "On Mon, 23 Nov 2026 at 10:00, Fifth Avenue <pbem@example.org> wrote:\n\n"
    + filler(1_500_000, "> "),
    "outlook original": lambda: "-----Original Message-----\nFrom: Fifth Avenue <pbem@example.org>\n"
    "Sent: Monday, November 23, 2026 10:00 AM\nTo: Ann\nSubject: your turn\n\n" + filler(1_500_000),
}


@pytest.mark.parametrize("shape", LONG_QUOTES)
def test_a_short_command_above_a_long_quote_is_read(shape):
    body = "bid brown 4 6\n\n" + LONG_QUOTES[shape]()
    assert len(body) > 1.4 * MAX_TEXT_BYTES
    result = extract_text(raw_mail("Content-Type: text/plain; charset=utf-8\n", body.encode()))
    assert (result.oversized, result.lines) == (False, ["bid brown 4 6"])
    assert result.body == body


def test_a_short_command_above_a_long_html_quote_is_read():
    html = "<div>bid brown 4 6</div><blockquote>" + filler(MAX_HTML_BYTES - 100_000).replace("\n", "<br>\n") + "</blockquote>"
    assert MAX_HTML_BYTES * 0.9 < len(html) < MAX_HTML_BYTES
    result = extract_text(raw_mail("Content-Type: text/html; charset=utf-8\n", html.encode()))
    assert (result.oversized, result.lines, result.body_type) == (False, ["bid brown 4 6"], "html")


def test_long_own_text_is_oversized():
    body = "bid brown 4 6\n" + filler(1_500_000, line=OWN_LINE * 10)  # long lines: fewer than MAX_TEXT_LINES
    result = extract_text(raw_mail("Content-Type: text/plain; charset=utf-8\n", body.encode()))
    assert (result.oversized, result.lines) == (True, [])
    assert result.body == body  # read, then refused
    assert result.ignored[-1] == f"oversized: the player's own lines pass {MAX_TEXT_BYTES} bytes"


def test_a_body_over_the_read_ceiling_is_not_read():
    body = "bid brown 4 6\n\n" + filler(MAX_READ_BYTES, "> ")
    result = extract_text(raw_mail("Content-Type: text/plain; charset=utf-8\n", body.encode()))
    assert (result.oversized, result.lines) == (True, [])
    assert result.ignored == [f"oversized plain body ({len(body)} bytes, at most {MAX_READ_BYTES})"]


def test_reply_lines_stops_reading_past_its_limit():
    assert reply_lines("ab\ncd\nef\n\ngh\n> quoted\nij", limit=3) == (
        ["ab", "cd"], ["text after 3 bytes of own lines (4 lines)"])
    assert reply_lines("ab\ncd", limit=4) == (["ab", "cd"], [])


def test_large_but_allowed_mail_is_quick():
    body = "On a\nwrote:\n" * 60_000 + ("> " + "q" * 70 + "\n") * 3_000
    start = time.perf_counter()
    result = extract_text(plain_mail(body))
    assert not result.oversized
    assert result.lines == []
    assert time.perf_counter() - start < 10


# =========================================================================== never raises


CONTROL = set(map(chr, [*range(0, 9), 11, 12, *range(14, 32), *range(0x7F, 0xA0)]))


def clean(result: MailText) -> bool:
    """No quoted line, and no NUL or other control character, in what the store and the replies get."""
    return not any(line.startswith(">") or CONTROL & set(line) for line in result.lines) and not CONTROL & set(result.body)


def test_control_characters_are_removed():
    msg = raw_mail("Content-Type: text/plain; charset=latin-1\n", b"pa\x00ss\r\nA\x07\x1b\x7f\r\n\x00\r\n")
    result = extract_text(msg)
    assert result.lines == ["pass", "A"]
    assert clean(result)
    assert lines_of("bi\x00d\x0c gray\x85 4") == ["bid gray 4"]


def test_read_message_never_raises_on_garbage():
    rng = random.Random(20250303)
    for size in [0, 1, 2, 10, 100, 1000, 10_000]:
        for _ in range(30):
            raw = bytes(rng.getrandbits(8) for _ in range(size))
            msg = read_message(raw)
            assert isinstance(msg, EmailMessage)
            result = extract_text(msg)
            assert isinstance(result, MailText)
            assert result.body_type in ("plain", "html", "none")
            assert clean(result)


def test_garbage_with_mime_words_never_raises():
    rng = random.Random(7)
    words = [b"Content-Type:", b"multipart/mixed;", b"boundary=", b"--", b"\r\n", b"\n", b"text/plain", b"text/html",
             b"charset=", b"x-bogus", b"Content-Transfer-Encoding:", b"base64", b"quoted-printable", b"=\n", b"=ZZ",
             b"message/rfc822", b"<blockquote>", b"> ", b"=?utf-8?B?", b"?=", b"\xff\xfe", b"\x00", b"filename*=", b"'"]
    for _ in range(400):
        raw = b"".join(rng.choice(words) + (b" " if rng.random() < 0.3 else b"") for _ in range(rng.randrange(1, 80)))
        result = extract_text(read_message(raw))
        assert isinstance(result, MailText)
        assert clean(result)


@pytest.mark.parametrize(
    "raw",
    [
        b"",
        b"\r\n\r\n",
        b"Content-Type: multipart/mixed\r\n\r\n--x\r\nContent-Type: text/plain\r\n\r\npass\r\n--x--\r\n",
        b"Content-Type: multipart/alternative; boundary=\"never-used\"\r\n\r\npass\r\n",
        b"Content-Type: multipart/mixed; boundary=b\r\n\r\n--b\r\nContent-Type: text/plain\r\n\r\npass",
        b"Content-Type: text/plain; charset=\r\nContent-Transfer-Encoding: base64\r\n\r\n!!!not base64!!!",
        b"Content-Type: text/plain\r\nContent-Transfer-Encoding: quoted-printable\r\n\r\n=\r\n=Z=\xff=4",
        b"Content-Type: text/plain\r\nContent-Transfer-Encoding: x-uuencode\r\n\r\nbegin 644 f\r\n`\r\nend\r\n",
        b"Content-Type: \r\n\r\npass",
        b"Content-Type: text/plain; charset*=utf-8''%FF%FE\r\n\r\npass",
        b"Content-Type: text/plain; name*0*=utf-8''a; name*1=b\r\nContent-Disposition: attachment; filename*=bogus''%ZZ\r\n\r\nx",
        b"Content-Type: message/rfc822\r\n\r\nnot a message",
        b"From: =?utf-8?q?broken\r\nSubject: =?x-bogus?B?!!!?=\r\n\r\npass",
        b"\x00\x01\x02Content-Type: text/html\r\n\r\n<p>pass",
        b"Content-Type: multipart/mixed; boundary=a\r\n\r\n" + b"--a\r\nContent-Type: multipart/mixed; boundary=a\r\n\r\n" * 300,
    ],
)
def test_broken_mime_never_raises(raw):
    result = extract_text(read_message(raw))
    assert isinstance(result, MailText)
    assert clean(result)


def test_missing_boundary_gives_no_body():
    raw = b"Content-Type: multipart/mixed\r\n\r\n--x\r\nContent-Type: text/plain\r\n\r\npass\r\n--x--\r\n"
    result = extract_text(read_message(raw))
    assert result.body_type == "none"
    assert any("no boundary" in note for note in result.ignored)


def test_deeply_nested_multiparts():
    depth = 200
    raw = "".join(f"Content-Type: multipart/mixed; boundary=b{i}\n\n--b{i}\n" for i in range(depth))
    raw += "Content-Type: text/plain\n\npass\n" + "".join(f"--b{i}--\n" for i in reversed(range(depth)))
    assert isinstance(extract_text(read_message(raw.encode())), MailText)


def test_not_bytes_and_not_messages():
    assert isinstance(read_message(None), EmailMessage)  # type: ignore[arg-type]
    assert isinstance(read_message(12), EmailMessage)  # type: ignore[arg-type]
    assert read_message("Content-Type: text/plain\n\npass").get_content_type() == "text/plain"  # type: ignore[arg-type]
    for weird in (None, 3, "text", b"bytes", object()):
        result = extract_text(weird)  # type: ignore[arg-type]
        assert (result.body_type, result.lines) == ("none", [])


def test_compat32_messages_are_read_too():
    msg = BytesParser(policy=policy.compat32).parsebytes(b"Content-Type: text/plain\r\n\r\npass\r\n> quoted\r\n")
    assert extract_text(msg).lines == ["pass"]  # type: ignore[arg-type]


# Issue 41, point 4 (docs/rules.md D49): software's lines go, the player's stay.
@pytest.mark.parametrize("text", [
    "Caution: bid brown 4\nthanks",  # a warning word that speaks of nothing outside
    "WARNING: I may be late\npass",
    "Attention: the links on the board confuse me\npass",  # no 'outside'
    "Done: pass\nWaiting: Bob",  # our heading words, but no board of ours below
    "__\nbid brown 4",  # a rule with no list's words under it
])
def test_lines_that_only_look_like_software_are_the_players(text):
    assert lines_of(text) == text.split("\n")


def test_a_warning_banner_is_dropped_and_the_text_under_it_kept():
    banner = ("CAUTION: This email originated from outside of the organization. Do not click\n"
              "links or open attachments unless you recognize the sender.\n\n")
    assert lines_of(banner + "bid brown 4 6\nCheers") == ["bid brown 4 6", "Cheers"]
    assert lines_of("[EXTERNAL]\n\npass") == ["pass"]


def test_an_interleaved_answer_under_a_dated_attribution_is_kept():
    text = "On Mon, 3 Nov 2026 at 10:02, Fifth Avenue <game@pbem.example> wrote:\nbid brown 4\n> Your turn"
    assert lines_of(text) == ["bid brown 4"]
    yahoo = "pass\n\nOn Monday, November 3, 2026, 10:02:11 AM GMT+1, Fifth Avenue <game@pbem.example> wrote:\n\nBob bid 8"
    assert lines_of(yahoo) == ["pass"]


def test_a_players_line_above_our_head_stays():
    assert lines_of("- pass\nDone: cards brown violet\nSince your last mail:") == ["- pass"]


def test_mutts_attribution_goes_with_its_quote_only():
    mutt = "* Fifth Avenue <game@pbem.example> [2026-11-03 10:02]:"
    assert lines_of(f"{mutt}\n> Your turn\n\npass") == ["pass"]
    assert lines_of(f"{mutt}\npass") == [mutt, "pass"]  # no quote under it: the player's line
