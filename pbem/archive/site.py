"""The archive's web site: static pages written from the archive's records, and kept current.

``build(engine, folder)`` writes (or brings up to date) this site in ``folder``::

    index.html                  every archived game: filters by player and kind, sortable columns
    games/<id>.html             a game: players, settings, result, score chart, talk, and every event, step by step
    players/<key>.html          a player: games played and won, average score, rating and its history
    style.css                   the mails' style sheet (the boards use its classes), then the site's own rules
    archive.js                  the step-through of a game page, the index's filters and sorting
    .pbem-archive/state.json    what the pages were built from: per game its last event, status and names
    .pbem-archive/mark.json     the store's mark the pages are current with (``history.mark``): small, so that
                                a build after a pass that changed nothing reads it and one row of the store
    .pbem-archive/steps/<id>.json.gz   the steps of a game drawn so far, as HTML (gzip)

The pages are plain HTML and CSS that open from the file system as well as from any web server: every link is
relative, nothing is fetched from elsewhere, and without JavaScript a game page lists its steps one after
another and the index shows every row. Every file is written whole to a temporary file beside it and then
renamed over the old one, so a web server never serves half a page.

A game's events are append-only (an undo is an event of its own), so a step once drawn never changes: the steps
are kept in ``.pbem-archive/steps`` and only the events after the last one drawn are asked of ``history``. A
game's page is rewritten when its last event changed, the index when any game changed, the player pages when
a game was added, removed or changed status or names. All steps of a game are drawn again when it finishes
(its hands may be shown then) and when the shown name of anybody who sat at its table changes (the steps'
words hold them); all steps of all games when the site's templates or pbem's version changed since they were
drawn (``_fingerprint``), or with ``full``.

Every change the site shows is a new event or a switch of the moderator (``history.mark``): a build that finds
the mark it left in ``mark.json`` reads nothing else, whatever the number of games.

Why one module of some 640 lines: the pages, the files beside them and the bookkeeping that lets a build write
only what changed are one job; what the pages show comes from ``history`` and ``records``, their look from
``templates/archive/``.
"""

from __future__ import annotations

import gzip
import hashlib
import json
import math
import os
import threading
import time
from collections.abc import Callable, Iterator, Sequence
from contextlib import contextmanager
from dataclasses import asdict, dataclass, field
from datetime import datetime
from functools import lru_cache
from pathlib import Path
from typing import TYPE_CHECKING, Any

import jinja2
from markupsafe import Markup

from .. import __version__
from ..render.html import SWATCH_CSS
from ..resources import shipped_folder
from ..words import listing, plural
from .records import GameRecord, GameSummary, PlayerRecord, Rating, Step, summary_from_dict, summary_to_dict

if TYPE_CHECKING:
    from sqlalchemy import Engine

    from .history import Mark

TEMPLATES = "archive"
STATE_FOLDER = ".pbem-archive"
STATE_FORMAT = 3  # a state file of another format is not read: the site is built anew (3: keyed player keys)
STATIC_FILES = ("archive.js",)  # copied as they are; style.css is made from two sheets (``site_css``)
# The series of the score chart: a colour and a dash pattern each, so lines that cross stay apart in grey too.
SERIES_STYLES = (("#1f77b4", ""), ("#d62728", "6 3"), ("#2ca02c", "2 3"), ("#9467bd", "8 3 2 3"),
                 ("#ff7f0e", "4 4"))

Progress = Callable[[int, int], None]  # (games drawn so far, games to draw)


@dataclass
class BuildReport:
    """What one ``build`` did."""

    folder: str
    games: int = 0  # game pages written
    pages: int = 0  # HTML pages written: game pages, the index and player pages
    steps: int = 0  # steps drawn (a step kept from an earlier build is not drawn again)
    removed: int = 0  # pages removed (of games no longer archived, players no longer in any game)
    full: bool = False  # every page and step was made anew
    seconds: float = 0.0

    def to_dict(self) -> dict[str, Any]:
        return asdict(self)


# =========================================================================== what the last build left


