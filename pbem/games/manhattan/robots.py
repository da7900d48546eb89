"""Robot players for Manhattan: a fast rule-of-thumb player and a searching one.

Pure: no I/O, no clock, no database; randomness only from the seed passed in, so the same view, legal
commands and seed always give the same command. A robot is handed what its player may see
(``state.view(seat)``, a plain dict that survives a JSON round trip) and the legal commands, never the
state: it cannot see another player's hand or the deck's order (docs/rules.md M15).

- ``heuristic(view, legal, seed)``: a one-ply player. Every legal card play is tried on a compact copy of
  the board and the position after it is valued statically (``_evaluate``): what each color would score if
  the round were scored now (1 a tower, 2 a city's majority, 3 the single tallest tower), each tower
  discounted by the chance that a player who still builds this round takes it over (a chosen part big
  enough, and a card naming the site among the cards they will hold), a city's majority as a share that
  grows with the lead in such expected towers, the tallest tower discounted by the chance that somebody
  builds as high; plus, for every round still to come, a part of what the board would score then (towers
  that no part left in the game can take over count fully, the others about half). A part kept for later
  in the round is worth a little per story. The robot takes the command that best raises its total
  (score plus those expectations) against its rivals' (half the leader's, half their average); the seed
  breaks exact ties. Parts are chosen by a rule: the biggest parts left, the fair share of each size
  otherwise, and a big part where a card in hand names a rival's tower that only a big part takes over.
- ``strong(view, legal, seed, budget)``: determinised Monte Carlo. The heuristic's best CANDIDATES
  commands are compared over ``budget`` simulations. Each simulation samples what the view hides
  consistently with it (``determinize``: the others' hands of their known sizes and the deck's order,
  drawn from the cards the viewer cannot see), plays a candidate, and plays on with a fast greedy policy
  for every player (the build that most raises the player's points if the round were scored now against
  its rivals' average; the biggest parts when choosing) to the end of the round, or of the game in its
  last round; there the position is valued by the heuristic's evaluation, plus WIN for a won game. All
  candidates are played on the same samples (common random numbers) and halved by their average value
  until one is left (sequential halving).

Why one module of this length: like the rules engine beside it, an exception the house plan allows
(docs/architecture.md): the quick player and the searching one share the same reading of a view and the same
valuation of Manhattan positions, and are tuned together against each other.
"""

from __future__ import annotations

import copy
from typing import Any

from ..rng import Rng
from .actions import Choose, Pass, Play, parse_command
from .board import SITES, absolute_site, load_board, seat_colors, seat_sides, seating
from .state import BUILD, CHOOSE, OVER, State

SIZES = 4  # part sizes 1-4 stories
_CHOOSE, _BUILD, _OVER = 0, 1, 2
_PHASES = {CHOOSE: _CHOOSE, BUILD: _BUILD, OVER: _OVER}

# The static evaluation's weights (tuned in games against each other and against random players).
ATTENTION = 0.7  # how likely a player who can take a tower this round (part and card) does it
FUTURE = 0.3  # what a later round's points are worth against this round's
UNSAFE = 0.55  # a tower somebody may still take (a part big enough left): its worth in later rounds
LEADER = 0.5  # the rival to beat: this much of the leader's total, the rest the rivals' average
RESERVE = 0.3  # a part kept for later in the round: worth this much per story
BIG = 2.0  # choosing parts: a lean towards the big ones, per story
TAKEOVER = 0.3  # choosing parts: a big part that a card in hand could take a tower with
CARD_MISS = 8 / 9  # the chance that one card does not name a given site (five copies of each of nine)


