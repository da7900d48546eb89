"""The rules of Manhattan: setup, legality, and applying a command.

Pure functions over :class:`~.state.State`: no I/O, no clock; randomness only
from the state's own seeded RNG. Every rule cites its source in the Manhattan
part of ``docs/rules.md``; decisions where the rulebook is silent (M1, M2, ...)
are recorded there.

Flow: ``apply_action`` checks a command completely before it changes anything,
applies it, then ``_advance`` resolves every step that needs no decision (a
choice of parts that has only one option, a card play or pass that is the
builder's only legal command, the round's scoring, the next round, the end)
until somebody must decide again.

Why one module of this length: the rules engine is the exception the house plan allows (docs/architecture.md):
every rule of Manhattan reads and changes the same state, and a turn is followed best by reading its rules in one
place, in the order the rulebook gives them.
"""

from __future__ import annotations

import copy
from itertools import product
from typing import Any

from ..base import Event, make_event as _event
from ..errors import (
    AmbiguousCommandError,
    GameOverError,
    IllegalCommandError,
    NotYourTurnError,
)
from ..rng import Rng
from .actions import Action, Choose, Pass, Play, parse_command
from .board import SITES, absolute_site, load_board, seat_colors, seat_sides, seating, seen_from
from .state import BUILD, CHOOSE, OVER, TERMINAL, State


Tower = list[list[Any]]  # parts bottom to top, each [color, size]


# =========================================================================== setup


def new_game(players: int, seed: int, **options: Any) -> State:
    """Set up a game: the deck shuffled from ``seed`` and four cards dealt to each seat."""
    if options:
        raise ValueError(f"Manhattan has no option {', '.join(repr(k) for k in sorted(options))}")
    board = load_board()
    if players not in board.seating:
        raise ValueError("Manhattan is for 2, 3 or 4 players")
    rng = Rng(seed)
    deck = [card for card in range(1, SITES + 1) for _ in range(board.cards_per_site)]
    rng.shuffle(deck)
    hands: list[list[int]] = [[] for _ in range(players)]
    start = 0  # seat 1 is the first start player (M2)
    for _ in range(board.hand_size):  # one card at a time, from the start player clockwise
        for i in range(players):
            hands[(start + i) % players].append(deck.pop(0))
    for hand in hands:
        hand.sort()
    colors = [c for seat in seat_colors(players) for c in seat]
    state = State(
        seed=seed,
        rng=rng.state,
        players=players,
        round=1,
        start=start,
        phase=CHOOSE,
        turn=start,
        choosers=_choosers(players, start),
        hands=hands,
        deck=deck,
        played=[[] for _ in range(players)],
        supply={c: list(board.parts) for c in colors},
        chosen={c: [0] * len(board.parts) for c in colors},
        boxed={c: [0] * len(board.parts) for c in colors},
        cities={code: [[] for _ in range(SITES)] for code in board.city_codes},
        scores=[0] * players,
        color_scores={c: 0 for c in colors},
    )
    _advance(state, [])
    return state


def _choosers(players: int, start: int) -> list[int]:
    """Who chooses parts this round, in order: the start player, then clockwise; a seat once per color."""
    colors = seat_colors(players)
    return [seat for i in range(players) for seat in [(start + i) % players] * len(colors[(start + i) % players])]


# =========================================================================== towers


def tower_owner(tower: Tower) -> str | None:
    """A tower belongs to the color of its top part (M6)."""
    return tower[-1][0] if tower else None


def tower_floors(tower: Tower) -> dict[str, int]:
    """Stories per color in a tower (floors, not parts)."""
    floors: dict[str, int] = {}
    for color, size in tower:
        floors[color] = floors.get(color, 0) + size
    return floors


def tower_height(tower: Tower) -> int:
    return sum(size for _, size in tower)


def may_build(tower: Tower, color: str, size: int, own: tuple[str, ...] | list[str] = ()) -> bool:
    """The ownership rule: free on an empty site or on the builder's own tower (one topped by ``color`` or by
    any of ``own``, the builder's colors: a 2-player seat has two, M7); on another player's tower only if
    afterwards ``color`` has at least as many floors in it as the owner's color had (M6)."""
    owner = tower_owner(tower)
    if owner is None or owner == color or owner in own:
        return True
    floors = tower_floors(tower)
    return floors.get(color, 0) + size >= floors[owner]


