"""Commands and their spellings, typed errors, the serial form, the views and the guide (M14, M15)."""

from __future__ import annotations

import json

import pytest
from mh_helpers import BLUE, RED, building, give, put

from pbem.games.errors import (
    CommandError,
    GameOverError,
    IllegalCommandError,
    InvalidCommandError,
    NotYourTurnError,
)
from pbem.games.manhattan import (
    PUBLIC_EVENTS,
    RESULT_EVENTS,
    State,
    decision_kind,
    decision_notes,
    decision_request,
    hand_text,
    new_game,
    owed_this_turn,
    split_commands,
    timeout_command,
    turn_owner,
)
from pbem.games.manhattan.actions import Choose, Pass, Play, parse_command
from pbem.games.manhattan.board import load_board

BOARD = load_board()

# --------------------------------------------------------------------------- spellings


@pytest.mark.parametrize("text,city", [
    ("play 5 manhattan 3", "manhattan"), ("play 5 New York 3", "manhattan"), ("play 5 nyc 3", "manhattan"),
    ("play 5 SYD 3", "sydney"), ("play 5 Sydney 3", "sydney"),
    ("play 5 frankfurt 3", "frankfurt"), ("play 5 ffm 3", "frankfurt"),
    ("play 5 hong kong 3", "hongkong"), ("play 5 hongkong 3", "hongkong"), ("play 5 Hong-Kong 3", "hongkong"),
    ("play 5 HK 3", "hongkong"),
    ("play 5 sao paulo 3", "saopaulo"), ("play 5 São Paulo 3", "saopaulo"), ("play 5 saopaulo 3", "saopaulo"),
    ("play 5 sao-paulo 3", "saopaulo"),
    ("play 5 cairo 3", "cairo"), ("play 5 Kairo 3", "cairo"),
])
def test_city_names_and_aliases(text, city):
    assert parse_command(BOARD, text) == Play(5, city, None, 3)


@pytest.mark.parametrize("text", [
    "play 5 sydney 3", "PLAY 5 SYDNEY 3", "play card 5 in sydney, 3", "build 5 sydney 3",
    "play 5 sydney 3-story", "play 5 in Sydney a 3 story part", "play 5 sydney 3.",
])
def test_play_spellings(text):
    assert parse_command(BOARD, text) == Play(5, "sydney", None, 3)


def test_play_with_a_color_and_pass():
    assert parse_command(BOARD, "play 5 sydney blue 3") == Play(5, "sydney", "blue", 3)
    assert parse_command(BOARD, "play 5 blue sydney 3") == Play(5, "sydney", "blue", 3)
    assert parse_command(BOARD, "pass 5 3") == Pass(5, None, 3)
    assert parse_command(BOARD, "pass 5 blk 3") == Pass(5, "black", 3)


@pytest.mark.parametrize("text", [
    "choose 1 1 2 3 4 4", "choose 4 4 3 2 1 1", "choose 112344", "choose 1,1,2,3,4,4", "Choose 2x1 2 3 2x4",
    "choose 1+1+2+3+4+4",
])
def test_choose_spellings(text):
    assert parse_command(BOARD, text) == Choose(None, (1, 1, 2, 3, 4, 4))


def test_canonical_forms():
    assert str(Choose(None, (1, 2))) == "choose 1 2"
    assert str(Choose("green", (1, 2))) == "choose green 1 2"
    assert str(Play(5, "hongkong", None, 2)) == "play 5 hongkong 2"
    assert str(Play(5, "hongkong", "red", 2)) == "play 5 hongkong red 2"
    assert str(Pass(5, None, 2)) == "pass 5 2" and str(Pass(5, "red", 2)) == "pass 5 red 2"


@pytest.mark.parametrize("text,why", [
    ("", "empty"),
    ("jump 5 sydney 3", "'jump' is not a command"),
    ("play 5 atlantis 3", "'atlantis' is neither a number, a city nor a color"),
    ("play 5 3", "name one city"),
    ("play 5 sydney cairo 3", "name only one city"),
    ("play 5 sydney", "give the card number and then the part's size"),
    ("play 10 sydney 3", "10 is not a card"),
    ("play 5 sydney 5", "5 is not a part size"),
    ("play 5 sydney red blue 3", "name one color"),
    ("choose 1 1 5", "5 is not a part size"),
    ("choose", "say which parts you choose"),
    ("choose 1 1 sydney", "choosing parts names no city"),
    ("pass 5 sydney 3", "passing names no city"),
])
def test_unreadable_commands_are_invalid_and_say_how_to_write_them(text, why):
    with pytest.raises(InvalidCommandError, match=why) as err:
        parse_command(BOARD, text)
    assert "Commands: choose <sizes>" in err.value.message


def test_several_commands_on_a_line():
    assert split_commands("choose 1 1 2 3 4 4; play 5 sydney 3 ;") == ["choose 1 1 2 3 4 4", "play 5 sydney 3"]


# --------------------------------------------------------------------------- typed errors


def test_an_invalid_command_is_invalid_even_out_of_turn():
    s = new_game(4, seed=1)
    with pytest.raises(InvalidCommandError):
        s.parse(RED, "dance")


