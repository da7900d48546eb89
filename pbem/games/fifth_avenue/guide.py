"""What the player who must decide needs to know, in words.

The rules explain themselves here the same way they explain a refused
command: which colors a bidder may use and why, what the cards on the table
allow, what is still owed this turn. Pure: it only reads the state.
"""

from __future__ import annotations

from collections import Counter
from typing import Any

from ..base import CommandHelp
from ..legal import compact
from .board import BLACK, CENTRAL_PARK, VALUES
from .orders import CARD_RULE
from .rules import (allowed_bid_colors, auction_set, build_limit, cards_wanted, current_player, describe_decision,
                    high_bid)
from .state import State

PHASES = {
    2: "take two colored cards of different colors (cards <color> <color>), then move a commissioner",
    3: "move a commissioner (move <commissioner> <destination>)",
}


def phase_text(state: State, phase: int) -> str:
    """What a turn's ``phase`` (2 or 3) asks for, as the colored stacks are now (D8: one card when only one
    stack has cards)."""
    if phase == 2:
        return f"take {cards_wanted(state)}, then move a commissioner"
    return PHASES[phase]


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
        if state.supply[player] == 0:
            notes.append("Your own supply holds no skyscrapers, and a winner builds only from their own supply "
                         "(not the general supply), so winning builds nothing"
                         + (": in this full district the winner may declare a building stop instead."
                            if frame["full"] else "."))
    elif frame["kind"] == "build":
        site = board.name(frame["site"])
        if frame["site"] == CENTRAL_PARK:
            where = "below Central Park"
        else:
            where = f"on the {frame['color']} plot of {site}"
        if state.supply[player] == 0:
            notes.append(f"You won {site}, but your own supply holds no skyscrapers and a winner builds only from "
                         f"their own supply (not the general supply), so you build nothing {where} ('build 0').")
        else:
            most = min(frame['limit'], state.supply[player])
            notes.append(f"You won {site}: build up to {most} skyscraper{'s' if most != 1 else ''} {where} (your "
                         f"cards allow {frame['limit']}, your supply holds {state.supply[player]}).")
        if frame["may_stop"]:
            notes.append("Or declare a building stop: you score 1 VP per skyscraper in the district, the others "
                         "half their normal score, and the district leaves the game.")
    elif frame["kind"] == "turn" and frame["phase"] in PHASES:
        notes.append(f"Still to do this turn: {phase_text(state, frame['phase'])}.")
    return notes


def owed_this_turn(state: State, player: int) -> str | None:
    """What ``player`` still owes of their own turn, once any auctions are over."""
    for frame in reversed(state.frames):
        if frame["kind"] == "turn":
            if frame["player"] == player and frame["phase"] in PHASES:
                return phase_text(state, frame["phase"])
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


def bid_reach(state: State) -> dict[str, Any] | None:
    """What the player who must bid now can bid with, for the first screen of their mail: ``cards``, [(color,
    [values])] of the allowed colors they hold (only the color of their bid once they have bid) and black, those
    alone that take part in a legal bid when there is one;
    ``most``, the most their bid can come to (their cards on the table, every card of their best allowed color
    and every black card; 0 when they can only pass); ``high``, the high bid to beat. None outside an auction.
    Only the bidder's own mail may show it: it is their hand."""
    if state.is_terminal() or state.frames[-1]["kind"] != "auction":
        return None
    frame = state.frames[-1]
    player = current_player(state)
    hand = state.hands[player]
    own = frame["bids"].get(str(player))
    colors = [own["color"]] if own is not None else allowed_bid_colors(state, frame, player)[0]
    held = [c for c in colors if c and sum(hand[c])]

    def worth(color: str) -> int:
        return sum(v * n for v, n in zip(VALUES, hand[color]))

    on_table = sum(v * (a + b) for v, a, b in zip(VALUES, own["colored"], own["black"])) if own else 0
    high = high_bid(frame)[1]
    need = max(1, high + 1 - on_table)  # what the added cards must come to
    # Only the colors that take part in a legal bid: every card of the color and every black card beat the high
    # bid. (Listing a color that cannot, and then refusing its bid, misled in 1% of auction decisions.) When none
    # can, the cards are listed all the same, with the most they come to, which the mail says does not beat it.
    beating = [c for c in held if worth(c) + worth(BLACK) >= need]
    black_beats = sum(hand[BLACK]) > 0 and (bool(beating) if own is None else
                                            worth(own["color"]) + worth(BLACK) >= need)
    if beating or black_beats:
        held = beating
        can_bid, blacks = True, black_beats
    else:
        can_bid = bool(held) or (own is not None and sum(hand[BLACK]) > 0)
        blacks = can_bid and sum(hand[BLACK]) > 0
    most = on_table + max((worth(c) for c in held), default=0) + worth(BLACK) if can_bid else 0
    cards = [(c, _values(hand[c])) for c in held] + ([(BLACK, _values(hand[BLACK]))] if blacks else [])
    return {"cards": cards, "most": most, "high": high}