def site_of(state: State, player: int, card: int) -> int:
    """The site (numbered as seen from side 0) that ``card`` names for ``player``."""
    return absolute_site(seat_sides(state.players)[player], card)


def two_colors(state: State) -> bool:
    return len(seat_colors(state.players)[0]) > 1


# =========================================================================== queries


def current_player(state: State) -> int:
    return TERMINAL if state.result is not None else state.turn


def parts_asked(state: State, color: str) -> int:
    """How many parts of ``color`` are chosen this round: 6 with 4 players, 4 otherwise (per color with 2).

    The counts work out exactly (24 = 4 x 6 = 6 x 4), so the supply never holds fewer; M9 covers it anyway.
    """
    return min(seating(state.players).parts_per_round, sum(state.supply[color]))


def colors_to_choose(state: State, player: int) -> list[str]:
    return [c for c in seat_colors(state.players)[player] if not sum(state.chosen[c])]


def choose_options(supply: list[int], count: int) -> list[tuple[int, ...]]:
    """Every distinct multiset of ``count`` parts the supply holds, as ascending sizes, smallest first."""
    options = []
    ranges = [range(min(n, count) + 1) for n in supply]
    for counts in product(*ranges):
        if sum(counts) == count:
            options.append(tuple(size for size, n in enumerate(counts, start=1) for _ in range(n)))
    options.sort()
    return options


def parts_left(counts: list[int]) -> list[int]:
    """Counts by size as a list of sizes: [2, 1, 0, 1] -> [1, 1, 2, 4]."""
    return [size for size, n in enumerate(counts, start=1) for _ in range(n)]


# =========================================================================== legal actions


def legal_actions(state: State) -> list[Action]:
    if state.result is not None:
        return []
    player = state.turn
    if state.phase == CHOOSE:
        return _choose_actions(state, player)
    plays = _play_actions(state, player)
    return plays if plays else _pass_actions(state, player)


def _choose_actions(state: State, player: int) -> list[Action]:
    named = two_colors(state)
    actions: list[Action] = []
    for color in colors_to_choose(state, player):
        for sizes in choose_options(state.supply[color], parts_asked(state, color)):
            actions.append(Choose(color if named else None, sizes))
    return actions


def _play_actions(state: State, player: int) -> list[Action]:
    named = two_colors(state)
    side = seat_sides(state.players)[player]
    mine = [(c, [s for s, n in enumerate(state.chosen[c], start=1) if n]) for c in seat_colors(state.players)[player]]
    mine = [(c, sizes) for c, sizes in mine if sizes]
    own = seat_colors(state.players)[player]
    actions: list[Action] = []
    for card in sorted(set(state.hands[player])):
        index = absolute_site(side, card) - 1
        for city, sites in state.cities.items():
            tower = sites[index]
            owner = tower_owner(tower)
            floors = tower_floors(tower) if owner is not None else {}
            for color, sizes in mine:
                for size in sizes:
                    if owner is None or owner in own or floors.get(color, 0) + size >= floors[owner]:
                        actions.append(Play(card, city, color if named else None, size))
    return actions


def _forced_choice(state: State, player: int) -> Choose | None:
    """The choice of a color that has one option only (the last round's, M8); None if every choice is open."""
    for color in colors_to_choose(state, player):
        options = choose_options(state.supply[color], parts_asked(state, color))
        if len(options) == 1:
            return Choose(color if two_colors(state) else None, options[0])
    return None


def _pass_actions(state: State, player: int) -> list[Action]:
    named = two_colors(state)
    actions: list[Action] = []
    for card in sorted(set(state.hands[player])):
        for color in seat_colors(state.players)[player]:
            for size, n in enumerate(state.chosen[color], start=1):
                if n:
                    actions.append(Pass(card, color if named else None, size))
    return actions


# =========================================================================== words


def _who(player: int) -> str:
    return f"player {player + 1}"


