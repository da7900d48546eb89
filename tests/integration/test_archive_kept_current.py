"""A build after a pass that changed nothing reads one row of the store and one small file, and no change that
the site shows is missed (issue 32, point 11), on SQLite and PostgreSQL.

A build that finds the store's mark (``history.mark``: its newest event and the archive's generation) as it
left it in ``.pbem-archive/mark.json`` returns at once: it neither asks the store for every game nor reads the
state file nor waits for another build's lock (each is made to fail here to prove it). Each change the site must show is then made in turn and
must reach the pages at the next build: a move, a game left out and shown again, a player hidden and shown,
a pause, a resume and an abort, a seat given to another player, talk; an event nobody outside one player may
read is not shown but moves the mark. On PostgreSQL an event written by a transaction that took its number
before another one's but committed after the build that saw the other is still found.
"""

from __future__ import annotations

import re
from collections.abc import Iterator
from datetime import UTC, datetime
from pathlib import Path

import pytest
import sqlalchemy as sa

from pbem.archive import history, site
from pbem.archive.site import BuildReport, build
from pbem.services.table.service import GameService
from pbem.services.table.table_talk import TableTalk
from pbem.store.db import make_engine
from pbem.store.models import Event
from pbem_testing.archive_games import Setup, play

ANN, BOB, CY, DEE = (("Annabel", "ann@example.org"), ("Bartholomew", "bob@example.org"), ("Cyrus", "cy@example.org"),
                     ("Delphine", "dee@example.org"))


@pytest.fixture
def games(database_url: str) -> Iterator[GameService]:
    engine = make_engine(database_url)
    yield GameService(engine, clock=lambda: datetime(2026, 6, 1, tzinfo=UTC))
    engine.dispose()


def idle_build(engine: sa.Engine, folder: Path, monkeypatch: pytest.MonkeyPatch) -> BuildReport:
    """A build that must find nothing changed without asking for the games or reading the state file."""
    def refused(*args: object, **kwargs: object) -> None:
        raise AssertionError("a build with nothing changed read more than the mark")

    with monkeypatch.context() as patched:
        patched.setattr(history, "archived_games", refused)
        patched.setattr(history, "summaries", refused)
        patched.setattr(site.BuiltSite, "read", refused)
        patched.setattr(site, "_only_builder", refused)  # nor waits for a build of the moderator's
        report = build(engine, folder)
    assert (report.games, report.pages, report.steps, report.removed) == (0, 0, 0, 0), report
    return report


def steps_on(folder: Path, game_id: int) -> int:
    return len(re.findall(r'class="step"', (folder / "games" / f"{game_id}.html").read_text()))


def test_nothing_changed_costs_one_query_and_every_change_shows(games: GameService, tmp_path: Path,
                                                                monkeypatch: pytest.MonkeyPatch) -> None:
    engine = games.engine
    first, rest = play(games, Setup("fifth-avenue", (ANN, BOB), seed=2, commands=4))
    second, _ = play(games, Setup("manhattan", (CY, DEE), seed=3, commands=2))
    folder = tmp_path / "site"
    assert build(engine, folder).games == 2
    assert (folder / ".pbem-archive" / "mark.json").is_file()
    idle_build(engine, folder, monkeypatch)
    index = folder / "index.html"

    shown = steps_on(folder, first)
    games.submit(first, (ANN, BOB)[rest[0][0]][1], rest[0][1])  # a move
    assert build(engine, folder).steps == 1 and steps_on(folder, first) == shown + 1
    idle_build(engine, folder, monkeypatch)

    TableTalk(games).say(first, ANN[1], "well played")  # talk
    build(engine, folder)
    assert "well played" in (folder / "games" / f"{first}.html").read_text()
    idle_build(engine, folder, monkeypatch)

    TableTalk(games).tell(first, "only for you", BOB[1])  # an event nobody else may read
    build(engine, folder)
    assert "only for you" not in (folder / "games" / f"{first}.html").read_text()
    idle_build(engine, folder, monkeypatch)  # the mark moved on with it

    history.set_archived(engine, second, False)  # a game left out, then shown again
    build(engine, folder)
    assert not (folder / "games" / f"{second}.html").exists() and CY[0] not in index.read_text()
    idle_build(engine, folder, monkeypatch)
    history.set_archived(engine, second, True)
    build(engine, folder)
    assert (folder / "games" / f"{second}.html").exists() and CY[0] in index.read_text()
    idle_build(engine, folder, monkeypatch)

    history.hide_player(engine, DEE[1])  # a player hidden, then shown again
    build(engine, folder)
    assert DEE[0] not in index.read_text()
    idle_build(engine, folder, monkeypatch)
    history.hide_player(engine, DEE[1], hidden=False)
    build(engine, folder)
    assert DEE[0] in index.read_text()
    idle_build(engine, folder, monkeypatch)

    for action, status in (("pause", "paused"), ("resume", "active"), ("abort", "aborted")):
        games.set_status(second, action)
        build(engine, folder)
        assert re.search(rf'data-kind="manhattan" data-status="{status}"', index.read_text()), action
        idle_build(engine, folder, monkeypatch)

    games.replace_player(first, BOB[1], "eve@example.org", "Evangeline")  # a seat given to another player
    build(engine, folder)
    assert "Evangeline" in (folder / "games" / f"{first}.html").read_text() and "Evangeline" in index.read_text()
    idle_build(engine, folder, monkeypatch)

    (folder / ".pbem-archive" / "mark.json").write_text("{")  # a damaged mark: the state decides, as before
    assert build(engine, folder).pages == 0
    idle_build(engine, folder, monkeypatch)


def test_an_event_committed_after_a_later_one_is_not_missed(postgresql_url: str, tmp_path: Path,
                                                            monkeypatch: pytest.MonkeyPatch) -> None:
    """PostgreSQL hands out event numbers as events are written, not as they are committed."""
    engine = make_engine(postgresql_url)
    games = GameService(engine)
    first, _ = play(games, Setup("fifth-avenue", (ANN, BOB), seed=2, commands=2))
    second, _ = play(games, Setup("manhattan", (CY, DEE), seed=3, commands=2))
    folder = tmp_path / "site"
    build(engine, folder)
    with engine.connect() as slow:
        transaction = slow.begin()
        seq = slow.execute(sa.select(sa.func.max(Event.seq)).where(Event.game_id == first)).scalar_one() + 1
        slow.execute(sa.insert(Event.__table__).values(
            game_id=first, seq=seq, actor=ANN[1], seat=0, kind="say", text="said before, committed after",
            source="test", data={}, created_at=datetime(2026, 6, 2, tzinfo=UTC)))  # takes its number now
        TableTalk(games).say(second, CY[1], "said after, committed before")  # a higher number, committed first
        build(engine, folder)
        assert "said after" in (folder / "games" / f"{second}.html").read_text()
        build(engine, folder)
        transaction.commit()
    report = build(engine, folder)
    assert report.games == 1 and "said before" in (folder / "games" / f"{first}.html").read_text(), report
    idle_build(engine, folder, monkeypatch)
    engine.dispose()
