"""Standing bids: the bid an order ``bid up to N [in COLOUR]`` makes for its player, as a pure rule.

Whenever it is the player's turn in the auction the order is for, the rules (:mod:`.rules`) ask
:func:`least_raise` for the bid: the least total that beats the high bid without the player's whole bid passing
N, and ``None`` (a pass) when no bid of theirs does. The order sees what its player sees: their own hand and
cards on the table, the high bid, the colours they may bid; never another hand. Among the bids of that least
total the cards follow one rule, which the help states (``CARD_RULE``): the fewest cards, then the highest build
limit of the whole bid, then colored cards before black ones (black cards fit any colour, so they are kept),
then the colour first in the board's order, then the lower values.

This module knows nothing of a state: the rules give it plain numbers, so it cannot import them back.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from dataclasses import dataclass

from .actions import Bid, Counts
from .board import VALUES

CARD_RULE = ("the least total that beats the high bid; of those, the fewest cards, then the highest build "
             "limit, then colored cards before black ones")


@dataclass(frozen=True)
class Holding:
    """What the order's player holds for this auction: their hand and the cards already on the table."""

    hand: Mapping[str, list[int]]  # colour -> counts of values 4, 5, 6 (black included)
    own_color: str | None  # the colour of their cards on the table; None before their first bid
    own_colored: Counts = (0, 0, 0)
    own_black: Counts = (0, 0, 0)

    @property
    def own_total(self) -> int:
        return _total(self.own_colored) + _total(self.own_black)


def _total(counts: Iterable[int]) -> int:
    return sum(v * k for v, k in zip(VALUES, counts))


def _present(counts: Iterable[int]) -> frozenset[int]:
    return frozenset(v for v, k in zip(VALUES, counts) if k)


def _cheapest(have: list[int]) -> dict[tuple[int, frozenset[int]], Counts]:
    """For each (total, values used) that cards of ``have`` can make, the way with the fewest cards (then the
    lowest values): the order's choice depends on nothing else of a part of the bid."""
    best: dict[tuple[int, frozenset[int]], Counts] = {}
    for a in range(have[0] + 1):
        for b in range(have[1] + 1):
            for c in range(have[2] + 1):
                counts = (a, b, c)
                key = (_total(counts), _present(counts))
                if key not in best or (sum(counts), counts[::-1]) < (sum(best[key]), best[key][::-1]):
                    best[key] = counts
    return best


def least_raise(holding: Holding, high: int, limit: int, colors: list[str], black: str,
                build_limits: Mapping[int, int]) -> Bid | None:
    """The cards the order adds now, or None when no bid of at most ``limit`` in all beats ``high``.

    ``colors``: the colours the player may open with, in the board's order (ignored once they have cards on the
    table, whose colour they keep). ``build_limits``: the board's build limit of each card value."""
    if holding.own_color is not None:
        colors = [holding.own_color]
    own_values = _present(holding.own_colored) | _present(holding.own_black)
    blacks = _cheapest(holding.hand[black])
    best_key, best = None, None
    for rank, color in enumerate(colors):
        for (colored_total, colored_values), colored in _cheapest(holding.hand[color]).items():
            if holding.own_color is None and not sum(colored):
                continue  # a bid opens with a colored card
            for (black_total, black_values), blacked in blacks.items():
                cards = sum(colored) + sum(blacked)
                whole = holding.own_total + colored_total + black_total
                if not cards or whole <= high or whole > limit:
                    continue
                values = own_values | colored_values | black_values
                build = min(build_limits[v] for v in values)
                key = (whole, cards, -build, sum(blacked), rank, colored[::-1], blacked[::-1])
                if best_key is None or key < best_key:
                    best_key, best = key, Bid(color if sum(colored) else None, colored, blacked)
    return best


def most_reachable(holding: Holding, colors: list[str], black: str) -> int:
    """The most the player's whole bid can come to in this auction: every card of their best colour and every
    black card (what a reply names when an order asks for more)."""
    if holding.own_color is not None:
        colors = [holding.own_color]
    blacks = _total(holding.hand[black])
    best = max((_total(holding.hand[c]) for c in colors if sum(holding.hand[c])), default=None)
    if best is None:
        return 0
    return holding.own_total + best + blacks
