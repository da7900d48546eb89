"""Robot players for Fifth Avenue: pure functions of what one player may see.

A robot gets the view of the player it plays for (``state.view(seat)``, a plain dict that survives JSON),
the legal commands (``state.legal_commands()``) and a seed, and returns one of those commands. It never
gets a :class:`~.state.State`: another player's hand, the order of the stacks below their top cards and the
unused businesses are not in the view, so a robot cannot use them. Everything here is pure: no I/O, no
clock, no database; randomness only from the seed passed in, so the same view and seed give the same
command.

- :func:`heuristic` is a fast rule-of-thumb player (well under a millisecond a decision, typically): a
  one-ply lookahead that scores every legal command by a static evaluation of the public position it leads
  to.
- :func:`strong` searches: it samples the hidden information consistently with the view
  (:func:`determinize`), tries the heuristic's best few commands in each sample, plays on with the
  heuristic for a few turns and compares the positions reached, for a fixed budget of simulations.

Not to be confused with the rule-bound robot bidder of the 2-player game (Alea, ``state.robot``), which is
part of the rules.

Why one module of this length: like the rules engine beside it, an exception the house plan allows
(docs/architecture.md): the quick player and the searching one share the same reading of a view and the same
valuation of Fifth Avenue positions, and are tuned together against each other.
"""

from __future__ import annotations

import itertools
import math
from collections.abc import Iterable
from functools import lru_cache
from typing import Any

from ..errors import IllegalCommandError, InvalidCommandError
from ..rng import Rng
from .actions import (
    Action,
    Bid,
    BlackCardAndMove,
    Build,
    Move,
    Pass,
    Place,
    PlaceBusiness,
    ScoreDistrict,
    Stop,
    TakeCards,
    TakeSkyscrapers,
    parse_command,
)
from .board import BLACK, CENTRAL_PARK, CITY_HALL, VALUES, Board, load_board
from .state import State

__all__ = ["DEFAULT_BUDGET", "determinize", "heuristic", "strong"]

# --------------------------------------------------------------------------- the evaluation's weights
# All in victory points. Tuned by playing the heuristic against variants of itself (one seat of four, 400 games a
# variant); bench/robots_fifth_avenue.py measures the result against random players.
CARD_VP = 0.8  # one card point (cards are the money of the auctions), at the start of the game
MONEY_SCALE = 100.0  # card points: money is worth less the more of it a player holds (1 - exp(-M / scale))
LATE_MONEY = 0.25  # the part of money's worth left when the last business is placed (cards buy nothing then)
CARD_WORTH = {4: 4.6, 5: 5.1, 6: 5.7}  # a card's worth in card points: low cards allow taller builds
AVG_CARD = 4.85  # the average card, for hands nobody may see
SUPPLY_VP = (2.0, 1.6, 1.3, 0.7, 0.5, 0.4, 0.3, 0.2, 0.1)  # the next skyscraper in one's own supply
CP_WEIGHT = 2.0  # a skyscraper below Central Park: this times what it is expected to score at the end
OPP_MAX = 0.5  # the opponents' part of the utility: this much of the best, the rest of their mean
NEXT_SCORES = 0.8  # how likely the next player takes a good action D that a move offers them
MY_CHANCE = 0.25  # how likely a district a move offers me is still there to score on my next turn
END_WIN = 1000.0  # the utility of ending the game as its winner
END_PRESSURE = 0.15  # near the end, a placement gains this times the placements it takes off times the lead
SPECIAL_CHANCE = 0.6  # the chance to add a district before a special scoring (for each district missing)
STALL_MOVES = 400  # commands into a game after which placing a business gains STALL_PUSH a command more
STALL_PUSH = 0.05
DENIAL = 0.5  # the part of the high bidder's gain a bidder counts as lost if it passes
AUCTION_SHARE = 0.35  # the part of an auction set's value the trigger expects, scaled by its share of the money
MARKER_SHARE = 0.2  # the same for the auction a marker left behind will bring
COLOR_USE = 0.08  # a card's extra worth for each district where its color may be bid

DEFAULT_BUDGET = 80  # simulations per decision: under 2 s of CPU on this project's slow 2-CPU machine (bench/robots_strong.py)
WIDTH = 6  # candidates the strong robot searches: the heuristic's best
PLAYOUT_CAP = 40  # commands at most in one playout


# --------------------------------------------------------------------------- reading commands


def _parse(board: Board, text: str) -> Action:
    """A command in its canonical form (``str(action)``) read back quickly; anything else by the parser."""
    t = text.split()
    try:
        w = t[0]
        if w == "bid":
            color: str | None = None
            colored, black = [0, 0, 0], [0, 0, 0]
            target = None
            for tok in t[1:]:
                if tok.isdigit():
                    target[int(tok) - 4] += 1  # type: ignore[index]
                elif tok == BLACK:
                    target = black
                else:
                    color, target = tok, colored
            return Bid(color if sum(colored) else None, tuple(colored), tuple(black))  # type: ignore[arg-type]
        if w == "B" and len(t) == 4:
            return PlaceBusiness(t[1], t[2], t[3])
        if w == "cards":
            return TakeCards(tuple(t[1:]))
        if w == "move" and len(t) == 3:
            return Move(t[1], t[2])
        if w == "C" and len(t) == 3:
            return BlackCardAndMove(t[1], t[2])
        if w == "D" and len(t) == 2:
            return ScoreDistrict(t[1])
        if w == "A" and len(t) == 1:
            return TakeSkyscrapers()
        if w == "pass":
            return Pass()
        if w == "build":
            return Build(int(t[1]))
        if w == "stop":
            return Stop()
        if w == "place" and len(t) == 3:
            return Place(t[1], t[2])
    except (IndexError, ValueError, TypeError):
        pass
    action = parse_command(board, text)
    if not isinstance(action, (Place, TakeSkyscrapers, PlaceBusiness, BlackCardAndMove, ScoreDistrict, TakeCards,
                               Move, Bid, Pass, Build, Stop)):
        raise InvalidCommandError(f"not a complete command: {text!r}")
    return action


# --------------------------------------------------------------------------- the position a robot reads


