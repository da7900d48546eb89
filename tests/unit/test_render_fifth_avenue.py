"""The plain-text Fifth Avenue board (pbem.render.text, templates/fifth_avenue).

Positions come from seeded random games (the ``by-kind`` policy of ``pbem sim``
plays auctions, building stops and the robot often) or are set up by playing
the placement and then editing the plain-data state.
"""

from __future__ import annotations

import re

import pytest

from pbem.games.fifth_avenue import State, new_game
from pbem.games.fifth_avenue.actions import Bid, Pass
from pbem.games.fifth_avenue.board import load_board
from pbem.games.rng import Rng
from pbem.render import render_board
from pbem.render.text import owner_names
from pbem.services.offline.simulate import choose

BOARD = load_board()
COLORS = BOARD.plot_colors
NAMES = ["Ann <ann@example.org>", "Bob <bob@example.org>", "Carla Díaz-Ramírez", "Dee"]
SHORT = ["Ann", "Bob", "Carla Díaz", "Dee"]  # as the board shows them (10 columns at most)
WIDTH = 72


# --------------------------------------------------------------------------- helpers


def started(players: int = 4, seed: int = 1, back_side: bool = False) -> State:
    """A game just past the initial placement: seat 0 chooses an action."""
    s = new_game(players, seed=seed, back_side=back_side)
    while s.frames and s.frames[-1]["kind"] == "placement":
        s.apply_action(s.current_player(), s.legal_actions()[0])
    return s


def render(s: State, viewer: int | None = 0, moderator: bool = False) -> str:
    hands = {seat: s.hands[seat] for seat in range(s.players)} if moderator else None
    return render_board(s.view(viewer), players=NAMES[: s.players], hands=hands)


def random_positions(players: int, back_side: bool, seed: int, policy: str = "by-kind"):
    """Every position of one seeded random game, the final one included."""
    s = new_game(players, seed=seed, back_side=back_side)
    rng = Rng(seed)
    yield s
    while not s.is_terminal():
        s.apply_action(s.current_player(), choose(s.legal_actions(), rng, policy))
        yield s


def play_until(players: int, condition, back_side: bool = False, seeds=range(200)) -> State:
    """The first position of a seeded random game where ``condition(state)`` holds."""
    for seed in seeds:
        for s in random_positions(players, back_side, seed):
            if condition(s):
                return s
    raise AssertionError("no game reached the wanted position")


def box(text: str, code: str) -> list[str]:
    """The inside lines of the map box headed by ``code`` (CH, CP or a district)."""
    lines = text.splitlines()
    for y, line in enumerate(lines):
        x = line.find(f"|{code} ")
        if x < 0:
            continue
        right = line.index("|", x + 1)
        inside = []
        for below in lines[y:]:
            cell = below[x : right + 1]
            if cell.startswith("+"):
                return inside
            inside.append(cell[1:-1].rstrip())
    raise AssertionError(f"no box for {code}")


def section(text: str, heading: str) -> str:
    """From the line starting with ``heading`` to the next blank line."""
    start = text.index("\n" + heading) + 1
    end = text.find("\n\n", start)
    return text[start : end if end >= 0 else len(text)]


def no_cards() -> dict[str, list[int]]:
    return {c: [0, 0, 0] for c in (*COLORS, "black")}


# --------------------------------------------------------------------------- every position


def check_board(s: State, text: str) -> None:
    too_wide = [line for line in text.splitlines() if len(line) > WIDTH]
    assert not too_wide, too_wide
    assert "\t" not in text
    assert text.startswith(f"Fifth Avenue -- {s.players} players, {'back' if s.back_side else 'front'} side")
    for code in (*BOARD.district_codes, "CH", "CP"):
        assert f"{code} {BOARD.name(code)}" in text
        here = box(text, code)
        for commissioner, where in s.commissioners.items():
            shown = any(commissioner in line and ("commissioner" in line) for line in here)
            assert shown == (where == code), (commissioner, where, code, here)
    for code in s.stopped:
        assert "** BUILDING STOP **" in box(text, code)
    if s.back_side:
        for code in BOARD.district_codes:
            if code not in s.stopped:
                assert any(line.startswith("center") for line in box(text, code))
    else:
        assert "center" not in text
    if s.is_terminal():
        assert "The game is over." in text and "FINAL SCORING" in text
    else:
        assert "Waiting for: " in text and "FINAL SCORING" not in text


