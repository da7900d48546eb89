"""A game's complete record as one JSON document (`pbem game export`), and a game rebuilt from one (`pbem game
import`).

An import file may hold anything. It is read with caps (its size, how deeply it nests), and every value is
checked against what the game store keeps before anything is written: a refused file changes nothing, and the
message (``ImportFailed``) names what is wrong. A file that passes is replayed from its seed, and its final
state must be the one it says.

The players' mails are part of the record: which mails each gets (``delivery``) and the last event their mails
told them of (``told_seq``), so the rebuilt game's next mail to each starts where the old one would have. The
public engine events a command's mails tell of (``data["events"]``, read by ``services.mail_out.chronicle``) are not taken
from the file: the replay makes them again, every command's, undone ones too. Nor is a command's ``secret`` flag
(a standing order, whose limit only its player may read: docs/rules.md D48): the engine says which commands are
secret, so a file without the flag, or with it taken off, cannot show an order's limit to the other players.
"""

from __future__ import annotations

import json
import math
import re
import stat
from dataclasses import dataclass
from datetime import datetime, timedelta, timezone
from pathlib import Path
from typing import TYPE_CHECKING, Any

from sqlalchemy.exc import IntegrityError

from ...games import get_game
from ...games.errors import CommandError
from sqlmodel import select

from ...store.models import Event, Game, GameStatus, Seat, Snapshot, limit_of
from ...store.uow import UnitOfWork
from ..common import deadlines
from ..mail_out import delivery, notices
from .archive_settings import ARCHIVE
from ..mail_out.chronicle import public_events
from ...limits import MAX_SEED, MIN_SEED
from .games import bounded_timing, effective_commands
from ..common.errors import BadRequest, ImportFailed
from ..common.input_checks import checked_address, checked_name
from ..common.timing import Timing, TimingError

if TYPE_CHECKING:
    from .games import GameChanges

EXPORT_FORMAT = "pbem-game"
EXPORT_VERSION = 1
MAX_IMPORT_BYTES = 10 * 1024 * 1024  # an export of a long game is well under 1 MB
MAX_DEPTH = 32  # levels of nesting; an export has about 6
EVENT_KINDS = ("created", "command", "undo", "replace_player", "pause", "resume", "abort", "set", "say", "tell",
               "to_moderator", "away", "robot_cover", "watch")
READERS = ("say", "tell", "to_moderator", "watch")  # kinds whose data["readers"] names the seats that may read them
VARIANTS = ("standard", "back-side")
EARLIEST = datetime(1970, 1, 1, tzinfo=timezone.utc)
CLOCK_SKEW = timedelta(days=1)  # a time this far after now is still taken (another machine's clock)
_CONTROL = re.compile(r"[\x00-\x1f\x7f]")


# --------------------------------------------------------------------------- export


def export_game(games: GameChanges, game_id: int) -> dict[str, Any]:
    """The complete record of a game: enough to rebuild it exactly."""
    info = games.get(game_id)
    history = games.history(game_id)
    events = [
        {"seq": h.seq, "time": h.time.isoformat(), "actor": h.actor, "seat": h.seat, "kind": h.kind,
         "text": h.text, "source": h.source, "data": h.data}
        for h in history
    ]
    in_force = effective_commands(events)[history[-1].seq]
    with UnitOfWork(games.engine) as uow:  # a player's own choices of mails and pictures ("" = the game's), as stored
        stored = uow.session.exec(select(Seat).where(Seat.game_id == game_id)).all()
        own = {x.seat: x.delivery for x in stored}
        own_pictures = {x.seat: x.pictures for x in stored}
        archive = uow.session.get(Game, game_id).archive  # type: ignore[union-attr]
    return {
        "format": EXPORT_FORMAT,
        "version": EXPORT_VERSION,
        "game": {"id": info.id, "kind": info.kind, "variant": info.variant, "seed": info.seed,
                 "status": info.status, "settings": info.settings, "timing": info.timing.to_dict(),
                 "delivery": info.delivery, "pictures": info.pictures, "archive": archive,
                 "created_at": info.created_at.isoformat(), "updated_at": info.updated_at.isoformat()},
        "players": [{"seat": p.seat, "name": p.name, "email": p.email, **({"secret": p.secret} if p.secret else {}),
                     **({"delivery": own[p.seat]} if own.get(p.seat) else {}),
                     **({"pictures": own_pictures[p.seat]} if own_pictures.get(p.seat) else {}),
                     **({"robot": p.robot} if p.robot else {}), "told_seq": p.told_seq}
                    for p in info.players],
        "events": events,
        "commands": [{"seq": seq, "seat": seat, "command": command} for seq, seat, command in in_force],
        "final": {"over": info.over, "scores": info.scores, "winners": info.winners},
        "state": json.loads(info.state.to_json()),
    }


