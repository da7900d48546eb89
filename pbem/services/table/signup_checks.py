"""What the signup service reads before it changes anything (docs/signup.md): whether a table may be joined,
started or left, a game watched or resigned from, a table opened by this address now; and the answer to
``games``. Each check raises ``SignupRefused`` with the line, why and what to send instead; none writes.
"""

from __future__ import annotations

from datetime import timedelta

from sqlalchemy import func
from sqlmodel import Session, select

from ...config import SignupConfig
from ...games import get_game
from ...limits import MAX_GAME_ID
from ...store.models import Game, GameStatus, Seat, SignupSeat, SignupTable, Watcher
from ...words import listing, plural
from ..common.errors import ServiceError
from ..common.game_length import length_words
from .games import GameChanges
from .signup_words import table_words, unbroken

OPEN, WAITING, STARTED, CLOSED = "open", "waiting", "started", "closed"  # a table's statuses
DAY = timedelta(days=1)
MAX_LISTED = 10  # tables and games the answer to 'games' lists, each: the fullest and newest first


class SignupRefused(ServiceError):
    """A signup line that cannot apply: ``line``, ``why`` and ``instead`` (what the sender may do)."""

    def __init__(self, line: str, why: str, instead: str = "") -> None:
        super().__init__(f"'{line}': {why}")
        self.line, self.why, self.instead = line, why, instead


