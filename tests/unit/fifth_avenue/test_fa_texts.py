"""What the engine tells a player in words says what the rules do (issue 13.7): no text that contradicts the
position it describes."""

from __future__ import annotations

import pytest

from pbem.games.errors import IllegalCommandError, InvalidCommandError
from pbem.games.fifth_avenue import decision_notes, owed_this_turn
from pbem.games.fifth_avenue.rules import describe_decision

from fa_helpers import BLUE, COLORS, GREEN, RED, YELLOW, at_phase, put, set_hand, top, trigger_auctions


def _full_hands(s):
    for seat in range(s.players):
        set_hand(s, seat, **{c: [1, 1, 0] for c in COLORS}, black=[1, 1, 1])


def _error(s, seat, command, kind=IllegalCommandError) -> str:
    with pytest.raises(kind) as err:
        s.parse(seat, command)
    return err.value.message


# --------------------------------------------------------------------------- action D and a building stop


def test_d_on_a_stopped_district_where_a_commissioner_stands_says_it_is_closed(game4):
    # D18 (000 p.9 note): the commissioner stays in a stopped district, but it is never scored again
    s = game4
    s.commissioners.update(white="52E", beige="CH")
    s.stopped = ["52E"]
    for command in ("D 52E", "D"):
        message = _error(s, RED, command)
        assert "closed by its building stop" in message or "closed by a building stop" in message, message
        assert "no commissioner stands in a district" not in message
        assert "52nd Street East" in message
    assert "the white commissioner still stands there" in _error(s, RED, "D 52E")


def test_d_on_a_stopped_district_names_the_district_that_can_be_scored(game4):
    s = game4
    s.commissioners.update(white="52E", beige="34W")
    s.stopped = ["52E"]
    message = _error(s, RED, "D 52E")
    assert "closed by its building stop" in message and "You may score 34W." in message


def test_d_without_any_commissioner_in_a_district_still_says_so(game4):
    message = _error(game4, RED, "D")
    assert "no commissioner stands in a district" in message


# --------------------------------------------------------------------------- the cards phase with one stack


def _one_stack(s, color="gray"):
    for c in COLORS:
        s.colored_stacks[c] = []
    s.colored_stacks[color] = [5, 4]


def test_cards_phase_with_one_stack_asks_for_one_card(game4):
    # D8: with only one stack that has cards, the player takes one card
    s = game4
    _one_stack(s)
    at_phase(s, 2)
    assert s.legal_commands() == ["cards gray"]
    assert "two colored cards" not in describe_decision(s)
    assert "one colored card" in describe_decision(s) and "cards gray" in describe_decision(s)
    notes = " ".join(decision_notes(s))
    assert "two colored cards" not in notes and "cards gray" in notes
    owed = owed_this_turn(s, RED)
    assert "two colored cards" not in owed and "cards gray" in owed and "move a commissioner" in owed


@pytest.mark.parametrize("command", ["cards orange gray", "cards gray gray", "cards gray orange", "cards orange"])
def test_a_wrong_cards_command_with_one_stack_names_the_one_card(game4, command):
    s = game4
    _one_stack(s)
    at_phase(s, 2)
    message = _error(s, RED, command)
    assert "'cards gray'" in message and "Only the gray stack has cards" in message, message
    assert "of different colors" not in message


def test_owed_cards_during_the_auctions_follow_the_stacks(game4):
    # a turn interrupted by the auctions (action C) still owes its 2nd phase: with one stack, one card
    s = game4
    _one_stack(s, "violet")
    _full_hands(s)
    s.commissioners["white"] = "CP"
    s.markers["white"] = ["42E"]
    s.apply_command(RED, "C white CH")
    assert top(s)["kind"] == "auction"
    owed = owed_this_turn(s, RED)
    assert owed.startswith("take one colored card") and "cards violet" in owed


def test_cards_phase_with_two_stacks_still_asks_for_two(game4):
    s = game4
    at_phase(s, 2)
    assert "two colored cards of different colors" in describe_decision(s)
    assert "two colored cards of different colors" in owed_this_turn(s, RED)


# --------------------------------------------------------------------------- misspelt commissioners and places


@pytest.mark.parametrize("command", ["move whte 34E", "C beig TS", "move whte times square"])
def test_a_misspelt_commissioner_is_called_a_commissioner(game4, command):
    s = game4
    at_phase(s, 3) if command.startswith("move") else None
    message = _error(s, RED, command, InvalidCommandError)
    word = command.split()[1]
    assert f"'{word}' is not a commissioner" in message and "white and beige" in message, message
    assert "destination" not in message.split(". Commands:")[0]