class _Pos:
    """What the evaluation reads, from a view (a robot's own decision) or from a State (the search's
    playouts, where it stands for the view of the player to act: only their own hand is read)."""

    __slots__ = ("board", "n", "me", "scores", "supply", "general", "cp", "hand", "hand_sizes", "tops",
                 "supply_row", "cp_businesses", "plots", "stopped", "commissioners", "markers", "frames", "moves")

    @classmethod
    def from_view(cls, view: dict[str, Any]) -> _Pos:
        p = cls()
        p.board = load_board(bool(view["back_side"]))
        p.n = view["players"]
        me = view["viewer"]
        if me is None or "hand" not in view:
            raise ValueError("a robot plays from a player's own view (state.view(seat)), not the public view")
        p.me = me
        p.scores, p.supply, p.general, p.cp = view["scores"], view["supply"], view["general"], view["central_park"]
        p.hand = view["hand"]
        p.hand_sizes = view["hand_sizes"]
        p.tops = {c: s["top"] for c, s in view["colored_stacks"].items()}
        p.supply_row, p.cp_businesses = view["supply_row"], view["cp_businesses"]
        p.plots, p.stopped = view["plots"], view["stopped"]
        p.commissioners, p.markers, p.frames = view["commissioners"], view["markers"], view["frames"]
        p.moves = max((f.get("opened", 0) for f in p.frames), default=0)  # when the open decisions began
        return p

    @classmethod
    def from_state(cls, state: State, me: int) -> _Pos:
        p = cls()
        p.board = state.board
        p.n = state.players
        p.me = me
        p.scores, p.supply, p.general, p.cp = state.scores, state.supply, state.general, state.central_park
        p.hand = state.hands[me]
        p.hand_sizes = [sum(sum(v) for v in h.values()) for h in state.hands]
        p.tops = {c: (s[0] if s else None) for c, s in state.colored_stacks.items()}
        p.supply_row, p.cp_businesses = state.supply_row, state.cp_businesses
        p.plots, p.stopped = state.plots, state.stopped
        p.commissioners, p.markers, p.frames = state.commissioners, state.markers, state.frames
        p.moves = max((f.get("opened", 0) for f in state.frames), default=0)
        return p


def _placements_left(supply_row: list[list[str]]) -> int:
    """Business placements until the supply row is empty (a set of k businesses gives k - 1)."""
    return sum(len(g) - 1 for g in supply_row if g)


def _emptied(supply_row: list[list[str]]) -> int:
    return sum(1 for g in supply_row if not g)


@lru_cache(maxsize=4096)
def _central_park_vp(counts: tuple[int, ...], more: int, vp: tuple[int, ...], draw: int) -> float:
    """The expected points of a skyscraper below Central Park: ``draw`` businesses drawn from those there
    (``counts`` of each type) and ``more`` to come, each of a type at random; the points follow the number of
    types drawn (none drawn counts as one type)."""
    kinds = len(counts)
    total = 0.0
    for added in _compositions(more, kinds):
        ways = math.factorial(more)
        for k in added:
            ways //= math.factorial(k)
        total += ways * _draw_vp(tuple(c + k for c, k in zip(counts, added)), vp, draw)
    return total / kinds ** more


def _compositions(total: int, parts: int) -> list[tuple[int, ...]]:
    """Every way to write ``total`` as an ordered sum of ``parts`` counts (zeros allowed)."""
    if parts == 1:
        return [(total,)]
    return [(first, *rest) for first in range(total + 1) for rest in _compositions(total - first, parts - 1)]


def _draw_vp(counts: tuple[int, ...], vp: tuple[int, ...], draw: int) -> float:
    """The expected points for the number of types among ``draw`` businesses drawn from ``counts``."""
    n = sum(counts)
    if n <= draw:
        return float(vp[max(1, sum(1 for c in counts if c))])
    expected = 0.0
    for seq in itertools.product(range(len(counts)), repeat=draw):
        left = list(counts)
        p = 1.0
        for i, t in enumerate(seq):
            if not left[t]:
                p = 0.0
                break
            p *= left[t] / (n - i)
            left[t] -= 1
        if p:
            expected += p * vp[len(set(seq))]
    return expected