class _Game:
    """A compact, mutable copy of a Manhattan position for the robots: fast to copy, play on and value.

    Sites are numbered 0-53 (city index * 9 + site - 1, sites as seen from side 0); colors by their index
    in the seats' order (``colors``); a part size ``s`` is index ``s - 1`` of the per-color counts. Hands
    the viewer cannot see are empty until ``_deal`` fills them with a sample."""

    __slots__ = ("players", "colors", "seat_of", "seat_cols", "cities", "card_site", "owner", "height", "floors",
                 "chosen", "supply", "hands", "hand_sizes", "deck", "played", "scores", "round", "rounds", "start",
                 "phase", "turn", "choosers", "per_round", "winners", "rng")

    def copy(self) -> _Game:
        g = _Game.__new__(_Game)
        g.players, g.colors, g.seat_of, g.seat_cols = self.players, self.colors, self.seat_of, self.seat_cols
        g.cities, g.card_site = self.cities, self.card_site
        g.owner, g.height = self.owner[:], self.height[:]
        g.floors = [f[:] for f in self.floors]
        g.chosen = [c[:] for c in self.chosen]
        g.supply = [c[:] for c in self.supply]
        g.hands = [h[:] for h in self.hands]
        g.hand_sizes = self.hand_sizes[:]
        g.deck = self.deck[:]
        g.played = [p[:] for p in self.played]
        g.scores = self.scores[:]
        g.round, g.rounds, g.start, g.phase, g.turn = self.round, self.rounds, self.start, self.phase, self.turn
        g.choosers = self.choosers[:]
        g.per_round, g.winners, g.rng = self.per_round, self.winners, Rng(self.rng.state)
        return g

    # ------------------------------------------------------------------ rules (as pbem.games.manhattan.rules)
    def builds(self, seat: int) -> list[tuple[int, int, int, int]]:
        """The legal card plays of ``seat`` as (card, site, color, size); if none, its passes as (card, -1, ...)."""
        own = self.seat_cols[seat]
        mine = [(c, [s for s in range(SIZES) if self.chosen[c][s]]) for c in own]
        mine = [(c, sizes) for c, sizes in mine if sizes]
        moves = []
        owner, floors, card_site = self.owner, self.floors, self.card_site[seat]
        last = -1
        for card in self.hands[seat]:
            if card == last:
                continue
            last = card
            base = card_site[card]
            for site in range(base, len(owner), SITES):
                o = owner[site]
                if o < 0 or o in own:
                    for c, sizes in mine:
                        for s in sizes:
                            moves.append((card, site, c, s + 1))
                else:
                    f = floors[site]
                    need = f[o]
                    for c, sizes in mine:
                        lack = need - f[c]
                        for s in sizes:
                            if s + 1 >= lack:
                                moves.append((card, site, c, s + 1))
        if moves:
            return moves
        last = -1
        for card in self.hands[seat]:
            if card == last:
                continue
            last = card
            for c, sizes in mine:
                for s in sizes:
                    moves.append((card, -1, c, s + 1))
        return moves

    def build(self, move: tuple[int, int, int, int]) -> None:
        """Play a card: build (site >= 0) or pass (site -1), draw, the next builder, and whatever follows."""
        card, site, c, size = move
        seat = self.turn
        self.hands[seat].remove(card)
        self.played[seat].append(card)
        self.chosen[c][size - 1] -= 1
        if site >= 0:
            self.owner[site] = c
            self.height[site] += size
            self.floors[site][c] += size
        if not self.deck:
            cards = [x for pile in self.played for x in pile]
            self.rng.shuffle(cards)
            self.deck = cards
            self.played = [[] for _ in range(self.players)]
        drawn = self.deck.pop()
        hand = self.hands[seat]
        hand.append(drawn)
        hand.sort()
        for step in range(1, self.players + 1):
            nxt = (seat + step) % self.players
            if any(sum(self.chosen[x]) for x in self.seat_cols[nxt]):
                self.turn = nxt
                break
        self.advance()

    def to_choose(self) -> list[int]:
        """The colors the chooser still chooses for this round."""
        return [c for c in self.seat_cols[self.turn] if not sum(self.chosen[c])]

    def asked(self, c: int) -> int:
        return min(self.per_round, sum(self.supply[c]))

    def choose(self, c: int, counts: list[int]) -> None:
        for s in range(SIZES):
            self.supply[c][s] -= counts[s]
            self.chosen[c][s] += counts[s]
        self.choosers.pop(0)
        self.advance()

    def advance(self) -> None:
        """The automatic steps: forced choices (M8), the round's scoring, the next round, the end."""
        while self.phase != _OVER:
            if self.phase == _CHOOSE:
                if not self.choosers:
                    self.phase = _BUILD
                    self.turn = self.start
                    return
                self.turn = self.choosers[0]
                forced = None
                for c in self.to_choose():
                    supply = self.supply[c]
                    if sum(supply) <= self.per_round or sum(1 for n in supply if n) <= 1:
                        forced = c
                        break
                if forced is None:
                    return
                k = self.asked(forced)
                left = self.supply[forced]
                counts = [0] * SIZES
                for s in range(SIZES):  # one option only: everything, or k of the one size left
                    counts[s] = min(left[s], k - sum(counts))
                self.choose(forced, counts)
                return
            if any(sum(x) for x in self.chosen):
                return
            points = self.points()
            for c, p in enumerate(points):
                self.scores[self.seat_of[c]] += p
            if self.round >= self.rounds:
                self.phase = _OVER
                self.winners = self.result()
                return
            self.round += 1
            self.start = (self.start + 1) % self.players
            self.phase = _CHOOSE
            self.choosers = [(self.start + i) % self.players for i in range(self.players)
                             for _ in self.seat_cols[(self.start + i) % self.players]]
            self.turn = self.start

    def points(self) -> list[int]:
        """What each color scores if the round is scored now (M12)."""
        n = len(self.colors)
        pts = [0] * n
        best, tallest = 0, -1
        for k in range(len(self.cities)):
            count = [0] * n
            for site in range(k * SITES, k * SITES + SITES):
                o = self.owner[site]
                if o < 0:
                    continue
                count[o] += 1
                h = self.height[site]
                if h > best:
                    best, tallest = h, o
                elif h == best:
                    tallest = -1
            top = max(count)
            if top and count.count(top) == 1:
                pts[count.index(top)] += 2
            for c in range(n):
                pts[c] += count[c]
        if tallest >= 0:
            pts[tallest] += 3
        return pts

    def result(self) -> list[int]:
        """The winners (M13): most points, then most towers, then the tallest tower."""
        towers = [0] * self.players
        tallest = [0] * self.players
        for site, o in enumerate(self.owner):
            if o >= 0:
                p = self.seat_of[o]
                towers[p] += 1
                tallest[p] = max(tallest[p], self.height[site])
        key = [(self.scores[p], towers[p], tallest[p]) for p in range(self.players)]
        best = max(key)
        return [p for p in range(self.players) if key[p] == best]


