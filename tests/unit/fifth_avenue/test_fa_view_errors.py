"""What a player may see, the typed command errors, and the serial form."""

from __future__ import annotations

import json
import random

import pytest

from pbem.games.errors import (
    AmbiguousCommandError,
    GameOverError,
    IllegalCommandError,
    InvalidCommandError,
    NotYourTurnError,
)
from pbem.games.fifth_avenue import State, new_game

from fa_helpers import (
    BLUE,
    RED,
    YELLOW,
    at_phase,
    clear_plots,
    pass_all,
    put,
    set_hand,
    started,
    top,
    trigger_auctions,
)

# --------------------------------------------------------------------------- the player view


def test_view_shows_only_the_viewers_hand(game4):
    s = game4
    view = s.view(YELLOW)
    assert view["hand"] == s.hands[YELLOW]
    assert view["hand_sizes"] == [sum(sum(v) for v in h.values()) for h in s.hands]
    assert "hands" not in view
    assert "hand" not in s.view(None)


def test_view_does_not_depend_on_hidden_information(game4):
    # other hands (beyond their size), the order of the face-down black stack, the colored stacks below the
    # top card, the unused businesses and the random generator are hidden
    s = game4
    before = s.view(RED)
    other = State.from_json(s.to_json())
    set_hand(other, YELLOW, gray=[9, 0, 0])  # same size (9 cards), other cards
    random.Random(1).shuffle(other.black_stack)
    other.black_stack[0], other.black_stack[-1] = 4, 6
    other.colored_stacks["gray"] = [s.colored_stacks["gray"][0]] + sorted(s.colored_stacks["gray"][1:])
    other.unused_businesses = sorted(other.unused_businesses)
    other.rng = s.rng + 12345
    other.seed = s.seed + 1
    assert other.view(RED) == before
    text = json.dumps(before)
    assert str(s.rng) not in text
    assert "black_stack" not in before and "unused_businesses" not in before and "rng" not in before


def test_view_shows_public_information(game4):
    s = game4
    put(s, "TS", "gray", owner=BLUE, height=2)
    view = s.view(RED)
    assert view["plots"]["TS"]["gray"]["height"] == 2
    assert view["colored_stacks"]["gray"] == {"top": s.colored_stacks["gray"][0], "size": len(s.colored_stacks["gray"])}
    assert view["black_stack_size"] == len(s.black_stack) + len(s.black_spent)
    assert view["supply"] == s.supply and view["scores"] == s.scores
    assert view["current_player"] == RED


def test_view_of_the_robot_bid_shows_its_face_up_cards():
    s = started(2, seed=3)
    set_hand(s, 0, gray=[1, 0, 0], black=[0, 0, 3])  # enough to answer the robot
    s.black_stack = [4, 5, 5] + s.black_stack
    trigger_auctions(s, [])
    s.apply_command(0, "bid gray 4")
    s.apply_command(1, "pass")
    # the robot bid 14 > 4 and player 1 must answer: the robot's cards lie face up
    assert s.current_player() == 0
    assert s.view(1)["frames"][-1]["robot_cards"] == [4, 5, 5]
    assert "robot_cards" not in s.view(1)["frames"][0]


# --------------------------------------------------------------------------- errors


def test_invalid_command(game4):
    with pytest.raises(InvalidCommandError) as err:
        game4.apply_command(RED, "fly to the moon")
    assert "Commands:" in err.value.message


def test_not_your_turn(game4):
    s = game4
    with pytest.raises(NotYourTurnError) as err:
        s.apply_command(YELLOW, "A")
    assert "not your turn" in err.value.message
    assert "player 1" in err.value.message  # seat 0 is called player 1


@pytest.mark.parametrize("command", ["move white", "move 34W", "C white", "D"])
def test_not_your_turn_for_shortened_commands(game4, command):
    # a player acting out of turn is told so, whatever the command's form (the full forms are, see above)
    s = game4
    at_phase(s, 3)
    with pytest.raises(NotYourTurnError):
        s.parse(YELLOW, command)


def test_not_your_turn_in_an_auction(game4):
    s = game4
    trigger_auctions(s, [])
    with pytest.raises(NotYourTurnError):
        s.apply_command(BLUE, "pass")


def test_game_over_error(game4):
    s = game4
    for i in range(7):
        s.supply_row[i] = []
    s.supply_row[7] = ["boutique", "jeweler"]
    s.apply_command(RED, "B boutique 34W gray")
    with pytest.raises(GameOverError):
        s.apply_command(YELLOW, "A")


