"""Names as people write them (issue 35, point 3): no board cuts a name to a fixed number of characters.

The text boards of both games (72 columns, as every mail's text part), the HTML boards of the mails and the
archive (``render.html.render_board_html``, which the archive's steps show) are rendered for positions of seeded
random games with names in four scripts and one of 40 characters; each name is there whole, on one line of
the text where it fits, and a long one wraps rather than widening a line. The pictures have their own tests
(test_pictures.py).
"""

from __future__ import annotations

import html
import re

import pytest

from pbem.games import get_game
from pbem.games.rng import Rng
from pbem.render import board as render_board
from pbem.render.html import render_board_html
from pbem.render.text import WIDTH, owner_names
from pbem.services.offline.simulate import choose

LONG_NAME = "Maximiliana Wolkenstein-Rodeneck y Pérez"
WORLD = ["Zoë Lefèvre", "Łukasz Żółć", "Ωμέγα", "Дмитрий", LONG_NAME]
assert len(LONG_NAME) == 40


def positions(kind: str, players: int, seed: int, **options):
    """Some positions of a seeded random game: every 7th and the last (auctions, builds, the final scoring)."""
    s = get_game(kind).new_game(players, seed=seed, **options)
    rng = Rng(seed)
    step = 0
    while not s.is_terminal():
        if step % 7 == 0:
            yield s.clone()
        s.apply_action(s.current_player(), choose(s.legal_actions(), rng, "by-kind"))
        step += 1
    yield s


def name_sets(players: int) -> list[list[str]]:
    """Every name of WORLD in some seat, the long one among them."""
    return [WORLD[:players - 1] + [LONG_NAME], WORLD[-players:], WORLD[1:players] + [WORLD[0]]]


def test_owner_names_are_whole():
    assert owner_names([f"{LONG_NAME} <m@example.org>", "Zoë Lefèvre"]) == [LONG_NAME, "Zoë Lefèvre"]
    assert owner_names(["Łukasz Żółć (robot)"]) == ["Łukasz Żółć"]  # the seat's mark, not the name, goes
    assert owner_names([LONG_NAME, LONG_NAME]) == [f"{LONG_NAME}#1", f"{LONG_NAME}#2"]


CASES = [("fifth-avenue", players, {"back_side": back}) for players in (2, 3, 4) for back in (False, True)]
CASES += [("manhattan", players, {}) for players in (2, 3, 4)]


@pytest.mark.parametrize("kind,players,options", CASES)
def test_text_boards_show_every_name_whole_within_72_columns(kind, players, options):
    for names in name_sets(players):
        for s in positions(kind, players, seed=players + 1, **options):
            for viewer in (*range(players), None):
                text = render_board(kind, s.view(viewer), players=names)
                for line in text.splitlines():
                    assert len(line) <= WIDTH, line
                for name in names:
                    assert name in text, (name, text)
                assert "Lefèvr " not in text and "Lefèvr\n" not in text and not re.search(r"Zoë Lefèv\b", text)
                if viewer is not None:
                    mine = names[viewer]
                    # "Board for NAME": whole, wrapped over two lines when long
                    assert mine in " ".join(text.split("\n\n")[0].split()), text[:300]


@pytest.mark.parametrize("kind,players,options", CASES)
def test_html_boards_and_the_archives_show_every_name_whole(kind, players, options):
    """The mails' HTML and the archive's steps (the public view) draw the same HTML board."""
    for names in name_sets(players):
        for s in positions(kind, players, seed=players + 2, **options):
            for viewer in (0, None):
                page = html.unescape(str(render_board_html(kind, s.view(viewer), players=names)))
                for name in names:
                    assert name in page, name
                if viewer is not None and kind == "manhattan":
                    assert f"Board for {names[0]} (player 1)" in page


def test_the_final_scoring_table_wraps_long_names_in_their_columns():
    """Fifth Avenue's final table has a column a player: a long name wraps inside its 10 columns, and a word longer
    than that is never broken (issue 47): it takes a head line of its own that ends where its column ends."""
    s = list(positions("fifth-avenue", 4, seed=3))[-1]
    names = [LONG_NAME, "Zoë Lefèvre", "Ωμέγα", "Дмитрий"]
    text = render_board("fifth-avenue", s.view(0), players=names)
    rows = text[text.index("FINAL SCORING"):].splitlines()[1:]
    head = rows[: next(i for i, row in enumerate(rows) if row.strip().startswith("before final scoring"))]
    assert len(head) > 1 and all(len(line) <= WIDTH for line in head)
    for seat, name in enumerate(names):
        end = 24 + 11 * seat + 10  # where the seat's column ends
        cells = [line[:end].strip() if line[end - 11] != " " else line[end - 10:end].strip()  # a word of its own
                 for line in head if len(line) >= end and line[end - 1] != " "]
        assert " ".join(cells) == name, (name, head)


TWENTY = "Zoë Lefèvre-Martinez"  # the name issue 47 found broken mid-word ("Lefèvre-Martin" / "ez x1")
assert len(TWENTY) == 20


@pytest.mark.parametrize("kind,players", [("fifth-avenue", 2), ("fifth-avenue", 3), ("fifth-avenue", 4),
                                          ("manhattan", 3), ("manhattan", 4)])
def test_a_twenty_letter_name_is_never_broken_inside_a_word(kind, players):
    """Every text board, every viewer: each word of the name is whole wherever the name is, within 72 columns
    (the mails' text width, under the 80 of a terminal); the boxes of the map hang its lines less to fit it."""
    names = ["Bob", TWENTY, "Cy", "Dee"][:players]
    for s in positions(kind, players, seed=players + 4):
        for viewer in (*range(players), None):
            text = render_board(kind, s.view(viewer), players=names)
            assert all(len(line) <= WIDTH for line in text.splitlines())
            for piece in re.findall(r"\S*(?:Lef|Mart|tinez)\S*", text):
                assert piece.strip("|,.:;()") in ("Lefèvre-Martinez", "Lefèvre-Martinez's"), (piece, text)
