"""Manhattan (Andreas Seyfarth, Hans im Glück / Rio Grande Games) as a pure engine.

>>> from pbem.games.manhattan import new_game
>>> state = new_game(players=3, seed=7)
>>> state.current_player()
0
"""

from ..legal import compact
from .actions import split_commands
from .board import absolute_site, seat_colors, seat_sides, seen_from
from .guide import (
                    PUBLIC_EVENTS,
                    RESULT_EVENTS,
                    decision_context,
                    decision_notes,
                    decision_subject,
                    event_text,
                    hand_text,
                    owed_this_turn,
                    turn_owner,
)
from .rules import new_game
from .state import TERMINAL, State
from .timeouts import decision_kind, timeout_command

NAME = "manhattan"
# First words that make a line a command (everything else in a mail is chatter).
COMMAND_WORDS = frozenset({"choose", "play", "build", "pass"})
TITLE = "Manhattan"
PLAYERS = (2, 3, 4)


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


__all__ = [
    "COMMAND_WORDS", "NAME", "PLAYERS", "PUBLIC_EVENTS", "RESULT_EVENTS", "TERMINAL", "TITLE", "State",
    "absolute_site", "decision_context", "decision_kind", "decision_notes", "decision_subject", "event_text",
    "hand_text", "legal_shapes", "new_game",
    "owed_this_turn", "seat_colors", "seat_sides", "seen_from", "split_commands", "timeout_command", "turn_owner",
]