def test_a_command_of_the_wrong_phase_is_illegal_and_lists_the_legal_ones():
    s = new_game(4, seed=1)
    with pytest.raises(IllegalCommandError, match="does not fit now: player 1 chooses 6 parts") as err:
        s.parse(BLUE, "play 5 sydney 3")
    assert err.value.legal == s.legal_commands()
    assert "Legal now: 'choose 1 1 1 1 1 1'" in err.value.message
    s = building(4, seed=1)
    with pytest.raises(IllegalCommandError, match="does not fit now: player 1 plays a card") as err:
        s.parse(BLUE, "choose 1 1 2 3 4 4")
    assert err.value.legal == s.legal_commands()


def test_a_color_is_refused_with_one_color_when_it_is_not_yours():
    s = building(4, seed=1)
    with pytest.raises(IllegalCommandError, match="You play blue, not red"):
        s.parse(BLUE, f"play {s.hands[BLUE][0]} sydney red 1")
    # your own color is accepted and dropped: the canonical command names none
    card = s.hands[BLUE][0]
    assert s.parse(BLUE, f"play {card} sydney blue 1") == Play(card, "sydney", None, 1)


def test_not_your_turn_and_game_over_are_typed():
    s = new_game(4, seed=1)
    with pytest.raises(NotYourTurnError) as err:
        s.parse(RED, "choose 1 1 2 3 4 4")
    assert isinstance(err.value, IllegalCommandError) and isinstance(err.value, CommandError)
    while not s.is_terminal():
        s.apply_command(s.current_player(), s.legal_commands()[0])
    with pytest.raises(GameOverError, match="The game is over"):
        s.parse(BLUE, "choose 1 1 2 3 4 4")


def test_a_refused_command_changes_nothing():
    s = building(4, seed=1)
    before = s.to_json()
    with pytest.raises(CommandError):
        s.apply_command(BLUE, "play 5 sydney 4 4")
    with pytest.raises(CommandError):
        s.apply_action(RED, Play(s.hands[RED][0], "sydney", None, 1))
    missing = next(card for card in range(1, 10) if card not in s.hands[BLUE])
    with pytest.raises(CommandError):
        s.apply_action(BLUE, Play(missing, "sydney", None, 1))
    assert s.to_json() == before


def test_every_legal_command_reads_back_to_itself():
    for players in (2, 3, 4):
        s = new_game(players, seed=players)
        for _ in range(3):
            for action in s.legal_actions():
                assert s.parse(s.current_player(), str(action)) == action
            s.apply_command(s.current_player(), s.legal_commands()[-1])
        s = building(players, seed=players)
        for action in s.legal_actions():
            assert s.parse(s.current_player(), str(action)) == action


# --------------------------------------------------------------------------- the serial form


def test_json_round_trip_is_exact_and_plays_on():
    s = building(3, seed=7)
    s.apply_command(0, s.legal_commands()[3])
    text = s.to_json()
    again = State.from_json(text)
    assert again == s and again.to_json() == text
    assert json.loads(text)["game"] == "manhattan"
    assert again.clone() == s and State.from_dict(s.to_dict()) == s
    command = s.legal_commands()[1]
    assert again.apply_command(again.current_player(), command) == s.apply_command(s.current_player(), command)
    assert again.to_json() == s.to_json()


def test_json_keeps_dict_order():
    s = new_game(4, seed=1)
    assert '"supply":{"blue"' in s.to_json()
    assert list(json.loads(s.to_json())["cities"]) == list(s.cities)


def test_foreign_states_are_refused():
    with pytest.raises(ValueError, match="not a manhattan state"):
        State.from_json(json.dumps({"game": "fifth-avenue"}))
    data = new_game(2, seed=1).to_dict()
    data["extra"] = 1
    with pytest.raises(ValueError, match="unknown fields"):
        State.from_dict(data)


def test_replay_from_seed_and_commands_is_identical():
    s = new_game(4, seed=33)
    log = []
    while not s.is_terminal():
        command = s.legal_commands()[len(log) % len(s.legal_commands())]
        log.append((s.current_player(), command))
        s.apply_command(s.current_player(), command)
    replay = new_game(4, seed=33)
    for player, command in log:
        replay.apply_command(player, command)
    assert replay.to_json() == s.to_json() and replay.moves == len(log)


# --------------------------------------------------------------------------- views (M15)


def test_view_shows_the_own_hand_only():
    s = building(4, seed=2)
    view = s.view(RED)
    assert view["hand"] == s.hands[RED]
    assert view["hand_sizes"] == [4, 4, 4, 4]
    assert "hand" not in s.view(None)
    text = json.dumps(view)
    assert "deck\"" not in text and "rng" not in view and "seed" not in view
    assert view["deck_size"] == len(s.deck)


def test_view_does_not_depend_on_hidden_information():
    s = building(4, seed=2)
    other = s.clone()
    other.hands[BLUE] = [9, 9, 9, 9] if s.hands[BLUE] != [9, 9, 9, 9] else [1, 1, 1, 1]
    other.deck = list(reversed(other.deck))
    other.rng += 99
    other.seed += 1
    assert other.view(RED) == s.view(RED)
    assert other.view(None) == s.view(None)


