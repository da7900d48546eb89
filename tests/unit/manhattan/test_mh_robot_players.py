"""The Manhattan robots (pbem.games.manhattan.robots): legal, repeatable, blind to hidden cards, and better
than random. Their strength in numbers and their decision times are bench/robots_manhattan.py's business."""

from __future__ import annotations

import json

import pytest

from pbem.games.manhattan import State, new_game, robots
from pbem.games.manhattan.robots import determinize, heuristic, strong
from pbem.games.rng import Rng
from pbem.services.offline.simulate import choose

SMALL = 12  # simulations per decision of the searching robot in these tests


def plain(view: dict) -> dict:
    """The view as a robot gets it from a store or a mail: a JSON round trip."""
    return json.loads(json.dumps(view))


def robot_game(players: int, seed: int, robot, seats: tuple[int, ...] = (0,), policy: str = "uniform"):
    """A game in which ``seats`` are played by ``robot`` and the others by random players; yields
    (state, seat, command) before each robot command is applied."""
    state = new_game(players, seed)
    rng = Rng(seed * 31 + players)
    while not state.is_terminal():
        seat = state.current_player()
        if seat in seats:
            legal = state.legal_commands()
            command = robot(plain(state.view(seat)), legal, seed + state.moves)
            yield state, seat, command
            state.apply_command(seat, command)
        else:
            state.apply_action(seat, choose(state.legal_actions(), rng, policy))


def positions(players: int, seed: int, every: int = 1):
    """Positions of a game the heuristic robot plays for every seat: (state, seat), each ``every``-th one."""
    for i, (state, seat, _) in enumerate(robot_game(players, seed, heuristic, tuple(range(players)))):
        if i % every == 0:
            yield state.clone(), seat


def hide_differently(state: State, seat: int, seed: int) -> State:
    """The same position with the cards ``seat`` cannot see dealt anew: the other hands (same sizes) and the
    deck's order."""
    other = state.clone()
    hidden = [card for p, hand in enumerate(other.hands) if p != seat for card in hand] + other.deck
    Rng(seed).shuffle(hidden)
    for p, hand in enumerate(other.hands):
        if p != seat:
            other.hands[p] = sorted(hidden[:len(hand)])
            del hidden[:len(hand)]
    other.deck = hidden
    return other


# --------------------------------------------------------------------------- legal and repeatable


@pytest.mark.parametrize("players", [2, 3, 4])
def test_every_command_of_the_heuristic_robot_is_legal(players: int) -> None:
    commands = 0
    for state, _, command in robot_game(players, 100 + players, heuristic, tuple(range(players))):
        assert command in state.legal_commands()
        commands += 1
    assert commands > 40


@pytest.mark.parametrize("players", [2, 3, 4])
def test_every_command_of_the_searching_robot_is_legal(players: int) -> None:
    def searching(view, legal, seed):
        return strong(view, legal, seed, budget=SMALL)

    for state, _, command in robot_game(players, 200 + players, searching):
        assert command in state.legal_commands()


def test_the_same_view_and_seed_give_the_same_command() -> None:
    for state, seat in positions(4, 7, every=9):
        view, legal = state.view(seat), state.legal_commands()
        assert heuristic(view, legal, 5) == heuristic(plain(view), legal, 5)
        assert strong(view, legal, 5, budget=SMALL) == strong(plain(view), legal, 5, budget=SMALL)


def test_the_seed_breaks_ties_between_equal_commands() -> None:
    """In the first round's first build of an empty board many plays are worth the same: the seed picks."""
    state = new_game(3, 4)
    while state.phase == "choose":
        state.apply_command(state.current_player(), heuristic(state.view(state.current_player()),
                                                              state.legal_commands(), 1))
    seat = state.current_player()
    picked = {heuristic(state.view(seat), state.legal_commands(), seed) for seed in range(20)}
    assert len(picked) > 1


def test_a_single_legal_command_is_returned_as_it_is() -> None:
    state = new_game(2, 1)
    view = state.view(0)
    assert heuristic(view, ["choose blue 1 1 1 1"], 3) == "choose blue 1 1 1 1"
    assert strong(view, ["choose blue 1 1 1 1"], 3) == "choose blue 1 1 1 1"
    with pytest.raises(ValueError):
        heuristic(view, [], 3)
    with pytest.raises(ValueError):  # another player's view, or the public one: not the player who acts
        strong(state.view(1), state.legal_commands(), 3)
    with pytest.raises(ValueError):
        heuristic(state.view(None), state.legal_commands(), 3)


