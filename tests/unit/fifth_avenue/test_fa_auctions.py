"""Auctions: triggering, bidding, colors (figs. 08/09), building, building stop (fig. 10), Central Park, cards."""

from __future__ import annotations

from unittest.mock import ANY
import pytest

from pbem.games.errors import IllegalCommandError
from pbem.games.fifth_avenue import new_game
from pbem.games.fifth_avenue.rules import (
    _has_legal_bid,
    _legal_bids,
    _top,
    allowed_bid_colors,
    build_limit,
    current_player,
)
from pbem.games.rng import Rng
from pbem.services.offline.simulate import choose

from fa_helpers import (
    BLUE,
    COLORS,
    GREEN,
    RED,
    YELLOW,
    hand_size,
    kinds,
    pass_all,
    put,
    ring,
    set_hand,
    top,
    trigger_auctions,
)


def full_hands(s):
    """Every seat: one 4 and one 5 of each color, and black 4, 5, 6."""
    for seat in range(s.players):
        set_hand(s, seat, **{c: [1, 1, 0] for c in COLORS}, black=[1, 1, 1])


def bid_colors(s):
    """The colors the current bidder may open with, read from the legal commands."""
    return {c.split()[1] for c in s.legal_commands() if c.startswith("bid ")}


def auction(s):
    frame = top(s)
    assert frame["kind"] == "auction", frame
    return frame


# --------------------------------------------------------------------------- triggering


def test_move_to_city_hall_triggers_auctions_in_visit_order_then_central_park(game4):
    # 000 p.7: auctions "in the districts recently visited by this commissioner [...] starting with the first
    # district visited, and continuing in the order visited until the Central Park auction. After each auction,
    # the players return the matching commissioner marker from that district to the appropriate spot in City Hall."
    s = game4
    s.markers["beige"] = ["34W"]
    events = trigger_auctions(s, ["34E", "TS", "52W"])
    assert s.commissioners["white"] == "CH"
    assert "auctions" in kinds(events)
    sites = []
    while top(s)["kind"] == "auction":
        sites.append(auction(s)["site"])
        pass_all(s)
        if sites[-1] != "CP":
            assert sites[-1] not in s.markers["white"]
    assert sites == ["34E", "TS", "52W", "CP"]
    assert s.markers["white"] == []
    assert s.markers["beige"] == ["34W"]  # the other commissioner's markers stay
    # The event keeps the order as announced: a copy, not the queue the auctions then used up.
    (announced,) = [e for e in events if e["kind"] == "auctions"]
    assert announced["queue"] == ["34E", "TS", "52W", "CP"]


def test_auctions_interrupt_action_c_and_the_turn_resumes_with_cards(game4):
    # 000 p.7 note: "when a player chooses option C and moves a commissioner from Central Park to City Hall as
    # his first action, his turn is immediately interrupted [...] Once the auctions are completed, the player
    # continues with his 2nd and 3rd actions."
    s = game4
    s.commissioners["white"] = "CP"
    s.markers["white"] = ["34W"]
    black = sum(s.hands[RED]["black"])
    s.apply_command(RED, "C white CH")
    assert sum(s.hands[RED]["black"]) == black + 1
    assert auction(s)["site"] == "34W"
    pass_all(s)
    assert auction(s)["site"] == "CP"
    events = pass_all(s)
    assert "auctions_end" in kinds(events)
    assert top(s) == {"kind": "turn", "player": RED, "action": "C", "phase": 2, "opened": ANY}
    s.apply_command(RED, "cards orange green")
    # ...and may trigger again with the other commissioner as the 3rd action
    s.commissioners["beige"] = "CP"
    s.apply_command(RED, "move beige CH")
    assert auction(s)["site"] == "CP"
    pass_all(s)
    assert top(s) == {"kind": "turn", "player": YELLOW, "action": None, "phase": 1, "opened": ANY}


def test_auctions_interrupt_the_third_action_then_the_next_player_goes_on(game4):
    s = game4
    trigger_auctions(s, ["42E"])
    assert auction(s)["site"] == "42E"
    pass_all(s)
    pass_all(s)
    assert top(s) == {"kind": "turn", "player": YELLOW, "action": None, "phase": 1, "opened": ANY}
    assert len(s.frames) == 1


