"""The game service's changes: the one way in for every change to a game.

``GameChanges`` is the game service without the jobs built on it (absences,
export and import); ``GameService`` (services.table.service) adds those, and is
what the CLI, the mail worker (``mail_commands``) and the timekeeper call. It does:

- creating a game (``create_game``): seats, seed, the first snapshot and the
  mails that start it;
- reading, as the ``GameReader`` it is (services.table.game_reader);
- playing (``submit``): a player's command lines, all or nothing;
- the moderator's fixes (``undo``, ``replace_player``, ``set_status``,
  ``set_timing``, ``resend``), each recorded as an event with its reason and
  mailed to the players;
- the archive (``export``, ``import_game``: ``GameService``, in ``game_transfer``).

It checks what people type in (services.common.input_checks) and raises the typed
errors of services.common.errors (``ServiceError`` and its kinds), which every
caller turns into one sentence. A player's absences are in ``services.table.absences``
(``GameService.absences``), the deadlines in ``services.common.deadlines`` and
``services.clock.timekeeper``.

Every change runs in one unit of work: the game row is locked, the state is
loaded (latest snapshot plus the commands after it), the change is checked and
applied, and the new events, the snapshot and the outbox mails are committed
together, or nothing is written at all and a typed error comes back.

Why one module of some 590 lines: every change is a method of one class and
shares its locking, loading and posting (``_locked``, ``_load``, ``post``,
``told``); the jobs that only call it (absences, export and import, robot
seats, talk) are modules of their own already.
"""

from __future__ import annotations

import functools
import re
from contextlib import contextmanager
from datetime import datetime
from typing import Any, Callable, Iterable, Iterator

from sqlalchemy import Engine, bindparam, update
from sqlmodel import Session, select

from ...games import get_game
from ...limits import MAX_DEADLINE, MAX_GAME_ID, MAX_SEED
from ...games.errors import CommandError, IllegalCommandError
from ...config import ArchiveConfig
from ...mail.message import new_message_id
from ...store.models import Event, Game, GameStatus, InboundMail, OutboxMail, Seat, Snapshot, utcnow
from ...store.uow import UnitOfWork
from ...timespans import format_duration
from ...words import plural
from ..common import deadlines
from ..mail_out import notices, receipts
from ..mail_out.chronicle import private_lines, public_events
from ..mail_out.delivery import checked_mode as delivery_mode
from ..mail_out.delivery import checked_pictures, has_auctions
from ..common.errors import BadRequest, CommandRejected, DecisionMoved, GameNotActive, GameNotFound, ImportFailed, PlayerNotInGame
from .game_reader import GameReader, holders_said
from ..mail_out.help_text import first_mail_help
from ..common.game_info import GameInfo, PlayerInfo, Submission
from ..common.game_length import length_words
from ..common.input_checks import checked_address, checked_name, contradicted, contradiction, named_address, seat_with, set_ended
from ..common.ledger import AskedDecision
from ..mail_out.mail_folding import fold_unsent
from .robot_names import is_robot_address, robot_address, robot_kind, robot_name
from ..common.timing import Timing, TimingError

SNAPSHOT_EVERY = 10  # commands between snapshots: a load replays fewer than this


# --------------------------------------------------------------------------- helpers


def _whole(value: Any) -> bool:
    return isinstance(value, int) and not isinstance(value, bool)


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

    # Letters only: a word with a hyphen of its own ('t-shirt', 'yo-yo') would make a code or a secret word of
    # more than two parts, which no reader of one takes (signup_words.CODE).
    words = xkcd_password.generate_wordlist(wordfile=xkcd_password.locate_wordfile(), min_length=4, max_length=7)
    return [word for word in words if re.fullmatch(r"[a-z]+", word)]


def new_secret_word() -> str:
    """Two words from xkcdpass's English list, drawn with the system's secure random source (about 24
    bits): easy to type on a phone, far beyond guessing within the rate limit."""
    from xkcdpass import xkcd_password

    return xkcd_password.generate_xkcdpassword(_secret_words(), numwords=2, delimiter="-")


def _said(words: str, reason: str) -> dict[str, str]:
    """An event's words for the players' mails (services.mail_out.chronicle), with the moderator's reason."""
    return {"words": words + (f" The moderator says: {reason}" if reason else ""), **_reason(reason)}


def _reason(reason: str) -> dict[str, str]:
    return {"reason": reason} if reason else {}


def split_lines(text: str) -> list[str]:
    """Command lines of a submission: one per line, or several separated by ';'."""
    lines = []
    for raw in text.replace("\r\n", "\n").split("\n"):
        lines.extend(part.strip() for part in raw.split(";") if part.strip())
    return lines


