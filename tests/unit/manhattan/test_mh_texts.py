"""What the engine says, to whom: sites in each reader's own numbering (M18), the mailed board (every floor
shown, narrow enough for a phone), the building note and rule M7 agreeing, the faults of refused commands
named exactly, and the context of each decision (issue 13)."""

from __future__ import annotations

import re
from collections.abc import Iterator

import pytest
from mh_helpers import BLUE, RED, building, give, put

from pbem import render
from pbem.games.errors import AmbiguousCommandError, IllegalCommandError, InvalidCommandError
from pbem.games.fifth_avenue import new_game as new_fifth_avenue
from pbem.games.fifth_avenue.guide import event_text as fifth_avenue_event_text
from pbem.games.manhattan import decision_context, decision_notes, event_text, new_game, seat_sides, seen_from
from pbem.games.manhattan.actions import Play
from pbem.games.manhattan.board import load_board
from pbem.games.manhattan.guide import BUILD_NOTE, BUILD_NOTE_TWO
from pbem.games.manhattan.rules import _score_round
from pbem.render.manhattan import BOX_WIDTH

BOARD = load_board()
NAMES = ["Ann", "Bob", "Cy", "Dee"]
SITE_WORDS = re.compile(r"site (\d) of ([A-Z][a-z]+(?: [A-Z][a-z]+)?)")


def _code(name: str) -> str:
    return next(c.code for c in BOARD.cities if c.name == name)


def board_cells(text: str) -> dict[str, dict[int, list[str]]]:
    """The rendered board's cities: city code -> the number shown in a site's corner -> the site's lines."""
    cities: dict[str, dict[int, list[str]]] = {}
    lines = text.splitlines()
    for i, line in enumerate(lines):
        name = re.fullmatch(r"\| ([A-Z ]+?) *\|", line)
        if not name or name.group(1).title() not in [c.name for c in BOARD.cities]:
            continue
        cells: dict[int, list[str]] = {}
        row: list[list[str]] = []
        for body in lines[i + 2:]:
            if not body.startswith(("|", "+")):
                break
            if body.startswith("+"):
                for cell in row:
                    cells[int(cell[0].split()[0])] = [c.strip() for c in cell]
                row = []
                continue
            parts = body[1:-1].split("|")
            if not row:
                row = [[p] for p in parts]
            else:
                for cell, p in zip(row, parts):
                    cell.append(p)
        cities[_code(name.group(1).title())] = cells
    return cities


def _play_in_turn(s, cities: list[str], count: int) -> Iterator[dict]:
    """``count`` building turns, each in the next city of ``cities`` where a legal play exists; their events."""
    for n in range(count):
        if s.phase != "build":
            break
        legal = s.legal_commands()
        wanted = cities[n % len(cities)]
        command = next((c for c in legal if c.split()[2] == wanted), legal[-1])
        events = s.apply_command(s.current_player(), command)
        yield next(e for e in events if e["kind"] == "built")


@pytest.mark.parametrize("players, seed", [(3, 5), (4, 9), (2, 3)])
def test_event_text_names_the_site_where_each_readers_board_shows_the_building(players, seed):
    s = building(players, seed=seed)
    cities = ["sydney", "cairo", "frankfurt", "saopaulo", "hongkong", "manhattan"]
    seen = 0
    for event in _play_in_turn(s, cities, 3 * players):
        assert event["template"].count("{site}") == 1
        assert event_text(s, event, 0) == event["text"]  # the stored text stays in player 1's numbering
        tower = s.cities[event["city"]][event["site"] - 1]
        top = [event["color"], event["size"]]
        assert tower[-1] == top
        for reader in [*range(players), None]:
            words = event_text(s, event, reader)
            number, name = SITE_WORDS.search(words).groups()
            number = int(number)
            assert _code(name) == event["city"]
            if reader is None:
                assert words.count("(numbered from player 1's side)") == 1
                view = s.view(None)
                drawn = render.moderator_board("manhattan", s, players=NAMES[:players])
            else:
                assert "numbered from" not in words
                assert number == seen_from(seat_sides(players)[reader], event["site"])
                view = s.view(reader)
                drawn = render.board("manhattan", view, players=NAMES[:players])
            cell = next(c for c in view["cities"][event["city"]]["sites"] if c["card"] == number)
            assert cell["parts"][-1] == top and cell["height"] == event["height"]
            shown = board_cells(drawn)[event["city"]][number]
            assert shown[0] == f"{number} {event['color']} {event['height']}"
            if reader == event["actor"]:
                assert number == event["card"]  # the actor's own card names the site they read
        seen += 1
    assert seen == 3 * players