def test_auction_starts_with_the_trigger_and_goes_clockwise(game4):
    # 000 p.8: "An auction always begins with the player who triggered the auctions [...] and continues from
    # him in clockwise order"
    s = game4
    top(s)["player"] = BLUE
    trigger_auctions(s, [])
    order = []
    while top(s)["kind"] == "auction":
        order.append(s.current_player())
        s.apply_command(s.current_player(), "pass")
    assert order == [BLUE, GREEN, RED, YELLOW]


# --------------------------------------------------------------------------- bidding


def test_first_bid_must_be_colored(game4):
    # 000 p.8: "The first card bid by a player in an auction must always be a colored (not black) card."
    s = game4
    full_hands(s)
    trigger_auctions(s, ["34W"])
    assert not any(c.startswith("bid black") for c in s.legal_commands())
    with pytest.raises(IllegalCommandError) as err:
        s.apply_command(RED, "bid black 6")
    assert "colored" in err.value.message
    s.apply_command(RED, "bid gray 4 black 6")
    assert auction(s)["bids"][str(RED)]["color"] == "gray"


def test_raises_in_the_same_color_or_black_and_higher_than_the_high_bid(game4):
    # 000 p.8: "All further cards bid by the player in the auction [...] must be either cards of this color or
    # black cards." and "he must play cards that give him a total bid that is higher than the previous high bid"
    s = game4
    full_hands(s)
    trigger_auctions(s, ["34W"])
    s.apply_command(RED, "bid gray 4")
    with pytest.raises(IllegalCommandError) as err:
        s.apply_command(YELLOW, "bid orange 4")  # ties, is not higher
    assert "higher than 4" in err.value.message
    s.apply_command(YELLOW, "bid orange 5")
    s.apply_command(BLUE, "pass")
    s.apply_command(GREEN, "pass")
    with pytest.raises(IllegalCommandError) as err:
        s.apply_command(RED, "bid orange 5")
    assert "gray" in err.value.message
    assert all(not c.startswith("bid ") or c.split()[1] in ("gray", "black") for c in s.legal_commands())
    s.apply_command(RED, "bid black 4")  # 4 + 4 = 8 > 5
    s.apply_command(YELLOW, "bid orange 4")  # 5 + 4 = 9 > 8
    s.apply_command(RED, "bid gray 5")  # 13
    assert auction(s)["bids"][str(RED)]["colored"] == [1, 1, 0]  # gray 4 + gray 5
    assert auction(s)["bids"][str(RED)]["black"] == [1, 0, 0]
    assert s.current_player() == YELLOW


def test_passing_is_final_and_returns_the_cards(game4):
    # 000 p.8: "he must pass, taking any previously bid cards from his play area back into his hand. A player
    # cannot re-enter an auction after passing."
    s = game4
    full_hands(s)
    trigger_auctions(s, ["34W"])
    s.apply_command(RED, "bid gray 4")
    s.apply_command(YELLOW, "bid orange 5 black 4")
    assert s.hands[YELLOW]["orange"] == [1, 0, 0] and s.hands[YELLOW]["black"] == [0, 1, 1]
    s.apply_command(BLUE, "bid green 5 black 5")  # 10
    s.apply_command(GREEN, "pass")
    s.apply_command(RED, "bid black 5 6")  # 4 + 11 = 15
    s.apply_command(YELLOW, "pass")
    assert s.hands[YELLOW]["orange"] == [1, 1, 0] and s.hands[YELLOW]["black"] == [1, 1, 1]
    # only Red and Blue remain: Yellow and Green are never asked again
    s.apply_command(BLUE, "bid black 6")  # 16
    assert s.current_player() == RED
    s.apply_command(RED, "pass")
    # Blue is the last one in: the auction is over without asking him again
    assert top(s)["kind"] == "build" and top(s)["winner"] == BLUE


def test_auction_with_no_bids_is_skipped(game4):
    # 000 p.8: "If no player bids in an auction, that district is skipped and the auction for the next district
    # begins."
    s = game4
    trigger_auctions(s, ["34W", "42W"])
    events = pass_all(s)
    assert "no_bids" in kinds(events)
    assert all(c["owner"] is None for c in s.plots["34W"].values())
    assert auction(s)["site"] == "42W"
    assert s.markers["white"] == ["42W"]


