"""Scoring: districts (fig. 07), action D's black cards (fig. 01), special scorings, game end and final scoring."""

from __future__ import annotations

import pytest

from pbem.games.fifth_avenue.rules import district_points

from fa_helpers import (
    BLUE,
    GREEN,
    RED,
    YELLOW,
    clear_plots,
    hand_size,
    kinds,
    put,
    ring,
    started,
    top,
)

# 34th Street East's ring (board.json): green - violet - orange - gray - brown (- back to green).
D = "34E"


def _ring(s):
    p = ring(s, D)
    assert len(p) == 5
    return p


def fig07_first(s):
    """Blue: 2 skyscrapers next to 3 business types; Yellow: 1 skyscraper next to all 4 types."""
    p = _ring(s)
    put(s, D, p[0], owner=BLUE, height=2)
    put(s, D, p[1], businesses=["boutique", "jeweler"])
    put(s, D, p[2], owner=YELLOW, height=1)
    put(s, D, p[3], businesses=["gallery", "perfume"])
    put(s, D, p[4], businesses=["gallery"])


def fig07_second(s):
    """Blue: 2 skyscrapers next to 1 type; Yellow: 1 skyscraper next to the same 1 type."""
    p = _ring(s)
    put(s, D, p[0], owner=BLUE, height=2)
    put(s, D, p[1], businesses=["boutique"])
    put(s, D, p[2], owner=YELLOW, height=1)


def fig07_third(s):
    """Blue: 2 next to 1 type; Yellow: 1 next to 2 types; Red: 2 next to 2 types."""
    p = _ring(s)
    put(s, D, p[0], owner=BLUE, height=2)
    put(s, D, p[1], businesses=["boutique"])
    put(s, D, p[2], owner=YELLOW, height=1)
    put(s, D, p[3], businesses=["boutique", "jeweler"])
    put(s, D, p[4], owner=RED, height=2)


FIG07 = [
    # rulebook fig. 07: "Blue earns 2 x 5 VP = 10 VP / Yellow earns 1 x 8 VP = 8 VP"
    (fig07_first, [0, 8, 10, 0]),
    # "Blue earns 2 x 2 VP = 4 VP / Yellow earns 1 x 2 VP = 2 VP"
    (fig07_second, [0, 2, 4, 0]),
    # "Blue earns 2 x 2 VP = 4 VP / Yellow earns 1 x 3 VP = 3 VP / Red earns 2 x 3 VP = 6 VP"
    (fig07_third, [6, 3, 4, 0]),
]


@pytest.mark.parametrize("build, expected", FIG07, ids=["10-8", "4-2", "4-3-6"])
def test_fig07_district_points(game4, build, expected):
    build(game4)
    assert district_points(game4, D) == expected


@pytest.mark.parametrize("build, expected", FIG07, ids=["10-8", "4-2", "4-3-6"])
def test_fig07_action_d_adds_the_points_to_the_scores(game4, build, expected):
    s = game4
    build(s)
    s.scores = [1, 2, 3, 4]
    s.commissioners["white"] = D
    events = s.apply_command(0, f"D {D}")
    assert s.scores == [1 + expected[0], 2 + expected[1], 3 + expected[2], 4 + expected[3]]
    assert "scored" in kinds(events)


def test_vp_table_zero_to_four_adjacent_types(game4):
    # 000 p.6: 0 types 1 VP, 1 type 2 VP, 2 types 3 VP, 3 types 5 VP, 4 types 8 VP (per skyscraper)
    s = game4
    p = _ring(s)
    types = ["boutique", "jeweler", "gallery", "perfume"]
    for n, vp in enumerate([1, 2, 3, 5, 8]):
        put(s, D, p[0], owner=RED, height=1)
        put(s, D, p[1], businesses=types[: min(n, 2)])
        put(s, D, p[4], businesses=types[2:n] if n > 2 else [])
        assert district_points(s, D) == [vp, 0, 0, 0], n