def test_the_sites_differ_by_reader():
    s = building(4, seed=11)
    s.hands[BLUE] = [1, 1, 1, 1]
    event = s.apply_command(BLUE, f"play 1 sydney {s.legal_commands()[0].split()[-1]}")[0]
    assert event["site"] == 1 and event["city"] == "sydney"
    texts = [event_text(s, event, reader) for reader in range(4)]
    assert [SITE_WORDS.search(t).group(1) for t in texts] == ["1", "7", "9", "3"]
    assert texts[1].startswith("played card 1 and built a") and "on site 7 of Sydney" in texts[1]


def test_round_scoring_names_the_tallest_tower_in_each_readers_numbering(game4):
    s = game4
    put(s, "saopaulo", 7, ("red", 3), ("blue", 4))
    put(s, "cairo", 1, ("green", 2))
    events: list[dict] = []
    _score_round(s, events)
    event = events[-1]
    assert event["kind"] == "round_scored" and (event["city"], event["site"]) == ("saopaulo", 7)
    assert "the tallest tower (7 stories, site 7 of Sao Paulo) gives player 1 (blue) 3" in event["text"]
    assert event_text(s, event, 0) == event["text"]
    for reader, site in enumerate([7, 9, 3, 1]):
        assert f"(7 stories, site {site} of Sao Paulo)" in event_text(s, event, reader)
        drawn = render.board("manhattan", s.view(reader), players=NAMES)
        assert f"7 stories on site {site} of Sao Paulo" in " ".join(drawn.split())
        assert board_cells(drawn)["saopaulo"][site][0] == f"{site} blue 7"
    assert "site 7 of Sao Paulo (numbered from player 1's side)" in event_text(s, event, None)


def test_a_scoring_without_a_single_tallest_tower_names_no_site(game4):
    s = game4
    put(s, "saopaulo", 7, ("red", 3))
    put(s, "cairo", 1, ("green", 3))
    events: list[dict] = []
    _score_round(s, events)
    assert "template" not in events[-1] and event_text(s, events[-1], 2) == events[-1]["text"]


def test_events_without_a_site_are_their_text():
    s = new_game(3, seed=1)
    events = s.apply_command(0, s.legal_commands()[0])
    assert all(event_text(s, e, r) == e["text"] for e in events for r in (0, 1, 2, None))


def test_fifth_avenue_event_text_is_the_text():
    s = new_fifth_avenue(players=3, seed=7)
    event = {"kind": "won", "actor": 1, "text": "won the auction for 34th Street West"}
    assert fifth_avenue_event_text(s, event, 2) == fifth_avenue_event_text(s, event, None) == event["text"]


# --------------------------------------------------------------------------- refusals in the actor's numbering


def test_a_refused_build_names_the_site_in_the_builders_numbering(game4):
    s = game4
    s.turn = RED  # red sits west: card 1 names site 3
    s.hands[RED] = [1, 1, 1, 1]
    give(s, "red", 1)
    put(s, "sydney", 3, ("blue", 3))
    with pytest.raises(IllegalCommandError) as err:
        s.parse(RED, "play 1 sydney 1")
    assert "on site 1 of Sydney (your card 1)" in str(err.value)
    assert "site 3" not in str(err.value)