class _Eval:
    """A static evaluation of a public position, from one player's side.

    Every player's worth in victory points is the sum of: the points scored; their skyscrapers in the
    districts, each worth what a scoring of its district gives it now (once: the final scoring; counting
    the actions D still to come as well played worse); the skyscrapers below Central Park at what they are
    expected to score at the end; the cards in hand as money (the viewer's own cards at their worth, the
    others' at the average card); the skyscrapers in their own supply (a falling worth for each more); the
    special scorings still to come, by the districts they are present in. The utility of a position is the
    viewer's worth minus a blend of the best and the mean opponent's."""

    def __init__(self, pos: _Pos) -> None:
        self.pos = pos
        board = self.board = pos.board
        self.n = n = pos.n
        self.me = pos.me
        self.vp = board.district_vp
        self.live = [d for d in board.district_codes if d not in pos.stopped]
        self.left = _placements_left(pos.supply_row)
        self.emptied = _emptied(pos.supply_row)
        self.pts = {d: self.district_points(d, pos.plots[d]) for d in self.live}
        self.presence = [0] * n
        for d in self.live:
            for cell in pos.plots[d].values():
                o = cell["owner"]
                if o is not None and o < n and cell["height"]:
                    self.presence[o] += 1
        hand_money = sum(CARD_WORTH[v] * k for counts in pos.hand.values() for v, k in zip(VALUES, counts))
        self.money = [AVG_CARD * pos.hand_sizes[p] for p in range(n)]
        self.capacity = [min(1.0, 0.25 + 0.25 * (pos.supply[p] + pos.general[p])) for p in range(n)]
        self.money[self.me] = hand_money + self._own_bid_money()
        self.cp_vp = self._cp_vp(pos.cp_businesses)
        self.specials = [(vp, need) for after, vp, need in board.special_scorings if after > self.emptied]
        self.board_pts = [sum(v[p] for v in self.pts.values()) for p in range(n)]
        self.special_base = [self.special_worth(x) for x in self.presence]
        self._parts_cache: dict[int, tuple[list[float], list[float]]] = {}

    # ------------------------------------------------------------------ pieces
    def _own_bid_money(self) -> float:
        """The viewer's cards on the table in an open auction: they come back unless the viewer wins."""
        pos = self.pos
        for frame in reversed(pos.frames):
            if frame["kind"] == "auction":
                own = frame["bids"].get(str(self.me))
                if own:
                    return sum(CARD_WORTH[v] * (a + b) for v, a, b in zip(VALUES, own["colored"], own["black"]))
                return 0.0
        return 0.0

    def _cp_vp(self, businesses: list[str]) -> float:
        """What a skyscraper below Central Park is expected to score at the end: the businesses there now,
        and one more (of a type at random) for every set of the supply row still to empty."""
        sets_left = sum(1 for g in self.pos.supply_row if g)
        counts = tuple(sorted((businesses.count(t) for t in self.board.business_types), reverse=True))
        return CP_WEIGHT * _central_park_vp(counts, sets_left, self.vp, self.board.central_park_draw)

    def adjacent_types(self, plots: dict[str, dict[str, Any]], district: str, plot: str) -> int:
        types: set[str] = set()
        for other in self.board.adjacent_plots(district, plot):
            types.update(plots[other]["businesses"])
        return len(types)

    def dist(self, district: str, cells: dict[str, dict[str, Any]]) -> tuple[str, list[int]]:
        """A district's points with its plots as ``cells``, for ``worths(dist=...)``."""
        return district, self.district_points(district, cells)

    def district_points(self, district: str, cells: dict[str, dict[str, Any]]) -> list[int]:
        points = [0] * self.n
        vp = self.vp
        for plot, cell in cells.items():
            o = cell["owner"]
            if o is not None and o < self.n and cell["height"]:
                types: set[str] = set()
                for other in self.board.adjacent_plots(district, plot):
                    types.update(cells[other]["businesses"])
                points[o] += vp[len(types)] * cell["height"]
        return points

    def supply_worth(self, s: int, left: int | None = None) -> float:
        late = (self.left if left is None else left) / 12.0
        return (0.3 + 0.7 * late) * sum(SUPPLY_VP[i] if i < len(SUPPLY_VP) else 0.1 for i in range(max(0, s)))

    def money_worth(self, money: float, left: int | None, player: int) -> float:
        """Cards buy skyscrapers: they are worth less the more a player holds, the nearer the end, and the
        fewer skyscrapers the player has left to build (a quarter of it with none: building stops)."""
        late = (self.left if left is None else left) / 12.0
        rate = CARD_VP * (LATE_MONEY + (1.0 - LATE_MONEY) * late) * self.capacity[player]
        return rate * MONEY_SCALE * (1.0 - math.exp(-money / MONEY_SCALE))

    def special_worth(self, present: int, specials: list[tuple[int, int]] | None = None) -> float:
        total = 0.0
        for i, (vp, need) in enumerate(self.specials if specials is None else specials):
            chance = 1.0 if present >= need else SPECIAL_CHANCE ** (need - present)
            total += vp * chance * (0.9 ** i)
        return total

    # ------------------------------------------------------------------ totals
    def _parts(self, left: int | None) -> tuple[list[float], list[float]]:
        """Every player's money and supply worth when ``left`` placements remain (None: as now)."""
        key = self.left if left is None else left
        parts = self._parts_cache.get(key)
        if parts is None:
            parts = ([self.money_worth(m, key, p) for p, m in enumerate(self.money)],
                     [self.supply_worth(x, key) for x in self.pos.supply])
            self._parts_cache[key] = parts
        return parts

    def worths(self, scores=None, dist=None, drop=None, cp=None, money=None, supply=None, presence=None,
               left=None, specials=None) -> list[float]:
        """Every player's worth, with some parts changed: ``dist`` (district, points) a district's new
        points, ``drop`` a district gone (a building stop), ``left`` the placements left."""
        pos = self.pos
        n = self.n
        scores = pos.scores if scores is None else scores
        cp = pos.cp if cp is None else cp
        mw, sw = self._parts(left)
        bp = self.board_pts
        if dist is not None:
            d, new = dist
            old = self.pts[d]
            bp = [bp[p] - old[p] + new[p] for p in range(n)]
        if drop is not None:
            old = self.pts[drop]
            bp = [bp[p] - old[p] for p in range(n)]
        if money is not None:
            key = self.left if left is None else left
            mw = [mw[p] if money[p] == self.money[p] else self.money_worth(money[p], key, p) for p in range(n)]
        if supply is not None:
            key = self.left if left is None else left
            base = pos.supply
            sw = [sw[p] if supply[p] == base[p] else self.supply_worth(supply[p], key) for p in range(n)]
        if presence is None and specials is None:
            spw = self.special_base
        else:
            presence = self.presence if presence is None else presence
            spw = [self.special_base[p] if specials is None and presence[p] == self.presence[p]
                   else self.special_worth(presence[p], specials) for p in range(n)]
        cp_vp = self.cp_vp
        return [scores[p] + bp[p] + cp_vp * cp[p] + mw[p] + sw[p] + spw[p] for p in range(n)]

    def utility(self, worths: list[float]) -> float:
        me = self.me
        others = [w for p, w in enumerate(worths) if p != me]
        if not others:
            return worths[me]
        return worths[me] - (OPP_MAX * max(others) + (1 - OPP_MAX) * sum(others) / len(others))

    def final_utility(self, scores: list[float], cards: list[int]) -> float:
        """The utility of a finished game: END_WIN for a win (shared by k: 1/k of it), else a loss, plus the
        margin so that a closer loss is better."""
        me = self.me
        best = max(scores)
        margin = scores[me] - max(s for p, s in enumerate(scores) if p != me)
        if scores[me] < best:
            return -END_WIN + margin
        tied = [p for p in range(self.n) if scores[p] == best]
        most = max(cards[p] for p in tied)
        winners = [p for p in tied if cards[p] == most]
        if me not in winners:
            return -END_WIN + margin
        return END_WIN / len(winners) + margin

    def final_scores(self, scores: list[int], pts: dict[str, list[int]], cp: list[int]) -> list[float]:
        return [scores[p] + sum(v[p] for v in pts.values()) + self.cp_vp * cp[p] for p in range(self.n)]


# --------------------------------------------------------------------------- the heuristic's decisions


