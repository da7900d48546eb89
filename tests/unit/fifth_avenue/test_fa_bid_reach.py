"""bid_reach: what the player who must bid can bid with, and the most their bid can come to, agree with the
legal bids in every auction of random games."""

from __future__ import annotations

from pbem.games.fifth_avenue import bid_reach, new_game
from pbem.games.fifth_avenue.actions import Bid
from pbem.games.fifth_avenue.board import BLACK
from pbem.games.fifth_avenue.rules import _bid_total, current_player, high_bid
from pbem.games.rng import Rng
from pbem.services.offline.simulate import choose


def test_the_most_a_bidder_can_bid_is_the_most_of_their_legal_bids() -> None:
    checked = 0
    for seed in range(12):
        state = new_game(3, seed)
        rng = Rng(seed)
        while not state.is_terminal():
            frame = state.frames[-1]
            reach = bid_reach(state)
            if frame["kind"] != "auction":
                assert reach is None
            else:
                player = current_player(state)
                bids = [a for a in state.legal_actions() if isinstance(a, Bid)]
                own = _bid_total(frame["bids"].get(str(player)))
                assert reach["high"] == high_bid(frame)[1]
                if bids:
                    assert reach["most"] == own + max(b.total for b in bids)
                    used = {b.color for b in bids if b.color} | ({BLACK} if any(sum(b.black) for b in bids) else set())
                    # Exactly the colors some legal bid uses: none that cannot beat the high bid (issue 45, point 9).
                    assert {color for color, _ in reach["cards"]} == used, (reach, used)
                    checked += 1
                hand = state.hands[player]
                for color, values in reach["cards"]:
                    assert sorted(values) == sorted(v for v, n in zip((4, 5, 6), hand[color]) for _ in range(n))
            state.apply_action(state.current_player(), choose(state.legal_actions(), rng, "by-kind"))
    assert checked > 50
    assert bid_reach(state) is None
