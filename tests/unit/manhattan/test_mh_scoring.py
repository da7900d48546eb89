"""The round's scoring and the winner (docs/rules.md M12, M13, M16)."""

from __future__ import annotations

from mh_helpers import BLACK, BLUE, GREEN, RED, building, clear, give, kinds, put

from pbem.games.manhattan import new_game, seen_from
from pbem.games.manhattan.rules import _end_game, round_points


def rulebook_example(s) -> None:
    """The scoring example of the rulebook, its figure reconstructed (M16).

    Frankfurt: blue's 8-story tower is the single tallest; black has two towers there to blue's one.
    Sydney: black two towers, green one. Hong Kong: blue's single tower. Sao Paulo: red's single tower.
    Manhattan: red, green and blue one each. Cairo: red two, green two. Every tower was built by the rules.
    """
    clear(s)
    put(s, "frankfurt", 5, ("red", 3), ("blue", 4), ("blue", 1))
    put(s, "frankfurt", 1, ("black", 2))
    put(s, "frankfurt", 9, ("green", 1), ("black", 3))
    put(s, "sydney", 2, ("black", 4))
    put(s, "sydney", 8, ("black", 1))
    put(s, "sydney", 4, ("green", 2))
    put(s, "hongkong", 5, ("blue", 2))
    put(s, "saopaulo", 3, ("red", 3))
    put(s, "manhattan", 1, ("red", 1))
    put(s, "manhattan", 5, ("green", 3))
    put(s, "manhattan", 9, ("blue", 2))
    put(s, "cairo", 2, ("red", 2))
    put(s, "cairo", 4, ("red", 1))
    put(s, "cairo", 6, ("green", 4))
    put(s, "cairo", 7, ("black", 1), ("green", 2))


def test_the_rulebook_scoring_example(game4):
    s = game4
    rulebook_example(s)
    scored = round_points(s)
    # "the highest sky-scraper on the board is in Frankfurt. It belongs to the blue player, who earns 3 points"
    assert scored["tallest"] == {"city": "frankfurt", "site": 5, "color": "blue", "height": 8}
    # "Majorities ... go to black in Frankfurt and Sydney ... in Hongkong and in Sao Paulo blue and red ...
    # In Manhattan and in Kairo no player has a majority"
    assert scored["majorities"] == {"manhattan": None, "sydney": "black", "frankfurt": "black",
                                    "hongkong": "blue", "saopaulo": "red", "cairo": None}
    # "Blue: 8 points", "Red: 6 points", "Green: 4 points"; black's line is lost: 2 majorities + 4 towers = 8
    assert scored["points"] == [8, 6, 4, 8]
    assert scored["towers"] == {"blue": 3, "red": 4, "green": 4, "black": 4}


def test_the_rulebook_example_scored_by_the_engine_at_the_end_of_a_round(game4):
    s = game4
    rulebook_example(s)
    s.cities["sydney"][7] = []  # black's last part of the round goes there
    for color in s.chosen:
        give(s, color)
    give(s, "black", 1)
    s.turn = BLACK
    card = seen_from(3, 8)  # black (seat 4) sits east, side 3: this card of theirs names site 8
    assert card == 4
    s.hands[BLACK] = [card] * 4
    before = list(s.scores)
    events = s.apply_command(BLACK, f"play {card} sydney 1")
    assert kinds(events) == ["built", "round_scored", "new_round"]
    scoring = events[1]
    assert scoring["points"] == [8, 6, 4, 8]
    assert [a - b for a, b in zip(s.scores, before)] == [8, 6, 4, 8]
    assert scoring["text"].startswith("round 1 scored (the tallest tower (8 stories, site 5 of Frankfurt) gives "
                                      "player 1 (blue) 3; majorities: Sydney to player 4 (black), Frankfurt to "
                                      "player 4 (black), Hong Kong to player 1 (blue), Sao Paulo to player 2 (red)")
    assert s.history[-1]["points"] == [8, 6, 4, 8]


def test_tied_tallest_towers_score_nothing(game4):
    s = game4
    put(s, "sydney", 1, ("blue", 4))
    put(s, "cairo", 1, ("red", 4))
    scored = round_points(s)
    assert scored["tallest"] is None and scored["tallest_tied"] == 2
    # each has the single tower (the majority) of its city, and 1 per tower
    assert scored["points"] == [3, 3, 0, 0]


def test_tied_tallest_towers_of_one_owner_score_nothing_either(game4):
    # "If several sky-scrapers tie for highest, no player scores 3 points."
    s = game4
    put(s, "sydney", 1, ("blue", 4))
    put(s, "sydney", 2, ("blue", 4))
    assert round_points(s)["points"] == [4, 0, 0, 0]


def test_a_majority_needs_more_than_any_other_single_player_not_all_combined(game4):
    s = game4
    put(s, "sydney", 1, ("blue", 1))
    put(s, "sydney", 2, ("blue", 1))
    put(s, "sydney", 3, ("red", 1))
    put(s, "sydney", 4, ("green", 1))
    put(s, "sydney", 5, ("black", 1))
    put(s, "cairo", 1, ("green", 2))  # the tallest: 3 for green
    scored = round_points(s)
    assert scored["majorities"]["sydney"] == "blue"
    assert scored["points"] == [2 + 2, 1, 1 + 1 + 3 + 2, 1]


