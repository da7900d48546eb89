"""Deadlines (D39): which kind of decision is due, and the command played when nobody answers in time."""

from __future__ import annotations

import collections

import pytest

import pbem.games.fifth_avenue as fifth_avenue
from pbem.games import get_game
from pbem.games.fifth_avenue import decision_kind, new_game, timeout_command
from pbem.games.rng import Rng
from pbem.services.offline.simulate import choose

from fa_helpers import BLUE, COLORS, GREEN, RED, YELLOW, at_phase, pass_all, put, set_hand, top, trigger_auctions

# The frames rules.py pushes for an auction: a bid or pass ("auction") and the winner's build decision ("build").
AUCTION_FRAME_KINDS = ("auction", "build")


def full_hands(s):
    """Every seat: one 4 and one 5 of each color, and black 4, 5, 6."""
    for seat in range(s.players):
        set_hand(s, seat, **{c: [1, 1, 0] for c in COLORS}, black=[1, 1, 1])


def build_counts(commands):
    return [int(c.split()[1]) for c in commands if c.startswith("build ")]


def play_to_the_end(players, seed, back_side=False, policy="by-kind"):
    state = new_game(players, seed, back_side=back_side)
    rng = Rng(seed * 7919 + players)
    while not state.is_terminal():
        state.apply_action(state.current_player(), choose(state.legal_actions(), rng, policy))
    return state


# --------------------------------------------------------------------------- random games

GAMES = [
    (players, back_side, policy, seed)
    for players in (2, 3, 4)
    for back_side in (False, True)
    for policy in ("by-kind", "uniform")
    for seed in range(5)
]  # 60 games


@pytest.mark.parametrize("players,back_side,policy,seed", GAMES)
def test_every_decision_of_a_random_game_has_a_legal_timeout(players, back_side, policy, seed):
    state = new_game(players, seed, back_side=back_side)
    rng = Rng(seed * 104729 + players * 2 + back_side)
    seen = collections.Counter()
    while not state.is_terminal():
        frame_kind = state.frames[-1]["kind"]
        player = state.current_player()
        legal = state.legal_commands()
        before = state.to_json()
        command = timeout_command(state)
        kind = decision_kind(state)
        assert state.to_json() == before, "deciding a timeout must not change the game"

        assert command in legal, (frame_kind, command)
        assert kind == ("bid" if frame_kind in AUCTION_FRAME_KINDS else "move"), frame_kind
        if frame_kind == "auction":
            assert command == "pass"
        elif frame_kind == "build" and build_counts(legal):
            assert command == f"build {max(build_counts(legal))}"
        elif frame_kind == "turn" and state.frames[-1]["phase"] == 1:
            assert command == "A"
        seen[frame_kind] += 1

        # The worker plays the command in the player's name: the engine must accept it as it stands.
        trial = state.clone()
        trial.apply_command(player, command)

        # Play the timeout itself now and then, so positions that deadlines lead to are checked too.
        if rng.below(4) == 0:
            state.apply_command(player, command)
        else:
            state.apply_action(player, choose(state.legal_actions(), rng, policy))
        assert state.moves < 5000

    assert decision_kind(state) == "none"
    with pytest.raises(ValueError):
        timeout_command(state)
    assert seen["placement"] == 2 * players and seen["turn"] > 0


def test_the_random_games_reach_every_kind_of_decision():
    """The property test above is only worth its time if its games bid and build, not just move."""
    seen = collections.Counter()
    for players, back_side, policy, seed in GAMES[::6]:
        state = new_game(players, seed, back_side=back_side)
        rng = Rng(seed * 104729 + players * 2 + back_side)
        while not state.is_terminal():
            frame = state.frames[-1]
            seen[(frame["kind"], frame.get("phase"))] += 1
            state.apply_action(state.current_player(), choose(state.legal_actions(), rng, policy))
    assert {("placement", None), ("turn", 1), ("turn", 2), ("turn", 3), ("auction", None), ("build", None)} <= set(seen)


# --------------------------------------------------------------------------- auctions


def test_a_bid_times_out_as_a_pass(game4):
    s = game4
    full_hands(s)
    trigger_auctions(s, ["TS"])
    assert top(s)["kind"] == "auction" and s.current_player() == RED
    assert any(c.startswith("bid ") for c in s.legal_commands())  # bidding was possible
    assert decision_kind(s) == "bid"
    assert timeout_command(s) == "pass"

    s.apply_command(RED, "bid gray 4")
    # A player facing a high bid, and later a player raising their own bid, also pass.
    assert s.current_player() == YELLOW and timeout_command(s) == "pass"
    s.apply_command(YELLOW, "bid violet 5")
    for seat in (BLUE, GREEN):
        assert s.current_player() == seat
        s.apply_command(seat, timeout_command(s))
    assert s.current_player() == RED and "bid black 4" in s.legal_commands()
    assert decision_kind(s) == "bid" and timeout_command(s) == "pass"
    s.apply_command(RED, timeout_command(s))
    assert top(s)["kind"] == "build" and top(s)["winner"] == YELLOW


