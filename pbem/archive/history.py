"""The archive's records read from the store: a line for every game, and a game event by event.

The archive's web site (``pbem.archive.site``) is written from what this module reads: every game's summary
(``summaries``; ``archived_games`` tells cheaply which games there are and how far each has come) and, for a
game's page, every event that everybody may read with the public board after it (``record``). It reads the
database and nothing else, and writes only the moderator's two switches: a game left out of the archive
(``set_archived``) and a player shown without their name (``hide_player``).

Nothing that is secret while a game runs leaves this module for a running game: its boards are the public
view, its words the public engine events (never a command's ``data["private"]``), and no hand is given. Once a
game is finished nothing is secret any more: its steps also give every hand and what each player alone saw.
No address is ever given out: a player is known by a key made from their address with the installation's
secret (``player_key``: an HMAC, so a key cannot be matched to a guessed address without the database), and an
address in what people wrote (talk, the moderator's reasons) is replaced by that player's name. A player the
moderator hid is "Player <key>" everywhere: their name and its first word, in any case, as whole words.

What a build must notice is cheap to ask (``mark``): every change the site shows is a new event or one of the
moderator's two switches, which raise the archive's generation.

A game is replayed the way the game service stores it: from the snapshot of its start (event 1), each command
event applied in turn, and an undo (or any other event that stored a snapshot of its own) read from its
snapshot. A game rebuilt by an import has one snapshot, its last: it is replayed from its seed.

Why one module of some 710 lines: the summaries, a game's record and the players' keys read the same rows with
the same privacy rules (hidden names, keyed keys, what only one player saw), which are easiest to keep in step
in one place; the records they fill are in ``records``, the pages in ``site``.
"""

from __future__ import annotations

import hashlib
import hmac
import re
import secrets
import unicodedata
from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field
from typing import Any

from sqlalchemy import Engine, func, text, update
from sqlalchemy.exc import IntegrityError
from sqlmodel import Session, select

from ..games import get_game
from ..limits import MAX_GAME_ID
from ..render.html import render_board_html
from ..services.table.archive_settings import ARCHIVE, checked_archive
from ..services.mail_out.chronicle import as_then, describe, fallback_words, played_words
from ..services.mail_out.delivery import has_auctions
from ..services.common.deadlines import aware
from ..services.common.errors import GameNotFound
from ..services.common.game_info import GameInfo, PlayerInfo
from ..services.common.holders import TALK, Holding, is_step, seat_holders, step_numbers
from ..services.table.games import effective_commands
from ..services.table.robot_names import SHOWN as ROBOTS_SHOWN
from ..services.table.robot_names import robot_address, robot_name
from ..services.common.timing import Timing
from ..store.models import (
    ArchiveHiddenPlayer,
    ArchiveSecret,
    Event,
    Game,
    GameStatus,
    Seat,
    Snapshot,
    utcnow,
)
from ..store.uow import UnitOfWork
from ..words import listing
from .records import ArchivedHolder, ArchivedPlayer, GameRecord, GameSummary, Step, TalkLine

OLD_KEY_SALT = "pbem-archive:"  # the unkeyed keys before migration 0013: only to find legacy hidden rows
SHOWN, LEFT_OUT = ARCHIVE  # games.archive: whether the site shows the game
# TALK: table talk, a line of the page's talk when everybody may read it (services.common.holders)
MODERATOR = "The moderator"
# An address as people write one in free text; pbem's own checks of an address are stricter (input_checks).
_ADDRESS = re.compile(r"[\w.!#$%&'*+/=?^`{|}~-]+@[\w-]+(?:\.[\w-]+)+")


# --------------------------------------------------------------------------- players


def key_of(secret: bytes, email: str) -> str:
    """The archive's name for the player with ``email``: the first 12 hex digits of an HMAC-SHA256 of it (lower
    case, without surrounding spaces) with the installation's ``secret``. Their page is ``players/<key>.html``;
    the site never shows an address, and without the secret nobody can tell whose key is whose."""
    return hmac.new(secret, email.strip().lower().encode("utf-8"), hashlib.sha256).hexdigest()[:12]


def _old_key(email: str) -> str:
    return hashlib.sha256((OLD_KEY_SALT + email.strip().lower()).encode("utf-8")).hexdigest()[:12]


def player_key(engine: Engine, email: str) -> str:
    """The key of the player with ``email`` in this installation (``key_of`` with its secret)."""
    return key_of(archive_secret(engine), email)


def hidden_name(key: str) -> str:
    """What the site calls a player the moderator hid."""
    return f"Player {key[:6]}"


# --------------------------------------------------------------------------- the secret and the generation


def _new_secret_row() -> ArchiveSecret:
    return ArchiveSecret(id=1, secret=secrets.token_hex(32), generation=1, created_at=utcnow())


