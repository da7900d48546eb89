"""What one player may see of the game.

Everything on the table is public: the six cities with every part, each
player's supply left in the box and the parts chosen for the round, the played
cards (face up), the scores, the deck's size. A player sees their own hand as
card numbers (each a site as seen from their own side) and of everybody else
only the number of cards. The order of the deck and the random generator's
state are never shown (docs/rules.md M15).
"""

from __future__ import annotations

import copy
from typing import Any

from .board import load_board, seat_colors, seat_sides, seen_from
from .rules import (
    current_player,
    describe_decision,
    tower_floors,
    tower_height,
    tower_owner,
)
from .state import State


def player_view(state: State, player: int | None) -> dict[str, Any]:
    """``player`` None gives the public view (what a spectator may see)."""
    board = load_board()
    colors = seat_colors(state.players)
    sides = seat_sides(state.players)
    side = sides[player] if player is not None and 0 <= player < state.players else 0
    cities = {}
    for code, sites in state.cities.items():
        cells = []
        for index, tower in enumerate(sites):
            owner = tower_owner(tower)
            cells.append({
                "site": index + 1,
                "card": seen_from(side, index + 1),  # the viewer's number for it: their card that builds there
                "parts": [list(part) for part in tower],
                "owner": owner,
                "owner_seat": state.seat_of(owner) if owner else None,
                "floors": tower_floors(tower),
                "height": tower_height(tower),
            })
        cities[code] = {"name": board.name(code), "sites": cells}
    view: dict[str, Any] = {
        "game": "manhattan",
        "players": state.players,
        "viewer": player,
        "current_player": current_player(state),
        "waiting_for": describe_decision(state, player),
        "phase": state.phase,
        "round": state.round,
        "rounds": state.rounds,
        "start_player": state.start,
        "choosers": list(state.choosers),
        "colors": [list(c) for c in colors],
        "side": list(sides),
        "side_names": [board.side_names[s] for s in sides],
        "site_numbering": "sites are numbered 1-9 as seen from side 0 (south, player 1's side); "
                          "cards, and each site's 'card', as seen from their player's (the viewer's) own side",
        "scores": list(state.scores),
        "color_scores": dict(state.color_scores),
        "supply": {c: list(v) for c, v in state.supply.items()},
        "chosen": {c: list(v) for c, v in state.chosen.items()},
        "boxed": {c: list(v) for c, v in state.boxed.items()},
        "cities": cities,
        "deck_size": len(state.deck),
        "played": [list(pile) for pile in state.played],
        "hand_sizes": [len(hand) for hand in state.hands],
        "history": copy.deepcopy(state.history),
        "result": copy.deepcopy(state.result),
    }
    if player is not None and 0 <= player < state.players:
        view["hand"] = list(state.hands[player])
    return view