def _game(view: dict[str, Any]) -> _Game:
    """The position a view shows; hands the viewer cannot see are left empty, the deck too."""
    g = _Game.__new__(_Game)
    players = view["players"]
    cols = seat_colors(players)
    g.players = players
    g.colors = [c for seat in cols for c in seat]
    index = {c: i for i, c in enumerate(g.colors)}
    g.seat_of = [p for p, seat in enumerate(cols) for _ in seat]
    g.seat_cols = [tuple(index[c] for c in seat) for seat in cols]
    g.cities = list(view["cities"])
    sides = seat_sides(players)
    g.card_site = [[0] + [absolute_site(sides[p], card) - 1 for card in range(1, SITES + 1)] for p in range(players)]
    n = len(g.colors)
    g.owner, g.height, g.floors = [], [], []
    for code in g.cities:
        for cell in view["cities"][code]["sites"]:
            floors = [0] * n
            for color, size in cell["parts"]:
                floors[index[color]] += size
            g.owner.append(index[cell["owner"]] if cell["owner"] else -1)
            g.height.append(cell["height"])
            g.floors.append(floors)
    g.chosen = [list(view["chosen"][c]) for c in g.colors]
    g.supply = [list(view["supply"][c]) for c in g.colors]
    viewer = view.get("viewer")
    g.hand_sizes = list(view["hand_sizes"])
    g.hands = [sorted(view["hand"]) if p == viewer and "hand" in view else [] for p in range(players)]
    g.deck = []
    g.played = [list(pile) for pile in view["played"]]
    g.scores = list(view["scores"])
    g.round, g.rounds, g.start = view["round"], view["rounds"], view["start_player"]
    g.phase = _PHASES[view["phase"]]
    g.turn = view["current_player"]
    g.choosers = list(view["choosers"])
    g.per_round = seating(players).parts_per_round
    g.winners = list(view["result"]["winners"]) if view.get("result") else None
    g.rng = Rng(0)
    return g


