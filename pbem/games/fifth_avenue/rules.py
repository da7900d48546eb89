"""The rules of Fifth Avenue: setup, legality, and applying a command.

Pure functions over :class:`~.state.State`: no I/O, no clock; randomness only
from the state's own seeded RNG. Every rule cites its source in
``docs/rules.md``; decisions where the texts are silent are recorded there.

Flow: ``apply_action`` checks a command completely before it changes anything,
applies it, then ``_advance`` resolves every step that needs no decision
(drawing cards for action D, the robot's bid, the end of an auction, a build
with a single choice, the next turn) until somebody must decide again.

Why one module of this length: the rules engine is the exception the house plan allows (docs/architecture.md):
every rule of Fifth Avenue reads and changes the same state, and a turn is followed best by reading its rules in one
place, in the order the rulebook gives them.
"""

from __future__ import annotations

from typing import Any

from ..base import Event, make_event as _event
from ..errors import (
    AmbiguousCommandError,
    GameOverError,
    IllegalCommandError,
    NotYourTurnError,
)
from ..rng import Rng
from .actions import (
    Action,
    BlackCardAndMove,
    Bid,
    Build,
    BuildOrder,
    CancelStandingBid,
    PassRest,
    SetMails,
    Counts,
    Move,
    PartialMove,
    Pass,
    Place,
    PlaceBusiness,
    ScoreDistrict,
    StandingBid,
    Stop,
    TakeCards,
    TakeSkyscrapers,
    parse_command,
)
from .board import BLACK, CENTRAL_PARK, CITY_HALL, VALUES, Board, load_board
from .orders import Holding, least_raise, most_reachable
from .state import State


# =========================================================================== setup


def new_game(players: int, seed: int, back_side: bool = False) -> State:
    """Set up a game: businesses, cards and supplies dealt from ``seed``."""
    if players not in (2, 3, 4):
        raise ValueError("Fifth Avenue is for 2, 3 or 4 players")
    board = load_board(back_side)
    rng = Rng(seed)
    owners = players + (1 if players == 2 else 0)

    businesses = [b for b in board.business_types for _ in range(board.businesses_per_type)]
    rng.shuffle(businesses)
    plots = {
        d.code: {p: {"businesses": [], "owner": None, "height": 0} for p in board.plots(d.code)} for d in board.districts
    }
    _place_initial_businesses(board, rng, plots, businesses)
    supply_row = []
    for size in board.supply_sets:
        supply_row.append(businesses[:size])
        del businesses[:size]

    colored_stacks: dict[str, list[int]] = {}
    hands: list[dict[str, list[int]]] = [{c: [0, 0, 0] for c in (*board.plot_colors, BLACK)} for _ in range(players)]
    for color in board.plot_colors:
        stack = [v for v in VALUES for _ in range(board.colored_cards[v])]
        rng.shuffle(stack)
        for p in range(players):
            hands[p][color][stack.pop(0) - 4] += 1
        colored_stacks[color] = stack
    black = [v for v in VALUES for _ in range(board.black_cards[v])]
    rng.shuffle(black)
    for p in range(players):
        for _ in range(board.start_black):
            hands[p][BLACK][black.pop(0) - 4] += 1

    per_color = board.skyscrapers_per_color
    general = [per_color - board.start_marker - board.start_supply for _ in range(players)]
    if owners > players:
        general.append(per_color)  # the robot's color: all in the general supply
    first_round = [0] + list(range(players - 1, 0, -1))  # start player, then counter-clockwise
    state = State(
        seed=seed,
        rng=rng.state,
        players=players,
        back_side=back_side,
        scores=[0] * players,
        hands=hands,
        supply=[board.start_supply] * players,
        general=general,
        central_park=[0] * players,
        boxed_skyscrapers=[0] * owners,
        colored_stacks=colored_stacks,
        black_stack=black,
        black_spent=[],
        supply_row=supply_row,
        cp_businesses=[],
        unused_businesses=businesses,
        boxed_businesses=[],
        plots=plots,
        stopped=[],
        commissioners={c: CITY_HALL for c in board.commissioners},
        markers={c: [] for c in board.commissioners},
        frames=[{"kind": "placement", "order": first_round + first_round[::-1], "index": 0}],
    )
    return state


def _place_initial_businesses(board: Board, rng: Rng, plots: dict, businesses: list[str]) -> None:
    """One business per district, at random, every color used once or twice (front side)."""
    if board.sixth_plot:
        for d in board.districts:
            plots[d.code][board.sixth_plot]["businesses"].append(businesses.pop(0))
        return
    used = {c: 0 for c in board.plot_colors}
    for i, d in enumerate(board.districts):
        remaining_after = len(board.districts) - i - 1
        options = []
        for color in board.plot_colors:
            if used[color] >= 2:
                continue
            unused_after = sum(1 for c, n in used.items() if n == 0 and c != color)
            if unused_after <= remaining_after:
                options.append(color)
        color = rng.choice(options)
        used[color] += 1
        plots[d.code][color]["businesses"].append(businesses.pop(0))


# =========================================================================== queries


def current_player(state: State) -> int:
    return state.current_player()


def _top(state: State) -> dict[str, Any]:
    return state.frames[-1]


def owner_plot(state: State, district: str, owner: int) -> str | None:
    for plot, cell in state.plots[district].items():
        if cell["owner"] == owner:
            return plot
    return None


def is_empty(cell: dict[str, Any]) -> bool:
    return not cell["businesses"] and cell["owner"] is None


def district_full(state: State, district: str) -> bool:
    """Every plot that can carry skyscrapers has skyscrapers or businesses."""
    board = state.board
    return all(not is_empty(state.plots[district][c]) for c in board.district(district).ring)


def adjacent_types(state: State, district: str, plot: str) -> int:
    types: set[str] = set()
    cells = state.plots[district]
    for other in state.board.adjacent_plots(district, plot):
        types.update(cells[other]["businesses"])
    return len(types)


def district_points(state: State, district: str) -> list[int]:
    """Points each player would score if ``district`` were scored now (action D)."""
    board = state.board
    points = [0] * state.players
    for plot, cell in state.plots[district].items():
        owner = cell["owner"]
        if owner is not None and owner < state.players and cell["height"]:
            points[owner] += board.district_vp[adjacent_types(state, district, plot)] * cell["height"]
    return points


def skyscrapers_in(state: State, district: str) -> int:
    return sum(cell["height"] for cell in state.plots[district].values())


def destinations(state: State, commissioner: str) -> list[str]:
    """Where a commissioner may move: the next places, skipping stopped districts."""
    here = state.commissioners[commissioner]
    if here == CENTRAL_PARK:
        return [CITY_HALL]
    graph = state.board.graph
    result: list[str] = []
    pending = list(graph[here])
    while pending:
        place = pending.pop(0)
        if place in state.stopped:
            pending.extend(n for n in graph[place] if n not in pending)
        elif place not in result:
            result.append(place)
    return result


def scorable_districts(state: State) -> list[str]:
    board = state.board
    found = []
    for commissioner in board.commissioners:
        where = state.commissioners[commissioner]
        if where not in (CITY_HALL, CENTRAL_PARK) and where not in state.stopped and where not in found:
            found.append(where)
    return [d for d in board.district_codes if d in found]


