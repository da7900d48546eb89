"""Tables players start themselves (docs/signup.md): open a table, join it, leave it, start it (with robots in
the free seats), watch a running game, stop watching, resign a seat to a robot; the code mailed to confirm
``new``, ``join`` and ``watch``; the moderator's approval and list of watchers.

Every call of ``Signup.apply`` is one unit of work: all of a mail's signup lines apply, or none does and
``SignupRefused`` names the line, why and what to send instead. A table that starts becomes a game through
``GameChanges.create_game`` in that same unit of work (every seat gets its secret word, as with
``pbem game new --secret-words``); a resigned seat goes to a robot through ``replace_player``, so the seat's
history credits each part to who played it (services.common.holders). Pure of mail reading: the mail side
(services.mail_in.signup_mail) reads the lines and writes the reply.
"""

from __future__ import annotations

import hmac
from dataclasses import dataclass, field
from datetime import timedelta
from typing import Any

from sqlalchemy import delete, func
from sqlmodel import Session, select

from ...config import SignupConfig
from ...limits import MAX_GAME_ID
from ...games import get_game
from ...store.models import Game, GameStatus, OutboxMail, Seat, SignupRequest, SignupSeat, SignupTable, Watcher
from ...store.uow import UnitOfWork
from ...words import listing, plural
from ..common.deadlines import aware
from ..common.errors import ServiceError
from ..common.input_checks import checked_address, proves_seat
from ..common.timing import Timing
from ..mail_out import notices
from .games import GameChanges, new_secret_word
from .signup_words import SignupLine, TableInfo, code_hash, name_of, table_words, unbroken

CODE_DAYS = 2  # an unconfirmed request expires after this
MAX_WAITING = 3  # requests of one address waiting for their code: a forger makes pbem mail a victim no more codes
MAX_LISTED = 30  # tables and games the answer to 'games' lists, each
OPEN, WAITING, STARTED, CLOSED = "open", "waiting", "started", "closed"  # a table's statuses
DAY = timedelta(days=1)


class SignupRefused(ServiceError):
    """A signup line that cannot apply: ``line``, ``why`` and ``instead`` (what the sender may do)."""

    def __init__(self, line: str, why: str, instead: str = "") -> None:
        super().__init__(f"'{line}': {why}")
        self.line, self.why, self.instead = line, why, instead


@dataclass
class SignupResult:
    """What a mail's signup lines did: (line, what was done) each, the text of any answer (``games``), the
    mails queued (codes, the start, notices), and whether anything was written."""

    done: list[tuple[str, str]] = field(default_factory=list)
    answers: list[str] = field(default_factory=list)
    changed: bool = False
    games: list[int] = field(default_factory=list)  # games started
    mails: int = 0