def _secret_row(s: Session, *, writing: bool = False) -> ArchiveSecret:
    """The archive's one row. The migration makes it; a database made otherwise gets it on first use (in
    ``s`` when it is ``writing``, else in a transaction of its own)."""
    row = s.get(ArchiveSecret, 1)
    if row is not None:
        return row
    if writing:
        row = _new_secret_row()
        s.add(row)
        s.flush()
        return row
    try:  # another process may make it meanwhile
        with UnitOfWork(s.get_bind(), write=True) as uow:  # type: ignore[arg-type]
            uow.session.add(_new_secret_row())
            uow.commit()
    except IntegrityError:
        pass
    with UnitOfWork(s.get_bind()) as uow:  # type: ignore[arg-type]
        made = uow.session.get(ArchiveSecret, 1)
    assert made is not None
    return made


def archive_secret(engine: Engine) -> bytes:
    """The installation's secret that players' keys are made with (never written into the site)."""
    with UnitOfWork(engine) as uow:
        return bytes.fromhex(_secret_row(uow.session).secret)


def _raise_generation(s: Session) -> None:
    """A switch of the moderator changed what the site shows: the next build must look (``mark``)."""
    _secret_row(s, writing=True)
    s.execute(update(ArchiveSecret).where(ArchiveSecret.id == 1)  # type: ignore[arg-type]
              .values(generation=ArchiveSecret.generation + 1))


@dataclass(frozen=True)
class Mark:
    """How far the store has come, as far as the site can tell: its newest event and the archive's generation.
    On PostgreSQL also the writing transactions that were running when it was read: their events may carry
    lower numbers than the newest one seen, so until each has ended the mark cannot vouch for them."""

    events: int
    generation: int
    running: tuple[str, ...] = ()

    def to_dict(self) -> dict[str, Any]:
        return {"events": self.events, "generation": self.generation, "running": list(self.running)}

    @classmethod
    def from_dict(cls, data: dict[str, Any]) -> Mark:
        return cls(int(data["events"]), int(data["generation"]), tuple(str(x) for x in data["running"]))


def mark(engine: Engine, since: Mark | None = None) -> tuple[Mark, bool]:
    """The store's mark now (one query: two index lookups, and on PostgreSQL a look at the running
    transactions), and whether the site built at ``since`` still shows everything: the same newest event and
    generation, and none of ``since``'s running transactions ended since.

    An event's number (events.id) is handed out as it is written and it is in the store once committed: on
    SQLite one writer at a time, so in the order of the commits; on PostgreSQL a transaction that took a lower
    number may commit after one that took a higher, hence ``running``: the writing transactions in progress
    when the mark was read (the snapshot's), less those known to belong to another database of the server
    (transaction ids are the server's; a database is a session's for good, so that much is never wrong)."""
    with UnitOfWork(engine) as uow:
        s = uow.session
        if s.get_bind().dialect.name != "postgresql":
            events, generation = s.execute(text(
                "SELECT (SELECT MAX(id) FROM events), (SELECT generation FROM archive_secret WHERE id = 1)")).one()
            now = Mark(events or 0, generation or 0)
            return now, since is not None and (since.events, since.generation) == (now.events, now.generation)
        events, generation, snapshot, elsewhere, ended = s.execute(text(
            "SELECT (SELECT MAX(id) FROM events), (SELECT generation FROM archive_secret WHERE id = 1),"
            " CAST(pg_current_snapshot() AS text),"
            " ARRAY(SELECT CAST(backend_xid AS text) FROM pg_stat_activity"
            "       WHERE backend_xid IS NOT NULL AND datname IS DISTINCT FROM current_database()),"
            " (SELECT bool_or(pg_visible_in_snapshot(CAST(x AS xid8), pg_current_snapshot()))"
            "  FROM unnest(CAST(:running AS text[])) AS x)"),
            {"running": list(since.running) if since else []}).one()
    foreign = {int(xid) for xid in elsewhere}
    # "xmin:xmax:xid,xid,...", 64-bit ids (with the epoch) where pg_stat_activity gives their low 32 bits
    running = tuple(x for x in snapshot.split(":")[2].split(",") if x and int(x) & 0xFFFFFFFF not in foreign)
    now = Mark(events or 0, generation or 0, running)
    same = since is not None and (since.events, since.generation) == (now.events, now.generation) and not ended
    return now, same


# --------------------------------------------------------------------------- who is hidden


@dataclass(frozen=True)
class _Hiding:
    """What a reading of the store needs to name players: the secret and whom the moderator hid."""

    secret: bytes
    hidden: frozenset[str]  # keys
    legacy: frozenset[str] = frozenset()  # old-formula keys (ArchiveHiddenPlayer.legacy)

    def key(self, email: str) -> str:
        return key_of(self.secret, email)

    def hides(self, email: str, key: str) -> bool:
        return key in self.hidden or (bool(self.legacy) and _old_key(email) in self.legacy)


