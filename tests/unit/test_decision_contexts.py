"""Decision contexts (which replies still apply) and legal commands in compact form: pure engine functions."""

from __future__ import annotations

import pytest

from pbem.games import get_game
from pbem.games.legal import compact, spelled
from pbem.games.rng import Rng


def _random_game(kind: str, players: int, seed: int, steps: int):
    rules = get_game(kind)
    state, rng = rules.new_game(players, seed), Rng(seed)
    for _ in range(steps):
        if state.is_terminal():
            break
        legal = state.legal_commands()
        yield state, legal
        state.apply_command(state.current_player(), legal[rng.below(len(legal))])


@pytest.mark.parametrize("kind", ["fifth-avenue", "manhattan"])
def test_compact_shapes_spell_exactly_the_legal_commands(kind: str) -> None:
    seen = 0
    for state, legal in _random_game(kind, 3, 5, 400):
        shapes = compact(legal)
        assert sorted(c for shape in shapes for c in spelled(shape)) == sorted(legal)
        assert len(shapes) <= len(legal)
        seen += len(legal) > 20 and len(shapes) < len(legal) / 3
    assert seen > 5  # long lists do get short


def test_a_turn_is_one_context_through_its_phases_and_the_next_turn_is_another() -> None:
    rules = get_game("fifth-avenue")
    keys: dict[tuple[int, str], set[str]] = {}
    previous = None
    for state, _ in _random_game("fifth-avenue", 3, 9, 300):
        key, words = rules.decision_context(state)
        frame = state.frames[-1]
        if frame["kind"] == "turn":
            assert words == f"player {frame['player'] + 1}'s turn"
            if previous and previous[0] == "turn" and previous[1] == frame["player"] and frame["phase"] > 1:
                assert key == previous[2]  # phases 2 and 3 of a turn answer the turn's first mail
            keys.setdefault((frame["player"], "turn"), set()).add(key)
            previous = ("turn", frame["player"], key)
        elif frame["kind"] == "auction":
            assert words == f"the auction for {state.board.name(frame['site'])}"
            previous = None
    assert all(len(found) > 1 for found in keys.values())  # every player's turns are told apart


def test_bids_are_one_line_a_color() -> None:
    rules = get_game("fifth-avenue")
    for state, legal in _random_game("fifth-avenue", 3, 3, 3000):
        if state.frames[-1]["kind"] == "auction" and len(legal) > 30:
            shapes = rules.legal_shapes(state)
            colors = {c.split()[1] for c in legal if c.startswith("bid ")}
            assert len(shapes) == len(colors) + ("pass" in legal)
            return
    raise AssertionError("no auction with many bids was reached")