# --------------------------------------------------------------------------- reading a file


def read_export(path: Path) -> Any:
    """The JSON document in ``path``: a regular file of at most MAX_IMPORT_BYTES of UTF-8 JSON."""
    try:
        found = path.stat()
        if stat.S_ISDIR(found.st_mode):
            raise ImportFailed(f"{path} is a directory, not a game export")
        if not stat.S_ISREG(found.st_mode):
            raise ImportFailed(f"{path} is not a regular file, so not a game export")
        if found.st_size > MAX_IMPORT_BYTES:
            raise ImportFailed(_too_big(path, found.st_size))
        with path.open("rb") as handle:
            raw = handle.read(MAX_IMPORT_BYTES + 1)  # the file may have grown since
    except OSError as exc:
        raise ImportFailed(f"cannot read {path}: {exc.strerror}") from exc
    if len(raw) > MAX_IMPORT_BYTES:
        raise ImportFailed(_too_big(path, len(raw)))
    return parse_export(raw, str(path))


def _too_big(path: Path, size: int) -> str:
    return (f"{path} is {size / 2**20:.1f} MB; a game export is at most {MAX_IMPORT_BYTES // 2**20} MB "
            "(a long game's is under 1 MB)")


def _refuse_constant(name: str) -> Any:
    raise ValueError(f"{name} is not a number a game export holds")


def _finite(text: str) -> float:
    value = float(text)
    if not math.isfinite(value):
        raise ValueError(f"{text} is too large a number for a game export")
    return value


def parse_export(raw: bytes, name: str = "the import file") -> Any:
    """``raw`` read as JSON text: UTF-8, no NaN or Infinity, nested at most MAX_DEPTH levels."""
    prefix = f"{name} is not a JSON game export"
    try:
        text = raw.decode("utf-8-sig")
    except UnicodeDecodeError as exc:
        raise ImportFailed(f"{prefix}: it is not UTF-8 text (byte {exc.start} is {raw[exc.start]:#04x})") from None
    try:
        doc = json.loads(text, parse_constant=_refuse_constant, parse_float=_finite)
    except RecursionError:
        raise ImportFailed(f"{prefix}: it is nested far more than {MAX_DEPTH} levels deep") from None
    except ValueError as exc:  # JSONDecodeError, a number of more than 4300 digits, NaN
        raise ImportFailed(f"{prefix}: {exc}") from None
    problem = _shape_problem(doc)
    if problem:
        raise ImportFailed(f"{prefix}: {problem}")
    return doc


def _shape_problem(doc: Any) -> str | None:
    """What makes ``doc`` unfit to be stored at all: nesting beyond MAX_DEPTH, a NUL character (walked without
    recursion, so that no depth can exhaust the stack)."""
    stack: list[tuple[Any, int]] = [(doc, 0)]
    while stack:
        value, depth = stack.pop()
        if isinstance(value, (dict, list)):
            if depth >= MAX_DEPTH:
                return f"it is nested more than {MAX_DEPTH} levels deep"
            items = list(value.items()) if isinstance(value, dict) else [(None, x) for x in value]
            for key, item in items:
                if key is not None and "\x00" in key:
                    return "it holds a NUL character"
                stack.append((item, depth + 1))
        elif isinstance(value, str) and "\x00" in value:
            return "it holds a NUL character"
    return None


# --------------------------------------------------------------------------- checking a document


