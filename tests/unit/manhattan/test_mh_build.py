"""Playing a card, building, drawing; ownership; the round and the game's end (docs/rules.md M3-M13)."""

from __future__ import annotations

from datetime import datetime, timezone

import pytest
from mh_helpers import BLACK, BLUE, GREEN, RED, building, clear, give, kinds, put

from pbem import render
from pbem.games.errors import (
    AmbiguousCommandError,
    IllegalCommandError,
    NotYourTurnError,
)
from pbem.games.manhattan import new_game
from pbem.games.manhattan.actions import Pass, Play
from pbem.games.manhattan.rules import may_build, tower_floors, tower_owner
from pbem.services.common.game_info import GameInfo, PlayerInfo
from pbem.services.mail_out.help_text import mail_help
from pbem.services.common.timing import Timing

# --------------------------------------------------------------------------- a turn


def test_a_turn_plays_a_card_builds_and_draws(game4):
    s = game4
    s.hands[BLUE] = [2, 5, 5, 9]
    top = s.deck[0]
    give(s, "blue", 1, 3)
    events = s.apply_command(BLUE, "play 9 sydney 3")
    assert s.cities["sydney"][8] == [["blue", 3]]
    assert s.played[BLUE] == [9]
    assert s.hands[BLUE] == sorted([2, 5, 5, top])
    assert s.chosen["blue"] == [1, 0, 0, 0]
    assert kinds(events) == ["built"]
    built = events[0]
    assert built["actor"] == BLUE
    assert built["text"] == "played card 9 and built a 3-story part on site 9 of Sydney: a new tower of 3 stories"
    assert built["private"] == {BLUE: f"You drew card {top}."}
    assert (built["card"], built["city"], built["site"], built["size"], built["color"]) == (9, "sydney", 9, 3, "blue")
    assert s.current_player() == RED


def test_the_card_may_be_used_in_any_city(game4):
    s = game4
    s.hands[BLUE] = [4, 4, 4, 4]
    give(s, "blue", 1)
    plays = [a for a in s.legal_actions() if isinstance(a, Play)]
    assert {a.city for a in plays} == set(s.cities)
    assert {a.card for a in plays} == {4}


@pytest.mark.parametrize("players,seat,site", [
    (4, 0, 1), (4, 1, 3), (4, 2, 9), (4, 3, 7),
    (3, 0, 1), (3, 1, 3), (3, 2, 9),
    (2, 0, 1), (2, 1, 3),
])
def test_card_1_builds_on_the_far_left_site_of_each_seat(players, seat, site):
    s = building(players, seed=3)
    clear(s)
    s.turn = seat
    s.hands[seat] = [1, 1, 1, 1]
    color = s.colors[seat][0]
    give(s, color, 2)
    command = f"play 1 cairo {color} 2" if players == 2 else "play 1 cairo 2"
    events = s.apply_command(seat, command)
    assert s.cities["cairo"][site - 1] == [[color, 2]]
    assert events[0]["site"] == site


def test_turns_go_clockwise_from_the_start_player_until_every_part_is_placed():
    s = building(3, seed=8)
    order = []
    while s.phase == "build" and s.round == 1:
        order.append(s.current_player())
        s.apply_command(s.current_player(), s.legal_commands()[0])
    assert order == [0, 1, 2] * 4
    assert s.round == 2


def test_playing_a_card_not_in_hand_is_refused_with_the_cards_named(game4):
    s = game4
    s.hands[BLUE] = [1, 2, 2, 3]
    with pytest.raises(IllegalCommandError, match="You have no card 9: your cards are 1, 2, 2, 3") as err:
        s.parse(BLUE, "play 9 cairo 1")
    assert err.value.legal == s.legal_commands() and err.value.legal


def test_placing_a_part_not_chosen_is_refused(game4):
    s = game4
    give(s, "blue", 1, 1, 2)
    card = s.hands[BLUE][0]
    with pytest.raises(IllegalCommandError, match="no 4-story part left to place this round; your parts: 1 1 2"):
        s.parse(BLUE, f"play {card} cairo 4")


def test_out_of_turn_play_is_refused(game4):
    s = game4
    with pytest.raises(NotYourTurnError, match="It is not your turn: player 1 plays a card"):
        s.parse(RED, f"play {s.hands[RED][0]} cairo 1")


# --------------------------------------------------------------------------- ownership (M6, M7)


def test_an_empty_site_is_free(game4):
    s = game4
    s.hands[BLUE] = [5, 5, 5, 5]
    give(s, "blue", 1)
    s.apply_command(BLUE, "play 5 frankfurt 1")
    assert tower_owner(s.cities["frankfurt"][4]) == "blue"