def _values(counts: list[int]) -> list[int]:
    return [v for v, n in zip(VALUES, counts) for _ in range(n)]


def decision_context(state: State) -> tuple[str, str]:
    """The context of the decision now due, as a key and in words ('the auction for 34th Street West').

    A reply to a mail that asked for one decision applies only while the game is still in that decision's
    context: one player's own turn with all its phases (so a turn can be sent in several replies to one mail),
    one auction of one district, one build decision, one starting placement. "opened" tells this turn or
    auction from an earlier one of the same player or district (states saved before it existed lack it)."""
    if state.is_terminal():
        return "over", "the end of the game"
    frame = state.frames[-1]
    opened = frame.get("opened", "")
    kind = frame["kind"]
    if kind == "placement":
        player = frame["order"][frame["index"]]
        return f"placement:{frame['index']}", f"player {player + 1}'s starting skyscraper"
    if kind == "turn":
        return f"turn:{frame['player']}:{opened}", f"player {frame['player'] + 1}'s turn"
    if kind == "auction":
        return f"auction:{frame['site']}:{opened}", f"the auction for {state.board.name(frame['site'])}"
    if kind == "build":
        return (f"build:{frame['site']}:{opened}",
                f"player {frame['winner'] + 1}'s building on {state.board.name(frame['site'])}")
    raise AssertionError(kind)


def legal_shapes(state: State) -> list[str]:
    """The legal commands as a few shapes (``pbem.games.legal.compact``); bids, whose card combinations run
    into the hundreds, as one line a color: the cards that may go in and the total to beat."""
    legal = state.legal_commands()
    if state.is_terminal() or state.frames[-1]["kind"] != "auction":
        return compact(legal)
    colors: dict[str, tuple[Counter[str], Counter[str]]] = {}
    for command in legal:
        words = command.split()
        if words[0] != "bid":
            continue
        own, black = colors.setdefault(words[1], (Counter(), Counter()))
        cards: Counter[str] = Counter()
        blacks: Counter[str] = Counter()
        target = cards
        for word in words[2:]:
            if word == "black":
                target = blacks
            else:
                target[word] += 1
        own |= cards
        black |= blacks
    _, high = high_bid(state.frames[-1])
    shapes = compact([c for c in legal if not c.startswith("bid ")])
    for color, (own, black) in colors.items():
        shape = f"bid {color} <some of {' '.join(sorted(own.elements()))}>"
        if black:
            shape += f" [black <some of {' '.join(sorted(black.elements()))}>]"
        shapes.append(shape + (f", worth more than {high} in all" if high else ""))
    return shapes


__all__ = ["PUBLIC_EVENTS", "RESULT_EVENTS", "build_limit", "decision_context", "legal_shapes", "decision_notes",
           "hand_text", "owed_this_turn", "turn_owner"]