def share_of_the_day(config: SignupConfig) -> int:
    """The tables all addresses of one mail domain together may open in a day: half of what everybody may
    (``new_per_day_all``), so that one person with many addresses cannot use up the day's tables. One address
    may open ``new_per_day``, and never more than that share."""
    return max(1, config.new_per_day_all // 2)


def domain_of(email: str) -> str:
    return email.rpartition("@")[2]


class SignupChecks:
    def __init__(self, games: GameChanges, config: SignupConfig = SignupConfig(), *, moderator: str = "") -> None:
        self.games = games
        self.config = config
        self.moderator = moderator.strip().lower()

    # ------------------------------------------------------------------ the answer to 'games'

    def listing(self, s: Session) -> list[str]:
        """The answer to 'games': the open tables (the fullest first, then the newest) with their players' names,
        then the newest running games; never an address. At most MAX_LISTED of each, the rest counted."""
        taken = func.count(SignupSeat.id)
        found = s.exec(select(SignupTable, taken).outerjoin(SignupSeat, SignupSeat.table_id == SignupTable.id)
                       .where(SignupTable.status == OPEN).group_by(SignupTable.id)
                       .order_by(taken.desc(), SignupTable.id.desc())  # type: ignore[union-attr]
                       .limit(MAX_LISTED + 1)).all()
        lines = ["Open tables (join one with 'join N', or 'join N as NAME'):"]
        for table, _ in found[:MAX_LISTED]:
            seats = self._seats(s, table.id or 0)
            names = listing([seat.name for seat in seats]) if seats else "nobody yet"
            lines += unbroken(f"table {table.id}: {table_words(table)}, {length_words(s, table.kind, table.seats)}; "
                              f"seated: {names}; {plural(table.seats - len(seats), 'seat')} free")
        if len(found) > MAX_LISTED:
            open_tables = s.exec(select(func.count()).select_from(SignupTable).where(SignupTable.status == OPEN)).one()
            lines.append(f"  ... and {plural(open_tables - MAX_LISTED, 'more table')}, emptier or older")
        if not found:
            lines.append("  none now" + ("; open one with 'new fifth-avenue' or 'new manhattan'"
                                         if self.config.new != "moderator" else ""))
        games = s.exec(select(Game).where(Game.status == GameStatus.ACTIVE).order_by(Game.id.desc())  # type: ignore[union-attr]
                       .limit(MAX_LISTED + 1)).all()
        lines += ["", "Running games (follow one with 'watch N'):"]
        for game in games[:MAX_LISTED]:
            names = [seat.name for seat in s.exec(select(Seat).where(Seat.game_id == game.id).order_by(Seat.seat))]
            lines += unbroken(f"game {game.id}: {get_game(game.kind).TITLE}, {listing(names)}")
        if len(games) > MAX_LISTED:
            lines.append("  ... and older ones")
        if not games:
            lines.append("  none now")
        return lines

    # ------------------------------------------------------------------ opening a table

    def may_open(self, s: Session, email: str, line: str) -> None:
        """Whether ``email`` may open a table by mail now: ``[signup] new`` and the limits."""
        if self.config.new == "moderator":
            raise SignupRefused(line, "on this server only the moderator opens tables",
                                "'games' lists the open tables; join one with 'join N'")
        if self.config.new == "players" and not s.exec(select(Seat.id).where(Seat.email == email).limit(1)).first():
            raise SignupRefused(line, "on this server only players of a game here may open tables",
                                "join an open table first ('games' lists them)")
        now = self.games.clock()
        mine_open = s.exec(select(func.count()).select_from(SignupTable).where(
            SignupTable.opener == email, SignupTable.status.in_((OPEN, WAITING)))).one()  # type: ignore[attr-defined]
        if mine_open >= self.config.open_per_address:
            raise SignupRefused(line, f"you have {plural(mine_open, 'open table')} already; the most is "
                                f"{self.config.open_per_address}", "start or leave one of them first")
        share = share_of_the_day(self.config)
        today = [opener for opener in s.exec(select(SignupTable.opener).where(
            SignupTable.opener != "moderator", SignupTable.created_at >= now - DAY)).all()]
        if sum(opener == email for opener in today) >= min(share, self.config.new_per_day):
            raise SignupRefused(line, f"an address may open {plural(min(share, self.config.new_per_day), 'table')} "
                                "a day",
                                "try again tomorrow, or join an open table")
        if sum(domain_of(opener) == domain_of(email) for opener in today) >= share:
            raise SignupRefused(line, f"the addresses at {domain_of(email)} have opened {plural(share, 'table')} "
                                "today, the most for one domain", "try again tomorrow, or join an open table")
        if len(today) >= self.config.new_per_day_all:
            raise SignupRefused(line, f"{plural(self.config.new_per_day_all, 'table')} were opened today, the most "
                                "in a day", "try again tomorrow, or join an open table")

    # ------------------------------------------------------------------ tables

    def _table(self, s: Session, table_id: int, line: str) -> SignupTable:
        table = s.get(SignupTable, table_id) if 0 < table_id <= MAX_GAME_ID else None
        if table is None:
            raise SignupRefused(line, f"there is no table {table_id}", "'games' lists the open tables")
        return table

    def _joinable(self, s: Session, email: str, table_id: int, line: str) -> SignupTable:
        table = self._table(s, table_id, line)
        if table.status == STARTED:
            raise SignupRefused(line, f"table {table.id} started already, as game {table.game_id}",
                                f"watch it with 'watch {table.game_id}', or join an open table ('games')")
        if table.status == CLOSED:
            raise SignupRefused(line, f"table {table.id} is closed", "'games' lists the open tables")
        if table.status == WAITING:
            raise SignupRefused(line, f"table {table.id} waits for the moderator's approval", "try again later")
        seats = self._seats(s, table.id or 0)
        if any(seat.email == email for seat in seats):
            raise SignupRefused(line, f"you sit at table {table.id} already", f"'leave {table.id}' gives the seat back")
        if len(seats) >= table.seats:
            raise SignupRefused(line, f"table {table.id} is full", "'games' lists the open tables")
        return table

    def _seated(self, s: Session, email: str, table_id: int, line: str) -> tuple[SignupTable, SignupSeat]:
        """The table ``email`` sits at, not started, and the seat."""
        table = self._table(s, table_id, line)
        seat = s.exec(select(SignupSeat).where(SignupSeat.table_id == table.id, SignupSeat.email == email)).first()
        if seat is None or table.status not in (OPEN, WAITING):
            raise SignupRefused(line, f"you do not sit at table {table.id}", "'games' lists the open tables")
        return table, seat

    def _startable(self, s: Session, email: str, table_id: int | None, line: str, *, robots: bool) -> SignupTable:
        """The table ``email`` opened that may start now (``table_id`` None: their one open table)."""
        if table_id is None:
            mine = s.exec(select(SignupTable).where(SignupTable.opener == email,
                                                    SignupTable.status.in_((OPEN, WAITING)))).all()  # type: ignore[attr-defined]
            if len(mine) != 1:
                raise SignupRefused(line, "you opened no table that waits" if not mine else
                                    f"you opened {len(mine)} tables: {listing([str(t.id) for t in mine])}",
                                    "start N, with the table's number")
            table = mine[0]
        else:
            table = self._table(s, table_id, line)
        if table.opener != email:
            raise SignupRefused(line, f"only the player who opened table {table.id} may start it",
                                "ask them, or wait: it starts when its seats are full")
        if table.status == WAITING:
            raise SignupRefused(line, f"table {table.id} waits for the moderator's approval", "wait for the moderator")
        if table.status != OPEN:
            raise SignupRefused(line, f"table {table.id} is {table.status}", "'games' lists the open tables")
        self._enough(table, table.seats if robots else len(self._seats(s, table.id or 0)), line)
        return table

    @staticmethod
    def _enough(table: SignupTable, players: int, line: str) -> None:
        engine = get_game(table.kind)
        if players < min(engine.PLAYERS):
            raise SignupRefused(line, f"{engine.TITLE} needs at least {min(engine.PLAYERS)} players; table {table.id} "
                                f"has {players}", f"start {table.id} with robots")

    @staticmethod
    def _seats(s: Session, table_id: int) -> list[SignupSeat]:
        return list(s.exec(select(SignupSeat).where(SignupSeat.table_id == table_id).order_by(SignupSeat.id)).all())

    # ------------------------------------------------------------------ games

    @staticmethod
    def _running(s: Session, game_id: int, line: str, instead: str) -> Game:
        """Game ``game_id``, which must be running (or paused); ``instead`` says what to do when it is over."""
        game = s.get(Game, game_id) if 0 < game_id <= MAX_GAME_ID else None
        if game is None:
            raise SignupRefused(line, f"there is no game {game_id}", "'games' lists the running games")
        if game.status not in (GameStatus.ACTIVE, GameStatus.PAUSED):
            raise SignupRefused(line, f"game {game_id} is {game.status}", instead)
        return game

    def _watchable(self, s: Session, email: str, game_id: int, line: str) -> Game:
        game = self._running(s, game_id, line, "the archive shows every finished game; 'games' lists the running ones")
        if s.exec(select(Seat.id).where(Seat.game_id == game_id, Seat.email == email)).first():
            raise SignupRefused(line, f"you play in game {game_id}", "its mails come to you already")
        if s.exec(select(Watcher.id).where(Watcher.game_id == game_id, Watcher.email == email)).first():
            raise SignupRefused(line, f"you watch game {game_id} already", f"'unwatch {game_id}' stops it")
        watching = s.exec(select(func.count()).select_from(Watcher).where(Watcher.game_id == game_id)).one()
        if watching >= self.config.watchers:
            raise SignupRefused(line, f"game {game_id} has {plural(watching, 'watcher')}, the most a game may have",
                                "the archive shows it move by move")
        return game

    @staticmethod
    def _watcher(s: Session, email: str, game_id: int, line: str) -> Watcher:
        watcher = s.exec(select(Watcher).where(Watcher.game_id == game_id, Watcher.email == email)).first()
        if watcher is None:
            raise SignupRefused(line, f"you do not watch game {game_id}", "nothing to do")
        return watcher

    def _resignable(self, s: Session, email: str, game_id: int, line: str) -> tuple[Game, Seat]:
        game = self._running(s, game_id, line, "nothing to resign from")
        seat = s.exec(select(Seat).where(Seat.game_id == game.id, Seat.email == email)).first()
        if seat is None:
            raise SignupRefused(line, f"you do not play in game {game.id}", "resign N names a game you play in")
        return game, seat


__all__ = ["CLOSED", "DAY", "MAX_LISTED", "OPEN", "STARTED", "WAITING", "SignupChecks", "SignupRefused", "domain_of",
           "share_of_the_day"]