def test_a_single_unknown_word_after_move_names_both_commissioners_and_destinations(game4):
    s = game4
    at_phase(s, 3)
    message = _error(s, RED, "move whte", InvalidCommandError)
    assert "neither a commissioner (white or beige) nor a destination" in message
    assert "34E" in message and "CP" in message


def test_a_misspelt_destination_lists_the_destinations(game4):
    s = game4
    at_phase(s, 3)
    message = _error(s, RED, "move white 34X", InvalidCommandError)
    assert "'34x' is not a destination" in message
    assert all(code in message for code in ("CH", "34W", "34E", "TS", "52E", "CP"))


# --------------------------------------------------------------------------- an empty supply


def test_a_bidder_with_an_empty_supply_is_told_winning_builds_nothing(game4):
    # 000 p.8: "He takes the skyscrapers from his supply (not the general supply)"; D22
    s = game4
    _full_hands(s)
    s.supply[RED] = 0
    trigger_auctions(s, ["TS"])
    assert top(s)["kind"] == "auction" and s.current_player() == RED
    notes = " ".join(decision_notes(s))
    assert "Your own supply holds no skyscrapers" in notes and "winning builds nothing" in notes
    s.apply_command(RED, "pass")
    assert s.current_player() == YELLOW
    assert "winning builds nothing" not in " ".join(decision_notes(s))  # Yellow has 3 in their supply


def test_a_bidder_with_an_empty_supply_in_a_full_district_hears_of_the_building_stop(game4):
    s = game4
    for plot, owner in zip(s.board.district("34E").ring, (BLUE, None, YELLOW, None, RED)):
        put(s, "34E", plot, businesses=() if owner is not None else ["gallery"], owner=owner,
            height=1 if owner is not None else 0)
    _full_hands(s)
    s.supply[RED] = 0
    trigger_auctions(s, ["34E"])
    notes = " ".join(decision_notes(s))
    assert "winning builds nothing" in notes and "building stop" in notes


def test_a_winner_who_builds_nothing_is_told_why(game4):
    s = game4
    _full_hands(s)
    s.supply[RED] = 0
    trigger_auctions(s, ["TS"])
    s.apply_command(RED, "bid gray 4")
    events = []
    for seat in (YELLOW, BLUE, GREEN):
        events += s.apply_command(seat, "pass")
    won = next(e for e in events if e["kind"] == "won")
    assert "their own supply of skyscrapers is empty" in won["text"]
    built = next(e for e in events if e["kind"] == "built")  # D22: build 0 is played at once
    assert built["text"] == "built nothing on the gray plot of Times Square: their own supply of skyscrapers is empty"
    assert "built 0" not in built["text"]


def test_the_build_decision_with_an_empty_supply_says_why_nothing_is_built(game4):
    # a full district where the winner has a plot: build 0 or stop, so the decision is asked
    s = game4
    for plot, owner in zip(s.board.district("34E").ring, (BLUE, None, YELLOW, None, RED)):
        put(s, "34E", plot, businesses=() if owner is not None else ["gallery"], owner=owner,
            height=1 if owner is not None else 0)
    red_plot = next(p for p, c in s.plots["34E"].items() if c["owner"] == RED)
    _full_hands(s)
    s.supply[RED] = 0
    trigger_auctions(s, ["34E"])
    s.apply_command(RED, f"bid {red_plot} 4")
    for seat in (YELLOW, BLUE, GREEN):
        s.apply_command(seat, "pass")
    assert top(s)["kind"] == "build" and sorted(s.legal_commands()) == ["build 0", "stop"]
    notes = " ".join(decision_notes(s))
    assert "your own supply holds no skyscrapers" in notes and "build up to 0" not in notes
    events = s.apply_command(RED, "build 0")
    built = next(e for e in events if e["kind"] == "built")
    assert built["text"].startswith("built nothing on the") and "supply of skyscrapers is empty" in built["text"]


def test_a_winner_who_chooses_to_build_nothing_is_told_so(game4):
    s = game4
    _full_hands(s)
    trigger_auctions(s, ["TS"])
    s.apply_command(RED, "bid gray 4")
    for seat in (YELLOW, BLUE, GREEN):
        s.apply_command(seat, "pass")
    events = s.apply_command(RED, "build 0")
    built = next(e for e in events if e["kind"] == "built")
    assert built["text"] == "chose to build nothing on the gray plot of Times Square"