def event_text(state: State, event: dict, reader: int | None) -> str:
    """The event's public words for ``reader`` (a seat, or None for the moderator): Fifth Avenue's words are the
    same for every reader, so ``event["text"]`` (Manhattan numbers sites from each reader's side)."""
    return event["text"]


__all__ += ["event_text"]


# Every command, for the help players are mailed: its shape, an example the parser reads, what it does and the
# section of docs/rules.md ("2. The rules as implemented") that holds its rule. The grammar is docs/rules.md 4.
COMMAND_HELP: tuple[CommandHelp, ...] = (
    CommandHelp(
        "place", "place <district> <color>", "place 42W gray", "a starting skyscraper",
        "Before the first turn: put a skyscraper of yours on an empty plot of that color; each player places "
        "two, the second in another district.",
        "2.1", "setup"),
    CommandHelp(
        "A", "A", "A", "take 3 skyscrapers",
        "Action A: move 3 skyscrapers from the general supply into your own supply; then take cards and move "
        "a commissioner.",
        "2.2", "action A", also=("action A",)),
    CommandHelp(
        "B", "B <business> <district> <plot color>", "B gallery 42W gray", "place a business",
        "Action B: put a business of the current set on a plot that has no skyscraper and fewer than two "
        "businesses; then take cards and move a commissioner.",
        "2.3", "businesses"),
    CommandHelp(
        "C", "C <commissioner> <destination>", "C white 34W", "black card, then a move",
        "Action C: draw a black card and move a commissioner one step; then take cards and move a "
        "commissioner again.",
        "2.2", "action C"),
    CommandHelp(
        "D", "D [<district>]", "D 42W", "score a district",
        "Action D: score a district where a commissioner stands (the district may be left out when only one "
        "can be scored); you draw 2 black cards, and every player without a skyscraper there draws 1; then "
        "move a commissioner.",
        "2.5", "action D"),
    CommandHelp(
        "cards", "cards <color> <color>", "cards green violet", "take two colored cards",
        "After action A, B or C: take the top cards of two colored stacks of different colors (one color when "
        "only one stack has cards).",
        "2.2", "phase 2", also=("card", "take")),
    CommandHelp(
        "move", "move <commissioner> <destination>", "move beige 34E", "move a commissioner",
        "The end of every turn: move a commissioner one step along its path; from Central Park back to City "
        "Hall it starts the auctions.",
        "2.4", "commissioners"),
    CommandHelp(
        "bid", "bid <color> <values> [black <values>]", "bid gray 4 black 5", "bid in an auction",
        "In an auction: lay these cards next to the ones you already bid; your first card sets the color, "
        "black cards go with any, and your total must beat the high bid. A standing bid, 'bid up to <total> "
        "[<color>]' (also before your turn, for example 'bid up to 12 gray'): at each of your turns pbem bids "
        f"for you up to that total and passes when it cannot; its cards are {CARD_RULE}. Nobody else sees the "
        "total; a new one replaces it, 'bid cancel' ends it. For the auctions of a whole set at once, name each "
        "before its order: '42W: up to 12 gray; TS: pass; CP: up to 8' ('42W: build max' orders the build; "
        "'rest: pass' passes wherever you have no standing bid). 'orders on', a line of its own, mails you "
        "the whole set at the start of every set, the game's first included, so that you can answer it at "
        "once; 'orders off' stops it.",
        "2.6", "auctions", also=("raise", "add")),
    CommandHelp(
        "pass", "pass", "pass", "leave an auction",
        "In an auction: take your cards back and drop out of this auction.",
        "2.6", "auctions"),
    CommandHelp(
        "build", "build <n>", "build 2", "build after winning",
        "After winning an auction: build that many skyscrapers from your own supply (0 up to what your cards "
        "allow).",
        "2.6", "build limit"),
    CommandHelp(
        "stop", "stop", "stop", "declare a building stop",
        "After winning an auction in a full district: declare a building stop, which scores the district and "
        "takes it out of the game.",
        "2.7", "building stop", also=("stop building",)),
)