def test_winner_pays_cards_under_their_stacks_and_builds(game4):
    # 000 p.8: "The winner of the auction [...] puts all the cards he bid face up under the corresponding color
    # (or black) card stack. He may now build [...] on the building plot matching his bid color"
    s = game4
    full_hands(s)
    gray_stack = list(s.colored_stacks["gray"])
    spent = list(s.black_spent)
    trigger_auctions(s, ["TS"])
    s.apply_command(RED, "bid gray 4 black 5")
    for seat in (YELLOW, BLUE, GREEN):
        s.apply_command(seat, "pass")
    assert s.colored_stacks["gray"] == gray_stack + [4]
    assert s.black_spent == spent + [5]
    assert s.hands[RED]["gray"] == [0, 1, 0] and s.hands[RED]["black"] == [1, 0, 1]
    build = top(s)
    assert build["kind"] == "build" and build["limit"] == 2
    assert sorted(s.legal_commands()) == ["build 0", "build 1", "build 2"]
    s.apply_command(RED, "build 2")
    assert s.plots["TS"]["gray"] == {"businesses": [], "owner": RED, "height": 2}
    assert s.supply[RED] == 1
    assert auction(s)["site"] == "CP"


def test_winner_may_build_fewer_or_none(game4):
    # 000 p.8: "a player may choose to build fewer skyscrapers than he is allowed (even none!)"
    s = game4
    full_hands(s)
    trigger_auctions(s, ["TS"])
    s.apply_command(RED, "bid gray 4")
    for seat in (YELLOW, BLUE, GREEN):
        s.apply_command(seat, "pass")
    assert top(s)["limit"] == 3
    with pytest.raises(IllegalCommandError) as err:
        s.apply_command(RED, "build 4")
    assert "0 to 3" in err.value.message
    s.apply_command(RED, "build 0")
    assert s.plots["TS"]["gray"]["owner"] is None and s.plots["TS"]["gray"]["height"] == 0
    assert s.supply[RED] == 3


def test_build_is_capped_by_the_players_supply(game4):
    # 000 p.8: "He takes the skyscrapers from his supply (not the general supply)"; a player may bid with none
    s = game4
    full_hands(s)
    s.supply[RED] = 1
    trigger_auctions(s, ["TS"])
    s.apply_command(RED, "bid gray 4")
    for seat in (YELLOW, BLUE, GREEN):
        s.apply_command(seat, "pass")
    assert sorted(s.legal_commands()) == ["build 0", "build 1"]
    with pytest.raises(IllegalCommandError) as err:
        s.apply_command(RED, "build 2")
    assert "supply" in err.value.message


@pytest.mark.parametrize(
    "colored, black, limit",
    [
        ((2, 0, 0), (2, 0, 0), 3),  # "Blue wins an auction with 2 gray and 2 black number 4 cards: [...] up to 3"
        ((2, 0, 0), (0, 1, 2), 1),  # "2 violet number 4 cards, 1 black number 5 card, and 2 black number 6 cards: [...] only up to 1"
        ((1, 1, 0), (0, 0, 0), 2),  # "at least one number 5 card (and no number 6 cards), he may only build up to 2"
        ((1, 0, 0), (0, 0, 1), 1),
        ((0, 0, 1), (0, 0, 0), 1),
        ((0, 1, 0), (3, 0, 0), 2),
    ],
)
def test_build_limit_function(colored, black, limit, game4):
    assert build_limit(game4.board, colored, black) == limit


def test_build_limit_examples_in_play(game4):
    # 000 p.7: Blue 2 gray 4 + 2 black 4 -> up to 3; Yellow 2 violet 4 + black 5 + 2 black 6 -> up to 1
    s = game4
    set_hand(s, BLUE, gray=[2, 0, 0], black=[2, 0, 0])
    set_hand(s, YELLOW, violet=[2, 0, 0], black=[0, 1, 2])
    s.supply[BLUE] = s.supply[YELLOW] = 5
    top(s)["player"] = BLUE
    trigger_auctions(s, ["42W", "42E"])
    s.apply_command(BLUE, "bid gray 4 4 black 4 4")
    pass_all(s)
    assert top(s)["kind"] == "build" and top(s)["limit"] == 3
    s.apply_command(BLUE, "build 3")
    assert s.plots["42W"]["gray"]["height"] == 3
    while s.current_player() != YELLOW:  # Blue, with no cards left, has passed already (D40)
        s.apply_command(s.current_player(), "pass")
    s.apply_command(YELLOW, "bid violet 4 4 black 5 6 6")
    assert top(s)["kind"] == "build" and top(s)["limit"] == 1
    assert sorted(s.legal_commands()) == ["build 0", "build 1"]


# --------------------------------------------------------------------------- forced color choice


