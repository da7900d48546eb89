"""What the player who must decide needs to know, in words.

The first note is public (the services show it to everybody who waits); the
rest is for the player who acts. Pure: it only reads the state.
"""

from __future__ import annotations

from typing import Any

from ..base import CommandHelp
from ..legal import compact
from .actions import Pass
from .board import seat_colors
from .rules import (
    CHOOSE,
    SITE,
    colors_to_choose,
    describe_decision,
    legal_actions,
    parts_asked,
    parts_left,
    site_words,
    two_colors,
)
from .state import State

SIDE_NOTE = ("A card names a site as seen from your side of the board (1 far left, 3 far right, 7 near left, "
             "9 near right), in any city you like.")
BUILD_NOTE = ("You build freely on an empty site or your own tower; on another player's tower only if afterwards "
              "you have at least as many floors (stories, not parts) there as its owner.")
# With two players a tower topped by either of your colors is your own (M7).
BUILD_NOTE_TWO = ("You build freely, with either color, on an empty site or a tower topped by either of your colors; "
                  "on the other player's tower only if afterwards the color you build with has at least as many "
                  "floors (stories, not parts) there as the tower's top color.")


def decision_notes(state: State) -> list[str]:
    """Sentences for the player who must act now."""
    if state.is_terminal():
        return ["The game is over."]
    player = state.current_player()
    first = describe_decision(state, player)
    notes = [first[0].upper() + first[1:]]
    hand = ", ".join(str(c) for c in state.hands[player]) or "none"
    named = two_colors(state)
    if state.phase == CHOOSE:
        for color in colors_to_choose(state, player):
            sizes = ", ".join(f"{n} of {size} stor{'y' if size == 1 else 'ies'}"
                              for size, n in enumerate(state.supply[color], start=1) if n)
            notes.append(f"Your {color + ' ' if named else ''}parts left in the box: {sizes}; choose "
                         f"{parts_asked(state, color)} of them, for example "
                         f"'{next(str(a) for a in legal_actions(state) if a.color in (color, None))}'.")
        others = [f"player {s + 1} chose {c + ' ' if named else ''}{' '.join(str(x) for x in parts_left(state.chosen[c]))}"
                  for s, cs in enumerate(seat_colors(state.players)) for c in cs if sum(state.chosen[c])]
        if others:
            notes.append("Chosen so far this round: " + "; ".join(others) + ".")
        notes.append(f"Round {state.round} of {state.rounds}. Your cards: {hand}.")
        return notes
    mine = "; ".join(f"{c} {' '.join(str(x) for x in parts_left(state.chosen[c])) or 'none'}"
                     for c in seat_colors(state.players)[player]) if named else \
        " ".join(str(x) for x in parts_left(state.chosen[seat_colors(state.players)[player][0]]))
    notes.append(f"Your cards: {hand}. Your parts to place this round: {mine}.")
    notes.append(SIDE_NOTE)
    actions = legal_actions(state)
    if actions and isinstance(actions[0], Pass):
        notes.append("No part you hold fits on any site your cards name, in any city: play a card and put one "
                     "of your parts back in the box (it is out of the game), then draw.")
    else:
        notes.append(BUILD_NOTE_TWO if named else BUILD_NOTE)
    return notes


def owed_this_turn(state: State, player: int) -> str | None:
    """A Manhattan turn is a single command: nothing is ever owed once it is sent."""
    return None


def turn_owner(state: State) -> tuple[object, ...]:
    """Changes when a turn ends: ('choose', round) while parts are chosen, ('turn', seat, round) while
    building, ('over',) at the end. The round is part of a building turn because with two players the
    last builder of a round starts the next one when its parts need no choosing (M8)."""
    if state.is_terminal():
        return ("over",)
    if state.phase == CHOOSE:
        return ("choose", state.round)
    return ("turn", state.turn, state.round)


def decision_context(state: State) -> tuple[str, str]:
    """A key and words for the decision now due. Every Manhattan decision is one command (one choice of parts,
    one card play), so the key names the round and the number of commands applied so far, which no other
    decision shares: ('choose:2:14', "player 2's choice of parts in round 2"), ('build:2:17', "player 3's card
    play in round 2"), ('over', 'the end of the game'). The words say "player N"; the services put names in."""
    if state.is_terminal():
        return "over", "the end of the game"
    who = f"player {state.turn + 1}"
    if state.phase == CHOOSE:
        colors = colors_to_choose(state, state.turn) if two_colors(state) else []
        which = " or ".join(colors) + " " if colors else ""
        return f"choose:{state.round}:{state.moves}", f"{who}'s choice of {which}parts in round {state.round}"
    return f"build:{state.round}:{state.moves}", f"{who}'s card play in round {state.round}"