def test_your_own_tower_is_free_whatever_the_others_have_in_it(game4):
    s = game4
    put(s, "frankfurt", 5, ("red", 4), ("red", 4), ("blue", 4))  # blue owns it with 4 floors against red's 8
    s.hands[BLUE] = [5, 5, 5, 5]
    give(s, "blue", 1)
    s.apply_command(BLUE, "play 5 frankfurt 1")
    assert s.cities["frankfurt"][4][-1] == ["blue", 1]


def test_equal_floors_take_a_tower_over(game4):
    s = game4
    put(s, "sydney", 5, ("red", 3))
    s.hands[BLUE] = [5, 5, 5, 5]
    give(s, "blue", 3)
    events = s.apply_command(BLUE, "play 5 sydney 3")
    assert tower_owner(s.cities["sydney"][4]) == "blue"
    assert events[0]["previous_owner"] == "red"
    assert events[0]["text"].endswith("6 stories now, taken over from player 2 (red)")


def test_one_floor_fewer_is_refused(game4):
    s = game4
    put(s, "sydney", 5, ("red", 3))
    s.hands[BLUE] = [5, 5, 5, 5]
    give(s, "blue", 2)
    with pytest.raises(IllegalCommandError, match="you need at least 3, so a part of at least 3 stories") as err:
        s.parse(BLUE, "play 5 sydney 2")
    assert "play 5 sydney 2" not in err.value.legal
    assert "play 5 manhattan 2" in err.value.legal
    assert s.cities["sydney"][4] == [["red", 3]]


def test_floors_count_not_parts():
    # red has one part of 4 floors, blue two parts of 1: blue's 2-story part brings blue to 4 floors, enough,
    # though blue would have three parts to red's one; a 1-story part (3 floors) is not enough
    assert not may_build([["blue", 1], ["red", 4]], "blue", 2)  # 1 + 2 = 3 floors < 4
    tower = [["blue", 1], ["blue", 1], ["red", 4]]
    assert may_build(tower, "blue", 2)
    assert not may_build(tower, "blue", 1)
    # many small parts of the owner count by their floors too
    tower = [["red", 1], ["red", 1], ["red", 1], ["blue", 1], ["red", 1]]
    assert tower_floors(tower) == {"red": 4, "blue": 1}
    assert may_build(tower, "blue", 3) and not may_build(tower, "blue", 2)


def test_only_the_owners_floors_matter_not_a_third_color():
    tower = [["green", 4], ["green", 3], ["red", 2]]  # red owns it with 2 floors; green has 7
    assert may_build(tower, "blue", 2)
    assert not may_build(tower, "blue", 1)


def test_the_floors_rule_in_the_engine(game4):
    s = game4
    put(s, "cairo", 5, ("blue", 1), ("blue", 1), ("red", 4))
    s.hands[BLUE] = [5, 5, 5, 5]
    give(s, "blue", 1, 2)
    legal = s.legal_commands()
    assert "play 5 cairo 2" in legal and "play 5 cairo 1" not in legal


def test_two_players_a_tower_of_either_of_your_colors_is_your_own(game2):
    # M7: "a sky-scraper that belongs to him": with two players, a tower topped by either of a player's colors
    s = game2
    put(s, "cairo", 5, ("green", 3))
    s.hands[0] = [5, 5, 5, 5]
    give(s, "blue", 1, 3)
    give(s, "green", 1)
    legal = s.legal_commands()
    assert {"play 5 cairo blue 3", "play 5 cairo blue 1", "play 5 cairo green 1"} <= set(legal)
    events = s.apply_command(0, "play 5 cairo blue 1")
    assert s.cities["cairo"][4] == [["green", 3], ["blue", 1]]
    assert events[0]["previous_owner"] == "green"
    assert events[0]["text"].endswith(": 4 stories now, blue instead of green")


def test_two_players_the_other_players_tower_needs_the_floors_of_the_color_built_with(game2):
    # M6, M7: on the other player's tower only the color built with counts against the tower's top color
    s = game2
    put(s, "cairo", 5, ("green", 2), ("red", 3))  # player 2's tower; player 1 has 2 green floors in it
    s.hands[0] = [5, 5, 5, 5]
    give(s, "blue", 1, 3)
    give(s, "green", 1)
    legal = s.legal_commands()
    assert "play 5 cairo blue 3" in legal and "play 5 cairo green 1" in legal
    assert "play 5 cairo blue 1" not in legal  # 1 blue floor < 3 red; green's floors are not added


def test_two_players_the_color_may_be_left_out_when_only_one_fits(game2):
    s = game2
    s.hands[0] = [5, 5, 5, 5]
    give(s, "blue", 1, 3)
    give(s, "green", 1, 2)
    assert s.parse(0, "play 5 cairo 3") == Play(5, "cairo", "blue", 3)
    with pytest.raises(AmbiguousCommandError) as err:
        s.parse(0, "play 5 cairo 1")
    assert err.value.legal == ["play 5 cairo blue 1", "play 5 cairo green 1"]