def current_set(state: State) -> int | None:
    for i, group in enumerate(state.supply_row):
        if group:
            return i
    return None


def business_targets(state: State) -> list[tuple[str, str]]:
    """(district, plot) pairs where a business may be placed."""
    targets = []
    for district in state.board.district_codes:
        if district in state.stopped:
            continue
        for plot, cell in state.plots[district].items():
            if cell["owner"] is None and len(cell["businesses"]) < 2:
                targets.append((district, plot))
    return targets


def allowed_bid_colors(state: State, frame: dict[str, Any], player: int) -> tuple[list[str], str]:
    """The colors ``player`` may open a bid with in this auction, and why."""
    board = state.board
    site = frame["site"]
    if site == CENTRAL_PARK:
        if frame["color"] is not None:
            return [frame["color"]], f"the first bid in Central Park was {frame['color']}, so every bid is {frame['color']}"
        return list(board.plot_colors), "the first bid in Central Park sets the color for everybody"
    name = board.name(site)
    cells = state.plots[site]
    ring = board.district(site).ring
    own = owner_plot(state, site, player)
    if own is not None:
        colors, why = [own], f"you already have skyscrapers on the {own} plot of {name}, so you bid {own}"
    else:
        empty = [c for c in ring if is_empty(cells[c])]
        if empty:
            colors = empty
            why = f"you have no skyscrapers in {name}, so you bid the color of an empty plot: {', '.join(empty)}"
        else:
            colors = [c for c in ring if cells[c]["owner"] is None]
            why = (
                f"{name} has no empty plot and you have no skyscrapers there, so you bid for a building stop "
                f"with the color of a plot with businesses: {', '.join(colors) or 'none'}"
            )
    return colors, why


def build_limit(board: Board, colored: Counts, black: Counts) -> int:
    values = [v for v, a, b in zip(VALUES, colored, black) if a + b]
    return min(board.build_limit[v] for v in values) if values else 0


def _bid_total(bid: dict[str, Any] | None) -> int:
    if bid is None:
        return 0
    return sum(v * (a + b) for v, a, b in zip(VALUES, bid["colored"], bid["black"]))


def high_bid(frame: dict[str, Any]) -> tuple[int | None, int]:
    best, best_total = None, 0
    for key, bid in frame["bids"].items():
        total = _bid_total(bid)
        if total > best_total:
            best, best_total = int(key), total
    return best, best_total


# =========================================================================== legal actions


def legal_actions(state: State) -> list[Action]:
    if state.result is not None:
        return []
    frame = _top(state)
    player = current_player(state)
    kind = frame["kind"]
    if kind == "placement":
        return [Place(d, c) for d, c in _placement_plots(state, player)]
    if kind == "turn":
        return _turn_actions(state, frame, player)
    if kind == "auction":
        return [Pass(), *_legal_bids(state, frame, player)]
    if kind == "build":
        return _build_options(state, frame)
    raise AssertionError(kind)


def _placement_plots(state: State, player: int) -> list[tuple[str, str]]:
    result = []
    for d in state.board.districts:
        if owner_plot(state, d.code, player) is not None:
            continue
        for color in d.ring:
            if is_empty(state.plots[d.code][color]):
                result.append((d.code, color))
    return result


def _turn_actions(state: State, frame: dict[str, Any], player: int) -> list[Action]:
    board = state.board
    phase = frame["phase"]
    if phase == 1:
        actions: list[Action] = [TakeSkyscrapers()]
        s = current_set(state)
        if s is not None:
            types = [b for b in board.business_types if b in state.supply_row[s]]
            targets = business_targets(state)
            actions.extend(PlaceBusiness(b, d, p) for b in types for d, p in targets)
        for c in board.commissioners:
            actions.extend(BlackCardAndMove(c, dest) for dest in destinations(state, c))
        actions.extend(ScoreDistrict(d) for d in scorable_districts(state))
        return actions
    if phase == 2:
        stacks = [c for c in board.plot_colors if state.colored_stacks[c]]
        if len(stacks) == 1:
            return [TakeCards((stacks[0],))]
        return [TakeCards((a, b)) for i, a in enumerate(stacks) for b in stacks[i + 1 :]]
    if phase == 3:
        return [Move(c, dest) for c in board.commissioners for dest in destinations(state, c)]
    raise AssertionError(f"turn phase {phase} needs no decision")


def _multisets(counts: list[int]) -> list[tuple[Counts, int]]:
    out = []
    for a in range(counts[0] + 1):
        for b in range(counts[1] + 1):
            for c in range(counts[2] + 1):
                out.append(((a, b, c), 4 * a + 5 * b + 6 * c))
    return out


def _legal_bids(state: State, frame: dict[str, Any], player: int) -> list[Bid]:
    hand = state.hands[player]
    own = frame["bids"].get(str(player))
    _, high = high_bid(frame)
    need = high + 1 - _bid_total(own)  # the added cards must bring at least this much
    blacks = _multisets(hand[BLACK])
    if own is not None:
        colors = [own["color"]]
    else:
        colors = [c for c in allowed_bid_colors(state, frame, player)[0] if sum(hand[c])]
    bids = []
    for color in colors:
        for colored, ctotal in _multisets(hand[color]):
            if own is None and not sum(colored):
                continue  # the first card of a bid is colored
            for black, btotal in blacks:
                if ctotal + btotal >= need and (sum(colored) or sum(black)):
                    bids.append(Bid(color if sum(colored) else None, colored, black))
    return bids


def _has_legal_bid(state: State, frame: dict[str, Any], player: int) -> bool:
    """Whether ``_legal_bids`` would list any bid, without listing them (a big hand has tens of thousands): the
    most a bid can add is every card of one allowed colour and every black card, and it must add one card."""
    hand = state.hands[player]
    own = frame["bids"].get(str(player))
    _, high = high_bid(frame)
    need = max(1, high + 1 - _bid_total(own))
    blacks = sum(v * n for v, n in zip(VALUES, hand[BLACK]))
    if own is not None:
        return sum(v * n for v, n in zip(VALUES, hand[own["color"]])) + blacks >= need
    return any(sum(hand[c]) and sum(v * n for v, n in zip(VALUES, hand[c])) + blacks >= need
               for c in allowed_bid_colors(state, frame, player)[0])


def _build_options(state: State, frame: dict[str, Any]) -> list[Action]:
    most = min(frame["limit"], state.supply[frame["winner"]])
    options: list[Action] = []
    if not frame["must_stop"]:
        options.extend(Build(n) for n in range(most + 1))
    if frame["may_stop"]:
        options.append(Stop())
    return options


# =========================================================================== parsing with the rules


def parse(state: State, player: int, text: str) -> Action:
    """Read ``text`` as ``player``'s command and check it is legal now."""
    action = parse_command(state.board, text)
    kind = state.frames[-1]["kind"] if state.frames else None
    if kind == "auction" and isinstance(action, (Build, Stop)):  # the winner's build, ordered in the auction
        action = BuildOrder(None, action.count) if isinstance(action, Build) else BuildOrder(None, stop=True)
    elif kind == "build" and isinstance(action, BuildOrder) and action.site is None and not action.stop:
        frame = state.frames[-1]
        action = Build(min(frame["limit"], state.supply[frame["winner"]]) if action.count is None else action.count)
    if isinstance(action, PartialMove):
        _check_turn(state, player)  # before guessing what a shortened command means
        action = _complete_partial(state, player, action)
    check(state, player, action)
    return action


