"""A player's turn: the actions A to D in three phases, colored cards, businesses and commissioners."""

from __future__ import annotations

import pytest

from pbem.games.errors import IllegalCommandError
from pbem.games.fifth_avenue.rules import destinations

from fa_helpers import BLUE, COLORS, RED, YELLOW, at_phase, hand_size, put, started, top


def _turn(s):
    frame = top(s)
    assert frame["kind"] == "turn"
    return frame["player"], frame["phase"]


def test_action_a_three_skyscrapers_then_cards_then_move(game4):
    # 000 p.3: A) take 3 skyscrapers; 2nd: take 2 colored cards; 3rd: move a commissioner
    s = game4
    supply, general = list(s.supply), list(s.general)
    s.apply_command(RED, "A")
    assert s.supply[RED] == supply[RED] + 3 and s.general[RED] == general[RED] - 3
    assert _turn(s) == (RED, 2)
    assert all(cmd.startswith("cards ") for cmd in s.legal_commands())
    size = hand_size(s, RED)
    s.apply_command(RED, "cards gray orange")
    assert hand_size(s, RED) == size + 2
    assert _turn(s) == (RED, 3)
    assert all(cmd.startswith("move ") for cmd in s.legal_commands())
    s.apply_command(RED, "move white 34W")
    assert s.commissioners["white"] == "34W"
    assert _turn(s) == (YELLOW, 1)  # clockwise: the next seat


def test_action_a_takes_what_is_left_of_the_general_supply(game4):
    s = game4
    s.general[RED] = 2
    s.apply_command(RED, "A")
    assert s.general[RED] == 0 and s.supply[RED] == 3 + 2


def test_action_b_places_then_cards_then_move(game4):
    s = game4
    business = s.supply_row[0][0]
    s.apply_command(RED, f"B {business} TS gray")
    assert s.plots["TS"]["gray"]["businesses"] == [business]
    assert _turn(s) == (RED, 2)


def test_action_c_draws_black_and_moves_then_cards_then_moves_again(game4):
    # 000 p.3: C) take a black card and move a commissioner; then 2 colored cards; then move a commissioner
    s = game4
    black = sum(s.hands[RED]["black"])
    top_card = s.black_stack[0]
    s.apply_command(RED, "C white 34E")
    assert sum(s.hands[RED]["black"]) == black + 1
    assert s.hands[RED]["black"][top_card - 4] >= 1
    assert s.commissioners["white"] == "34E"
    assert _turn(s) == (RED, 2)
    s.apply_command(RED, "cards green brown")
    s.apply_command(RED, "move white TS")
    assert s.commissioners["white"] == "TS"
    assert s.markers["white"] == ["34E"]
    assert _turn(s) == (YELLOW, 1)


def test_action_d_needs_a_commissioner_in_a_district(game4):
    # 000 p.6: "If both commissioners are in City Hall or Central Park, a player may not choose option D."
    s = game4
    assert not any(c.startswith("D") for c in s.legal_commands())
    with pytest.raises(IllegalCommandError):
        s.parse(RED, "D 34W")
    s.commissioners["white"] = "CP"
    s.commissioners["beige"] = "42W"
    s.markers["white"] = ["34W", "42W", "52W"]  # a marker is not enough
    assert [c for c in s.legal_commands() if c.startswith("D")] == ["D 42W"]
    with pytest.raises(IllegalCommandError) as err:
        s.parse(RED, "D 34W")
    assert "42W" in err.value.message


def test_action_d_fig03_only_the_district_of_the_other_commissioner(game4):
    # 000 p.6: "Example in fig. 03 (page 4), a player may score only '52nd St. East'." (white in Central Park,
    # beige in 52nd Street East)
    s = game4
    s.commissioners.update(white="CP", beige="52E")
    assert [c for c in s.legal_commands() if c.startswith("D")] == ["D 52E"]


def test_action_d_not_in_a_stopped_district(game4):
    # 000 p.9: after a building stop "nothing more can occur in or to this district"
    s = game4
    s.commissioners.update(white="TS", beige="CH")
    s.stopped = ["TS"]
    assert not any(c.startswith("D") for c in s.legal_commands())
    with pytest.raises(IllegalCommandError):
        s.parse(RED, "D TS")


def test_action_d_either_commissioner_district(game4):
    # 000 p.6 fig. 04: "a player may score either '34th Street West' or 'Times Square'"
    s = game4
    s.commissioners.update(white="34W", beige="TS")
    assert sorted(c for c in s.legal_commands() if c.startswith("D")) == ["D 34W", "D TS"]


def test_two_colored_cards_must_differ(game4):
    # 000 p.3: "He must take cards of two different colors. He may not take a black card!"
    s = game4
    at_phase(s, 2)
    for bad in ("cards gray gray", "cards gray", "cards gray black", "cards gray orange green"):
        with pytest.raises(Exception) as err:
            s.parse(RED, bad)
        assert err.type.__name__ in ("IllegalCommandError", "InvalidCommandError"), bad
    cmds = s.legal_commands()
    assert len(cmds) == 10  # 5 choose 2
    assert all(len(set(c.split()[1:])) == 2 for c in cmds)
    tops = {c: s.colored_stacks[c][0] for c in ("violet", "gray")}
    before = {c: list(s.hands[RED][c]) for c in COLORS}
    s.apply_command(RED, "cards violet grey")
    for c in ("violet", "gray"):
        assert s.hands[RED][c][tops[c] - 4] == before[c][tops[c] - 4] + 1
    assert s.hands[RED]["orange"] == before["orange"]


