"""What every engine's State shares: the small OpenSpiel-style API and the one serial form.

An engine's ``State`` is a dataclass of plain data that also inherits
``GameState``. It names its game (``GAME``) and the modules that hold its
rules and its views (``RULES``, ``VIEW``: imported when first used, because
they import the state); ``GameState`` then gives it ``legal_actions``,
``legal_commands``, ``parse``, ``apply_action``, ``apply_command``, ``view``,
``is_terminal`` and the JSON form. The engine keeps ``current_player`` (who
acts is the rules' business) and its data.

``CommandHelp`` is one command of a game as the help mailed to players
explains it; each engine's guide holds its commands as ``COMMAND_HELP``.
"""

from __future__ import annotations

import importlib
import json
from dataclasses import dataclass, fields
from functools import lru_cache
from types import ModuleType
from typing import Any, ClassVar, TypeVar

Event = dict[str, Any]
S = TypeVar("S", bound="GameState")


def make_event(kind: str, actor: int | None, text: str, private: dict[int, str] | None = None, **data: Any) -> Event:
    """An event as the services read it: its kind, who acted, what happened in words (without the actor's name),
    what only some players may learn (``private``: seat -> words), and whatever else the rules add."""
    event: Event = {"kind": kind, "actor": actor, "text": text}
    if private:
        event["private"] = private
    event.update(data)
    return event


@dataclass(frozen=True)
class CommandHelp:
    """One command of a game, as the help mailed to players explains it.

    ``example`` is a command the engine's parser reads (it need not be legal in every position);
    ``section`` is the heading of docs/rules.md that holds the command's rule ('2.6', 'M-2') and ``rule``
    names the rule there in a few words. ``also`` holds other spellings that start with another command
    word ('card', 'action A'). ``two_players`` is the command's shape and example in a two-player game,
    when they differ."""

    word: str  # the command word: 'A', 'cards', 'choose'
    shape: str  # 'cards <color> <color>'
    example: str  # 'cards green violet'
    summary: str  # what it does, in a few words, for the one-line list of a game's first mail
    does: str  # what it does, in a sentence, for the answer to 'help'
    section: str  # '2.2', 'M-2'
    rule: str  # 'action A', 'choosing parts'
    also: tuple[str, ...] = ()
    two_players: tuple[str, str] | None = None  # (shape, example)


@lru_cache(maxsize=None)
def _module(name: str) -> ModuleType:
    # Imported when first used (the rules and views import the state), then kept: every legal_actions, parse
    # and apply goes through here, a property test a thousand times a game.
    return importlib.import_module(name)


class GameState:
    GAME: ClassVar[str]  # the engine's name, written into the serial form
    RULES: ClassVar[str]  # the module with legal_actions, parse and apply_action
    VIEW: ClassVar[str]  # the module with player_view
    result: dict[str, Any] | None

    def _rules(self) -> ModuleType:
        return _module(self.RULES)

    # ------------------------------------------------------------------ game API
    def is_terminal(self) -> bool:
        return self.result is not None

    def legal_actions(self) -> list[Any]:
        return self._rules().legal_actions(self)

    def legal_commands(self) -> list[str]:
        return [str(a) for a in self.legal_actions()]

    def parse(self, player: int, text: str) -> Any:
        """Read one command of ``player`` and check it against the rules."""
        return self._rules().parse(self, player, text)

    def apply_action(self, player: int, action: Any) -> list[Event]:
        """Apply a legal action; the state is unchanged if it raises."""
        return self._rules().apply_action(self, player, action)

    def apply_command(self, player: int, text: str) -> list[Event]:
        return self.apply_action(player, self.parse(player, text))

    def view(self, player: int | None) -> dict[str, Any]:
        """What ``player`` may see (``None``: what anybody may see)."""
        return _module(self.VIEW).player_view(self, player)

    # ------------------------------------------------------------------ serial form
    @classmethod
    def _field_names(cls) -> tuple[str, ...]:
        return tuple(f.name for f in fields(cls))  # type: ignore[arg-type]

    def to_json(self) -> str:
        # Keys stay in the state's own order, not sorted: the order of a dict is part of how the state behaves
        # (the rules walk its dicts in it), so a state read back must hold it exactly.
        data = {name: getattr(self, name) for name in self._field_names()}
        data["game"] = self.GAME
        return json.dumps(data, separators=(",", ":"))

    def to_dict(self) -> dict[str, Any]:
        # Through JSON: a deep copy that shares nothing with the live state, and fast.
        return json.loads(self.to_json())

    @classmethod
    def from_dict(cls: type[S], data: dict[str, Any]) -> S:
        return cls.from_json(json.dumps(data))

    @classmethod
    def from_json(cls: type[S], text: str) -> S:
        data = json.loads(text)
        if data.get("game", cls.GAME) != cls.GAME:
            raise ValueError(f"not a {cls.GAME} state: {data.get('game')!r}")
        unknown = set(data) - set(cls._field_names()) - {"game"}
        if unknown:
            raise ValueError(f"unknown fields in a {cls.GAME} state: {', '.join(sorted(unknown))}")
        return cls(**{k: v for k, v in data.items() if k != "game"})

    def clone(self: S) -> S:
        return type(self).from_json(self.to_json())