@pytest.mark.parametrize("players", [2, 3, 4])
@pytest.mark.parametrize("back_side", [False, True], ids=["front", "back"])
@pytest.mark.parametrize("seed", [0, 1])
def test_every_position_fits_72_columns_and_shows_the_city(players, back_side, seed):
    positions = 0
    for i, s in enumerate(random_positions(players, back_side, seed)):
        viewer = [None, s.current_player() if s.current_player() >= 0 else 0, None][i % 3]
        text = render(s, viewer, moderator=i % 3 == 2)
        check_board(s, text)
        positions += 1
    assert s.is_terminal() and positions > 40


def test_uniform_games_fit_72_columns_too():
    for players in (2, 3, 4):
        for s in random_positions(players, players == 3, seed=7, policy="uniform"):
            check_board(s, render(s, None, moderator=True))


def test_a_state_read_back_from_json_renders_the_same():
    # to_json sorts the keys, so nothing may depend on the order of the view's dicts
    for players, back_side in ((2, False), (4, True)):
        for i, s in enumerate(random_positions(players, back_side, seed=11)):
            if i % 25 == 0 or s.is_terminal():
                again = State.from_json(s.to_json())
                assert render(again, None, moderator=True) == render(s, None, moderator=True)
                assert render(again, 1) == render(s, 1)


def test_long_names_and_addresses_fit():
    s = started(4, seed=3)
    names = ["Maximilian Alexander <max@very-long-domain.example.org>", "x" * 60, "<only@address.org>", "Dee"]
    text = render_board(s.view(0), players=names)
    assert max(len(line) for line in text.splitlines()) <= WIDTH
    assert "Maximilian" in text and "only" in text


# --------------------------------------------------------------------------- map


def test_plots_show_businesses_skyscrapers_and_empty_plots():
    s = started(4, seed=2)
    cells = s.plots["TS"]
    for cell in cells.values():
        cell.update(businesses=[], owner=None, height=0)
    cells["violet"].update(businesses=["boutique", "jeweler"])
    cells["orange"].update(businesses=["gallery", "perfume"])
    cells["gray"].update(owner=1, height=4)
    ts = box(render(s), "TS")
    assert ts[0] == "TS Times Square"
    plots = [line for line in ts if line.split()[0] in COLORS]
    assert [line.split()[0] for line in plots] == list(BOARD.district("TS").ring)  # ring order
    assert "violet Bou Jew" in ts and "orange Gal Per" in ts
    assert "gray   Bob x4" in ts and "green  -" in ts


def test_commissioners_and_markers_where_they_stand():
    s = started(4, seed=2)
    s.commissioners.update(white="42E", beige="CP")
    s.markers.update(white=["34E"], beige=["34W", "TS", "52E"])
    text = render(s)
    assert "white commissioner" in box(text, "42E")
    assert "white marker" in box(text, "34E")
    assert all("beige marker" in box(text, code) for code in ("34W", "TS", "52E"))
    assert "commissioners here: beige" in box(text, "CP")
    assert "commissioners here: none" in box(text, "CH")
    assert "markers here: white 2, beige 0" in box(text, "CH")


def test_central_park_skyscrapers_and_businesses():
    s = started(3, seed=4)
    s.central_park[:] = [2, 0, 5]
    s.cp_businesses[:] = ["perfume", "gallery", "perfume"]
    cp = " ".join(box(render(s), "CP"))
    assert "Ann 2" in cp and "Bob 0" in cp and "Carla Díaz-Ramírez 5" in cp  # the whole name, never cut
    assert "businesses below: Per Gal Per" in cp


