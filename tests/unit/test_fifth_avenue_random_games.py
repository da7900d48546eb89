"""Property test: hundreds of seeded random games to the end, checked after every command.

Both random policies of ``pbem sim`` are used: ``uniform`` (any legal command
alike) and ``by-kind`` (which plays auctions, building stops and the robot far
more often). After every command the cards, skyscrapers and businesses must all
be somewhere, scores never go down, someone can act, the listed commands read
back as themselves and are accepted (a long list by a stride through it), and
the state survives a JSON round trip: the game goes on from the state read
back, and replays identically without.
"""

from __future__ import annotations

import collections

import pytest

from pbem.games.fifth_avenue import State, new_game
from pbem.games.fifth_avenue.board import BLACK, load_board
from pbem.games.rng import Rng
from pbem.services.offline.simulate import choose

BOARD = load_board()
GAMES = [
    (players, back_side, policy, seed)
    for policy in ("by-kind", "uniform")
    for players in (2, 3, 4)
    for back_side in (False, True)
    for seed in range(25)
]  # 300 games


def count_cards(state: State) -> tuple[collections.Counter, collections.Counter]:
    colored: collections.Counter = collections.Counter()
    black: collections.Counter = collections.Counter()

    def add(color: str, counts: list[int]) -> None:
        target = black if color == BLACK else colored
        for value, n in zip((4, 5, 6), counts):
            target[(color, value)] += n

    for hand in state.hands:
        for color, counts in hand.items():
            add(color, counts)
    for color, stack in state.colored_stacks.items():
        for value in stack:
            colored[(color, value)] += 1
    for value in state.black_stack + state.black_spent:
        black[(BLACK, value)] += 1
    for frame in state.frames:
        if frame["kind"] != "auction":
            continue
        for owner, bid in frame["bids"].items():
            if int(owner) == state.robot:
                continue  # the robot's cards are counted from robot_cards
            add(bid["color"], bid["colored"])
            add(BLACK, bid["black"])
        for value in frame["robot_cards"]:
            black[(BLACK, value)] += 1
    return colored, black


def check_inventory(state: State) -> None:
    colored, black = count_cards(state)
    for color in BOARD.plot_colors:
        for value, n in BOARD.colored_cards.items():
            assert colored[(color, value)] == n, (color, value)
    for value, n in BOARD.black_cards.items():
        assert black[(BLACK, value)] == n, value
    assert sum(colored.values()) == 60 and sum(black.values()) == 50

    on_board = [0] * state.owners
    for cells in state.plots.values():
        for cell in cells.values():
            if cell["owner"] is not None:
                assert cell["height"] > 0 and not cell["businesses"]
                on_board[cell["owner"]] += cell["height"]
            else:
                assert cell["height"] == 0
    for owner in range(state.owners):
        total = state.general[owner] + on_board[owner] + state.boxed_skyscrapers[owner]
        if owner < state.players:
            total += state.supply[owner] + state.central_park[owner] + 1  # + the scoring marker
        assert total == BOARD.skyscrapers_per_color, owner
        assert min(state.general[owner], state.boxed_skyscrapers[owner]) >= 0

    businesses = collections.Counter()
    for group in state.supply_row:
        businesses.update(group)
    for cells in state.plots.values():
        for cell in cells.values():
            businesses.update(cell["businesses"])
            assert len(cell["businesses"]) <= 2
    businesses.update(state.cp_businesses)
    businesses.update(state.unused_businesses)
    businesses.update(state.boxed_businesses)
    assert businesses == {b: 9 for b in BOARD.business_types}


def check_one_district_plot_per_player(state: State) -> None:
    for district, cells in state.plots.items():
        owners = [c["owner"] for c in cells.values() if c["owner"] is not None and c["owner"] != state.robot]
        assert len(owners) == len(set(owners)), district


@pytest.mark.parametrize("players,back_side,policy,seed", GAMES)
def test_random_game_keeps_every_invariant(players: int, back_side: bool, policy: str, seed: int) -> None:
    state = new_game(players, seed, back_side=back_side)
    rng = Rng(seed * 7919 + players)
    commands: list[tuple[int, str]] = []
    scores = list(state.scores)
    while not state.is_terminal():
        player = state.current_player()
        assert 0 <= player < players
        actions = state.legal_actions()
        assert actions, "a running game must offer a legal command"
        # An auction lists up to thousands of bids that differ only in the cards: reading back every one at
        # every step of 300 games was three quarters of this test's time, so long lists are read back by a
        # stride through them (the first and the last always).
        for action in actions[::max(1, len(actions) // 40)] + actions[-1:]:
            assert state.parse(player, str(action)) == action
        action = choose(actions, rng, policy)
        state.apply_action(player, action)
        commands.append((player, str(action)))

        check_inventory(state)
        check_one_district_plot_per_player(state)
        assert all(new >= old for new, old in zip(state.scores, scores))
        scores = list(state.scores)
        text = state.to_json()
        again = State.from_json(text)
        assert again == state and again.to_json() == text
        state = again  # play on from the state read back, as the game service does from a snapshot
        assert len(commands) < 5000

    assert state.current_player() < 0 and state.legal_actions() == []
    assert state.result["winners"] and state.result["reason"] in ("supply", "building_stop")

    # The same seed and the same accepted commands replay to the identical game, although the game above was
    # read back from JSON after every command: the serial form holds everything that decides what happens.
    replay = new_game(players, seed, back_side=back_side)
    for player, command in commands:
        replay.apply_command(player, command)
    assert replay.to_json() == state.to_json()


def test_random_games_reach_every_rule() -> None:
    """The by-kind games above are only worth their time if they play every rule. Some of them suffice to show
    it, so the games are played until every rule was seen."""
    expected = {
        "placed", "action", "business", "central_park_business", "special_scoring", "scored", "black_cards",
        "cards", "move", "auctions", "auction", "bid", "pass", "no_bids", "won", "built", "building_stop",
        "robot_bid", "robot_out", "robot_built", "auctions_end", "game_over",
    }
    seen: collections.Counter = collections.Counter()
    robot_stops = 0
    for players, back_side, policy, seed in GAMES:
        if expected <= set(seen) and robot_stops:
            break
        if policy != "by-kind":
            continue
        state = new_game(players, seed, back_side=back_side)
        rng = Rng(seed * 7919 + players)
        while not state.is_terminal():
            for event in state.apply_action(state.current_player(), choose(state.legal_actions(), rng, policy)):
                seen[event["kind"]] += 1
                if event["kind"] == "building_stop" and event["actor"] == state.robot:
                    robot_stops += 1
    assert expected <= set(seen), expected - set(seen)
    assert robot_stops > 0
