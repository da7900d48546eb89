"""The archive's records: what its web pages show of a game and of a player, as plain data.

``pbem.archive.history`` reads them from the store (and replays a game to get its board after every event);
``pbem.archive.ratings`` rates the players of finished games; ``pbem.archive.site`` writes the pages from them.
Nothing here is secret while a game runs: a record of a running game holds no hand and no private line.
"""

from __future__ import annotations

from dataclasses import asdict, dataclass, field
from datetime import datetime
from typing import Any


@dataclass(frozen=True)
class ArchivedPlayer:
    seat: int
    name: str  # as the site shows it: the player's name, or "Player <key[:6]>" when the moderator hid it
    key: str  # a keyed hash of the address (never the address): the player's page is players/<key>.html
    score: int | None  # the final score of a finished game, else the score so far (public)
    winner: bool = False
    hidden: bool = False


@dataclass(frozen=True)
class GameSummary:
    """One line of the index, and what the player pages and the ratings need."""

    id: int
    kind: str  # the engine's name: "fifth-avenue", "manhattan"
    title: str  # "Fifth Avenue"
    variant: str
    status: str  # active, paused, finished, aborted
    players: tuple[ArchivedPlayer, ...]
    started_at: datetime
    ended_at: datetime | None  # when it finished (the last event's time), None while it runs
    to_act: tuple[str, ...]  # the names of the players whose decision is due (running games), else ()
    last_seq: int  # the game's last event: its pages are current when built from this event

    @property
    def finished(self) -> bool:
        return self.status == "finished"

    @property
    def winners(self) -> tuple[str, ...]:
        return tuple(p.name for p in self.players if p.winner)


def summary_to_dict(summary: GameSummary) -> dict[str, Any]:
    """``summary`` as JSON data (the site keeps every game's summary between builds)."""
    data = asdict(summary)
    data["started_at"] = summary.started_at.isoformat()
    data["ended_at"] = summary.ended_at.isoformat() if summary.ended_at else None
    return data


def summary_from_dict(data: dict[str, Any]) -> GameSummary:
    return GameSummary(**{**data, "players": tuple(ArchivedPlayer(**p) for p in data["players"]),
                          "to_act": tuple(data["to_act"]), "started_at": datetime.fromisoformat(data["started_at"]),
                          "ended_at": datetime.fromisoformat(data["ended_at"]) if data["ended_at"] else None})


@dataclass(frozen=True)
class Step:
    """One event of a game and the public board after it."""

    number: int  # 0: the game as it started; then 1, 2, ... one per event shown
    seq: int  # the event's number in the store
    when: datetime
    words: tuple[str, ...]  # the event in words, as anybody may read it: a headline, then what it did
    board_html: str  # the public board after the event: the HTML board of the mails (render.html), with classes
    scores: tuple[int, ...]  # every seat's score after the event
    hands: tuple[str, ...] | None = None  # every seat's hand in words after the event: finished games only


@dataclass(frozen=True)
class TalkLine:
    when: datetime
    name: str  # who said it (a player's shown name, or "The moderator")
    text: str


@dataclass(frozen=True)
class GameRecord:
    """Everything a game's page shows."""

    summary: GameSummary
    settings: tuple[tuple[str, str], ...]  # the public settings in words: ("board side", "back (6 plots)"), ...
    steps: tuple[Step, ...]  # every event shown, oldest first (a step never changes once made: events are
    # append-only and an undo is an event of its own, so the site keeps the steps it drew and draws only new ones)
    scoring: tuple[int, ...]  # the numbers of the steps that changed a score: the chart's points
    talk: tuple[TalkLine, ...] = ()
    result: tuple[str, ...] = ()  # the end of the game in words (scores, ties and how they were broken)
    people: tuple[str, ...] = ()  # the key of everybody who sat at the table: its players and those replaced


@dataclass(frozen=True)
class Rating:
    """A player's rating after one finished game (openskill; shown as its conservative ordinal)."""

    game_id: int
    when: datetime
    mu: float
    sigma: float

    @property
    def ordinal(self) -> float:
        return self.mu - 3 * self.sigma


@dataclass(frozen=True)
class PlayerRecord:
    """Everything a player's page shows."""

    key: str
    name: str
    games: tuple[GameSummary, ...]  # every archived game they played in, newest first
    played: int  # finished games
    won: int
    average_score: float | None  # over finished games
    ratings: tuple[Rating, ...] = field(default=())  # oldest first; the last is the current rating