def _complete_partial(state: State, player: int, partial: PartialMove) -> Action:
    board = state.board
    if partial.kind == "D":
        _expect_turn_phase(state, player, 1, "D")
        options = scorable_districts(state)
        if len(options) == 1:
            return ScoreDistrict(options[0])
        if not options:
            raise IllegalCommandError(_cannot_score(state, None, options), _legal_strings(state))
        raise AmbiguousCommandError(
            f"Say which district to score: {' or '.join(options)}.", [f"D {d}" for d in options]
        )
    make = BlackCardAndMove if partial.kind == "C" else Move
    candidates = []
    for c in board.commissioners:
        if partial.commissioner not in (None, c):
            continue
        for dest in destinations(state, c):
            if partial.destination in (None, dest):
                candidates.append(make(c, dest))
    if len(candidates) == 1:
        return candidates[0]
    if not candidates:
        what = partial.commissioner or board.name(partial.destination or CITY_HALL)
        raise IllegalCommandError(f"No commissioner move fits '{what}'.", [str(a) for a in _all_moves(state, make)])
    raise AmbiguousCommandError(
        "That could be several moves: " + ", ".join(str(a) for a in candidates) + ".", [str(a) for a in candidates]
    )


def _all_moves(state: State, make) -> list[Action]:
    return [make(c, dest) for c in state.board.commissioners for dest in destinations(state, c)]


def _legal_strings(state: State, limit: int = 12) -> list[str]:
    actions = legal_actions(state)
    return [str(a) for a in actions[:limit]]


def _expect_turn_phase(state: State, player: int, phase: int, action: Action | str) -> dict[str, Any]:
    frame = _top(state)
    if frame["kind"] != "turn" or frame["phase"] != phase:
        raise IllegalCommandError(f"'{action}' does not fit now: {describe_decision(state)}", _legal_strings(state))
    return frame


def cards_wanted(state: State) -> str:
    """What the 2nd phase of actions A-C takes as the stacks are now (D8): 'two colored cards of different
    colors (cards <color> <color>)', or one card when only one stack has cards."""
    stacks = [c for c in state.board.plot_colors if state.colored_stacks[c]]
    if len(stacks) >= 2:
        return "two colored cards of different colors (cards <color> <color>)"
    if stacks:
        return f"one colored card: only the {stacks[0]} stack has cards (cards {stacks[0]})"
    return "no colored cards (every colored stack is empty)"


def describe_decision(state: State) -> str:
    """One sentence saying what the game waits for."""
    if state.result is not None:
        return "the game is over."
    frame = _top(state)
    board = state.board
    player = current_player(state)
    who = f"player {player + 1}"
    kind = frame["kind"]
    if kind == "placement":
        return f"{who} places a starting skyscraper (place <district> <color>)."
    if kind == "turn":
        return {
            1: f"{who} chooses an action (A, B, C or D).",
            2: f"{who} takes {cards_wanted(state)}.",
            3: f"{who} moves a commissioner (move <commissioner> <destination>).",
        }[frame["phase"]]
    if kind == "auction":
        return f"{who} bids or passes in the auction for {board.name(frame['site'])}."
    if kind == "build":
        return f"{who} won {board.name(frame['site'])} and decides how many skyscrapers to build."
    return kind


def _check_turn(state: State, player: int) -> None:
    if state.result is not None:
        raise GameOverError("The game is over; no more commands are accepted.")
    if player != current_player(state):
        raise NotYourTurnError(f"It is not your turn: {describe_decision(state)}")


def check(state: State, player: int, action: Action) -> None:
    """Raise a typed error, with the legal alternatives, unless ``action`` is legal now."""
    if isinstance(action, (StandingBid, CancelStandingBid, BuildOrder)):
        _check_order(state, player, action)  # any bidder of the set, in turn or not
        return
    if isinstance(action, SetMails):  # any player, at any time until the game is over
        if state.result is not None:
            raise GameOverError("The game is over; no more commands are accepted.")
        return
    if isinstance(action, PassRest):
        if state.result is not None:
            raise GameOverError("The game is over; no more commands are accepted.")
        if not _rest(state, player):
            raise IllegalCommandError(f"'{action}' passes in the auctions of a set that you have no order for, and "
                                      f"there are none: {describe_decision(state)}", [])
        return
    _check_turn(state, player)
    board = state.board
    frame = _top(state)
    kind = frame["kind"]
    legal = lambda: _legal_strings(state)  # noqa: E731 - computed only when an error is raised

    def illegal(message: str) -> IllegalCommandError:
        return IllegalCommandError(message, legal())

    if isinstance(action, Place):
        if kind != "placement":
            raise illegal(f"'{action}' does not fit now: {describe_decision(state)}")
        if action.district not in board.district_codes:
            raise illegal(f"{board.name(action.district)} is not a district; place your skyscraper in a district.")
        cell = state.plots[action.district].get(action.color)
        if action.color not in board.district(action.district).ring or cell is None:
            raise illegal(f"{action.color} is not a plot you can build on.")
        if not is_empty(cell):
            raise illegal(f"The {action.color} plot of {board.name(action.district)} is not empty.")
        if owner_plot(state, action.district, player) is not None:
            raise illegal(
                f"You already have a skyscraper in {board.name(action.district)}; each player builds on one plot "
                "per district, so place this one in another district."
            )
        return
    if isinstance(action, (TakeSkyscrapers, PlaceBusiness, BlackCardAndMove, ScoreDistrict)):
        _expect_turn_phase(state, player, 1, action)
        if isinstance(action, PlaceBusiness):
            _check_business(state, action, illegal)
        elif isinstance(action, BlackCardAndMove):
            _check_move(state, action.commissioner, action.destination, illegal, "C")
        elif isinstance(action, ScoreDistrict):
            options = scorable_districts(state)
            if action.district not in options:
                raise illegal(_cannot_score(state, action.district, options))
        return
    if isinstance(action, TakeCards):
        _expect_turn_phase(state, player, 2, action)
        stacks = [c for c in board.plot_colors if state.colored_stacks[c]]
        if len(stacks) == 1 and action.colors != (stacks[0],):
            empty = [c for c in action.colors if c not in stacks]
            raise illegal((f"The {' and '.join(empty)} {'stack is' if len(empty) == 1 else 'stacks are'} empty. "
                           if empty else "") + f"Only the {stacks[0]} stack has cards, so you take one card: "
                          f"'cards {stacks[0]}'.")
        for color in action.colors:
            if color not in stacks:
                raise illegal(f"The {color} stack is empty; take cards from {', '.join(stacks)}.")
        wanted = min(2, len(stacks))
        if len(action.colors) != wanted or len(set(action.colors)) != len(action.colors):
            raise illegal(f"Take {wanted} colored card{'s' if wanted > 1 else ''} of different colors, for example "
                          f"'cards {' '.join(stacks[:wanted])}'.")
        return
    if isinstance(action, Move):
        _expect_turn_phase(state, player, 3, action)
        _check_move(state, action.commissioner, action.destination, illegal, "move")
        return
    if isinstance(action, (Bid, Pass)):
        if kind != "auction":
            raise illegal(f"'{action}' does not fit now: {describe_decision(state)}")
        if isinstance(action, Bid):
            _check_bid(state, frame, player, action, illegal)
        return
    if isinstance(action, (Build, Stop)):
        if kind != "build":
            raise illegal(f"'{action}' does not fit now: {describe_decision(state)}")
        if isinstance(action, Stop):
            if not frame["may_stop"]:
                if frame["site"] == CENTRAL_PARK:
                    raise illegal("There is no building stop in Central Park.")
                raise illegal(
                    f"You cannot declare a building stop: {board.name(frame['site'])} had an empty plot before "
                    "the auction. Build 0 or more skyscrapers instead."
                )
            return
        most = min(frame["limit"], state.supply[player])
        if frame["must_stop"]:
            raise illegal("You have no skyscrapers in this full district: you must declare a building stop ('stop').")
        if action.count > most:
            why = (
                f"your cards allow at most {frame['limit']}"
                if frame["limit"] < state.supply[player]
                else f"you have {state.supply[player]} in your supply"
            )
            raise illegal(f"You cannot build {action.count}: {why}. Build 0 to {most}.")
        return
    raise illegal(f"'{action}' is not a command of this game.")