@dataclass
class _Checked:
    """An export document as it will be stored: every value checked, addresses lower case, times in UTC."""

    kind: str
    variant: str
    seed: int
    status: str
    settings: dict[str, Any]
    timing: Timing
    delivery: str
    pictures: str
    archive: str
    created_at: datetime
    players: list[dict[str, Any]]
    events: list[dict[str, Any]]
    state: dict[str, Any]


class _Damaged(Exception):
    """One thing wrong with the document, said in a few words."""


def _require(ok: bool, message: str) -> None:
    if not ok:
        raise _Damaged(message)


def _whole(value: Any) -> bool:
    return isinstance(value, int) and not isinstance(value, bool)


def _text(value: Any, what: str, column: Any, *, empty: bool = True, one_line: bool = True) -> str:
    """``value`` if it is text that fits ``column``; one line without control characters unless not ``one_line``."""
    _require(isinstance(value, str), f"{what} must be text, not {_shown(value)}")
    limit = limit_of(column)
    _require(limit is None or len(value) <= limit, f"{what} is {len(value)} characters long; at most {limit} are kept")
    _require(empty or bool(value.strip()), f"{what} must not be empty")
    if one_line:
        _require(not _CONTROL.search(value), f"{what} holds a line break or a control character")
    return value


def _or_empty(value: Any) -> Any:
    """An object that may be left out or null: {} then; anything else as it is (an empty list is no object)."""
    return {} if value is None else value


def _time(value: Any, what: str, now: datetime) -> datetime:
    """An ISO 8601 time between 1970 and now (a time without a zone is UTC)."""
    _require(isinstance(value, str), f"{what} must be text, not {_shown(value)}")
    try:
        moment = datetime.fromisoformat(value)
    except ValueError:
        raise _Damaged(f"{what} {_shown(value)} is not an ISO 8601 time such as 2026-05-01T12:00:00+00:00") from None
    moment = moment.replace(tzinfo=timezone.utc) if moment.tzinfo is None else moment.astimezone(timezone.utc)
    _require(EARLIEST <= moment <= now + CLOCK_SKEW, f"{what} {_shown(value)} is not between 1970 and now")
    return moment


def _shown(value: Any) -> str:
    text = json.dumps(value, ensure_ascii=False) if not isinstance(value, str) else repr(value)
    return text if len(text) <= 60 else text[:57] + "..."


def check_export(doc: Any, now: datetime) -> _Checked:
    """The document as it will be stored, or ImportFailed naming the first thing wrong with it."""
    if not isinstance(doc, dict) or doc.get("format") != EXPORT_FORMAT:
        raise ImportFailed(f"not a pbem game export (expected \"format\": \"{EXPORT_FORMAT}\")")
    version = doc.get("version")
    if not _whole(version) or version != EXPORT_VERSION:
        raise ImportFailed(f"unsupported export version {_shown(version)}; this pbem reads {EXPORT_VERSION}")
    try:
        return _check(doc, now)
    except KeyError as exc:
        raise ImportFailed(f"the import file is incomplete or damaged: {exc.args[0]!r} is missing") from None
    except _Damaged as exc:
        raise ImportFailed(f"the import file is incomplete or damaged: {exc}") from None