def test_a_take_over_no_part_can_make_says_so(game4):
    s = game4
    put(s, "sydney", 5, ("red", 4), ("red", 4))
    s.hands[BLUE] = [5, 5, 5, 5]
    give(s, "blue", 1, 4)
    with pytest.raises(IllegalCommandError) as err:
        s.parse(BLUE, "play 5 sydney 4")
    message = str(err.value)
    assert "no part is tall enough for that (parts have at most 4 stories)" in message
    assert "at least 8 stories" not in message and "at least 4 stories" not in message


def test_a_take_over_needing_a_part_the_builder_lacks_says_so(game4):
    s = game4
    put(s, "sydney", 5, ("red", 3))
    s.hands[BLUE] = [5, 5, 5, 5]
    give(s, "blue", 1, 2)
    with pytest.raises(IllegalCommandError, match="so a part of at least 3 stories, and you have none left to "
                                                  "place this round"):
        s.parse(BLUE, "play 5 sydney 2")


# --------------------------------------------------------------------------- two players: M7 and the faults


def test_two_players_the_building_note_and_the_rule_agree(game2):
    s = game2
    notes = decision_notes(s)
    assert BUILD_NOTE_TWO in notes and BUILD_NOTE not in notes
    assert "a tower topped by either of your colors" in BUILD_NOTE_TWO
    put(s, "cairo", 5, ("green", 4), ("green", 4))  # player 1's own tower, green on top
    s.hands[0] = [5, 5, 5, 5]
    give(s, "blue", 1)
    give(s, "green")
    assert "play 5 cairo blue 1" in s.legal_commands()
    s.apply_command(0, "play 5 cairo 1")
    assert s.cities["cairo"][4][-1] == ["blue", 1]
    assert BUILD_NOTE in decision_notes(building(4, seed=1))


def test_two_players_a_choice_of_the_wrong_count_says_how_many():
    s = new_game(2, seed=1)
    with pytest.raises(IllegalCommandError) as err:
        s.parse(0, "choose 1 1 2")
    assert str(err.value).startswith("Choose exactly 4 parts, not 3.")
    assert "Say which color" not in str(err.value)


def test_two_players_a_choice_of_more_than_is_left_says_what_is_left():
    s = new_game(2, seed=1)
    with pytest.raises(IllegalCommandError) as err:
        s.parse(0, "choose 4 4 4 4")
    assert str(err.value).startswith("Neither of your colors has the parts 4 4 4 4 left in the box; left: blue "
                                     "1 1 1 1 1 1 1 1 1 1 1 2 2 2 2 2 2 3 3 3 3 4 4 4; green ")
    s.apply_command(0, "choose blue 1 1 1 1")
    with pytest.raises(IllegalCommandError) as err:  # one color left to choose: the fault is that color's
        s.parse(0, "choose 4 4 4 4")
    assert str(err.value).startswith("You have only 3 green part(s) of 4 stories left, not 4")
    with pytest.raises(IllegalCommandError, match="^Choose exactly 4 parts, not 5"):
        s.parse(0, "choose 1 1 1 1 1")


def test_two_players_which_color_is_asked_only_among_colors_that_may_build(game2):
    s = game2
    s.hands[0] = [5, 5, 5, 5]
    give(s, "blue", 1)
    give(s, "green", 1)
    put(s, "cairo", 5, ("blue", 1), ("red", 2))  # blue 1 + 1 = 2 floors may take it over, green 0 + 1 may not
    assert s.parse(0, "play 5 cairo 1") == Play(5, "cairo", "blue", 1)
    put(s, "cairo", 5, ("red", 4))  # neither may: the refusal, not a question
    with pytest.raises(IllegalCommandError, match="cannot build a 1-story part"):
        s.parse(0, "play 5 cairo 1")
    with pytest.raises(AmbiguousCommandError) as err:  # an empty site: both may
        s.parse(0, "play 5 sydney 1")
    assert err.value.legal == ["play 5 sydney blue 1", "play 5 sydney green 1"]


