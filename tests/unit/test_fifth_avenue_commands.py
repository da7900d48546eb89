"""The command grammar: every spelling a player may use, and the errors for the rest."""

from __future__ import annotations

import pytest

from pbem.games.errors import AmbiguousCommandError, InvalidCommandError
from pbem.games.fifth_avenue import split_commands
from pbem.games.fifth_avenue.actions import (
    BlackCardAndMove,
    Bid,
    Build,
    Move,
    PartialMove,
    Pass,
    Place,
    PlaceBusiness,
    ScoreDistrict,
    Stop,
    TakeCards,
    TakeSkyscrapers,
    parse_command,
)
from pbem.games.fifth_avenue.board import load_board
from pbem.games.fifth_avenue.rules import new_game

FRONT = load_board(False)
BACK = load_board(True)


@pytest.mark.parametrize(
    "text,expected",
    [
        ("place 34W orange", Place("34W", "orange")),
        ("PLACE times square GREY", Place("TS", "gray")),
        ("place 42nd St. West violet", Place("42W", "violet")),
        ("place 52nd street east brown", Place("52E", "brown")),
        ("A", TakeSkyscrapers()),
        ("action a", TakeSkyscrapers()),
        ("B boutique 34E gray", PlaceBusiness("boutique", "34E", "gray")),
        ("b Jeweller 42e green", PlaceBusiness("jeweler", "42E", "green")),
        ("B perfume shop times square violet", PlaceBusiness("perfume", "TS", "violet")),
        ("B art gallery 52W orange", PlaceBusiness("gallery", "52W", "orange")),
        ("C white 34W", BlackCardAndMove("white", "34W")),
        ("C beige city hall", BlackCardAndMove("beige", "CH")),
        ("c white central park", BlackCardAndMove("white", "CP")),
        ("D TS", ScoreDistrict("TS")),
        ("d 34th street west", ScoreDistrict("34W")),
        ("cards orange violet", TakeCards(("orange", "violet"))),
        ("cards grey, green", TakeCards(("gray", "green"))),
        ("move beige 52E", Move("beige", "52E")),
        ("MOVE WHITE CH", Move("white", "CH")),
        ("bid gray 4 4 black 5", Bid("gray", (2, 0, 0), (0, 1, 0))),
        ("bid grey 4+6", Bid("gray", (1, 0, 1), (0, 0, 0))),
        ("bid black 6 6", Bid(None, (0, 0, 0), (0, 0, 2))),
        ("bid black 4 orange 5", Bid("orange", (0, 1, 0), (1, 0, 0))),
        ("pass", Pass()),
        ("build 2", Build(2)),
        ("build 0", Build(0)),
        ("stop", Stop()),
        ("stop building", Stop()),
    ],
)
def test_accepted_spellings(text: str, expected: object) -> None:
    assert parse_command(FRONT, text) == expected


@pytest.mark.parametrize(
    "action",
    [
        Place("34W", "orange"), TakeSkyscrapers(), PlaceBusiness("gallery", "TS", "brown"),
        BlackCardAndMove("beige", "CP"), ScoreDistrict("52E"), TakeCards(("green", "gray")), TakeCards(("violet",)),
        Move("white", "CH"), Bid("violet", (1, 2, 0), (0, 0, 3)), Bid(None, (0, 0, 0), (1, 0, 0)),
        Pass(), Build(3), Stop(),
    ],
)
def test_canonical_text_reads_back(action: object) -> None:
    assert parse_command(FRONT, str(action)) == action


def test_sixth_plot_is_a_plot_on_the_back_side_only() -> None:
    assert parse_command(BACK, "B gallery TS center") == PlaceBusiness("gallery", "TS", "center")
    assert parse_command(BACK, "B gallery TS 6th") == PlaceBusiness("gallery", "TS", "center")
    with pytest.raises(InvalidCommandError):
        parse_command(FRONT, "B gallery TS center")


@pytest.mark.parametrize(
    "text,fragment",
    [
        ("", "empty"),
        ("jump", "'jump' is not a command"),
        ("place 99X orange", "'99x' is not a district"),
        ("place TS pink", "'pink' is not a plot color"),
        ("B hotel TS gray", "'hotel' is not a business"),
        ("bid gray 7", "'7' is neither a color nor a card value"),
        ("bid 4 4", "name the color before the values"),
        ("bid gray 4 violet 5", "one color"),
        ("bid", "say which cards"),
        ("build many", "'many' is not a number"),
        ("pass now", "unexpected 'now'"),
        ("cards black orange", "not a colored card stack"),
    ],
)
def test_unreadable_commands_say_why(text: str, fragment: str) -> None:
    with pytest.raises(InvalidCommandError) as err:
        parse_command(FRONT, text)
    assert fragment in err.value.message
    assert "Commands:" in err.value.message  # and the list of commands


def test_partial_moves_are_completed_when_only_one_fits() -> None:
    state = new_game(3, seed=1)
    while state.frames[-1]["kind"] == "placement":
        state.apply_action(state.current_player(), state.legal_actions()[0])
    assert parse_command(state.board, "C 34W") == PartialMove("C", None, "34W")
    with pytest.raises(AmbiguousCommandError) as err:
        state.parse(state.current_player(), "C 34W")  # both commissioners stand in City Hall
    assert "C white 34W" in err.value.legal and "C beige 34W" in err.value.legal
    state.commissioners["beige"] = "TS"
    assert state.parse(state.current_player(), "C 34W") == BlackCardAndMove("white", "34W")
    assert state.parse(state.current_player(), "D") == ScoreDistrict("TS")
    with pytest.raises(AmbiguousCommandError):
        state.parse(state.current_player(), "C beige")  # TS leads to 52W and 52E


def test_several_commands_share_a_line() -> None:
    assert split_commands("A; cards orange green ;move white 34W;") == ["A", "cards orange green", "move white 34W"]
    state = new_game(2, seed=3)
    while state.frames[-1]["kind"] == "placement":
        state.apply_action(state.current_player(), state.legal_actions()[0])
    player = state.current_player()
    stacks = [c for c in state.board.plot_colors if state.colored_stacks[c]][:2]
    for command in split_commands(f"A; cards {stacks[0]} {stacks[1]}; move white 34W"):
        state.apply_command(player, command)
    assert state.current_player() == 1 - player
    assert state.commissioners["white"] == "34W"