def test_same_business_type_counts_once(game4):
    # 000 p.6: "If a skyscraper is adjacent to several businesses of the same type, only one counts"
    s = game4
    p = _ring(s)
    put(s, D, p[0], owner=RED, height=3)
    put(s, D, p[1], businesses=["jeweler", "jeweler"])
    put(s, D, p[4], businesses=["jeweler"])
    assert district_points(s, D) == [3 * 2, 0, 0, 0]


def test_only_directly_adjacent_businesses_count(game4):
    s = game4
    p = _ring(s)
    put(s, D, p[0], owner=RED, height=1)
    put(s, D, p[2], businesses=["jeweler", "gallery"])  # two plots away
    put(s, D, p[3], businesses=["perfume"])
    assert district_points(s, D) == [1, 0, 0, 0]


def test_back_side_center_plot_is_adjacent_to_every_ring_plot():
    # back side: the sixth plot (reconstructed as the center) touches all five plots
    s = started(4, seed=2, back_side=True)
    clear_plots(s)
    p = ring(s, D)
    put(s, D, "center", businesses=["jeweler", "gallery"])
    put(s, D, p[0], owner=RED, height=1)
    put(s, D, p[2], owner=BLUE, height=1)
    put(s, D, p[1], businesses=["perfume"])
    assert district_points(s, D) == [5, 0, 5, 0]


def test_action_d_black_cards_fig01(game4):
    # 000 p.3 fig. 01: "Blue scores this district. He takes 2 black cards plus a third black card, as he has no
    # skyscraper in this district. Green also takes 1 black card."
    s = game4
    p = _ring(s)
    put(s, D, p[0], owner=RED, height=1)
    put(s, D, p[2], owner=YELLOW, height=2)
    s.commissioners["beige"] = D
    top(s)["player"] = BLUE
    before = [sum(s.hands[i]["black"]) for i in range(4)]
    stack = len(s.black_stack)
    s.apply_command(BLUE, "D")  # the only scorable district
    after = [sum(s.hands[i]["black"]) for i in range(4)]
    assert [a - b for a, b in zip(after, before)] == [0, 0, 3, 1]
    assert len(s.black_stack) == stack - 4
    # no colored cards for D: the turn goes straight to the commissioner move
    assert top(s)["kind"] == "turn" and top(s)["phase"] == 3 and top(s)["player"] == BLUE


def test_action_d_scorer_with_skyscraper_takes_only_two(game4):
    s = game4
    p = _ring(s)
    put(s, D, p[0], owner=RED, height=1)
    put(s, D, p[2], owner=YELLOW, height=1)
    put(s, D, p[3], owner=BLUE, height=1)
    put(s, D, p[4], owner=GREEN, height=1)
    s.commissioners["white"] = D
    before = [sum(s.hands[i]["black"]) for i in range(4)]
    s.apply_command(RED, f"D {D}")
    after = [sum(s.hands[i]["black"]) for i in range(4)]
    assert [a - b for a, b in zip(after, before)] == [2, 0, 0, 0]


# --------------------------------------------------------------------------- special scorings


def _spread(s, seat, districts):
    """Give ``seat`` one skyscraper in each of the first ``districts`` districts."""
    for d in s.board.district_codes[:districts]:
        plot = ring(s, d)[seat]
        put(s, d, plot, owner=seat, height=1)


@pytest.mark.parametrize(
    "emptied, vp, need",
    [(1, 4, 3), (3, 6, 4), (5, 8, 5)],
    ids=["3rd-business-4vp", "6th-business-6vp", "9th-business-8vp"],
)
def test_special_scoring_after_3rd_6th_9th_business(game4, emptied, vp, need):
    # 000 p.5: after the 3rd/6th/9th business is placed on a building plot, 4/6/8 VP for each player with at
    # least 1 skyscraper in each of at least 3/4/5 different districts (not the area below Central Park).
    s = game4
    _spread(s, RED, need)
    _spread(s, YELLOW, need - 1)
    s.central_park[YELLOW] = 4  # Central Park is not a district
    _spread(s, BLUE, 7)
    for i in range(emptied):
        s.supply_row[i] = []
    s.supply_row[emptied] = ["boutique", "jeweler"]  # a two-business set: placing one empties it
    s.businesses_placed = [2, 5, 8][[1, 3, 5].index(emptied)]
    s.scores = [10, 10, 10, 10]
    events = s.apply_command(RED, "B boutique 52E " + ring(s, "52E")[4])
    assert s.scores == [10 + vp, 10, 10 + vp, 10]
    assert "special_scoring" in kinds(events)
    assert s.cp_businesses[-1] == "jeweler"


