"""The game service: the one way in for every change to a game.

``GameService`` is what the CLI, the mail worker (``mail_commands``) and the
timekeeper call. It does:

- creating a game (``create_game``): seats, seed, the first snapshot and the
  mails that start it;
- reading (``list_games``, ``get``, ``view``, ``legal``, ``history``,
  ``games_of``): what a game is, what one player may see, who must act;
- playing (``submit``): a player's command lines, all or nothing;
- the moderator's fixes (``undo``, ``replace_player``, ``set_status``,
  ``set_timing``, ``resend``), each recorded as an event with its reason and
  mailed to the players;
- the archive (``export``, ``import_game``, in ``game_transfer``).

It also checks what people type in (``checked_address``, ``checked_name``),
and raises the typed errors (``ServiceError`` and its kinds) every caller
turns into one sentence. A player's absences are in ``services.absences``
(``GameService.absences``), the deadlines in ``services.deadlines`` and
``services.timekeeper``.

Every change runs in one unit of work: the game row is locked, the state is
loaded (latest snapshot plus the commands after it), the change is checked and
applied, and the new events, the snapshot and the outbox mails are committed
together, or nothing is written at all and a typed error comes back.
"""

from __future__ import annotations

import functools
import re
from contextlib import contextmanager
from datetime import datetime, timezone
from typing import TYPE_CHECKING, Any, Callable, Iterable, Iterator

from sqlalchemy import Engine, func
from sqlmodel import Session, select

from ..games import get_game
from ..games.errors import CommandError
from ..mail.message import MAX_ADDRESS, is_address
from ..store.models import NAME, DecisionClock, Event, Game, GameStatus, InboundMail, OutboxMail, Seat, Snapshot, utcnow
from ..store.uow import UnitOfWork
from ..timespans import format_duration
from ..words import plural
from . import deadlines, notices
from .chronicle import private_lines, public_events
from .delivery import checked_mode as delivery_mode
from .help_text import first_mail_help
from .game_info import GameInfo, HistoryEntry, PlayerInfo, Submission
from .ledger import AskedDecision
from .timing import Timing, TimingError

if TYPE_CHECKING:
    from .absences import Absences

MAX_GAME_ID = 2**31 - 1  # the largest number an INTEGER column holds on every database; no game has a larger one
MIN_SEED, MAX_SEED = -(2**63), 2**63 - 1  # what the games' BIGINT seed column holds; a new game's seed is >= 0
MAX_DEADLINE = 365 * 86400  # seconds: the longest deadline for a decision or a bid
SNAPSHOT_EVERY = 10  # commands between snapshots: a load replays fewer than this
_CONTROL = re.compile(r"[\x00-\x1f\x7f]")


# --------------------------------------------------------------------------- errors


class ServiceError(Exception):
    """A request the service refuses; ``message`` is one clear sentence."""

    def __init__(self, message: str) -> None:
        super().__init__(message)
        self.message = message


class GameNotFound(ServiceError):
    pass


class PlayerNotInGame(ServiceError):
    pass


class GameNotActive(ServiceError):
    pass


class BadRequest(ServiceError):
    pass


class DecisionMoved(ServiceError):
    """The game no longer waits for the decision a change was meant for; ``now`` says, in words, what it
    waits for instead (with the decision's number ``number``)."""

    def __init__(self, message: str, *, now: str = "", number: int | None = None) -> None:
        super().__init__(message)
        self.now = now
        self.number = number


class ImportFailed(ServiceError):
    pass


class CommandRejected(ServiceError):
    """One line of a submission was refused; nothing of the submission was applied."""

    def __init__(self, line_number: int, line: str, error: CommandError) -> None:
        self.line_number = line_number
        self.line = line
        self.error = error
        self.legal = error.legal
        super().__init__(f"line {line_number} '{line}': {error.message}")


# --------------------------------------------------------------------------- helpers


def _whole(value: Any) -> bool:
    return isinstance(value, int) and not isinstance(value, bool)


def _shown(value: str) -> str:
    return repr(value if len(value) <= 60 else value[:57] + "...")


