"""Game engines, found by name (like python-chess variants).

Each engine is a package exposing ``NAME``, ``TITLE``, ``PLAYERS``,
``COMMAND_WORDS`` (the first words of its commands), ``new_game(players, seed,
**options)`` (a ``ValueError`` for an option it does not have) and ``State``
(with ``from_json``; ``current_player``, ``legal_commands``, ``parse``,
``apply_command``, ``is_terminal``, ``view``, ``moves``, ``scores``,
``result``), and these pure functions of a state:

- ``decision_notes(state)``: sentences for the player who must act now;
- ``owed_this_turn(state, player)``: what that player still owes of their turn;
- ``decision_context(state)``: the context of the decision now due, as a key
  and in words ("the auction for 34th Street West"): one player's turn with
  all its phases, one auction, one build, one choice; a reply to a mail that
  asked for a decision applies only while its context is still open;
- ``event_text(state, event, reader)``: an event's words as the player at seat
  ``reader`` reads them (None: the moderator);
- ``legal_shapes(state)``: the legal commands as a few exact shapes
  (``pbem.games.legal.compact``), for replies;
- ``decision_request(state)``: the decision now due as its player reads it, the line a mail opens with
  ("your turn", "bid: ..."), which players can filter on;
- ``turn_owner(state)``: whose turn it is, as a value that changes when a turn
  ends (then everybody is mailed);
- ``hand_text(view)``: the viewer's own hand in one line;
- ``decision_kind(state)``: ``"bid"`` for a decision inside an auction,
  ``"move"`` for any other, ``"none"`` once the game is over (the worker
  treats the two kinds differently when a deadline passes);
- ``bid_reach(state)``, only in an engine whose players bid (``bid`` in ``COMMAND_WORDS``): what the player
  who must bid now can bid with and the most their bid can come to (None outside an auction), which the first
  screen of their mail shows;
- ``timeout_command(state)``: the command played for the player who must act
  when their deadline passes, one of ``state.legal_commands()``; ``ValueError``
  on a finished game;

and two sets of event kinds: ``PUBLIC_EVENTS`` (everybody is told at once)
and ``RESULT_EVENTS`` (named in a mail's subject, the first found in order).
"""

from __future__ import annotations

import importlib
from types import ModuleType

_ENGINES = {"fifth-avenue": "pbem.games.fifth_avenue", "manhattan": "pbem.games.manhattan"}


def names() -> list[str]:
    return sorted(_ENGINES)


def get_game(name: str) -> ModuleType:
    key = name.strip().lower().replace("_", "-").replace(" ", "-")
    if key not in _ENGINES:
        raise KeyError(f"unknown game {name!r}; known games: {', '.join(names())}")
    return importlib.import_module(_ENGINES[key])