def _fig08(s):
    """34W (orange green brown violet gray): Red on orange, Yellow on green, a business on violet."""
    put(s, "34W", "orange", owner=RED, height=1)
    put(s, "34W", "green", owner=YELLOW, height=2)
    put(s, "34W", "violet", businesses=["gallery"])


def test_forced_colors_fig08_own_plot_or_empty_plots(game4):
    # 000 p.7/9 fig. 08: "Red may only choose the orange color to bid. Yellow may only choose green. Blue and
    # Green may only choose either the gray color or the brown color to bid (both can choose the same color).
    # Violet is not allowed in this district."
    s = game4
    _fig08(s)
    full_hands(s)
    trigger_auctions(s, ["34W"])
    frame = auction(s)
    allowed = {seat: sorted(allowed_bid_colors(s, frame, seat)[0]) for seat in range(4)}
    assert allowed == {RED: ["orange"], YELLOW: ["green"], BLUE: ["brown", "gray"], GREEN: ["brown", "gray"]}
    assert bid_colors(s) == {"orange"}
    s.apply_command(RED, "pass")
    assert bid_colors(s) == {"green"}
    s.apply_command(YELLOW, "pass")
    assert bid_colors(s) == {"brown", "gray"}
    with pytest.raises(IllegalCommandError) as err:
        s.apply_command(BLUE, "bid violet 4")
    assert "brown" in err.value.message and "gray" in err.value.message
    s.apply_command(BLUE, "bid gray 4")
    s.apply_command(GREEN, "bid gray 5")  # the same color as Blue is fine
    assert auction(s)["bids"][str(GREEN)]["color"] == "gray"


def test_forced_colors_fig09_building_stop_colors(game4):
    # 000 fig. 09: "Red may only choose the orange color to bid. Yellow may only choose green. Blue may only
    # choose brown. Green may only choose the violet color or the gray color, trying for building stop."
    s = game4
    _fig08(s)
    put(s, "34W", "brown", owner=BLUE, height=1)
    put(s, "34W", "gray", businesses=["perfume", "boutique"])
    full_hands(s)
    trigger_auctions(s, ["34W"])
    frame = auction(s)
    assert frame["full"] is True
    allowed = {seat: sorted(allowed_bid_colors(s, frame, seat)[0]) for seat in range(4)}
    assert allowed == {RED: ["orange"], YELLOW: ["green"], BLUE: ["brown"], GREEN: ["gray", "violet"]}
    for seat in (RED, YELLOW, BLUE):
        s.apply_command(seat, "pass")
    with pytest.raises(IllegalCommandError) as err:
        s.apply_command(GREEN, "bid orange 4")  # another player's skyscrapers are there
    assert "violet" in err.value.message


def test_bid_message_names_the_own_plot_color(game4):
    # the error for a wrong color says which color is allowed
    s = game4
    full_hands(s)
    put(s, "TS", "gray", owner=RED, height=1)
    trigger_auctions(s, ["TS"])
    with pytest.raises(IllegalCommandError) as err:
        s.apply_command(RED, "bid violet 4")
    assert "gray" in err.value.message
    assert all(c == "pass" or c.startswith("bid gray") for c in err.value.legal)


# --------------------------------------------------------------------------- building stop


def _fig10(s):
    """34E (green violet orange gray brown): Blue 2 on green, Yellow 1 on orange, Red 1 on brown,
    businesses on violet (2 types) and gray (1 more type): every plot is taken."""
    put(s, "34E", "green", owner=BLUE, height=2)
    put(s, "34E", "violet", businesses=["boutique", "jeweler"])
    put(s, "34E", "orange", owner=YELLOW, height=1)
    put(s, "34E", "gray", businesses=["gallery"])
    put(s, "34E", "brown", owner=RED, height=1)