def checked_address(value: str) -> str:
    """``value`` as pbem keeps a player's address: a plain ASCII address (``pbem.mail.message.is_address``, the
    rule the mail side reads a sender with), lower case, surrounding spaces dropped. BadRequest for anything
    else: a line break or a control character anywhere, a space inside, non-ASCII, no @, longer than 254."""
    candidate = value.strip(" ") if isinstance(value, str) else ""
    if candidate and is_address(candidate):
        return candidate.lower()
    odd = next((c for c in candidate if not c.isascii()), "")
    why = ("is empty" if not candidate else
           "holds a line break or a control character" if _CONTROL.search(candidate) else
           f"holds the non-ASCII character {odd!r} (U+{ord(odd):04X})" if odd else
           "holds a space" if " " in candidate else
           f"is longer than {MAX_ADDRESS} characters" if len(candidate) > MAX_ADDRESS else
           "has no @" if "@" not in candidate else "is not of the form name@example.org")
    raise BadRequest(f"{_shown(str(value))} is not an email address pbem can mail: it {why}")


def checked_name(value: str) -> str:
    """``value`` as pbem keeps a player's name: stripped, not empty, one line, at most NAME characters."""
    name = value.strip() if isinstance(value, str) else ""
    if not name or _CONTROL.search(name) or len(name) > NAME:
        raise BadRequest(f"a player's name must be 1 to {NAME} characters on one line, not {_shown(str(value))}")
    return name


def bounded_timing(timing: Timing) -> Timing:
    """``timing`` if its deadlines are at most MAX_DEADLINE (a longer one would run past the calendar)."""
    for what, seconds in (("deadline", timing.deadline), ("bid-deadline", timing.bid_deadline)):
        if seconds > MAX_DEADLINE:
            raise BadRequest(f"the {what} may be at most {format_duration(MAX_DEADLINE)}, not "
                             f"{format_duration(seconds)}")
    return timing


@functools.cache
def _secret_words() -> list[str]:
    from xkcdpass import xkcd_password

    return xkcd_password.generate_wordlist(wordfile=xkcd_password.locate_wordfile(), min_length=4, max_length=7)


def new_secret_word() -> str:
    """Two words from xkcdpass's English list, drawn with the system's secure random source (about 24
    bits): easy to type on a phone, far beyond guessing within the rate limit."""
    from xkcdpass import xkcd_password

    return xkcd_password.generate_xkcdpassword(_secret_words(), numwords=2, delimiter="-")


def _said(words: str, reason: str) -> dict[str, str]:
    """An event's words for the players' mails (services.chronicle), with the moderator's reason."""
    return {"words": words + (f" The moderator says: {reason}" if reason else ""), **_reason(reason)}


def _reason(reason: str) -> dict[str, str]:
    return {"reason": reason} if reason else {}


def _aware(moment: datetime) -> datetime:
    return moment if moment.tzinfo else moment.replace(tzinfo=timezone.utc)


def split_lines(text: str) -> list[str]:
    """Command lines of a submission: one per line, or several separated by ';'."""
    lines = []
    for raw in text.replace("\r\n", "\n").split("\n"):
        lines.extend(part.strip() for part in raw.split(";") if part.strip())
    return lines


def _effective_commands(events: Iterable[Event | dict[str, Any]]) -> dict[int, list[tuple[int, int, str]]]:
    """For each event number, the commands in force just after it: (seq, seat, command).

    An undo to event N puts back exactly what was in force after N, so the
    history folds without ever deleting anything.
    """
    in_force: list[tuple[int, int, str]] = []
    after: dict[int, list[tuple[int, int, str]]] = {0: []}
    for event in events:
        get = event.get if isinstance(event, dict) else lambda key, e=event: getattr(e, key)
        seq, kind, data = get("seq"), get("kind"), get("data") or {}
        if kind == "command":
            in_force = in_force + [(seq, get("seat"), data["command"])]
        elif kind == "undo":
            in_force = list(after[data["to"]])
        after[seq] = in_force
    return after