def _holding(state: State, frame: dict[str, Any], player: int) -> Holding:
    own = frame["bids"].get(str(player))
    if own is None:
        return Holding(state.hands[player], None)
    return Holding(state.hands[player], own["color"], tuple(own["colored"]), tuple(own["black"]))


def auction_set(state: State) -> tuple[str | None, list[str]]:
    """The auction running now (None between a set's auctions, during a build) and the sites of the set an
    order may name: the running one and those still to come, in their order."""
    sets = [f for f in state.frames if f["kind"] == "auctions"]
    if not sets:
        return None, []
    running = state.running_auction()
    return running, [*([running] if running else []), *sets[-1]["queue"]]


def _order_site(state: State, player: int, action: StandingBid | CancelStandingBid | BuildOrder) -> str:
    """The auction an order is for (the one running when it names none), checked to be of the set that runs."""
    if state.result is not None:
        raise GameOverError("The game is over; no more commands are accepted.")
    running, sites = auction_set(state)
    if not sites:
        raise IllegalCommandError(f"'{action}' is an order for an auction, and none runs: "
                                  f"{describe_decision(state)}", _legal_strings(state))
    site = action.site or running
    if site not in sites:
        names = ", ".join(state.board.name(s) for s in sites)
        raise IllegalCommandError(f"{state.board.name(site)} is not an auction of this set (still to bid: {names}).",
                                  [f"{str(action).split()[0]} {s} ..." for s in sites])
    frame = _top(state)
    if frame["kind"] in ("auction", "build") and frame["site"] == site and not isinstance(action, BuildOrder) \
            and (frame["kind"] == "build" or player not in frame["order"] or player in frame["out"]):
        raise IllegalCommandError(f"You are out of the auction for {state.board.name(site)}: a standing bid is "
                                  "only for a bidder still in it.", [])
    return site


def _rest(state: State, player: int) -> list[str]:
    """The auctions of the set that runs where ``player`` is still a bidder and has no standing bid: what
    'rest: pass' passes in."""
    running, sites = auction_set(state)
    frame = _top(state)
    mine = state.orders.get(str(player), {})
    return [site for site in sites if "limit" not in mine.get(site, {}) and not (
        frame["kind"] in ("auction", "build") and frame["site"] == site
        and (frame["kind"] == "build" or player not in frame["order"] or player in frame["out"]))]


def _hand_later(state: State, frame: dict[str, Any], player: int) -> dict[str, list[int]]:
    """The cards ``player`` may bid with in a later auction of the set: their hand and their cards on the table
    in the auction running now, which come back to them unless they win it (then the order gets less)."""
    hand = {color: list(counts) for color, counts in state.hands[player].items()}
    own = frame["bids"].get(str(player)) if frame["kind"] == "auction" else None
    if own is not None:
        for i in range(3):
            hand[own["color"]][i] += own["colored"][i]
            hand[BLACK][i] += own["black"][i]
    return hand


def _check_order(state: State, player: int, action: StandingBid | CancelStandingBid | BuildOrder) -> None:
    site = _order_site(state, player, action)
    name = state.board.name(site)
    order = state.orders.get(str(player), {}).get(site)
    if isinstance(action, CancelStandingBid):
        if order is None:
            raise IllegalCommandError(f"You have no order for the auction for {name}.", [])
        return
    if isinstance(action, BuildOrder):
        if action.stop and site == CENTRAL_PARK:
            raise IllegalCommandError("There is no building stop in Central Park.", [f"build {site} max"])
        if action.count is not None and action.count > state.supply[player] + state.general[player]:
            raise IllegalCommandError(f"You cannot build {action.count}: you have {state.supply[player]} "
                                      "skyscrapers in your supply.", [f"build {site} max"])
        return
    if action.limit == 0:
        return  # a standing pass: nothing to bid with
    frame = _top(state)
    running = frame["kind"] == "auction" and frame["site"] == site
    holding = _holding(state, frame, player) if running else Holding(_hand_later(state, frame, player), None)
    if holding.own_color is not None:
        colors = [holding.own_color]
        if action.color not in (None, holding.own_color):
            raise IllegalCommandError(f"You already bid {holding.own_color} in {name}: a standing bid there adds "
                                      f"{holding.own_color} or black cards, not {action.color}.",
                                      [f"bid up to {action.limit} {holding.own_color}"])
    else:
        # An auction still to come is read as it stands now; what changes before it is checked when it runs.
        allowed, why = allowed_bid_colors(state, frame if running else {"site": site, "color": None}, player)
        if action.color is not None and action.color not in allowed:
            raise IllegalCommandError(f"You cannot bid {action.color} in {name}: {why}.",
                                      [f"bid {site} up to {action.limit} {c}" for c in allowed])
        colors = [action.color] if action.color else allowed
        if not any(sum(holding.hand[c]) for c in colors):
            which = f"no {action.color} cards" if action.color else f"no cards of {', '.join(allowed)}"
            raise IllegalCommandError(f"You have {which}: a bid in {name} opens with one.", [f"bid {site} up to 0"])
    most = most_reachable(holding, colors, BLACK)
    if action.limit > most:
        raise IllegalCommandError(f"Your bid in {name} can come to at most {most} with the cards you hold; "
                                  f"a standing bid of {action.limit} is more than that.",
                                  [f"bid {site} up to {most}" + (f" {action.color}" if action.color else "")])


def _order_colors(state: State, frame: dict[str, Any], player: int, order: dict[str, Any]) -> list[str]:
    """The colours a standing bid may open with: its own colour, else every allowed colour, board order."""
    allowed = allowed_bid_colors(state, frame, player)[0]
    return [c for c in state.board.plot_colors if c in allowed and order["color"] in (None, c)]