def color_label(state: State, color: str) -> str:
    """'player 2 (red)': the services put the player's name in."""
    return f"{_who(state.seat_of(color))} ({color})"


# The place of a site in an event's template (``template``): ``guide.event_text`` puts the site there in the
# reader's own numbering; the event's ``city`` and ``site`` (numbered as seen from side 0) say which (M18).
SITE = "{site}"


def site_words(state: State, city: str, site: int, reader: int | None) -> str:
    """'site 3 of Sydney': ``site`` (numbered as seen from side 0) as ``reader`` numbers it from their own side,
    which is the number of the card that builds there for them (M4, M18). ``reader`` None (the moderator, the
    public): player 1's numbering, and the words say so."""
    name = state.board.name(city)
    if reader is not None and 0 <= reader < state.players:
        return f"site {seen_from(seat_sides(state.players)[reader], site)} of {name}"
    return f"site {site} of {name} (numbered from player 1's side)"


def _sizes_text(sizes: list[int] | tuple[int, ...]) -> str:
    return " ".join(str(s) for s in sizes) or "none"


def _cards_text(cards: list[int]) -> str:
    return ", ".join(str(c) for c in cards) or "none"


def describe_decision(state: State, viewer: int | None = None) -> str:
    """One sentence saying what the game waits for, as ``viewer`` may read it.

    That a player can build nowhere follows from their hand, so only that player (``viewer`` is the player to
    move) is told it; everybody else reads the sentence of an ordinary turn, which names passing too.
    """
    if state.result is not None:
        return "the game is over."
    player = state.turn
    who = _who(player)
    named = two_colors(state)
    if state.phase == CHOOSE:
        colors = colors_to_choose(state, player)
        count = parts_asked(state, colors[0])
        if named:
            return (f"{who} chooses {count} {' or '.join(colors)} parts for round {state.round} "
                    f"(choose <color> <sizes>).")
        return f"{who} chooses {count} parts for round {state.round} (choose <sizes>)."
    if viewer != player:
        return f"{who} plays a card and builds a part, or passes if no card of theirs can build."
    if legal_actions(state) and isinstance(legal_actions(state)[0], Pass):
        form = "pass <card> <color> <size>" if named else "pass <card> <size>"
        return f"{who} can build no part anywhere with their cards and passes ({form})."
    form = "play <card> <city> <color> <size>" if named else "play <card> <city> <size>"
    return f"{who} plays a card and builds a part ({form})."


# =========================================================================== parsing with the rules


def parse(state: State, player: int, text: str) -> Action:
    """Read ``text`` as ``player``'s command, complete its color and check it is legal now."""
    action = parse_command(state.board, text)
    _check_turn(state, player)
    action = _complete(state, player, action)
    check(state, player, action)
    return action


def _check_turn(state: State, player: int) -> None:
    if state.result is not None:
        raise GameOverError("The game is over; no more commands are accepted.")
    if player != state.turn:
        raise NotYourTurnError(f"It is not your turn: {describe_decision(state)}")


def _legal_strings(state: State) -> list[str]:
    return [str(a) for a in legal_actions(state)]


def _examples(state: State, limit: int = 6) -> str:
    legal = _legal_strings(state)
    shown = ", ".join(f"'{c}'" for c in legal[:limit])
    return f"Legal now: {shown}" + (f" ... ({len(legal)} in all)." if len(legal) > limit else ".")


def _complete(state: State, player: int, action: Action) -> Action:
    """Fill in or drop the color: canonical actions name a color only in the 2-player game."""
    own = seat_colors(state.players)[player]
    if action.color is not None and action.color not in own:
        raise IllegalCommandError(
            f"You play {' and '.join(own)}, not {action.color}. {_examples(state)}", _legal_strings(state))
    if len(own) == 1:
        return _with_color(action, None)
    if action.color is not None:
        return action
    if isinstance(action, Choose):
        if state.phase != CHOOSE:
            return action  # check() explains that choosing does not fit now
        options = [c for c in colors_to_choose(state, player)
                   if action.sizes in choose_options(state.supply[c], parts_asked(state, c))]
    else:
        options = [c for c in own if state.chosen[c][action.size - 1]]
        if (isinstance(action, Play) and len(options) > 1 and state.phase == BUILD
                and action.card in state.hands[player]):
            # Offer only the colors that may build there; if none may, the one closest to it, which check()
            # refuses with the reason.
            tower = state.cities[action.city][site_of(state, player, action.card) - 1]
            fits = [c for c in options if may_build(tower, c, action.size, own)]
            floors = tower_floors(tower)
            options = fits or [max(options, key=lambda c: floors.get(c, 0))]
    if len(options) == 1:
        return _with_color(action, options[0])
    if not options:
        return action  # check() explains what is wrong
    candidates = [str(_with_color(action, c)) for c in options]
    raise AmbiguousCommandError(
        f"Say which color: {' or '.join(repr(c) for c in candidates)}.", candidates)


