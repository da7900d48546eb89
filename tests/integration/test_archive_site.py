"""Issue 18: the game history archive as a static web site (``pbem.archive.site``, ``pbem archive build``).

One SQLite database is played once for the module (``pbem_testing.archive_games``: the by-kind random
player's commands through the game service): a finished Fifth Avenue of two players, a finished Manhattan of
three, a running Fifth Avenue of two (Cy and Dee, who play nowhere else) and a Manhattan the moderator left out
of the archive (with Eve, who plays nowhere else). Each test builds the site from a copy of it.

- Every page is there, every link of every page leads to a file of the site (relative, nothing from
  elsewhere), no address is in any file of the folder, the left-out game and its only player are nowhere, no
  hand of the running game is anywhere (its players' hands at every point of the game, ``hand_text`` of each
  seat's view), the finished games show every hand, the index says whose decision is due, the pages carry the
  score chart.
- Kept current: a build with nothing new writes nothing; one more command in the running game rewrites its
  page and the index and nothing else, drawing one step; its end rewrites its players' pages and draws all its
  steps once more (the hands appear); a game left out loses its page; a hidden player's name goes from every file.
- `pbem archive build --json` and `pbem archive hide-name` through the command line.
"""

from __future__ import annotations

import gzip
import itertools
import json
import re
import shutil
from collections.abc import Callable, Iterator
from datetime import UTC, datetime, timedelta
from html.parser import HTMLParser
from pathlib import Path

import pytest
from typer.testing import CliRunner

from pbem.archive import history
from pbem.archive.site import BuildReport, build
from pbem.cli import app
from pbem.games import get_game
from pbem.services.table.service import GameService
from pbem.store.db import make_engine
from pbem_testing.archive_games import Setup, play, submit_commands

pytestmark = pytest.mark.xdist_group("archive_site")  # its module-scoped fixtures are made once, on one worker

ANN, BOB, CY, DEE, EVE = (("Annabel", "ann@example.org"), ("Bartholomew", "bob@example.org"),
                          ("Cyrus", "cy@example.org"), ("Delphine", "dee@example.org"), ("Evangeline", "eve@example.org"))
START = datetime(2026, 3, 1, 9, 0, tzinfo=UTC)
FINISHED_FIFTH_AVENUE, FINISHED_MANHATTAN, RUNNING, LEFT_OUT = 1, 2, 3, 4
RUNNING_SETUP = Setup("fifth-avenue", (CY, DEE), seed=2, commands=30)
SETUPS = [Setup("fifth-avenue", (ANN, BOB), seed=0), Setup("manhattan", (ANN, BOB, CY), seed=5), RUNNING_SETUP,
          Setup("manhattan", (ANN, EVE), seed=11, commands=8)]


def ticking_clock() -> Callable[[], datetime]:
    """A clock a minute later at every reading: the games start and end at different times."""
    minutes = itertools.count()
    return lambda: START + timedelta(minutes=next(minutes))


class Played:
    def __init__(self, path: Path, rest_of_running: list[tuple[int, str]]) -> None:
        self.path = path
        self.rest_of_running = rest_of_running  # the running game's commands not played yet

    def copy_to(self, folder: Path) -> str:
        target = folder / "games.sqlite3"
        shutil.copy(self.path, target)
        return f"sqlite:///{target}"


@pytest.fixture(scope="module")
def played(sqlite_template: Path, tmp_path_factory: pytest.TempPathFactory) -> Played:
    path = tmp_path_factory.mktemp("archive-site") / "games.sqlite3"
    shutil.copy(sqlite_template, path)
    engine = make_engine(f"sqlite:///{path}")
    service = GameService(engine, clock=ticking_clock())
    rest = {}
    for setup in SETUPS:
        game_id, rest[game_id] = play(service, setup)
    assert not rest[FINISHED_FIFTH_AVENUE] and not rest[FINISHED_MANHATTAN] and rest[RUNNING]
    history.set_archived(engine, LEFT_OUT, False)
    engine.dispose()
    return Played(path, rest[RUNNING])


@pytest.fixture
def engine(played: Played, tmp_path: Path) -> Iterator:
    engine = make_engine(played.copy_to(tmp_path))
    yield engine
    engine.dispose()


# --------------------------------------------------------------------------- reading the site


def site_files(folder: Path) -> dict[str, bytes]:
    """Every file of the site (the build's state too, its kept steps uncompressed), by its path in the folder."""
    return {path.relative_to(folder).as_posix(): gzip.decompress(path.read_bytes()) if path.suffix == ".gz"
            else path.read_bytes() for path in sorted(folder.rglob("*")) if path.is_file()}