def _play_order(state: State, frame: dict[str, Any], events: list[Event]) -> bool:
    """The standing bid of the bidder now due makes their bid or pass (False: they have none here, or its
    colour is no longer one they may open with: then they are asked)."""
    player = current_player(state)
    orders = state.orders.get(str(player), {})
    order = orders.get(frame["site"], {})
    if "limit" not in order:
        return False
    colors = _order_colors(state, frame, player, order)
    if order["limit"] and str(player) not in frame["bids"] and order["color"] and not colors:
        del order["limit"], order["color"]  # the set changed under it (D48): the player decides
        return False
    _, high = high_bid(frame)
    bid = least_raise(_holding(state, frame, player), high, order["limit"], colors, BLACK, state.board.build_limit)
    name = state.board.name(frame["site"])
    limit = order["limit"]
    if bid is None:
        del order["limit"], order["color"]
        _apply(state, player, Pass(), events)
        note = (f"Your standing bid in {name} (up to {limit}) could not beat {high}, so it passed for you; it is "
                "used up.") if limit else f"Your order passed for you in {name}."
    else:
        _apply(state, player, bid, events)
        note = (f"Your standing bid in {name} went to {_bid_total(frame['bids'][str(player)])}; it is good up "
                f"to {order['limit']}.")
    made = next(e for e in reversed(events) if e["kind"] in ("bid", "pass") and e["actor"] == player)
    made["private"] = {**made.get("private", {}), player: note}
    made["order"] = str(bid or Pass())  # the command a standing bid made: public, as a bid by hand is
    return True


def _play_build_order(state: State, frame: dict[str, Any], events: list[Event]) -> bool:
    """The winner's build order for this auction builds or stops (False: none, or a stop not allowed here)."""
    winner = frame["winner"]
    wanted = state.orders.get(str(winner), {}).get(frame["site"], {}).get("build")
    if wanted is None or (wanted == "stop" and not frame["may_stop"]):
        return False
    most = min(frame["limit"], state.supply[winner])
    action: Action = Stop() if wanted == "stop" or frame["must_stop"] else Build(most if wanted == "max" else min(wanted, most))
    _apply(state, winner, action, events)
    made = events[-1]
    made["private"] = {**made.get("private", {}), winner: f"Your build order for {state.board.name(frame['site'])} "
                       f"({'build max' if wanted == 'max' else 'stop' if wanted == 'stop' else f'build {wanted}'}) "
                       f"played {action}."}
    made["order"] = str(action)
    return True


def _end_orders(state: State, site: str | None, winner: int | None = None) -> None:
    """Orders for ``site`` end with its auction, but the winner's build order, which ends with the build (None:
    every order, when the auction set ends)."""
    for seat in list(state.orders):
        if site is not None and site in state.orders[seat]:
            kept = state.orders[seat][site].get("build") if int(seat) == winner else None
            if kept is None:
                del state.orders[seat][site]
            else:
                state.orders[seat][site] = {"build": kept}
        if site is None or not state.orders[seat]:
            del state.orders[seat]


def _cannot_score(state: State, district: str | None, options: list[str]) -> str:
    """Why ``district`` (None: the one a shortened 'D' would mean) cannot be scored now, and what can."""
    board = state.board
    standing = {c: state.commissioners[c] for c in board.commissioners}
    if district is not None and district not in board.district_codes:
        why = f"You cannot score {board.name(district)}: it is not a district."
    elif district is not None and district in state.stopped:
        # D18: a commissioner stays in a district that gets stopped, but the district is never scored again.
        here = [f"the {c} commissioner" for c, where in standing.items() if where == district]
        why = (f"You cannot score {board.name(district)}: it is closed by its building stop"
               + (f" ({' and '.join(here)} still {'stands' if len(here) == 1 else 'stand'} there, but a district "
                  "with a building stop is never scored again)" if here else "") + ".")
    elif district is not None:
        why = (f"You cannot score {board.name(district)}: no commissioner stands there"
               + ("." if options else ", and no district can be scored now."))
    else:
        closed = [d for d in board.district_codes if d in state.stopped and d in standing.values()]
        why = ("You cannot score a district (D): " + (
            " and ".join(board.name(d) for d in closed) + f", where a commissioner stands, {'is' if len(closed) == 1 else 'are'} "
            "closed by a building stop, and no commissioner stands in another district." if closed
            else "no commissioner stands in a district."))
    if options:
        return f"{why} You may score {' or '.join(options)}."
    return why


def _check_business(state: State, action: PlaceBusiness, illegal) -> None:
    board = state.board
    s = current_set(state)
    if s is None:
        raise illegal("The business supply row is empty.")
    if action.business not in state.supply_row[s]:
        offered = ", ".join(sorted(set(state.supply_row[s])))
        raise illegal(f"There is no {action.business} in the current business set; you may take {offered}.")
    if action.district not in board.district_codes:
        raise illegal(f"{board.name(action.district)} is not a district.")
    name = board.name(action.district)
    if action.district in state.stopped:
        raise illegal(f"{name} has a building stop; nothing can be placed there.")
    cell = state.plots[action.district].get(action.plot)
    if cell is None:
        raise illegal(f"{name} has no {action.plot} plot.")
    if cell["owner"] is not None:
        raise illegal(f"The {action.plot} plot of {name} has skyscrapers; a business goes on a plot without them.")
    if len(cell["businesses"]) >= 2:
        raise illegal(f"The {action.plot} plot of {name} already has two businesses.")


def _check_move(state: State, commissioner: str, destination: str, illegal, verb: str) -> None:
    board = state.board
    options = destinations(state, commissioner)
    if destination not in options:
        here = board.name(state.commissioners[commissioner])
        raise illegal(
            f"The {commissioner} commissioner is at {here} and cannot go to {board.name(destination)}; "
            f"it may go to {', '.join(options)}."
            + (f" The other moves: {', '.join(str(a) for a in _all_moves(state, BlackCardAndMove if verb == 'C' else Move))}.")
        )


def _check_bid(state: State, frame: dict[str, Any], player: int, bid: Bid, illegal) -> None:
    board = state.board
    hand = state.hands[player]
    own = frame["bids"].get(str(player))
    site_name = board.name(frame["site"])
    if own is None:
        if bid.color is None:
            raise illegal("Your first card in an auction must be a colored card, for example 'bid gray 4'.")
        colors, why = allowed_bid_colors(state, frame, player)
        if bid.color not in colors:
            raise illegal(f"You cannot bid {bid.color} in {site_name}: {why}.")
    elif bid.color is not None and bid.color != own["color"]:
        raise illegal(
            f"You already bid {own['color']} in {site_name}: add {own['color']} or black cards, not {bid.color}."
        )
    for color, counts in ((bid.color, bid.colored), (BLACK, bid.black)):
        if color is None:
            continue
        for v, k, have in zip(VALUES, counts, hand[color]):
            if k > have:
                raise illegal(f"You do not have {k} {color} card{'s' if k > 1 else ''} of value {v} (you have {have}).")
    _, high = high_bid(frame)
    total = _bid_total(own) + bid.total
    if total <= high:
        raise illegal(f"Your bid would total {total}; it must be higher than {high}. Bid more or pass.")


# =========================================================================== applying