def _with_color(action: Action, color: str | None) -> Action:
    if isinstance(action, Choose):
        return Choose(color, action.sizes)
    if isinstance(action, Play):
        return Play(action.card, action.city, color, action.size)
    return Pass(action.card, color, action.size)


def check(state: State, player: int, action: Action) -> None:
    """Raise a typed error, with the legal alternatives, unless ``action`` is legal now."""
    _check_turn(state, player)
    legal = lambda: _legal_strings(state)

    def illegal(message: str) -> IllegalCommandError:
        return IllegalCommandError(f"{message} {_examples(state)}", legal())

    board = state.board
    named = two_colors(state)
    own = seat_colors(state.players)[player]
    if isinstance(action, Choose):
        if state.phase != CHOOSE:
            raise illegal(f"'{action}' does not fit now: {describe_decision(state, state.turn)}")
        if not named and action.color is not None:
            raise illegal(f"Name no color when you choose: 'choose {_sizes_text(action.sizes)}'.")
        color = action.color or own[0]
        if named and action.color is None:
            color = _choice_without_color(state, player, action, illegal)
        if color not in colors_to_choose(state, player):
            raise illegal(f"You have already chosen your {color} parts for this round.")
        count = parts_asked(state, color)
        supply = state.supply[color]
        if len(action.sizes) != count:
            raise illegal(f"Choose exactly {count} parts, not {len(action.sizes)}.")
        for size in board.sizes:
            wanted = action.sizes.count(size)
            if wanted > supply[size - 1]:
                raise illegal(f"You have only {supply[size - 1]} {color} part(s) of {size} stories left, not "
                              f"{wanted}; your supply: {_sizes_text(parts_left(supply))}.")
        return
    if state.phase != BUILD:
        raise illegal(f"'{action}' does not fit now: {describe_decision(state, state.turn)}")
    if named and action.color is None:
        raise illegal(f"You have no {action.size}-story part left to place.")
    if not named and action.color is not None:
        raise illegal(f"Name no color: '{_with_color(action, None)}'.")
    color = action.color or own[0]
    hand = state.hands[player]
    if action.card not in hand:
        raise illegal(f"You have no card {action.card}: your cards are {_cards_text(hand)}.")
    if not state.chosen[color][action.size - 1]:
        mine = "; ".join(f"{c} {_sizes_text(parts_left(state.chosen[c]))}" for c in own) if named else \
            _sizes_text(parts_left(state.chosen[color]))
        raise illegal(f"You have no {action.size}-story {color + ' ' if named else ''}part left to place this "
                      f"round; your parts: {mine}.")
    if isinstance(action, Pass):
        if _play_actions(state, player):
            raise illegal("You can still build a part, so you may not pass.")
        return
    site = site_of(state, player, action.card)
    tower = state.cities[action.city][site - 1]
    if not may_build(tower, color, action.size, own):
        owner = tower_owner(tower)
        floors = tower_floors(tower)
        have = floors.get(color, 0)
        need = floors[owner] - have
        tallest = max(board.sizes)
        if need > tallest:
            advice = (f"no part is tall enough for that (parts have at most {tallest} stories), so "
                      f"{'your ' + color if named else 'you'} cannot build there")
        else:
            advice = f"so a part of at least {need} stories"
            held = [size for size in board.sizes if size >= need and state.chosen[color][size - 1]]
            if not held:
                advice += ", and you have none left to place this round"
        # The site in the acting player's own numbering: the number of the card they played (M18).
        raise illegal(
            f"You cannot build a {action.size}-story part on {site_words(state, action.city, site, player)} "
            f"(your card {action.card}): that tower belongs to {color_label(state, owner)} with {floors[owner]} "
            f"{owner} floors, and you would have {have + action.size} {color} floors there; you need at least "
            f"{floors[owner]}, {advice}.")


