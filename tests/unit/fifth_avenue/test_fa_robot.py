"""The 2-player robot bidder (000: "Alea", 001: "Gedeon")."""

from __future__ import annotations

from unittest.mock import ANY
from collections import Counter

import pytest

from pbem.games.fifth_avenue.rules import allowed_bid_colors, district_points

from fa_helpers import COLORS, clear_plots, kinds, pass_all, put, ring, set_hand, started, top, trigger_auctions

ROBOT = 2


def game2(seed: int = 5):
    s = started(2, seed=seed)
    clear_plots(s)
    for seat in (0, 1):
        set_hand(s, seat, **{c: [1, 1, 1] for c in COLORS}, black=[2, 2, 2])
    return s


def robot_event(events):
    (event,) = [e for e in events if e["kind"] == "robot_bid"]
    return event


def test_robot_bid_is_8_to_21_over_many_deals():
    # 000 p.11: "the players draw black cards, one after the other [...] until they draw and place a card with
    # the same number as one already drawn and placed. This is Alea's complete bid for the auction and will
    # total between 8 and 21"
    totals = Counter()
    for seed in range(300):
        s = started(2, seed=seed)
        trigger_auctions(s, [])
        s.apply_command(0, "pass")
        event = robot_event(s.apply_command(1, "pass"))
        cards = event["cards"]
        assert event["total"] == sum(cards)
        assert cards[-1] in cards[:-1], cards  # stops at the first repeated number
        assert len(set(cards[:-1])) == len(cards) - 1, cards  # ...and not before
        totals[event["total"]] += 1
    assert min(totals) == 8 and max(totals) == 21
    assert set(totals) <= set(range(8, 22))


@pytest.mark.parametrize("stack, total", [([4, 4, 6], 8), ([4, 5, 6, 6, 4], 21), ([6, 5, 5], 16)])
def test_robot_bid_extremes_from_a_known_stack(stack, total):
    s = game2()
    s.black_stack = list(stack)
    trigger_auctions(s, [])
    s.apply_command(0, "pass")
    event = robot_event(s.apply_command(1, "pass"))
    assert event["total"] == total


def test_robot_bids_third_after_both_players():
    # 000 p.11: "1.) the player who triggered the auctions begins [...] 2.) Next, the second player [...]
    # 3.) Always, as the third bidder, comes Alea"
    s = game2()
    top(s)["player"] = 1  # seat 1 triggers: 1, 0, then the robot
    s.black_stack = [6, 5, 4, 4] + s.black_stack
    trigger_auctions(s, [])
    assert s.current_player() == 1
    events = s.apply_command(1, "bid gray 4")
    assert "robot_bid" not in kinds(events)
    assert s.current_player() == 0
    events = s.apply_command(0, "bid gray 5")
    assert robot_event(events)["total"] == 19
    # 19 > 5: the robot is in, and the players go on in the usual order
    assert s.current_player() == 1
    assert top(s)["bids"][str(ROBOT)]["black"] == [2, 1, 1]


def test_robot_out_when_not_higher():
    # 000 p.11: "4.1) If Alea's bid is less than or equal to the highest bid so far, he is out of the auction and
    # the auction continues with the two real players"
    s = game2()
    s.black_stack = [4, 5, 4] + s.black_stack  # 13
    trigger_auctions(s, ["34W"])
    s.apply_command(0, "bid gray 4 5 black 4")  # 13: equal is not higher
    events = s.apply_command(1, "pass")
    assert robot_event(events)["total"] == 13
    assert "robot_bid" in kinds(events) and "won" in kinds(events)
    # the only real player left wins
    assert top(s)["kind"] == "build" and top(s)["winner"] == 0
    # "In any case, Alea's bid cards are put on the bottom of the black stack after the auction."
    assert sorted(s.black_spent) == sorted([4, 5, 4] + [4])


def test_robot_wins_when_both_players_pass():
    # 000 p.11: "4.2) If Alea's bid is now higher than the previous high bid [...] If the others both pass with
    # Alea's bid the highest, Alea wins the auction."
    s = game2()
    s.black_stack = [6, 5, 6] + s.black_stack  # 17
    trigger_auctions(s, ["34W"])
    s.apply_command(0, "bid gray 4")
    s.apply_command(1, "pass")
    assert s.current_player() == 0
    hand = [list(v) for v in s.hands[0].values()]
    s.apply_command(0, "pass")
    assert [list(v) for v in s.hands[0].values()] != hand  # the gray 4 came back
    assert s.hands[0]["gray"] == [1, 1, 1]
    assert top(s)["site"] == "CP"
    assert any(c["owner"] == ROBOT for c in s.plots["34W"].values())
    assert s.black_spent[-3:] == [6, 5, 6]  # 000: Alea's cards go under the black stack