@dataclass
class BuiltGame:
    """A game as its page was last written."""

    last_seq: int
    status: str
    names: list[str]
    keys: list[str]
    with_hands: bool  # its steps were drawn with the hands (a finished game)
    people: list[str] = field(default_factory=list)  # the keys of everybody who sat at the table

    @classmethod
    def of(cls, summary: GameSummary, people: Sequence[str] = ()) -> BuiltGame:
        return cls(summary.last_seq, summary.status, [p.shown() for p in summary.players],
                   [p.key for p in summary.players], summary.finished, list(people))

    def same_people(self, summary: GameSummary) -> bool:
        # shown(): who held each seat, so a seat a robot took over for a late player is a change too
        return (self.names, self.keys) == ([p.shown() for p in summary.players], [p.key for p in summary.players])


@dataclass
class BuiltSite:
    fingerprint: str
    games: dict[int, BuiltGame] = field(default_factory=dict)
    # Every game's line of the index as last written, and the players hidden then: a build after a pass that
    # changed one game reads that game alone from the store, and a build after a pass that changed none, nothing.
    summaries: dict[int, GameSummary] = field(default_factory=dict)
    hidden: list[str] = field(default_factory=list)

    def to_json(self) -> str:
        return json.dumps({"format": STATE_FORMAT, "fingerprint": self.fingerprint,
                           "games": {str(game_id): asdict(game) for game_id, game in sorted(self.games.items())},
                           "summaries": {str(game_id): summary_to_dict(summary)
                                         for game_id, summary in sorted(self.summaries.items())},
                           "hidden": self.hidden},
                          indent=1)

    def current(self, last_seqs: dict[int, int], hidden: list[str]) -> bool:
        """Whether the pages show every game at ``last_seqs`` (``history.archived_games``) and hide ``hidden``."""
        return (hidden == self.hidden and set(last_seqs) == set(self.summaries) == set(self.games)
                and all(self.games[game_id].last_seq == seq for game_id, seq in last_seqs.items()))

    @classmethod
    def read(cls, path: Path) -> BuiltSite | None:
        """The state file, or None when there is none or it cannot be read (then everything is built anew)."""
        try:
            doc = json.loads(path.read_text(encoding="utf-8"))
            if doc.get("format") != STATE_FORMAT:
                return None
            return cls(doc["fingerprint"], {int(key): BuiltGame(**value) for key, value in doc["games"].items()},
                       {int(key): summary_from_dict(value) for key, value in doc["summaries"].items()},
                       list(doc["hidden"]))
        except (OSError, EOFError, ValueError, KeyError, TypeError):
            return None


@dataclass
class DrawnStep:
    """A step as kept between builds: its HTML, and what the game page needs besides (the chart's scores)."""

    number: int
    seq: int
    scores: list[int]
    html: str


# =========================================================================== files


def write_atomically(path: Path, text: str | bytes) -> None:
    """Write ``text`` to ``path`` through a temporary file in the same folder renamed over it: a reader sees
    the old file or the new one, never a part of either. The file gets the usual permissions (0666 less the
    umask), so a web server running as another user may read it."""
    path.parent.mkdir(parents=True, exist_ok=True)
    temporary = path.with_name(f".{path.name}.{os.getpid()}.{threading.get_ident()}.tmp")
    try:
        if isinstance(text, bytes):
            temporary.write_bytes(text)
        else:
            with open(temporary, "w", encoding="utf-8", newline="\n") as file:
                file.write(text)
        os.replace(temporary, path)
    except BaseException:
        temporary.unlink(missing_ok=True)
        raise


def write_if_changed(path: Path, text: str, *, force: bool = False) -> bool:
    """Write ``path`` unless it already holds ``text`` (``force``: anyway); whether it was written."""
    try:
        if not force and path.read_text(encoding="utf-8") == text:
            return False
    except (OSError, UnicodeDecodeError):
        pass
    write_atomically(path, text)
    return True