def test_building_stops_are_shown():
    s = play_until(3, lambda s: len(s.stopped) == 1)
    text = render(s)
    stopped = s.stopped[0]
    assert "** BUILDING STOP **" in box(text, stopped)
    assert f"Building stops: {BOARD.name(stopped)} (1 of 2" in text
    others = [c for c in BOARD.district_codes if c != stopped]
    assert not any("BUILDING STOP" in line for code in others for line in box(text, code))


def test_back_side_shows_the_center_plot():
    s = started(3, seed=5, back_side=True)
    text = render(s)
    assert "back side of the board" in text
    for code in BOARD.district_codes:
        center = [line for line in box(text, code) if line.startswith("center")]
        initial = s.plots[code]["center"]["businesses"]
        assert len(center) == 1 and center[0].split()[1:] == [b[:3].title() for b in initial]


# --------------------------------------------------------------------------- supply, stacks, players


def test_supply_row_marks_the_current_set_and_the_special_scorings():
    s = started(4, seed=6)
    s.supply_row[0] = []
    s.supply_row[1] = []
    s.supply_row[2] = ["jeweler", "gallery"]
    text = section(render(s), "SUPPLY ROW")
    assert ">3: Jew Gal" in text
    marked = re.findall(r"(?<![-(])>(\d)", text)
    assert marked == ["3"]  # only the current set
    assert "-> 4 VP for 3+ districts (scored)" in text
    assert "-> 6 VP for 4+ districts\n" in text + "\n" and "-> 8 VP for 5+ districts" in text
    assert "-> game ends" in text


def test_card_stacks_show_top_card_and_size():
    s = started(4, seed=6)
    s.colored_stacks["violet"] = [6, 4, 4]
    s.colored_stacks["gray"] = []
    text = section(render(s), "CARD STACKS")
    assert "violet 6 (3)" in text and "gray - (0)" in text
    assert f"black: {len(s.black_stack) + len(s.black_spent)} cards" in text


def test_players_table():
    s = started(4, seed=6)
    s.scores[:] = [11, 22, 33, 44]
    text = section(render(s, viewer=2), "PLAYERS")
    lines = text.splitlines()
    rows = {line.split()[1]: line.split() for line in lines[1:6]}
    assert rows["Ann"][:7] == ["1", "Ann", "11", str(s.supply[0]), str(s.general[0]), str(sum(map(sum, s.hands[0].values()))), "to"]
    # a name longer than the column is whole on a line of its own, its numbers on the next, under the columns
    assert lines[3] == "  3 Carla Díaz-Ramírez"
    assert lines[4].split()[0] == "33" and lines[4].index("33") == lines[2].index(str(s.scores[1])) and lines[4].endswith("you")
    assert "robot" not in text


def test_two_players_list_the_robot():
    s = started(2, seed=6)
    text = section(render(s), "PLAYERS")
    robot = [line for line in text.splitlines() if "robot" in line]
    assert len(robot) == 1 and str(s.general[s.robot]) in robot[0].split()


def test_too_few_names_is_an_error_and_names_are_made_distinct():
    s = started(3, seed=1)
    with pytest.raises(ValueError):
        render_board(s.view(0), players=NAMES[:2])
    assert owner_names(["Ann <a@x.org>", "Ann <b@x.org>"], robot=True) == ["Ann#1", "Ann#2", "robot"]


def test_a_robot_seat_is_shown_by_its_name_on_the_map_and_in_the_tables_not_cut_in_its_robot_mark():
    """Ten characters would cut "Robo (robot)" to "Robo (robo"; the subject and every sentence say it is a robot."""
    names = ["Robo (robot) <robot-1@robots.invalid>", "Ann <a@x.org>", "Maximilian (strong robot) <robot-3@robots.invalid>"]
    assert owner_names(names) == ["Robo", "Ann", "Maximilian"]
    s = started(3, seed=1)
    drawn = render_board(s.view(1), players=names)
    assert "(robo" not in drawn and "(stro" not in drawn and "Robo " in section(drawn, "PLAYERS")
    assert owner_names(["Ann (robot) <robot-1@robots.invalid>", "Ann <a@x.org>"]) == ["Ann#1", "Ann#2"]


# --------------------------------------------------------------------------- hands