# =========================================================================== hidden information


def _unseen(view: dict[str, Any]) -> list[int]:
    """The cards the viewer cannot see (the others' hands and the deck), in ascending order."""
    board = load_board()
    left = {card: board.cards_per_site for card in range(1, SITES + 1)}
    for card in view.get("hand", []):
        left[card] -= 1
    for pile in view["played"]:
        for card in pile:
            left[card] -= 1
    return [card for card in range(1, SITES + 1) for _ in range(left[card])]


def _sample(view: dict[str, Any], rng: Rng, unseen: list[int] | None = None) -> tuple[list[list[int]], list[int]]:
    """Every hand and the deck (top card first), the hidden ones drawn at random from the unseen cards."""
    cards = list(unseen) if unseen is not None else _unseen(view)
    rng.shuffle(cards)
    viewer = view.get("viewer")
    hands = []
    for p, size in enumerate(view["hand_sizes"]):
        if p == viewer and "hand" in view:
            hands.append(sorted(view["hand"]))
        else:
            hands.append(sorted(cards[:size]))
            del cards[:size]
    return hands, cards


def determinize(view: dict[str, Any], rng: Rng) -> State:
    """A full state consistent with ``view``: what it shows, and for what it hides (the other players' hands
    of their known sizes, the deck's order, the generator's state) a sample drawn with ``rng``. The state's
    ``view`` for the viewer is ``view`` again."""
    hands, deck = _sample(view, rng)
    cities = {code: [[list(part) for part in cell["parts"]] for cell in city["sites"]]
              for code, city in view["cities"].items()}
    return State(
        seed=0,
        rng=rng.next_u64(),
        players=view["players"],
        round=view["round"],
        start=view["start_player"],
        phase=view["phase"],
        turn=view["current_player"],
        choosers=list(view["choosers"]),
        hands=hands,
        deck=deck,
        played=[list(pile) for pile in view["played"]],
        supply={c: list(v) for c, v in view["supply"].items()},
        chosen={c: list(v) for c, v in view["chosen"].items()},
        boxed={c: list(v) for c, v in view["boxed"].items()},
        cities=cities,
        scores=list(view["scores"]),
        color_scores=dict(view["color_scores"]),
        history=copy.deepcopy(view["history"]),
        result=copy.deepcopy(view["result"]),
    )


def _deal(g: _Game, view: dict[str, Any], unseen: list[int], rng: Rng) -> _Game:
    """A copy of ``g`` with the hidden cards sampled (as ``determinize``); the deck is drawn from its end."""
    g = g.copy()
    hands, deck = _sample(view, rng, unseen)
    g.hands = hands
    deck.reverse()
    g.deck = deck
    g.rng = Rng(rng.next_u64())
    return g


# =========================================================================== the static evaluation


class _Context:
    """What the evaluation of a position needs besides its board: per color the biggest part still to place
    this round (``now``) and the biggest it will ever have (``ever``); per seat the chance that it builds on a
    given site before the round ends (``chance``); the scorings after this round's (``later``)."""

    __slots__ = ("now", "ever", "chance", "building", "later")

    def __init__(self, g: _Game) -> None:
        n = len(g.colors)
        self.building = g.phase == _BUILD
        self.later = g.rounds - g.round + (0 if self.building else 1)
        self.now = [0] * n
        self.ever = [0] * n
        for c in range(n):
            chosen, supply = g.chosen[c], g.supply[c]
            for s in range(SIZES - 1, -1, -1):
                if chosen[s]:
                    self.now[c] = s + 1
                    break
            for s in range(SIZES - 1, -1, -1):
                if chosen[s] or supply[s]:
                    self.ever[c] = s + 1
                    break
        self.chance = [0.0] * g.players
        if self.building:
            for p in range(g.players):
                turns = sum(sum(g.chosen[c]) for c in g.seat_cols[p])
                if turns:
                    self.chance[p] = ATTENTION * (1.0 - CARD_MISS ** (g.hand_sizes[p] + turns - 1))