@contextmanager
def _only_builder(folder: Path) -> Iterator[None]:
    """One build of a folder at a time (the worker's and a moderator's may meet): an exclusive lock on a file
    in the state folder, where the system has them."""
    lock_path = folder / STATE_FOLDER / "lock"
    lock_path.parent.mkdir(parents=True, exist_ok=True)
    try:
        import fcntl
    except ImportError:  # not on a POSIX system: builds are not serialised
        yield
        return
    with open(lock_path, "a") as lock:
        fcntl.flock(lock, fcntl.LOCK_EX)
        try:
            yield
        finally:
            fcntl.flock(lock, fcntl.LOCK_UN)


class SiteFolder:
    """Where each file of the site is."""

    def __init__(self, root: Path) -> None:
        self.root = root
        self.state = root / STATE_FOLDER / "state.json"
        self.mark = root / STATE_FOLDER / "mark.json"
        self.steps_folder = root / STATE_FOLDER / "steps"

    def read_mark(self) -> Mark | None:
        """The store's mark the pages were last made current with, by this version of pbem and its templates."""
        from .history import Mark

        try:
            doc = json.loads(self.mark.read_text(encoding="utf-8"))
            if doc.get("format") != STATE_FORMAT or doc.get("fingerprint") != _fingerprint():
                return None
            return Mark.from_dict(doc["mark"])
        except (OSError, ValueError, KeyError, TypeError):
            return None

    def current(self, engine: Engine) -> bool:
        """Whether the pages show the store as it is now, as far as the mark they were made with can tell."""
        from .history import mark

        known = self.read_mark()
        return (known is not None and mark(engine, known)[1] and self.state.is_file()
                and (self.root / "index.html").is_file())

    def write_mark(self, mark: Mark) -> None:
        write_atomically(self.mark, json.dumps({"format": STATE_FORMAT, "fingerprint": _fingerprint(),
                                                "mark": mark.to_dict()}))

    def game_page(self, game_id: int) -> Path:
        return self.root / "games" / f"{game_id}.html"

    def player_page(self, key: str) -> Path:
        return self.root / "players" / f"{key}.html"

    def steps_file(self, game_id: int) -> Path:
        return self.steps_folder / f"{game_id}.json.gz"

    def read_steps(self, game_id: int) -> list[DrawnStep] | None:
        try:
            doc = json.loads(gzip.decompress(self.steps_file(game_id).read_bytes()))
            return [DrawnStep(**step) for step in doc["steps"]]
        except (OSError, EOFError, ValueError, KeyError, TypeError):
            return None

    def write_steps(self, game_id: int, steps: list[DrawnStep]) -> None:
        # Compressed: a game's steps are a board each, one much like the next (a tenth of the size, for 3 ms)
        write_atomically(self.steps_file(game_id),
                         gzip.compress(json.dumps({"steps": [asdict(s) for s in steps]}).encode(), compresslevel=5))

    def remove_games_but(self, kept: set[int]) -> int:
        """Remove the pages and steps of every game not in ``kept`` (left out of the archive since, or made by
        a build whose state is lost); how many pages were removed."""
        pages = [p for p in (self.root / "games").glob("*.html") if not (p.stem.isdigit() and int(p.stem) in kept)]
        steps = [p for p in self.steps_folder.glob("*.json.gz")
                 if not (p.name.split(".")[0].isdigit() and int(p.name.split(".")[0]) in kept)]
        for path in pages + steps:
            path.unlink(missing_ok=True)
        return len(pages)


# =========================================================================== templates


def _day(moment: datetime | None) -> str:
    return moment.strftime("%Y-%m-%d") if moment else ""


def _moment(moment: datetime | None) -> str:
    if moment is None:
        return ""
    zone = moment.strftime("%Z") if moment.tzinfo else ""
    return moment.strftime("%Y-%m-%d %H:%M") + (f" {zone}" if zone else "")


def _number(value: float | None, digits: int = 1) -> str:
    return "" if value is None else f"{value:.{digits}f}"


def _score(value: int | None) -> str:
    return "-" if value is None else str(value)


