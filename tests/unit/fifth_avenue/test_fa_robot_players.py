"""The Fifth Avenue robot players (pbem.games.fifth_avenue.robots): they play from a player's own view only,
always answer a legal command, answer the same for the same view and seed, and the heuristic beats random
players. Their speed and their strength in numbers are measured by bench/robots_fifth_avenue.py."""

from __future__ import annotations

import json

import pytest

from pbem.games.fifth_avenue import State, new_game
from pbem.games.fifth_avenue.robots import determinize, heuristic, strong
from pbem.games.rng import Rng
from pbem.services.offline.simulate import choose

BUDGET = 6  # the strong robot's simulations per decision in these tests: enough to run every part of it


def as_json(view: dict) -> dict:
    """The view as a mail server or a database would hand it over: plain JSON."""
    return json.loads(json.dumps(view))


def positions(players: int, seed: int, back_side: bool = False, every: int = 1) -> list[State]:
    """Copies of the positions of one game played by random players (by-kind: every rule comes up)."""
    state = new_game(players=players, seed=seed, back_side=back_side)
    rng = Rng(seed)
    found = []
    while not state.is_terminal():
        if state.moves % every == 0:
            found.append(state.clone())
        state.apply_action(state.current_player(), choose(state.legal_actions(), rng, "by-kind"))
    return found


def decision_kind(state: State) -> str:
    frame = state.frames[-1]
    return f"{frame['kind']}{frame.get('phase', '')}"


def some_of_each_kind(states: list[State], per_kind: int = 1) -> list[State]:
    """A few positions of each kind of decision (placement, the phases of a turn, bid, build), each with a
    choice to make."""
    picked: dict[str, list[State]] = {}
    for s in states:
        if len(s.legal_commands()) > 1:
            group = picked.setdefault(decision_kind(s), [])
            if len(group) < per_kind:
                group.append(s)
    return [s for group in picked.values() for s in group]


def play(players: int, seed: int, seats: list[str], back_side: bool = False) -> State:
    """A whole game: "heuristic" seats play the robot from their JSON view, the others a random policy."""
    state = new_game(players=players, seed=seed, back_side=back_side)
    rng = Rng(seed ^ 0x5EED)
    while not state.is_terminal():
        player = state.current_player()
        if seats[player] == "heuristic":
            legal = state.legal_commands()
            command = heuristic(as_json(state.view(player)), legal, seed * 1000 + state.moves)
            assert command in legal
            state.apply_command(player, command)
        else:
            state.apply_action(player, choose(state.legal_actions(), rng, seats[player]))
    return state


# --------------------------------------------------------------------------- legal answers


@pytest.mark.parametrize("players,back_side", [(2, False), (3, True), (4, False)])
def test_heuristic_answers_a_legal_command_in_every_position(players, back_side):
    for state in positions(players, seed=40 + players, back_side=back_side):
        legal = state.legal_commands()
        player = state.current_player()
        assert heuristic(as_json(state.view(player)), legal, seed=state.moves) in legal


def test_heuristic_robots_play_whole_games_against_each_other():
    for players, back_side in ((2, True), (3, False), (4, True)):
        state = play(players, seed=7, seats=["heuristic"] * players, back_side=back_side)
        assert state.result is not None and state.result["winners"]


def test_strong_answers_a_legal_command_in_each_kind_of_decision():
    states = some_of_each_kind(positions(4, seed=5, every=1)) + some_of_each_kind(positions(2, seed=6, back_side=True))
    assert {decision_kind(s) for s in states} >= {"placement", "turn1", "turn2", "turn3", "auction", "build"}
    for state in states:
        legal = state.legal_commands()
        player = state.current_player()
        assert strong(as_json(state.view(player)), legal, seed=3, budget=BUDGET) in legal


def test_robots_choose_among_the_commands_they_are_given():
    for state in some_of_each_kind(positions(3, seed=9)):
        legal = state.legal_commands()
        view = as_json(state.view(state.current_player()))
        assert heuristic(view, legal[:1], 1) == legal[0] == strong(view, legal[:1], 1, budget=BUDGET)
        assert heuristic(view, legal[-2:], 1) in legal[-2:]


def test_the_public_view_is_refused():
    state = positions(3, seed=9)[30]
    with pytest.raises(ValueError):
        heuristic(state.view(None), state.legal_commands(), 1)


# --------------------------------------------------------------------------- the same view and seed