def _check(doc: dict[str, Any], now: datetime) -> _Checked:
    game_doc, players, events, state = doc["game"], doc["players"], doc["events"], doc["state"]
    _require(isinstance(game_doc, dict) and isinstance(players, list) and isinstance(events, list),
             "game must be an object, players and events lists")
    _require(isinstance(state, dict), f"state must be an object, not {_shown(state)}")

    kind = game_doc["kind"]
    _require(isinstance(kind, str), f"unknown game kind {_shown(kind)}")
    try:
        module = get_game(kind)
    except KeyError as exc:
        raise _Damaged(exc.args[0]) from None
    seed = game_doc["seed"]
    _require(_whole(seed), f"the seed must be a whole number, not {_shown(seed)}")
    _require(MIN_SEED <= seed <= MAX_SEED, f"the seed {seed} is out of range ({MIN_SEED} to {MAX_SEED})")
    status = game_doc["status"]
    _require(isinstance(status, str) and status in GameStatus.ALL, f"unknown status {_shown(status)}")
    variant = game_doc.get("variant", "standard")
    _require(isinstance(variant, str), "game variant must be text")
    created = game_doc["created_at"]
    _require(isinstance(created, str), "game created_at must be text")
    created_at = _time(created, "game created_at", now)
    settings = _or_empty(game_doc.get("settings"))
    _require(isinstance(settings, dict), "game settings must be an object")
    for key, value in settings.items():
        _require(isinstance(value, (bool, int, str)) and (key != "back_side" or isinstance(value, bool)),
                 f"game setting {key!r} has the value {_shown(value)}")
    _require(variant in VARIANTS, f"unknown variant {_shown(variant)}; the variants are {', '.join(VARIANTS)}")
    _require((variant == "back-side") == (settings.get("back_side") is True),
             f"the variant {variant!r} does not match the settings {_shown(settings)}")
    timing_doc = _or_empty(game_doc.get("timing"))
    _require(isinstance(timing_doc, dict), "game timing must be an object")
    unknown = sorted(set(timing_doc) - set(Timing.__dataclass_fields__))
    _require(not unknown, f"game timing has unknown settings {', '.join(map(repr, unknown))}")
    try:
        timing = bounded_timing(Timing.from_dict(timing_doc).checked())
    except (TypeError, TimingError, BadRequest) as exc:
        raise _Damaged(f"game timing is not understood: {getattr(exc, 'message', exc)}") from None
    mails = _delivery(game_doc.get("delivery", delivery.DEFAULT), "game delivery")
    pictures = _pictures(game_doc.get("pictures", "on"), "game pictures")  # an export from before pictures: on
    archive = game_doc.get("archive", "yes")  # an export from before the archive: in it
    _require(isinstance(archive, str) and archive in ARCHIVE,
             f"game archive {_shown(archive)} is not one of {', '.join(ARCHIVE)}")

    _require(bool(players) and bool(events) and bool(state), "players, events and state must not be empty")
    _require(len(players) in module.PLAYERS,
             f"{module.TITLE} is for {', '.join(map(str, module.PLAYERS))} players, not {len(players)}")
    seats = []
    for p in players:
        _require(isinstance(p, dict) and _whole(p.get("seat")) and isinstance(p.get("name"), str)
                 and p["name"].strip() != "" and isinstance(p.get("email"), str) and "@" in p["email"],
                 f"player {_shown(p)} needs a seat number, a name and an email")
        seat = p["seat"]
        try:
            name, email = checked_name(p["name"]), checked_address(p["email"])
        except BadRequest as exc:
            raise _Damaged(f"player {seat}: {exc.message}") from None
        secret = "" if p.get("secret") is None else p["secret"]
        _require(isinstance(secret, str), f"player {seat}'s secret word must be text")
        _text(secret, f"player {seat}'s secret word", Seat.secret)
        own = "" if p.get("delivery") in (None, "") else _delivery(p["delivery"], f"player {seat}'s delivery")
        own_pictures = "" if p.get("pictures") in (None, "") else _pictures(p["pictures"], f"player {seat}'s pictures")
        robot = "" if p.get("robot") in (None, "") else p["robot"]
        _require(robot in ("", "heuristic", "strong"), f"player {seat}'s robot {_shown(robot)} is not "
                 "heuristic or strong")
        told = p.get("told_seq", len(events))  # an export made before pbem kept it: they were told of everything
        _require(_whole(told) and 0 <= told <= len(events),
                 f"player {seat}'s told_seq {_shown(told)} is not an event of the game")
        seats.append({"seat": seat, "name": name, "email": email, "secret": secret, "delivery": own,
                      "pictures": own_pictures, "told_seq": told, "robot": robot})
    _require(sorted(p["seat"] for p in seats) == list(range(len(seats))),
             "players must have the seats 0, 1, 2, ... once each")
    _require(len({p["email"] for p in seats}) == len(seats), "every player needs a different email address")

    seqs = [e.get("seq") if isinstance(e, dict) else None for e in events]
    _require(seqs == list(range(1, len(events) + 1)), "events must be numbered 1, 2, 3, ...")
    _require(events[0].get("kind") == "created", "event 1 must be the game's creation")
    stored = [_event(e, len(seats), now) for e in events]
    return _Checked(kind=module.NAME, variant=variant, seed=seed, status=status, settings=dict(settings),
                    timing=timing, delivery=mails, pictures=pictures, archive=archive, created_at=created_at,
                    players=seats,
                    events=stored, state=state)