@lru_cache(maxsize=1)
def environment() -> jinja2.Environment:
    """The site's templates (templates/archive/), escaping HTML, as the mails' HTML boards are made
    (``render.html.html_environment``)."""
    env = jinja2.Environment(
        loader=jinja2.FileSystemLoader(shipped_folder("templates")),
        autoescape=True,
        trim_blocks=True,
        lstrip_blocks=True,
        undefined=jinja2.StrictUndefined,
    )
    env.filters.update(day=_day, moment=_moment, number=_number, score=_score)
    return env


def _template_folder() -> Path:
    return shipped_folder("templates") / TEMPLATES


@lru_cache(maxsize=1)
def _fingerprint() -> str:
    """The version of pbem and of the site's templates: kept steps drawn by others are drawn anew."""
    digest = hashlib.sha256(__version__.encode())
    for path in sorted(_template_folder().iterdir()):
        if path.is_file() and path.suffix != ".py":
            digest.update(path.name.encode() + b"\0" + path.read_bytes())
    return digest.hexdigest()[:16]


def site_css() -> str:
    """The site's style sheet: the mails' (read now, as it ships: the boards use its classes) with the
    swatches' colours, then the site's own rules, which come later and so win over the mails' page-wide ones."""
    mail = (shipped_folder("templates") / "mail" / "style.css").read_text(encoding="utf-8")
    own = (_template_folder() / "style.css").read_text(encoding="utf-8")
    return (f"/* from the mails: templates/mail/style.css */\n{mail}\n/* the swatches' colours */\n{SWATCH_CSS}\n"
            f"/* the archive: templates/archive/style.css */\n{own}")


def render(template: str, **context: Any) -> str:
    return environment().get_template(f"{TEMPLATES}/{template}").render(**context)


# =========================================================================== the score chart


@dataclass(frozen=True)
class Series:
    name: str
    color: str
    dashes: str
    points: str  # the polyline's "x,y x,y ..."
    final: int


@dataclass(frozen=True)
class Tick:
    value: int
    at: float


@dataclass(frozen=True)
class Chart:
    """A line chart drawn at build time (``line_chart`` in ``templates/archive/_macros.html.j2``), its coordinates
    already in its viewBox."""

    title: str
    description: str
    width: int
    height: int
    left: int
    right: int
    top: int
    bottom: int
    series: tuple[Series, ...]
    x_ticks: tuple[Tick, ...]
    y_ticks: tuple[Tick, ...]
    x_label: str
    y_label: str
    note: str = ""  # what the lines mean, under the chart


def nice_ticks(high: float, low: float = 0, count: int = 5) -> list[float]:
    """About ``count`` round whole values from ``low`` to at least ``high`` (steps of 1, 2 or 5 times a power of
    10)."""
    span = max(high - low, 1)
    raw = max(span / count, 1)  # whole numbers on both axes: steps and scores
    power = 10 ** math.floor(math.log10(raw))
    step = next(m * power for m in (1, 2, 5, 10) if m * power >= raw)
    first = math.floor(low / step) * step
    ticks = [first]
    while ticks[-1] < high or len(ticks) < 2:
        ticks.append(ticks[-1] + step)
    return ticks


