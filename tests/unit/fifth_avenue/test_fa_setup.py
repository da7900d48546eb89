"""Preparation: initial businesses, cards, supplies and the snake placement."""

from __future__ import annotations

from unittest.mock import ANY
from collections import Counter

import pytest

from pbem.games.errors import IllegalCommandError
from pbem.games.fifth_avenue import new_game

from fa_helpers import COLORS, hand_size, started, top


def _initial_businesses(s):
    return {
        (d, plot): list(cell["businesses"])
        for d, cells in s.plots.items()
        for plot, cell in cells.items()
        if cell["businesses"]
    }


@pytest.mark.parametrize("players", [2, 3, 4])
def test_initial_businesses_front_side_each_color_once_or_twice(players):
    # 000 p.2: "randomly place one face up on one building plot in each district. [...] make certain at
    # least one is placed on each plot color and none are placed so that more than two plots of a color are used."
    seen_twice = Counter()
    for seed in range(150):
        s = new_game(players=players, seed=seed)
        placed = _initial_businesses(s)
        per_district = Counter(d for d, _ in placed)
        assert per_district == Counter({d: 1 for d in s.board.district_codes})
        assert all(len(b) == 1 for b in placed.values())
        per_color = Counter(plot for _, plot in placed)
        assert set(per_color) == set(COLORS), f"seed {seed}: a plot color has no business: {per_color}"
        assert max(per_color.values()) <= 2, f"seed {seed}: {per_color}"
        seen_twice.update(c for c, n in per_color.items() if n == 2)
    # the placement is random: every color is sometimes the doubled one
    assert set(seen_twice) == set(COLORS)


def test_initial_businesses_back_side_all_on_the_sixth_plot():
    # 001: "During setup the 7 Shop tiles are placed on the 6th Building site of each neighborhood."
    for seed in range(50):
        s = new_game(players=4, seed=seed, back_side=True)
        placed = _initial_businesses(s)
        assert sorted(placed) == sorted((d, "center") for d in s.board.district_codes)
        assert all(len(b) == 1 for b in placed.values())


def test_setup_hands_stacks_supplies_and_supply_row():
    # 000 p.2: 1 colored card per color + 4 black; 20 businesses on the row in sets of 2 or 3;
    # skyscrapers: 1 scoring marker, 2 on the board, 3 in the player's supply, the rest in the general supply.
    s = new_game(players=4, seed=5)
    for seat in range(4):
        assert all(s.hands[seat][c] and sum(s.hands[seat][c]) == 1 for c in COLORS)
        assert sum(s.hands[seat]["black"]) == 4
        assert hand_size(s, seat) == 9
    assert all(len(s.colored_stacks[c]) == 12 - 4 for c in COLORS)
    assert len(s.black_stack) == 50 - 16
    assert [len(g) for g in s.supply_row] == [3, 2, 3, 2, 3, 2, 3, 2]
    placed = sum(len(c["businesses"]) for cells in s.plots.values() for c in cells.values())
    assert placed == 7
    assert len(s.unused_businesses) == 36 - 7 - 20 == 9
    assert s.supply == [3, 3, 3, 3]
    assert s.scores == [0, 0, 0, 0]
    assert s.commissioners == {"white": "CH", "beige": "CH"}
    s = started(4, seed=5)
    per_color = s.board.skyscrapers_per_color
    on_board = [sum(c["height"] for cells in s.plots.values() for c in cells.values() if c["owner"] == p) for p in range(4)]
    assert on_board == [2, 2, 2, 2]
    assert s.general == [per_color - 1 - 2 - 3] * 4


def test_two_player_robot_has_a_whole_color_in_the_general_supply():
    # 000 p.11: "all the skyscrapers in one of the two unchosen colors are placed next to the board in the
    # general skyscraper supply. These are Alea's skyscrapers."
    s = new_game(players=2, seed=1)
    assert s.robot == 2
    assert s.general[2] == s.board.skyscrapers_per_color
    assert len(s.hands) == 2


@pytest.mark.parametrize(
    "players, order",
    [(4, [0, 3, 2, 1, 1, 2, 3, 0]), (3, [0, 2, 1, 1, 2, 0]), (2, [0, 1, 1, 0])],
)
def test_snake_placement_order(players, order):
    # 000 p.2: first round counter-clockwise from the starting player, second round clockwise beginning
    # with the player who placed last ("Anna - Kevin - Ken - Alfonzo / Alfonzo - Ken - Kevin - Anna").
    s = new_game(players=players, seed=3)
    seen = []
    while top(s)["kind"] == "placement":
        seen.append(s.current_player())
        s.apply_command(s.current_player(), s.legal_commands()[0])
    assert seen == order
    assert top(s) == {"kind": "turn", "player": 0, "action": None, "phase": 1, "opened": ANY}


def test_starting_skyscrapers_only_on_empty_plots():
    # 000 p.2: "places one of his skyscrapers on any empty building plot"
    s = new_game(players=3, seed=2)
    (district, plot), = [(d, p) for d, cells in s.plots.items() for p, c in cells.items() if c["businesses"]][:1]
    assert f"place {district} {plot}" not in s.legal_commands()
    with pytest.raises(IllegalCommandError):
        s.apply_command(0, f"place {district} {plot}")


def test_second_starting_skyscraper_must_be_in_another_district():
    # 000 p.7: "each player may only build skyscrapers in one building plot per district in the entire game"
    s = new_game(players=2, seed=4)
    s.apply_command(0, "place 34W gray" if not s.plots["34W"]["gray"]["businesses"] else "place 34W orange")
    s.apply_command(1, "place 42E " + next(c for c in COLORS if not s.plots["42E"][c]["businesses"]))
    # seat 1 places its second skyscraper now; it may not go to 42E again
    assert s.current_player() == 1
    assert not any(cmd.startswith("place 42E ") for cmd in s.legal_commands())
    free = next(c for c in COLORS if not s.plots["42E"][c]["businesses"] and s.plots["42E"][c]["owner"] is None)
    with pytest.raises(IllegalCommandError) as err:
        s.apply_command(1, f"place 42E {free}")
    assert "another district" in err.value.message
    # seat 0 may still use 42E for its second skyscraper (the rule is per player)
    s.apply_command(1, "place 34E " + next(c for c in COLORS if not s.plots["34E"][c]["businesses"]))
    assert any(cmd.startswith("place 42E ") for cmd in s.legal_commands())