def test_no_special_scoring_after_the_first_set(game4):
    s = game4
    _spread(s, RED, 7)
    s.supply_row[0] = ["boutique", "jeweler"]
    events = s.apply_command(RED, "B boutique 52E orange")
    assert s.supply_row[0] == [] and s.cp_businesses == ["jeweler"]
    assert s.scores == [0, 0, 0, 0]
    assert "special_scoring" not in kinds(events)


def test_special_scoring_fires_exactly_on_the_third_placed_business():
    # played from the start: sets of 3 and 2 -> businesses 1, 2 (set 1), 3 (set 2)
    s = started(4, seed=21)
    vp_events = []
    for n in range(1, 4):
        player = s.current_player()
        business = s.supply_row[next(i for i, g in enumerate(s.supply_row) if g)][0]
        target = next(c for c in s.legal_commands() if c.startswith(f"B {business} "))
        events = s.apply_command(player, target)
        vp_events.append("special_scoring" in kinds(events))
        s.apply_command(player, s.legal_commands()[0])  # cards
        s.apply_command(player, s.legal_commands()[0])  # move
    assert vp_events == [False, False, True]
    assert len(s.cp_businesses) == 2
    # everybody has only the 2 starting skyscrapers: at most 2 districts, nobody scores
    assert s.scores == [0, 0, 0, 0]


def test_no_special_scoring_after_the_twelfth_business_game_ends(game4):
    # 000 p.5: "After the twelfth business is placed on a building plot [...] the game ends. Here, there are
    # no extra points for players."
    s = game4
    _spread(s, RED, 7)
    for i in range(7):
        s.supply_row[i] = []
    s.supply_row[7] = ["boutique", "jeweler"]
    s.cp_businesses = ["gallery", "gallery"]
    events = s.apply_command(RED, "B boutique 52E " + ring(s, "52E")[3])
    assert "special_scoring" not in kinds(events)
    assert s.is_terminal()
    # only the final district scoring: 7 skyscrapers next to nothing = 7 x 1 VP
    assert s.result["start_scores"] == [0, 0, 0, 0]


# --------------------------------------------------------------------------- game end and final scoring


def _end_by_supply(s, player=RED):
    for i in range(7):
        s.supply_row[i] = []
    s.supply_row[7] = ["boutique", "jeweler"]
    return s.apply_command(player, "B boutique 52E orange")


def test_game_ends_when_the_supply_row_is_empty_without_2nd_and_3rd_action(game4):
    # 000 p.10: "A player places one of the last two businesses from the supply row on a building plot and, of
    # course, places the last business in the area below Central Park. The game ends immediately (the player
    # does not take his 2nd and 3rd actions)."
    s = game4
    hands = [dict((c, list(v)) for c, v in h.items()) for h in s.hands]
    commissioners = dict(s.commissioners)
    events = _end_by_supply(s)
    assert s.is_terminal()
    assert s.current_player() == -4
    assert s.result["reason"] == "supply"
    assert s.cp_businesses[-1] == "jeweler"
    assert s.plots["52E"]["orange"]["businesses"] == ["boutique"]
    assert s.hands == hands  # no colored cards taken
    assert s.commissioners == commissioners  # no commissioner moved
    assert s.legal_actions() == [] and s.legal_commands() == []
    assert "game_over" in kinds(events)