def test_ambiguous_move_lists_the_candidates(game4):
    s = game4
    at_phase(s, 3)
    with pytest.raises(AmbiguousCommandError) as err:
        s.parse(RED, "move white")
    assert sorted(err.value.legal) == ["move white 34E", "move white 34W"]
    s.commissioners["white"] = "52W"
    assert str(s.parse(RED, "move white")) == "move white CP"  # only one fits


def test_shortened_d_scores_the_only_district(game4):
    s = game4
    s.commissioners["beige"] = "42E"
    assert str(s.parse(RED, "D")) == "D 42E"
    s.commissioners["white"] = "34W"
    with pytest.raises(AmbiguousCommandError) as err:
        s.parse(RED, "D")
    assert sorted(err.value.legal) == ["D 34W", "D 42E"]


def test_illegal_phase_command_says_what_is_expected(game4):
    s = game4
    with pytest.raises(IllegalCommandError) as err:
        s.apply_command(RED, "cards gray orange")
    assert "chooses an action" in err.value.message
    assert "A" in err.value.legal


def test_bid_color_error_names_the_allowed_color(game4):
    # brief: bidding violet where you own the gray plot names gray
    s = game4
    put(s, "52E", "gray", owner=RED, height=1)
    set_hand(s, RED, violet=[1, 0, 0], gray=[1, 0, 0])
    trigger_auctions(s, ["52E"])
    with pytest.raises(IllegalCommandError) as err:
        s.apply_command(RED, "bid violet 4")
    assert "gray" in err.value.message
    assert "bid gray 4" in err.value.legal


def test_bid_with_cards_not_in_hand(game4):
    s = game4
    set_hand(s, RED, gray=[1, 0, 0])
    trigger_auctions(s, ["52E"])
    with pytest.raises(IllegalCommandError) as err:
        s.apply_command(RED, "bid gray 6")
    assert "do not have" in err.value.message


def _failing_commands():
    """(state builder, player, command) triples that must fail at various decision points."""
    return [
        ("placement", 0, "place 34W gray gray"),
        ("placement", 1, "place 34W gray"),
        ("turn", RED, "cards gray gray"),
        ("turn", RED, "B boutique CP gray"),
        ("turn", YELLOW, "A"),
        ("turn", RED, "D 34W"),
        ("auction", RED, "bid black 4"),
        ("auction", RED, "bid violet 4"),
        ("auction", RED, "bid gray 6 6 6 6"),
        ("auction", YELLOW, "pass"),
        ("build", RED, "build 3"),
        ("build", RED, "stop"),
        ("build", YELLOW, "build 1"),
    ]


def _state_at(point):
    if point == "placement":
        return new_game(players=4, seed=9)
    s = started(4, seed=9)
    clear_plots(s)
    if point == "turn":
        return s
    set_hand(s, RED, gray=[1, 1, 0], violet=[1, 0, 0], black=[1, 0, 0])
    put(s, "TS", "gray", owner=RED, height=1)  # Red must bid gray in Times Square
    trigger_auctions(s, ["TS"])
    if point == "auction":
        return s
    s.apply_command(RED, "bid gray 5")
    pass_all(s)
    assert top(s)["kind"] == "build"
    return s


@pytest.mark.parametrize("point, player, command", _failing_commands())
def test_failed_command_leaves_the_state_unchanged(point, player, command):
    s = _state_at(point)
    before = s.to_json()
    with pytest.raises((InvalidCommandError, IllegalCommandError, AmbiguousCommandError)) as err:
        s.apply_command(player, command)
    assert err.value.message
    assert s.to_json() == before


def test_aliases_are_accepted(game4):
    s = game4
    s.supply_row[0] = ["jeweler", "boutique", "gallery"]
    assert str(s.parse(RED, "B jeweller Times Square grey")) == "B jeweler TS gray"
    assert str(s.parse(RED, "b JEWELER 42nd St West orange")) == "B jeweler 42W orange"
    at_phase(s, 3)
    assert str(s.parse(RED, "move white 34th Street West")) == "move white 34W"


# --------------------------------------------------------------------------- serial form


def test_json_round_trip_mid_auction_plays_on_identically(game4):
    s = game4
    set_hand(s, RED, gray=[1, 0, 0], black=[0, 0, 2])
    trigger_auctions(s, ["TS"])
    s.apply_command(RED, "bid gray 4")
    copy = State.from_json(s.to_json())
    assert copy.to_json() == s.to_json()
    for state in (s, copy):
        pass_all(state)
        state.apply_command(RED, "build 1")
        pass_all(state)
    assert copy.to_json() == s.to_json()
    assert s.plots["TS"]["gray"]["owner"] == RED


def test_same_seed_same_game():
    a, b = new_game(players=3, seed=42), new_game(players=3, seed=42)
    assert a.to_json() == b.to_json()
    assert new_game(players=3, seed=43).to_json() != a.to_json()