def test_building_stop_fig10(game4):
    # 000 p.9 fig. 10: "Red wins the auction and chooses building stop in this district (he could also have
    # chosen to add skyscrapers to his building plot, but did not). Red earns 4 VP, Yellow earns 5/2 = 2VP, and
    # Blue earns 6/2 = 3 VP." 001: "Note: In this example Green can only play Violet or Grey cards."
    s = game4
    _fig10(s)
    full_hands(s)
    s.commissioners["beige"] = "TS"
    s.markers["beige"] = ["34E"]
    s.scores = [10, 10, 10, 10]
    trigger_auctions(s, ["34E"])
    assert sorted(allowed_bid_colors(s, auction(s), GREEN)[0]) == ["gray", "violet"]
    s.apply_command(RED, "bid brown 5")
    for seat in (YELLOW, BLUE, GREEN):
        s.apply_command(seat, "pass")
    assert top(s)["kind"] == "build"
    assert set(s.legal_commands()) == {"build 0", "build 1", "build 2", "stop"}  # may add or stop
    events = s.apply_command(RED, "stop")
    assert s.scores == [14, 12, 13, 10]
    assert "building_stop" in kinds(events)
    assert all(cell == {"businesses": [], "owner": None, "height": 0} for cell in s.plots["34E"].values())
    assert s.stopped == ["34E"]
    assert s.markers["beige"] == [] and s.markers["white"] == []
    assert sorted(s.boxed_businesses) == ["boutique", "gallery", "jeweler"]
    assert s.boxed_skyscrapers[:4] == [1, 1, 2, 0]
    assert s.supply[RED] == 3  # stopping builds nothing
    assert auction(s)["site"] == "CP"  # the set goes on
    assert not s.is_terminal()


def test_building_stop_winner_may_add_instead(game4):
    s = game4
    _fig10(s)
    full_hands(s)
    trigger_auctions(s, ["34E"])
    s.apply_command(RED, "bid brown 5")
    pass_all(s)
    s.apply_command(RED, "build 2")
    assert s.plots["34E"]["brown"]["height"] == 3
    assert s.stopped == []


def test_building_stop_forced_when_the_winner_has_no_skyscraper_there(game4):
    # 000 p.9: "If the winner has no skyscrapers in the district, he must declare a building stop"
    s = game4
    _fig10(s)
    full_hands(s)
    trigger_auctions(s, ["34E"])
    for seat in (RED, YELLOW, BLUE):
        s.apply_command(seat, "pass")
    events = s.apply_command(GREEN, "bid violet 4")
    # no decision is left: the stop happens at once
    assert "building_stop" in kinds(events)
    assert s.scores == [1, 2, 3, 4]  # Red 2/2, Yellow 5/2, Blue 6/2, Green 1 per skyscraper
    assert s.stopped == ["34E"]
    assert auction(s)["site"] == "CP"


def test_no_building_stop_when_a_plot_was_empty_before_the_auction(game4):
    # 000 p.9: building stop only "When all building plots in a district have skyscrapers or businesses on
    # them before the auction"
    s = game4
    _fig10(s)
    put(s, "34E", "gray")  # now empty
    full_hands(s)
    trigger_auctions(s, ["34E"])
    s.apply_command(RED, "bid brown 5")
    pass_all(s)
    assert "stop" not in s.legal_commands()
    with pytest.raises(IllegalCommandError) as err:
        s.apply_command(RED, "stop")
    assert "empty plot" in err.value.message


def test_second_building_stop_ends_the_game(game4):
    # 000 p.10: "A player selects building stop and it is the second building stop in the game. The building
    # stop is played through completely (with scoring, recording, etc.). The game ends immediately with no
    # further auctions or other player actions."
    s = game4
    _fig10(s)
    full_hands(s)
    s.stopped = ["52W"]
    put(s, "TS", "gray", owner=YELLOW, height=1)
    put(s, "TS", "orange", businesses=["perfume"])
    s.cp_businesses = ["gallery", "gallery", "gallery"]
    s.central_park[BLUE] = 1
    trigger_auctions(s, ["34E", "TS"])
    s.apply_command(RED, "bid brown 5")
    pass_all(s)
    s.apply_command(RED, "stop")
    assert s.is_terminal()
    assert s.result["reason"] == "building_stop"
    assert s.result["start_scores"] == [4, 2, 3, 0]  # the stop was scored in full
    # final scoring: TS (Yellow 1 x 2 VP) and Central Park (1 type: 2 VP); 34E and 52W are stopped
    assert s.result["districts"]["TS"] == [0, 2, 0, 0]
    assert "34E" not in s.result["districts"] and "52W" not in s.result["districts"]
    assert s.scores == [4, 4, 5, 0]
    # TS was never auctioned
    assert s.plots["TS"]["gray"]["height"] == 1
    assert s.current_player() == -4


def test_no_building_stop_in_central_park(game4):
    # 000 p.9: "a player cannot choose building stop in the area below Central Park."
    s = game4
    full_hands(s)
    trigger_auctions(s, [])
    s.apply_command(RED, "bid gray 4")
    pass_all(s)
    assert "stop" not in s.legal_commands()
    with pytest.raises(IllegalCommandError) as err:
        s.apply_command(RED, "stop")
    assert "Central Park" in err.value.message


# --------------------------------------------------------------------------- Central Park