def pages(folder: Path) -> dict[str, tuple[bytes, int]]:
    """Every file a web server would serve (not the build's state), with its modification time."""
    return {path.relative_to(folder).as_posix(): (path.read_bytes(), path.stat().st_mtime_ns)
            for path in sorted(folder.rglob("*")) if path.is_file() and ".pbem-archive" not in path.parts}


def changed(before: dict[str, tuple[bytes, int]], after: dict[str, tuple[bytes, int]]) -> set[str]:
    return {name for name in before.keys() | after.keys() if before.get(name) != after.get(name)}


class Links(HTMLParser):
    def __init__(self) -> None:
        super().__init__()
        self.found: list[str] = []

    def handle_starttag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        self.found += [value for name, value in attrs if name in ("href", "src") and value]


def links_of(html: str) -> list[str]:
    parser = Links()
    parser.feed(html)
    return parser.found


def hands_of_the_running_game() -> set[str]:
    """Every hand of every seat of the running game at every point it reached: ``hand_text`` of each view."""
    from pbem_testing.archive_games import random_commands

    module = get_game(RUNNING_SETUP.kind)
    state = module.new_game(players=2, seed=RUNNING_SETUP.seed)
    hands = set()
    for seat, command in [(-1, "")] + random_commands(RUNNING_SETUP.kind, 2, RUNNING_SETUP.seed)[:RUNNING_SETUP.commands]:
        if command:
            state.apply_command(seat, command)
        hands |= {module.hand_text(state.view(viewer)) for viewer in range(2)}
    return hands


def final_hands(game_id: int, setup: Setup) -> list[str]:
    from pbem_testing.archive_games import random_commands

    module = get_game(setup.kind)
    state = module.new_game(players=len(setup.players), seed=setup.seed, **setup.options)
    for seat, command in random_commands(setup.kind, len(setup.players), setup.seed, **setup.options):
        state.apply_command(seat, command)
    return [module.hand_text(state.view(seat)) for seat in range(len(setup.players))]


# --------------------------------------------------------------------------- the site


def test_the_site_has_every_page_and_nothing_it_must_not_show(engine, tmp_path: Path) -> None:
    folder = tmp_path / "site"
    report = build(engine, folder)
    print(f"built in {report.seconds:.2f} s: {report}")
    assert (report.games, report.full) == (3, True)
    files = site_files(folder)
    keys = {name: history.player_key(engine, address) for name, address in (ANN, BOB, CY, DEE, EVE)}
    expected = {"index.html", "style.css", "archive.js", "games/1.html", "games/2.html", "games/3.html",
                *(f"players/{keys[name]}.html" for name, _ in (ANN, BOB, CY, DEE))}
    assert expected <= set(files), sorted(expected - set(files))
    served = {name for name in files if not name.startswith(".pbem-archive/")}
    assert served == expected, sorted(served ^ expected)  # no page of the left-out game, nor of Eve

    for name, data in files.items():
        text = data.decode("utf-8")
        assert "example.org" not in text and "@" not in re.sub(r"@media\b", "", text), f"an address in {name}"
        assert EVE[0] not in text, f"the left-out game's player in {name}"
        if name.endswith(".html"):  # every link leads to a file of the site, relative to the page
            for link in links_of(text):
                target = link.split("#")[0]
                assert not re.match(r"[a-z]+:|/", link), f"{name}: {link} is not relative"
                assert not target or (folder / name).parent.joinpath(target).resolve().is_file(), f"{name}: {link}"

    running = files["games/3.html"].decode()
    index = files["index.html"].decode()
    leaks = [hand for hand in hands_of_the_running_game()
             for name, data in files.items() if not re.match(r"(games|\.pbem-archive/steps)/[12]\.", name)
             and hand in data.decode()]
    assert not leaks, leaks
    assert 'class="hands"' not in running and "Hands" not in running
    summary = {s.id: s for s in history.summaries(engine)}[RUNNING]
    row = re.search(r'<tr data-players="[^"]*" data-kind="fifth-avenue" data-status="active">.*?</tr>', index, re.DOTALL)
    assert row and f"waiting for {summary.to_act[0]}" in row.group(0)
    assert running.count('class="step"') == RUNNING_SETUP.commands + 1  # the start, then every command

    for game_id, setup in ((FINISHED_FIFTH_AVENUE, SETUPS[0]), (FINISHED_MANHATTAN, SETUPS[1])):
        page = files[f"games/{game_id}.html"].decode()
        hands = final_hands(game_id, setup)
        assert all(hand in page for hand in hands), (game_id, hands)
        chart = re.search(r'<svg class="chart-drawing"[^>]*role="img".*?</svg>', page, re.DOTALL)
        assert chart and "<title" in chart.group(0)
        assert chart.group(0).count("<polyline") == len(setup.players)
        assert all(name in page for name, _ in setup.players)
    assert "Rating" in files[f"players/{keys[ANN[0]]}.html"].decode()