def line_chart(title: str, description: str, names: Sequence[str], xs: Sequence[int],
               values: Sequence[Sequence[float]], *, x_label: str, y_label: str, width: int = 480,
               height: int = 220, whole: bool = True, held: bool = False, note: str = "") -> Chart:
    """One polyline per name through the points (xs[i], values[i][name's index]). ``held``: a value holds until
    the next point, where the line goes straight up or down (a staircase), for values that change at once."""
    left, right, top, bottom = 46, width - 14, 12, height - 38
    low = min((v for row in values for v in row), default=0)
    high = max((v for row in values for v in row), default=1)
    y_values = nice_ticks(high, min(low, 0) if whole else low)
    y_low, y_high = y_values[0], y_values[-1]
    x_low, x_high = (xs[0], xs[-1]) if xs else (0, 1)
    x_span = max(x_high - x_low, 1)
    y_span = max(y_high - y_low, 1e-9)

    def x_at(x: float) -> float:
        return round(left + (x - x_low) / x_span * (right - left), 1)

    def y_at(y: float) -> float:
        return round(bottom - (y - y_low) / y_span * (bottom - top), 1)

    def points(index: int) -> str:
        corners: list[tuple[float, float]] = []
        for x, row in zip(xs, values):
            if held and corners:
                corners.append((x, corners[-1][1]))  # the value before, up to the point that changed it
            if (x, row[index]) not in corners[-1:]:
                corners.append((x, row[index]))
        return " ".join(f"{x_at(x)},{y_at(y)}" for x, y in corners)

    series = tuple(
        Series(name, *SERIES_STYLES[index % len(SERIES_STYLES)], points(index), int(values[-1][index]) if values else 0)
        for index, name in enumerate(names))
    x_ticks = tuple(Tick(int(x), x_at(x)) for x in nice_ticks(x_high, x_low, 6) if x <= x_high)
    return Chart(title, description, width, height, left, right, top, bottom, series, x_ticks,
                 tuple(Tick(int(y), y_at(y)) for y in y_values), x_label, y_label, note)


def score_chart(summary: GameSummary, steps: Sequence[DrawnStep]) -> Chart | None:
    """The scores over the game: a point at the first step, at every step that changed a score, and at the last.

    Scores change at once, at one step (a Manhattan round's count of majorities and towers, a Fifth Avenue
    scoring): a line between two counts would show points gained on the way that nobody had, so each line
    stays flat until the step that changed it and goes straight up there."""
    if not steps:
        return None
    scoring = [i for i in range(1, len(steps)) if steps[i].scores != steps[i - 1].scores]
    points = [s for i, s in enumerate(steps) if i in scoring or i in (0, len(steps) - 1)]
    names = [p.name for p in summary.players]
    finals = ", ".join(f"{name} {score}" for name, score in zip(names, steps[-1].scores))
    at_steps = listing(str(steps[i].number) for i in scoring)
    now = "final" if summary.finished else "current"
    if summary.kind == "manhattan":
        changed = (f"the counts changed them at {'step' if len(scoring) == 1 else 'steps'} {at_steps}" if scoring
                   else "no count has changed them yet")
        description = f"Manhattan counts the scores at the end of each round: {changed}; {now} scores: {finals}."
        x_label = "step (scores counted at the end of each round)"
    else:
        description = (f"{plural(len(scoring), 'step')} of {steps[-1].number} changed a score"
                       f"{': ' + at_steps if scoring else ''}; {now} scores: {finals}.")
        x_label = "step"
    note = ("Each line is a player's score after every step: flat while it stays, straight up or down at the "
            "step that changed it.")
    if summary.kind == "manhattan" and scoring:
        note = ("Each line is a player's total after each round's count (majorities, tallest tower, towers): "
                "flat between counts, straight up at the step of the count that changed it.")
    return line_chart(f"Scores over game {summary.id}", description, names, [s.number for s in points],
                      [s.scores for s in points], x_label=x_label, y_label="score", held=True, note=note)


def rating_chart(record: PlayerRecord) -> Chart | None:
    if len(record.ratings) < 2:
        return None
    ordinals = [[round(r.ordinal, 1)] for r in record.ratings]
    return line_chart(f"Rating of {record.name}", f"{len(record.ratings)} rated games; the rating now is "
                      f"{ordinals[-1][0]:.1f}.", [record.name], list(range(1, len(record.ratings) + 1)),
                      ordinals, x_label="rated game", y_label="rating", height=180, whole=False)


# =========================================================================== pages


def draw_step(step: Step, summary: GameSummary) -> DrawnStep:
    """A step as HTML, once for all the builds to come."""
    hands = step.hands if summary.finished else None  # a running game's hands are never shown
    html = render("_step.html.j2", step=step, names=[p.name for p in summary.players], hands=hands,
                  board=Markup(step.board_html))
    return DrawnStep(step.number, step.seq, list(step.scores), html)


