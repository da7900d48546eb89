"""Shared helpers for the Fifth Avenue rule tests.

Positions are built by playing the initial placement with legal commands and
then overwriting the plain-data state (plots, hands, commissioners, ...).
Seats: 0 red, 1 yellow, 2 blue, 3 green (the player colors of board.json), so
the rulebook figures' colors map onto seats directly.
"""

from __future__ import annotations

from pbem.games.fifth_avenue import State, new_game

COLORS = ("orange", "green", "brown", "violet", "gray")
RED, YELLOW, BLUE, GREEN = 0, 1, 2, 3


def play_placement(s: State) -> State:
    """Play the initial skyscraper placement with the first legal command."""
    while s.frames and s.frames[-1]["kind"] == "placement":
        s.apply_command(s.current_player(), s.legal_commands()[0])
    return s


def started(players: int = 4, seed: int = 1, back_side: bool = False) -> State:
    """A game just past the initial placement: seat 0 chooses an action."""
    return play_placement(new_game(players=players, seed=seed, back_side=back_side))


def clear_plots(s: State) -> None:
    """Remove every business and skyscraper from every district."""
    for cells in s.plots.values():
        for cell in cells.values():
            cell.update(businesses=[], owner=None, height=0)


def no_cards() -> dict[str, list[int]]:
    return {c: [0, 0, 0] for c in (*COLORS, "black")}


def set_hand(s: State, seat: int, **cards) -> None:
    """Replace a hand: set_hand(s, 0, gray=[2, 0, 0], black=[0, 1, 0])."""
    hand = no_cards()
    for color, counts in cards.items():
        hand[color] = list(counts)
    s.hands[seat] = hand


def hand_size(s: State, seat: int) -> int:
    return sum(sum(v) for v in s.hands[seat].values())


def ring(s: State, district: str) -> tuple[str, ...]:
    return s.board.district(district).ring


def put(s: State, district: str, plot: str, businesses=(), owner=None, height=0) -> None:
    s.plots[district][plot] = {"businesses": list(businesses), "owner": owner, "height": height}


def top(s: State) -> dict:
    return s.frames[-1]


def kinds(events) -> list[str]:
    return [e["kind"] for e in events]


def at_phase(s: State, phase: int, action: str = "A") -> None:
    """Jump the current turn to ``phase`` (the earlier phases counted as done)."""
    frame = top(s)
    assert frame["kind"] == "turn"
    frame["phase"] = phase
    frame["action"] = action


def trigger_auctions(s: State, markers, commissioner: str = "white"):
    """The current player moves ``commissioner`` from Central Park to City Hall as their 3rd action."""
    s.commissioners[commissioner] = "CP"
    s.markers[commissioner] = list(markers)
    at_phase(s, 3)
    return s.apply_command(top(s)["player"], f"move {commissioner} CH")


def pass_all(s: State) -> list:
    """Everybody passes until the auction on top is over."""
    events = []
    frame = top(s)
    while s.frames and s.frames[-1] is frame:
        events += s.apply_command(s.current_player(), "pass")
    return events