def _city(g: _Game, k: int, ctx: _Context) -> tuple[list[float], list[float], list[int], int, int, float]:
    """One city's share of the evaluation: per color its expected points this round (towers that may be taken
    discounted, the majority as a share growing with the lead) and its points in a later round (towers that
    may still be taken worth UNSAFE); per color the tallest tower it may build this round; the city's
    tallest tower (height, owner or -1 on a tie, the chance that its owner keeps it)."""
    n = len(g.colors)
    seat_of, now, ever, chance = g.seat_of, ctx.now, ctx.ever, ctx.chance
    owner, height, floors = g.owner, g.height, g.floors
    expect = [0.0] * n
    safe = [0.0] * n
    reach = list(now)
    best, tallest, tallest_keep = 0, -1, 0.0
    for site in range(k * SITES, k * SITES + SITES):
        o = owner[site]
        if o < 0:
            continue
        h = height[site]
        f = floors[site]
        fo = f[o]
        so = seat_of[o]
        keep = 1.0
        secure = 1.0
        for x in range(n):
            nx = now[x]
            if seat_of[x] == so:
                if nx and h + nx > reach[x]:
                    reach[x] = h + nx
                continue
            need = fo - f[x]
            if nx and nx >= need:
                keep *= 1.0 - chance[seat_of[x]]
                if h + nx > reach[x]:
                    reach[x] = h + nx
            if ever[x] >= need:
                secure = UNSAFE
        expect[o] += keep
        safe[o] += secure
        if h > best:
            best, tallest, tallest_keep = h, o, keep
        elif h == best:
            tallest = -1
    round_pts = [0.0] * n
    future = [0.0] * n
    _majority(expect, round_pts)
    _majority(safe, future)
    return round_pts, future, reach, best, tallest, tallest_keep


def _merge(cities: list[tuple]) -> tuple:
    """Several cities' shares (``_city``) as one: points added, reaches and the tallest tower over all."""
    n = len(cities[0][0])
    round_pts = [0.0] * n
    future = [0.0] * n
    reach = [0] * n
    best, tallest, tallest_keep = 0, -1, 0.0
    for pts, fut, rch, b, t, keep in cities:
        for c in range(n):
            round_pts[c] += pts[c]
            future[c] += fut[c]
            if rch[c] > reach[c]:
                reach[c] = rch[c]
        if b > best:
            best, tallest, tallest_keep = b, t, keep
        elif b == best:
            tallest = -1
    return round_pts, future, reach, best, tallest, tallest_keep


def _combine(g: _Game, me: int, ctx: _Context, cities: list[tuple]) -> float:
    """The evaluation from its cities' shares: each seat's total is its score plus, while a round is built,
    what its colors are expected to score at the round's end (the tallest tower's 3 points discounted by the
    chance that somebody else builds as high), plus FUTURE times what the board promises for each later
    round; the seat's margin over its rivals (``_margin``)."""
    n = len(g.colors)
    seat_of = g.seat_of
    round_pts, future, reach, best, tallest, tallest_keep = _merge(cities)
    if tallest >= 0:
        keep = tallest_keep
        st = seat_of[tallest]
        for x in range(n):
            if seat_of[x] != st and reach[x] >= best:
                keep *= 1.0 - ctx.chance[seat_of[x]]
        round_pts[tallest] += 3.0 * keep
        future[tallest] += 1.0
    totals = [float(s) for s in g.scores]
    weight = FUTURE * ctx.later
    building = ctx.building
    for c in range(n):
        totals[seat_of[c]] += (round_pts[c] if building else 0.0) + weight * future[c]
    return _margin(totals, me)