def _pictures(value: Any, what: str) -> str:
    _require(isinstance(value, str) and value in delivery.PICTURES,
             f"{what} {_shown(value)} is not one of {', '.join(delivery.PICTURES)}")
    return value


def _delivery(value: Any, what: str) -> str:
    _require(isinstance(value, str) and value in delivery.MODES,
             f"{what} {_shown(value)} is not one of {', '.join(delivery.MODES)}")
    return value


def _event(e: dict[str, Any], players: int, now: datetime) -> dict[str, Any]:
    seq = e["seq"]
    kind = e["kind"]
    _require(isinstance(kind, str) and kind in EVENT_KINDS, f"event {seq} has an unknown kind {_shown(kind)}")
    for key in ("time", "actor"):
        _require(isinstance(e[key], str), f"event {seq} has no {key}")
    for key in ("text", "source"):
        _require(isinstance(e.get(key, ""), str), f"event {seq}: {key} must be text")
    time = _time(e["time"], f"event {seq}: time", now)
    actor = _text(e["actor"], f"event {seq}: actor", Event.actor, empty=False)
    text = _text(e.get("text", ""), f"event {seq}: text", Event.text, one_line=False)
    source = _text(e.get("source", "import"), f"event {seq}: source", Event.source)
    data = _or_empty(e.get("data"))
    _require(isinstance(data, dict), f"event {seq}: data must be an object")
    seat = e.get("seat")
    _require(seat is None or (_whole(seat) and 0 <= seat < players),
             f"event {seq} names seat {_shown(seat)}, which is not in the game")
    for key in ("by", "reason", "words"):
        _require(isinstance(data.get(key, ""), str), f"event {seq}: data {key} must be text")
    lines = data.get("lines", [])
    _require(isinstance(lines, list) and all(isinstance(x, str) for x in lines),
             f"event {seq}: lines must be a list of text")
    if kind in READERS and "readers" in data:  # the seats it is for (services.mail_out.chronicle): seats of the game
        readers = data["readers"]
        _require(isinstance(readers, list) and all(_whole(x) and 0 <= x < players for x in readers),
                 f"event {seq} is for {_shown(readers)}, which are not seats of the game")
    if kind == "command":
        _require(isinstance(data.get("command"), str), f"event {seq} has no command")
        _text(data["command"], f"event {seq}: command", Event.text)
        _require(seat is not None, f"event {seq} has no seat")
        effects = data.get("effects", [])
        _require(isinstance(effects, list) and all(isinstance(x, str) for x in effects),
                 f"event {seq}: effects must be a list of text")
        private = data.get("private", {})  # what only one player saw (services.mail_out.chronicle): seat -> lines
        _require(isinstance(private, dict) and all(
            str(k).isdigit() and int(k) < players and isinstance(v, list) and all(isinstance(x, str) for x in v)
            for k, v in private.items()), f"event {seq}: private must map seats to lists of text")
    if kind == "undo":
        to = data.get("to")
        _require(_whole(to) and 0 <= to < seq, f"event {seq} undoes to {_shown(to)}, not an earlier event")
    return {"seq": seq, "kind": kind, "time": time, "actor": actor, "seat": seat, "text": text, "source": source,
            "data": data}


# --------------------------------------------------------------------------- import


