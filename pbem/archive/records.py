"""The archive's records: what its web pages show of a game and of a player, as plain data.

``pbem.archive.history`` reads them from the store (and replays a game to get its board after every event);
``pbem.archive.ratings`` rates the players of finished games; ``pbem.archive.site`` writes the pages from them.
Nothing here is secret while a game runs: a record of a running game holds no hand and no private line.
"""

from __future__ import annotations

from dataclasses import asdict, dataclass, field
from datetime import datetime
from typing import Any

from ..services.common.holders import credit


@dataclass(frozen=True)
class ArchivedHolder:
    """One of the people (or robots) who held a seat that changed hands (services.common.holders)."""

    name: str  # as the site shows it (hidden or not)
    key: str
    label: str  # as the list of the seat's holders says it: the name, or "robot" for the robot that took it over
    first_step: int  # the step of the game's page from which they held the seat (0: from the start)
    last_step: int | None  # the last step they held it at, None: to the end (or now)
    moves: int  # the seat's commands they played
    share: float  # their part of the seat's commands (what a shared seat's rating counts: docs/rules.md, D47)
    hidden: bool = False
    resigned: bool = False  # they gave the seat up themselves: a loss in their record and rating (D47)


@dataclass(frozen=True)
class ArchivedPlayer:
    seat: int
    name: str  # as the site shows it: the player's name, or "Player <key[:6]>" when the moderator hid it
    key: str  # a keyed hash of the address (never the address): the player's page is players/<key>.html
    score: int | None  # the final score of a finished game, else the score so far (public)
    winner: bool = False
    hidden: bool = False
    # Everybody who held the seat, oldest first, when it changed hands (else empty: the player above held it)
    holders: tuple[ArchivedHolder, ...] = ()

    def holdings(self) -> tuple[ArchivedHolder, ...]:
        """Who held the seat: its holders, or the player alone."""
        return self.holders or (ArchivedHolder(self.name, self.key, self.name, 0, None, 0, 1.0, self.hidden),)

    def held_by(self, key: str) -> tuple[ArchivedHolder, ...]:
        """The times the holder ``key`` held the seat (a late player's robot may come between two)."""
        return tuple(h for h in self.holdings() if h.key == key)

    def share(self, key: str) -> float:
        """The part of the seat's commands the holder ``key`` played (1.0: all; 0.0: none, or not theirs)."""
        return sum(h.share for h in self.held_by(key))

    def moves(self, key: str) -> int:
        return sum(h.moves for h in self.held_by(key))

    def part(self, key: str) -> str:
        """Which steps the holder ``key`` played of a shared seat ("" for a seat of one holder)."""
        if not self.holders:
            return ""
        return ", ".join(f"from step {h.first_step}" if h.last_step is None
                         else f"steps {h.first_step} to {h.last_step}" if h.first_step else f"to step {h.last_step}"
                         for h in self.held_by(key))

    def shown(self) -> str:
        """Who held the seat in words: "Bob, then robot (from step 40)"."""
        return credit((h.label, h.first_step) for h in self.holdings())

    def resigned(self, key: str) -> bool:
        """Whether the holder ``key`` gave the seat up themselves (``resign``; D47: a loss for them)."""
        return any(h.resigned for h in self.held_by(key))


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
        """Who won, each seat credited to all who played it ("Zoë, then robot (from step 50)")."""
        return tuple(p.shown() for p in self.players if p.winner)

    def seat_of(self, key: str) -> ArchivedPlayer | None:
        """The seat the player ``key`` held (the one they played the most of, if several)."""
        held = [(p.moves(key), -p.seat, p) for p in self.players if p.held_by(key)]
        return max(held, default=(0, 0, None), key=lambda x: x[:2])[2]

    def keys(self) -> tuple[str, ...]:
        """Everybody who held a seat, each once, in seat order."""
        return tuple(dict.fromkeys(h.key for p in self.players for h in p.holdings()))


def summary_to_dict(summary: GameSummary) -> dict[str, Any]:
    """``summary`` as JSON data (the site keeps every game's summary between builds)."""
    data = asdict(summary)
    data["started_at"] = summary.started_at.isoformat()
    data["ended_at"] = summary.ended_at.isoformat() if summary.ended_at else None
    return data


def summary_from_dict(data: dict[str, Any]) -> GameSummary:
    return GameSummary(**{**data, "players": tuple(ArchivedPlayer(**{
                              **p, "holders": tuple(ArchivedHolder(**h) for h in p.get("holders", ()))})
                              for p in data["players"]),
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