__all__ += ["COMMAND_HELP"]


def decision_request(state: State) -> str:
    """The decision now due as its player reads it, in a line a mail can open with: 'Your turn: choose an
    action', 'Bid or pass: the auction for Times Square'."""
    frame = state.frames[-1]
    kind = frame["kind"]
    if kind == "placement":
        return "Your turn: place a starting skyscraper"
    if kind == "turn":
        wanted = cards_wanted(state).split(" (")[0]
        return {1: "Your turn: choose an action",
                2: f"Your turn: take {wanted}, then move a commissioner",
                3: "Your turn: move a commissioner"}[frame["phase"]]
    site = state.board.name(frame["site"])
    if kind == "auction":
        _, high = high_bid(frame)
        return f"Bid or pass: the auction for {site}" + (f" (high bid {high})" if high else "")
    player = current_player(state)
    most = min(frame["limit"], state.supply[player])
    stop = " or declare a building stop" if frame["may_stop"] else ""
    return f"You won {site}: build up to {most} skyscraper{'s' if most != 1 else ''}{stop}"


__all__ += ["bid_reach", "decision_request"]


def set_orders(state: State, seat: int) -> list[str]:
    """What a bidder is told of a set of auctions (issue 43, point 3; D48): the auctions in their order (the
    districts, then Central Park), what ``seat`` may bid in each as things stand, and how to answer them all
    in one mail with orders. In a bidder's first game mail after the set began (services.mail_out.notices); a
    mail of its own at the set's start only to those ``orders_wanted`` names."""
    running, sites = auction_set(state)
    build = next((f for f in state.frames if f["kind"] == "build"), None)  # its auction is over: a winner builds
    open_sites = [site for site in sites if build is None or site != build["site"]]
    if not open_sites or seat >= state.players:
        return []
    board, hand = state.board, state.hands[seat]
    lines = ["The auctions of this set, in their order: " + ", then ".join(board.name(s) for s in sites) + "."]
    for site in sites:
        if site not in open_sites:
            winner = build["winner"]
            by = "the robot" if winner == state.robot else f"player {winner + 1}"
            lines.append(f"  {site}: you won it and build there now." if winner == seat else
                         f"  {site}: won by {by}, who builds there now.")
            continue
        frame = next((f for f in state.frames if f.get("site") == site and f["kind"] == "auction"),
                     {"site": site, "color": None})
        colors = [c for c in allowed_bid_colors(state, frame, seat)[0] if sum(hand[c])]
        if not colors:
            lines.append(f"  {site}: you hold no card of a colour you may bid there.")
            continue
        reach = max(sum(v * n for v, n in zip(VALUES, hand[c])) for c in colors) + sum(
            v * n for v, n in zip(VALUES, hand[BLACK]))
        lines.append(f"  {site}: you may bid {' or '.join(colors)}, up to {reach} with black.")
    example = open_sites[0]
    lines.append(f"Answer them all at once with orders, one a line or separated by ';', for example: "
                 f"'{example}: up to 12; {example}: build max"
                 + (f"; {open_sites[-1]}: pass" if len(open_sites) > 1 else "") + "'. pbem bids "
                 "for you at your turns and asks you only where no order of yours answers.")
    return lines


def orders_wanted(state: State, seat: int) -> bool:
    """Whether ``seat`` is mailed at once when a set of auctions begins, though the set does not ask them yet:
    they have given an order in this game. The others read the set in the mail they get then anyway (the
    trigger's answer, the first bidder's call to bid) or in their next game mail, their first call to bid of
    the set as a rule, so a player
    who never uses orders gets no more mails than before orders existed (issue 43, point 8)."""
    return seat in state.order_seats


__all__ += ["orders_wanted", "set_orders"]