def apply_action(state: State, player: int, action: Action) -> list[Event]:
    check(state, player, action)
    events: list[Event] = []
    _apply(state, player, action, events)
    _advance(state, events)
    return events


def _apply(state: State, player: int, action: Action, events: list[Event]) -> None:
    """``action`` (checked) for ``player``: its effects, up to the next step that needs nobody's decision."""
    frame = _top(state)
    if isinstance(action, Place):
        cell = state.plots[action.district][action.color]
        cell["owner"], cell["height"] = player, 1
        state.general[player] -= 1
        frame["index"] += 1
        events.append(_event("placed", player, f"placed a skyscraper on the {action.color} plot of {_name(state, action.district)}"))
    elif isinstance(action, TakeSkyscrapers):
        n = min(3, state.general[player])
        state.general[player] -= n
        state.supply[player] += n
        frame.update(action="A", phase=2)
        events.append(_event("action", player, f"chose A and took {n} skyscraper{'' if n == 1 else 's'} into their supply"))
    elif isinstance(action, PlaceBusiness):
        frame.update(action="B", phase=2)
        _place_business(state, player, action, events)
    elif isinstance(action, BlackCardAndMove):
        frame.update(action="C", phase=2)
        drawn = _draw_black(state, player, 1)
        events.append(_event("action", player, f"chose C and drew {len(drawn)} black card{'' if len(drawn) == 1 else 's'}", private={player: f"You drew black {drawn}."}))
        _move(state, player, action.commissioner, action.destination, events)
    elif isinstance(action, ScoreDistrict):
        frame.update(action="D", phase=2, district=action.district)
        _score_district(state, player, action.district, events)
    elif isinstance(action, TakeCards):
        taken = []
        for color in action.colors:
            value = state.colored_stacks[color].pop(0)
            state.hands[player][color][value - 4] += 1
            taken.append(f"{color} {value}")
        frame["phase"] = 3
        events.append(_event("cards", player, "took " + " and ".join(taken)))
    elif isinstance(action, Move):
        frame["phase"] = 4
        _move(state, player, action.commissioner, action.destination, events)
    elif isinstance(action, SetMails):
        if action.on and player not in state.order_seats:
            state.order_seats.append(player)
        elif not action.on and player in state.order_seats:
            state.order_seats.remove(player)
    elif isinstance(action, PassRest):
        mine = state.orders.setdefault(str(player), {})
        for site in _rest(state, player):
            mine.setdefault(site, {}).update(limit=0, color=None)
        if player not in state.order_seats:
            state.order_seats.append(player)
    elif isinstance(action, (StandingBid, CancelStandingBid, BuildOrder)):
        # An order: the command, told to its player alone, says what it is; it acts at its auction (_advance).
        site = action.site or auction_set(state)[0]
        mine = state.orders.setdefault(str(player), {})
        if isinstance(action, CancelStandingBid):
            mine.pop(site)
        elif isinstance(action, StandingBid):
            mine.setdefault(site, {}).update(limit=action.limit, color=action.color)
        else:
            mine.setdefault(site, {})["build"] = "stop" if action.stop else "max" if action.count is None else action.count
        if not mine:
            del state.orders[str(player)]
        if player not in state.order_seats:
            state.order_seats.append(player)
    elif isinstance(action, Bid):
        _bid(state, frame, player, action, events)
    elif isinstance(action, Pass):
        _pass(state, frame, player, events)
    elif isinstance(action, Build):
        state.frames.pop()
        _end_orders(state, frame["site"])
        _build(state, frame, action.count, events)
    elif isinstance(action, Stop):
        state.frames.pop()
        _end_orders(state, frame["site"])
        _building_stop(state, frame["site"], frame["winner"], events)
    state.moves += 1


def _name(state: State, code: str) -> str:
    return state.board.name(code)


def _draw_black(state: State, player: int, n: int) -> list[int]:
    """Draw up to ``n`` black cards; spent cards are reshuffled when reached."""
    drawn = []
    for _ in range(n):
        value = _pop_black(state)
        if value is None:
            break
        state.hands[player][BLACK][value - 4] += 1
        drawn.append(value)
    return drawn


def _pop_black(state: State) -> int | None:
    if not state.black_stack and state.black_spent:
        # The first face-up (spent) card reached: the stack is shuffled and turned face down.
        rng = Rng(state.rng)
        rng.shuffle(state.black_spent)
        state.rng = rng.state
        state.black_stack, state.black_spent = state.black_spent, []
    if not state.black_stack:
        return None
    return state.black_stack.pop(0)


def _place_business(state: State, player: int, action: PlaceBusiness, events: list[Event]) -> None:
    board = state.board
    s = current_set(state)
    assert s is not None
    group = state.supply_row[s]
    group.remove(action.business)
    state.plots[action.district][action.plot]["businesses"].append(action.business)
    state.businesses_placed += 1
    events.append(
        _event("business", player, f"chose B and placed a {action.business} on the {action.plot} plot of {_name(state, action.district)}")
    )
    if len(group) == 1:
        last = group.pop()
        state.cp_businesses.append(last)
        events.append(_event("central_park_business", None, f"the last business of the set, a {last}, moved below Central Park"))
    if current_set(state) is None:
        _end_game(state, "supply", events)
        return
    emptied = sum(1 for g in state.supply_row if not g)
    if not group:
        for after_sets, vp, districts in board.special_scorings:
            if emptied == after_sets:
                _special_scoring(state, vp, districts, events)


def _special_scoring(state: State, vp: int, districts: int, events: list[Event]) -> None:
    winners = []
    for p in range(state.players):
        present = sum(1 for d in state.board.district_codes if owner_plot(state, d, p) is not None)
        if present >= districts:
            state.scores[p] += vp
            winners.append(p)
    events.append(
        _event(
            "special_scoring", None,
            f"special scoring: {vp} VP for every player with skyscrapers in at least {districts} districts",
            players=winners, vp=vp, points=[vp if p in winners else 0 for p in range(state.players)],
        )
    )


def _score_district(state: State, player: int, district: str, events: list[Event]) -> None:
    points = district_points(state, district)
    for p, pts in enumerate(points):
        state.scores[p] += pts
    events.append(_event("scored", player, f"chose D and scored {_name(state, district)}", points=points, district=district))


def _move(state: State, player: int, commissioner: str, destination: str, events: list[Event]) -> None:
    here = state.commissioners[commissioner]
    if here not in (CITY_HALL, CENTRAL_PARK) and here not in state.stopped:
        state.markers[commissioner].append(here)
    state.commissioners[commissioner] = destination
    events.append(_event("move", player, f"moved the {commissioner} commissioner to {_name(state, destination)}"))
    if here == CENTRAL_PARK and destination == CITY_HALL:
        queue = list(state.markers[commissioner]) + [CENTRAL_PARK]
        state.frames.append({"kind": "auctions", "trigger": player, "commissioner": commissioner, "queue": queue})
        names = ", ".join(_name(state, s) for s in queue)
        events.append(_event("auctions", player, f"triggered the auctions, in this order: {names}", queue=list(queue)))


# ------------------------------------------------------------------ auctions


