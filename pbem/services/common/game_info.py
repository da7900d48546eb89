"""What the services hand out about a game: plain records, no database and no I/O.

``GameInfo`` is a game as loaded (its players, settings, timing and engine state), ``Submission`` what a
player's commands did, ``HistoryEntry`` one event of the archive. The game service builds them; the
deadlines and the notices read them.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from datetime import datetime
from typing import Any

from ...store.statuses import GameStatus
from .timing import Timing


@dataclass
class PlayerInfo:
    seat: int
    name: str
    email: str
    secret: str = field(default="", repr=False)  # the seat's secret word, when the game asks for one
    delivery: str = "turns"  # which mails they get (services.mail_out.delivery): their own choice, else the game's
    told_seq: int = 0  # the last event a mail to them told of
    pictures: bool = True  # whether their game mails carry a picture of the board: their choice, else the game's
    robot: str = ""  # the robot that plays the seat ("heuristic", "strong"), "" for a person


@dataclass
class GameInfo:
    id: int
    kind: str
    title: str
    variant: str
    seed: int
    status: str
    settings: dict[str, Any]
    players: list[PlayerInfo]
    created_at: datetime
    updated_at: datetime
    state: Any = None  # the engine state, when loaded
    last_seq: int = 0
    replayed: int = 0  # commands played on top of the latest snapshot when it was loaded
    timing: Timing = field(default_factory=Timing)
    due_at: datetime | None = None  # when the decision now due must be made (set where it is known)
    delivery: str = "turns"  # the game's choice of mails for players who made none
    pictures: str = "on"  # the game's choice of pictures for players who made none
    subject: str = ""  # the subject of every mail of the game, as stored when it was created
    page: str = ""  # the address of the game's page in the archive's web site, when it has one ([archive] url)
    # The game's events after the earliest its players were last told of (services.mail_out.chronicle): set by the
    # service before it makes mails, whose "since your last mail" they fill.
    recent: list[Any] = field(default_factory=list, repr=False)
    # Who held each seat that changed hands, in words ("Bob, then robot"), loaded with ``recent`` once the game is
    # over: the final scores credit everybody who played the seat, as the archive does.
    holders: dict[int, str] = field(default_factory=dict)

    def player(self, seat: int) -> PlayerInfo:
        return next(p for p in self.players if p.seat == seat)

    def email_of(self, seat: int) -> str:
        return next(p.email for p in self.players if p.seat == seat)

    @property
    def over(self) -> bool:
        return self.state is not None and self.state.is_terminal()

    @property
    def to_act(self) -> list[str]:
        if self.state is None or self.state.is_terminal() or self.status != GameStatus.ACTIVE:
            return []
        return [self.email_of(self.state.current_player())]

    @property
    def scores(self) -> dict[str, int]:
        return {p.email: self.state.scores[p.seat] for p in self.players} if self.state is not None else {}

    @property
    def winners(self) -> list[str]:
        if not self.over:
            return []
        return [self.email_of(seat) for seat in self.state.result["winners"]]


@dataclass
class HistoryEntry:
    seq: int
    time: datetime
    actor: str
    kind: str
    text: str
    source: str
    seat: int | None = None
    data: dict[str, Any] = field(default_factory=dict)


@dataclass
class Submission:
    game_id: int
    seat: int
    commands: list[str]  # canonical forms, in order
    effects: list[str]  # what happened, in words, as everybody may see it
    first_seq: int
    last_seq: int
    over: bool
