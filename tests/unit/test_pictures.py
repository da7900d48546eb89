"""Pictures of the board (pbem.render.pictures): PNG bytes drawn from a view, for the HTML part of a mail.

Positions come from seeded random games of both engines (the ``by-kind``
policy of ``pbem sim``), at the start, in the middle and at the end. The
pictures are decoded with Pillow and read back pixel by pixel at the places the
renderer's own geometry (``layout()``) names, so no pixel number is written
here.
"""

from __future__ import annotations

import io
import json
import re
from functools import lru_cache

import pytest
from PIL import Image

from pbem.games import get_game
from pbem.games.fifth_avenue.board import load_board as fa_board
from pbem.games.manhattan.board import absolute_site, seen_from
from pbem.games.manhattan.board import load_board as mh_board
from pbem.games.rng import Rng
from pbem.render.pictures import MAX_BYTES, MAX_WIDTH, board_alt, board_picture
from pbem.render.pictures import fifth_avenue as fa_picture
from pbem.render.pictures import manhattan as mh_picture
from pbem.render.pictures.canvas import printable
from pbem.render.pictures.palette import (
    BOARD_COLORS,
    PLAYER_COLORS,
    PLOT_COLORS,
    all_colors,
    fifth_avenue_owner,
    manhattan_color,
)
from pbem.services.offline.simulate import choose

NAMES = ["Ann <ann@example.org>", "Bob <bob@example.org>", "Carla Díaz-Ramírez", "Dee"]
SHORT = ["Ann", "Bob", "Carla Díaz-Ramírez", "Dee"]
# names as people write them (issue 35): accents, Polish, Greek, Cyrillic, and 40 characters
LONG_NAME = "Maximiliana Wolkenstein-Rodeneck y Pérez"
WORLD = ["Zoë Lefèvre", "Łukasz Żółć", "Ωμέγα", "Дмитрий", LONG_NAME]
PHONE = 370  # the width the mail's HTML shows a picture at on a 390 px phone (CSS px)


# --------------------------------------------------------------------------- helpers


@lru_cache(maxsize=None)
def game(kind: str, players: int, seed: int, back_side: bool = False) -> tuple:
    """Every position of one seeded random game (copies), the final one included."""
    options = {"back_side": back_side} if kind == "fifth-avenue" else {}
    s = get_game(kind).new_game(players, seed=seed, **options)
    rng = Rng(seed)
    positions = [s.clone()]
    while not s.is_terminal():
        s.apply_action(s.current_player(), choose(s.legal_actions(), rng, "by-kind"))
        positions.append(s.clone())
    return tuple(positions)