def _start_auction(state: State, auctions: dict[str, Any], site: str, events: list[Event]) -> None:
    trigger = auctions["trigger"]
    order = [(trigger + i) % state.players for i in range(state.players)]
    if state.robot is not None:
        order.append(state.robot)  # the robot always bids third
    frame = {
        "kind": "auction",
        "site": site,
        "order": order,
        "turn": 0,
        "bids": {},
        "out": [],
        "color": None,
        "full": site != CENTRAL_PARK and district_full(state, site),
        "robot_cards": [],
        "opened": state.moves,
    }
    state.frames.append(frame)
    events.append(_event("auction", None, f"auction for {_name(state, site)}", site=site))


def _bid(state: State, frame: dict[str, Any], player: int, bid: Bid, events: list[Event]) -> None:
    hand = state.hands[player]
    key = str(player)
    own = frame["bids"].get(key)
    verb = "raised with" if own is not None else "bid"
    if own is None:
        own = frame["bids"][key] = {"color": bid.color, "colored": [0, 0, 0], "black": [0, 0, 0]}
        if frame["site"] == CENTRAL_PARK and frame["color"] is None:
            frame["color"] = bid.color
    for i in range(3):
        if bid.color is not None:
            hand[bid.color][i] -= bid.colored[i]
            own["colored"][i] += bid.colored[i]
        hand[BLACK][i] -= bid.black[i]
        own["black"][i] += bid.black[i]
    total = _bid_total(own)
    events.append(_event("bid", player, f"{verb} {str(bid)[4:]} (total {total})", total=total))
    robot = state.robot
    if robot is not None and str(robot) in frame["bids"] and robot not in frame["out"] and total > _bid_total(frame["bids"][str(robot)]):
        frame["out"].append(robot)  # an outbid robot is out of this auction
        events.append(_event("robot_out", robot, "the robot is outbid and out of this auction"))
    _next_bidder(state, frame)


def _pass(state: State, frame: dict[str, Any], player: int, events: list[Event]) -> None:
    own = frame["bids"].pop(str(player), None)
    if own is not None:
        hand = state.hands[player]
        for i in range(3):
            hand[own["color"]][i] += own["colored"][i]
            hand[BLACK][i] += own["black"][i]
    frame["out"].append(player)
    events.append(_event("pass", player, "passed" + (" and took their cards back" if own else "")))
    _next_bidder(state, frame)


def _next_bidder(state: State, frame: dict[str, Any]) -> None:
    order = frame["order"]
    n = len(order)
    for step in range(1, n + 1):
        i = (frame["turn"] + step) % n
        owner = order[i]
        if owner in frame["out"]:
            continue
        if owner == state.robot and str(owner) in frame["bids"]:
            continue  # the robot bids once and never raises
        frame["turn"] = i
        return
    frame["turn"] = -1  # nobody left to act; the auction is decided in _advance


def _auction_over(state: State, frame: dict[str, Any]) -> bool:
    live = [o for o in frame["order"] if o not in frame["out"]]
    if not live:
        return True
    if len(live) == 1 and str(live[0]) in frame["bids"]:
        return True
    return frame["turn"] == -1


def _robot_bid(state: State, frame: dict[str, Any], events: list[Event]) -> None:
    robot = state.robot
    drawn: list[int] = []
    while True:
        value = _pop_black(state)
        if value is None:
            break
        drawn.append(value)
        if drawn.count(value) == 2:
            break
    frame["robot_cards"] = drawn
    total = sum(drawn)
    _, high = high_bid(frame)
    cards = ", ".join(str(v) for v in drawn)
    if total > high:
        frame["bids"][str(robot)] = {"color": BLACK, "colored": [0, 0, 0], "black": [drawn.count(v) for v in VALUES]}
        events.append(_event("robot_bid", robot, f"the robot drew black {cards} and bids {total}", cards=drawn, total=total))
    else:
        frame["out"].append(robot)
        events.append(
            _event("robot_bid", robot, f"the robot drew black {cards} ({total}), not more than {high}, and is out", cards=drawn, total=total)
        )
    _next_bidder(state, frame)


def _finish_auction(state: State, frame: dict[str, Any], events: list[Event]) -> None:
    """Decide the winner, spend the cards and start the winner's build."""
    state.frames.pop()
    site = frame["site"]
    board = state.board
    winner, _ = high_bid(frame)
    _end_orders(state, site, winner)
    robot = state.robot
    if frame["robot_cards"]:
        state.black_spent.extend(frame["robot_cards"])  # spent, face up under the black stack
    if site != CENTRAL_PARK:
        _return_marker(state, site)
    # The players who took part (bid or passed): the result concerns them, so they hear of it.
    bidders = sorted(({int(p) for p in frame["bids"]} | set(frame["out"])) - {robot})
    if winner is None:
        events.append(_event("no_bids", None, f"nobody bid for {board.name(site)}; it is skipped", site=site,
                             bidders=bidders))
        return
    bid = frame["bids"][str(winner)]
    if winner == robot:
        events.append(_event("won", robot, f"the robot won {board.name(site)}", site=site, bidders=bidders))
        if site != CENTRAL_PARK:
            _robot_builds(state, site, events)
        return
    for v, k in zip(VALUES, bid["colored"]):
        state.colored_stacks[bid["color"]].extend([v] * k)
    for v, k in zip(VALUES, bid["black"]):
        state.black_spent.extend([v] * k)
    limit = build_limit(board, bid["colored"], bid["black"])
    events.append(
        _event("won", winner, f"won {board.name(site)} with {_bid_total(bid)} in {bid['color']} and may build up to {limit}"
               + (", but their own supply of skyscrapers is empty" if not state.supply[winner] else ""), site=site,
               bidders=bidders)
    )
    must_stop = may_stop = False
    if site != CENTRAL_PARK and frame["full"]:
        has_plot = owner_plot(state, site, winner) is not None
        must_stop, may_stop = not has_plot, True
    state.frames.append(
        {"kind": "build", "site": site, "winner": winner, "color": bid["color"], "limit": limit,
         "may_stop": may_stop, "must_stop": must_stop, "opened": state.moves}
    )


def _return_marker(state: State, site: str) -> None:
    """After a district's auction its commissioner marker goes back to City Hall."""
    visited = state.markers[state.frames[-1]["commissioner"]]  # the auction set is on top again
    if site in visited:
        visited.remove(site)


def _build(state: State, frame: dict[str, Any], count: int, events: list[Event]) -> None:
    winner, site = frame["winner"], frame["site"]
    empty_supply = state.supply[winner] == 0
    state.supply[winner] -= count
    where = "below Central Park" if site == CENTRAL_PARK else f"on the {frame['color']} plot of {_name(state, site)}"
    if count:
        text = f"built {count} skyscraper{'s' if count != 1 else ''} {where}"
    elif empty_supply:  # D22: skyscrapers come from the winner's own supply, not the general supply
        text = f"built nothing {where}: their own supply of skyscrapers is empty"
    else:
        text = f"chose to build nothing {where}"
    if site == CENTRAL_PARK:
        state.central_park[winner] += count
        events.append(_event("built", winner, text, count=count))
        return
    cell = state.plots[site][frame["color"]]
    if count:
        cell["owner"] = winner
        cell["height"] += count
    events.append(_event("built", winner, text, count=count))


