"""What the player who must decide needs to know, in words.

The rules explain themselves here the same way they explain a refused
command: which colors a bidder may use and why, what the cards on the table
allow, what is still owed this turn. Pure: it only reads the state.
"""

from __future__ import annotations

from .board import CENTRAL_PARK
from .rules import allowed_bid_colors, build_limit, current_player, describe_decision, high_bid
from .state import State

PHASES = {
    2: "take two colored cards of different colors (cards <color> <color>), then move a commissioner",
    3: "move a commissioner (move <commissioner> <destination>)",
}


def decision_notes(state: State) -> list[str]:
    """Sentences for the player who must act now."""
    if state.is_terminal():
        return ["The game is over."]
    frame = state.frames[-1]
    player = current_player(state)
    board = state.board
    notes = [describe_decision(state)[0].upper() + describe_decision(state)[1:]]
    if frame["kind"] == "auction":
        site = board.name(frame["site"])
        own = frame["bids"].get(str(player))
        holder, high = high_bid(frame)
        if holder is None:
            notes.append(f"Nobody has bid for {site} yet.")
        else:
            who = "the robot" if holder == state.robot else f"player {holder + 1}"
            notes.append(f"The high bid is {high}, by {who}; you must bid more than {high} in total or pass.")
        if own is None:
            colors, why = allowed_bid_colors(state, frame, player)
            usable = [c for c in colors if sum(state.hands[player][c])]
            notes.append(f"You may bid {' or '.join(colors) or 'no color'}: {why}.")
            if colors and not usable:
                notes.append("You have no card of that color, so you can only pass.")
            notes.append("Your first card must be of that color; add black cards as you like.")
        else:
            notes.append(f"You already bid {own['color']}: add {own['color']} or black cards, or pass "
                         "(passing takes your cards back and you are out).")
        notes.append("The card with the fewest skyscrapers in your bid sets how many you may build "
                     "(a 4 allows 3, a 5 allows 2, a 6 allows 1).")
    elif frame["kind"] == "build":
        site = board.name(frame["site"])
        if frame["site"] == CENTRAL_PARK:
            where = "below Central Park"
        else:
            where = f"on the {frame['color']} plot of {site}"
        notes.append(f"You won {site}: build up to {min(frame['limit'], state.supply[player])} skyscraper(s) "
                     f"{where} (your cards allow {frame['limit']}, your supply holds {state.supply[player]}).")
        if frame["may_stop"]:
            notes.append("Or declare a building stop: you score 1 VP per skyscraper in the district, the others "
                         "half their normal score, and the district leaves the game.")
    elif frame["kind"] == "turn" and frame["phase"] in PHASES:
        notes.append(f"Still to do this turn: {PHASES[frame['phase']]}.")
    return notes


def owed_this_turn(state: State, player: int) -> str | None:
    """What ``player`` still owes of their own turn, once any auctions are over."""
    for frame in reversed(state.frames):
        if frame["kind"] == "turn":
            if frame["player"] == player and frame["phase"] in PHASES:
                return PHASES[frame["phase"]]
            return None
    return None


def turn_owner(state: State) -> tuple[object, ...]:
    """Whose turn or starting placement it is: when this changes, a turn has ended (everybody hears of it)."""
    for frame in state.frames:
        if frame["kind"] == "turn":
            return ("turn", frame["player"])
        if frame["kind"] == "placement":
            return ("placement", frame["index"])
    return ("over",)


def decision_subject(state: State) -> str:
    """A mail subject's words for the decision now due, which players can filter on: 'your turn' or 'bid: ...'."""
    frame = state.frames[-1]
    if frame["kind"] == "auction":
        return f"bid: {state.board.name(frame['site'])}"
    if frame["kind"] == "build":
        return f"bid: you won {state.board.name(frame['site'])}, build"
    return "your turn"


def hand_text(view: dict) -> str:
    """The viewer's own hand in a line: 'orange 4 5; black 6 6'."""
    return "; ".join(f"{color} {' '.join(str(v) for v, n in zip((4, 5, 6), counts) for _ in range(n))}"
                     for color, counts in view["hand"].items() if sum(counts)) or "no cards"


# Events that everybody is told of at once (the rest waits for the end of the turn), and those a mail's
# subject names as its result, the first found in this order.
PUBLIC_EVENTS = frozenset({
    "auctions", "auction", "bid", "pass", "robot_bid", "robot_out", "won", "built", "robot_built", "no_bids",
    "building_stop", "auctions_end", "scored", "special_scoring", "game_over", "central_park_business", "placed",
    "forced",
})
RESULT_EVENTS = ("game_over", "building_stop", "won", "no_bids", "scored", "special_scoring")


__all__ = ["PUBLIC_EVENTS", "RESULT_EVENTS", "build_limit", "decision_notes", "decision_subject", "hand_text",
           "owed_this_turn", "turn_owner"]