def _hiding(s: Session) -> _Hiding:
    rows = s.exec(select(ArchiveHiddenPlayer.key, ArchiveHiddenPlayer.legacy)).all()
    return _Hiding(bytes.fromhex(_secret_row(s).secret), frozenset(key for key, legacy in rows if not legacy),
                   frozenset(key for key, legacy in rows if legacy))


MIN_FIRST_NAME = 2  # a hidden player's first word is hidden alone from this many letters ("J." is not)


@dataclass
class _Cast:
    """The people of one game as the archive shows them: every seat's name and key, and how to say what people
    wrote without a hidden player's name or anybody's address."""

    hiding: _Hiding
    names: dict[int, str] = field(default_factory=dict)  # seat -> the name shown for its player now
    keys: dict[int, str] = field(default_factory=dict)
    hidden_keys: set[str] = field(default_factory=set)  # the keys of the players met here that are hidden
    met: dict[str, None] = field(default_factory=dict)  # the key of everybody who sat at the table, in order
    # A name as written in people's words (casefolded) -> (its spelling, what is shown for it): a hidden
    # player's name and its first word -> the name shown for them; another player's whole name -> None (kept as
    # written, though it starts with a hidden first name).
    shown_for_name: dict[str, tuple[str, str | None]] = field(default_factory=dict)
    shown_for_address: dict[str, str] = field(default_factory=dict)
    _names: re.Pattern[str] | None = None
    _shown: list[tuple[str, str | None]] = field(default_factory=list)

    @classmethod
    def of(cls, seats: Sequence[Seat], hiding: _Hiding) -> _Cast:
        cast = cls(hiding)
        for seat in seats:
            cast.names[seat.seat], cast.keys[seat.seat] = cast.meet(seat.name, seat.email)
        return cast

    def meet(self, name: str, email: str) -> tuple[str, str]:
        """The name shown for the person ``name`` <``email``> (a player now or before a replacement), and their
        key; what they wrote is said without their address (and their name, when hidden) from now on."""
        key = self.hiding.key(email)
        hidden = self.hiding.hides(email, key)
        shown = hidden_name(key) if hidden else name
        self.met[key] = None
        name = unicodedata.normalize("NFC", name.strip())
        if hidden:
            self.hidden_keys.add(key)
            words = name.split()
            for said in {name, *(words[:1] if len(words) > 1 and _letters(words[0]) >= MIN_FIRST_NAME else [])}:
                if said:
                    self.shown_for_name[said.casefold()] = (said, shown)
        elif name and name.casefold() not in self.shown_for_name:
            self.shown_for_name[name.casefold()] = (name, None)
        self.shown_for_address[email.strip().lower()] = shown
        self._names = None
        return shown, key

    def said(self, text: str) -> str:
        """``text`` as the site may show it: every address replaced by its player's name (or by 'an address'),
        every hidden player's name and first name, in any case, by the name shown for them (whole words only:
        'Ann' in 'Annabel' stays)."""
        text = _ADDRESS.sub(lambda m: self.shown_for_address.get(m.group(0).lower(), "(an address)"), text)
        if not self.hidden_keys:
            return text
        if self._names is None:
            self._shown = sorted(self.shown_for_name.values(), key=lambda x: len(x[0]), reverse=True)  # 'Ann Lee'
            # before 'Ann'; a group of its own for each name, so the name a match is of needs no case folding
            alternatives = "|".join(f"({re.escape(spelling)})" for spelling, _ in self._shown)
            self._names = re.compile(rf"(?<!\w)(?:{alternatives})(?!\w)", re.IGNORECASE)
        return self._names.sub(lambda m: self._shown[m.lastindex - 1][1] or m.group(0),  # type: ignore[operator]
                               unicodedata.normalize("NFC", text))

    def seat_names(self) -> list[str]:
        return [self.names[seat] for seat in sorted(self.names)]


def _letters(word: str) -> int:
    return sum(1 for c in word if c.isalpha())


def hidden_keys(engine: Engine) -> frozenset[str]:
    """The keys of the players the site shows without their name (a change means pages to write anew); a
    legacy row's key (``ArchiveHiddenPlayer.legacy``) is prefixed with "legacy:"."""
    with UnitOfWork(engine) as uow:
        rows = uow.session.exec(select(ArchiveHiddenPlayer.key, ArchiveHiddenPlayer.legacy)).all()
    return frozenset(f"legacy:{key}" if legacy else key for key, legacy in rows)