def _choice_without_color(state: State, player: int, action: Choose, illegal: Any) -> str:
    """A 2-player choice without a color that fits none of the colors still to choose: name the real fault
    (the count asked, or what is left of each color). With one color still to choose, that color: the checks
    that follow explain the fault for it."""
    colors = colors_to_choose(state, player)
    if len(colors) == 1:
        return colors[0]
    counts = sorted({parts_asked(state, c) for c in colors})
    if len(action.sizes) not in counts:
        raise illegal(f"Choose exactly {' or '.join(str(n) for n in counts)} parts, not {len(action.sizes)}.")
    left = "; ".join(f"{c} {_sizes_text(parts_left(state.supply[c]))}" for c in colors)
    raise illegal(f"Neither of your colors has the parts {_sizes_text(action.sizes)} left in the box; "
                  f"left: {left}.")


# =========================================================================== applying


def apply_action(state: State, player: int, action: Action) -> list[Event]:
    check(state, player, action)
    events: list[Event] = []
    if isinstance(action, Choose):
        _choose(state, player, action, events, forced=False)
    elif isinstance(action, Play):
        _play(state, player, action, events)
    else:
        _pass(state, player, action, events)
    state.moves += 1
    _advance(state, events)
    return events


def _choose(state: State, player: int, action: Choose, events: list[Event], forced: bool) -> None:
    color = action.color or seat_colors(state.players)[player][0]
    for size in action.sizes:
        state.supply[color][size - 1] -= 1
        state.chosen[color][size - 1] += 1
    state.choosers.pop(0)
    what = f"{color} parts {_sizes_text(action.sizes)}" if action.color else f"parts {_sizes_text(action.sizes)}"
    events.append(_event("chose", player, f"chose {what}" + (" (the only choice left)" if forced else ""),
                         color=color, sizes=list(action.sizes), forced=forced))


def _play(state: State, player: int, action: Play, events: list[Event]) -> None:
    color = action.color or seat_colors(state.players)[player][0]
    site = site_of(state, player, action.card)
    tower = state.cities[action.city][site - 1]
    before = tower_owner(tower)
    state.hands[player].remove(action.card)
    state.played[player].append(action.card)
    state.chosen[color][action.size - 1] -= 1
    tower.append([color, action.size])
    height = tower_height(tower)
    part = f"{action.size}-story {color + ' ' if action.color else ''}part"
    template = f"played card {action.card} and built a {part} on {SITE}"
    if before is None:
        template += f": a new tower of {height} stor{'y' if height == 1 else 'ies'}"
    elif before == color:
        template += f": {height} stories now"
    elif before in seat_colors(state.players)[player]:
        template += f": {height} stories now, {color} instead of {before}"  # the player's own tower (M7)
    else:
        template += f": {height} stories now, taken over from {color_label(state, before)}"
    text = template.replace(SITE, site_words(state, action.city, site, 0))  # player 1's numbering, as ever
    at = len(events)  # the build is told before a reshuffle its draw causes
    drawn = _draw(state, player, events)
    events.insert(at, _event(
        "built", player, text, private=_drawn_text(player, drawn), card=action.card, city=action.city, site=site,
        color=color, size=action.size, height=height, owner=color, previous_owner=before, template=template))
    _next_turn(state)


def _pass(state: State, player: int, action: Pass, events: list[Event]) -> None:
    color = action.color or seat_colors(state.players)[player][0]
    state.hands[player].remove(action.card)
    state.played[player].append(action.card)
    state.chosen[color][action.size - 1] -= 1
    state.boxed[color][action.size - 1] += 1
    part = f"{action.size}-story {color + ' ' if action.color else ''}part"
    text = f"could build no part anywhere: played card {action.card} and put a {part} back in the box"
    reshuffles = len(events)
    drawn = _draw(state, player, events)
    events.insert(reshuffles, _event("passed", player, text, private=_drawn_text(player, drawn), card=action.card,
                                     color=color, size=action.size))
    _next_turn(state)


