"""Components, setup, seats and sides (docs/rules.md M1-M5)."""

from __future__ import annotations

import collections

import pytest
from mh_helpers import CITIES

from pbem.games import get_game, names
from pbem.games.manhattan import (
    absolute_site,
    new_game,
    seat_colors,
    seat_sides,
    seen_from,
)
from pbem.games.manhattan.board import load_board

# --------------------------------------------------------------------------- components


def test_the_engine_is_found_by_name_and_has_the_contract():
    engine = get_game("manhattan")
    assert "manhattan" in names()
    assert (engine.NAME, engine.TITLE, engine.PLAYERS) == ("manhattan", "Manhattan", (2, 3, 4))
    for name in ("COMMAND_WORDS", "new_game", "State", "decision_notes", "owed_this_turn", "decision_request",
                 "turn_owner", "hand_text", "decision_kind", "timeout_command", "PUBLIC_EVENTS", "RESULT_EVENTS"):
        assert hasattr(engine, name), name
    assert {"choose", "play", "pass"} <= engine.COMMAND_WORDS
    assert all(word == word.lower() for word in engine.COMMAND_WORDS)


def test_six_cities_of_nine_sites():
    board = load_board()
    assert board.city_codes == CITIES
    assert [c.name for c in board.cities] == ["Manhattan", "Sydney", "Frankfurt", "Hong Kong", "Sao Paulo", "Cairo"]
    s = new_game(4, seed=1)
    assert list(s.cities) == list(CITIES)
    assert all(len(sites) == 9 and all(tower == [] for tower in sites) for sites in s.cities.values())


def test_45_cards_five_for_each_site():
    s = new_game(4, seed=3)
    cards = collections.Counter(s.deck + [c for hand in s.hands for c in hand])
    assert cards == {card: 5 for card in range(1, 10)}


def test_24_parts_per_color_in_four_sizes():
    board = load_board()
    assert board.parts == (11, 6, 4, 3)
    assert board.parts_per_color == 24
    s = new_game(4, seed=3)
    assert s.supply == {c: [11, 6, 4, 3] for c in ("blue", "red", "green", "black")}
    assert all(v == [0, 0, 0, 0] for v in s.chosen.values())


def test_the_counts_work_out_exactly():
    # 6 parts x 4 rounds, 4 x 6 rounds, 4 per color x 6 rounds: every part is chosen, none is ever missing
    board = load_board()
    for players in (2, 3, 4):
        seats = board.seating[players]
        assert seats.parts_per_round * seats.rounds == board.parts_per_color
    assert (board.seating[4].parts_per_round, board.seating[4].rounds) == (6, 4)
    assert (board.seating[3].parts_per_round, board.seating[3].rounds) == (4, 6)
    assert (board.seating[2].parts_per_round, board.seating[2].rounds) == (4, 6)


# --------------------------------------------------------------------------- setup


@pytest.mark.parametrize("players", [2, 3, 4])
def test_four_cards_each_and_the_rest_face_down(players):
    s = new_game(players, seed=9)
    assert [len(hand) for hand in s.hands] == [4] * players
    assert len(s.deck) == 45 - 4 * players
    assert s.played == [[] for _ in range(players)]
    assert all(hand == sorted(hand) for hand in s.hands)


def test_the_deal_depends_on_the_seed_only():
    assert new_game(4, seed=5).to_json() == new_game(4, seed=5).to_json()
    assert new_game(4, seed=5).deck != new_game(4, seed=6).deck


def test_seat_1_is_the_first_start_player_and_chooses_first():
    s = new_game(3, seed=2)
    assert (s.round, s.start, s.phase, s.current_player()) == (1, 0, "choose", 0)
    assert s.choosers == [0, 1, 2]


def test_unknown_options_and_player_counts_are_refused():
    with pytest.raises(ValueError, match="back_side"):
        new_game(4, seed=1, back_side=True)
    with pytest.raises(ValueError, match="2, 3 or 4"):
        new_game(5, seed=1)
    with pytest.raises(ValueError, match="2, 3 or 4"):
        new_game(1, seed=1)


def test_colors_per_seat():
    assert seat_colors(4) == (("blue",), ("red",), ("green",), ("black",))
    assert seat_colors(3) == (("blue",), ("red",), ("green",))
    assert seat_colors(2) == (("blue", "green"), ("red", "black"))  # M5: two colors each
    assert list(new_game(3, seed=1).supply) == ["blue", "red", "green"]
    assert list(new_game(2, seed=1).color_scores) == ["blue", "green", "red", "black"]


# --------------------------------------------------------------------------- sides and cards (M3, M4)


def test_seat_n_sits_at_side_n_a_quarter_turn_per_seat():
    assert seat_sides(4) == (0, 1, 2, 3)
    assert seat_sides(3) == (0, 1, 2)
    assert seat_sides(2) == (0, 1)
    for players in (2, 3, 4):
        assert len(set(seat_sides(players))) == players


@pytest.mark.parametrize("players", [2, 3, 4])
def test_every_card_of_every_seat_names_a_distinct_site_and_back(players):
    for seat, side in enumerate(seat_sides(players)):
        sites = [absolute_site(side, card) for card in range(1, 10)]
        assert sorted(sites) == list(range(1, 10)), (players, seat)
        for card, site in zip(range(1, 10), sites):
            assert seen_from(side, site) == card
        for site in range(1, 10):
            assert absolute_site(side, seen_from(side, site)) == site


def test_side_0_reads_the_sites_as_numbered():
    assert [absolute_site(0, card) for card in range(1, 10)] == list(range(1, 10))


def test_known_corners_a_quarter_turn_per_side():
    # card 1 is the far left site as seen from the player's side; seat 1 sits south, seat 2 west (to seat 1's
    # left, the next seat clockwise), seat 3 north, seat 4 east
    assert [absolute_site(side, 1) for side in range(4)] == [1, 3, 9, 7]
    assert [absolute_site(side, 3) for side in range(4)] == [3, 9, 7, 1]
    assert [absolute_site(side, 9) for side in range(4)] == [9, 7, 1, 3]
    assert [absolute_site(side, 7) for side in range(4)] == [7, 1, 3, 9]
    assert [absolute_site(side, 2) for side in range(4)] == [2, 6, 8, 4]  # the far middle: an edge, turning
    assert [absolute_site(side, 5) for side in range(4)] == [5, 5, 5, 5]  # the centre is everybody's 5


def test_the_same_card_means_different_sites_for_different_seats():
    for players in (2, 3, 4):
        for card in (1, 2, 3, 4, 6, 7, 8, 9):
            sites = {absolute_site(side, card) for side in seat_sides(players)}
            assert len(sites) == players, (players, card)


def test_opposite_sides_mirror_through_the_centre():
    for card in range(1, 10):
        assert absolute_site(2, card) == 10 - card


def test_bad_sides_and_cards_are_refused():
    with pytest.raises(ValueError):
        absolute_site(4, 1)
    with pytest.raises(ValueError):
        absolute_site(0, 10)
    with pytest.raises(ValueError):
        seen_from(0, 0)
