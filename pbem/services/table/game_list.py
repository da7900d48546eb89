"""The games as ``pbem game list`` shows them, and a game made from its rows (which ``game_reader`` uses too).

``list_games`` reads with five SQL queries through SQLAlchemy's core, not the ORM: the table classes
(pbem.store.models), the ORM's session and the PostgreSQL dialect that the models' partial indexes load cost a
command that only lists more than the listing itself (about 130 ms of CPU, bench/cli.py). Each column read is
typed as its model types it (JSON, a moment with its time zone), so a row gives the values a model would, and
the functions below take either.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from sqlalchemy import JSON, DateTime, text

from ...config import ArchiveConfig
from ...games import get_game
from ...store.statuses import GameStatus
from ...timespans import aware
from ..common.errors import BadRequest, ServiceError
from ..common.game_info import GameInfo, PlayerInfo
from ..common.timing import Timing

if TYPE_CHECKING:
    from sqlalchemy import Engine

_WHEN = DateTime(timezone=True)
_LATEST = ("SELECT snapshots.game_id, max(snapshots.seq) AS seq FROM snapshots "
           "JOIN games ON games.id = snapshots.game_id{where} GROUP BY snapshots.game_id")
# Each query with its typed columns; {where} keeps the games listed (the same in every query).
_QUERIES: dict[str, tuple[str, dict[str, Any]]] = {
    "games": ("SELECT id, kind, variant, seed, status, settings, timing, delivery, pictures, archive, subject, "
              "created_at, updated_at FROM games{where} ORDER BY id",
              {"settings": JSON, "timing": JSON, "created_at": _WHEN, "updated_at": _WHEN}),
    "seats": ("SELECT seats.game_id, seats.seat, seats.name, seats.email, seats.secret, seats.delivery, "
              "seats.told_seq, seats.pictures, seats.robot FROM seats JOIN games ON games.id = seats.game_id{where} "
              "ORDER BY seats.game_id, seats.seat", {}),
    "snapshots": (f"SELECT s.game_id, s.seq, s.state FROM snapshots s JOIN ({_LATEST}) latest "
                  "ON s.game_id = latest.game_id AND s.seq = latest.seq", {}),
    "later": (f"SELECT e.game_id, e.seq, e.kind, e.seat, e.data FROM events e JOIN ({_LATEST}) latest "
              "ON e.game_id = latest.game_id WHERE e.seq > latest.seq ORDER BY e.game_id, e.seq", {"data": JSON}),
}
_OPEN_CLOCKS = text("SELECT game_id, due_at FROM decision_clocks WHERE closed_at IS NULL").columns(due_at=_WHEN)


def _query(name: str, status: str | None) -> Any:
    sql, types = _QUERIES[name]
    query = text(sql.format(where=" WHERE games.status = :status" if status else "")).columns(**types)
    return query.bindparams(status=status) if status else query


def list_games(engine: Engine, status: str | None = None, archive: ArchiveConfig | None = None) -> list[GameInfo]:
    """Every game (with ``status``, those alone), each loaded as ``GameReader.get`` loads it and with the deadline
    of its decision now due; in one transaction, five queries for all the games together."""
    if status is not None and status not in GameStatus.ALL:
        raise BadRequest(f"unknown status '{status}'; use one of {', '.join(GameStatus.ALL)}")
    with engine.connect() as connection:
        rows = {name: connection.execute(_query(name, status)).all() for name in _QUERIES}
        due = {row.game_id: aware(row.due_at) for row in connection.execute(_OPEN_CLOCKS)}
    seats: dict[int, list[Any]] = {}
    for seat in rows["seats"]:
        seats.setdefault(seat.game_id, []).append(seat)
    snapshots = {row.game_id: row for row in rows["snapshots"]}
    later: dict[int, list[Any]] = {}
    for event in rows["later"]:
        later.setdefault(event.game_id, []).append(event)
    listed = [loaded(game, seats.get(game.id, []), snapshots.get(game.id), later.get(game.id, []), archive)
              for game in rows["games"]]
    for info in listed:
        info.due_at = due.get(info.id)
    return listed


def loaded(game: Any, seats: list[Any], snapshot: Any, later: list[Any], archive: ArchiveConfig | None) -> GameInfo:
    """The game from its rows: its seats, its latest snapshot and the events after that snapshot."""
    if snapshot is None:
        raise ServiceError(f"game {game.id} has no stored state; export and re-import it")
    state = get_game(game.kind).State.from_json(snapshot.state)
    for event in later:
        if event.kind == "command":
            state.apply_command(event.seat, event.data["command"])
    info = info_of(game, seats, state, later[-1].seq if later else snapshot.seq, archive)
    info.replayed = sum(1 for event in later if event.kind == "command")
    return info


def info_of(game: Any, seats: list[Any], state: Any, last_seq: int, archive: ArchiveConfig | None) -> GameInfo:
    """A game's record from its row and its seats' rows (in seat order) and its engine state."""
    return GameInfo(
        id=game.id, kind=game.kind, title=get_game(game.kind).TITLE, variant=game.variant, seed=game.seed,
        status=game.status, settings=dict(game.settings),
        players=[PlayerInfo(x.seat, x.name, x.email, x.secret, x.delivery or game.delivery, x.told_seq,
                            (x.pictures or game.pictures) == "on", x.robot) for x in seats],
        created_at=aware(game.created_at), updated_at=aware(game.updated_at), state=state, last_seq=last_seq,
        timing=Timing.from_dict(game.timing), delivery=game.delivery, pictures=game.pictures,
        subject=game.subject,
        page=archive.game_url(game.id) if archive is not None and game.archive != "no" else "",
    )