# --------------------------------------------------------------------------- nowhere to build (M10)


def _blocked(s):
    """Every site card 5 names (the centre, for every seat) is red's with 4 floors; blue holds only 1s and 2s."""
    for city in s.cities:
        put(s, city, 5, ("red", 4))
    s.hands[BLUE] = [5, 5, 5, 5]
    give(s, "blue", 1, 2)


def test_a_player_who_can_build_nowhere_must_pass(game4):
    s = game4
    _blocked(s)
    legal = s.legal_actions()
    assert legal and all(isinstance(a, Pass) for a in legal)
    assert s.legal_commands() == ["pass 5 1", "pass 5 2"]
    assert s.view(BLUE)["waiting_for"] == "player 1 can build no part anywhere with their cards and passes " \
                                          "(pass <card> <size>)."


def test_only_the_blocked_player_is_told_they_can_build_nowhere(game4):
    """That follows from their hand: the others' boards and answers name an ordinary turn."""
    s = game4
    _blocked(s)
    ordinary = "player 1 plays a card and builds a part, or passes if no card of theirs can build."
    assert s.view(RED)["waiting_for"] == ordinary
    assert s.view(None)["waiting_for"] == ordinary
    with pytest.raises(NotYourTurnError) as err:
        s.parse(RED, "play 1 cairo 1")
    assert "can build no part" not in str(err.value) and ordinary in str(err.value)
    moderator = " ".join(render.moderator_board("manhattan", s, players=["Ann", "Bob", "Cy", "Di"]).split())
    assert "Waiting for: player 1 (Ann) can build no part anywhere with their cards and passes" in moderator
    now = datetime(2026, 3, 1, tzinfo=timezone.utc)
    info = GameInfo(id=1, kind="manhattan", title="Manhattan", variant="", seed=11, status="active", settings={},
                    players=[PlayerInfo(seat, name, f"{name.lower()}@example.org")
                             for seat, name in enumerate(["Ann", "Bob", "Cy", "Di"])],
                    created_at=now, updated_at=now, state=s, timing=Timing())
    helped = {seat: " ".join(" ".join(mail_help(info, seat, moderator="m@example.org")).split()) for seat in (0, 1)}
    assert "The game waits for you. Ann can build no part anywhere" in helped[BLUE]
    assert "The game waits for Ann. Ann plays a card and builds a part, or passes if" in helped[RED]
    assert "can build no part" not in helped[RED]


def test_passing_discards_the_card_and_boxes_the_part(game4):
    s = game4
    _blocked(s)
    top = s.deck[0]
    events = s.apply_command(BLUE, "pass 5 2")
    assert s.chosen["blue"] == [1, 0, 0, 0]
    assert s.boxed["blue"] == [0, 1, 0, 0]
    assert s.played[BLUE] == [5]
    assert sorted(s.hands[BLUE]) == sorted([5, 5, 5, top])
    assert kinds(events) == ["passed"]
    assert events[0]["private"] == {BLUE: f"You drew card {top}."}
    assert s.current_player() == RED


def test_passing_is_refused_while_a_part_fits(game4):
    s = game4
    s.hands[BLUE] = [5, 5, 5, 5]
    give(s, "blue", 1)
    with pytest.raises(IllegalCommandError, match="You can still build a part, so you may not pass") as err:
        s.parse(BLUE, "pass 5 1")
    assert err.value.legal[0].startswith("play ")


def test_a_bigger_part_unblocks(game4):
    s = game4
    _blocked(s)
    give(s, "blue", 1, 4)
    assert s.legal_commands()[0] == "play 5 manhattan 4"


# --------------------------------------------------------------------------- one legal command (M20)


def _red_has_one_site_left(s, free_city):
    """Red holds only card 5 (the centre for every seat) and one 1-story part; green owns the centre of every
    city with 4 floors but ``free_city`` (None: of every city). Blue holds card 1 and one 1-story part."""
    for city in s.cities:
        if city != free_city:
            put(s, city, 5, ("green", 4))
    s.hands[BLUE] = [1, 1, 1, 1]
    give(s, "blue", 1)
    s.hands[RED] = [5, 5, 5, 5]
    give(s, "red", 1)


def test_a_play_that_is_the_only_legal_command_is_played_for_the_builder(game4):
    s = game4
    _red_has_one_site_left(s, "cairo")
    moves = s.moves
    events = s.apply_command(BLUE, "play 1 manhattan 1")
    assert kinds(events) == ["built", "forced", "built"]
    assert events[1]["actor"] == RED
    assert events[1]["text"] == "had only one legal command (play 5 cairo 1), so pbem played it for them"
    assert events[2]["actor"] == RED and events[2]["city"] == "cairo" and events[2]["site"] == 5
    assert s.cities["cairo"][4] == [["red", 1]]
    assert s.current_player() == GREEN, "red is not asked: the game waits for the next builder"
    assert s.moves == moves + 2, "the forced play is a decision made: a reply to the mail that asked it is stale"