def distinctive_hands(s: State) -> tuple[str, str]:
    mine, theirs = no_cards(), no_cards()
    mine["violet"] = [0, 0, 5]
    mine["black"] = [1, 0, 0]
    theirs["gray"] = [0, 7, 0]
    s.hands[0], s.hands[1] = mine, theirs
    return "violet 6 6 6 6 6, black 4 (6 cards)", "gray 5 5 5 5 5 5 5 (7 cards)"


def test_own_hand_shown_and_no_other_hand():
    s = started(4, seed=8)
    mine, theirs = distinctive_hands(s)
    ann = render(s, viewer=0)
    assert f"Your hand: {mine}" in ann
    assert "5 5 5 5 5" not in ann and "gray 5" not in ann.split("PLAYERS")[1]
    bob = render(s, viewer=1)
    assert f"Your hand: {theirs}" in bob
    assert "6 6 6 6 6" not in bob
    public = render(s, viewer=None)
    assert "Your hand" not in public and "6 6 6 6 6" not in public and "5 5 5 5 5" not in public
    # everybody still sees how many cards each player holds
    for text in (ann, bob, public):
        rows = section(text, "PLAYERS").splitlines()
        assert rows[1].split()[5] == "6" and rows[2].split()[5] == "7"


def test_moderator_sees_every_hand():
    s = started(4, seed=8)
    mine, theirs = distinctive_hands(s)
    text = render(s, viewer=None, moderator=True)
    hands = section(text, "HANDS")
    assert f"1 Ann: {mine}" in hands and f"2 Bob: {theirs}" in hands
    assert "3 Carla Díaz-Ramírez:" in hands and "4 Dee:" in hands
    assert "Your hand" not in text


def test_empty_hand():
    s = started(3, seed=8)
    s.hands[2] = no_cards()
    assert "Your hand: no cards (0 cards)" in render(s, viewer=2)


# --------------------------------------------------------------------------- auctions


def auction_position() -> State:
    """4 players: Ann returns the white commissioner, Ann bids, Bob passes, Carla raises."""
    s = started(4, seed=9)
    s.commissioners["white"] = "CP"
    s.markers["white"] = ["34W"]
    s.apply_command(0, "C white CH")
    assert s.frames[-1]["kind"] == "auction" and s.frames[-1]["site"] == "34W"
    bids = [a for a in s.legal_actions() if isinstance(a, Bid)]
    s.apply_action(0, min(bids, key=lambda b: b.total))
    s.apply_action(1, Pass())
    bids = [a for a in s.legal_actions() if isinstance(a, Bid)]
    s.apply_action(2, min(bids, key=lambda b: b.total))  # Dee can still outbid it
    return s


def test_current_auction_shows_site_bids_passes_and_high_bid():
    s = auction_position()
    frame = s.frames[-1]
    text = render(s, viewer=3)
    auction = section(text, "AUCTION FOR")
    assert auction.startswith("AUCTION FOR 34th Street West (34W)")
    totals = {int(k): sum(v * (a + b) for v, a, b in zip((4, 5, 6), bid["colored"], bid["black"])) for k, bid in frame["bids"].items()}
    rows = auction.splitlines()
    lines = {line.split()[0]: line for line in rows[3:]}
    lines["Carla"] = rows[rows.index("  Carla Díaz-Ramírez") + 1]  # a long name has a line of its own
    ann_bid = frame["bids"]["0"]
    assert re.match(rf"\s+Ann\s+{totals[0]}\s+{ann_bid['color']} ", lines["Ann"])
    assert "passed" in lines["Bob"]
    assert lines["Carla"].split()[0] == str(totals[2]) and "(high bid)" in lines["Carla"]
    assert "no bid yet" in lines["Dee"] and "<- to bid" in lines["Dee"]
    assert f"High bid: {totals[2]} by Carla Díaz-Ramírez." in auction
    sets = section(text, "AUCTIONS:")
    assert "Ann brought the white commissioner back to City Hall" in sets
    assert "Still to come: Central Park." in sets
    assert "Turn: Ann (seat 1), action C; it goes on after the auctions." in text