# --------------------------------------------------------------------------- hidden information


@pytest.mark.parametrize("players", [2, 4])
def test_robots_decide_the_same_whatever_the_cards_they_cannot_see(players: int) -> None:
    """Two states that differ only in the other players' hands and the deck's order look the same to the
    robot's seat, and both robots answer them with the same command for the same seed."""
    checked = 0
    for state, seat in positions(players, 11 + players, every=10):
        other = hide_differently(state, seat, seed=checked)
        if (other.hands, other.deck) == (state.hands, state.deck):
            continue  # an empty deck: the one other hand holds every card the seat cannot see
        assert other.hands[seat] == state.hands[seat]
        assert other.view(seat) == state.view(seat)
        legal = state.legal_commands()
        assert other.legal_commands() == legal
        seed = checked
        assert heuristic(plain(other.view(seat)), legal, seed) == heuristic(plain(state.view(seat)), legal, seed)
        assert (strong(plain(other.view(seat)), legal, seed, budget=SMALL)
                == strong(plain(state.view(seat)), legal, seed, budget=SMALL))
        checked += 1
    assert checked >= 6


def test_determinize_fills_in_only_what_the_view_hides() -> None:
    for state, seat in positions(3, 5, every=11):
        view = plain(state.view(seat))
        samples = [determinize(view, Rng(i)) for i in range(3)]
        for sample in samples:
            assert sample.view(seat) == view  # everything the viewer sees, exactly
            assert sample.hands[seat] == state.hands[seat]
            assert [len(h) for h in sample.hands] == [len(h) for h in state.hands]
            assert sorted(sample.deck + [c for h in sample.hands for c in h]) == \
                sorted(state.deck + [c for h in state.hands for c in h])
            assert sample.legal_commands() == state.legal_commands()
        assert len({json.dumps(s.hands) + json.dumps(s.deck) for s in samples}) == 3
        # a determinised state plays on under the engine's own rules
        sample = samples[0]
        sample.apply_command(seat, state.legal_commands()[0])


def test_the_robots_copy_of_the_rules_agrees_with_the_engine() -> None:
    """The searching robot plays on a compact copy of the rules: its legal builds, the board after each
    command, the scores, the rounds and the winners follow the engine (random games, all hands known)."""
    for players in (2, 3, 4):
        for seed in range(2):
            state = new_game(players, seed)
            rng = Rng(seed)
            game = robots._game(state.view(0))
            while not state.is_terminal():
                game.hands = [sorted(hand) for hand in state.hands]
                game.deck = list(reversed(state.deck))
                game.played = [list(pile) for pile in state.played]
                legal = state.legal_commands()
                moves = robots._moves(robots._game(state.view(state.current_player())), legal)
                if state.phase == "build":
                    assert sorted(game.builds(game.turn)) == sorted(move for _, move in moves)
                i = rng.below(len(legal))
                state.apply_command(state.current_player(), legal[i])
                robots._apply(game, moves[i][1])
                while game.phase == robots._BUILD and len(game.builds(game.turn)) == 1:
                    game.build(game.builds(game.turn)[0])  # the engine plays a builder's only command (M20)
                seen = robots._game(state.view(0))
                for name in ("owner", "height", "floors", "chosen", "supply", "scores", "round", "start"):
                    assert getattr(game, name) == getattr(seen, name), name
                if not state.is_terminal():
                    assert (game.phase, game.turn, game.choosers) == (seen.phase, seen.turn, seen.choosers)
            assert game.winners == state.result["winners"]


# --------------------------------------------------------------------------- strength


def test_the_heuristic_robot_beats_random_players() -> None:
    wins = 0.0
    for seed in range(10):
        for state, _, _ in robot_game(3, 300 + seed, heuristic):
            pass
        winners = state.result["winners"]
        wins += 1 / len(winners) if 0 in winners else 0
    assert wins >= 8  # a third each if it played no better


def test_the_searching_robot_beats_random_players() -> None:
    def searching(view, legal, seed):
        return strong(view, legal, seed, budget=SMALL)

    wins = 0.0
    for seed in range(2):
        for state, _, _ in robot_game(4, 400 + seed, searching, policy="by-kind"):
            pass
        winners = state.result["winners"]
        wins += 1 / len(winners) if 0 in winners else 0
    assert wins >= 1.5  # a quarter each if it played no better