def test_robot_out_when_overbid_and_never_raises():
    # 000 p.11: "If one (or both) real players overbid Alea's bid, then Alea is out of the bidding for this
    # auction." 001: "No more cards are added to his cards during this Auction."
    s = game2()
    s.black_stack = [6, 5, 6] + s.black_stack  # 17
    trigger_auctions(s, ["34W"])
    s.apply_command(0, "bid gray 4")
    s.apply_command(1, "bid orange 5")
    s.apply_command(0, "bid gray 5 6 black 4")  # 19 > 17
    assert ROBOT in top(s)["out"]
    assert s.current_player() == 1
    s.apply_command(1, "bid black 5 5 6")  # 21
    assert s.current_player() == 0  # the robot is not asked again
    s.apply_command(0, "pass")
    assert top(s)["kind"] == "build" and top(s)["winner"] == 1
    # the robot's cards and the winner's black cards are all spent
    assert sorted(s.black_spent) == sorted([6, 5, 6] + [5, 5, 6])


def test_robot_builds_one_skyscraper_on_each_most_valuable_empty_plot():
    # 000 p.11: "Alea always builds 1 skyscraper on a building plot [...] always on an empty building plot [...]
    # chooses the most valuable building plot [...] If there is more than one building plot that would tie for
    # highest score, he builds 1 skyscraper in each such building plot!"
    s = game2()
    p = ring(s, "42W")  # brown gray green orange violet
    put(s, "42W", p[0], businesses=["boutique", "jeweler"])
    put(s, "42W", p[2], businesses=["boutique"])
    # empty: p[1] (next to 2 types: 3 VP), p[3] (1 type: 2 VP), p[4] (2 types: 3 VP)
    s.black_stack = [4, 5, 4] + s.black_stack
    general = s.general[ROBOT]
    trigger_auctions(s, ["42W"])
    pass_all(s)
    cells = s.plots["42W"]
    assert cells[p[1]] == {"businesses": [], "owner": ROBOT, "height": 1}
    assert cells[p[4]] == {"businesses": [], "owner": ROBOT, "height": 1}
    assert cells[p[3]] == {"businesses": [], "owner": None, "height": 0}
    assert s.general[ROBOT] == general - 2


def test_robot_builds_on_an_empty_plot_even_with_skyscrapers_there():
    s = game2()
    p = ring(s, "42W")
    put(s, "42W", p[0], owner=ROBOT, height=1)
    put(s, "42W", p[1], businesses=["gallery"])
    put(s, "42W", p[2], businesses=["perfume", "jeweler"])
    put(s, "42W", p[3], owner=0, height=1)
    # only p[4] is empty
    trigger_auctions(s, ["42W"])
    pass_all(s)
    assert s.plots["42W"][p[4]] == {"businesses": [], "owner": ROBOT, "height": 1}
    assert s.plots["42W"][p[0]]["height"] == 1


def test_robot_declares_building_stop_without_empty_plot_and_never_scores():
    # 000 p.11: "If Alea wins an auction for a district with no empty building plots, he declares a building
    # stop in this district. The 2 real players score points as in the 3 or 4 player game."
    s = game2()
    p = ring(s, "TS")
    put(s, "TS", p[0], owner=0, height=2)
    put(s, "TS", p[1], businesses=["gallery", "jeweler"])
    put(s, "TS", p[2], owner=1, height=1)
    put(s, "TS", p[3], businesses=["perfume"])
    put(s, "TS", p[4], owner=ROBOT, height=1)
    assert district_points(s, "TS") == [2 * 3, 5]
    s.scores = [7, 7]
    trigger_auctions(s, ["TS"])
    events = pass_all(s)
    assert "building_stop" in kinds(events)
    assert s.scores == [7 + 3, 7 + 2]  # half, rounded down; the robot gets nothing
    assert s.stopped == ["TS"]
    assert top(s)["site"] == "CP"


def test_robot_building_stop_can_be_the_second_and_end_the_game():
    # 000 p.11: "The game ends as in the 3 or 4 player game when the business supply row is empty or the second
    # building stop is completed."
    s = game2()
    s.stopped = ["42E"]
    p = ring(s, "TS")
    put(s, "TS", p[0], owner=0, height=1)
    put(s, "TS", p[1], businesses=["gallery"])
    put(s, "TS", p[2], owner=1, height=1)
    put(s, "TS", p[3], businesses=["perfume"])
    put(s, "TS", p[4], businesses=["boutique"])
    put(s, "34W", "orange", owner=1, height=1)
    trigger_auctions(s, ["TS", "52E"])
    events = pass_all(s)
    assert "building_stop" in kinds(events)
    assert s.is_terminal() and s.result["reason"] == "building_stop"
    assert s.stopped == ["42E", "TS"]
    # the stop gave 3 // 2 = 1 each; the final scoring adds 34W (Yellow 1 x 1 VP)
    assert s.result["start_scores"] == [1, 1]
    assert s.scores == [1, 2]


