"""Reading games: what a game is, what one player may see, who must act, what happened.

``GameReader`` writes nothing and loads only the store and the engines, so a command that only reads (``pbem
game show``) starts without the mail side; ``pbem game list`` does not even load the store's tables
(services.table.game_list). ``GameService`` (services.table.games) is a reader that also changes games.

A game is loaded from its latest snapshot plus the commands after it (``load``): the same cost early and late in
a game.
"""

from __future__ import annotations

from datetime import datetime
from typing import Any, Callable

from sqlalchemy import Engine, bindparam, func
from sqlalchemy import select as core_select
from sqlmodel import Session, select

from ...games import get_game
from ...limits import MAX_GAME_ID
from ...config import ArchiveConfig
from ...store.models import Event, Game, GameStatus, Seat, Snapshot, utcnow
from ...store.uow import UnitOfWork
from ..common.deadlines import aware
from ..common.errors import BadRequest, GameNotFound, PlayerNotInGame
from ..common.game_info import GameInfo, HistoryEntry
from ..common.holders import credited, seat_holders, step_numbers
from .game_list import info_of, list_games, loaded
from ..common.input_checks import checked_address, named_address, seat_with


class GameReader:
    def __init__(self, engine: Engine, *, clock: Callable[[], datetime] = utcnow,
                 mail_domain: str = "pbem.invalid", archive: ArchiveConfig = ArchiveConfig()) -> None:
        self.engine = engine
        self.clock = clock
        self.mail_domain = mail_domain
        self.archive = archive  # where the archive's pages are, for the links in mails

    def list_games(self, status: str | None = None) -> list[GameInfo]:
        return list_games(self.engine, status, self.archive)

    def get(self, game_id: int) -> GameInfo:
        with UnitOfWork(self.engine) as uow:
            return self._load(uow.session, self._game_row(uow.session, game_id))

    def view(self, game_id: int, as_email: str | None = None) -> tuple[GameInfo, dict[str, Any]]:
        """The game and what ``as_email`` may see of it (everything, for the moderator); a finished game's
        seats credited to all who played them (``info.holders``)."""
        info = self.get(game_id)
        if info.over:
            with UnitOfWork(self.engine) as uow:
                info.holders = holders_said(uow.session, info)
        if as_email is None:
            return info, info.state.view(None)
        seat = self.seat_of(info, as_email)
        return info, info.state.view(seat)

    def legal(self, game_id: int) -> tuple[GameInfo, dict[str, list[str]]]:
        info = self.get(game_id)
        if info.over or info.status in (GameStatus.ABORTED, GameStatus.FINISHED):
            return info, {}
        return info, {info.email_of(info.state.current_player()): info.state.legal_commands()}

    def history(self, game_id: int) -> list[HistoryEntry]:
        with UnitOfWork(self.engine) as uow:
            self._game(uow.session, game_id)
            events = uow.session.exec(select(Event).where(Event.game_id == game_id).order_by(Event.seq)).all()
            return [
                HistoryEntry(e.seq, aware(e.created_at), e.actor, e.kind, e.text, e.source, e.seat, dict(e.data))
                for e in events
            ]

    def games_of(self, email: str) -> list[tuple[int, str, str]]:
        """(game, title, status) of every game ``email`` plays in (none for what is not an address)."""
        try:
            wanted = checked_address(email)
        except BadRequest:
            return []
        with UnitOfWork(self.engine) as uow:
            rows = uow.session.exec(
                select(Game.id, Game.kind, Game.status).join(Seat, Seat.game_id == Game.id)
                .where(Seat.email == wanted).order_by(Game.id)
            ).all()
            return [(game_id, get_game(kind).TITLE, status) for game_id, kind, status in rows]

    def load(self, s: Session, game: Game) -> GameInfo:
        """The game as it stands: its latest snapshot and the commands after it."""
        return self._load(s, game)

    def _game(self, s: Session, game_id: int) -> Game:
        game = s.get(Game, game_id) if 0 < game_id <= MAX_GAME_ID else None
        if game is None:
            raise GameNotFound(f"there is no game {game_id}")
        return game

    @staticmethod
    def _game_row(s: Session, game_id: int) -> Any:
        """The game's row, read as a row (``_load``)."""
        row = s.connection().execute(_GAME, {"game_id": game_id}).first() if 0 < game_id <= MAX_GAME_ID else None
        if row is None:
            raise GameNotFound(f"there is no game {game_id}")
        return row

    @staticmethod
    def _seats(s: Session, game_id: int) -> list[Seat]:
        """The game's seats as models, to change (``_load`` reads them as rows)."""
        return list(s.exec(select(Seat).where(Seat.game_id == game_id).order_by(Seat.seat)).all())

    @staticmethod
    def last_seq(s: Session, game_id: int) -> int:
        return s.exec(select(func.max(Event.seq)).where(Event.game_id == game_id)).one() or 0

    def seat_of(self, info: GameInfo, email: str) -> int:
        seat = seat_with(info.players, email)
        if seat is not None:
            return seat
        raise PlayerNotInGame(f"{named_address(email)} does not play in game {info.id}; players: "
                              + ", ".join(p.email for p in info.players))

    def _info(self, game: Game, seats: list[Seat], state: Any, last_seq: int) -> GameInfo:
        return info_of(game, seats, state, last_seq, self.archive)

    def _load(self, s: Session, game: Game) -> GameInfo:
        """Latest snapshot plus the commands after it: the same cost early and late in a game. Read as rows, not
        as the models (nothing here is changed and written back), by statements built once: a mail loads its
        game twice, and the models' loading and the statements' building were most of a load (bench/mail.py)."""
        s.flush()  # what the session holds unwritten is read too, as the models' own statements would (autoflush)
        connection = s.connection()
        snapshot = connection.execute(_LATEST_SNAPSHOT, {"game_id": game.id}).first()
        later = [] if snapshot is None else connection.execute(
            _EVENTS_AFTER, {"game_id": game.id, "after": snapshot.seq}).all()
        return self._loaded(game, connection.execute(_SEATS, {"game_id": game.id}).all(), snapshot, later)

    def _loaded(self, game: Game, seats: list[Any], snapshot: Any, later: list[Any]) -> GameInfo:
        return loaded(game, seats, snapshot, later, self.archive)