@pytest.mark.parametrize(
    "in_park, vp_each",
    [(["jeweler", "jeweler"], 2), (["boutique", "jeweler"], 3), (["gallery", "perfume"], 5)],
    ids=["1-type-2vp", "2-types-3vp", "3-types-5vp"],
)
def test_central_park_final_scoring(game4, in_park, vp_each):
    # 000 p.10: turn over three businesses below Central Park; each Central Park skyscraper scores as if next
    # to them: 1 type = 2 VP, 2 types = 3 VP, 3 types = 5 VP.
    s = game4
    s.cp_businesses = list(in_park)  # the last business of the row (a jeweler) joins them: exactly 3 tiles
    s.central_park = [2, 1, 0, 3]
    _end_by_supply(s)
    assert sorted(s.result["central_park"]["drawn"]) == sorted(in_park + ["jeweler"])
    assert s.result["central_park"]["vp_each"] == vp_each
    assert s.scores == [2 * vp_each, 1 * vp_each, 0, 3 * vp_each]


def test_central_park_draws_three_of_many(game4):
    s = game4
    s.cp_businesses = ["boutique", "jeweler", "gallery", "perfume", "boutique", "jeweler"]
    s.central_park = [1, 0, 0, 0]
    _end_by_supply(s)
    drawn = s.result["central_park"]["drawn"]
    assert len(drawn) == 3
    assert s.scores[RED] == {1: 2, 2: 3, 3: 5}[len(set(drawn))]


def test_final_scoring_scores_every_district_once_and_skips_stopped(game4):
    # 000 p.10: "Each district, without a building stop marker, is now scored as described under 'Scoring
    # districts'."
    s = game4
    put(s, "34W", "orange", owner=RED, height=2)
    put(s, "34W", "green", businesses=["gallery"])
    put(s, "TS", ring(s, "TS")[0], owner=YELLOW, height=1)
    s.stopped = ["42E"]
    s.scores = [5, 5, 5, 5]
    _end_by_supply(s)
    # the business placed on 52E orange lies next to no skyscraper
    assert s.result["districts"]["34W"] == [4, 0, 0, 0]
    assert s.result["districts"]["TS"] == [0, 1, 0, 0]
    assert "42E" not in s.result["districts"]
    assert s.scores == [9, 6, 5, 5]


def test_tie_broken_by_most_cards_in_hand(game4):
    # 000 p.10: "If players are tied with the most, the player among them with the most remaining cards in his
    # hand is the winner."
    s = game4
    s.scores = [20, 20, 19, 3]
    s.hands[YELLOW]["black"][0] += 3
    s.hands[BLUE]["black"][0] += 9
    _end_by_supply(s)
    assert s.result["tied"] == [RED, YELLOW]
    assert hand_size(s, YELLOW) > hand_size(s, RED)
    assert s.result["winners"] == [YELLOW]


def test_clear_winner_is_the_highest_score(game4):
    s = game4
    s.scores = [20, 21, 19, 3]
    s.hands[RED]["black"][0] += 9
    _end_by_supply(s)
    assert s.result["winners"] == [YELLOW]


@pytest.mark.parametrize("in_park, vp_each", [([], 2), (["gallery"], 2), (["gallery", "perfume"], 3)],
                         ids=["none-2vp", "one-2vp", "two-3vp"])
def test_central_park_with_fewer_than_three_businesses(game4, in_park, vp_each):
    # docs/rules.md D29: an early end (second building stop) may leave fewer than three businesses below
    # Central Park: all are drawn; with none, a Central Park skyscraper still scores the lowest value, 2.
    from pbem.games.fifth_avenue.rules import _end_game

    s = game4
    s.cp_businesses = list(in_park)
    s.central_park = [3, 0, 1, 0]
    s.scores = [0, 0, 0, 0]
    _end_game(s, "building_stop", [])
    assert sorted(s.result["central_park"]["drawn"]) == sorted(in_park)
    assert s.result["central_park"]["vp_each"] == vp_each
    assert s.result["central_park"]["points"] == [3 * vp_each, 0, vp_each, 0]