def hide_player(engine: Engine, email: str, hidden: bool = True) -> str:
    """Show the player with ``email`` as "Player <key>" on every page of the site (``hidden`` False: by their
    name again). Returns their key. Only the key is kept, so the store learns no address from it."""
    with UnitOfWork(engine, write=True) as uow:
        s = uow.session
        key = key_of(bytes.fromhex(_secret_row(s, writing=True).secret), email)
        legacy = s.get(ArchiveHiddenPlayer, _old_key(email))
        if legacy is not None and legacy.legacy:  # the new key's row takes its place, or none does
            s.delete(legacy)
        row = s.get(ArchiveHiddenPlayer, key)
        if hidden and row is None:
            s.add(ArchiveHiddenPlayer(key=key, hidden_at=utcnow()))
        elif not hidden and row is not None:
            s.delete(row)
        _raise_generation(s)
        uow.commit()
    return key


def set_archived(engine: Engine, game_id: int, archived: bool) -> None:
    """Whether the site shows game ``game_id`` (GameNotFound for no such game). Not an event of the game: the
    players' game is the same either way."""
    with UnitOfWork(engine, write=True) as uow:
        game = uow.lock_game(game_id) if 0 < game_id <= MAX_GAME_ID else None
        if game is None:
            raise GameNotFound(f"there is no game {game_id}")
        game.archive = SHOWN if archived else LEFT_OUT
        uow.session.add(game)
        _raise_generation(uow.session)
        uow.commit()


def set_archive(engine: Engine, game_id: int, value: str) -> str:
    """Show game ``game_id`` on the archive's site ("yes") or leave it out ("no"), as the moderator wrote it
    (``checked_archive``). Returns the setting."""
    setting = checked_archive(value)
    set_archived(engine, game_id, setting == "yes")
    return setting


# --------------------------------------------------------------------------- games


def archived_games(engine: Engine) -> dict[int, int]:
    """Every game the site shows, with its newest event: a game whose number changed has pages to write."""
    with UnitOfWork(engine) as uow:
        # A newest event looked up per game in the (game_id, seq) index: not a scan of every event of every game,
        # which a GROUP BY is (the worker asks after every pass).
        newest = select(func.max(Event.seq)).where(Event.game_id == Game.id).correlate(Game).scalar_subquery()
        rows = uow.session.exec(select(Game.id, newest).where(Game.archive == SHOWN)).all()
    return {game_id: seq for game_id, seq in rows if seq is not None}


@dataclass
class _Game:
    """One archived game as loaded: its rows, its people, its state now and its summary."""

    row: Game
    cast: _Cast
    state: Any
    summary: GameSummary


def summaries(engine: Engine, ids: Iterable[int] | None = None) -> list[GameSummary]:
    """The summaries of every game the site shows (or of those of ``ids`` it shows), by number. A few queries
    for all the games together: each game's latest snapshot and the commands after it, as a game is loaded."""
    with UnitOfWork(engine) as uow:
        _one_moment(uow)
        return [game.summary for game in _load_games(uow.session, None if ids is None else list(ids))]


def _one_moment(uow: UnitOfWork) -> None:
    """Every query of ``uow`` reads the store as it was at its first one, though games change meanwhile.
    SQLite's read transactions do that already; PostgreSQL's do at REPEATABLE READ."""
    s = uow.session
    if s.get_bind().dialect.name == "postgresql" and not s.in_transaction():
        s.connection(execution_options={"isolation_level": "REPEATABLE READ"})


def _load_games(s: Session, ids: list[int] | None) -> list[_Game]:
    if ids is not None and not ids:
        return []
    wanted = [Game.archive == SHOWN] + ([Game.id.in_(ids)] if ids is not None else [])  # type: ignore[attr-defined]
    games = s.exec(select(Game).where(*wanted).order_by(Game.id)).all()
    seats: dict[int, list[Seat]] = {}
    for seat in s.exec(select(Seat).join(Game, Game.id == Seat.game_id).where(*wanted)
                       .order_by(Seat.game_id, Seat.seat)).all():
        seats.setdefault(seat.game_id, []).append(seat)
    newest = (select(Event.game_id, func.max(Event.seq).label("seq")).join(Game, Game.id == Event.game_id)
              .where(*wanted).group_by(Event.game_id).subquery())
    last_events = {e.game_id: e for e in s.exec(select(Event).join(
        newest, (Event.game_id == newest.c.game_id) & (Event.seq == newest.c.seq))).all()}
    latest = (select(Snapshot.game_id, func.max(Snapshot.seq).label("seq")).join(Game, Game.id == Snapshot.game_id)
              .where(*wanted).group_by(Snapshot.game_id).subquery())
    snapshots = {x.game_id: x for x in s.exec(select(Snapshot).join(
        latest, (Snapshot.game_id == latest.c.game_id) & (Snapshot.seq == latest.c.seq))).all()}
    later: dict[int, list[Event]] = {}
    for event in s.exec(select(Event).join(latest, Event.game_id == latest.c.game_id)
                        .where(Event.seq > latest.c.seq, Event.kind == "command")
                        .order_by(Event.game_id, Event.seq)).all():
        later.setdefault(event.game_id, []).append(event)
    hiding = _hiding(s)
    shared = _shared_seats(s, wanted, seats)
    loaded = []
    for game in games:
        if game.id not in last_events:
            continue  # a game is made with its first event; without one there is nothing to show
        game_seats = seats.get(game.id, [])
        snapshot = snapshots.get(game.id)
        if snapshot is None:  # stored before snapshots were: the seed and every command in force
            state = _from_seed(s, game, len(game_seats), last_events[game.id].seq)
        else:
            state = get_game(game.kind).State.from_json(snapshot.state)
            for event in later.get(game.id, []):
                state.apply_command(event.seat, event.data["command"])
        cast = _Cast.of(game_seats, hiding)
        steps = shared.get(game.id, ({}, {}))[1]
        holders = {seat: _archived_holders(cast, held, steps)
                   for seat, held in shared.get(game.id, ({}, {}))[0].items() if len(held) > 1}
        loaded.append(_Game(game, cast, state, _summary(game, cast, state, last_events[game.id], holders)))
    return loaded