_snapshots, _events, _seat_rows = Snapshot.__table__.c, Event.__table__.c, Seat.__table__.c  # type: ignore[attr-defined]
_GAME = core_select(Game.__table__).where(Game.__table__.c.id == bindparam("game_id"))  # type: ignore[attr-defined]
_LATEST_SNAPSHOT = core_select(_snapshots.seq, _snapshots.state).where(_snapshots.game_id == bindparam("game_id")) \
    .order_by(_snapshots.seq.desc()).limit(1)
_EVENTS_AFTER = core_select(_events.seq, _events.seat, _events.kind, _events.data).where(
    _events.game_id == bindparam("game_id"), _events.seq > bindparam("after")).order_by(_events.seq)
_SEATS = core_select(Seat.__table__).where(_seat_rows.game_id == bindparam("game_id")).order_by(_seat_rows.seat)  # type: ignore[attr-defined]


def holders_said(s: Session, info: GameInfo) -> dict[int, str]:
    """Each seat that changed hands during the game (given away, resigned, or covered by a robot for a late
    player), with who held it in order, as the archive says it: "Zoë, then robot (from step 50)"."""
    changed = s.exec(select(Event.seq).where(Event.game_id == info.id,
                                             Event.kind.in_(("replace_player", "robot_cover")))  # type: ignore[attr-defined]
                     .limit(1)).first()
    if changed is None:
        return {}
    rows = s.exec(select(Event).where(Event.game_id == info.id).order_by(Event.seq)).all()
    steps = step_numbers(rows)
    return {seat: credited(held, steps) for seat, held in seat_holders(rows, info.players).items() if len(held) > 1}