def moments(kind: str, players: int, seed: int, back_side: bool = False) -> dict:
    positions = game(kind, players, seed, back_side)
    return {"start": positions[0], "mid": positions[len(positions) // 2], "end": positions[-1]}


def picture(kind: str, view: dict, players: int) -> Image.Image:
    data = board_picture(kind, view, players=NAMES[:players])
    image = Image.open(io.BytesIO(data))
    image.load()
    return image


def rgb(image: Image.Image, point: tuple[int, int]) -> tuple[int, int, int]:
    return image.convert("RGB").getpixel(point)


# --------------------------------------------------------------------------- both games: the file


FA_CASES = [(players, back, moment)
            for players in (2, 3, 4) for back in (False, True) for moment in ("start", "mid", "end")]
MH_CASES = [(players, moment) for players in (2, 3, 4) for moment in ("start", "mid", "end")]


@pytest.mark.parametrize("players,back_side,moment", FA_CASES)
def test_fifth_avenue_picture_is_a_small_png(players, back_side, moment):
    s = moments("fifth-avenue", players, seed=players + 3, back_side=back_side)[moment]
    data = board_picture("fifth-avenue", s.view(0), players=NAMES[:players])
    assert data.startswith(b"\x89PNG\r\n\x1a\n")
    assert len(data) <= MAX_BYTES
    image = Image.open(io.BytesIO(data))
    assert image.format == "PNG"
    assert image.mode == "P"  # a palette image: small
    assert image.width <= MAX_WIDTH
    drawn = fa_picture.drawing(s.view(0), players=NAMES[:players])
    assert (image.width, image.height) == (fa_picture.layout(back_side).width, drawn.height)
    assert image.height > fa_picture.layout(back_side).legend_top  # the players' lines below the key


@pytest.mark.parametrize("players,moment", MH_CASES)
def test_manhattan_picture_is_a_small_png_from_every_side(players, moment):
    s = moments("manhattan", players, seed=players + 7)[moment]
    for seat in [*range(players), None]:
        data = board_picture("manhattan", s.view(seat), players=NAMES[:players])
        image = Image.open(io.BytesIO(data))
        assert image.format == "PNG" and image.mode == "P"
        assert image.width <= MAX_WIDTH
        assert len(data) <= MAX_BYTES


def test_unknown_game_is_refused():
    with pytest.raises(KeyError):
        board_picture("chess", {}, players=["Ann"])
    with pytest.raises(KeyError):
        board_alt("chess", {}, players=["Ann"])


@pytest.mark.parametrize("kind", ["fifth-avenue", "manhattan"])
def test_every_player_needs_a_name(kind):
    view = moments(kind, 3, seed=1)["start"].view(0)
    with pytest.raises(ValueError, match="3 players"):
        board_picture(kind, view, players=NAMES[:2])
    with pytest.raises(ValueError, match="3 players"):
        board_alt(kind, view, players=NAMES[:2])


@pytest.mark.parametrize("kind,players", [("fifth-avenue", 3), ("manhattan", 4)])
def test_same_view_same_bytes(kind, players):
    s = moments(kind, players, seed=2)["mid"]
    view = s.view(1)
    first = board_picture(kind, view, players=NAMES[:players])
    again = board_picture(kind, json.loads(json.dumps(view, sort_keys=True)), players=NAMES[:players])  # as read back from JSON
    assert first == again
    assert board_alt(kind, view, players=NAMES[:players]) == board_alt(kind, view, players=NAMES[:players])


# --------------------------------------------------------------------------- Fifth Avenue


@pytest.mark.parametrize("back_side", [False, True])
def test_every_plot_shows_its_color(back_side):
    board = fa_board(back_side)
    geo = fa_picture.layout(back_side)
    s = moments("fifth-avenue", 4, seed=1, back_side=back_side)["start"]
    image = picture("fifth-avenue", s.view(0), 4)
    assert len(geo.plots) == len(board.district_codes) * (6 if back_side else 5)
    for (code, plot), spot in geo.plots.items():
        assert rgb(image, spot.swatch) == PLOT_COLORS[plot].rgb, (code, plot)
    # the plots lie inside their district's box, and the districts do not overlap
    for (code, _), spot in geo.plots.items():
        x0, y0, x1, y1 = geo.places[code]
        x, y = spot.center
        assert x0 < x - spot.radius and x + spot.radius < x1 and y0 < y - spot.radius and y + spot.radius < y1
    boxes = list(geo.places.values())
    for i, a in enumerate(boxes):
        for b in boxes[i + 1:]:
            assert a[2] <= b[0] or b[2] <= a[0] or a[3] <= b[1] or b[3] <= a[1]


def test_city_hall_on_top_central_park_at_the_foot():
    """The board turned a quarter for a phone's narrow screen: the commissioners walk down the picture."""
    geo = fa_picture.layout(False)
    ch, cp = geo.places["CH"], geo.places["CP"]
    for code in fa_board().district_codes:
        assert ch[3] <= geo.places[code][1] and geo.places[code][3] <= cp[1]
    assert geo.places["34W"][2] <= geo.places["34E"][0]  # west left of east
    assert geo.places["42W"][2] <= geo.places["TS"][0] <= geo.places["TS"][2] <= geo.places["42E"][0]
    assert geo.places["34W"][3] <= geo.places["TS"][1] and geo.places["TS"][3] <= geo.places["52E"][1]
    assert geo.width <= MAX_WIDTH


def test_skyscrapers_show_their_owner_and_appear_when_built():
    """Every skyscraper pile is drawn in its owner's color; a build changes exactly the picture of the plot."""
    positions = game("fifth-avenue", 3, seed=4)
    geo = fa_picture.layout(False)
    builds = 0
    for before, after in zip(positions, positions[1:]):
        new = [(code, plot) for code, cells in after.plots.items() for plot, cell in cells.items()
               if cell["owner"] is not None and cell["height"] and before.plots[code][plot]["owner"] is None
               and code not in after.stopped]
        if not new:
            continue
        old_image, new_image = picture("fifth-avenue", before.view(0), 3), picture("fifth-avenue", after.view(0), 3)
        for code, plot in new:
            spot = geo.plots[(code, plot)]
            owner = after.plots[code][plot]["owner"]
            assert rgb(new_image, spot.token) == fifth_avenue_owner(owner).rgb
            if not before.plots[code][plot]["businesses"]:
                assert rgb(old_image, spot.token) == PLOT_COLORS[plot].rgb
            assert rgb(new_image, spot.swatch) == PLOT_COLORS[plot].rgb  # the plot's color still shows
        builds += 1
        if builds == 3:
            break
    assert builds == 3


def test_a_building_stop_grays_out_the_district():
    s = next(p for p in game("fifth-avenue", 4, seed=1) if p.stopped)
    code = s.stopped[0]
    geo = fa_picture.layout(False)
    image = picture("fifth-avenue", s.view(0), 4)
    x0, y0, x1, y1 = geo.places[code]
    assert rgb(image, (x0 + 8, y1 - 8)) == BOARD_COLORS["stopped"].rgb  # clear of the rounded corner
    for plot in fa_board().plots(code):
        assert rgb(image, geo.plots[(code, plot)].swatch) != PLOT_COLORS[plot].rgb


@pytest.mark.parametrize("players,back_side", [(2, True), (3, False), (4, True)])
def test_the_picture_is_public_every_seat_gets_the_same_bytes(players, back_side):
    """No hand leaks: the views of different seats (each with its own hand) give the same picture."""
    positions = game("fifth-avenue", players, seed=6, back_side=back_side)
    for s in (positions[0], positions[len(positions) // 3], positions[2 * len(positions) // 3], positions[-1]):
        views = [s.view(seat) for seat in range(players)]
        assert len({json.dumps(v["hand"], sort_keys=True) for v in views}) == players  # every seat its own hand
        pictures = {board_picture("fifth-avenue", v, players=NAMES[:players]) for v in views}
        pictures.add(board_picture("fifth-avenue", s.view(None), players=NAMES[:players]))
        assert len(pictures) == 1
        alts = {board_alt("fifth-avenue", v, players=NAMES[:players]) for v in [*views, s.view(None)]}
        assert len(alts) == 1


def test_a_hand_in_the_view_changes_nothing():
    s = moments("fifth-avenue", 3, seed=5)["mid"]
    view = s.view(0)
    rich = dict(view, hand={color: [5, 5, 5] for color in view["hand"]})
    assert board_picture("fifth-avenue", rich, players=NAMES[:3]) == board_picture("fifth-avenue", view,
                                                                                  players=NAMES[:3])


@pytest.mark.parametrize("players", [2, 3, 4])
def test_fifth_avenue_alt_text_names_every_player(players):
    for moment, s in moments("fifth-avenue", players, seed=players).items():
        alt = board_alt("fifth-avenue", s.view(0), players=NAMES[:players])
        assert alt.startswith("Fifth Avenue board")
        assert len(alt) <= 300
        for name in SHORT[:players]:
            assert name in alt
        for seat in range(players):
            assert f"{s.scores[seat]} VP" in alt
        if players == 2:
            assert "robot" in alt
        if moment == "end":
            assert "wins" in alt or "win" in alt


def test_fifth_avenue_alt_text_counts_skyscrapers():
    s = moments("fifth-avenue", 4, seed=1)["mid"]
    alt = board_alt("fifth-avenue", s.view(0), players=NAMES[:4])
    for owner, name in enumerate(SHORT):
        count = sum(c["height"] for cells in s.plots.values() for c in cells.values() if c["owner"] == owner)
        districts = sum(1 for cells in s.plots.values() if any(c["owner"] == owner for c in cells.values()))
        assert re.search(rf"{re.escape(name)} \(\w+\) \d+ VP, {count} skyscrapers? in {districts} districts?", alt)


def test_long_names_keep_the_alt_text_short():
    names = ["Bartholomew Featherstonehaugh", "Maximiliana Wolkenstein", "Konstantinos Papadopoulos",
             "Guinevere Montgomery-Smythe"]
    s = moments("fifth-avenue", 4, seed=1)["end"]
    alt = board_alt("fifth-avenue", s.view(0), players=names)
    assert len(alt) <= 300
    assert board_picture("fifth-avenue", s.view(0), players=names).startswith(b"\x89PNG")


# --------------------------------------------------------------------------- Manhattan


@pytest.mark.parametrize("players", [2, 3, 4])
def test_every_site_shows_its_owner_from_the_readers_side(players):
    """The pixel of the site under card n (the reader's numbering) has the color of that site's owner."""
    s = moments("manhattan", players, seed=players)["mid"]
    geo = mh_picture.layout()
    for seat in [*range(players), None]:
        view = s.view(seat)
        side = mh_picture.reader_side(view)
        image = picture("manhattan", view, players)
        for code, sites in s.cities.items():
            for card in range(1, 10):
                tower = sites[absolute_site(side, card) - 1]
                want = manhattan_color(tower[-1][0]).rgb if tower else BOARD_COLORS["empty site"].rgb
                assert rgb(image, geo.site_point(code, card)) == want, (seat, code, card)


def test_another_reader_sees_the_cities_turned():
    s = moments("manhattan", 4, seed=3)["mid"]
    geo = mh_picture.layout()
    images = [picture("manhattan", s.view(seat), 4) for seat in range(4)]
    assert len({image.tobytes() for image in images}) == 4
    # the tower on the south side's far left site (1) stands under card 1 for the south player, under the west
    # player's near left card (7: a quarter turn), the north player's near right (9), the east player's far right (3)
    code, tower = next((code, sites[0]) for code, sites in s.cities.items() if sites[0])
    color = manhattan_color(tower[-1][0]).rgb
    assert [seen_from(side, 1) for side in range(4)] == [1, 7, 9, 3]
    for seat, card in zip(range(4), (1, 7, 9, 3)):
        assert s.view(seat)["side"][seat] == seat
        assert rgb(images[seat], geo.site_point(code, card)) == color


def test_an_owned_site_changes_color_with_the_reader():
    s = moments("manhattan", 4, seed=3)["mid"]
    geo = mh_picture.layout()
    south, west = picture("manhattan", s.view(0), 4), picture("manhattan", s.view(1), 4)
    differs = [(code, card) for code in s.cities for card in range(1, 10)
               if rgb(south, geo.site_point(code, card)) != rgb(west, geo.site_point(code, card))]
    assert differs


def test_the_public_view_is_drawn_from_the_south_side():
    s = moments("manhattan", 3, seed=1)["mid"]
    assert board_picture("manhattan", s.view(None), players=NAMES[:3]) != board_picture(
        "manhattan", s.view(1), players=NAMES[:3])
    image = picture("manhattan", s.view(None), 3)
    geo = mh_picture.layout()
    for code, sites in s.cities.items():
        for card in range(1, 10):
            tower = sites[card - 1]
            want = manhattan_color(tower[-1][0]).rgb if tower else BOARD_COLORS["empty site"].rgb
            assert rgb(image, geo.site_point(code, card)) == want


def test_a_new_tower_appears():
    positions = game("manhattan", 2, seed=9)
    geo = mh_picture.layout()
    for before, after in zip(positions, positions[1:]):
        new = [(code, i) for code, sites in after.cities.items() for i, tower in enumerate(sites)
               if tower and not before.cities[code][i]]
        if new:
            break
    code, index = new[0]
    old, now = picture("manhattan", before.view(0), 2), picture("manhattan", after.view(0), 2)
    card = index + 1  # seat 0 reads from the south side: card n is site n
    assert rgb(old, geo.site_point(code, card)) == BOARD_COLORS["empty site"].rgb
    assert rgb(now, geo.site_point(code, card)) == manhattan_color(after.cities[code][index][-1][0]).rgb


def test_manhattan_hand_changes_nothing():
    s = moments("manhattan", 3, seed=2)["mid"]
    view = s.view(2)
    assert board_picture("manhattan", dict(view, hand=[1, 1, 1, 1]), players=NAMES[:3]) == board_picture(
        "manhattan", view, players=NAMES[:3])


@pytest.mark.parametrize("players", [2, 3, 4])
def test_manhattan_alt_text_names_every_player(players):
    for moment, s in moments("manhattan", players, seed=players).items():
        for seat in [*range(players), None]:
            view = s.view(seat)
            alt = board_alt("manhattan", view, players=NAMES[:players])
            assert alt.startswith("Manhattan board")
            assert len(alt) <= 300
            for name in SHORT[:players]:
                assert name in alt
            side = mh_board().side_names[mh_picture.reader_side(view)]
            assert f"seen from the {side} side" in alt
            if moment == "end":
                assert "game over" in alt


# --------------------------------------------------------------------------- the palette and the font


def test_palette_names_every_color_of_both_games():
    for color in fa_board().plot_colors:
        assert color in PLOT_COLORS
    for color in fa_board().player_colors:
        assert color in PLAYER_COLORS
    for color in mh_board().colors:
        assert manhattan_color(color).name == color
    for group in (PLOT_COLORS, PLAYER_COLORS, BOARD_COLORS):
        for color in group.values():
            assert re.fullmatch(r"#[0-9A-F]{6}", color.hex)
    assert [fifth_avenue_owner(o).name for o in range(4)] == list(fa_board().player_colors)
    assert len(all_colors()) < 128  # room left in the PNG's palette for the blends
    # every player's color is told apart from every plot's
    for player in PLAYER_COLORS.values():
        for plot in PLOT_COLORS.values():
            assert player.rgb != plot.rgb


def test_names_are_written_as_people_write_them():
    for name in (*WORLD, "Carla Díaz-Ramírez", "Weiß", "Ann"):
        assert printable(name) == name
    assert printable("Zoe\u0308") == "Zoë"  # a combining accent, as one glyph
    assert printable("Жора 中") == "Жора ?"  # a letter the font lacks is never an empty box


@pytest.mark.parametrize("kind,module", [("fifth-avenue", fa_picture), ("manhattan", mh_picture)])
def test_each_games_palette_keeps_the_named_colors_first(kind, module):
    colors = module.palette()
    assert len(colors) <= 256
    assert colors[: len(all_colors())] == all_colors()
    assert len(set(colors)) == len(colors)


@pytest.mark.parametrize("kind,players,back_side", [("fifth-avenue", 4, False), ("fifth-avenue", 3, True),
                                                    ("manhattan", 4, False)])
def test_the_png_is_true_to_the_drawing(kind, players, back_side, monkeypatch):
    """The fixed palette keeps every pixel close to the color drawn there (letters and edges included): no
    pixel more than 40 off in any channel (letters' blends in quarters, edges' in halves since issue 35: at most
    an eighth of black on white, 32, and Pillow's 4 x 4 x 4 blocks), on average well under 1."""
    from pbem.render.pictures.canvas import SCALE, Canvas

    drawn: list[Image.Image] = []
    png = Canvas.png

    def keep(self, palette=None):
        drawn.append(self.image.reduce(SCALE))
        return png(self, palette)

    monkeypatch.setattr(Canvas, "png", keep)
    positions = game(kind, players, seed=3, back_side=back_side)
    for s in (positions[len(positions) // 2], positions[-1]):
        image = picture(kind, s.view(0), players).convert("RGB")
        truth = drawn.pop()
        worst, total = 0, 0
        for a, b in zip(image.tobytes(), truth.tobytes()):
            worst, total = max(worst, abs(a - b)), total + abs(a - b)
        assert worst <= 40
        assert total / len(truth.tobytes()) < 1


@pytest.mark.parametrize("kind,players", [("fifth-avenue", 4), ("manhattan", 3)])
def test_drawing_leaves_the_still_parts_as_they_were(kind, players):
    """Every picture starts from a copy of the board's still parts, drawn once: a picture drawn after others
    (a building stop, a full board) is the same as one drawn first."""
    positions = game(kind, players, seed=1)
    first = board_picture(kind, positions[0].view(0), players=NAMES[:players])
    for s in (positions[len(positions) // 2], positions[-1]):
        board_picture(kind, s.view(0), players=NAMES[:players])
    assert board_picture(kind, positions[0].view(0), players=NAMES[:players]) == first
    module = fa_picture if kind == "fifth-avenue" else mh_picture
    module._still.cache_clear()
    assert board_picture(kind, positions[0].view(0), players=NAMES[:players]) == first


def test_named_colors_survive_the_palette():
    """Pillow maps pixels to the palette by blocks of 4 x 4 x 4 colors: a named color stays exact only when its
    channels are multiples of 4; every one drawn comes back exactly from the PNG."""
    for channels in all_colors():
        assert all(c % 4 == 0 for c in channels), channels
    from pbem.render.pictures.canvas import Canvas

    canvas = Canvas(8 * len(all_colors()), 8, BOARD_COLORS["paper"])
    for i, channels in enumerate(all_colors()):  # drawn at twice the size, then halved
        canvas.draw.rectangle((16 * i, 0, 16 * i + 15, 15), fill=channels)
    image = Image.open(io.BytesIO(canvas.png())).convert("RGB")
    for i, channels in enumerate(all_colors()):
        assert image.getpixel((8 * i + 4, 4)) == channels


# --------------------------------------------------------------------------- names, phones, the marked place


def _glyphs_drawn(text: str, bold: bool) -> None:
    """Every letter of ``text`` is drawn with a glyph of the font's own, not the box of a missing glyph."""
    from pbem.render.pictures.canvas import font

    f = font(SMALL_SIZE, bold)
    missing = f.getmask("\ue000")
    for char in text.replace(" ", ""):
        mask = f.getmask(char)
        assert not (mask.size == missing.size and bytes(mask) == bytes(missing)), (text, char)
        assert mask.getbbox() is not None, (text, char)  # it puts ink on the page


SMALL_SIZE = 11


@pytest.mark.parametrize("kind,back_side,players", [("fifth-avenue", False, 4), ("fifth-avenue", True, 4),
                                                    ("fifth-avenue", False, 3), ("manhattan", False, 4),
                                                    ("manhattan", False, 3)])
def test_names_are_drawn_whole_in_the_fonts_own_letters(kind, back_side, players):
    """Every name is in the picture whole (a long one wrapped over lines, never cut) and every letter of it is
    drawn with a real glyph; the same name with its letters replaced by '?' draws different pixels."""
    names = WORLD[:players] if players < 4 else WORLD[:4]
    names = [*names[:-1], LONG_NAME]
    module = fa_picture if kind == "fifth-avenue" else mh_picture
    view = moments(kind, players, seed=5, back_side=back_side)["mid"].view(0)
    canvas = module.drawing(view, players=names)
    written = " ".join(label.text for label in canvas.labels)
    for name in names:
        assert name in written or all(part in written for part in name.split()), name
        _glyphs_drawn(name, False)
        _glyphs_drawn(name, True)
    assert LONG_NAME not in [label.text for label in canvas.labels]  # 40 characters take two lines
    real = board_picture(kind, view, players=names)
    unknown = ["".join("?" if c.isalpha() and not c.isascii() else c for c in name) for name in names]
    assert board_picture(kind, view, players=unknown) != real


def _smallest_label_css_px(canvas) -> float:
    return min(label.size for label in canvas.labels) * PHONE / canvas.width


@pytest.mark.parametrize("kind,back_side", [("fifth-avenue", False), ("fifth-avenue", True), ("manhattan", False)])
def test_every_label_is_at_least_10_css_px_on_a_phone(kind, back_side):
    """Shown 370 px wide, the smallest letters of the picture are at least 10 CSS px tall (font size, as CSS
    measures it: the label's size in the PNG times 370 / the picture's width), at every moment of games of
    every player count, long names included."""
    module = fa_picture if kind == "fifth-avenue" else mh_picture
    smallest = []
    for players in (2, 3, 4):
        for s in moments(kind, players, seed=players, back_side=back_side).values():
            for seat in (0, None):
                canvas = module.drawing(s.view(seat), players=[*WORLD[: players - 1], LONG_NAME])
                smallest.append(_smallest_label_css_px(canvas))
    assert min(smallest) >= 10, min(smallest)
    image = picture(kind, moments(kind, 4, seed=4, back_side=back_side)["mid"].view(0), 4)
    assert image.width == PHONE  # shown at its own size on the phone: nothing scaled down


def _frame_pixel(box) -> tuple[int, int]:
    x0, y0, x1, y1 = box
    return int((x0 + x1) // 2), int(y1)  # on the thick frame just outside the box's bottom edge


def test_the_district_being_auctioned_is_marked():
    from pbem.render.pictures.palette import MARK

    positions = game("fifth-avenue", 4, seed=2)
    auction = next(p for p in positions if p.frames and p.frames[-1]["kind"] == "auction")
    site = auction.frames[-1]["site"]
    assert fa_picture.marked(auction.view(0)) == (site, None)
    geo = fa_picture.layout(False)
    image = picture("fifth-avenue", auction.view(0), 4)
    assert rgb(image, _frame_pixel(geo.places[site])) == MARK.rgb
    if site != "CP":
        x0, y0, _, _ = geo.places[site]
        assert rgb(image, (x0 + 70, y0 + 4)) == MARK.rgb  # the header's band
    for code, box in geo.places.items():
        if code != site:
            assert rgb(image, _frame_pixel(box)) != MARK.rgb, code
    quiet = next(p for p in positions if not any(f["kind"] in ("auction", "build") for f in p.frames))
    assert fa_picture.marked(quiet.view(0)) is None
    image = picture("fifth-avenue", quiet.view(0), 4)
    assert all(rgb(image, _frame_pixel(box)) != MARK.rgb for box in geo.places.values())


def test_the_district_and_plot_of_a_build_are_marked():
    from pbem.render.pictures.palette import MARK

    for back_side in (False, True):
        positions = game("fifth-avenue", 3, seed=4, back_side=back_side)
        build = next(p for p in positions if p.frames and p.frames[-1]["kind"] == "build" and p.frames[-1]["site"] != "CP")
        frame = build.frames[-1]
        assert fa_picture.marked(build.view(1)) == (frame["site"], frame["color"])
        geo = fa_picture.layout(back_side)
        image = picture("fifth-avenue", build.view(1), 3)
        assert rgb(image, _frame_pixel(geo.places[frame["site"]])) == MARK.rgb
        spot = geo.plots[(frame["site"], frame["color"])]
        x, y = spot.center
        assert rgb(image, (x, y - spot.radius - 3)) == MARK.rgb  # the ring round the plot


def test_a_manhattan_city_is_marked_when_named():
    from pbem.render.pictures.palette import MARK
    from pbem.render.pictures import mail as picture_mail

    s = moments("manhattan", 3, seed=3)["mid"]
    geo = mh_picture.layout()
    plain = picture("manhattan", s.view(0), 3)
    data = board_picture("manhattan", s.view(0), players=NAMES[:3], mark="cairo")
    marked = Image.open(io.BytesIO(data))
    assert rgb(marked, _frame_pixel(geo.cities["cairo"])) == MARK.rgb
    assert rgb(plain, _frame_pixel(geo.cities["cairo"])) != MARK.rgb
    for code, box in geo.cities.items():
        if code != "cairo":
            assert rgb(marked, _frame_pixel(box)) != MARK.rgb
    # the mail's recipe carries the mark to the sender, which draws the same picture
    made = picture_mail.recipe("manhattan", s.view(0), NAMES[:3], mark="cairo")
    assert picture_mail.picture(made)[1] == data
    assert "mark" not in picture_mail.recipe("manhattan", s.view(0), NAMES[:3])