def event_text(state: State, event: dict[str, Any], reader: int | None) -> str:
    """The event's public words with its site in ``reader``'s own numbering (M18).

    An event that names a site (``built``, and ``round_scored`` when one tower is the tallest) carries ``city``,
    ``site`` (numbered as seen from side 0, seat 1's side) and ``template``, its words with ``{site}`` where the
    site goes; ``event["text"]`` is the template in player 1's numbering. ``reader`` is a seat (0-based): the site
    is numbered from that player's side, so it is the number of the card that builds there for them and the
    number their board shows. ``reader`` None (the moderator, the public): player 1's numbering, and the words say
    so. Other events come back as ``event["text"]``.
    """
    template = event.get("template")
    if not isinstance(template, str) or SITE not in template or "city" not in event or "site" not in event:
        return event["text"]
    return template.replace(SITE, site_words(state, event["city"], event["site"], reader))


def legal_shapes(state: State) -> list[str]:
    """The legal commands as a few shapes: plays exactly ('play <1|5> <sydney|cairo> 2'); a choice of parts,
    whose combinations run into the dozens, as the sizes each slot may take, bounded by the parts left."""
    legal = state.legal_commands()
    plays = [c for c in legal if not c.startswith("choose ")]
    slots: dict[int, list[list[str]]] = {}
    for command in legal:
        if command.startswith("choose "):
            words = command.split()[1:]
            values = slots.setdefault(len(words), [[] for _ in words])
            for slot, word in zip(values, words):
                if word not in slot:
                    slot.append(word)
    chooses = ["choose " + " ".join(v[0] if len(v) == 1 else "<" + "|".join(sorted(v)) + ">" for v in values)
               + " (no more of a size than you have left)" for values in slots.values()]
    return chooses + compact(plays)


def hand_text(view: dict) -> str:
    """The viewer's own hand in a line, as sites seen from their own side: 'cards 1, 5, 5, 9'."""
    hand = view.get("hand") or []
    return "cards " + ", ".join(str(c) for c in hand) if hand else "no cards"


# Events that everybody is told of at once (the rest waits for the end of the turn), and those a mail's
# subject names as its result, the first found in this order.
PUBLIC_EVENTS = frozenset({"forced", "round_scored", "game_over"})
RESULT_EVENTS = ("game_over", "round_scored")


__all__ = ["BUILD_NOTE", "BUILD_NOTE_TWO", "PUBLIC_EVENTS", "RESULT_EVENTS", "SIDE_NOTE", "decision_context",
           "decision_notes", "event_text", "hand_text", "legal_shapes", "owed_this_turn", "turn_owner"]


# Every command, for the help players are mailed: its shape, an example the parser reads, what it does and the
# section of docs/rules.md that holds its rule (M-2, or M-3 for a decision). The grammar is docs/rules.md M-4.
COMMAND_HELP: tuple[CommandHelp, ...] = (
    CommandHelp(
        "choose", "choose <sizes>", "choose 1 1 2 3", "pick your parts",
        "At the start of a round, in turn: pick the sizes (1 to 4 stories) of the parts you build with this "
        "round: 4 parts (6 with four players, 4 of each color with two); '2x1' stands for 1 1.",
        "M-2", "choosing parts",
        two_players=("choose <color> <sizes>", "choose blue 1 1 2 3")),
    CommandHelp(
        "play", "play <card> <city> <size>", "play 5 sydney 3", "play a card, build a part",
        "Your turn: play a card and put a part of that size on the site the card names, as seen from your side "
        "of the board, in any city; then you draw a card.",
        "M-2", "a turn", also=("build",),
        two_players=("play <card> <city> <color> <size>", "play 5 cairo green 2")),
    CommandHelp(
        "pass", "pass <card> <size>", "pass 5 3", "no part fits: give one up",
        "Only when none of your parts fits on any site your cards name: play the card and put a part of that "
        "size back in the box; then you draw a card.",
        "M-3", "M10", two_players=("pass <card> <color> <size>", "pass 5 blue 3")),
)

__all__ += ["COMMAND_HELP"]


def decision_request(state: State) -> str:
    """The decision now due as its player reads it, in a line a mail can open with: 'Your turn: choose 4
    building parts for round 1', 'Your turn: play a card and build a part'."""
    player = state.turn
    if state.phase == CHOOSE:
        colors = colors_to_choose(state, player)
        which = " or ".join(colors) + " " if two_colors(state) else ""
        return f"Your turn: choose {parts_asked(state, colors[0])} {which}building parts for round {state.round}"
    if legal_actions(state) and isinstance(legal_actions(state)[0], Pass):
        return "Your turn: no card of yours can build, so pass a card"
    return "Your turn: play a card and build a part"


__all__ += ["decision_request"]