def _shared_seats(s: Session, wanted: list[Any], seats: dict[int, list[Seat]]
                  ) -> dict[int, tuple[dict[int, list[Holding]], dict[int, int]]]:
    """For each game of ``wanted`` whose seats changed hands (services.common.holders): every seat's holders, and
    the step of the game's page at each of its events. Only those games' events are read."""
    changed = select(Event.game_id).join(Game, Game.id == Event.game_id).where(
        *wanted, Event.kind.in_(("replace_player", "robot_cover")))  # type: ignore[attr-defined]
    rows: dict[int, list[Event]] = {}
    for event in s.exec(select(Event).where(Event.game_id.in_(changed.distinct()))  # type: ignore[attr-defined]
                        .order_by(Event.game_id, Event.seq)).all():
        rows.setdefault(event.game_id, []).append(event)
    found = {}
    for game_id, events in rows.items():
        found[game_id] = (seat_holders(events, seats.get(game_id, [])), step_numbers(events))
    return found


def _archived_holders(cast: _Cast, held: list[Holding], steps: dict[int, int]) -> tuple[ArchivedHolder, ...]:
    """A shared seat's holders as the site shows them: a robot that took the seat over from a person is "robot"
    after the person's name ("Bob, then robot (from step 40)"); a robot is known by its seat's robot address."""
    moves = sum(h.moves for h in held) or 1
    shown: list[ArchivedHolder] = []
    for before, holding in zip((None, *held), held):
        email = holding.email or robot_address(holding.seat)
        name, key = cast.meet(holding.name, email)
        label = name
        if holding.robot and before is not None and holding.name == robot_name(before.name, holding.robot):
            label = ROBOTS_SHOWN[holding.robot]
            name = robot_name(shown[-1].name, holding.robot)  # a hidden player's robot is not named after them
        shown.append(ArchivedHolder(
            name=name, key=key, label=label, first_step=steps.get(holding.first, 0) if holding.first > 1 else 0,
            last_step=None if holding.last is None else steps.get(holding.last, 0), moves=holding.moves,
            share=holding.moves / moves, hidden=key in cast.hidden_keys, resigned=holding.resigned))
    return tuple(shown)


def _summary(game: Game, cast: _Cast, state: Any, last: Event,
             holders: dict[int, tuple[ArchivedHolder, ...]] | None = None) -> GameSummary:
    finished = game.status == GameStatus.FINISHED
    winners = set(state.result["winners"]) if finished and state.result else set()
    # A paused game waits for nobody: the decision is due again when it resumes.
    due = state.current_player() if game.status == GameStatus.ACTIVE and not state.is_terminal() else None
    return GameSummary(
        id=game.id, kind=game.kind, title=get_game(game.kind).TITLE, variant=game.variant, status=game.status,
        players=tuple(ArchivedPlayer(seat=seat, name=cast.names[seat], key=cast.keys[seat],
                                     score=state.scores[seat], winner=seat in winners,
                                     hidden=cast.keys[seat] in cast.hidden_keys,
                                     holders=(holders or {}).get(seat, ()))
                      for seat in sorted(cast.names)),
        started_at=aware(game.created_at), ended_at=aware(last.created_at) if finished else None,
        to_act=(cast.names[due],) if due in cast.names else (), last_seq=last.seq,
    )


def _from_seed(s: Session, game: Game, players: int, seq: int) -> Any:
    """The state after event ``seq``: a new game from the seed, with the commands in force after that event."""
    events = s.exec(select(Event.seq, Event.kind, Event.seat, Event.data)
                    .where(Event.game_id == game.id, Event.seq <= seq).order_by(Event.seq)).all()
    in_force = effective_commands({"seq": e[0], "kind": e[1], "seat": e[2], "data": e[3]} for e in events)
    state = get_game(game.kind).new_game(players=players, seed=game.seed, **dict(game.settings))
    for _, seat, command in in_force[max((e[0] for e in events), default=0)]:
        state.apply_command(seat, command)
    return state