def test_a_tied_majority_scores_nothing(game4):
    s = game4
    put(s, "sydney", 1, ("blue", 1))
    put(s, "sydney", 2, ("red", 1))
    put(s, "cairo", 1, ("red", 3))
    scored = round_points(s)
    assert scored["majorities"]["sydney"] is None
    assert scored["points"] == [1, 2 + 3 + 2, 0, 0]


def test_an_empty_board_scores_nothing(game4):
    assert round_points(game4)["points"] == [0, 0, 0, 0]


def test_the_owner_is_the_top_part_whoever_has_more_floors(game4):
    s = game4
    put(s, "sydney", 1, ("red", 4), ("blue", 4), ("red", 1))  # red on top; blue has as many floors as red
    put(s, "sydney", 2, ("red", 1))
    scored = round_points(s)
    assert scored["towers"] == {"blue": 0, "red": 2, "green": 0, "black": 0}


def test_two_players_are_scored_as_four_colors_and_added(game2):
    s = game2
    put(s, "sydney", 1, ("blue", 4))  # tallest: blue 3 + its city's majority 2 + 1
    put(s, "cairo", 1, ("green", 1))
    put(s, "cairo", 2, ("green", 1))  # green majority in Cairo: 2 + 2
    put(s, "cairo", 3, ("red", 1))
    put(s, "manhattan", 1, ("black", 1))  # black's single tower: 2 + 1
    scored = round_points(s)
    assert scored["color_points"] == {"blue": 6, "green": 4, "red": 1, "black": 3}
    assert scored["points"] == [10, 4]


def test_two_players_a_players_two_colors_do_not_pool_their_majority(game2):
    # blue 1 + green 1 against red 2 in Sydney: red has the majority although seat 0 has as many towers
    s = game2
    put(s, "sydney", 1, ("blue", 1))
    put(s, "sydney", 2, ("green", 1))
    put(s, "sydney", 3, ("red", 1))
    put(s, "sydney", 4, ("red", 1))
    put(s, "cairo", 1, ("black", 2))
    assert round_points(s)["majorities"]["sydney"] == "red"


def test_scores_and_color_scores_add_up_in_a_whole_game():
    s = new_game(2, seed=21)
    while not s.is_terminal():
        s.apply_command(s.current_player(), s.legal_commands()[-1])
    assert s.scores == [s.color_scores["blue"] + s.color_scores["green"],
                        s.color_scores["red"] + s.color_scores["black"]]
    assert [sum(h["points"][p] for h in s.history) for p in range(2)] == s.scores


# --------------------------------------------------------------------------- the winner (M13)


def _finish(s, scores):
    s.scores = list(scores)
    events = []
    _end_game(s, events)
    return events[-1]


def test_the_most_points_win(game4):
    s = game4
    event = _finish(s, [10, 30, 20, 5])
    assert s.result["winners"] == [RED] and s.result["reason"] == "last_round"
    assert event["kind"] == "game_over" and event["text"] == "the game is over: player 2 wins with 30 points"


def test_a_tie_on_points_goes_to_the_most_towers(game4):
    s = game4
    put(s, "sydney", 1, ("green", 1))
    put(s, "sydney", 2, ("green", 1))
    put(s, "cairo", 1, ("blue", 4))
    event = _finish(s, [30, 10, 30, 5])
    assert s.result["tied"] == [BLUE, GREEN]
    assert s.result["towers"] == [1, 0, 2, 0]
    assert s.result["winners"] == [GREEN]
    assert event["text"].endswith("(tied on points; the most towers decides)")


def test_then_the_tallest_tower(game4):
    s = game4
    put(s, "sydney", 1, ("green", 1))
    put(s, "cairo", 1, ("red", 2), ("blue", 4))
    event = _finish(s, [30, 10, 30, 5])
    assert s.result["tallest"] == [6, 0, 1, 0]
    assert s.result["winners"] == [BLUE]
    assert event["text"].endswith("(tied on points; the tallest tower decides)")


def test_then_the_win_is_shared(game4):
    s = game4
    put(s, "sydney", 1, ("green", 3))
    put(s, "cairo", 1, ("blue", 3))
    event = _finish(s, [30, 10, 30, 5])
    assert s.result["winners"] == [BLUE, GREEN]
    assert event["text"] == ("the game is over: player 1 and player 3 share the win with 30 points "
                             "(tied on points, towers and the tallest tower)")


def test_two_players_the_tie_break_adds_both_colors(game2):
    s = game2
    put(s, "sydney", 1, ("blue", 1))
    put(s, "sydney", 2, ("green", 1))
    put(s, "cairo", 1, ("red", 4))
    _finish(s, [40, 40])
    assert s.result["towers"] == [2, 1]
    assert s.result["winners"] == [0]


def test_a_real_game_ends_with_a_result():
    s = building(3, seed=4)
    while not s.is_terminal():
        events = s.apply_command(s.current_player(), s.legal_commands()[0])
    assert kinds(events)[-2:] == ["round_scored", "game_over"]
    assert s.result["scores"] == s.scores
    assert s.result["winners"] and all(s.scores[w] == max(s.scores) for w in s.result["winners"])
    assert events[-1]["result"] == s.result
