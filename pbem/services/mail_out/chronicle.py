"""What happened in a game, in words, as one player may read it.

Every game mail begins with what happened since its reader's last game mail
(``PlayerInfo.told_seq``), so a player who gets fewer mails loses nothing.
This module turns the game's events (the archive's rows, oldest first) into
those lines: a player's commands of one turn together, with what they did; the
moderator's changes with their reasons; table talk. Pure: it reads rows that
were already loaded and the game as it is now (for names and the reader's own
numbering of Manhattan sites).

An event names its readers in ``data["readers"]`` (seats) when it is not for
everybody: the moderator's word to one player, a player's note to the
moderator. A command's ``data["private"]`` holds what only one player saw
(the black card they drew): it is told to that player alone. A command marked
``data["secret"]`` (a standing bid: its limit) is told to its player alone; the
others read only what it did (the bids it made are as public as any bid).
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field, replace
from typing import Any, Iterable, Protocol

from ...games import get_game
from ..common.game_info import GameInfo
from ..common.holders import names_at, played_by_robot


class Row(Protocol):
    """An event as stored: ``store.models.Event`` or ``game_info.HistoryEntry``."""

    seq: int
    kind: str
    seat: int | None
    text: str
    data: dict[str, Any]


@dataclass
class Happening:
    """One item of what happened: a sentence and, under it, what it did."""

    headline: str
    details: list[str] = field(default_factory=list)
    seq: int = 0  # the last event it tells of
    # Table talk: the words as written, each line of them the speaker's (``speaker``), never pbem's.
    said: list[str] = field(default_factory=list)
    speaker: str = ""

    def lines(self) -> int:
        return 1 + len(self.details) + len(self.said)


TALK_KINDS = ("say", "tell", "to_moderator")


def talk_parts(row: Row) -> tuple[str, str, list[str]]:
    """A talk event as (headline, speaker, lines said): 'Ann says:', 'Ann', and every line of Ann's text.

    Events since the talk budgets keep the three apart (``data["speaker"]``); older ones put the first line into
    the headline ('Ann says: Hello all') and the others into ``data["lines"]``: they are taken apart again, so
    that every line a person wrote is shown as theirs."""
    data = row.data or {}
    words = data.get("words") or ""
    if "speaker" in data:
        return words, data["speaker"], list(data.get("lines", []))
    first = (row.text.splitlines() or [""])[0]
    said = [first, *data.get("lines", [])]
    headline = words[: len(words) - len(first)].rstrip() if first and words.endswith(first) else f"{words}:"
    speaker = ("the moderator" if row.kind == "tell" else "you" if row.kind == "to_moderator"
               else headline.removesuffix(":").removesuffix(" says"))
    return headline, speaker, said


def player_label(info: GameInfo, seat: int) -> str:
    return next((p.name for p in info.players if p.seat == seat), f"seat {seat + 1}")


def credited(info: GameInfo, seat: int) -> str:
    """Who played the seat, for a result: its player, or all who held it in turn once the game is over and
    ``info.holders`` is loaded ("Zoë, then robot (from step 50)", services.common.holders.credit)."""
    return info.holders.get(seat) or player_label(info, seat)


def board_names(info: GameInfo) -> list[str]:
    """The names a board is drawn with, by seat: the players' names, and once the game is over each seat
    credited to all who played it, so the final scoring's winner is who made the result (``credited``)."""
    return [credited(info, p.seat) if info.over else p.name for p in sorted(info.players, key=lambda p: p.seat)]


def named(names: dict[int, str], text: str) -> str:
    """``text`` with 'player N' replaced by the name of seat N - 1 in ``names``."""
    return re.sub(r"\b[Pp]layer (\d+)\b", lambda m: names.get(int(m.group(1)) - 1, m.group(0)), text)


def with_names(info: GameInfo, text: str) -> str:
    """'player 2 bids ...' -> 'Bob bids ...' (the engine numbers seats; mails name people)."""
    return named({p.seat: p.name for p in info.players}, text)


def describe(event: dict[str, Any], info: GameInfo, reader: int | None = None) -> str:
    """An engine event in words as the player at seat ``reader`` reads it (None: the moderator), with player
    names instead of seat numbers (a Manhattan site is numbered from the reader's side of the board)."""
    text = get_game(info.kind).event_text(info.state, event, reader) if info.state is not None else event["text"]
    actor = event.get("actor")
    robot = getattr(info.state, "robot", None) if info.state is not None else None
    if actor is not None and actor != robot and not text.startswith(("the robot", "player ")):
        text = f"{player_label(info, actor)} {text}"
    text = with_names(info, text)  # 'player 2 declared a building stop ...' -> 'Bob declared ...'
    if event.get("points") and any(event["points"]):
        text += " (" + ", ".join(
            f"{player_label(info, p)} +{pts}" for p, pts in enumerate(event["points"]) if pts) + ")"
    return text