class _Decider:
    """Scores every legal action of the decision now due; higher is better for the player to act."""

    def __init__(self, pos: _Pos) -> None:
        self.pos = pos
        self.ev = _Eval(pos)
        self.base = self.ev.worths()
        self.u0 = self.ev.utility(self.base)

    # ------------------------------------------------------------------ entry
    def scores(self, actions: list[Action]) -> list[float]:
        pos = self.pos
        frame = pos.frames[-1] if pos.frames else None
        kind = frame["kind"] if frame else None
        if kind == "auction":
            return self._auction_scores(frame, actions)
        out = []
        neutral: dict[str, float] = {}  # a business placed where it touches no skyscraper: one score per type
        # A game that drags on (everybody drawing cards, nobody placing) is pushed to its end.
        stall = STALL_PUSH * max(0, pos.moves - STALL_MOVES)
        for a in actions:
            if isinstance(a, PlaceBusiness):
                if self._touches_skyscrapers(a):
                    out.append(self._business(a) + stall)
                else:
                    if a.business not in neutral:
                        neutral[a.business] = self._business(a) + stall
                    out.append(neutral[a.business])
            elif isinstance(a, ScoreDistrict):
                out.append(self._score(a.district))
            elif isinstance(a, TakeSkyscrapers):
                out.append(self._take_skyscrapers())
            elif isinstance(a, BlackCardAndMove):
                out.append(self._black_and_move(a))
            elif isinstance(a, Move):
                out.append(self._move(a.commissioner, a.destination))
            elif isinstance(a, TakeCards):
                out.append(self._cards(a.colors))
            elif isinstance(a, (Build, Stop)):
                out.append(self._build(frame, a))
            elif isinstance(a, Place):
                out.append(self._place(a))
            else:
                out.append(0.0)
        return out

    # ------------------------------------------------------------------ helpers
    def _touches_skyscrapers(self, a: PlaceBusiness) -> bool:
        """Whether a business placed there changes what any skyscraper is worth (it is next to one)."""
        cells = self.pos.plots[a.district]
        n = self.ev.n
        for q in self.ev.board.adjacent_plots(a.district, a.plot):
            o = cells[q]["owner"]
            if o is not None and o < n and cells[q]["height"]:
                return True
        return False

    def _u(self, **changes: Any) -> float:
        return self.ev.utility(self.ev.worths(**changes))

    def _cards_phase(self) -> float:
        """The worth of the colored cards phase 2 of A, B and C will give (the two best tops)."""
        tops = sorted((CARD_WORTH[t] for t in self.pos.tops.values() if t is not None), reverse=True)[:2]
        return self._money_gain(sum(tops))

    def _money_gain(self, amount: float) -> float:
        """What ``amount`` more card points in hand is worth to the viewer (negative: fewer)."""
        ev = self.ev
        money = ev.money[ev.me]
        return ev.money_worth(money + amount, None, ev.me) - ev.money_worth(money, None, ev.me)

    # ------------------------------------------------------------------ phase 1
    def _take_skyscrapers(self) -> float:
        pos, me = self.pos, self.ev.me
        supply = list(pos.supply)
        supply[me] += min(3, pos.general[me])
        return self._u(supply=supply) - self.u0 + self._cards_phase()

    def _business(self, a: PlaceBusiness) -> float:
        ev, pos = self.ev, self.pos
        cells = {p: dict(c) for p, c in pos.plots[a.district].items()}
        cells[a.plot]["businesses"] = cells[a.plot]["businesses"] + [a.business]
        new = ev.dist(a.district, cells)
        # The supply row after the placement: the set loses the business and, at its second-to-last, the last.
        row = [list(g) for g in pos.supply_row]
        for g in row:
            if g:
                g.remove(a.business)
                if len(g) == 1:
                    g.clear()
                break
        left = _placements_left(row)
        scores = list(pos.scores)
        if left == 0:  # the game ends at once
            pts = dict(ev.pts)
            pts[a.district] = new[1]
            final = ev.final_scores(scores, pts, pos.cp)
            cards = list(pos.hand_sizes)
            return ev.final_utility(final, cards)
        emptied = _emptied(row)
        specials = None
        if emptied != ev.emptied:
            for after, vp, need in ev.board.special_scorings:
                if after == emptied:
                    for p in range(ev.n):
                        if ev.presence[p] >= need:
                            scores[p] += vp
            specials = [(vp, need) for after, vp, need in ev.board.special_scorings if after > emptied]
        u = self._u(scores=scores, dist=new, left=left, specials=specials)
        return u - self.u0 + self._cards_phase() + self._end_pressure(left)

    def _end_pressure(self, left: int) -> float:
        """Bringing the end nearer is good for the leader and bad for the others."""
        if left > 3:
            return 0.0
        return END_PRESSURE * (4 - left) * max(-20.0, min(20.0, self.u0))

    def _score(self, district: str) -> float:
        ev, pos = self.ev, self.pos
        pts = ev.pts.get(district, [0] * ev.n)
        scores = [s + p for s, p in zip(pos.scores, pts)]
        money = list(ev.money)
        money[ev.me] += 2 * AVG_CARD
        for p in range(ev.n):
            if not any(c["owner"] == p for c in pos.plots[district].values()):
                money[p] += AVG_CARD
        return self._u(scores=scores, money=money) - self.u0

    def _black_and_move(self, a: BlackCardAndMove) -> float:
        return self._money_gain(AVG_CARD) + self._move(a.commissioner, a.destination) + self._cards_phase()

    # ------------------------------------------------------------------ moves
    def _move(self, commissioner: str, destination: str) -> float:
        ev, pos = self.ev, self.pos
        here = pos.commissioners[commissioner]
        where = dict(pos.commissioners)
        where[commissioner] = destination
        value = 0.0
        if here == CENTRAL_PARK:
            value += self._trigger_value(commissioner)
        scorable = [d for d in set(where.values()) if d in ev.pts]
        if scorable:
            nxt = (ev.me + 1) % ev.n
            gains = {}
            for d in scorable:
                pts = ev.pts[d]
                others = [pts[p] for p in range(ev.n) if p != ev.me]
                gains[d] = pts[ev.me] - (OPP_MAX * max(others) + (1 - OPP_MAX) * sum(others) / len(others))
            # The next player scores the district best for them, if it is good enough for them.
            best_d, best_gain = None, 1.5
            for d in scorable:
                pts = ev.pts[d]
                rivals = [pts[p] for p in range(ev.n) if p != nxt]
                g = pts[nxt] - max(rivals)
                if g > best_gain:
                    best_d, best_gain = d, g
            if best_d is not None:
                value += NEXT_SCORES * gains[best_d]
            value += MY_CHANCE * max(0.0, max(gains.values()))
        if here not in (CITY_HALL, CENTRAL_PARK) and here in ev.pts:
            value += MARKER_SHARE * self._site_interest(here)
        return value

    def _site_interest(self, site: str) -> float:
        """How much an auction for ``site`` would be worth to the viewer, per money share (a marker there)."""
        ev = self.ev
        worth = self._best_win_worth(site)
        share = ev.money[ev.me] / max(1.0, sum(ev.money))
        return worth * (share * ev.n - 1.0)

    def _trigger_value(self, commissioner: str) -> float:
        sites = [s for s in self.pos.markers[commissioner] if s in self.ev.pts] + [CENTRAL_PARK]
        return AUCTION_SHARE * sum(self._site_interest(s) for s in sites)

    def _best_win_worth(self, site: str) -> float:
        """What winning ``site`` with the best build the viewer could afford would gain (no cost counted)."""
        ev, pos, me = self.ev, self.pos, self.ev.me
        k = min(3, pos.supply[me])
        if site == CENTRAL_PARK:
            return k * ev.cp_vp
        own = next((c for c, cell in pos.plots[site].items() if cell["owner"] == me), None)
        if own is not None:
            return k * ev.vp[ev.adjacent_types(pos.plots[site], site, own)]
        ring = ev.board.district(site).ring
        empty = [c for c in ring if not pos.plots[site][c]["businesses"] and pos.plots[site][c]["owner"] is None]
        if not empty or k == 0:
            return 0.0
        best = max(ev.vp[ev.adjacent_types(pos.plots[site], site, c)] for c in empty)
        return k * best + 2.0

    # ------------------------------------------------------------------ phase 2
    def _cards(self, colors: Iterable[str]) -> float:
        pos, me = self.pos, self.ev.me
        tops = [pos.tops.get(c) for c in colors]
        value = self._money_gain(sum(CARD_WORTH[t] for t in tops if t is not None))
        for c in colors:
            top = pos.tops.get(c)
            if top is None:
                continue
            # A color is worth more where the viewer can bid it: its own plots, and empty plots elsewhere.
            uses = 0
            for d in self.ev.pts:
                cells = pos.plots[d]
                own = next((p for p, cell in cells.items() if cell["owner"] == me), None)
                empty = c in cells and not cells[c]["businesses"] and cells[c]["owner"] is None
                if own == c or (own is None and empty):
                    uses += 1
            value += COLOR_USE * uses
        return value

    # ------------------------------------------------------------------ build
    def _build(self, frame: dict[str, Any], a: Build | Stop) -> float:
        ev, pos, me = self.ev, self.pos, self.ev.me
        site = frame["site"]
        if isinstance(a, Stop):
            return self._stop_value(site) - self.u0
        supply = list(pos.supply)
        supply[me] -= a.count
        if site == CENTRAL_PARK:
            cp = list(pos.cp)
            cp[me] += a.count
            return self._u(cp=cp, supply=supply) - self.u0
        cells = {p: dict(c) for p, c in pos.plots[site].items()}
        cell = cells[frame["color"]]
        was_present = cell["owner"] == me and cell["height"] > 0
        if a.count:
            cell["owner"], cell["height"] = me, cell["height"] + a.count
        presence = list(ev.presence)
        if a.count and not was_present:
            presence[me] += 1
        return self._u(dist=ev.dist(site, cells), supply=supply, presence=presence) - self.u0

    def _stop_value(self, site: str) -> float:
        """The utility after the viewer declares a building stop in ``site``."""
        ev, pos = self.ev, self.pos
        declarer = ev.me
        normal = ev.pts[site]
        total = sum(cell["height"] for cell in pos.plots[site].values())
        scores = [s + (total if p == declarer else normal[p] // 2) for p, s in enumerate(pos.scores)]
        pts = {d: v for d, v in ev.pts.items() if d != site}
        presence = list(ev.presence)
        for cell in pos.plots[site].values():
            o = cell["owner"]
            if o is not None and o < ev.n and cell["height"]:
                presence[o] -= 1
        if len(pos.stopped) + 1 >= ev.board.building_stops:  # the second stop ends the game
            final = ev.final_scores(scores, pts, pos.cp)
            return ev.final_utility(final, list(pos.hand_sizes))
        return self._u(scores=scores, drop=site, presence=presence)

    # ------------------------------------------------------------------ placement
    def _place(self, a: Place) -> float:
        ev, pos = self.ev, self.pos
        cells = pos.plots[a.district]
        types = ev.adjacent_types(cells, a.district, a.color)
        open_neighbours = sum(1 for q in ev.board.adjacent_plots(a.district, a.color)
                              if q in cells and cells[q]["owner"] is None and len(cells[q]["businesses"]) < 2)
        rivals = sum(1 for cell in cells.values() if cell["owner"] is not None)
        central = {"TS": 1.0, "34W": 0.6, "34E": 0.6, "52W": 0.5, "52E": 0.5}.get(a.district, 0.3)
        return ev.vp[types] + 0.6 * open_neighbours + central - 0.3 * rivals

    # ------------------------------------------------------------------ auctions
    def _auction_scores(self, frame: dict[str, Any], actions: list[Action]) -> list[float]:
        ev, pos, me = self.ev, self.pos, self.ev.me
        site = frame["site"]
        own = frame["bids"].get(str(me))
        own_counts = [0, 0, 0]
        own_total = 0
        if own:
            own_counts = [a + b for a, b in zip(own["colored"], own["black"])]
            own_total = sum(v * k for v, k in zip(VALUES, own_counts))
        cache: dict[tuple[str | None, int], float] = {}
        denial = DENIAL * self._rival_loss(frame, site)
        out = []
        for a in actions:
            if isinstance(a, Pass):
                out.append(0.0)
                continue
            assert isinstance(a, Bid)
            color = own["color"] if own else a.color
            counts = [o + c + b for o, c, b in zip(own_counts, a.colored, a.black)]
            limit = min((ev.board.build_limit[v] for v, k in zip(VALUES, counts) if k), default=0)
            k = min(limit, pos.supply[me])
            key = (color, k)
            if key not in cache:
                cache[key] = self._win_gain(frame, site, color, k)
            spent = sum(CARD_WORTH[v] * (own_counts[i] + a.colored[i] + a.black[i]) for i, v in enumerate(VALUES))
            total = own_total + a.total
            # Win gain minus the cards' worth; a hair of preference for the smaller bid among equals.
            out.append(cache[key] + denial + self._money_gain(-spent) - 0.001 * total)
        return out

    def _rival_loss(self, frame: dict[str, Any], site: str) -> float:
        """How much the viewer's utility drops if the high bidder wins and builds what its cards allow."""
        ev, pos = self.ev, self.pos
        best, high = None, 0
        for key, bid in frame["bids"].items():
            total = sum(v * (a + b) for v, a, b in zip(VALUES, bid["colored"], bid["black"]))
            if total > high:
                best, high, best_bid = int(key), total, bid
        if best is None or best == ev.me or best >= ev.n:
            return 0.0
        counts = [a + b for a, b in zip(best_bid["colored"], best_bid["black"])]
        limit = min((ev.board.build_limit[v] for v, k in zip(VALUES, counts) if k), default=0)
        k = min(limit, pos.supply[best])
        if site == CENTRAL_PARK:
            gain = k * ev.cp_vp
        else:
            color = best_bid["color"]
            if color not in pos.plots[site]:
                return 0.0
            cell = pos.plots[site][color]
            gain = k * ev.vp[ev.adjacent_types(pos.plots[site], site, color)]
            if cell["owner"] != best and k:
                gain += ev.special_worth(ev.presence[best] + 1) - ev.special_worth(ev.presence[best])
        worths = list(self.base)
        worths[best] += gain
        return self.u0 - ev.utility(worths)

    def _win_gain(self, frame: dict[str, Any], site: str, color: str | None, k: int) -> float:
        """The utility gained by winning ``site`` with a bid of ``color`` and building k skyscrapers, or by
        the building stop the win brings in a full district (the cards' cost aside)."""
        ev, pos, me = self.ev, self.pos, self.ev.me
        supply = list(pos.supply)
        if site == CENTRAL_PARK:
            supply[me] -= k
            cp = list(pos.cp)
            cp[me] += k
            return self._u(cp=cp, supply=supply) - self.u0
        cells = pos.plots[site]
        best = -1e9
        own = next((c for c, cell in cells.items() if cell["owner"] == me), None)
        if frame.get("full") and own is None:
            return self._stop_value(site) - self.u0
        if frame.get("full"):
            best = self._stop_value(site) - self.u0
        if color is None or color not in cells:
            return best
        new_cells = {p: dict(c) for p, c in cells.items()}
        cell = new_cells[color]
        present = cell["owner"] == me and cell["height"] > 0
        if k:
            cell["owner"], cell["height"] = me, cell["height"] + k
        supply[me] -= k
        presence = list(ev.presence)
        if k and not present:
            presence[me] += 1
        return max(best, self._u(dist=ev.dist(site, new_cells), supply=supply, presence=presence) - self.u0)


def _pick(scores: list[float], rng: Rng) -> int:
    """The index of the best score; ties broken by the seeded generator."""
    best = max(scores)
    ties = [i for i, s in enumerate(scores) if s >= best - 1e-9]
    return ties[rng.below(len(ties))] if len(ties) > 1 else ties[0]


def _choose(pos: _Pos, actions: list[Action], rng: Rng) -> int:
    if len(actions) == 1:
        return 0
    return _pick(_Decider(pos).scores(actions), rng)


# --------------------------------------------------------------------------- the heuristic robot


def _bid_candidates(pos: _Pos, frame: dict[str, Any]) -> list[Bid]:
    """The bids worth considering: for each color the player may bid and each build limit (3, 2 or 1
    skyscrapers), the cheapest bid that beats the high bid, spending the bid color's cards before black ones.
    Built from the hand rather than read from the legal commands, which can number thousands."""
    me, board, hand = pos.me, pos.board, pos.hand
    own = frame["bids"].get(str(me))
    high = 0
    own_total = 0
    for key, bid in frame["bids"].items():
        total = sum(v * (a + b) for v, a, b in zip(VALUES, bid["colored"], bid["black"]))
        high = max(high, total)
        if int(key) == me:
            own_total = total
    need = high + 1 - own_total
    if own is not None:
        colors = [own["color"]]
    elif frame["site"] == CENTRAL_PARK:
        colors = [frame["color"]] if frame.get("color") else list(board.plot_colors)
    else:
        cells = pos.plots[frame["site"]]
        ring = board.district(frame["site"]).ring
        mine = [c for c in ring if cells[c]["owner"] == me]
        empty = [c for c in ring if not cells[c]["businesses"] and cells[c]["owner"] is None]
        colors = mine or empty or [c for c in ring if cells[c]["owner"] is None]
    black = hand[BLACK]
    out: list[Bid] = []
    for color in colors:
        colored = hand.get(color, [0, 0, 0])
        if own is None and not sum(colored):
            continue
        have = [colored[i] + black[i] for i in range(3)]
        for top in range(3):  # the highest card value allowed: 4, 5 or 6
            best: tuple[int, int, Bid] | None = None
            for a5 in range(have[1] + 1 if top >= 1 else 1):
                for a6 in range(have[2] + 1 if top >= 2 else 1):
                    a4 = max(0, -(-(need - 5 * a5 - 6 * a6) // 4))  # the fewest 4s that reach ``need``
                    if a4 > have[0] or (top == 1 and not a5) or (top == 2 and not a6):
                        continue  # a class's bids hold a card of its top value (else a lower class has them)
                    total = 4 * a4 + 5 * a5 + 6 * a6
                    if total == 0 or (best is not None and (total, a4 + a5 + a6) >= best[:2]):
                        continue
                    counts = (a4, a5, a6)
                    use_colored = tuple(min(k, colored[i]) for i, k in enumerate(counts))
                    use_black = tuple(k - c for k, c in zip(counts, use_colored))
                    if own is None and not sum(use_colored):
                        continue
                    bid = Bid(color if sum(use_colored) else None, use_colored, use_black)  # type: ignore[arg-type]
                    best = (total, a4 + a5 + a6, bid)
            if best is not None and best[2] not in out:
                out.append(best[2])
    return out


SET_LIMIT = 2000  # legal commands up to which a robot checks its candidate bids against all of them at once


def _read(view: dict[str, Any], legal: list[str]) -> tuple[_Pos, list[Action], list[str], bool]:
    """The position, the actions to consider with their commands, and whether those still need checking
    against ``legal``. In an auction only the bids worth considering are built (a big hand has tens of
    thousands of legal bids); with up to SET_LIMIT legal commands they are checked here, else the caller
    checks the one it picks (a scan of the list). Otherwise every legal command is read."""
    if not legal:
        raise ValueError("no legal command: the game is over or it is not this player's decision")
    pos = _Pos.from_view(view)
    if view.get("current_player") not in (None, pos.me):
        raise ValueError(f"it is not seat {pos.me}'s decision (seat {view.get('current_player')} acts)")
    frame = pos.frames[-1] if pos.frames else None
    if frame is not None and frame["kind"] == "auction" and len(legal) > 1:
        actions: list[Action] = [Pass(), *_bid_candidates(pos, frame)]
        texts = [str(a) for a in actions]
        if len(legal) > SET_LIMIT:
            return pos, actions, texts, True
        allowed = set(legal)
        kept = [i for i, t in enumerate(texts) if t in allowed]
        if len(kept) > 1:
            return pos, [actions[i] for i in kept], [texts[i] for i in kept], False
    return pos, [_parse(pos.board, text) for text in legal], list(legal), False


def _every_command(pos: _Pos, legal: list[str]) -> tuple[list[Action], list[str]]:
    return [_parse(pos.board, text) for text in legal], list(legal)


def heuristic(view: dict[str, Any], legal: list[str], seed: int) -> str:
    """A fast rule-of-thumb player: the legal command whose outcome the static evaluation likes best.

    ``view`` is the acting player's own view (``state.view(seat)``), ``legal`` the legal commands
    (``state.legal_commands()``); the result is one of ``legal``. Ties are broken with ``seed``.
    """
    pos, actions, texts, unchecked = _read(view, legal)
    rng = Rng(seed)
    if not unchecked:
        return texts[_choose(pos, actions, rng)]
    scores = _Decider(pos).scores(actions)
    for _ in range(len(actions)):
        i = _pick(scores, rng)
        if texts[i] in legal:
            return texts[i]
        scores[i] = -math.inf
    actions, texts = _every_command(pos, legal)
    return texts[_choose(pos, actions, rng)]


# --------------------------------------------------------------------------- determinization


def _full_counts(board: Board, colored: bool) -> list[int]:
    table = board.colored_cards if colored else board.black_cards
    return [table[v] for v in VALUES]


def determinize(view: dict[str, Any], rng: Rng) -> State:
    """A full State consistent with ``view``: the hidden information drawn at random.

    Hidden are the other players' hands (their sizes are known), the colored stacks below their top cards,
    the black stack (with its spent cards: all face down here), the unused businesses and the game's random
    generator. The cards not visible to the viewer (not in their hand, not on the table, not a stack's top
    card) are shuffled; each other player gets as many colored cards of each color as the color's count
    leaves for them, the stacks keep their sizes."""
    board = load_board(bool(view["back_side"]))
    n = view["players"]
    me = view["viewer"]
    if me is None or "hand" not in view:
        raise ValueError("determinize needs a player's own view (state.view(seat))")
    frames = [dict(f) for f in view["frames"]]
    for f in frames:
        if f["kind"] == "auction":
            f.setdefault("robot_cards", [])
            f["bids"] = {k: {"color": b["color"], "colored": list(b["colored"]), "black": list(b["black"])}
                         for k, b in f["bids"].items()}
            f["out"] = list(f["out"])
            f["order"] = list(f["order"])
        elif f["kind"] == "auctions":
            f["queue"] = list(f["queue"])
        elif f["kind"] == "placement":
            f["order"] = list(f["order"])
    # The cards on the table (bids of an open auction, the 2-player robot's drawn cards).
    table: dict[str, list[int]] = {c: [0, 0, 0] for c in (*board.plot_colors, BLACK)}
    robot = n if n == 2 else None
    for f in frames:
        if f["kind"] != "auction":
            continue
        for key, bid in f["bids"].items():
            if robot is not None and int(key) == robot:
                continue  # the robot's bid is its drawn cards, counted below
            for i in range(3):
                table[bid["color"]][i] += bid["colored"][i] if bid["color"] != BLACK else 0
                table[BLACK][i] += bid["black"][i]
        for v in f["robot_cards"]:
            table[BLACK][v - 4] += 1
    hand = view["hand"]
    others = [p for p in range(n) if p != me]
    pool: list[tuple[str, int]] = []  # the other players' cards, to deal
    stacks: dict[str, list[int]] = {}
    for color in board.plot_colors:
        info = view["colored_stacks"][color]
        unknown = []
        for i, (full, mine, on_table) in enumerate(zip(_full_counts(board, True), hand[color], table[color])):
            k = full - mine - on_table - (1 if info["top"] == VALUES[i] and info["size"] else 0)
            unknown.extend([VALUES[i]] * max(0, k))
        rng.shuffle(unknown)
        below = max(0, info["size"] - 1)
        in_hands = max(0, len(unknown) - below)
        pool.extend((color, v) for v in unknown[:in_hands])
        stacks[color] = ([info["top"]] if info["size"] else []) + unknown[in_hands:]
    black_unknown = []
    for i, (full, mine, on_table) in enumerate(zip(_full_counts(board, False), hand[BLACK], table[BLACK])):
        black_unknown.extend([VALUES[i]] * max(0, full - mine - on_table))
    rng.shuffle(black_unknown)
    black_in_hands = max(0, sum(view["hand_sizes"][p] for p in others) - len(pool))
    pool.extend((BLACK, v) for v in black_unknown[:black_in_hands])
    black_stack = black_unknown[black_in_hands:]
    rng.shuffle(pool)
    hands: list[dict[str, list[int]]] = []
    at = 0
    for p in range(n):
        if p == me:
            hands.append({c: list(hand.get(c, [0, 0, 0])) for c in (*board.plot_colors, BLACK)})
            continue
        h = {c: [0, 0, 0] for c in (*board.plot_colors, BLACK)}
        for color, v in pool[at : at + view["hand_sizes"][p]]:
            h[color][v - 4] += 1
        at += view["hand_sizes"][p]
        hands.append(h)
    # The unused businesses: whatever of the 36 is not in sight.
    seen: dict[str, int] = {}
    for cells in view["plots"].values():
        for cell in cells.values():
            for b in cell["businesses"]:
                seen[b] = seen.get(b, 0) + 1
    for b in [*(x for g in view["supply_row"] for x in g), *view["cp_businesses"], *view["boxed_businesses"]]:
        seen[b] = seen.get(b, 0) + 1
    unused = [b for b in board.business_types for _ in range(max(0, board.businesses_per_type - seen.get(b, 0)))]
    placed = sum(size - max(1, len(g)) for size, g in zip(board.supply_sets, view["supply_row"]))
    moves = max([f.get("opened", 0) for f in frames] or [0])
    return State(
        seed=rng.next_u64() & 0x7FFFFFFF,
        rng=rng.next_u64(),
        players=n,
        back_side=bool(view["back_side"]),
        scores=list(view["scores"]),
        hands=hands,
        supply=list(view["supply"]),
        general=list(view["general"]),
        central_park=list(view["central_park"]),
        boxed_skyscrapers=list(view["boxed_skyscrapers"]),
        colored_stacks=stacks,
        black_stack=black_stack,
        black_spent=[],
        supply_row=[list(g) for g in view["supply_row"]],
        cp_businesses=list(view["cp_businesses"]),
        unused_businesses=unused,
        boxed_businesses=list(view["boxed_businesses"]),
        plots={d: {p: {"businesses": list(c["businesses"]), "owner": c["owner"], "height": c["height"]}
                   for p, c in cells.items()} for d, cells in view["plots"].items()},
        stopped=list(view["stopped"]),
        commissioners=dict(view["commissioners"]),
        markers={c: list(v) for c, v in view["markers"].items()},
        frames=frames,
        businesses_placed=placed,
        moves=moves,
        result=None,
    )


# --------------------------------------------------------------------------- the searching robot


def _clone(state: State) -> State:
    """A copy of ``state`` that shares no mutable data (faster than the JSON round trip)."""
    frames = []
    for f in state.frames:
        g = dict(f)
        for key in ("order", "out", "queue", "robot_cards"):
            if key in g:
                g[key] = list(g[key])
        if "bids" in g:
            g["bids"] = {k: {"color": b["color"], "colored": list(b["colored"]), "black": list(b["black"])}
                         for k, b in g["bids"].items()}
        frames.append(g)
    return State(
        seed=state.seed, rng=state.rng, players=state.players, back_side=state.back_side,
        scores=list(state.scores), hands=[{c: list(v) for c, v in h.items()} for h in state.hands],
        supply=list(state.supply), general=list(state.general), central_park=list(state.central_park),
        boxed_skyscrapers=list(state.boxed_skyscrapers),
        colored_stacks={c: list(s) for c, s in state.colored_stacks.items()},
        black_stack=list(state.black_stack), black_spent=list(state.black_spent),
        supply_row=[list(g) for g in state.supply_row], cp_businesses=list(state.cp_businesses),
        unused_businesses=list(state.unused_businesses), boxed_businesses=list(state.boxed_businesses),
        plots={d: {p: {"businesses": list(c["businesses"]), "owner": c["owner"], "height": c["height"]}
                   for p, c in cells.items()} for d, cells in state.plots.items()},
        stopped=list(state.stopped), commissioners=dict(state.commissioners),
        markers={c: list(v) for c, v in state.markers.items()}, frames=frames,
        businesses_placed=state.businesses_placed, moves=state.moves, result=state.result,
    )


def _policy(state: State, rng: Rng) -> Action:
    """The heuristic's choice for whoever acts in ``state``, reading only their own hand."""
    player = state.current_player()
    frame = state.frames[-1]
    pos = _Pos.from_state(state, player)
    if frame["kind"] == "auction":
        actions: list[Action] = [Pass(), *_bid_candidates(pos, frame)]
    else:
        actions = state.legal_actions()
    if len(actions) == 1:
        return actions[0]
    return actions[_choose(pos, actions, rng)]


def _outcome(state: State, me: int) -> float:
    """A position's worth for ``me`` in [0, 1]: the win share of a finished game, else the static
    evaluation's utility through a logistic curve."""
    if state.result is not None:
        winners = state.result["winners"]
        return 1.0 / len(winners) if me in winners else 0.0
    ev = _Eval(_Pos.from_state(state, me))
    # Other players' hands are sampled here, so count every hand at the average card, the viewer's too.
    money = [AVG_CARD * sum(sum(v) for v in h.values()) for h in state.hands]
    return 1.0 / (1.0 + math.exp(-ev.utility(ev.worths(money=money)) / 12.0))


def _candidates(pos: _Pos, actions: list[Action], width: int) -> list[int]:
    """The heuristic's best few actions (indices), best first; of businesses that score the same (placed
    where they touch no skyscraper) only the first."""
    scores = _Decider(pos).scores(actions)
    order = sorted(range(len(actions)), key=lambda i: -scores[i])
    picked: list[int] = []
    seen: set[tuple[str, float]] = set()
    for i in order:
        a = actions[i]
        if isinstance(a, PlaceBusiness):
            key = (a.business, round(scores[i], 9))
            if key in seen:
                continue
            seen.add(key)
        picked.append(i)
        if len(picked) == width:
            break
    return picked


def strong(view: dict[str, Any], legal: list[str], seed: int, budget: int = DEFAULT_BUDGET) -> str:
    """A searching player: determinized Monte Carlo with sequential halving over the heuristic's best few
    commands.

    A simulation samples the hidden information consistently with ``view`` (:func:`determinize`), plays one
    candidate command, lets the heuristic play every seat on until the viewer has chosen their next turn's
    action (or the game ends, or PLAYOUT_CAP commands were played) and scores the position reached with the
    static evaluation (a finished game: the win share). Each round tries every remaining candidate in the
    same sampled worlds with the same playout seeds (common random numbers, so that the candidates are
    compared, not the worlds) and keeps the better half, until one is left; ``budget`` simulations in all.
    Deterministic for the same view, legal commands, seed and budget.
    """
    pos, actions, texts, unchecked = _read(view, legal)
    if len(actions) == 1:
        return texts[0]
    rng = Rng(seed)
    cands = _candidates(pos, actions, WIDTH)
    if unchecked:
        cands = [c for c in cands if texts[c] in legal]
        if not cands:
            actions, texts = _every_command(pos, legal)
            cands = _candidates(pos, actions, WIDTH)
    if len(cands) == 1:
        return texts[cands[0]]
    me = pos.me
    totals = {c: 0.0 for c in cands}
    counts = {c: 0 for c in cands}
    alive = list(cands)
    rounds = max(1, math.ceil(math.log2(len(alive))))
    worlds: list[tuple[State, int]] = []  # (sampled state, playout seed), shared by every candidate
    for r in range(rounds):
        per_candidate = max(1, budget // (rounds * len(alive)))
        while len(worlds) < sum(counts[c] for c in alive) // len(alive) + per_candidate:
            worlds.append((determinize(view, rng), rng.next_u64()))
        for c in alive:
            for world, playout_seed in worlds[counts[c]:counts[c] + per_candidate]:
                state = _clone(world)
                state.apply_action(me, actions[c])
                totals[c] += _playout(state, me, Rng(playout_seed))
                counts[c] += 1
        alive.sort(key=lambda c: -totals[c] / counts[c])  # stable: the heuristic's order breaks ties
        alive = alive[: max(1, (len(alive) + 1) // 2)] if r < rounds - 1 else alive[:1]
    return texts[alive[0]]


def _playout(state: State, me: int, rng: Rng) -> float:
    """Play on with the heuristic for every seat until the viewer has chosen the action of their next turn
    (or the game ends, or PLAYOUT_CAP commands were played), then score the position."""
    for _ in range(PLAYOUT_CAP):
        if state.result is not None:
            break
        frame = state.frames[-1]
        mine_next = frame["kind"] == "turn" and frame["player"] == me and frame["phase"] == 1
        player = state.current_player()
        try:
            state.apply_action(player, _policy(state, rng))
        except IllegalCommandError:  # a bid built from the hand that the rules refuse: never seen, but pass
            state.apply_action(player, Pass() if frame["kind"] == "auction" else state.legal_actions()[0])
        if mine_next:
            break
    return _outcome(state, me)