def _evaluate(g: _Game, me: int) -> float:
    """How good the position is for seat ``me``: its expected total against its rivals' (``_combine``); at the
    game's end its final score's margin."""
    if g.phase == _OVER:
        return _margin([float(s) for s in g.scores], me)
    ctx = _Context(g)
    return _combine(g, me, ctx, [_city(g, k, ctx) for k in range(len(g.cities))])


def _majority(towers: list[float], points: list[float]) -> None:
    """Each color's towers, and a share of the city's 2 points for the majority that grows with its lead:
    all of it a tower ahead, half of it level, none a tower behind."""
    n = len(towers)
    for c in range(n):
        t = towers[c]
        if not t:
            continue
        rival = 0.0
        for x in range(n):
            if x != c and towers[x] > rival:
                rival = towers[x]
        lead = t - rival
        points[c] += t + (2.0 if lead >= 1.0 else (1.0 + lead if lead > -1.0 else 0.0))


def _margin(totals: list[float], me: int) -> float:
    """Seat ``me``'s total against its rivals': LEADER of the best rival's, the rest their average."""
    rivals = [t for p, t in enumerate(totals) if p != me]
    return totals[me] - LEADER * max(rivals) - (1.0 - LEADER) * sum(rivals) / len(rivals)


# =========================================================================== choosing parts


def _choice_score(g: _Game, me: int, c: int, counts: list[int]) -> float:
    """A choice of parts: the big ones first (BIG a story outweighs the rest), near the round's fair share of
    each size otherwise, and a big part where a card in hand names a rival's tower that it can take over."""
    supply = g.supply[c]
    total = sum(supply)
    k = sum(counts)
    score = 0.0
    for s in range(SIZES):
        fair = supply[s] * k / total
        score -= (counts[s] - fair) ** 2
        score += BIG * (s + 1) * counts[s]
    # takeovers my cards allow: for each tower another seat owns on a site my cards name, the part it needs
    wanted = [0] * SIZES
    for card in sorted(set(g.hands[me])):
        for site in range(g.card_site[me][card], len(g.owner), SITES):
            o = g.owner[site]
            if o < 0 or g.seat_of[o] == me:
                continue
            need = g.floors[site][o] - g.floors[site][c]
            if 1 <= need <= SIZES:
                wanted[need - 1] += 1
    have = 0
    for s in range(SIZES - 1, -1, -1):
        have += counts[s]
        if have and wanted[s]:
            score += TAKEOVER * min(wanted[s], have)
    return score


def _counts(sizes: tuple[int, ...]) -> list[int]:
    return [sizes.count(s) for s in range(1, SIZES + 1)]


# =========================================================================== commands


def _moves(g: _Game, legal: list[str]) -> list[tuple[str, tuple]]:
    """The legal commands with their moves: ("choose", color, counts) or a build (card, site, color, size)."""
    board = load_board()
    seat = g.turn
    index = {c: i for i, c in enumerate(g.colors)}
    city = {code: k for k, code in enumerate(g.cities)}
    moves = []
    for text in legal:
        action = parse_command(board, text)
        color = index[action.color] if action.color else g.seat_cols[seat][0]
        if isinstance(action, Choose):
            moves.append((text, ("choose", color, _counts(action.sizes))))
        elif isinstance(action, Play):
            site = city[action.city] * SITES + g.card_site[seat][action.card]
            moves.append((text, (action.card, site, color, action.size)))
        elif isinstance(action, Pass):
            moves.append((text, (action.card, -1, color, action.size)))
    return moves