def _drawn_text(player: int, drawn: int | None) -> dict[int, str]:
    return {player: f"You drew card {drawn}." if drawn is not None else "There was no card to draw."}


def _draw(state: State, player: int, events: list[Event]) -> int | None:
    """Draw the top card; an empty deck is first rebuilt from every played card, shuffled (M11)."""
    if not state.deck:
        cards = [card for pile in state.played for card in pile]
        if not cards:
            return None  # cannot happen with 45 cards and at most 16 in hands; kept total for safety
        rng = Rng(state.rng)
        rng.shuffle(cards)
        state.rng = rng.state
        state.deck = cards
        state.played = [[] for _ in range(state.players)]
        events.append(_event("reshuffled", None, f"the deck ran out: the {len(cards)} played cards were shuffled "
                                                 "into a new deck", cards=len(cards)))
    card = state.deck.pop(0)
    state.hands[player].append(card)
    state.hands[player].sort()
    return card


def _next_turn(state: State) -> None:
    """The next seat clockwise that still has parts to place this round (every seat has, until the end)."""
    for step in range(1, state.players + 1):
        seat = (state.turn + step) % state.players
        if any(sum(state.chosen[c]) for c in seat_colors(state.players)[seat]):
            state.turn = seat
            return


# ------------------------------------------------------------------ the automatic steps


def _advance(state: State, events: list[Event]) -> None:
    """Resolve everything that needs no decision, until someone must decide."""
    while state.result is None:
        if state.phase == CHOOSE:
            if not state.choosers:
                state.phase = BUILD
                state.turn = state.start
                return
            state.turn = state.choosers[0]
            forced = _forced_choice(state, state.turn)
            if forced is None:
                return
            _choose(state, state.turn, forced, events, forced=True)  # M8: a choice without options
        elif state.phase == BUILD:
            if any(sum(parts) for parts in state.chosen.values()):
                if not _play_the_only_choice(state, events):
                    return
                continue
            _score_round(state, events)
            if state.round >= state.rounds:
                _end_game(state, events)
            else:
                state.round += 1
                state.start = (state.start + 1) % state.players
                state.phase = CHOOSE
                state.choosers = _choosers(state.players, state.start)
                state.turn = state.start
                events.append(_event("new_round", state.start, f"is the start player of round {state.round}",
                                     round=state.round))
        else:
            raise AssertionError(state.phase)


def _play_the_only_choice(state: State, events: list[Event]) -> bool:
    """Play the card play or pass that is the builder's only legal command (M20); False when there is a choice."""
    actions = legal_actions(state)
    if len(actions) != 1:
        return False
    player, action = state.turn, actions[0]
    events.append(_event("forced", player, f"had only one legal command ({action}), so pbem played it for them"))
    if isinstance(action, Play):
        _play(state, player, action, events)
    else:
        _pass(state, player, action, events)
    state.moves += 1  # a decision made, as if sent: a reply to the mail that asked it is stale (D41)
    return True


# ------------------------------------------------------------------ scoring


def round_points(state: State) -> dict[str, Any]:
    """What the board scores now (M12): the single tallest tower 3, each city's single majority 2, 1 a tower.

    Pure; colors are scored on their own (a 2-player seat adds its two colors).
    """
    board = state.board
    colors = list(state.color_scores)
    color_points = {c: 0 for c in colors}
    towers = {c: 0 for c in colors}
    majorities: dict[str, str | None] = {}
    best_height, best = 0, []
    for city, sites in state.cities.items():
        in_city = {c: 0 for c in colors}
        for index, tower in enumerate(sites):
            owner = tower_owner(tower)
            if owner is None:
                continue
            in_city[owner] += 1
            towers[owner] += 1
            color_points[owner] += board.tower_points
            height = tower_height(tower)
            if height > best_height:
                best_height, best = height, [(city, index + 1, owner)]
            elif height == best_height:
                best.append((city, index + 1, owner))
        most = max(in_city.values())
        leaders = [c for c, n in in_city.items() if n == most]
        majorities[city] = leaders[0] if most and len(leaders) == 1 else None
        if majorities[city] is not None:
            color_points[majorities[city]] += board.majority_points
    tallest = None
    if len(best) == 1:
        city, site, owner = best[0]
        tallest = {"city": city, "site": site, "color": owner, "height": best_height}
        color_points[owner] += board.tallest_points
    points = [sum(color_points[c] for c in seat) for seat in seat_colors(state.players)]
    return {"round": state.round, "tallest": tallest, "tallest_tied": len(best) if len(best) > 1 else 0,
            "tallest_height": best_height, "majorities": majorities, "towers": towers,
            "color_points": color_points, "points": points}


