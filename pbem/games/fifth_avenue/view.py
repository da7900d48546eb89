"""What one player may see of the game.

A player sees everything public, their own hand in full, and of everybody
else only the number of cards in hand. Face-down things (the black stack, the
unused businesses, the order of cards under the top of each colored stack) and
the random generator's state are never shown.
"""

from __future__ import annotations

from typing import Any

from .board import BLACK
from .rules import current_player, describe_decision
from .state import State


def _hand_size(hand: dict[str, list[int]]) -> int:
    return sum(sum(v) for v in hand.values())


def player_view(state: State, player: int | None) -> dict[str, Any]:
    """``player`` None gives the public view (what a spectator may see)."""
    board = state.board
    frames = []
    for frame in state.frames:
        frames.append({k: v for k, v in frame.items() if k != "robot_cards"} | (
            {"robot_cards": frame["robot_cards"]} if frame.get("robot_cards") else {}))
    view: dict[str, Any] = {
        "game": "fifth-avenue",
        "players": state.players,
        "back_side": state.back_side,
        "viewer": player,
        "current_player": current_player(state),
        "waiting_for": describe_decision(state),
        "scores": list(state.scores),
        "supply": list(state.supply),
        "general": list(state.general),
        "central_park": list(state.central_park),
        "hand_sizes": [_hand_size(h) for h in state.hands],
        "colored_stacks": {c: {"top": s[0] if s else None, "size": len(s)} for c, s in state.colored_stacks.items()},
        "black_stack_size": len(state.black_stack) + len(state.black_spent),
        "supply_row": [list(g) for g in state.supply_row],
        "cp_businesses": list(state.cp_businesses),
        "plots": {d: {p: dict(c, businesses=list(c["businesses"])) for p, c in cells.items()} for d, cells in state.plots.items()},
        "stopped": list(state.stopped),
        "boxed_skyscrapers": list(state.boxed_skyscrapers),
        "boxed_businesses": list(state.boxed_businesses),
        "commissioners": dict(state.commissioners),
        "markers": {c: list(v) for c, v in state.markers.items()},
        "frames": frames,
        "result": state.result,
        "districts": {d.code: d.name for d in board.districts},
    }
    if player is not None and 0 <= player < state.players:
        view["hand"] = {c: list(v) for c, v in state.hands[player].items() if c == BLACK or c in board.plot_colors}
        # Their own standing bids only (another player's limit is as hidden as their hand), and only when they
        # have one: a view without orders stays what it was, so are the mails and pictures drawn from it.
        if state.orders.get(str(player)):
            view["orders"] = {site: dict(order) for site, order in state.orders[str(player)].items()}
    return view