class Signup:
    """The signup service over the games of ``games``, as open as ``config`` says; ``moderator`` is told of every
    table opened by mail."""

    def __init__(self, games: GameChanges, config: SignupConfig = SignupConfig(), *, moderator: str = "") -> None:
        self.games = games
        self.config = config
        self.moderator = moderator.strip().lower()

    # ------------------------------------------------------------------ the one entry point of mail

    def apply(self, email: str, lines: list[SignupLine], *, secrets: list[str] = (), dry_run: bool = False,
              also: Any = None) -> SignupResult:
        """Apply a mail's signup ``lines`` for ``email``, all or none (SignupRefused for the first that cannot).
        ``secrets``: the secret words the mail gave (``resign`` in a game with them). ``also(result, session)``
        returns more rows to write with the change (the mail's record and its reply)."""
        email = checked_address(email)
        result = SignupResult()
        with UnitOfWork(self.games.engine, write=True) as uow:
            uow.serialize("signup")  # two workers never both take a table's last seat
            for line in lines:
                self._one(uow, email, line, list(secrets), result)
            if also is not None:
                uow.session.add_all(also(result, uow.session))
            if not dry_run:
                uow.commit()
        return result

    def _one(self, uow: UnitOfWork, email: str, line: SignupLine, secrets: list[str], result: SignupResult) -> None:
        s = uow.session
        handler = getattr(self, "_start_line" if line.action == "start" else f"_{line.action}")
        note = handler(uow, s, email, line, secrets, result)
        if line.action != "games":
            result.changed = True
        if note:
            result.done.append((line.line, note))

    # ------------------------------------------------------------------ the lines

    def _games(self, uow: UnitOfWork, s: Session, email: str, line: SignupLine, secrets: list[str],
               result: SignupResult) -> str:
        result.answers += self.listing(s)
        return ""

    def _new(self, uow: UnitOfWork, s: Session, email: str, line: SignupLine, secrets: list[str],
             result: SignupResult) -> str:
        self.may_open(s, email, line.line)
        code = self._request(s, email, "new", {"kind": line.kind, "players": line.players, "back_side": line.back_side,
                                               "deadline": line.deadline, "name": line.name}, line, result)
        return f"a code was mailed to {email}: reply to that mail to open the table ({code})"

    def _join(self, uow: UnitOfWork, s: Session, email: str, line: SignupLine, secrets: list[str],
              result: SignupResult) -> str:
        table = self._joinable(s, email, line.number or 0, line.line)
        code = self._request(s, email, "join", {"table": table.id, "name": line.name}, line, result)
        return f"a code was mailed to {email}: reply to that mail to take the seat at table {table.id} ({code})"

    def _watch(self, uow: UnitOfWork, s: Session, email: str, line: SignupLine, secrets: list[str],
               result: SignupResult) -> str:
        self._watchable(s, email, line.number or 0, line.line)
        code = self._request(s, email, "watch", {"game": line.number}, line, result)
        return f"a code was mailed to {email}: reply to that mail to watch game {line.number} ({code})"

    def _confirm(self, uow: UnitOfWork, s: Session, email: str, line: SignupLine, secrets: list[str],
                 result: SignupResult) -> str:
        now = self.games.clock()
        request = s.exec(select(SignupRequest).where(SignupRequest.code_hash == code_hash(line.code))).first()
        if request is None or not hmac.compare_digest(request.email, email):
            raise SignupRefused(line.line, "no request of yours has this code",
                                "send the line again (new, join or watch) for a new code")
        if request.done_at is not None:
            raise SignupRefused(line.line, "this code was used already", "a code is good once")
        if aware(request.expires_at) <= now:
            raise SignupRefused(line.line, f"this code expired ({CODE_DAYS} days after it was mailed)",
                                f"send the {request.action} line again for a new code")
        request.done_at = now
        s.add(request)
        data = request.data
        if request.action == "new":
            self.may_open(s, email, line.line)
            table = self.open_table(s, email, data["kind"], players=data.get("players"),
                                    back_side=bool(data.get("back_side")), deadline=data.get("deadline"),
                                    name=data.get("name") or "", line=line.line, by_mail=True)
            self._mails(s, result, self._moderator_told(table))
            if table.status == WAITING:
                return (f"table {table.id} is opened ({table_words(table)}), you sit at it; it waits for the "
                        "moderator's approval before others may join")
            return (f"table {table.id} is opened ({table_words(table)}), you sit at it; others join with "
                    f"'join {table.id}', you start it with 'start {table.id}'")
        if request.action == "join":
            table = self._joinable(s, email, data["table"], line.line)
            self._seat(s, table, email, data.get("name") or "")
            if len(self._seats(s, table.id)) >= table.seats:
                game_id = self._begin(uow, s, table, robots=False, line=line.line)
                result.games.append(game_id)
                return f"you sit at table {table.id}; its seats are full, and it started as game {game_id}"
            free = table.seats - len(self._seats(s, table.id))
            return f"you sit at table {table.id} ({plural(free, 'seat')} free)"
        game_id = int(data["game"])
        self._watchable(s, email, game_id, line.line)
        s.add(Watcher(game_id=game_id, email=email, since=now, told_seq=self.games.last_seq(s, game_id),
                      due_at=now + DAY))
        self._tell_players(s, game_id, f"{name_of(email)} now watches game {game_id}: they are mailed "
                           "what everybody sees (never a hand), once a day.", result)
        return f"you watch game {game_id}: once a day a mail with what everybody sees, until you send 'unwatch {game_id}'"

    def _leave(self, uow: UnitOfWork, s: Session, email: str, line: SignupLine, secrets: list[str],
               result: SignupResult) -> str:
        table = self._table(s, line.number or 0, line.line)
        seat = s.exec(select(SignupSeat).where(SignupSeat.table_id == table.id, SignupSeat.email == email)).first()
        if seat is None:
            raise SignupRefused(line.line, f"you do not sit at table {table.id}", "'games' lists the open tables")
        s.delete(seat)
        if table.opener == email:
            table.status = CLOSED
            s.add(table)
            others = [x.email for x in self._seats(s, table.id) if x.email != email]
            for other in others:
                self._mails(s, result, [notices.plain_mail(other, f"table {table.id} is closed", [
                    f"The player who opened table {table.id} ({table_words(table)}) left it, so it is closed and will "
                    "not start. Send 'games' for the other open tables, or open one yourself with 'new'."],
                    self.games.new_message_id, self.games.clock())])
            return f"you left table {table.id}; you had opened it, so it is closed"
        return f"you left table {table.id}"

    def _begin(self, uow: UnitOfWork, s: Session, table: SignupTable, *, robots: bool = False, line: str = "") -> int:
        """Start ``table``: its game made in ``uow``; returns the game's number."""
        seats = self._seats(s, table.id)
        players = [(seat.name, seat.email) for seat in seats]
        if robots:
            players += [(f"Robo{n}", "robot") for n in range(1, table.seats - len(players) + 1)]
        engine = get_game(table.kind)
        if len(players) < min(engine.PLAYERS):
            raise SignupRefused(line, f"{engine.TITLE} needs at least {min(engine.PLAYERS)} players; table {table.id} "
                                f"has {len(players)}", f"start {table.id} with robots")
        game_id = self.games.create_game(table.kind, players, options=dict(table.options), secret_words=True,
                                         timing=Timing.from_dict(table.timing), uow=uow)
        table.status, table.game_id, table.started_at = STARTED, game_id, self.games.clock()
        s.add(table)
        if self.moderator:  # the moderator hears of every game players start
            s.add(notices.to_moderator(self.moderator, f"table {table.id} started as game {game_id}", [
                f"Table {table.id} ({table_words(table)}, opened by {table.opener}) started as game {game_id}: "
                f"{listing([f'{name} <{email}>' for name, email in players])}."], self.games.new_message_id,
                self.games.clock(), game_id=game_id))
        s.exec(delete(SignupSeat).where(SignupSeat.table_id == table.id))  # type: ignore[call-overload]
        return game_id

    def _start_line(self, uow: UnitOfWork, s: Session, email: str, line: SignupLine, secrets: list[str],
                    result: SignupResult) -> str:
        if line.number is None:
            mine = s.exec(select(SignupTable).where(SignupTable.opener == email,
                                                    SignupTable.status.in_((OPEN, WAITING)))).all()  # type: ignore[attr-defined]
            if len(mine) != 1:
                raise SignupRefused(line.line, "you opened no table that waits" if not mine else
                                    f"you opened {len(mine)} tables: {listing([str(t.id) for t in mine])}",
                                    "start N, with the table's number")
            table = mine[0]
        else:
            table = self._table(s, line.number, line.line)
        if table.opener != email:
            raise SignupRefused(line.line, f"only the player who opened table {table.id} may start it",
                                "ask them, or wait: it starts when its seats are full")
        if table.status == WAITING:
            raise SignupRefused(line.line, f"table {table.id} waits for the moderator's approval",
                                "wait for the moderator")
        game_id = self._begin(uow, s, table, robots=line.robots, line=line.line)
        result.games.append(game_id)
        return f"table {table.id} started as game {game_id}" + (": robots play its free seats" if line.robots else "")

    def _unwatch(self, uow: UnitOfWork, s: Session, email: str, line: SignupLine, secrets: list[str],
                 result: SignupResult) -> str:
        watcher = s.exec(select(Watcher).where(Watcher.game_id == line.number, Watcher.email == email)).first()
        if watcher is None:
            raise SignupRefused(line.line, f"you do not watch game {line.number}", "nothing to do")
        s.delete(watcher)
        return f"you no longer watch game {line.number}"

    def _resign(self, uow: UnitOfWork, s: Session, email: str, line: SignupLine, secrets: list[str],
                result: SignupResult) -> str:
        game = self._running(s, line.number or 0, line.line, "nothing to resign from")
        seat = s.exec(select(Seat).where(Seat.game_id == game.id, Seat.email == email)).first()
        if seat is None:
            raise SignupRefused(line.line, f"you do not play in game {game.id}", "resign N names a game you play in")
        if not proves_seat(seat.secret, secrets):
            raise SignupRefused(line.line, f"game {game.id} asks for your seat's secret word in every mail",
                                "add the line 'secret WORD' with the word of your game mails")
        self.games.replace_player(game.id, email, "robot", reason="", moderator=self.moderator, uow=uow, by=email,
                                  words=f"{seat.name} resigned: a robot plays seat {seat.seat + 1} from now on.")
        return f"you resigned from game {game.id}: a robot plays your seat from now on"

    # ------------------------------------------------------------------ the moderator's side

    def open_table(self, s: Session, opener: str, kind: str, *, players: int | None = None, back_side: bool = False,
                   deadline: int | None = None, name: str = "", line: str = "", by_mail: bool = False) -> SignupTable:
        engine = get_game(kind)
        timing = Timing(deadline=deadline) if deadline else Timing()
        table = SignupTable(kind=engine.NAME, options={"back_side": True} if back_side else {}, timing=timing.to_dict(),
                            seats=players or max(engine.PLAYERS), opener=opener,
                            status=WAITING if by_mail and self.config.approve else OPEN,
                            created_at=self.games.clock())
        s.add(table)
        s.flush()
        if by_mail:
            self._seat(s, table, opener, name)
        return table

    # ------------------------------------------------------------------ checks and helpers

    def listing(self, s: Session) -> list[str]:
        """The answer to 'games': open tables with their players' names, then running games; never an address."""
        tables = s.exec(select(SignupTable).where(SignupTable.status == OPEN).order_by(SignupTable.id)
                        .limit(MAX_LISTED)).all()
        lines = ["Open tables (join one with 'join N', or 'join N as NAME'):"]
        for table in tables:
            seats = self._seats(s, table.id or 0)
            taken = listing([seat.name for seat in seats]) if seats else "nobody yet"
            lines += unbroken(f"table {table.id}: {table_words(table)}; seated: {taken}; "
                           f"{plural(table.seats - len(seats), 'seat')} free")
        if not tables:
            lines.append("  none now" + ("; open one with 'new fifth-avenue' or 'new manhattan'"
                                         if self.config.new != "moderator" else ""))
        games = s.exec(select(Game).where(Game.status == GameStatus.ACTIVE).order_by(Game.id.desc())  # type: ignore[union-attr]
                       .limit(MAX_LISTED)).all()
        lines += ["", "Running games (follow one with 'watch N'):"]
        for game in games:
            names = [seat.name for seat in s.exec(select(Seat).where(Seat.game_id == game.id).order_by(Seat.seat))]
            lines += unbroken(f"game {game.id}: {get_game(game.kind).TITLE}, {listing(names)}")
        if not games:
            lines.append("  none now")
        return lines

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
        mine_today = s.exec(select(func.count()).select_from(SignupTable).where(
            SignupTable.opener == email, SignupTable.created_at >= now - DAY)).one()
        if mine_today >= self.config.new_per_day:
            raise SignupRefused(line, f"an address may open {plural(self.config.new_per_day, 'table')} a day",
                                "try again tomorrow, or join an open table")
        all_today = s.exec(select(func.count()).select_from(SignupTable).where(
            SignupTable.opener != "moderator", SignupTable.created_at >= now - DAY)).one()
        if all_today >= self.config.new_per_day_all:
            raise SignupRefused(line, f"{plural(self.config.new_per_day_all, 'table')} were opened today, the most "
                                "in a day", "try again tomorrow, or join an open table")

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

    def _request(self, s: Session, email: str, action: str, data: dict[str, Any], line: SignupLine,
                 result: SignupResult) -> str:
        """A request waiting for its code, and the mail that carries the code; returns where the code went."""
        now = self.games.clock()
        waiting = s.exec(select(func.count()).select_from(SignupRequest).where(
            SignupRequest.email == email, SignupRequest.done_at.is_(None),  # type: ignore[union-attr]
            SignupRequest.expires_at > now)).one()
        if waiting >= MAX_WAITING:
            raise SignupRefused(line.line, f"{plural(waiting, 'request')} of yours wait for their code already",
                                "answer the mails with the codes first; each expires after "
                                f"{plural(CODE_DAYS, 'day')}")
        code = self._fresh_code(s)
        expires = now + timedelta(days=CODE_DAYS)
        s.add(SignupRequest(email=email, action=action, data=data, code_hash=code_hash(code), created_at=now,
                            expires_at=expires))
        self._mails(s, result, [notices.plain_mail(email, f"confirm code {code}: {line.line[:80]}", [
            f"Somebody, we hope you, sent us '{line.line}' from this address. To do it, answer this mail as it is "
            f"(its subject carries the code), or send a mail with the line 'confirm {code}'.",
            f"If it was not you, do nothing: the request expires on {expires:%a %d %b %H:%M} UTC, and nothing "
            "happens."], self.games.new_message_id, now)])
        return "answer that mail within " + plural(CODE_DAYS, "day")

    @staticmethod
    def _fresh_code(s: Session) -> str:
        """A code no request has had: one drawn again when it was (1 in 19 million a draw; a clash once set the
        mail aside on the unique hash)."""
        while True:
            code = new_secret_word().lower()
            if s.exec(select(SignupRequest.id).where(SignupRequest.code_hash == code_hash(code))).first() is None:
                return code

    def _seat(self, s: Session, table: SignupTable, email: str, name: str) -> None:
        name = name or name_of(email)
        taken = {seat.name.lower() for seat in self._seats(s, table.id or 0)}
        base, n = name, 2
        while name.lower() in taken:
            name, n = f"{base} {n}", n + 1
        s.add(SignupSeat(table_id=table.id, email=email, name=name, joined_at=self.games.clock()))
        s.flush()

    @staticmethod
    def _seats(s: Session, table_id: int) -> list[SignupSeat]:
        return list(s.exec(select(SignupSeat).where(SignupSeat.table_id == table_id).order_by(SignupSeat.id)).all())

    def _tell_players(self, s: Session, game_id: int, text: str, result: SignupResult) -> None:
        game = s.get(Game, game_id)
        for seat in s.exec(select(Seat).where(Seat.game_id == game_id, Seat.robot == "")).all():
            self._mails(s, result, [notices.plain_mail(seat.email, game.subject if game else "", [text],
                                                       self.games.new_message_id, self.games.clock(), game_id=game_id,
                                                       tagged=False)])

    def _moderator_told(self, table: SignupTable) -> list[OutboxMail]:
        if not self.moderator:
            return []
        approve = (f" It waits for your approval: pbem game approve {table.id}." if table.status == WAITING else "")
        return [notices.to_moderator(self.moderator, f"table {table.id} opened by mail", [
            f"{table.opener} opened table {table.id} by mail: {table_words(table)}.{approve} 'pbem game tables' "
            "lists the tables."], self.games.new_message_id, self.games.clock())]

    @staticmethod
    def _mails(s: Session, result: SignupResult, mails: list[OutboxMail]) -> None:
        s.add_all(mails)
        result.mails += len(mails)


__all__ = ["CODE_DAYS", "MAX_WAITING", "Signup", "SignupRefused", "SignupResult", "TableInfo", "code_hash", "name_of",
           "table_words"]  # (the last four from signup_words, where the mail side and the CLI find them too)