def public_events(events: Iterable[dict[str, Any]]) -> list[dict[str, Any]]:
    """Engine events as the archive keeps them for the chronicle: without what only one player may see."""
    return [{k: v for k, v in event.items() if k != "private"} for event in events]


def private_lines(events: Iterable[dict[str, Any]]) -> dict[str, list[str]]:
    """What only one player saw of ``events`` (seat as text -> lines), for the archive and that player's mails."""
    secrets: dict[str, list[str]] = {}
    for event in events:
        for who, secret in event.get("private", {}).items():
            secrets.setdefault(str(who), []).append(secret.strip())
    return secrets


def readable_by(row: Row, reader: int | None) -> bool:
    readers = (row.data or {}).get("readers")
    return readers is None or reader is None or reader in readers


def happenings(rows: Iterable[Row], info: GameInfo, reader: int | None, after: int = 0) -> list[Happening]:
    """What happened after event ``after``, oldest first, in ``reader``'s words; each event names the players
    who held the seats then (services.common.holders), not those who hold them now."""
    told: list[Happening] = []
    run: tuple[Any, ...] | None = None  # (seat, turn, by) of the commands told in told[-1]
    rows = list(rows)
    now, changes = info, [row for row in rows if row.kind == "replace_player"]
    for row in rows:
        if row.seq <= after or not readable_by(row, reader):
            continue
        data = row.data or {}
        info = as_then(now, changes, row)
        if row.kind == "command":
            key = (row.seat, tuple(data.get("turn") or ()), data.get("by"))
            details = ([describe(event, info, reader) for event in data["events"]] if "events" in data
                       else list(data.get("effects", [])))
            details += [f"only you see this: {secret}" for secret in data.get("private", {}).get(str(reader), [])]
            command = data.get("command", row.text)
            if data.get("secret") and reader is not None and reader != row.seat:
                # Another player's standing order: they read what it did (a bid is public), never the order.
                run = None
                if details:
                    told.append(Happening(details[0][:1].upper() + details[0][1:], details[1:], row.seq))
                continue
            if run == key and told:
                last = told[-1]
                last.headline += f"; {command}"
                last.details += details
                last.seq = row.seq
                continue
            run = key
            told.append(Happening(played_words(info, row.seat, data, reader, command), details, row.seq))
            continue
        run = None
        if row.kind in TALK_KINDS:
            headline, speaker, said = talk_parts(row)
            told.append(Happening(with_names(info, headline), [], row.seq, said=said, speaker=speaker))
            continue
        words = data.get("words") or fallback_words(row)
        if words:
            told.append(Happening(with_names(info, words), list(data.get("lines", [])), row.seq))
    return told


def as_then(info: GameInfo, changes: list[Row], row: Row) -> GameInfo:
    """``info`` with the seats' names as they were at ``row`` (``changes``: the replacements after it): a
    replaced player's moves stay theirs, and a robot's move at a late player's seat is the robot's."""
    names = {p.seat: p.name for p in info.players}
    then = names_at(changes, names, row.seq)
    if row.kind == "command" and row.seat in then:
        then[row.seat] = played_by_robot(then[row.seat], row.data)
    if then == names:
        return info
    return replace(info, players=[replace(p, name=then[p.seat]) for p in info.players])


def played_words(info: GameInfo, seat: int | None, data: dict[str, Any], reader: int | None, command: str) -> str:
    who = "you" if seat == reader else player_label(info, seat) if seat is not None else "somebody"
    reason = f" (the moderator says: {data['reason']})" if data.get("reason") else ""
    if data.get("by") == "deadline":
        whose = "Your" if seat == reader else f"{who}'s"
        return f"{whose} deadline passed, so pbem played for {who}{reason}: {command}"
    if data.get("by") == "moderator":
        return f"The moderator played for {who}{reason}: {command}"
    if data.get("by") == "robot" and seat == reader:  # a robot covering for the reader, late (on-timeout=robot)
        return f"A robot played for you (your deadline had passed): {command}"
    return f"{who[0].upper()}{who[1:]} played: {command}"


def fallback_words(row: Row) -> str:
    """Words for an event stored before events carried their own (``data["words"]``)."""
    data = row.data or {}
    reason = f" The moderator says: {data['reason']}" if data.get("reason") else ""
    if row.kind in ("pause", "resume", "abort"):
        done = {"pause": "paused", "resume": "resumed", "abort": "aborted"}[row.kind]
        return f"The moderator {done} the game.{reason}"
    if row.kind == "undo":
        return f"The moderator took back commands ({row.text}).{reason}"
    if row.kind == "set":
        return f"The moderator changed the game's settings: {row.text}.{reason}"
    if row.kind == "replace_player":
        new = data.get("new", {})
        return f"{new.get('name', 'somebody')} now plays seat {(row.seat or 0) + 1}.{reason}"
    return ""


__all__ = ["Happening", "Row", "TALK_KINDS", "as_then", "board_names", "credited", "describe", "fallback_words", "happenings", "named", "played_words", "player_label",
           "private_lines", "public_events",
           "readable_by", "talk_parts", "with_names"]