def test_view_shows_everything_public():
    s = building(4, seed=2)
    put(s, "cairo", 4, ("red", 3), ("blue", 3))
    s.played[RED] = [3, 7]
    view = s.view(None)
    assert view["viewer"] is None and view["players"] == 4
    site = view["cities"]["cairo"]["sites"][3]
    assert site == {"site": 4, "card": 4, "parts": [["red", 3], ["blue", 3]], "owner": "blue", "owner_seat": 0,
                    "floors": {"red": 3, "blue": 3}, "height": 6}
    assert view["cities"]["cairo"]["name"] == "Cairo"
    assert view["colors"] == [["blue"], ["red"], ["green"], ["black"]]
    assert view["side"] == [0, 1, 2, 3] and view["side_names"] == ["south", "west", "north", "east"]
    assert view["supply"] == s.supply and view["chosen"] == s.chosen and view["boxed"] == s.boxed
    assert view["scores"] == s.scores and view["played"] == [[], [3, 7], [], []]
    assert (view["round"], view["rounds"], view["start_player"], view["current_player"]) == (1, 4, 0, 0)
    assert view["waiting_for"] == "player 1 plays a card and builds a part, or passes if no card of theirs can build."
    assert s.view(BLUE)["waiting_for"] == "player 1 plays a card and builds a part (play <card> <city> <size>)."


def test_two_player_view_names_two_colors_per_seat():
    view = new_game(2, seed=1).view(1)
    assert view["colors"] == [["blue", "green"], ["red", "black"]] and view["side"] == [0, 1]
    assert view["waiting_for"] == "player 1 chooses 4 blue or green parts for round 1 (choose <color> <sizes>)."


# --------------------------------------------------------------------------- the guide for the services


def test_hand_text():
    s = building(4, seed=2)
    s.hands[RED] = [1, 5, 5, 9]
    assert hand_text(s.view(RED)) == "cards 1, 5, 5, 9"
    assert hand_text({"hand": []}) == "no cards"


def test_decision_notes_for_choosing_and_building():
    s = new_game(4, seed=1)
    notes = decision_notes(s)
    assert notes[0] == "Player 1 chooses 6 parts for round 1 (choose <sizes>)."
    assert any("for example 'choose 1 1 1 1 1 1'" in note for note in notes)
    s.apply_command(0, "choose 1 1 2 3 4 4")
    assert any("player 1 chose 1 1 2 3 4 4" in note for note in decision_notes(s))
    s = building(4, seed=1)
    notes = decision_notes(s)
    assert notes[0] == "Player 1 plays a card and builds a part (play <card> <city> <size>)."
    assert any("as seen from your side of the board" in note for note in notes)
    assert any(f"Your cards: {', '.join(map(str, s.hands[0]))}" in note for note in notes)
    assert decision_notes(State.from_json(_finished().to_json())) == ["The game is over."]


def _finished() -> State:
    s = new_game(2, seed=3)
    while not s.is_terminal():
        s.apply_command(s.current_player(), s.legal_commands()[0])
    return s


def test_subjects_owners_and_kinds():
    s = new_game(4, seed=1)
    assert decision_request(s) == "Your turn: choose 6 building parts for round 1"
    assert turn_owner(s) == ("choose", 1)
    assert decision_kind(s) == "move"
    assert owed_this_turn(s, 0) is None
    s = building(4, seed=1)
    assert decision_request(s) == "Your turn: play a card and build a part"
    assert turn_owner(s) == ("turn", 0, 1)
    before = turn_owner(s)
    s.apply_command(0, s.legal_commands()[0])
    assert turn_owner(s) != before
    done = _finished()
    assert turn_owner(done) == ("over",) and decision_kind(done) == "none"
    assert "round_scored" in PUBLIC_EVENTS and "game_over" in PUBLIC_EVENTS
    assert RESULT_EVENTS == ("game_over", "round_scored")


def test_turn_owner_changes_when_a_two_player_round_ends_without_a_choice():
    # M8: in the last round nobody chooses; the last builder of round 5 starts round 6
    s = new_game(2, seed=8)
    while s.round < 6:
        before = turn_owner(s)
        s.apply_command(s.current_player(), s.legal_commands()[0])
    assert s.phase == "build" and before == ("turn", 1, 5) and s.current_player() == 1
    assert turn_owner(s) == ("turn", 1, 6)


def test_timeout_commands_are_legal_and_documented_defaults():
    s = new_game(4, seed=1)
    assert timeout_command(s) == "choose 1 1 1 1 1 1"  # the smallest parts first
    s = new_game(2, seed=1)
    assert timeout_command(s) == "choose blue 1 1 1 1"
    s = building(4, seed=1)
    give(s, "blue", 2, 3)
    s.hands[BLUE] = [4, 6, 6, 8]
    assert timeout_command(s) == "play 4 manhattan 2"  # lowest card, first city, smallest part
    assert timeout_command(s) in s.legal_commands()
    with pytest.raises(ValueError):
        timeout_command(_finished())