def _build_values(g: _Game, me: int, moves: list[tuple[int, int, int, int]]) -> list[float]:
    """The static value after each build or pass, each tried on ``g`` and taken back (the card drawn is not
    known: the hand keeps its size). Moves with the same part share the cities they leave alone."""
    values = [0.0] * len(moves)
    groups: dict[tuple[int, int], list[int]] = {}
    for i, (_, _, c, size) in enumerate(moves):
        groups.setdefault((c, size), []).append(i)
    ncities = len(g.cities)
    for (c, size), members in groups.items():
        g.chosen[c][size - 1] -= 1
        ctx = _Context(g)
        cities = [_city(g, k, ctx) for k in range(ncities)]
        others = [_merge(cities[:k] + cities[k + 1:]) for k in range(ncities)]  # every city but k
        for i in members:
            site = moves[i][1]
            if site < 0:
                values[i] = _combine(g, me, ctx, cities) - 0.01 * size
                continue
            k = site // SITES
            floors = g.floors[site]
            o, h, f = g.owner[site], g.height[site], floors[c]
            g.owner[site], g.height[site], floors[c] = c, h + size, f + size
            values[i] = _combine(g, me, ctx, [others[k], _city(g, k, ctx)]) - RESERVE * size
            g.owner[site], g.height[site], floors[c] = o, h, f
        g.chosen[c][size - 1] += 1
    return values


def _ranked(g: _Game, me: int, moves: list[tuple[str, tuple]]) -> list[tuple[float, int]]:
    """(value, index) of every move, best first; ties keep the order of ``moves``."""
    if moves[0][1][0] == "choose":
        values = [_choice_score(g, me, move[1], move[2]) for _, move in moves]
    else:
        values = _build_values(g, me, [move for _, move in moves])
    ranked = sorted(zip(values, range(len(moves))), key=lambda vi: (-vi[0], vi[1]))
    return ranked


def _pick(ranked: list[tuple[float, int]], rng: Rng) -> int:
    """The best move; among moves within a hair of the best, one at random."""
    top = ranked[0][0]
    near = [i for v, i in ranked if v >= top - 1e-9]
    return near[rng.below(len(near))]


def _check(view: dict[str, Any], legal: list[str]) -> None:
    if not legal:
        raise ValueError("no legal command to choose from")
    if view.get("viewer") != view.get("current_player") or "hand" not in view:
        raise ValueError("a robot decides for the player who must act, from that player's own view")


def heuristic(view: dict[str, Any], legal: list[str], seed: int) -> str:
    """The rule-of-thumb robot's command: one of ``legal``, for the player whose view this is."""
    _check(view, legal)
    if len(legal) == 1:
        return legal[0]
    g = _game(view)
    moves = _moves(g, legal)
    return moves[_pick(_ranked(g, g.turn, moves), Rng(seed))][0]


# =========================================================================== the searching robot


DEFAULT_BUDGET = 450  # simulations per decision: under 2 s of CPU on this project's slow 2-CPU machine (bench/robots_strong.py)
CANDIDATES = 8  # the heuristic's best commands that the search compares
WIN = 10.0  # a won game's worth in points, for the searching robot (a shared win: its share)


def _greedy(g: _Game, rng: Rng) -> None:
    """Play one decision of the fast playout policy (``_greedy_move``)."""
    move = _greedy_move(g, rng)
    if move[0] == "choose":
        g.choose(move[1], move[2])
    else:
        g.build(move)