def effective_commands(events: Iterable[Event | dict[str, Any]]) -> dict[int, list[tuple[int, int, str]]]:
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


# --------------------------------------------------------------------------- the service


# Every mail a game sends runs this: built once, and run without matching it against the session's objects
# (told() sets the loaded players' told_seq itself).
_TOLD = (update(Seat).where(Seat.game_id == bindparam("which_game"), Seat.seat.in_(bindparam("which_seats", expanding=True)))
         .values(told_seq=bindparam("seq")))


# Built once, as _TOLD: every change of a game reads what its players' next mails tell.
_EVENTS_AFTER = select(Event).where(Event.game_id == bindparam("game_id"), Event.seq > bindparam("after")).order_by(Event.seq)


class GameChanges(GameReader):
    def __init__(
        self,
        engine: Engine,
        *,
        clock: Callable[[], datetime] = utcnow,
        mail_domain: str = "pbem.invalid",
        snapshot_every: int = SNAPSHOT_EVERY,
        archive: ArchiveConfig = ArchiveConfig(),
    ) -> None:
        super().__init__(engine, clock=clock, mail_domain=mail_domain, archive=archive)
        self.snapshot_every = snapshot_every

    # ------------------------------------------------------------------ creating

    def create_game(
        self, kind: str, players: list[tuple[str, str]], *, seed: int | None = None, options: dict[str, Any] | None = None,
        secret_words: bool = False, timing: Timing | None = None, uow: UnitOfWork | None = None,
    ) -> int:
        """Start a game; ``players`` are (name, email) in seat order. Returns the game number.

        With ``secret_words`` every seat gets a secret word, told only to its player, that each of their
        mails must carry. With ``uow`` the game is written in that unit of work, which the caller commits (a
        table that starts: services.table.signup)."""
        try:
            engine_module = get_game(kind)
        except KeyError as exc:
            raise BadRequest(str(exc.args[0])) from exc
        options = dict(options or {})
        if len(players) not in engine_module.PLAYERS:
            counts = ", ".join(map(str, engine_module.PLAYERS))
            raise BadRequest(f"{engine_module.TITLE} is for {counts} players, not {len(players)}")
        robots = {seat: kind for seat, (_, email) in enumerate(players) if (kind := robot_kind(email))}
        for seat, (name, email) in enumerate(players):
            if ("@" not in email and seat not in robots) or not name.strip():
                raise BadRequest(f"'{name}={email}' is not NAME=EMAIL (or NAME=robot, NAME=robot:strong)")
        players = [(robot_name(checked_name(name), robots[seat]), robot_address(seat)) if seat in robots
                   else (checked_name(name), checked_address(email)) for seat, (name, email) in enumerate(players)]
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
        if uow is not None:
            return self._create_in(uow, engine_module, players, robots, seed, options, secret_words, timing, state)
        with UnitOfWork(self.engine, write=True) as own:
            game_id = self._create_in(own, engine_module, players, robots, seed, options, secret_words, timing, state)
            own.commit()
            return game_id

    def _create_in(self, uow: UnitOfWork, engine_module: Any, players: list[tuple[str, str]], robots: dict[int, str],
                   seed: int, options: dict[str, Any], secret_words: bool, timing: Timing, state: Any) -> int:
        """``create_game``'s writing, its input checked, in ``uow`` (not committed)."""
        now = self.clock()
        s = uow.session
        game = Game(
            kind=engine_module.NAME, variant="back-side" if options.get("back_side") else "standard",
            seed=seed, status=GameStatus.ACTIVE, settings=options, timing=timing.to_dict(),
            created_at=now, updated_at=now,
        )
        s.add(game)
        s.flush()
        seats = [Seat(game_id=game.id, seat=i, name=name, email=email, robot=robots.get(i, ""),
                      secret=new_secret_word() if secret_words and i not in robots else "")
                 for i, (name, email) in enumerate(players)]
        s.add_all(seats)
        s.add(Event(game_id=game.id, seq=1, actor="moderator", kind="created", text="", source="cli",
                    data={"seed": seed, "settings": options}, created_at=now))
        s.add(Snapshot(game_id=game.id, seq=1, state=state.to_json(), created_at=now))
        info = self._info(game, seats, state, 1)
        game.subject = info.subject = notices.first_subject(info.title, game.id, [name for name, _ in players])
        s.add(game)
        deadlines.open_clock(s, game, info, now)
        length = length_words(s, info.kind, len(info.players))
        self.post(s, info, lambda info: notices.game_started(info, self.new_message_id, now, self.mail_domain,
                                                              guide=first_mail_help(info), length=length))
        return game.id

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
                _, words = get_game(game.kind).decision_context(info.state)
                raise DecisionMoved(f"game {game_id} no longer waits for decision {decision}",
                                    now=notices.with_names(info, words), number=info.state.moves)
            if answered is not None and answered.number is not None and info.state.moves != answered.number:
                key, words = get_game(game.kind).decision_context(info.state)
                if key != answered.key or not key:
                    raise DecisionMoved(f"game {game_id} no longer waits for {answered.words or 'that decision'}",
                                        now=notices.with_names(info, words), number=info.state.moves)
            seat = self.seat_of(info, email)
            if by is None and info.player(seat).robot and not is_robot_address(email):
                # A robot played this seat since its player's deadline passed (on-timeout=robot): the player's
                # own command takes the seat back.
                s.connection().execute(update(Seat).where(Seat.game_id == game_id, Seat.seat == seat)
                                       .values(robot=""))
                info.player(seat).robot = ""
                sender_note = [*(sender_note or []), "You play your seat again: the robot that played for you "
                               "since your deadline passed has stopped."]
            state = info.state
            now = self.clock()
            seq = info.last_seq
            effects: list[str] = []
            commands = []
            all_events: list[dict[str, Any]] = []
            rows: list[Event] = []
            turn_before = get_game(game.kind).turn_owner(state)
            ordered: dict[Any, int] = {}  # an order's key (what it decides, for which auction) -> its line
            for number, line in enumerate(lines, start=1):
                try:
                    action = state.parse(seat, line)
                    earlier = contradicted(action, ordered, number, state)  # two orders for one decision: which is meant?
                    if earlier is not None:
                        raise IllegalCommandError(contradiction(line, earlier, lines[earlier - 1]), [])
                    events = state.apply_action(seat, action)
                except CommandError as exc:
                    raise CommandRejected(number, line, exc) from exc
                set_ended(events, ordered)  # a later set's orders (its Central Park's too) are for other auctions
                seq += 1
                all_events.extend(events)
                effects.extend(notices.describe(event, info, seat) for event in events)
                # What the sender's own standing bid did in their mail's wake is theirs to read in its answer.
                effects.extend(event["private"][seat] for event in events
                               if event.get("order") and seat in event.get("private", {}))
                # The turn the command belongs to (a turn's commands are told together), what it did in words,
                # and its public events, which each reader's mails tell in their own words (services.mail_out.chronicle).
                data: dict[str, Any] = {"command": str(action), "turn": list(turn_before),
                                        "effects": [notices.describe(event, info) for event in events],
                                        "events": public_events(events)}
                secrets = private_lines(events)
                if secrets:
                    data["private"] = secrets
                if getattr(action, "secret", False):  # a standing order: its limit is its player's alone
                    data["secret"] = True
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
            mails = self.post(s, info, lambda info: notices.commands_applied(
                info, seat, commands, all_events, self.new_message_id, now, sender_note,
                turn_before=turn_before, domain=self.mail_domain, by=by))
            if by is None and not is_robot_address(info.email_of(seat)) and seat not in notices.mailed_seats(info, mails):
                # Their mail asks nothing of them now (a bid the auction answers later, orders ahead of their turn,
                # a move after which another decides): a receipt, no board; it takes back their unsent game mail (a
                # request it just answered).
                fold_unsent(s, info, {seat}, for_receipt=True)
                s.add(receipts.receipt(info, seat, commands, effects, self.new_message_id, now, self.mail_domain,
                                       note=list(sender_note or [])))
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
            after = effective_commands(events)
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
            state = replayed(game.kind, game.seed, dict(game.settings), len(seats), restored)
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
            self.post_moderator_change(s, info, now)
            uow.commit()
            return target, undone

    def replace_player(self, game_id: int, old_email: str, new_email: str, name: str | None = None,
                       reason: str = "", *, moderator: str = "", uow: UnitOfWork | None = None,
                       words: str = "", by: str = "moderator") -> PlayerInfo:
        """Give a seat to another player (hand, score and everything else stay the seat's), or to a robot when
        ``new_email`` names one ("robot", "robot:strong"). The player who leaves is told so, with the address
        of the ``moderator`` to write to. With ``uow`` the change is written in it, which the caller commits;
        ``words`` say what happened instead of "The moderator gave ...", and ``by`` who did it (a player who resigned
        by mail: their address)."""
        robot = robot_kind(new_email) or ""
        new_email = new_email if robot else checked_address(new_email)
        name = checked_name(name) if name else None
        if uow is not None:
            return self._replace_in(uow, game_id, old_email, new_email, name, reason, moderator, robot, words, by)
        with UnitOfWork(self.engine, write=True) as own:
            player = self._replace_in(own, game_id, old_email, new_email, name, reason, moderator, robot, words, by)
            own.commit()
            return player

    def _replace_in(self, uow: UnitOfWork, game_id: int, old_email: str, new_email: str, name: str | None,
                    reason: str, moderator: str, robot: str, words: str, by: str) -> PlayerInfo:
        """``replace_player``'s change, its input checked, in ``uow`` (not committed)."""
        s = uow.session
        game = self._locked(uow, game_id)
        seats = self._seats(s, game_id)
        found = seat_with(seats, old_email)
        if found is None:
            raise PlayerNotInGame(f"{named_address(old_email)} does not play in game {game_id}; players: "
                                  + ", ".join(x.email for x in seats))
        seat = next(x for x in seats if x.seat == found)
        if any(x.email == new_email for x in seats):
            raise BadRequest(f"{new_email} already plays in game {game_id}")
        old = (seat.name, seat.email)
        if robot:
            new_email = robot_address(seat.seat)
            name = robot_name(name or old[0].split(" (")[0], robot)  # "Bob (robot)": the robot playing Bob's seat
        seat.email, seat.robot = new_email, robot
        if seat.secret:
            seat.secret = "" if robot else new_secret_word()  # the old player must not keep a key to the seat
        if name:
            seat.name = name
        s.add(seat)
        now = self.clock()
        seq = self.last_seq(s, game_id) + 1
        s.add(Event(game_id=game_id, seq=seq, actor=by, seat=seat.seat, kind="replace_player",
                    text=f"replace {old[1]} by {new_email}", source="cli" if by == "moderator" else "mail",
                    data={"seat": seat.seat, "old": {"name": old[0], "email": old[1]},
                          "new": {"name": seat.name, "email": new_email},
                          **_said(words or f"The moderator gave seat {seat.seat + 1} to {seat.name} instead of "
                                  f"{old[0]}.", reason)}, created_at=now))  # players read it: no address
        game.updated_at = now
        s.add(game)
        info = self._load(s, game)
        if not info.over and info.state.current_player() == seat.seat:
            deadlines.open_clock(s, game, info, now)  # the new player gets the whole time for the decision
        self.post_moderator_change(s, info, now)
        s.add(notices.seat_given_away(info, seat.seat, old[0], old[1], self.new_message_id, now, reason=reason,
                                      domain=self.mail_domain, moderator=moderator, resigned=by == old[1]))
        return PlayerInfo(seat.seat, seat.name, seat.email, seat.secret, robot=seat.robot)

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
            self.post_moderator_change(s, info, now)
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
            deadlines_now = timing.describe(auctions=has_auctions(game.kind))
            s.add(Event(game_id=game_id, seq=self.last_seq(s, game_id) + 1, actor="moderator", kind="set",
                        text=said, source="cli", data={"timing": timing.to_dict(), **_said(
                            f"The moderator set the deadlines: {deadlines_now}.", reason)}, created_at=now))
            info = self._load(s, game)
            clock = deadlines.retime_clock(s, game, now)
            info.due_at = deadlines.aware(clock.due_at) if clock else None
            self.post_moderator_change(s, info, now)
            uow.commit()
            return timing

    def set_delivery(self, game_id: int, mode: str, email: str | None = None) -> str:
        """Which mails the players of a game get (``email``: that player only; else the game's setting, for every
        player who made no choice of their own). Returns the mode. Nobody is mailed: nothing happened in the
        game."""
        return self._set_mail_setting(game_id, "delivery", delivery_mode, mode, email)

    def set_pictures(self, game_id: int, setting: str, email: str | None = None) -> str:
        """Whether the game mails of a game carry a picture of the board, "on" or "off" (``email``: that
        player's own choice; else the game's, for every player who made none). Returns the setting."""
        return self._set_mail_setting(game_id, "pictures", checked_pictures, setting, email)

    def _set_mail_setting(self, game_id: int, name: str, check: Callable[[str], str], value: str,
                          email: str | None) -> str:
        try:
            value = check(value)
        except ValueError as exc:
            raise BadRequest(str(exc)) from exc
        with UnitOfWork(self.engine, write=True) as uow:
            s = uow.session
            game = self._locked(uow, game_id)
            if email is None:
                setattr(game, name, value)
                s.add(game)
            else:
                info = self._load(s, game)
                found = self.seat_of(info, email)
                seat = next(x for x in self._seats(s, game_id) if x.seat == found)
                setattr(seat, name, value)
                s.add(seat)
            if name == "delivery":
                deadlines.start_digest_days(s, game, self.clock())
            uow.commit()
            return value

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

    def post_moderator_change(self, s: Session, info: GameInfo, now: datetime) -> None:
        """Everybody hears of the moderator's change (the game's newest event) as their delivery setting wants;
        a digest player whom that mails nothing gets one short mail of it at once, not only in their daily mail."""
        mails = self.post(s, info, lambda info: notices.moderator_change(info, self.new_message_id, now,
                                                                         self.mail_domain))
        mailed = notices.mailed_seats(info, mails)
        for player in info.players:
            if player.delivery == "digest" and player.seat not in mailed and not is_robot_address(player.email):
                word = receipts.moderator_word(info, player.seat, self.new_message_id, now, self.mail_domain)
                if word is not None:
                    s.add(word)

    def post(self, s: Session, info: GameInfo, make: Callable[[GameInfo], list[OutboxMail]]) -> list[OutboxMail]:
        """Queue the mails ``make`` builds for a change just written in ``s``: each begins with what happened
        since its reader's last mail, and each mailed player is then told of everything up to now."""
        self.recent(s, info)
        if info.due_at is None:  # the request's deadline, where the caller did not read it
            clock = next(iter(deadlines.open_clocks(s, info.id)), None)
            info.due_at = deadlines.aware(clock.due_at) if clock else None
        mails = [mail for mail in make(info) if not is_robot_address(mail.recipient)]  # robots read no mail
        if fold_unsent(s, info, notices.mailed_seats(info, mails)):
            # Those readers' unsent mails were taken back: their mails now tell everything since an earlier mark.
            self.recent(s, info)
            mails = [mail for mail in make(info) if not is_robot_address(mail.recipient)]
        s.add_all(mails)
        # A robot's seat counts as told (it reads no mail), or every mail would retell the game from its start;
        # a person whose seat a robot covers (on-timeout=robot) is told only what they were mailed.
        self.told(s, info, notices.mailed_seats(info, mails) | {p.seat for p in info.players
                                                                if is_robot_address(p.email)})
        return mails

    @staticmethod
    def recent(s: Session, info: GameInfo) -> None:
        """Load into ``info.recent`` the events its players' next mails tell of (services.mail_out.chronicle)."""
        s.flush()
        first = min((p.told_seq for p in info.players), default=0)
        info.recent = list(s.exec(_EVENTS_AFTER, params={"game_id": info.id, "after": first}).all())  # type: ignore[call-overload]
        if info.over:
            info.holders = holders_said(s, info)

    def told(self, s: Session, info: GameInfo, seats: set[int]) -> None:
        """The players at ``seats`` were just mailed everything up to the game's newest event."""
        if not seats:
            return
        s.connection().execute(_TOLD, {"which_game": info.id, "which_seats": sorted(seats), "seq": info.last_seq})
        for player in info.players:
            if player.seat in seats:
                player.told_seq = info.last_seq

    def lock(self, uow: UnitOfWork, game_id: int) -> Game:
        """The game's row, locked until ``uow`` ends (several games: lock them in the order of their numbers)."""
        return self._locked(uow, game_id)

    @contextmanager
    def changing(self, game_id: int) -> Iterator[tuple[UnitOfWork, Game, GameInfo]]:
        """One game locked and loaded in a unit of work, for a service that changes it its own way (the
        deadlines). Nothing is written unless the caller commits ``uow``."""
        with UnitOfWork(self.engine, write=True) as uow:
            game = self._locked(uow, game_id)
            yield uow, game, self._load(uow.session, game)

    # ------------------------------------------------------------------ internals

    def new_message_id(self) -> str:
        """A Message-ID for a mail of ours, chosen when it is queued."""
        return new_message_id(self.mail_domain)

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


def replayed(kind: str, seed: int, settings: dict[str, Any], players: int, commands: list[tuple[int, int, str]]) -> Any:
    """The state from the seed and the commands in force (``effective_commands``)."""
    state = get_game(kind).new_game(players=players, seed=seed, **settings)
    for seq, seat, command in commands:
        try:
            state.apply_command(seat, command)
        except CommandError as exc:
            raise ImportFailed(f"event {seq}: '{command}' does not replay: {exc.message}") from exc
    return state