# --------------------------------------------------------------------------- a game, event by event


def record(engine: Engine, game_id: int, *, steps_after: int = 0) -> GameRecord:
    """Everything the page of game ``game_id`` shows (GameNotFound unless the site shows the game).

    ``steps_after`` > 0: only the steps of the events after event ``steps_after`` (a site that drew the earlier
    ones keeps them: events are never changed), replayed from the newest snapshot at or before it; ``scoring``
    then names only steps among those. The summary, settings, talk and result are always whole."""
    with UnitOfWork(engine) as uow:
        _one_moment(uow)
        s = uow.session
        found = _load_games(s, [game_id])
        if not found:
            raise GameNotFound(f"game {game_id} is not in the archive")
        game = found[0]
        replay = _Replay(s, game)
        steps = replay.steps(steps_after)
        scoring = tuple(step.number for before, step in zip((replay.scores_before, *(x.scores for x in steps)), steps)
                        if step.scores != before and step.number > 0)
        return GameRecord(summary=game.summary, settings=_settings(game), steps=tuple(steps), scoring=scoring,
                          talk=replay.talk(), result=_result_words(game), people=tuple(game.cast.met))


class _Replay:
    """A game's events after one another, with the state after each (see the module doc), and who sat where
    then: a step names the players of its time (a replaced player's commands are theirs)."""

    def __init__(self, s: Session, game: _Game) -> None:
        self.s = s
        self.game = game
        self.module = get_game(game.row.kind)
        self.finished = game.summary.finished
        self.last_seq = game.summary.last_seq
        self.replacements: list[tuple[int, int, str]] = []  # (event, seat, the name shown for who sat there before)
        for seq, data in s.exec(select(Event.seq, Event.data).where(
                Event.game_id == game.row.id, Event.kind == "replace_player", Event.seq <= self.last_seq)
                .order_by(Event.seq)).all():
            old, new = data.get("old") or {}, data.get("new") or {}
            if "seat" in data and old.get("email"):
                self.replacements.append((seq, data["seat"], game.cast.meet(old.get("name", ""), old["email"])[0]))
            if new.get("email"):
                game.cast.meet(new.get("name", ""), new["email"])
        row = game.row
        # What the chronicle's words read: the players (named as the site names them) and the position, by which
        # Manhattan numbers a site.
        self.info = GameInfo(
            id=row.id, kind=row.kind, title=self.module.TITLE, variant=row.variant, seed=row.seed, status=row.status,
            settings=dict(row.settings), players=[], created_at=aware(row.created_at),
            updated_at=aware(row.updated_at))
        self.scores_before: tuple[int, ...] = ()  # the scores before the first step made

    def names_at(self, seq: int) -> list[str]:
        """The names of the players after event ``seq``, in seat order."""
        names = dict(self.game.cast.names)
        for replaced, seat, before in reversed(self.replacements):
            if replaced > seq:
                names[seat] = before
        return [names[seat] for seat in sorted(names)]

    def steps(self, after: int) -> list[Step]:
        row = self.game.row
        players = len(self.game.cast.names)
        base = self.s.exec(select(Snapshot).where(Snapshot.game_id == row.id, Snapshot.seq <= max(after, 1))
                           .order_by(Snapshot.seq.desc()).limit(1)).first()
        if base is None:  # an imported game keeps only its last snapshot: its start is its seed
            base_seq, state = 1, self.module.new_game(players=players, seed=row.seed, **dict(row.settings))
        else:
            base_seq, state = base.seq, self.module.State.from_json(base.state)
        events = self.s.exec(select(Event).where(Event.game_id == row.id, Event.seq >= base_seq,
                                                 Event.seq <= self.last_seq).order_by(Event.seq)).all()
        restored = dict(self.s.exec(  # the states stored by events other than commands: undo, import
            select(Snapshot.seq, Snapshot.state)
            .join(Event, (Event.game_id == Snapshot.game_id) & (Event.seq == Snapshot.seq))
            .where(Snapshot.game_id == row.id, Snapshot.seq > base_seq, Snapshot.seq <= self.last_seq,
                   Event.kind != "command")).all())
        number = self._steps_up_to(after) if after > 0 else 0
        self.scores_before = tuple(state.scores)
        steps: list[Step] = []
        for event in events:
            if event.seq > base_seq:
                state = self._after(event, state, restored)
            if event.seq <= after:
                self.scores_before = tuple(state.scores)
            elif event.seq == 1:
                steps.append(self._step(0, event, state))
            elif is_step(event.kind, event.data):
                number += 1
                steps.append(self._step(number, event, state))
        return steps

    def _steps_up_to(self, seq: int) -> int:
        """The number of the last step of the events up to ``seq``."""
        rows = self.s.exec(select(Event.kind, Event.data["readers"].as_json())  # type: ignore[index]
                           .where(Event.game_id == self.game.row.id, Event.seq > 1, Event.seq <= seq)).all()
        return sum(1 for kind, readers in rows if is_step(kind, {"readers": readers}))

    def _after(self, event: Event, state: Any, restored: dict[int, str]) -> Any:
        if event.kind == "command":
            state.apply_command(event.seat, event.data["command"])
            return state
        if event.seq in restored:
            return self.module.State.from_json(restored[event.seq])
        if event.kind == "undo":  # in an imported game, which keeps no snapshot of it
            return _from_seed(self.s, self.game.row, len(self.game.cast.names), event.seq)
        return state

    def _step(self, number: int, event: Event, state: Any) -> Step:
        names = self.names_at(event.seq)
        self.info.players = [PlayerInfo(seat, name, "") for seat, name in enumerate(names)]
        self.info.state = state
        words = self._start_words(state, names) if number == 0 else self._words(event, names)
        hands = (tuple(self.module.hand_text(state.view(seat)) for seat in range(len(names)))
                 if self.finished else None)
        return Step(number=number, seq=event.seq, when=aware(event.created_at), words=words,
                    board_html=str(render_board_html(self.module.NAME, state.view(None), players=names)),
                    scores=tuple(state.scores), hands=hands)

    def _start_words(self, state: Any, names: list[str]) -> tuple[str, ...]:
        first = state.current_player()
        return (f"The game began: {listing(names)} play {self.module.TITLE}.",
                *([f"{names[first]} begins."] if 0 <= first < len(names) else []))

    def _words(self, event: Event, names: list[str]) -> tuple[str, ...]:
        """The event as everybody may read it (and, once the game is finished, what each player alone saw)."""
        data = event.data or {}
        if event.kind == "command":
            command = data.get("command", event.text)
            info = as_then(self.info, [], event)  # a robot's move at a late player's seat is the robot's
            # Another player's standing order stays theirs while the game runs: what it did is told below.
            lines = [] if data.get("secret") and not self.finished else [played_words(info, event.seat, data, None, command)]
            lines += ([describe(engine_event, info, None) for engine_event in data["events"]]
                      if "events" in data else list(data.get("effects", [])))
            if self.finished:  # nothing is secret after the game
                lines += [line for seat, secrets in sorted(data.get("private", {}).items())
                          for secret in secrets for line in seen_alone(names[int(seat)], secret)]
        elif event.kind == "replace_player":
            lines = [self._replaced(event.seq, data, names, resigned=event.actor == data.get("old", {}).get("email"))]
        else:
            lines = [data.get("words") or fallback_words(event) or f"The moderator: {event.kind}.",
                     *data.get("lines", [])]
        return tuple(self.game.cast.said(line) for line in lines)

    def _replaced(self, seq: int, data: dict[str, Any], names: list[str], *, resigned: bool = False) -> str:
        """A replacement in words (the stored ones may give both players' addresses); ``resigned``: the player
        gave the seat up by mail, their own act."""
        seat = data.get("seat", 0)
        before = next((name for replaced, _, name in self.replacements if replaced == seq), "somebody")
        if resigned:
            return f"{before} resigned: {names[seat]} plays seat {seat + 1} from then on."
        reason = f" The moderator says: {data['reason']}" if data.get("reason") else ""
        return f"The moderator gave seat {seat + 1} to {names[seat]} instead of {before}.{reason}"

    def talk(self) -> tuple[TalkLine, ...]:
        """The table talk everybody may read: what players said to all, what the moderator told everybody."""
        rows = self.s.exec(select(Event).where(
            Event.game_id == self.game.row.id, Event.kind.in_(TALK),  # type: ignore[attr-defined]
            Event.seq <= self.last_seq).order_by(Event.seq)).all()
        return tuple(TalkLine(when=aware(row.created_at), text=self.game.cast.said(row.text),
                              name=self.names_at(row.seq)[row.seat] if row.seat is not None else MODERATOR)
                     for row in rows if (row.data or {}).get("readers") is None)