def import_game(games: GameChanges, doc: Any) -> int:
    """Rebuild an exported game under a new number; its final state must equal the export's."""
    now = games.clock()
    checked = check_export(doc, now)
    state, told, secret = _replay(checked)
    for e in checked.events:
        if e["kind"] == "command":
            e["data"] = {**{k: v for k, v in e["data"].items() if k != "secret"}, "events": told[e["seq"]],
                         **({"secret": True} if secret[e["seq"]] else {})}
    if json.loads(state.to_json()) != checked.state:  # the same position; the stored state is the replay's
        raise ImportFailed("the import file is inconsistent: replaying its commands does not give its final state")
    if (checked.status == GameStatus.FINISHED) != state.is_terminal():
        over = "over" if state.is_terminal() else "not over"
        raise ImportFailed(f"the import file is inconsistent: the game is {checked.status} but its commands leave it "
                           f"{over}")
    last = checked.events[-1]["seq"]
    with UnitOfWork(games.engine, write=True) as uow:
        s = uow.session
        game = Game(kind=checked.kind, variant=checked.variant, seed=checked.seed, status=checked.status,
                    settings=checked.settings, timing=checked.timing.to_dict(), delivery=checked.delivery,
                    pictures=checked.pictures, archive=checked.archive, created_at=checked.created_at,
                    updated_at=now)
        s.add(game)
        s.flush()
        s.add_all(Seat(game_id=game.id, seat=p["seat"], name=p["name"], email=p["email"], secret=p["secret"],
                       delivery=p["delivery"], pictures=p["pictures"], told_seq=p["told_seq"], robot=p["robot"])
                  for p in checked.players)
        # Under its new number the game is a new thread: a subject of its own, from the names as they are now.
        game.subject = notices.first_subject(get_game(checked.kind).TITLE, game.id,
                                             [p["name"] for p in sorted(checked.players, key=lambda p: p["seat"])])
        for e in checked.events:
            s.add(Event(game_id=game.id, seq=e["seq"], actor=e["actor"], seat=e["seat"], kind=e["kind"],
                        text=e["text"], source=e["source"], data=e["data"], created_at=e["time"]))
        s.add(Snapshot(game_id=game.id, seq=last, state=state.to_json(), created_at=now))
        s.flush()
        deadlines.open_clock(s, game, games.load(s, game), now)
        deadlines.start_digest_days(s, game, now)
        try:
            uow.commit()
        except IntegrityError as exc:  # a last guard: the checks above should have caught it
            raise ImportFailed("the import file does not fit the database: "
                               + str(exc.orig).strip().splitlines()[0]) from exc
        return game.id  # type: ignore[return-value]


def _replay(checked: _Checked) -> tuple[Any, dict[int, list[dict[str, Any]]], dict[int, bool]]:
    """The state from the seed and the commands in force, the public engine events of every command of the
    history (undone ones too: their mails told of them), and whether each command is for its player alone (a
    standing order), by event number."""
    in_force = effective_commands(checked.events)
    state = _new_state(checked)
    told: dict[int, list[dict[str, Any]]] = {}
    secret: dict[int, bool] = {}
    for e in checked.events:
        if e["kind"] == "command":
            secret[e["seq"]] = _secret(state, e["seq"], e["seat"], e["data"]["command"])
            told[e["seq"]] = public_events(_applied(state, e["seq"], e["seat"], e["data"]["command"]))
        elif e["kind"] == "undo":
            state = _new_state(checked)
            for seq, seat, command in in_force[e["seq"]]:
                _applied(state, seq, seat, command)
    return state, told, secret


def _secret(state: Any, seq: int, seat: int, command: str) -> bool:
    """Whether ``command`` is for its player's eyes alone, as the game service marks it when it is played."""
    try:
        return bool(getattr(state.parse(seat, command), "secret", False))
    except CommandError as exc:
        raise ImportFailed(f"event {seq}: '{command}' does not replay: {exc.message}") from exc
    except (KeyError, TypeError, ValueError) as exc:
        raise ImportFailed(f"event {seq}: '{command}' does not replay: {exc}") from exc


def _new_state(checked: _Checked) -> Any:
    try:
        return get_game(checked.kind).new_game(players=len(checked.players), seed=checked.seed, **checked.settings)
    except (TypeError, ValueError) as exc:  # an option this game does not have
        raise ImportFailed(f"the import file's settings do not fit {checked.kind}: {exc}") from exc


def _applied(state: Any, seq: int, seat: int, command: str) -> list[dict[str, Any]]:
    """The engine events of ``command`` applied to ``state``, or ImportFailed saying which event does not replay."""
    try:
        return state.apply_command(seat, command)
    except CommandError as exc:
        raise ImportFailed(f"event {seq}: '{command}' does not replay: {exc.message}") from exc
    except (KeyError, TypeError, ValueError) as exc:
        raise ImportFailed(f"event {seq}: '{command}' does not replay: {exc}") from exc