def _robot_builds(state: State, site: str, events: list[Event]) -> None:
    robot = state.robot
    board = state.board
    empty = [c for c in board.district(site).ring if is_empty(state.plots[site][c])]
    if not empty:
        _building_stop(state, site, robot, events)
        return
    values = {c: board.district_vp[adjacent_types(state, site, c)] for c in empty}
    best = max(values.values())
    built = []
    for color in empty:
        if values[color] == best and state.general[robot] > 0:
            state.general[robot] -= 1
            cell = state.plots[site][color]
            cell["owner"], cell["height"] = robot, 1
            built.append(color)
    events.append(_event("robot_built", robot, f"the robot built one skyscraper on each of: {', '.join(built) or 'nothing'}", plots=built))


def _building_stop(state: State, site: str, declarer: int, events: list[Event]) -> None:
    board = state.board
    normal = district_points(state, site)
    gained = [0] * state.players
    for p in range(state.players):
        gained[p] = skyscrapers_in(state, site) if p == declarer else normal[p] // 2
        state.scores[p] += gained[p]
    for cell in state.plots[site].values():
        if cell["owner"] is not None:
            state.boxed_skyscrapers[cell["owner"]] += cell["height"]
        state.boxed_businesses.extend(cell["businesses"])
        cell.update(businesses=[], owner=None, height=0)
    state.stopped.append(site)
    for visited in state.markers.values():
        if site in visited:
            visited.remove(site)  # markers in a stopped district return without effect
    who = "the robot" if declarer == state.robot else f"player {declarer + 1}"
    events.append(_event("building_stop", declarer, f"{who} declared a building stop in {board.name(site)}", points=gained, site=site))
    if len(state.stopped) >= board.building_stops:
        _end_game(state, "building_stop", events)


# ------------------------------------------------------------------ the automatic steps


def _advance(state: State, events: list[Event]) -> None:
    """Resolve everything that needs no decision, until someone must decide."""
    while state.result is None:
        frame = state.frames[-1]
        kind = frame["kind"]
        if kind == "placement":
            if frame["index"] < len(frame["order"]):
                return
            state.frames.pop()
            state.frames.append(_turn(state, 0))
        elif kind == "turn":
            if frame["phase"] == 2 and frame["action"] == "D":
                _phase_two_black_cards(state, frame, events)
                frame["phase"] = 3
            elif frame["phase"] == 2 and not any(state.colored_stacks.values()):
                events.append(_event("cards", frame["player"], "took no colored cards: every stack is empty"))
                frame["phase"] = 3
            elif frame["phase"] == 4:
                state.frames.pop()
                state.frames.append(_turn(state, (frame["player"] + 1) % state.players))
            elif not _play_the_only_choice(state, events):
                return
        elif kind == "auctions":
            if not frame["queue"]:
                state.frames.pop()
                _end_orders(state, None)
                events.append(_event("auctions_end", None, "the auctions are over; the game goes on"))
            else:
                _start_auction(state, frame, frame["queue"].pop(0), events)
        elif kind == "auction":
            if _auction_over(state, frame):
                _finish_auction(state, frame, events)
            elif current_player(state) == state.robot:
                _robot_bid(state, frame, events)
            elif not _play_the_only_choice(state, events) and not _play_order(state, frame, events):
                return
        elif kind == "build":
            options = _build_options(state, frame)
            if len(options) != 1:
                if _play_build_order(state, frame, events):
                    continue
                return
            state.frames.pop()
            _end_orders(state, frame["site"])
            if isinstance(options[0], Stop):
                _building_stop(state, frame["site"], frame["winner"], events)
            else:
                _build(state, frame, options[0].count, events)
        else:
            raise AssertionError(kind)


def _only_choice(state: State) -> Action | None:
    """The one legal answer to the decision now open, if it has only one (D40): a bidder with no legal bid
    can only pass; a cards phase with one stack, a move phase with one destination. Phase 1 and the
    placement always offer a choice; build decisions are D22's."""
    frame = _top(state)
    player = current_player(state)
    if frame["kind"] == "auction":
        return None if _has_legal_bid(state, frame, player) else Pass()
    if frame["kind"] == "turn" and frame["phase"] in (2, 3):
        actions = _turn_actions(state, frame, player)
        return actions[0] if len(actions) == 1 else None
    return None


def _play_the_only_choice(state: State, events: list[Event]) -> bool:
    """Play the open decision's only legal answer for its player (D40); False when there is a choice."""
    action = _only_choice(state)
    if action is None:
        return False
    player = current_player(state)
    events.append(_event("forced", player, f"had only one legal answer ({action}), so pbem played it for them"))
    _apply(state, player, action, events)
    return True


def _turn(state: State, player: int) -> dict[str, Any]:
    # "opened" (the move count when a decision frame was pushed) tells one turn, auction or build from an
    # earlier one of the same player or district: a reply to a mail lands only on the frame it was sent for.
    return {"kind": "turn", "player": player, "action": None, "phase": 1, "opened": state.moves}


def _phase_two_black_cards(state: State, frame: dict[str, Any], events: list[Event]) -> None:
    player, district = frame["player"], frame["district"]
    drawn = _draw_black(state, player, 2)
    private = {player: f"You drew black {drawn}."}
    absent = []
    for i in range(state.players):
        p = (player + i) % state.players
        if owner_plot(state, district, p) is None:
            private[p] = private.get(p, "") + f" You drew black {_draw_black(state, p, 1)} (no skyscraper in the district)."
            absent.append(p)
    events.append(
        _event("black_cards", player, f"took {len(drawn)} black card{'' if len(drawn) == 1 else 's'}; players without skyscrapers there take 1 each", private=private, absent=absent)
    )


# ------------------------------------------------------------------ game end


def _end_game(state: State, reason: str, events: list[Event]) -> None:
    board = state.board
    final: dict[str, Any] = {"reason": reason, "start_scores": list(state.scores), "districts": {}}
    for district in board.district_codes:
        if district in state.stopped:
            continue
        points = district_points(state, district)
        final["districts"][district] = points
        for p, pts in enumerate(points):
            state.scores[p] += pts
    drawn = list(state.cp_businesses)
    rng = Rng(state.rng)
    rng.shuffle(drawn)
    state.rng = rng.state
    drawn = drawn[: board.central_park_draw]
    # Central Park is worth 2 to 5 (000 p.10): no business at all counts as one type.
    vp_each = board.district_vp[max(1, len(set(drawn)))]
    cp_points = [state.central_park[p] * vp_each for p in range(state.players)]
    for p, pts in enumerate(cp_points):
        state.scores[p] += pts
    final["central_park"] = {"drawn": drawn, "vp_each": vp_each, "points": cp_points}
    best = max(state.scores)
    tied = [p for p in range(state.players) if state.scores[p] == best]
    cards = [sum(sum(v) for v in hand.values()) for hand in state.hands]
    most_cards = max(cards[p] for p in tied)
    winners = [p for p in tied if cards[p] == most_cards]
    final.update(scores=list(state.scores), cards_in_hand=cards, tied=tied, winners=winners)
    state.result = final
    state.frames = []
    events.append(_event("game_over", None, "the game is over", result=final))

