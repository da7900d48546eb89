"""Reading games: what a game is, what one player may see, who must act, what happened.

``GameReader`` writes nothing and loads only the store and the engines, so a command that only reads (``pbem
game list``, ``pbem game show``) starts without the mail side. ``GameService`` (services.games) is a reader
that also changes games.

A game is loaded from its latest snapshot plus the commands after it (``load``): the same cost early and late in
a game.
"""

from __future__ import annotations

from datetime import datetime
from typing import Any, Callable

from sqlalchemy import Engine, func
from sqlmodel import Session, select

from ..games import get_game
from ..limits import MAX_GAME_ID
from ..config import ArchiveConfig
from ..store.models import DecisionClock, Event, Game, GameStatus, Seat, Snapshot, utcnow
from ..store.uow import UnitOfWork
from .deadlines import aware
from .errors import BadRequest, GameNotFound, PlayerNotInGame, ServiceError
from .game_info import GameInfo, HistoryEntry, PlayerInfo
from .input_checks import checked_address, named_address, seat_with
from .timing import Timing


class GameReader:
    def __init__(self, engine: Engine, *, clock: Callable[[], datetime] = utcnow,
                 mail_domain: str = "pbem.invalid", archive: ArchiveConfig = ArchiveConfig()) -> None:
        self.engine = engine
        self.clock = clock
        self.mail_domain = mail_domain
        self.archive = archive  # where the archive's pages are, for the links in mails

    def list_games(self, status: str | None = None) -> list[GameInfo]:
        if status is not None and status not in GameStatus.ALL:
            raise BadRequest(f"unknown status '{status}'; use one of {', '.join(GameStatus.ALL)}")
        wanted = [Game.status == status] if status else []  # the games listed, for each query below
        # Five queries for all the games together, not three for each (a moderator's archive grows).
        latest = (select(Snapshot.game_id, func.max(Snapshot.seq).label("seq")).join(Game, Game.id == Snapshot.game_id)
                  .where(*wanted).group_by(Snapshot.game_id).subquery())
        with UnitOfWork(self.engine) as uow:
            s = uow.session
            games = s.exec(select(Game).where(*wanted).order_by(Game.id)).all()
            seats: dict[int, list[Seat]] = {}
            for seat in s.exec(select(Seat).join(Game, Game.id == Seat.game_id).where(*wanted)
                               .order_by(Seat.game_id, Seat.seat)).all():
                seats.setdefault(seat.game_id, []).append(seat)
            snapshots = {x.game_id: x for x in s.exec(select(Snapshot).join(
                latest, (Snapshot.game_id == latest.c.game_id) & (Snapshot.seq == latest.c.seq))).all()}
            later: dict[int, list[Event]] = {}
            for event in s.exec(select(Event).join(latest, Event.game_id == latest.c.game_id)
                                .where(Event.seq > latest.c.seq).order_by(Event.game_id, Event.seq)).all():
                later.setdefault(event.game_id, []).append(event)
            due = {clock.game_id: aware(clock.due_at) for clock in s.exec(
                select(DecisionClock).where(DecisionClock.closed_at.is_(None))).all()}
            listed = [self._loaded(game, seats.get(game.id, []), snapshots.get(game.id), later.get(game.id, []))
                      for game in games]
        for info in listed:
            info.due_at = due.get(info.id)
        return listed

    def get(self, game_id: int) -> GameInfo:
        with UnitOfWork(self.engine) as uow:
            return self._load(uow.session, self._game(uow.session, game_id))

    def view(self, game_id: int, as_email: str | None = None) -> tuple[GameInfo, dict[str, Any]]:
        """The game and what ``as_email`` may see of it (everything, for the moderator)."""
        info = self.get(game_id)
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
    def _seats(s: Session, game_id: int) -> list[Seat]:
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
        module = get_game(game.kind)
        return GameInfo(
            id=game.id, kind=game.kind, title=module.TITLE, variant=game.variant, seed=game.seed, status=game.status,
            settings=dict(game.settings),
            players=[PlayerInfo(x.seat, x.name, x.email, x.secret, x.delivery or game.delivery, x.told_seq,
                                (x.pictures or game.pictures) == "on", x.robot) for x in seats],
            created_at=aware(game.created_at), updated_at=aware(game.updated_at), state=state, last_seq=last_seq,
            timing=Timing.from_dict(game.timing), delivery=game.delivery, pictures=game.pictures,
            page=self.archive.game_url(game.id) if game.archive != "no" else "",
        )

    def _load(self, s: Session, game: Game) -> GameInfo:
        """Latest snapshot plus the commands after it: the same cost early and late in a game."""
        snapshot = s.exec(
            select(Snapshot).where(Snapshot.game_id == game.id).order_by(Snapshot.seq.desc()).limit(1)
        ).first()
        later = [] if snapshot is None else list(s.exec(
            select(Event).where(Event.game_id == game.id, Event.seq > snapshot.seq).order_by(Event.seq)
        ).all())
        return self._loaded(game, self._seats(s, game.id), snapshot, later)

    def _loaded(self, game: Game, seats: list[Seat], snapshot: Snapshot | None, later: list[Event]) -> GameInfo:
        """The game from its rows: its seats, its latest snapshot and the events after that snapshot."""
        if snapshot is None:
            raise ServiceError(f"game {game.id} has no stored state; export and re-import it")
        state = get_game(game.kind).State.from_json(snapshot.state)
        for event in later:
            if event.kind == "command":
                state.apply_command(event.seat, event.data["command"])
        info = self._info(game, seats, state, later[-1].seq if later else snapshot.seq)
        info.replayed = sum(1 for event in later if event.kind == "command")
        return info