def game_page(record: GameRecord, steps: Sequence[DrawnStep]) -> str:
    return render("game.html.j2", root="../", summary=record.summary, record=record,
                  chart=score_chart(record.summary, steps), steps=Markup("".join(s.html for s in steps)),
                  step_count=len(steps), last_step=steps[-1].number if steps else 0)


def index_page(summaries: Sequence[GameSummary]) -> str:
    games = sorted(summaries, key=lambda s: s.id, reverse=True)
    players = sorted({(h.name, h.key) for s in games for p in s.players for h in p.holdings()},
                     key=lambda p: (p[0].lower(), p[1]))
    kinds = sorted({(s.kind, s.title) for s in games})
    return render("index.html.j2", root="", games=games, players=players, kinds=kinds)


def player_page(record: PlayerRecord) -> str:
    current: Rating | None = record.ratings[-1] if record.ratings else None
    return render("player.html.j2", root="../", player=record, rating=current, chart=rating_chart(record))


# =========================================================================== the build


def build(engine: Engine, folder: str | os.PathLike[str], *, full: bool = False,
          progress: Progress | None = None) -> BuildReport:
    """Write the site into ``folder`` (made if missing), or bring it up to date (see the module doc).

    ``full`` draws every step and writes every page anew. ``progress(done, total)`` is called as the games to
    draw are done. The CLI (``pbem archive build``) and the mail worker (after a pass that changed games) both
    call it; two builds of one folder wait for each other.
    """
    from . import history, ratings

    started = time.monotonic()
    site = SiteFolder(Path(folder))
    report = BuildReport(folder=str(site.root))
    # What the worker finds after most passes: one small file and one query. Not behind the lock, so a long
    # build of the moderator's keeps no pass waiting: a build removes the mark before it writes a page and
    # writes it again last, so a mark read here is one the pages show.
    if not full and site.current(engine):
        report.seconds = round(time.monotonic() - started, 3)
        return report
    site.root.mkdir(parents=True, exist_ok=True)
    with _only_builder(site.root):
        # The mark is read before anything else: whatever changes after it, the pages show at least as much.
        mark, same = history.mark(engine, None if full else site.read_mark())
        if same and site.state.is_file() and (site.root / "index.html").is_file():
            report.seconds = round(time.monotonic() - started, 3)
            return report  # another build brought the site up to date meanwhile
        site.mark.unlink(missing_ok=True)  # a build that stops half-way leaves no mark to trust
        built = None if full else BuiltSite.read(site.state)
        if built is None or built.fingerprint != _fingerprint():
            built, full = BuiltSite(_fingerprint()), True
        report.full = full
        last_seqs, hidden = history.archived_games(engine), sorted(history.hidden_keys(engine))
        if not full and built.current(last_seqs, hidden) and (site.root / "index.html").exists():
            site.write_mark(mark)  # an event the site does not show (talk to one player, a game left out)
            report.seconds = round(time.monotonic() - started, 3)
            return report
        before = dict(built.games)
        # Players hidden or shown since: the games they sat in are drawn anew (their names are in the steps).
        # A legacy hidden row names nobody by a key of today: every game is read again, as for a new pbem.
        switched = set(hidden) ^ set(built.hidden)
        renamed = {game_id for game_id, game in before.items() if switched & set(game.people)}
        legacy = any(key.startswith("legacy:") for key in switched)
        moved = None if full or legacy else [
            game_id for game_id, seq in last_seqs.items()
            if game_id not in before or before[game_id].last_seq != seq or game_id in renamed]
        summaries = {s.id: s for s in history.summaries(engine, moved)}
        summaries.update({game_id: built.summaries[game_id] for game_id in last_seqs
                          if game_id not in summaries and game_id in built.summaries})
        built.hidden = hidden
        changed = [s for game_id, s in sorted(summaries.items())
                   if game_id in renamed or _page_is_stale(site, before.get(game_id), s)]
        removed = set(before) - set(summaries)
        for done, summary in enumerate(changed, start=1):
            drawn, shown, people = _update_game(engine, site, before.get(summary.id), summary, history.record,
                                                redraw=summary.id in renamed)
            built.games[summary.id] = BuiltGame.of(shown, people)
            summaries[summary.id] = shown  # the index and the player pages show the game as its page does
            report.steps += drawn
            report.games += 1
            report.pages += 1
            if progress is not None:
                progress(done, len(changed))
        for game_id in removed:
            del built.games[game_id]
        built.summaries = dict(sorted(summaries.items()))
        report.removed += site.remove_games_but(set(summaries))
        for name in STATIC_FILES:
            write_if_changed(site.root / name, (_template_folder() / name).read_text(encoding="utf-8"), force=full)
        write_if_changed(site.root / "style.css", site_css(), force=full)
        index = site.root / "index.html"
        if full or changed or removed or not index.exists():
            report.pages += write_if_changed(index, index_page(list(summaries.values())), force=full)
        players_changed = any(_players_see_a_change(before.get(s.id), s) for s in changed)
        if full or removed or players_changed or not (site.root / "players").is_dir():
            written, gone = _write_player_pages(site, ratings.player_records(list(summaries.values())), full)
            report.pages += written
            report.removed += gone
        write_atomically(site.state, built.to_json())
        site.write_mark(mark)
    report.seconds = round(time.monotonic() - started, 3)
    return report


