"""`pbem db check`: whether a database (a backup restored, a copy) holds what pbem needs: its schema revision, the
rows of every table, and every game replayed from its seed and the commands in force to the state its snapshot and
later events give, the state every command of pbem starts from."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from sqlalchemy import Engine, func, text
from sqlmodel import Session, SQLModel, select

from ...store.db import SchemaError, current_revision, head_revision
from ...store.models import Event, Game
from .game_reader import GameReader
from .games import effective_commands, replayed


@dataclass
class DatabaseCheck:
    revision: str | None
    head: str
    counts: dict[str, int] = field(default_factory=dict)
    games: int = 0  # replayed to their stored state
    problems: list[str] = field(default_factory=list)

    @property
    def sound(self) -> bool:
        return not self.problems

    def to_dict(self) -> dict[str, Any]:
        return {"sound": self.sound, "problems": self.problems, "revision": self.revision, "head": self.head,
                "counts": self.counts, "games_replayed": self.games}


def check_database(engine: Engine) -> DatabaseCheck:
    """Every check, each failure one line of ``problems``; a schema pbem cannot read stops after saying so."""
    try:
        revision = current_revision(engine)
    except SchemaError as exc:
        return DatabaseCheck(None, head_revision(engine), problems=[str(exc)])
    found = DatabaseCheck(revision, head_revision(engine))
    if revision != found.head:
        found.problems.append(f"the schema is at revision {revision or 'none'}, this pbem needs {found.head}: "
                              "pbem db upgrade (on a copy) before checking its games")
        return found
    with Session(engine) as session:
        for table in SQLModel.metadata.sorted_tables:
            found.counts[table.name] = session.execute(
                select(func.count()).select_from(table)).scalar_one()
        integrity = session.execute(text("PRAGMA quick_check")).scalars().all() \
            if engine.dialect.name == "sqlite" else ["ok"]
        if integrity != ["ok"]:
            found.problems.append(f"SQLite's quick_check: {'; '.join(integrity[:5])}")
        games = session.exec(select(Game).order_by(Game.id)).all()
        reader = GameReader(engine)
        for game in games:
            events = session.exec(select(Event).where(Event.game_id == game.id).order_by(Event.seq)).all()
            if not events:
                found.problems.append(f"game {game.id} has no events")
                continue
            try:
                stored = reader.get(game.id)
                commands = effective_commands(events)[events[-1].seq]
                state = replayed(game.kind, game.seed, dict(game.settings), len(stored.players), commands)
            except Exception as exc:  # noqa: BLE001 - whatever a damaged game raises is this game's problem
                found.problems.append(f"game {game.id} does not replay: {exc}")
                continue
            if state.to_json() != stored.state.to_json():
                found.problems.append(f"game {game.id}: its {len(commands)} commands replayed from its seed give "
                                      "another state than its snapshot and later events")
                continue
            found.games += 1
    return found