def test_player_building_stop_counts_robot_skyscrapers():
    # 000 p.11: "When a player declares a building stop in a district, he scores Alea's skyscrapers as well as
    # those of the 2 real players."
    s = game2()
    p = ring(s, "TS")
    put(s, "TS", p[0], owner=0, height=1)
    put(s, "TS", p[1], businesses=["gallery"])
    put(s, "TS", p[2], owner=ROBOT, height=1)
    put(s, "TS", p[3], owner=ROBOT, height=1)
    put(s, "TS", p[4], businesses=["perfume"])
    s.black_stack = [4, 4] + s.black_stack  # the robot bids 8
    trigger_auctions(s, ["TS"])
    # the robot's plots are not open to the other player (situation 3)
    assert allowed_bid_colors(s, top(s), 1)[0] == [p[1], p[4]]
    s.apply_command(0, f"bid {p[0]} 6 5")  # 11
    s.apply_command(1, "pass")
    s.apply_command(0, "stop")
    assert s.scores == [3, 0]


def test_robot_wins_central_park_and_builds_nothing():
    # 000 p.11: "If Alea wins in Central Park, he does not build."
    s = game2()
    general = list(s.general)
    trigger_auctions(s, [])
    pass_all(s)
    assert top(s) == {"kind": "turn", "player": 1, "action": None, "phase": 1, "opened": ANY}
    assert s.central_park == [0, 0]
    assert s.general == general


def test_robot_never_scores_a_district():
    # 000 p.11 note: "Alea never scores victory points, neither when scoring districts, a building stop, nor at
    # game end."
    s = game2()
    p = ring(s, "52E")
    put(s, "52E", p[0], owner=ROBOT, height=3)
    put(s, "52E", p[1], businesses=["gallery", "jeweler"])
    put(s, "52E", p[4], businesses=["perfume", "boutique"])
    s.commissioners["white"] = "52E"
    s.scores = [4, 4]
    black = [sum(h["black"]) for h in s.hands]
    s.apply_command(0, "D 52E")
    assert s.scores == [4, 4]
    # the robot draws no cards; both real players have no skyscraper there and draw the extra one
    assert [sum(h["black"]) - b for h, b in zip(s.hands, black)] == [3, 1]


def test_robot_never_scores_at_game_end_or_special_scoring():
    s = game2()
    for d in s.board.district_codes:
        put(s, d, ring(s, d)[0], owner=ROBOT, height=2)
    for i in range(7):
        s.supply_row[i] = []
    s.supply_row[7] = ["boutique", "jeweler"]
    s.cp_businesses = ["gallery", "perfume"]
    s.apply_command(0, "B boutique 34W " + ring(s, "34W")[1])
    assert s.is_terminal()
    assert s.scores == [0, 0]
    assert len(s.result["scores"]) == 2


def test_robot_bid_with_too_few_black_cards_stops_early():
    # docs/rules.md D13: with no face-down and no spent black card left, the robot's bid is what it could draw;
    # with nothing drawn it bids 0 and drops out, so an auction nobody else bid in is skipped.
    s = game2()
    s.black_stack, s.black_spent = [6, 4], []
    trigger_auctions(s, ["34W"])
    s.apply_command(0, "bid gray 4")
    event = robot_event(s.apply_command(1, "pass"))
    assert event["cards"] == [6, 4] and event["total"] == 10
    assert top(s)["bids"][str(ROBOT)]["black"] == [1, 0, 1]  # 10 > 4: the robot holds the high bid
    s.apply_command(0, "pass")
    assert sorted(s.black_spent) == [4, 6]  # the robot won; its cards are spent
    s.black_stack, s.black_spent = [], []
    events = pass_all(s)  # Central Park: nobody bids, the robot draws nothing
    assert robot_event(events)["cards"] == [] and "no_bids" in kinds(events)


def test_robot_builds_only_as_long_as_its_general_supply_lasts():
    # docs/rules.md D30: the robot builds one skyscraper on each best empty plot, in ring order, while it has any.
    s = game2()
    p = ring(s, "42W")
    put(s, "42W", p[0], businesses=["boutique", "jeweler"])
    put(s, "42W", p[2], businesses=["boutique"])
    # p[1] and p[4] tie for the best value (3 VP); only one robot skyscraper is left
    s.general[ROBOT] = 1
    s.black_stack = [4, 5, 4] + s.black_stack
    trigger_auctions(s, ["42W"])
    pass_all(s)
    assert s.plots["42W"][p[1]]["owner"] == ROBOT
    assert s.plots["42W"][p[4]]["owner"] is None
    assert s.general[ROBOT] == 0
