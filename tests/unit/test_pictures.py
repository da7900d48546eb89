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
SHORT = ["Ann", "Bob", "Carla Díaz", "Dee"]


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
    assert (image.width, image.height) == (fa_picture.layout(back_side).width, fa_picture.layout(back_side).height)


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


def test_city_hall_left_central_park_right_like_the_board():
    geo = fa_picture.layout(False)
    ch, cp = geo.places["CH"], geo.places["CP"]
    for code in fa_board().district_codes:
        assert ch[2] <= geo.places[code][0] and geo.places[code][2] <= cp[0]
    assert geo.places["34W"][3] <= geo.places["34E"][1]  # west above east
    assert geo.places["42W"][3] <= geo.places["TS"][1] <= geo.places["TS"][3] <= geo.places["42E"][1]
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


def test_text_is_written_in_the_built_in_fonts_letters():
    assert printable("Carla Díaz-Ramírez") == "Carla Diaz-Ramirez"
    assert printable("Weiß") == "Weiss"
    assert printable("Ann") == "Ann"
    assert set(printable("Жора 中")) <= {"?", " "}


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
    pixel more than 24 off in any channel, on average well under 1."""
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
        assert worst <= 24
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