def test_same_view_and_seed_give_the_same_command():
    for state in some_of_each_kind(positions(3, seed=11)):
        legal = state.legal_commands()
        player = state.current_player()
        view = as_json(state.view(player))
        assert heuristic(view, legal, 5) == heuristic(as_json(state.view(player)), list(legal), 5)
        again = as_json(state.view(player))
        assert strong(view, legal, 5, budget=BUDGET) == strong(again, list(legal), 5, budget=BUDGET)


# --------------------------------------------------------------------------- hidden information


def hide_differently(state: State, viewer: int) -> State:
    """A copy of ``state`` that differs from it only in what ``viewer`` cannot see: cards swapped between two
    other players' hands (sizes kept), each colored stack below its top card reversed, the black stack
    reversed, one hidden card swapped between another player's hand and the black stack, the RNG."""
    other = state.clone()
    seats = [p for p in range(state.players) if p != viewer]
    a, b = seats[0], seats[-1]
    if a != b:
        card_a = next((c, i) for c, counts in other.hands[a].items() for i, k in enumerate(counts) if k)
        card_b = next(((c, i) for c, counts in other.hands[b].items() for i, k in enumerate(counts) if k
                       and (c, i) != card_a), None)
        if card_b is not None:
            other.hands[a][card_a[0]][card_a[1]] -= 1
            other.hands[b][card_a[0]][card_a[1]] += 1
            other.hands[b][card_b[0]][card_b[1]] -= 1
            other.hands[a][card_b[0]][card_b[1]] += 1
    for color, stack in other.colored_stacks.items():
        other.colored_stacks[color] = stack[:1] + stack[:0:-1]
    other.black_stack.reverse()
    black = other.hands[a]["black"]
    swap = next((i for i, k in enumerate(black) if k and other.black_stack and other.black_stack[0] != 4 + i), None)
    if swap is not None:
        black[swap] -= 1
        black[other.black_stack[0] - 4] += 1
        other.black_stack[0] = 4 + swap
    other.rng ^= 0xDEADBEEF
    return other


def test_robots_answer_the_same_whatever_the_others_hold():
    checked = 0
    for state in some_of_each_kind(positions(4, seed=21)):
        player = state.current_player()
        other = hide_differently(state, player)
        assert other.hands != state.hands  # another world ...
        assert other.view(player) == state.view(player)  # ... that looks the same to the player
        legal = state.legal_commands()
        assert legal == other.legal_commands()
        mine, theirs = as_json(state.view(player)), as_json(other.view(player))
        for seed in (1, 2):
            assert heuristic(mine, legal, seed) == heuristic(theirs, legal, seed)
        assert strong(mine, legal, 4, budget=BUDGET) == strong(theirs, legal, 4, budget=BUDGET)
        checked += 1
    assert checked >= 5


def test_determinize_gives_a_state_the_player_cannot_tell_from_the_real_one():
    for players in (2, 4):
        for state in positions(players, seed=31, every=7):
            player = state.current_player()
            view = as_json(state.view(player))
            sample = determinize(view, Rng(state.moves))
            assert sample.view(player) == view
            assert sample.hands[player] == state.hands[player]
            # Every card is somewhere: 12 of each color, 50 black, in hands, stacks or bids on the table.
            table = [f for f in sample.frames if f["kind"] == "auction"]
            for color, full in (*((c, [5, 4, 3]) for c in sample.colored_stacks), ("black", [20, 16, 14])):
                counts = [sum(h[color][i] for h in sample.hands) for i in range(3)]
                stack = sample.colored_stacks[color] if color != "black" else sample.black_stack + sample.black_spent
                for i in range(3):
                    counts[i] += stack.count(4 + i)
                for f in table:
                    for key, bid in f["bids"].items():
                        if color == "black" and not (players == 2 and int(key) == 2):
                            counts = [k + x for k, x in zip(counts, bid["black"])]
                        elif bid["color"] == color:
                            counts = [k + x for k, x in zip(counts, bid["colored"])]
                    if color == "black":
                        for v in f.get("robot_cards", []):
                            counts[v - 4] += 1
                assert counts == full, (color, counts)
            # The sample plays on.
            legal = sample.legal_commands()
            sample.apply_command(player, legal[0])


# --------------------------------------------------------------------------- strength


def test_heuristic_beats_random_players():
    """A sanity check of strength: the heuristic robot wins most 3-player games against two uniform random
    players (it wins nearly all; bench/robots_fifth_avenue.py has the numbers)."""
    wins = 0
    for game in range(10):
        seat = game % 3
        seats = ["uniform"] * 3
        seats[seat] = "heuristic"
        state = play(3, seed=100 + game, seats=seats, back_side=game % 2 == 1)
        wins += seat in state.result["winners"]
    assert wins >= 7