def _score_round(state: State, events: list[Event]) -> None:
    board = state.board
    scored = round_points(state)
    for color, pts in scored["color_points"].items():
        state.color_scores[color] += pts
    for seat, pts in enumerate(scored["points"]):
        state.scores[seat] += pts
    state.history.append(scored)
    parts = []
    tallest = scored["tallest"]
    if tallest:
        parts.append(f"the tallest tower ({tallest['height']} stories, {SITE}) gives "
                     f"{color_label(state, tallest['color'])} {board.tallest_points}")
    elif scored["tallest_tied"]:
        parts.append(f"{scored['tallest_tied']} towers tie as tallest ({scored['tallest_height']} stories): "
                     "no points for it")
    won = [f"{board.name(city)} to {color_label(state, color)}" for city, color in scored["majorities"].items()
           if color]
    parts.append("majorities: " + (", ".join(won) if won else "none"))
    parts.append("towers: " + ", ".join(f"{color_label(state, c)} {n}" for c, n in scored["towers"].items()))
    # The words before " (" are what a mail's subject shows ("result: round 2 scored").
    template = f"round {state.round} scored (" + "; ".join(parts) + ")"
    where: dict[str, Any] = {}
    if tallest:  # the site named, and the words to name it in each reader's numbering (M18)
        where = {"city": tallest["city"], "site": tallest["site"], "template": template}
        template = template.replace(SITE, site_words(state, tallest["city"], tallest["site"], 0))
    events.append(_event("round_scored", None, template, points=list(scored["points"]), round=state.round,
                         scoring=copy.deepcopy(scored), **where))


def _end_game(state: State, events: list[Event]) -> None:
    """The game ends after the last round's scoring; ties: most towers, then the tallest tower (M13)."""
    colors = seat_colors(state.players)
    towers = [0] * state.players
    tallest = [0] * state.players
    for sites in state.cities.values():
        for tower in sites:
            owner = tower_owner(tower)
            if owner is not None:
                seat = state.seat_of(owner)
                towers[seat] += 1
                tallest[seat] = max(tallest[seat], tower_height(tower))
    best = max(state.scores)
    tied = [p for p in range(state.players) if state.scores[p] == best]
    most = max(towers[p] for p in tied)
    by_towers = [p for p in tied if towers[p] == most]
    highest = max(tallest[p] for p in by_towers)
    winners = [p for p in by_towers if tallest[p] == highest]
    state.result = {
        "winners": winners, "scores": list(state.scores), "reason": "last_round", "rounds": state.round,
        "tied": tied, "towers": towers, "tallest": tallest,
        "color_scores": dict(state.color_scores), "colors": [list(c) for c in colors],
    }
    state.phase = OVER
    state.turn = TERMINAL
    state.choosers = []
    names = " and ".join(_who(p) for p in winners)
    how = f"{'share the win' if len(winners) > 1 else 'wins'} with {best} points"
    if len(tied) > 1:
        if len(winners) > 1:
            how += " (tied on points, towers and the tallest tower)"
        else:
            how += f" (tied on points; {'the most towers' if len(by_towers) == 1 else 'the tallest tower'} decides)"
    events.append(_event("game_over", None, f"the game is over: {names} {how}", result=copy.deepcopy(state.result)))


__all__ = ["describe_decision", "legal_actions", "may_build", "new_game", "parse", "round_points", "tower_floors",
           "tower_height", "tower_owner"]