def _page_is_stale(site: SiteFolder, before: BuiltGame | None, summary: GameSummary) -> bool:
    return (before is None or before.last_seq != summary.last_seq or before.status != summary.status
            or not before.same_people(summary) or not site.game_page(summary.id).exists())


def _players_see_a_change(before: BuiltGame | None, summary: GameSummary) -> bool:
    """Whether a player page may show ``summary``'s game otherwise now: a new game, a new status (it ended,
    was aborted, paused), other names. A running game's moves are not on the player pages."""
    return before is None or before.status != summary.status or not before.same_people(summary)


def _update_game(engine: Engine, site: SiteFolder, before: BuiltGame | None, summary: GameSummary,
                 record_of: Callable[..., GameRecord], *,
                 redraw: bool = False) -> tuple[int, GameSummary, tuple[str, ...]]:
    """Draw the game's new steps (all of them when the kept ones will not do, or ``redraw``) and write its page;
    the number of steps drawn, the game as its page shows it (it may have moved on since ``summary`` was read)
    and the keys of everybody who sat at its table."""
    steps: list[DrawnStep] = []
    record = None
    if before is not None and not redraw and _steps_still_hold(before, summary):
        kept = site.read_steps(summary.id)
        if kept is not None:
            record = record_of(engine, summary.id, steps_after=before.last_seq)
            if _steps_still_hold(before, record.summary):
                # Steps a build drew and did not live to record in the state file are drawn again.
                steps = [step for step in kept if step.seq <= before.last_seq]
            else:  # it finished (or was renamed) a moment ago
                record = None
    if record is None:
        record = record_of(engine, summary.id)
    fresh = [draw_step(step, record.summary) for step in record.steps]
    steps += fresh
    site.write_steps(summary.id, steps)
    write_atomically(site.game_page(summary.id), game_page(record, steps))
    return len(fresh), record.summary, record.people


def _steps_still_hold(before: BuiltGame, summary: GameSummary) -> bool:
    """Whether the steps drawn for ``before`` may stay in the page of ``summary``: the same names, and hands
    shown exactly when the game is finished."""
    return before.same_people(summary) and before.with_hands == summary.finished


def _write_player_pages(site: SiteFolder, records: Sequence[PlayerRecord], force: bool) -> tuple[int, int]:
    """Every player's page (written when it changed, or ``force``), and the pages of players no longer in any
    game removed; how many were written and removed."""
    written = sum(write_if_changed(site.player_page(record.key), player_page(record), force=force)
                  for record in records)
    keep = {site.player_page(record.key).name for record in records}
    folder = site.root / "players"
    gone = [page for page in folder.glob("*.html") if page.name not in keep] if folder.is_dir() else []
    for page in gone:
        page.unlink(missing_ok=True)
    return written, len(gone)


__all__ = ["BuildReport", "build", "site_css"]