def test_empty_colored_stacks_one_card_or_none(game4):
    # docs/rules.md D8: 000 p.3 asks for two different colors and is silent on empty stacks; with one non-empty
    # stack the player takes one card, with none the 2nd action is skipped.
    s = game4
    for color in COLORS:
        s.colored_stacks[color] = []
    s.colored_stacks["gray"] = [5, 4]
    gray = list(s.hands[RED]["gray"])
    events = s.apply_command(RED, "A")  # 'cards gray' is the only answer: played at once (D40)
    assert [e["kind"] for e in events][-2:] == ["forced", "cards"]
    assert s.hands[RED]["gray"][1] == gray[1] + 1 and s.colored_stacks["gray"] == [4]
    assert _turn(s) == (RED, 3)
    s.apply_command(RED, "move white 34W")
    s.colored_stacks["gray"] = []
    size = hand_size(s, YELLOW)
    events = s.apply_command(YELLOW, "A")
    assert "took no colored cards" in events[-1]["text"]
    assert _turn(s) == (YELLOW, 3) and hand_size(s, YELLOW) == size


def test_action_c_with_no_black_card_left_still_moves(game4):
    # docs/rules.md D13: no black card face down and none spent: C draws nothing, the commissioner still moves.
    s = game4
    s.black_stack, s.black_spent = [], []
    black = list(s.hands[RED]["black"])
    s.apply_command(RED, "C white 34E")
    assert s.hands[RED]["black"] == black
    assert s.commissioners["white"] == "34E"
    assert _turn(s) == (RED, 2)


# --------------------------------------------------------------------------- businesses


def test_only_the_current_set_is_offered(game4):
    # 000 p.5: "the current set is always the left-most set in the supply that has at least 1 business tile in
    # it. The player may take any business from the current set."
    s = game4
    s.supply_row[0] = []
    s.supply_row[1] = ["gallery", "gallery"]
    s.supply_row[2] = ["boutique", "jeweler", "perfume"]
    offered = {c.split()[1] for c in s.legal_commands() if c.startswith("B ")}
    assert offered == {"gallery"}
    with pytest.raises(IllegalCommandError) as err:
        s.parse(RED, "B boutique 34W gray")
    assert "gallery" in err.value.message


def test_three_set_last_tile_moves_below_central_park_after_the_second(game4):
    # 000 p.5: "when a player places the 2nd business on a building plot from a 3 set or the 1st business from
    # a 2 set, he immediately places the last business face up in the area below Central Park."
    s = game4
    s.supply_row[0] = ["boutique", "jeweler", "gallery"]
    s.supply_row[1] = ["perfume", "gallery"]
    s.apply_command(RED, "B jeweler 34W gray")
    assert s.supply_row[0] == ["boutique", "gallery"] and s.cp_businesses == []
    s.apply_command(RED, "cards gray orange")
    s.apply_command(RED, "move white 34W")
    s.apply_command(YELLOW, "B boutique 34W gray")
    assert s.supply_row[0] == [] and s.cp_businesses == ["gallery"]
    assert s.plots["34W"]["gray"]["businesses"] == ["jeweler", "boutique"]
    s.apply_command(YELLOW, "cards gray orange")
    s.apply_command(YELLOW, "move white 42W")
    s.apply_command(BLUE, "B gallery 42W gray")
    assert s.supply_row[1] == [] and s.cp_businesses == ["gallery", "perfume"]


def test_business_on_empty_plot_or_plot_with_one_business_only(game4):
    # 000 p.5: "A player may place a business tile on any empty building plot or on any building plot that has
    # but one (identical or not) business. A player may never place a business on a building plot with 2
    # businesses or with one or more skyscrapers."
    s = game4
    s.supply_row[0] = ["boutique", "boutique", "jeweler"]
    put(s, "42W", "gray", businesses=["boutique"])
    put(s, "42W", "green", businesses=["boutique", "gallery"])
    put(s, "42W", "orange", owner=YELLOW, height=1)
    legal = set(s.legal_commands())
    assert "B boutique 42W gray" in legal  # one identical business there
    assert "B boutique 42W brown" in legal  # empty
    assert "B boutique 42W green" not in legal
    assert "B boutique 42W orange" not in legal
    with pytest.raises(IllegalCommandError) as err:
        s.parse(RED, "B boutique 42W green")
    assert "two businesses" in err.value.message
    with pytest.raises(IllegalCommandError) as err:
        s.parse(RED, "B boutique 42W orange")
    assert "skyscraper" in err.value.message
    s.apply_command(RED, "B boutique 42W gray")
    assert s.plots["42W"]["gray"]["businesses"] == ["boutique", "boutique"]