def _greedy_move(g: _Game, rng: Rng) -> tuple:
    """One decision of the fast playout policy for whoever acts in ``g``: the build that most raises the
    player's points if the round were scored now against its rivals' average (smaller parts first, then at
    random, on a tie); when choosing, the biggest parts left (as the heuristic robot mostly does)."""
    seat = g.turn
    if g.phase == _CHOOSE:
        c = g.to_choose()[0]
        supply = g.supply[c]
        counts = [0] * SIZES
        left = g.asked(c)
        for s in range(SIZES - 1, -1, -1):
            counts[s] = min(supply[s], left)
            left -= counts[s]
        return ("choose", c, counts)
    moves = g.builds(seat)
    if moves[0][1] < 0:
        return min(moves, key=lambda m: (m[3], m[0]))
    n = len(g.colors)
    owner, height = g.owner, g.height
    # the board's scoring now: towers per city and color, each city's majority, the tallest tower
    counts = []
    leader = []
    best, at_best, tallest = 0, 0, -1
    for k in range(len(g.cities)):
        count = [0] * n
        for site in range(k * SITES, k * SITES + SITES):
            o = owner[site]
            if o >= 0:
                count[o] += 1
                h = height[site]
                if h > best:
                    best, at_best, tallest = h, 1, o
                elif h == best:
                    at_best += 1
        counts.append(count)
        top = max(count)
        leader.append(count.index(top) if top and count.count(top) == 1 else -1)
    if at_best > 1:
        tallest = -1
    mine = [1.0 if g.seat_of[x] == seat else -1.0 / (g.players - 1) for x in range(n)]
    top_key, choice = None, moves[0]
    noise = rng.next_u64()
    for i, move in enumerate(moves):
        _, site, c, size = move
        o = owner[site]
        gain = -0.1 * size
        if o != c:
            gain += mine[c] - (mine[o] if o >= 0 else 0.0)
            k = site // SITES
            count = counts[k]
            count[c] += 1
            if o >= 0:
                count[o] -= 1
            top = max(count)
            now = count.index(top) if count.count(top) == 1 else -1
            count[c] -= 1
            if o >= 0:
                count[o] += 1
            was = leader[k]
            if now != was:
                gain += 2.0 * ((mine[now] if now >= 0 else 0.0) - (mine[was] if was >= 0 else 0.0))
        h = height[site] + size
        if h > best:
            after = c
        elif h == best:
            after = -1
        else:
            after = tallest
        if after != tallest:
            gain += 3.0 * ((mine[after] if after >= 0 else 0.0) - (mine[tallest] if tallest >= 0 else 0.0))
        key = (gain, ((i + noise) * 0x9E3779B97F4A7C15 >> 32) & 0xFFFFFFFF)
        if top_key is None or key > top_key:
            top_key, choice = key, move
    return choice


def _playout(g: _Game, rng: Rng) -> None:
    """Play on with the greedy policy to the end of the round being built (the game's end in its last)."""
    rounds = g.round
    while g.phase != _OVER and not (g.round > rounds):
        _greedy(g, rng)


def _reward(g: _Game, me: int) -> float:
    """A playout's outcome for seat ``me``: the evaluation, and at the game's end WIN more for a win."""
    value = _evaluate(g, me)
    if g.winners is not None and me in g.winners:
        value += WIN / len(g.winners)
    return value


def _apply(g: _Game, move: tuple) -> None:
    if move[0] == "choose":
        g.choose(move[1], list(move[2]))
    else:
        g.build(move)


def strong(view: dict[str, Any], legal: list[str], seed: int, budget: int = DEFAULT_BUDGET) -> str:
    """The searching robot's command: one of ``legal``, for the player whose view this is."""
    _check(view, legal)
    if len(legal) == 1:
        return legal[0]
    g = _game(view)
    me = g.turn
    moves = _moves(g, legal)
    ranked = _ranked(g, me, moves)
    rng = Rng(seed)
    alive = [i for _, i in ranked[:CANDIDATES]]
    if len(alive) == 1 or budget <= 0:
        return moves[alive[0]][0]
    unseen = _unseen(view)
    place = {i: p for p, (_, i) in enumerate(ranked)}
    totals = {i: 0.0 for i in alive}
    visits = {i: 0 for i in alive}
    stages = max(1, (len(alive) - 1).bit_length())
    for stage in range(stages):
        per = max(1, budget // (stages * len(alive)))
        for _ in range(per):
            sample = _deal(g, view, unseen, rng)
            policy = rng.next_u64()
            for i in alive:
                sim = sample.copy()
                _apply(sim, moves[i][1])
                _playout(sim, Rng(policy))
                totals[i] += _reward(sim, me)
                visits[i] += 1
        alive.sort(key=lambda i: (-totals[i] / visits[i], place[i]))
        if stage < stages - 1:
            alive = alive[: max(1, (len(alive) + 1) // 2)]
    return moves[alive[0]][0]


__all__ = ["DEFAULT_BUDGET", "determinize", "heuristic", "strong"]
