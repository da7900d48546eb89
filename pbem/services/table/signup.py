"""Tables players start themselves (docs/signup.md): open a table, join it, leave it, start it (with robots in
the free seats), watch a running game, stop watching, resign a seat to a robot; the code mailed to prove the
address; the moderator's approval and list of watchers.

Every call of ``Signup.apply`` is one unit of work: all of a mail's signup lines apply, or none does and
``SignupRefused`` names the line, why and what to send instead. A line that changes what somebody has (a seat,
a table, a watch) waits for the code mailed to the sender's address, unless the mail proves the seat otherwise
(the seat's secret word): ``new``, ``join``, ``watch``, ``unwatch``, ``start``, the opener's ``leave`` and a
``resign`` in a game without secret words. One such line a mail, one code, one mail: the code's mail is the
mail's answer (services.mail_in.signup_mail). A table that starts becomes a game through
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

from ...games import get_game
from ...store.models import Event, Game, OutboxMail, Seat, SignupRequest, SignupSeat, SignupTable, Watcher
from ...store.uow import UnitOfWork
from ...words import cut as quoted, listing, plural
from ..common.deadlines import aware
from ..common.input_checks import checked_address, proves_seat
from ..common.ledger import strangers_mailed
from ..common.timing import Timing
from ..mail_out import notices
from .games import new_secret_word
from .player_names import same_name
from .signup_checks import CLOSED, DAY, OPEN, STARTED, WAITING, SignupChecks, SignupRefused
from .signup_words import SignupLine, TableInfo, code_hash, name_of, table_words

CODE_DAYS = 2  # an unconfirmed request expires after this
MAX_WAITING = 3  # requests of one address waiting for their code: a forger makes pbem mail a victim no more codes
PROVEN = ("new", "join", "watch", "unwatch", "start", "leave", "resign")  # what a code may be mailed for


@dataclass
class SignupResult:
    """What a mail's signup lines did: (line, what was done) each, the text of any answer (``games``), the
    mails queued (codes, the start, notices), and whether anything was written."""

    done: list[tuple[str, str]] = field(default_factory=list)
    answers: list[str] = field(default_factory=list)
    changed: bool = False
    games: list[int] = field(default_factory=list)  # games started
    mails: int = 0
    code_mail: OutboxMail | None = None  # the mail of the one code the mail asked for: it is the mail's answer
    stranger: bool = False  # that code went to an address in no game (the strangers' daily budget counts it)
    replied: bool = False  # the mail answers a mail of ours to its address: it proves that address's seats


class Signup(SignupChecks):
    """The signup service over the games of ``games``, as open as ``config`` says; ``moderator`` is told of every
    table opened by mail."""

    # ------------------------------------------------------------------ the one entry point of mail

    def apply(self, email: str, lines: list[SignupLine], *, secrets: list[str] = (), replied: bool = False,
              dry_run: bool = False, also: Any = None) -> SignupResult:
        """Apply a mail's signup ``lines`` for ``email``, all or none (SignupRefused for the first that cannot).
        ``secrets``: the secret words the mail gave, and ``replied``: whether it answers a mail of ours to
        ``email`` (either proves a seat for ``resign`` in a game with secret words). ``also(result, session)``
        returns more rows to write with the change (the mail's record and its reply)."""
        email = checked_address(email)
        result = SignupResult(replied=replied)
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
        handler = getattr(self, f"_{line.action}_line")
        note = handler(uow, s, email, line, secrets, result)
        if line.action != "games":
            result.changed = True
        if note:
            result.done.append((line.line, note))

    # ------------------------------------------------------------------ the lines

    def _games_line(self, uow: UnitOfWork, s: Session, email: str, line: SignupLine, secrets: list[str],
                    result: SignupResult) -> str:
        result.answers += self.listing(s)
        return ""

    def _new_line(self, uow: UnitOfWork, s: Session, email: str, line: SignupLine, secrets: list[str],
                  result: SignupResult) -> str:
        self.may_open(s, email, line.line)
        return self._request(s, email, "new", {"kind": line.kind, "players": line.players, "back_side": line.back_side,
                                               "deadline": line.deadline, "name": line.name}, line, result,
                             "open the table")

    def _join_line(self, uow: UnitOfWork, s: Session, email: str, line: SignupLine, secrets: list[str],
                   result: SignupResult) -> str:
        table = self._joinable(s, email, line.number or 0, line.line)
        return self._request(s, email, "join", {"table": table.id, "name": line.name}, line, result,
                             f"take the seat at table {table.id}")

    def _watch_line(self, uow: UnitOfWork, s: Session, email: str, line: SignupLine, secrets: list[str],
                    result: SignupResult) -> str:
        self._watchable(s, email, line.number or 0, line.line)
        named = f" as {line.name}: the players hear that {line.name} watches" if line.name else \
            ": the players hear that a watcher follows the game (add 'as NAME' to be named)"
        return self._request(s, email, "watch", {"game": line.number, **({"name": line.name} if line.name else {})},
                             line, result, f"watch game {line.number}{named}")

    def _unwatch_line(self, uow: UnitOfWork, s: Session, email: str, line: SignupLine, secrets: list[str],
                      result: SignupResult) -> str:
        self._watcher(s, email, line.number or 0, line.line)
        return self._request(s, email, "unwatch", {"game": line.number}, line, result,
                             f"stop watching game {line.number}")

    def _leave_line(self, uow: UnitOfWork, s: Session, email: str, line: SignupLine, secrets: list[str],
                    result: SignupResult) -> str:
        table, seat = self._seated(s, email, line.number or 0, line.line)
        if table.opener == email:  # it closes the table for everybody: proven as a join is
            return self._request(s, email, "leave", {"table": table.id}, line, result,
                                 f"leave table {table.id}, which closes it")
        s.delete(seat)  # forged, it costs the address its own seat at a table not started: join again
        return f"you left table {table.id}"

    def _start_line(self, uow: UnitOfWork, s: Session, email: str, line: SignupLine, secrets: list[str],
                    result: SignupResult) -> str:
        table = self._startable(s, email, line.number, line.line, robots=line.robots)
        return self._request(s, email, "start", {"table": table.id, "robots": line.robots}, line, result,
                             f"start table {table.id}" + (" with robots in its free seats" if line.robots else ""))

    def _resign_line(self, uow: UnitOfWork, s: Session, email: str, line: SignupLine, secrets: list[str],
                     result: SignupResult) -> str:
        game, seat = self._resignable(s, email, line.number or 0, line.line)
        if not seat.secret:  # a game without secret words: the code proves the address
            return self._request(s, email, "resign", {"game": game.id}, line, result,
                                 f"resign from game {game.id}: a robot plays your seat from then on")
        if not (result.replied or proves_seat(seat.secret, secrets)):
            raise SignupRefused(line.line, f"game {game.id} asks a new mail for your seat's secret word",
                                "send the line as a Reply to a mail of the game, or add the line 'secret WORD' "
                                "with the word of your game mails")
        return self._resign(uow, game, seat)

    # ------------------------------------------------------------------ a code comes back

    def _confirm_line(self, uow: UnitOfWork, s: Session, email: str, line: SignupLine, secrets: list[str],
                      result: SignupResult) -> str:
        now = self.games.clock()
        request = s.exec(select(SignupRequest).where(SignupRequest.code_hash == code_hash(line.code))).first()
        if request is None or not hmac.compare_digest(request.email, email):
            raise SignupRefused(line.line, "no request of yours has this code",
                                "send the line again (new, join, watch, ...) for a new code")
        if request.done_at is not None:
            raise SignupRefused(line.line, "this code was used already", "a code is good once")
        if aware(request.expires_at) <= now:
            raise SignupRefused(line.line, f"this code expired ({CODE_DAYS} days after it was mailed)",
                                f"send the {request.action} line again for a new code")
        request.done_at = now
        s.add(request)
        return getattr(self, f"_confirmed_{request.action}")(uow, s, email, request.data, line.line, result)

    def _confirmed_new(self, uow: UnitOfWork, s: Session, email: str, data: dict[str, Any], line: str,
                       result: SignupResult) -> str:
        self.may_open(s, email, line)
        table = self.open_table(s, email, data["kind"], players=data.get("players"),
                                back_side=bool(data.get("back_side")), deadline=data.get("deadline"),
                                name=data.get("name") or "", line=line, by_mail=True)
        self._mails(s, result, self._moderator_told(table))
        if table.status == WAITING:
            return (f"table {table.id} is opened ({table_words(table)}), you sit at it; it waits for the "
                    "moderator's approval before others may join")
        return (f"table {table.id} is opened ({table_words(table)}), you sit at it; others join with "
                f"'join {table.id}', you start it with 'start {table.id}'")

    def _confirmed_join(self, uow: UnitOfWork, s: Session, email: str, data: dict[str, Any], line: str,
                        result: SignupResult) -> str:
        table = self._joinable(s, email, data["table"], line)
        self._seat(s, table, email, data.get("name") or "")
        if len(self._seats(s, table.id or 0)) >= table.seats:
            game_id = self._begin(uow, s, table, robots=False, line=line)
            result.games.append(game_id)
            return f"you sit at table {table.id}; its seats are full, and it started as game {game_id}"
        seats = self._seats(s, table.id or 0)
        free = table.seats - len(seats)
        if "@" in table.opener and table.opener != email:  # the opener hears who joined (a moderator's table has none)
            joined = next(seat.name for seat in seats if seat.email == email)
            self._mails(s, result, [notices.plain_mail(table.opener, f"table {table.id}: {joined} joined", [
                f"{joined} joined your table {table.id} ({table_words(table)}). Seated now: "
                f"{listing([seat.name for seat in seats])}; {plural(free, 'seat')} free.", "",
                f"It starts by itself when the last seat is taken; to start it now, send 'start {table.id}', or "
                f"'start {table.id} with robots' for robots in the free seats."],
                self.games.new_message_id, self.games.clock())])
        return f"you sit at table {table.id} ({plural(free, 'seat')} free)"

    def _confirmed_watch(self, uow: UnitOfWork, s: Session, email: str, data: dict[str, Any], line: str,
                         result: SignupResult) -> str:
        game_id = int(data["game"])
        self._watchable(s, email, game_id, line)
        now = self.games.clock()
        seq = self.games.last_seq(s, game_id)
        s.add(Watcher(game_id=game_id, email=email, since=now, told_seq=seq, due_at=now + DAY))
        # The players hear of it in their next game mail, by the name the watcher chose (issue 47): an event for
        # every seat (not for watchers, not a step of the archive's public page), never a mail of its own.
        # An address is told of once a game: watching, stopping and watching again fills no mail (the event's
        # actor is the watcher's address, which no reader sees).
        told = s.exec(select(Event.id).where(Event.game_id == game_id, Event.kind == "watch",
                                             Event.actor == email).limit(1)).first()
        if told is None:
            seats = sorted(s.exec(select(Seat.seat).where(Seat.game_id == game_id)).all())
            who = data.get("name") or "A watcher"
            s.add(Event(game_id=game_id, seq=seq + 1, actor=email, kind="watch", text=who, source="mail",
                        created_at=now, data={"readers": seats, "words": f"{who} now watches the game: watchers "
                                              "are mailed what everybody sees (never a hand), once a day."}))
        game = s.get(Game, game_id)
        if game is not None:
            game.updated_at = now
            s.add(game)
        return f"you watch game {game_id}: once a day a mail with what everybody sees, until you send 'unwatch {game_id}'"

    def _confirmed_unwatch(self, uow: UnitOfWork, s: Session, email: str, data: dict[str, Any], line: str,
                           result: SignupResult) -> str:
        s.delete(self._watcher(s, email, int(data["game"]), line))
        return f"you no longer watch game {data['game']}"

    def _confirmed_leave(self, uow: UnitOfWork, s: Session, email: str, data: dict[str, Any], line: str,
                         result: SignupResult) -> str:
        table, seat = self._seated(s, email, int(data["table"]), line)
        s.delete(seat)
        if table.opener != email:
            return f"you left table {table.id}"
        table.status = CLOSED
        s.add(table)
        for other in [x.email for x in self._seats(s, table.id or 0) if x.email != email]:
            self._mails(s, result, [notices.plain_mail(other, f"table {table.id} is closed", [
                f"The player who opened table {table.id} ({table_words(table)}) left it, so it is closed and will "
                "not start. Send 'games' for the other open tables, or open one yourself with 'new'."],
                self.games.new_message_id, self.games.clock())])
        return f"you left table {table.id}; you had opened it, so it is closed"

    def _confirmed_start(self, uow: UnitOfWork, s: Session, email: str, data: dict[str, Any], line: str,
                         result: SignupResult) -> str:
        robots = bool(data.get("robots"))
        table = self._startable(s, email, int(data["table"]), line, robots=robots)
        game_id = self._begin(uow, s, table, robots=robots, line=line)
        result.games.append(game_id)
        return f"table {table.id} started as game {game_id}" + (": robots play its free seats" if robots else "")

    def _confirmed_resign(self, uow: UnitOfWork, s: Session, email: str, data: dict[str, Any], line: str,
                          result: SignupResult) -> str:
        game, seat = self._resignable(s, email, int(data["game"]), line)
        return self._resign(uow, game, seat)

    def _resign(self, uow: UnitOfWork, game: Game, seat: Seat) -> str:
        self.games.replace_player(game.id, seat.email, "robot", reason="", moderator=self.moderator, uow=uow,
                                  by=seat.email,
                                  words=f"{seat.name} resigned: a robot plays seat {seat.seat + 1} from now on.")
        return f"you resigned from game {game.id}: a robot plays your seat from now on"

    def _begin(self, uow: UnitOfWork, s: Session, table: SignupTable, *, robots: bool = False, line: str = "") -> int:
        """Start ``table``: its game made in ``uow``; returns the game's number."""
        seats = self._seats(s, table.id or 0)
        players = [(seat.name, seat.email) for seat in seats]
        if robots:
            players += [(f"Robo{n}", "robot") for n in range(1, table.seats - len(players) + 1)]
        self._enough(table, len(players), line)
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

    # ------------------------------------------------------------------ the code and the seat

    def _request(self, s: Session, email: str, action: str, data: dict[str, Any], line: SignupLine,
                 result: SignupResult, what: str) -> str:
        """A request waiting for its code, and the mail that carries the code (the mail's one answer: one code a
        mail); returns what the reply says of it."""
        if result.code_mail is not None:
            raise SignupRefused(line.line, "one mail asks for one code, and a line before this one did",
                                "send this line in a mail of its own")
        now = self.games.clock()
        waiting = s.exec(select(func.count()).select_from(SignupRequest).where(
            SignupRequest.email == email, SignupRequest.done_at.is_(None),  # type: ignore[union-attr]
            SignupRequest.expires_at > now)).one()
        if waiting >= MAX_WAITING:
            raise SignupRefused(line.line, f"{plural(waiting, 'request')} of yours wait for their code already",
                                "answer the mails with the codes first; each expires after "
                                f"{plural(CODE_DAYS, 'day')}")
        result.stranger = not s.exec(select(Seat.id).where(Seat.email == email).limit(1)).first()
        if result.stranger and strangers_mailed(s, now - DAY) >= self.config.stranger_mails_per_day:
            raise SignupRefused(line.line, "pbem has mailed all it mails to new addresses today",
                                "try again tomorrow")
        code = self._fresh_code(s)
        expires = now + timedelta(days=CODE_DAYS)
        s.add(SignupRequest(email=email, action=action, data=data, code_hash=code_hash(code), created_at=now,
                            expires_at=expires))
        # No line of this mail reads as a confirmation: an auto-responder that sends it back whole confirms nothing.
        result.code_mail = notices.plain_mail(email, f"confirm code {code}: {quoted(line.line)}", [
            f"We got '{quoted(line.line)}' from this address (from you, we hope), to {what}. To do it, answer "
            "this mail with the word yes above the quoted text (the subject carries the code), or write to us "
            f"'confirm {code}' on a line of its own.",
            f"If it was not you, do nothing: the request expires on {expires:%a %d %b %H:%M} UTC, and nothing "
            "happens."], self.games.new_message_id, now)
        self._mails(s, result, [result.code_mail])
        return f"a code was mailed to {email}: answer that mail with 'yes' within {plural(CODE_DAYS, 'day')} to {what}"

    @staticmethod
    def _fresh_code(s: Session) -> str:
        """A code no request has had: one drawn again when it was (1 in 19 million a draw; a clash once set the
        mail aside on the unique hash)."""
        while True:
            code = new_secret_word().lower()
            if s.exec(select(SignupRequest.id).where(SignupRequest.code_hash == code_hash(code))).first() is None:
                return code

    def _seat(self, s: Session, table: SignupTable, email: str, name: str) -> None:
        """``email`` at ``table`` under ``name`` (or the start of the address); a name others would take for one
        already seated (services.table.player_names) gets a number: 'Ann 2'."""
        name = name or name_of(email)
        taken = [seat.name for seat in self._seats(s, table.id or 0)]
        base, n = name, 2
        while any(same_name(name, other) for other in taken):
            name, n = f"{base} {n}", n + 1
        s.add(SignupSeat(table_id=table.id, email=email, name=name, joined_at=self.games.clock()))
        s.flush()

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


__all__ = ["CODE_DAYS", "MAX_WAITING", "PROVEN", "Signup", "SignupRefused", "SignupResult", "TableInfo", "code_hash",
           "name_of", "table_words"]  # (the last four from signup_words, where the mail side and the CLI find them too)