def test_a_central_park_bid_times_out_as_a_pass(game4):
    s = game4
    full_hands(s)
    trigger_auctions(s, [])
    assert top(s)["kind"] == "auction" and top(s)["site"] == "CP"
    assert decision_kind(s) == "bid"
    assert timeout_command(s) == "pass"


def test_a_build_decision_times_out_as_the_largest_build(game4):
    s = game4
    full_hands(s)
    trigger_auctions(s, ["TS"])
    s.apply_command(RED, "bid gray 4")  # a 4 allows 3
    pass_all(s)
    assert top(s)["kind"] == "build" and top(s)["limit"] == 3
    assert sorted(s.legal_commands()) == ["build 0", "build 1", "build 2", "build 3"]
    assert decision_kind(s) == "bid"
    assert timeout_command(s) == "build 3"
    s.apply_command(RED, timeout_command(s))
    assert s.plots["TS"]["gray"]["owner"] == RED and s.plots["TS"]["gray"]["height"] == 3


def test_the_largest_build_is_capped_by_the_winners_supply(game4):
    s = game4
    full_hands(s)
    s.supply[RED] = 2
    trigger_auctions(s, ["TS"])
    s.apply_command(RED, "bid gray 4")
    pass_all(s)
    assert top(s)["limit"] == 3
    assert timeout_command(s) == "build 2"


def _full_district_with_a_red_plot(s):
    """34E: every plot taken, red holds the brown one, so red may build there or declare a building stop."""
    put(s, "34E", "green", owner=BLUE, height=2)
    put(s, "34E", "violet", businesses=["boutique", "jeweler"])
    put(s, "34E", "orange", owner=YELLOW, height=1)
    put(s, "34E", "gray", businesses=["gallery"])
    put(s, "34E", "brown", owner=RED, height=1)


def test_a_build_decision_never_times_out_as_a_building_stop(game4):
    s = game4
    _full_district_with_a_red_plot(s)
    full_hands(s)
    trigger_auctions(s, ["34E"])
    s.apply_command(RED, "bid brown 5")
    pass_all(s)
    assert set(s.legal_commands()) == {"build 0", "build 1", "build 2", "stop"}
    assert timeout_command(s) == "build 2"


def test_a_winner_with_an_empty_supply_who_may_stop_builds_none(game4):
    s = game4
    _full_district_with_a_red_plot(s)
    full_hands(s)
    s.supply[RED] = 0
    trigger_auctions(s, ["34E"])
    s.apply_command(RED, "bid brown 5")
    pass_all(s)
    assert set(s.legal_commands()) == {"build 0", "stop"}
    assert timeout_command(s) == "build 0"


# --------------------------------------------------------------------------- moves


def test_choosing_an_action_times_out_as_action_a(game4):
    s = game4
    s.commissioners["white"] = "TS"  # action D is possible, so are B and C
    legal = s.legal_commands()
    assert {c.split()[0] for c in legal} == {"A", "B", "C", "D"}
    assert decision_kind(s) == "move"
    assert timeout_command(s) == "A"
    supply = s.supply[RED]
    s.apply_command(RED, timeout_command(s))
    assert s.supply[RED] == supply + 3 and top(s)["phase"] == 2


def test_taking_cards_times_out_as_the_first_legal_pair(game4):
    s = game4
    at_phase(s, 2)
    s.colored_stacks["orange"] = []  # the first pair no longer starts with orange
    legal = s.legal_commands()
    assert all(c.startswith("cards ") for c in legal) and len(legal) > 1
    assert decision_kind(s) == "move"
    assert timeout_command(s) == legal[0] == "cards green brown"


def test_moving_a_commissioner_times_out_as_the_first_legal_move(game4):
    s = game4
    s.commissioners["white"] = "TS"
    at_phase(s, 3)
    legal = s.legal_commands()
    assert all(c.startswith("move ") for c in legal) and len(legal) > 1
    assert decision_kind(s) == "move"
    assert timeout_command(s) == legal[0]


@pytest.mark.parametrize("players,back_side", [(2, False), (3, True), (4, False)])
def test_every_placement_times_out_as_the_first_legal_placement(players, back_side):
    s = new_game(players, seed=5, back_side=back_side)
    placed = 0
    while top(s)["kind"] == "placement":
        legal = s.legal_commands()
        assert decision_kind(s) == "move"
        assert timeout_command(s) == legal[0] and legal[0].startswith("place ")
        s.apply_command(s.current_player(), timeout_command(s))
        placed += 1
    assert placed == 2 * players
    assert top(s)["kind"] == "turn" and s.current_player() == 0


# --------------------------------------------------------------------------- the finished game and the API


def test_a_finished_game_has_no_decision_and_no_timeout():
    s = play_to_the_end(3, seed=1)
    assert s.is_terminal()
    assert decision_kind(s) == "none"
    with pytest.raises(ValueError):
        timeout_command(s)


def test_both_functions_are_part_of_the_engine_api():
    engine = get_game("fifth-avenue")
    assert engine.decision_kind is decision_kind and engine.timeout_command is timeout_command
    assert {"decision_kind", "timeout_command"} <= set(fifth_avenue.__all__)