# The engines tell a player alone what they drew in the second person ("You drew black [6, 12]."), and the
# events keep those words: the archive retells them of the player, for everybody, once the game is over.
_SENTENCE_END = re.compile(r"(?<=\.)\s+(?=[A-Z])")
_CARDS = re.compile(r"\[([^\]]*)\]")
_NO_CARD_TO_DRAW = re.compile(r"^There was no card to draw\b")
_NO_BLACK_CARD = re.compile(r"^You drew black \[\]")


def seen_alone(name: str, secret: str) -> list[str]:
    """What the player called ``name`` alone saw (an engine's private words to them), told of them in the third
    person for a finished game's page: "You drew black [6]." -> "Bob drew black 6; only Bob saw it during the
    game." A line a sentence."""
    told = []
    for sentence in _SENTENCE_END.split(secret.strip()):
        sentence = sentence.strip().removesuffix(".")
        if not sentence:
            continue
        sentence = _NO_BLACK_CARD.sub(f"{name} drew no black card", sentence)
        sentence = _NO_CARD_TO_DRAW.sub(f"There was no card for {name} to draw", sentence)
        sentence = _CARDS.sub(lambda cards: listing(card.strip() for card in cards.group(1).split(",")), sentence)
        sentence = re.sub(r"\b[Yy]our\b", f"{name}'s", sentence)
        sentence = re.sub(r"\b[Yy]ou\b", name, sentence)
        told.append(f"{sentence}; only {name} saw it during the game.")
    return told