def test_a_build_rewrites_only_what_changed(engine, played: Played, tmp_path: Path) -> None:
    folder = tmp_path / "site"
    first = build(engine, folder)
    before = pages(folder)

    again = build(engine, folder)
    assert (again.games, again.pages, again.steps, again.full) == (0, 0, 0, False), again
    assert not changed(before, pages(folder))

    service = GameService(engine, clock=lambda: START + timedelta(days=1))
    seat, command = played.rest_of_running[0]
    submit_commands(service, RUNNING, RUNNING_SETUP.players, [(seat, command)])
    one_more = build(engine, folder)
    assert (one_more.games, one_more.steps) == (1, 1), one_more  # no step drawn again but the new one
    after_one = pages(folder)
    assert changed(before, after_one) == {"games/3.html", "index.html"}
    page = after_one["games/3.html"][0].decode()
    assert page.count('class="step"') == RUNNING_SETUP.commands + 2 and f'id="step-{RUNNING_SETUP.commands + 1}"' in page

    submit_commands(service, RUNNING, RUNNING_SETUP.players, played.rest_of_running[1:])
    ended = build(engine, folder)
    steps = RUNNING_SETUP.commands + len(played.rest_of_running) + 1
    assert (ended.games, ended.steps) == (1, steps), ended  # every step once more: now with the hands
    after_end = pages(folder)
    players = {f"players/{history.player_key(engine, address)}.html" for _, address in RUNNING_SETUP.players}
    assert changed(after_one, after_end) == {"games/3.html", "index.html"} | players
    assert final_hands(RUNNING, Setup(RUNNING_SETUP.kind, RUNNING_SETUP.players, RUNNING_SETUP.seed))[0] in \
        after_end["games/3.html"][0].decode()

    history.set_archived(engine, FINISHED_FIFTH_AVENUE, False)
    history.hide_player(engine, CY[1])
    hidden = build(engine, folder)
    assert not (folder / "games/1.html").exists() and not (folder / ".pbem-archive/steps/1.json.gz").exists()
    assert hidden.games == 2 and hidden.removed >= 1, hidden  # Cyrus's two games, under his new name
    for name, data in site_files(folder).items():
        assert CY[0] not in data.decode(), f"the hidden player's name in {name}"
    assert history.hidden_name(history.player_key(engine, CY[1])) in (folder / "index.html").read_text()
    print(f"first build {first.seconds:.2f} s ({first.steps} steps), one more command {one_more.seconds:.2f} s, "
          f"the end {ended.seconds:.2f} s, a game left out and a name hidden {hidden.seconds:.2f} s")


def test_the_command_line_builds_and_hides(engine, tmp_path: Path) -> None:
    url = str(engine.url)
    folder = tmp_path / "site"
    runner = CliRunner()
    result = runner.invoke(app, ["--db", url, "archive", "build", str(folder), "--json"])
    assert result.exit_code == 0, result.output
    report = json.loads(result.stdout)
    assert set(report) == set(BuildReport(folder="").to_dict())
    assert (report["games"], report["full"], report["folder"]) == (3, True, str(folder))

    result = runner.invoke(app, ["--db", url, "archive", "hide-name", DEE[1]])
    assert result.exit_code == 0 and history.hidden_name(history.player_key(engine, DEE[1])) in result.stdout, result.output
    report = json.loads(runner.invoke(app, ["--db", url, "archive", "build", str(folder), "--json"]).stdout)
    assert (report["games"], report["full"]) == (1, False)
    assert DEE[0] not in (folder / "index.html").read_text()
    assert runner.invoke(app, ["--db", url, "archive", "show-name", DEE[1]]).exit_code == 0
    result = runner.invoke(app, ["--db", url, "archive", "build", str(folder)])
    assert result.exit_code == 0 and "1 game page written" in result.stdout, result.output
    assert DEE[0] in (folder / "index.html").read_text()

    result = runner.invoke(app, ["--db", url, "archive", "build", str(folder / "index.html")])
    assert result.exit_code == 1 and "is not a folder" in result.output
