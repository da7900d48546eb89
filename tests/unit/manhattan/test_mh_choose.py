"""Choosing the round's parts (docs/rules.md M8, M9)."""

from __future__ import annotations

import pytest
from mh_helpers import choose_all, counts, kinds

from pbem.games.errors import (
    AmbiguousCommandError,
    IllegalCommandError,
    NotYourTurnError,
)
from pbem.games.manhattan import new_game
from pbem.games.manhattan.actions import Choose
from pbem.games.manhattan.rules import choose_options


def test_choosing_goes_from_the_start_player_clockwise():
    s = new_game(4, seed=1)
    order = []
    while s.phase == "choose":
        order.append(s.current_player())
        s.apply_command(s.current_player(), "choose 1 1 2 3 4 4")
    assert order == [0, 1, 2, 3]
    assert s.phase == "build" and s.current_player() == 0


def test_a_choice_moves_parts_from_the_supply_to_the_play_area():
    s = new_game(4, seed=1)
    events = s.apply_command(0, "choose 1 1 2 3 4 4")
    assert s.supply["blue"] == [9, 5, 3, 1]
    assert s.chosen["blue"] == [2, 1, 1, 2]
    assert kinds(events) == ["chose"]
    assert events[0]["actor"] == 0 and events[0]["text"] == "chose parts 1 1 2 3 4 4"
    assert events[0]["sizes"] == [1, 1, 2, 3, 4, 4] and events[0]["color"] == "blue"


@pytest.mark.parametrize("players,count", [(4, 6), (3, 4), (2, 4)])
def test_the_number_of_parts_per_round(players, count):
    s = new_game(players, seed=1)
    for command in s.legal_commands():
        assert len(command.split()) == 1 + count + (1 if players == 2 else 0)


def test_legal_choices_are_the_distinct_multisets_of_the_supply_smallest_first():
    s = new_game(4, seed=1)
    legal = s.legal_actions()
    assert all(isinstance(a, Choose) and a.color is None for a in legal)
    assert len({a.sizes for a in legal}) == len(legal)
    expected = sorted(
        tuple([1] * a + [2] * b + [3] * c + [4] * d)
        for a in range(12) for b in range(7) for c in range(5) for d in range(4) if a + b + c + d == 6
    )
    assert [a.sizes for a in legal] == expected
    assert str(legal[0]) == "choose 1 1 1 1 1 1"
    assert str(legal[-1]) == "choose 3 3 3 4 4 4"


def test_choose_options_respect_what_is_left():
    assert choose_options([1, 0, 0, 2], 3) == [(1, 4, 4)]
    assert choose_options([2, 1, 0, 0], 2) == [(1, 1), (1, 2)]
    assert choose_options([0, 0, 0, 0], 0) == [()]


def test_choosing_more_than_the_supply_holds_is_refused():
    s = new_game(4, seed=1)
    with pytest.raises(IllegalCommandError, match="only 3 blue part") as err:
        s.parse(0, "choose 4 4 4 4 1 1")
    assert err.value.legal == s.legal_commands()


def test_choosing_the_wrong_number_of_parts_is_refused():
    s = new_game(4, seed=1)
    with pytest.raises(IllegalCommandError, match="exactly 6 parts"):
        s.parse(0, "choose 1 2 3")


def test_a_later_chooser_must_wait():
    s = new_game(4, seed=1)
    with pytest.raises(NotYourTurnError, match="player 1 chooses 6 parts"):
        s.parse(1, "choose 1 1 2 3 4 4")


def test_the_last_round_choice_is_made_by_the_engine():
    # M8: a choice with one option only is no decision: in the last round everybody takes what is left
    s = new_game(4, seed=1)
    for color in s.supply:
        s.supply[color] = counts(1, 1, 2, 3, 4, 4)
    s.choosers = [0, 1, 2, 3]
    s.chosen = {c: [0, 0, 0, 0] for c in s.chosen}
    from pbem.games.manhattan.rules import _advance

    events = []
    _advance(s, events)
    assert s.phase == "build" and s.current_player() == 0
    assert kinds(events) == ["chose"] * 4
    assert all(e["forced"] for e in events)
    assert all(s.chosen[c] == [2, 1, 1, 2] and s.supply[c] == [0, 0, 0, 0] for c in s.chosen)


def test_the_fourth_round_needs_no_choice_in_a_real_game():
    s = new_game(4, seed=4)
    while s.round < 4:
        s.apply_command(s.current_player(), s.legal_commands()[0])
    assert s.phase == "build"
    assert all(sum(v) == 0 for v in s.supply.values())
    assert all(sum(v) == 6 for v in s.chosen.values())


# --------------------------------------------------------------------------- two players: two colors


def test_two_players_choose_each_color_in_its_own_decision():
    s = new_game(2, seed=1)
    legal = s.legal_commands()
    assert {c.split()[1] for c in legal} == {"blue", "green"}
    s.apply_command(0, "choose green 1 1 2 3")
    assert s.current_player() == 0
    assert {c.split()[1] for c in s.legal_commands()} == {"blue"}
    s.apply_command(0, "choose 1 1 1 4")  # the color may be left out when only one is left to choose
    assert s.chosen["blue"] == [3, 0, 0, 1] and s.chosen["green"] == [2, 1, 1, 0]
    assert s.current_player() == 1
    s.apply_command(1, "choose black 4 4 4 3")
    s.apply_command(1, "choose red 2 2 2 2")
    assert s.phase == "build" and s.current_player() == 0


def test_two_players_a_choice_without_color_is_ambiguous_when_both_fit():
    s = new_game(2, seed=1)
    with pytest.raises(AmbiguousCommandError) as err:
        s.parse(0, "choose 1 1 2 3")
    assert err.value.legal == ["choose blue 1 1 2 3", "choose green 1 1 2 3"]


def test_two_players_may_not_choose_the_other_players_colors():
    s = new_game(2, seed=1)
    with pytest.raises(IllegalCommandError, match="You play blue and green, not red"):
        s.parse(0, "choose red 1 1 2 3")


def test_two_players_may_not_choose_a_color_twice():
    s = new_game(2, seed=1)
    s.apply_command(0, "choose blue 1 1 2 3")
    with pytest.raises(IllegalCommandError, match="already chosen your blue"):
        s.parse(0, "choose blue 1 1 2 3")


def test_every_round_everybody_has_all_parts_chosen_before_building():
    s = choose_all(new_game(3, seed=2))
    assert all(sum(v) == 4 for v in s.chosen.values())
    assert all(sum(v) == 20 for v in s.supply.values())