def test_central_park_auction_shows_its_color():
    s = play_until(3, lambda s: s.frames and s.frames[-1]["kind"] == "auction" and s.frames[-1]["site"] == "CP"
                   and s.frames[-1]["color"] is not None)
    text = render(s)
    color = s.frames[-1]["color"]
    assert "AUCTION FOR Central Park\n" in text
    assert f"Central Park color: {color} (every bid is {color})." in text


def test_two_player_auction_shows_the_robot_cards():
    s = play_until(2, lambda s: s.frames and s.frames[-1]["kind"] == "auction" and s.frames[-1].get("robot_cards"))
    frame = s.frames[-1]
    text = render(s, viewer=s.current_player())
    drawn = " ".join(map(str, frame["robot_cards"]))
    assert f"The robot drew black {drawn} (total {sum(frame['robot_cards'])})." in text
    robot = [line for line in section(text, "AUCTION FOR").splitlines() if line.split()[0] == "robot"]
    assert len(robot) == 1
    if "2" in frame["bids"]:
        assert str(sum(frame["robot_cards"])) == robot[0].split()[1]
    else:
        assert "not enough, out" in robot[0]


def test_build_decision_is_shown():
    s = play_until(3, lambda s: s.frames and s.frames[-1]["kind"] == "build")
    frame = s.frames[-1]
    text = section(render(s), "BUILDING")
    winner = ["Ann", "Bob", "Carla Díaz-Ramírez"][frame["winner"]]
    assert f"{winner} won {BOARD.name(frame['site'])}" in " ".join(text.split())


def test_no_auction_sections_outside_auctions():
    text = render(started(4, seed=9))
    assert "AUCTION" not in text and "BUILDING\n" not in text


# --------------------------------------------------------------------------- game over


@pytest.mark.parametrize("players,back_side,seed", [(2, False, 3), (3, True, 4), (4, False, 5)])
def test_final_scoring_shows_points_scores_and_winners(players, back_side, seed):
    *_, s = random_positions(players, back_side, seed)
    r = s.result
    text = render(s, viewer=None)
    final = text[text.index("FINAL SCORING"):]
    names = SHORT[:players]

    def row(label: str) -> list[str]:
        line = next(line for line in final.splitlines() if line.startswith("  " + label))
        return line[2 + 22 :].split()

    assert row("final score") == [str(x) for x in r["scores"]] == [str(x) for x in s.scores]
    assert row("before final scoring") == [str(x) for x in r["start_scores"]]
    assert row("Central Park") == [str(x) for x in r["central_park"]["points"]]
    for code in BOARD.district_codes:
        if code in r["districts"]:
            assert row(f"{code} {BOARD.name(code)}") == [str(x) for x in r["districts"][code]]
        else:
            assert "building stop" in " ".join(row(code))
    assert f"{r['central_park']['vp_each']} VP for each skyscraper" in " ".join(final.split())
    winners = [names[p] for p in r["winners"]]
    assert any(w in line for line in final.splitlines() if "Winner" in line or "Shared win" in line for w in winners)
    assert "Waiting for" not in text
    assert "robot" not in final


def test_shared_win_and_tie_break_words():
    s = started(3, seed=2)
    view = s.view(None)
    base = {"reason": "supply", "start_scores": [10, 10, 9], "districts": {c: [0, 0, 0] for c in BOARD.district_codes},
            "central_park": {"drawn": ["gallery"], "vp_each": 2, "points": [0, 0, 0]}, "scores": [10, 10, 9]}
    view["result"] = base | {"cards_in_hand": [4, 4, 1], "tied": [0, 1], "winners": [0, 1]}
    text = render_board(view, players=NAMES[:3])
    assert "Shared win: Ann and Bob with 10 VP and 4 cards in hand each." in text
    view["result"] = base | {"cards_in_hand": [4, 5, 1], "tied": [0, 1], "winners": [1]}
    text = " ".join(render_board(view, players=NAMES[:3]).split())
    assert "Winner: Bob. Ann and Bob tied on 10 VP; Bob has the most cards in hand." in text