def test_a_pass_that_is_the_only_legal_command_is_played_for_the_builder(game4):
    s = game4
    _red_has_one_site_left(s, None)
    events = s.apply_command(BLUE, "play 1 manhattan 1")
    assert kinds(events) == ["built", "forced", "passed"]
    assert "(pass 5 1)" in events[1]["text"]
    assert s.boxed["red"] == [1, 0, 0, 0] and s.current_player() == GREEN


def test_a_builder_with_a_choice_is_asked(game4):
    s = game4
    _red_has_one_site_left(s, "cairo")
    give(s, "red", 1, 2)
    s.apply_command(BLUE, "play 1 manhattan 1")
    assert s.current_player() == RED and s.legal_commands() == ["play 5 cairo 1", "play 5 cairo 2"]


# --------------------------------------------------------------------------- the deck (M11)


def test_the_deck_is_rebuilt_from_every_played_card_when_it_runs_out(game4):
    s = game4
    s.deck = []
    s.played = [[1, 2], [3], [], [4, 4]]
    s.hands[BLUE] = [5, 6, 7, 8]
    give(s, "blue", 1)
    events = s.apply_command(BLUE, "play 5 cairo 1")
    assert kinds(events) == ["built", "reshuffled"]
    assert events[1]["actor"] is None and events[1]["cards"] == 6
    assert s.played == [[], [], [], []]
    drawn = [c for c in s.hands[BLUE] if c not in (6, 7, 8)]
    assert len(drawn) == 1
    assert sorted(s.deck + drawn) == [1, 2, 3, 4, 4, 5]


def test_the_reshuffle_uses_the_seeded_generator_in_the_state(game4):
    s = game4
    s.deck = []
    s.played = [[1, 2, 3, 4, 5, 6, 7, 8, 9], [], [], []]
    s.hands[BLUE] = [5, 6, 7, 8]
    give(s, "blue", 1)
    twin = s.clone()
    other = s.clone()
    other.rng += 1
    s.apply_command(BLUE, "play 5 cairo 1")
    twin.apply_command(BLUE, "play 5 cairo 1")
    other.apply_command(BLUE, "play 5 cairo 1")
    assert s.deck == twin.deck and s.rng == twin.rng
    assert s.deck != other.deck


def test_a_long_game_reshuffles_and_keeps_every_card():
    s = building(4, seed=2)
    seen = 0
    while not s.is_terminal():
        for event in s.apply_command(s.current_player(), s.legal_commands()[-1]):
            seen += event["kind"] == "reshuffled"
        assert len(s.deck) + sum(map(len, s.hands)) + sum(map(len, s.played)) == 45
    assert seen >= 1  # 96 cards are played from 45: the deck runs out at least once


# --------------------------------------------------------------------------- rounds and the end


def test_after_the_round_the_start_player_passes_left():
    s = building(4, seed=6)
    while s.round == 1:
        events = s.apply_command(s.current_player(), s.legal_commands()[0])
    assert kinds(events)[-2:] == ["round_scored", "new_round"]
    assert events[-1]["actor"] == RED and events[-1]["text"] == "is the start player of round 2"
    assert (s.round, s.start, s.phase, s.current_player()) == (2, RED, "choose", RED)
    assert s.choosers == [RED, GREEN, BLACK, BLUE]


def test_parts_placed_in_earlier_rounds_stay():
    s = building(4, seed=6)
    while s.round == 1:
        s.apply_command(s.current_player(), s.legal_commands()[0])
    on_board = sum(len(t) for sites in s.cities.values() for t in sites)
    assert on_board == 24


@pytest.mark.parametrize("players,rounds", [(2, 6), (3, 6), (4, 4)])
def test_the_game_ends_after_the_last_round(players, rounds):
    s = new_game(players, seed=12)
    scored = 0
    while not s.is_terminal():
        for event in s.apply_command(s.current_player(), s.legal_commands()[0]):
            scored += event["kind"] == "round_scored"
    assert scored == rounds
    assert s.round == rounds and s.result["rounds"] == rounds
    assert all(sum(v) == 0 for v in s.supply.values()) and all(sum(v) == 0 for v in s.chosen.values())
    assert s.current_player() == -4 and s.legal_actions() == [] and s.phase == "over"
    with pytest.raises(Exception, match="game is over"):
        s.parse(0, "play 1 cairo 1")


def test_two_players_take_turns_alternately_and_place_both_colors():
    s = building(2, seed=3)
    order = []
    while s.round == 1:
        order.append(s.current_player())
        s.apply_command(s.current_player(), s.legal_commands()[0])
    assert order == [0, 1] * 8