def _seat_with(seats: Iterable[Any], address: str) -> int | None:
    """The seat (of Seats or PlayerInfos) that ``address`` names, compared as stored (lower case); None when it is
    nobody's, and for text with a line break or a control character. Non-ASCII is never lower-cased: the Kelvin
    sign would become a 'k' and name somebody else's seat."""
    if _CONTROL.search(address):
        return None
    key = address.strip()
    key = key.lower() if key.isascii() else key
    return next((x.seat for x in seats if x.email == key), None)


def _named(address: str) -> str:
    """An address somebody gave, for a message: as written, or quoted when it holds control characters."""
    return repr(address) if _CONTROL.search(address) else address


# --------------------------------------------------------------------------- the service


class GameService:
    def __init__(
        self,
        engine: Engine,
        *,
        clock: Callable[[], datetime] = utcnow,
        mail_domain: str = "pbem.invalid",
        snapshot_every: int = SNAPSHOT_EVERY,
    ) -> None:
        self.engine = engine
        self.clock = clock
        self.mail_domain = mail_domain
        self.snapshot_every = snapshot_every

    # ------------------------------------------------------------------ creating

    def create_game(
        self, kind: str, players: list[tuple[str, str]], *, seed: int | None = None, options: dict[str, Any] | None = None,
        secret_words: bool = False, timing: Timing | None = None,
    ) -> int:
        """Start a game; ``players`` are (name, email) in seat order. Returns the game number.

        With ``secret_words`` every seat gets a secret word, told only to its player, that each of their
        mails must carry."""
        try:
            engine_module = get_game(kind)
        except KeyError as exc:
            raise BadRequest(str(exc.args[0])) from exc
        options = dict(options or {})
        if len(players) not in engine_module.PLAYERS:
            counts = ", ".join(map(str, engine_module.PLAYERS))
            raise BadRequest(f"{engine_module.TITLE} is for {counts} players, not {len(players)}")
        for name, email in players:
            if "@" not in email or not name.strip():
                raise BadRequest(f"'{name}={email}' is not NAME=EMAIL")
        players = [(checked_name(name), checked_address(email)) for name, email in players]
        emails = [email for _, email in players]
        if len(set(emails)) != len(emails):
            raise BadRequest("every player needs a different email address")
        if seed is None:
            seed = int.from_bytes(__import__("os").urandom(4), "big")
        if not _whole(seed) or not 0 <= seed <= MAX_SEED:
            raise BadRequest(f"the seed must be a whole number from 0 to {MAX_SEED}, not {seed}")
        timing = bounded_timing(timing or Timing())
        try:
            state = engine_module.new_game(players=len(players), seed=seed, **options)
        except (TypeError, ValueError) as exc:  # an option this game does not have
            raise BadRequest(f"{engine_module.TITLE}: {exc}") from exc
        now = self.clock()
        with UnitOfWork(self.engine, write=True) as uow:
            s = uow.session
            game = Game(
                kind=engine_module.NAME, variant="back-side" if options.get("back_side") else "standard",
                seed=seed, status=GameStatus.ACTIVE, settings=options, timing=timing.to_dict(),
                created_at=now, updated_at=now,
            )
            s.add(game)
            s.flush()
            seats = [Seat(game_id=game.id, seat=i, name=name, email=email,
                          secret=new_secret_word() if secret_words else "")
                     for i, (name, email) in enumerate(players)]
            s.add_all(seats)
            s.add(Event(game_id=game.id, seq=1, actor="moderator", kind="created", text="", source="cli",
                        data={"seed": seed, "settings": options}, created_at=now))
            s.add(Snapshot(game_id=game.id, seq=1, state=state.to_json(), created_at=now))
            info = self._info(game, seats, state, 1)
            deadlines.open_clock(s, game, info, now)
            self.post(s, info, lambda info: notices.game_started(info, self.new_message_id, now, self.mail_domain,
                                                                  guide=first_mail_help(info)))
            uow.commit()
            return game.id

    # ------------------------------------------------------------------ reading

    def list_games(self, status: str | None = None) -> list[GameInfo]:
        if status is not None and status not in GameStatus.ALL:
            raise BadRequest(f"unknown status '{status}'; use one of {', '.join(GameStatus.ALL)}")
        with UnitOfWork(self.engine) as uow:
            query = select(Game).order_by(Game.id)
            if status:
                query = query.where(Game.status == status)
            due = {clock.game_id: deadlines.aware(clock.due_at) for clock in uow.session.exec(
                select(DecisionClock).where(DecisionClock.closed_at.is_(None))).all()}
            games = [self._load(uow.session, game) for game in uow.session.exec(query).all()]
        for info in games:
            info.due_at = due.get(info.id)
        return games

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
                HistoryEntry(e.seq, _aware(e.created_at), e.actor, e.kind, e.text, e.source, e.seat, dict(e.data))
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

    # ------------------------------------------------------------------ playing

    def submit(
        self, game_id: int, email: str, text: str, *, source: str = "cli", by: str | None = None,
        dry_run: bool = False, sender_note: list[str] | None = None, inbound: InboundMail | None = None,
        reason: str = "", decision: int | None = None, answered: AskedDecision | None = None,
    ) -> Submission:
        """Apply every command line of ``text`` for the player ``email``, all or nothing.

        ``by`` says who played for the player ("moderator", "deadline"), ``reason`` why (both go into the
        history and the mails). ``decision``: only if the game still waits for that decision (the state's
        move count), else DecisionMoved. ``answered``: the decision a mail answered; only if the game still
        waits for it or for another decision of the same context (the same turn, auction, ...), else
        DecisionMoved. ``dry_run`` checks and applies in memory and then rolls back: what
        would happen, changing nothing. ``sender_note`` is added to the mail the sender gets (for example the
        lines a mail had that were ignored). ``inbound``, the record of the mail the commands came in, is
        stored in the same transaction.
        """
        lines = split_lines(text)
        if not lines:
            raise BadRequest("no command given")
        with UnitOfWork(self.engine, write=True) as uow:
            s = uow.session
            game = self._locked(uow, game_id)
            self._require_active(game)
            info = self._load(s, game)
            if decision is not None and info.state.moves != decision:
                raise DecisionMoved(f"game {game_id} no longer waits for decision {decision}")
            if answered is not None and answered.number is not None and info.state.moves != answered.number:
                key, words = get_game(game.kind).decision_context(info.state)
                if key != answered.key or not key:
                    raise DecisionMoved(f"game {game_id} no longer waits for {answered.words or 'that decision'}",
                                        now=notices.with_names(info, words), number=info.state.moves)
            seat = self.seat_of(info, email)
            state = info.state
            now = self.clock()
            seq = info.last_seq
            effects: list[str] = []
            commands = []
            all_events: list[dict[str, Any]] = []
            rows: list[Event] = []
            turn_before = get_game(game.kind).turn_owner(state)
            for number, line in enumerate(lines, start=1):
                try:
                    action = state.parse(seat, line)
                    events = state.apply_action(seat, action)
                except CommandError as exc:
                    raise CommandRejected(number, line, exc) from exc
                seq += 1
                all_events.extend(events)
                effects.extend(notices.describe(event, info, seat) for event in events)
                # The turn the command belongs to (a turn's commands are told together), what it did in words,
                # and its public events, which each reader's mails tell in their own words (services.chronicle).
                data: dict[str, Any] = {"command": str(action), "turn": list(turn_before),
                                        "effects": [notices.describe(event, info) for event in events],
                                        "events": public_events(events)}
                secrets = private_lines(events)
                if secrets:
                    data["private"] = secrets
                if by:
                    data["by"] = by
                if reason:
                    data["reason"] = reason
                rows.append(Event(game_id=game.id, seq=seq, actor=info.email_of(seat), seat=seat, kind="command",
                                  text=line, source=source, data=data, created_at=now))
                commands.append(str(action))
            s.add_all(rows)
            if state.is_terminal():
                game.status = GameStatus.FINISHED
            game.updated_at = now
            s.add(game)
            if state.is_terminal() or info.replayed + len(commands) >= self.snapshot_every:
                s.add(Snapshot(game_id=game.id, seq=seq, state=state.to_json(), created_at=now))
            info.last_seq = seq
            info.status = game.status
            deadlines.open_clock(s, game, info, now)
            self.post(s, info, lambda info: notices.commands_applied(
                info, seat, commands, all_events, self.new_message_id, now, sender_note,
                turn_before=turn_before, domain=self.mail_domain, by=by))
            if inbound is not None:
                inbound.game_id = game.id
                s.add(inbound)
            if not dry_run:
                uow.commit()
            return Submission(game.id, seat, commands, effects, info.last_seq - len(commands) + 1, seq, state.is_terminal())

    # ------------------------------------------------------------------ the moderator's fixes

    def undo(self, game_id: int, *, to: int | None = None, steps: int | None = None,
             reason: str = "") -> tuple[int, list[int]]:
        """Restore the state after event ``to`` (or ``steps`` commands back) by replaying from the seed.

        Returns the event restored and the command events undone. The undo is itself an event.
        """
        if (to is None) == (steps is None):
            raise BadRequest("give exactly one of --to N or --steps N")
        with UnitOfWork(self.engine, write=True) as uow:
            s = uow.session
            game = self._locked(uow, game_id)
            if game.status == GameStatus.ABORTED:
                raise GameNotActive(f"game {game_id} was aborted; it cannot be changed")
            events = s.exec(select(Event).where(Event.game_id == game_id).order_by(Event.seq)).all()
            last = events[-1].seq
            after = _effective_commands(events)
            current = after[last]
            if steps is not None:
                if steps < 1 or steps > len(current):
                    raise BadRequest(f"cannot undo {plural(steps, 'command')}: {len(current)} {'is' if len(current) == 1 else 'are'} in force")
                target = current[-steps - 1][0] if steps < len(current) else 1
            else:
                assert to is not None
                if not 1 <= to <= last:
                    raise BadRequest(f"there is no event {to}: events run from 1 to {last}")
                target = to
            restored = after[target]
            undone = [c[0] for c in current if c not in restored]
            current_seqs, restored_seqs = {c[0] for c in current}, {c[0] for c in restored}
            seats = self._seats(s, game_id)
            state = self._replay(game.kind, game.seed, dict(game.settings), len(seats), restored)
            now = self.clock()
            seq = last + 1
            names = {x.seat: x.name for x in seats}
            taken_back = [(seat, command) for seq_, seat, command in current if seq_ not in restored_seqs]
            put_back = [(seat, command) for seq_, seat, command in restored if seq_ not in current_seqs]
            words = (f"The moderator {notices.undo_words(names, taken_back, put_back)}; the board is the game as "
                     "it stands now.")
            s.add(Event(game_id=game_id, seq=seq, actor="moderator", kind="undo",
                        text=f"undo to event {target}", source="cli",
                        data={"to": target, "undone": undone, **_said(words, reason)}, created_at=now))
            s.add(Snapshot(game_id=game_id, seq=seq, state=state.to_json(), created_at=now))
            game.status = GameStatus.FINISHED if state.is_terminal() else (
                GameStatus.PAUSED if game.status == GameStatus.PAUSED else GameStatus.ACTIVE)
            game.updated_at = now
            s.add(game)
            info = self._info(game, seats, state, seq)
            deadlines.open_clock(s, game, info, now)
            self.post(s, info, lambda info: notices.moderator_change(info, self.new_message_id, now, self.mail_domain))
            uow.commit()
            return target, undone

    def replace_player(self, game_id: int, old_email: str, new_email: str, name: str | None = None,
                       reason: str = "") -> PlayerInfo:
        new_email = checked_address(new_email)
        name = checked_name(name) if name else None
        with UnitOfWork(self.engine, write=True) as uow:
            s = uow.session
            game = self._locked(uow, game_id)
            seats = self._seats(s, game_id)
            found = _seat_with(seats, old_email)
            if found is None:
                raise PlayerNotInGame(f"{_named(old_email)} does not play in game {game_id}; players: "
                                      + ", ".join(x.email for x in seats))
            seat = next(x for x in seats if x.seat == found)
            if any(x.email == new_email for x in seats):
                raise BadRequest(f"{new_email} already plays in game {game_id}")
            old = (seat.name, seat.email)
            seat.email = new_email
            if seat.secret:
                seat.secret = new_secret_word()  # the old player must not keep a key to the seat
            if name:
                seat.name = name
            s.add(seat)
            now = self.clock()
            seq = self.last_seq(s, game_id) + 1
            s.add(Event(game_id=game_id, seq=seq, actor="moderator", seat=seat.seat, kind="replace_player",
                        text=f"replace {old[1]} by {new_email}", source="cli",
                        data={"seat": seat.seat, "old": {"name": old[0], "email": old[1]},
                              "new": {"name": seat.name, "email": new_email},
                              **_said(f"The moderator gave seat {seat.seat + 1} to {seat.name} <{new_email}> "
                                      f"instead of {old[0]} <{old[1]}>.", reason)}, created_at=now))
            game.updated_at = now
            s.add(game)
            info = self._load(s, game)
            if not info.over and info.state.current_player() == seat.seat:
                deadlines.open_clock(s, game, info, now)  # the new player gets the whole time for the decision
            self.post(s, info, lambda info: notices.moderator_change(info, self.new_message_id, now, self.mail_domain))
            s.add(notices.seat_given_away(info, seat.seat, old[0], old[1], self.new_message_id, now, reason=reason))
            uow.commit()
            return PlayerInfo(seat.seat, seat.name, seat.email, seat.secret)

    def set_status(self, game_id: int, action: str, reason: str = "") -> str:
        """pause, resume or abort; returns the new status. A paused game's deadline stops; resuming gives the
        player the whole time again."""
        transitions = {
            "pause": ({GameStatus.ACTIVE}, GameStatus.PAUSED),
            "resume": ({GameStatus.PAUSED}, GameStatus.ACTIVE),
            "abort": ({GameStatus.ACTIVE, GameStatus.PAUSED}, GameStatus.ABORTED),
        }
        done = {"pause": "paused", "resume": "resumed", "abort": "aborted"}
        allowed, new = transitions[action]
        with UnitOfWork(self.engine, write=True) as uow:
            s = uow.session
            game = self._locked(uow, game_id)
            if game.status not in allowed:
                raise GameNotActive(f"game {game_id} is {game.status}; it cannot be {done[action]}")
            game.status = new
            now = self.clock()
            game.updated_at = now
            s.add(game)
            s.add(Event(game_id=game_id, seq=self.last_seq(s, game_id) + 1, actor="moderator", kind=action,
                        text=action, source="cli", data=_said(f"The moderator {done[action]} the game.", reason),
                        created_at=now))
            info = self._load(s, game)
            deadlines.open_clock(s, game, info, now)  # closes it unless the game is active again
            self.post(s, info, lambda info: notices.moderator_change(info, self.new_message_id, now, self.mail_domain))
            uow.commit()
            return new

    # ------------------------------------------------------------------ deadlines

    def set_timing(self, game_id: int, settings: dict[str, str], reason: str = "") -> Timing:
        """Change the game's deadlines (``{"deadline": "48h", "on-timeout": "auto", ...}``); the decision now due
        is timed anew from when it was asked. Everybody is told."""
        with UnitOfWork(self.engine, write=True) as uow:
            s = uow.session
            game = self._locked(uow, game_id)
            try:
                timing = bounded_timing(Timing.from_dict(game.timing).changed(settings))
            except TimingError as exc:
                raise BadRequest(str(exc)) from exc
            now = self.clock()
            game.timing, game.updated_at = timing.to_dict(), now
            s.add(game)
            said = ", ".join(f"{k}={v}" for k, v in settings.items())
            s.add(Event(game_id=game_id, seq=self.last_seq(s, game_id) + 1, actor="moderator", kind="set",
                        text=said, source="cli", data={"timing": timing.to_dict(), **_said(
                            f"The moderator set the deadlines: {timing.describe()}.", reason)}, created_at=now))
            info = self._load(s, game)
            clock = deadlines.retime_clock(s, game, now)
            info.due_at = deadlines.aware(clock.due_at) if clock else None
            self.post(s, info, lambda info: notices.moderator_change(info, self.new_message_id, now, self.mail_domain))
            uow.commit()
            return timing

    def set_delivery(self, game_id: int, mode: str, email: str | None = None) -> str:
        """Which mails the players of a game get (``email``: that player only; else the game's setting, for every
        player who made no choice of their own). Returns the mode. Nobody is mailed: nothing happened in the
        game."""
        try:
            mode = delivery_mode(mode)
        except ValueError as exc:
            raise BadRequest(str(exc)) from exc
        with UnitOfWork(self.engine, write=True) as uow:
            s = uow.session
            game = self._locked(uow, game_id)
            if email is None:
                game.delivery = mode
                s.add(game)
            else:
                info = self._load(s, game)
                found = self.seat_of(info, email)
                seat = next(x for x in self._seats(s, game_id) if x.seat == found)
                seat.delivery = mode
                s.add(seat)
            uow.commit()
            return mode

    @property
    def absences(self) -> Absences:
        """A player's absences over this service's games (``services.absences``)."""
        from .absences import Absences

        return Absences(self)

    def resend(self, game_id: int, email: str | None = None) -> int:
        """Mail the current board again, with the request to whoever must decide; to one player or to all.
        Returns how many mails were queued."""
        with UnitOfWork(self.engine, write=True) as uow:
            s = uow.session
            game = self._locked(uow, game_id)
            info = self._load(s, game)
            seats = [self.seat_of(info, email)] if email else None
            clock = next(iter(deadlines.open_clocks(s, game_id)), None)
            info.due_at = deadlines.aware(clock.due_at) if clock else None
            mails = self.post(s, info, lambda info: notices.board_again(info, self.new_message_id, self.clock(),
                                                                          self.mail_domain, seats=seats))
            uow.commit()
            return len(mails)

    def post(self, s: Session, info: GameInfo, make: Callable[[GameInfo], list[OutboxMail]]) -> list[OutboxMail]:
        """Queue the mails ``make`` builds for a change just written in ``s``: each begins with what happened
        since its reader's last mail, and each mailed player is then told of everything up to now."""
        self.recent(s, info)
        if info.due_at is None:  # the request's deadline, where the caller did not read it
            clock = next(iter(deadlines.open_clocks(s, info.id)), None)
            info.due_at = deadlines.aware(clock.due_at) if clock else None
        mails = make(info)
        s.add_all(mails)
        self.told(s, info, notices.mailed_seats(info, mails))
        return mails

    @staticmethod
    def recent(s: Session, info: GameInfo) -> None:
        """Load into ``info.recent`` the events its players' next mails tell of (services.chronicle)."""
        s.flush()
        first = min((p.told_seq for p in info.players), default=0)
        info.recent = list(s.exec(select(Event).where(Event.game_id == info.id, Event.seq > first)
                                  .order_by(Event.seq)).all())

    def told(self, s: Session, info: GameInfo, seats: set[int]) -> None:
        """The players at ``seats`` were just mailed everything up to the game's newest event."""
        if not seats:
            return
        for seat in self._seats(s, info.id):
            if seat.seat in seats:
                seat.told_seq = info.last_seq
                s.add(seat)
        for player in info.players:
            if player.seat in seats:
                player.told_seq = info.last_seq

    def lock(self, uow: UnitOfWork, game_id: int) -> Game:
        """The game's row, locked until ``uow`` ends (several games: lock them in the order of their numbers)."""
        return self._locked(uow, game_id)

    def load(self, s: Session, game: Game) -> GameInfo:
        """The game as it stands: its latest snapshot and the commands after it."""
        return self._load(s, game)

    @contextmanager
    def changing(self, game_id: int) -> Iterator[tuple[UnitOfWork, Game, GameInfo]]:
        """One game locked and loaded in a unit of work, for a service that changes it its own way (the
        deadlines). Nothing is written unless the caller commits ``uow``."""
        with UnitOfWork(self.engine, write=True) as uow:
            game = self._locked(uow, game_id)
            yield uow, game, self._load(uow.session, game)

    # ------------------------------------------------------------------ archive

    def export(self, game_id: int) -> dict[str, Any]:
        """The complete record of a game: enough to rebuild it exactly (``game_transfer.export_game``)."""
        from .game_transfer import export_game

        return export_game(self, game_id)

    def import_game(self, doc: Any) -> int:
        """Rebuild an exported game under a new number; its final state must equal the export's
        (``game_transfer.import_game``: every value of ``doc`` is checked first)."""
        from .game_transfer import import_game

        return import_game(self, doc)

    # ------------------------------------------------------------------ internals

    def new_message_id(self) -> str:
        """A Message-ID for a mail of ours, chosen when it is queued."""
        from email.utils import make_msgid

        return make_msgid(domain=self.mail_domain)

    def _game(self, s: Session, game_id: int) -> Game:
        game = s.get(Game, game_id) if 0 < game_id <= MAX_GAME_ID else None
        if game is None:
            raise GameNotFound(f"there is no game {game_id}")
        return game

    def _locked(self, uow: UnitOfWork, game_id: int) -> Game:
        game = uow.lock_game(game_id) if 0 < game_id <= MAX_GAME_ID else None
        if game is None:
            raise GameNotFound(f"there is no game {game_id}")
        return game

    @staticmethod
    def _require_active(game: Game) -> None:
        if game.status == GameStatus.PAUSED:
            raise GameNotActive(f"game {game.id} is paused; the moderator must resume it first")
        if game.status != GameStatus.ACTIVE:
            raise GameNotActive(f"game {game.id} is {game.status}; no more commands are accepted")

    @staticmethod
    def _seats(s: Session, game_id: int) -> list[Seat]:
        return list(s.exec(select(Seat).where(Seat.game_id == game_id).order_by(Seat.seat)).all())

    @staticmethod
    def last_seq(s: Session, game_id: int) -> int:
        return s.exec(select(func.max(Event.seq)).where(Event.game_id == game_id)).one() or 0

    def seat_of(self, info: GameInfo, email: str) -> int:
        seat = _seat_with(info.players, email)
        if seat is not None:
            return seat
        raise PlayerNotInGame(f"{_named(email)} does not play in game {info.id}; players: "
                              + ", ".join(p.email for p in info.players))

    def _info(self, game: Game, seats: list[Seat], state: Any, last_seq: int) -> GameInfo:
        module = get_game(game.kind)
        return GameInfo(
            id=game.id, kind=game.kind, title=module.TITLE, variant=game.variant, seed=game.seed, status=game.status,
            settings=dict(game.settings),
            players=[PlayerInfo(x.seat, x.name, x.email, x.secret, x.delivery or game.delivery, x.told_seq)
                     for x in seats],
            created_at=_aware(game.created_at), updated_at=_aware(game.updated_at), state=state, last_seq=last_seq,
            timing=Timing.from_dict(game.timing), delivery=game.delivery,
        )

    def _load(self, s: Session, game: Game) -> GameInfo:
        """Latest snapshot plus the commands after it: the same cost early and late in a game."""
        module = get_game(game.kind)
        snapshot = s.exec(
            select(Snapshot).where(Snapshot.game_id == game.id).order_by(Snapshot.seq.desc()).limit(1)
        ).first()
        if snapshot is None:
            raise ServiceError(f"game {game.id} has no stored state; export and re-import it")
        state = module.State.from_json(snapshot.state)
        later = s.exec(
            select(Event).where(Event.game_id == game.id, Event.seq > snapshot.seq).order_by(Event.seq)
        ).all()
        for event in later:
            if event.kind == "command":
                state.apply_command(event.seat, event.data["command"])
        last_seq = later[-1].seq if later else snapshot.seq
        info = self._info(game, self._seats(s, game.id), state, last_seq)
        info.replayed = sum(1 for event in later if event.kind == "command")
        return info

    @staticmethod
    def _replay(kind: str, seed: int, settings: dict[str, Any], players: int, commands: list[tuple[int, int, str]]) -> Any:
        """The state from the seed and the commands in force."""
        state = get_game(kind).new_game(players=players, seed=seed, **settings)
        for seq, seat, command in commands:
            try:
                state.apply_command(seat, command)
            except CommandError as exc:
                raise ImportFailed(f"event {seq}: '{command}' does not replay: {exc.message}") from exc
        return state