def test_no_business_in_a_stopped_district(game4):
    # 000 p.9: after a building stop "no more skyscrapers or businesses may be built there"
    s = game4
    s.stopped = ["42W"]
    assert not any(" 42W " in c for c in s.legal_commands() if c.startswith("B "))
    with pytest.raises(IllegalCommandError):
        s.parse(RED, "B " + s.supply_row[0][0] + " 42W gray")


def test_business_on_the_back_side_center_plot():
    # 001: "During the game a second Shop tile can be placed there as per the normal rules."
    s = started(4, seed=8, back_side=True)
    first = s.supply_row[0][0]
    center = s.plots["TS"]["center"]["businesses"]
    assert len(center) == 1
    s.apply_command(RED, f"B {first} TS center")
    assert len(s.plots["TS"]["center"]["businesses"]) == 2
    assert not any(c.endswith("TS center") for c in s.legal_commands() if c.startswith("B "))


# --------------------------------------------------------------------------- commissioners


def test_commissioner_paths_fig02(game4):
    # 000 p.4: from City Hall through three adjacent districts to Central Park; free choice at forks
    s = game4
    assert destinations(s, "white") == ["34W", "34E"]
    s.commissioners["white"] = "34W"
    assert sorted(destinations(s, "white")) == ["42W", "TS"]
    s.commissioners["white"] = "TS"
    assert sorted(destinations(s, "white")) == ["52E", "52W"]
    s.commissioners["white"] = "52E"
    assert destinations(s, "white") == ["CP"]
    s.commissioners["white"] = "CP"
    assert destinations(s, "white") == ["CH"]  # only back to City Hall


def test_commissioners_are_independent(game4):
    # 000 p.4: "A player may move a commissioner to any adjacent district, even if the other commissioner is
    # there or if a marker for the other commissioner is there."
    s = game4
    s.commissioners.update(white="34W", beige="34W")
    s.markers["beige"] = ["34W"]
    s.commissioners["beige"] = "TS"
    at_phase(s, 3)
    s.apply_command(RED, "move white TS")
    assert s.commissioners == {"white": "TS", "beige": "TS"}


def test_marker_left_in_the_district_moved_from(game4):
    # 000 p.4: "After moving a commissioner from a district, the player places a matching commissioner marker
    # in the district just moved from"
    s = game4
    at_phase(s, 3)
    s.apply_command(RED, "move beige 34E")
    assert s.markers["beige"] == []  # leaving City Hall leaves no marker
    for player, dest in ((YELLOW, "42E"), (BLUE, "52E"), (3, "CP")):
        at_phase(s, 3)
        s.apply_command(player, f"move beige {dest}")
    assert s.markers["beige"] == ["34E", "42E", "52E"]
    assert s.markers["white"] == []
    assert s.commissioners["beige"] == "CP"


def test_commissioner_skips_stopped_districts(game4):
    # 000 p.5 fig. 04 note and p.9: a building-stopped district "is skipped over by a passing commissioner"
    s = game4
    s.stopped = ["34W"]
    assert sorted(destinations(s, "white")) == ["34E", "42W", "TS"]
    at_phase(s, 3)
    with pytest.raises(IllegalCommandError):
        s.parse(RED, "move white 34W")
    s.apply_command(RED, "move white 42W")  # jumps over 34W
    assert s.markers["white"] == []
    s.stopped = ["34W", "52W"]
    assert destinations(s, "white") == ["CP"]  # 42W's only way on is through 52W


def test_fig04_moves_and_scorable_districts(game4):
    # 000 p.5 fig. 04 (52nd Street East stopped): "The player may move the white commissioner to Central Park or
    # to '52nd St.West'. Or, he may move the beige commissioner to '42nd St.West' or 'Times Square'." and p.6:
    # "In fig. 04 (page 5), a player may score either '34th Street West' or 'Times Square'."
    s = game4
    s.commissioners.update(white="TS", beige="34W")
    s.stopped = ["52E"]
    assert sorted(c for c in s.legal_commands() if c.startswith("D")) == ["D 34W", "D TS"]
    at_phase(s, 3)
    assert sorted(s.legal_commands()) == ["move beige 42W", "move beige TS", "move white 52W", "move white CP"]


def test_commissioner_leaving_a_stopped_district_leaves_no_marker(game4):
    # 000 p.9: "if the other commissioner is in the district, he remains until he is moved, but no commissioner
    # marker is placed there when he does."
    s = game4
    s.commissioners["beige"] = "TS"
    s.stopped = ["TS"]
    at_phase(s, 3)
    s.apply_command(RED, "move beige 52W")
    assert s.markers["beige"] == []
    assert s.commissioners["beige"] == "52W"


def test_illegal_commissioner_move_names_the_options(game4):
    s = game4
    at_phase(s, 3)
    with pytest.raises(IllegalCommandError) as err:
        s.parse(RED, "move white TS")
    assert "34W" in err.value.message and "34E" in err.value.message
    assert "move white 34W" in err.value.legal