def test_central_park_first_bidder_sets_the_color_and_the_left_neighbour_starts_after_a_pass(game4):
    # 000 p.9: "for Central Park, all players must use the same colored cards as the starting player if they
    # want to participate in the auction. If the triggering player does not want to bid, his left neighbor may
    # start the bidding by selecting a color and so on."
    s = game4
    full_hands(s)
    trigger_auctions(s, [])
    assert bid_colors(s) == set(COLORS)
    s.apply_command(RED, "pass")
    assert s.current_player() == YELLOW
    assert bid_colors(s) == set(COLORS)
    s.apply_command(YELLOW, "bid violet 4")
    assert bid_colors(s) == {"violet"}
    with pytest.raises(IllegalCommandError) as err:
        s.apply_command(BLUE, "bid gray 5")
    assert "violet" in err.value.message
    s.apply_command(BLUE, "bid violet 5")
    s.apply_command(GREEN, "pass")
    s.apply_command(YELLOW, "bid black 6")  # 10
    s.apply_command(BLUE, "pass")
    assert top(s)["kind"] == "build" and top(s)["limit"] == 1
    s.apply_command(YELLOW, "build 1")
    assert s.central_park == [0, 1, 0, 0]
    assert s.supply[YELLOW] == 2
    assert all(c["owner"] is None for cells in s.plots.values() for c in cells.values())


def test_central_park_builds_any_number_of_times(game4):
    # 000 p.9 note: "each player may build any number of skyscrapers (based on his bids) in the area below
    # Central Park"
    s = game4
    full_hands(s)
    s.central_park[RED] = 2
    s.supply[RED] = 5
    trigger_auctions(s, [])
    s.apply_command(RED, "bid orange 4")
    pass_all(s)
    s.apply_command(RED, "build 3")
    assert s.central_park[RED] == 5


# --------------------------------------------------------------------------- the black stack


def test_black_stack_reshuffled_from_spent_cards_when_it_runs_out(game4):
    # 000 p.8: "As soon as the first face up card is encountered in the black stack, it is shuffled and placed
    # face down. The colored stacks are never shuffled."
    s = game4
    for seat, plot in zip(range(4), ring(s, "TS")):
        put(s, "TS", plot, owner=seat, height=1)
    s.commissioners["white"] = "TS"
    s.black_stack = [6]
    s.black_spent = [4, 4, 4, 5]
    before = list(s.hands[RED]["black"])
    s.apply_command(RED, "D TS")  # Red draws 2; everyone has a skyscraper there
    gained = [a - b for a, b in zip(s.hands[RED]["black"], before)]
    assert sum(gained) == 2 and gained[2] >= 1
    assert s.black_spent == []
    assert sorted(s.black_stack + [4] * gained[0] + [5] * gained[1]) == [4, 4, 4, 5]
    assert len(s.black_stack) == 3


def test_colored_cards_return_below_the_stack_in_order(game4):
    s = game4
    set_hand(s, RED, orange=[2, 1, 0])
    stack = list(s.colored_stacks["orange"])
    trigger_auctions(s, [])
    s.apply_command(RED, "bid orange 4 4 5")
    pass_all(s)
    assert s.colored_stacks["orange"][: len(stack)] == stack  # nothing shuffled
    assert sorted(s.colored_stacks["orange"][len(stack):]) == [4, 4, 5]
    assert hand_size(s, RED) == 0


@pytest.mark.parametrize("players,back_side", [(2, False), (3, True), (4, False)])
def test_whether_a_bidder_has_a_bid_is_known_without_listing_the_bids(players, back_side):
    """A bidder without a legal bid is passed for them (D40); that is decided without listing every bid a big
    hand allows, and must agree with the list at every decision of seeded random games."""
    asked = {True: 0, False: 0}
    for seed in range(4):
        s = new_game(players, seed, back_side=back_side)
        rng = Rng(seed)
        while not s.is_terminal():
            frame, player = _top(s), current_player(s)
            if frame["kind"] == "auction":
                for bidder in range(s.players):  # every seat's hand against this auction's high bid
                    if str(bidder) in frame["bids"] and bidder != player:
                        continue
                    has = _has_legal_bid(s, frame, bidder)
                    assert has == bool(_legal_bids(s, frame, bidder)), (seed, s.moves, bidder)
                    asked[has] += 1
            s.apply_action(player, choose(s.legal_actions(), rng, "by-kind"))
    assert asked[True] > 20 and asked[False] > 5, asked