# --------------------------------------------------------------------------- the rest of the page


def _settings(game: _Game) -> tuple[tuple[str, str], ...]:
    """The game's public settings in words."""
    row, names = game.row, game.cast.seat_names()
    settings: list[tuple[str, str]] = [("players", f"{len(names)}: {listing(names)}")]
    if row.kind == "fifth-avenue":
        from ..games.fifth_avenue.board import load_board

        back = bool(row.settings.get("back_side"))
        board = load_board(back)
        plots = len(board.plots(board.district_codes[0]))
        settings.append(("board side", f"{'back' if back else 'front'} ({plots} plots a district)"))
        if len(names) == 2:
            robot = "yes: with two players a robot bids in every auction and builds when it wins, but never scores"
            settings.append(("robot bidder", robot))
    elif row.kind == "manhattan":
        from ..games.manhattan import seat_colors

        colors = seat_colors(len(names))
        settings.append(("colors", "; ".join(f"{name} {listing(colors[seat])}" for seat, name in enumerate(names))))
    settings.append(("variant", row.variant))
    settings.append(("deadlines", Timing.from_dict(row.timing).describe(auctions=has_auctions(row.kind))))
    return tuple(settings)


def _result_words(game: _Game) -> tuple[str, ...]:
    """How a finished game ended, in words: the final scores, the winners, the ties and what broke them."""
    result = game.state.result
    if not game.summary.finished or not result:
        return ()
    names = [player.shown() for player in game.summary.players]  # a seat credited to all who played it
    scores: list[int] = result["scores"]
    best = max(scores)
    tied: list[int] = result.get("tied", [])
    winners: list[int] = result["winners"]
    lines = [_how_it_ended(game.row.kind, result),
             "Final scores: " + ", ".join(f"{names[seat]} {scores[seat]}"
                                          for seat in sorted(range(len(scores)), key=lambda seat: -scores[seat])) + "."]
    if len(tied) > 1:
        lines.append(f"{listing(names[seat] for seat in tied)} tied on {best} points. "
                     + _tie_break(game.row.kind, result, names))
    won = listing(names[seat] for seat in winners)
    lines.append(f"{won} {'share the win' if len(winners) > 1 else 'wins'} with {best} points.")
    return tuple(lines)


def _how_it_ended(kind: str, result: dict[str, Any]) -> str:
    if kind == "fifth-avenue":
        ending = {"supply": "the supply row of businesses ran out",
                  "building_stop": "the last building stop was declared"}.get(result.get("reason", ""), "it was over")
        park = result.get("central_park") or {}
        drawn = (f"; Central Park's businesses {listing(park['drawn'])} made each skyscraper below it worth "
                 f"{park['vp_each']} points" if park.get("drawn") else "")
        return f"The game ended when {ending}{drawn}."
    if kind == "manhattan":
        return f"The game ended after round {result.get('rounds', '?')}."
    return "The game ended."


def _tie_break(kind: str, result: dict[str, Any], names: list[str]) -> str:
    """What broke a tie on points, as the engine's result says (a tie it did not break is a shared win)."""
    tied: list[int] = result["tied"]
    if kind == "fifth-avenue":
        cards = result["cards_in_hand"]
        return "The most cards in hand breaks the tie: " + ", ".join(f"{names[p]} {cards[p]}" for p in tied) + "."
    if kind == "manhattan":
        towers, tallest = result["towers"], result["tallest"]
        said = "The most towers breaks the tie: " + ", ".join(f"{names[p]} {towers[p]}" for p in tied) + "."
        most = max(towers[p] for p in tied)
        still = [p for p in tied if towers[p] == most]
        if len(still) > 1:
            said += (" Then the tallest tower: "
                     + ", ".join(f"{names[p]} {tallest[p]} stories" for p in still) + ".")
        return said
    return ""


__all__ = ["Mark", "archive_secret", "archived_games", "hidden_keys", "hidden_name", "hide_player", "key_of", "mark",
           "player_key", "record", "seen_alone", "set_archived", "summaries"]