def test_a_misspelt_city_is_answered_with_the_cities():
    s = building(3, seed=2)
    with pytest.raises(InvalidCommandError) as err:
        s.parse(0, "play 5 sidney 2")
    message = str(err.value)
    assert "(did you mean Sydney?)" in message
    assert "the cities are Manhattan, Sydney, Frankfurt, Hong Kong, Sao Paulo and Cairo" in message


# --------------------------------------------------------------------------- the mailed board


def test_the_board_shows_every_floor_of_every_color(game4):
    s = game4
    put(s, "hongkong", 5, ("red", 3), ("blue", 4), ("green", 2), ("black", 1))  # black's single floor too
    put(s, "cairo", 1, *[(color, 4) for _ in range(3) for color in ("red", "blue", "green", "black")])
    for viewer in (0, 1, 2, 3):
        drawn = render.board("manhattan", s.view(viewer), players=NAMES)
        assert re.search(r"\bk1\b", drawn) and len(re.findall(r"\b[brgk]12\b", drawn)) == 4
        cells = board_cells(drawn)
        hk = cells["hongkong"][5]  # the centre is 5 from every side
        assert " ".join(hk[1:]).split() == ["b4", "r3", "g2", "k1"]
        cairo = cells["cairo"][seen_from(seat_sides(4)[viewer], 1)]
        assert cairo[0].split()[1:] == ["black", "48"]
        assert sorted(" ".join(cairo[1:]).split()) == ["b12", "g12", "k12", "r12"]
        assert "~" not in drawn


@pytest.mark.parametrize("players", [2, 3, 4])
def test_the_board_fits_72_columns_and_its_cities_a_phone(players):
    s = new_game(players, seed=players)
    while not s.is_terminal():
        s.apply_command(s.current_player(), s.legal_commands()[-1])  # the biggest parts: the tallest towers
    for viewer in [*range(players), None]:
        drawn = render.board("manhattan", s.view(viewer), players=NAMES[:players])
        assert max(map(len, drawn.splitlines())) <= 72
        grid = [line for line in drawn.splitlines() if line.startswith(("|", "+"))]
        assert grid and max(map(len, grid)) == BOX_WIDTH <= 48
    assert "~" not in render.moderator_board("manhattan", s, players=NAMES[:players])


# --------------------------------------------------------------------------- words for players, not seats


@pytest.mark.parametrize("players", [2, 3, 4])
def test_engine_texts_say_player_n_never_seat(players):
    s = new_game(players, seed=17)
    said = []
    while not s.is_terminal():
        said += decision_notes(s)
        said.append(decision_context(s)[1])
        for e in s.apply_command(s.current_player(), s.legal_commands()[0]):
            said += [e["text"], *(event_text(s, e, r) for r in [*range(players), None])]
    said.append(s.view(0)["site_numbering"])
    assert not [t for t in said if "seat" in t.lower()]
    assert any(re.search(rf"\bplayer {players}\b", t) for t in said)


# --------------------------------------------------------------------------- the context of a decision


@pytest.mark.parametrize("players", [2, 3, 4])
def test_every_decision_has_its_own_context(players):
    s = new_game(players, seed=23)
    assert decision_context(s) == (
        "choose:1:0", "player 1's choice of " + ("blue or green " if players == 2 else "") + "parts in round 1")
    keys = set()
    while not s.is_terminal():
        key, words = decision_context(s)
        assert key not in keys
        keys.add(key)
        who = f"player {s.current_player() + 1}'s"
        if s.phase == "choose":
            assert key == f"choose:{s.round}:{s.moves}" and words.startswith(f"{who} choice of")
        else:
            assert key == f"build:{s.round}:{s.moves}" and words == f"{who} card play in round {s.round}"
        s.apply_command(s.current_player(), s.legal_commands()[0])
    assert decision_context(s) == ("over", "the end of the game")
