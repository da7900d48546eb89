"""Hidden stays hidden in the archive (issue 32).

- A player's key on the site is an HMAC of their address with a secret made once per installation: an address
  someone knows does not lead to the key without the database (not the old formula, not a plain hash, not an
  HMAC without a key), two installations give one address different keys, and the secret is in no file of
  the site's folder.
- `hide-name` hides the name and its first word in any case, as whole words, in every file of the site: the
  player lists, the talk of the other players, the moderator's reasons and messages. A player replaced out of
  a game and hidden afterwards disappears from that game's page at the next build.
- A site built with the old keys loses its old player pages at the next build, and its links lead to the new.
- Migration 0013 carries the players hidden under the old keys over, on SQLite and PostgreSQL: those in games
  (also one replaced since) by the seats' addresses, and one in no game yet by a legacy row that the old
  formula matches once they play; showing that player by name again removes it.
"""

from __future__ import annotations

import gzip
import hashlib
import hmac
import os
import re
import unicodedata
from collections.abc import Iterator
from datetime import UTC, datetime
from pathlib import Path

import pytest
import sqlalchemy as sa
from alembic import command

from pbem.archive import history
from pbem.archive.site import build
from pbem.services.table.service import GameService
from pbem.services.table.table_talk import TableTalk
from pbem.store.db import alembic_config, make_engine, upgrade
from pbem_testing.archive_games import Setup, play

ZOE, BOB, MARTIN = ("Zoë Lefèvre", "zoe@example.org"), ("Bob", "bob@example.org"), ("Zoë Martin", "martin@example.org")
CY, DEE = ("Cyrus Smith", "cy@example.org"), ("Delphine", "dee@example.org")
OLD_SALT = "pbem-archive:"


def texts_of(folder: Path) -> dict[str, str]:
    """Every file of the site's folder as text (the build's own files too, its kept steps uncompressed)."""
    return {path.relative_to(folder).as_posix(): (gzip.decompress(path.read_bytes()) if path.suffix == ".gz"
                                                  else path.read_bytes()).decode("utf-8")
            for path in sorted(folder.rglob("*")) if path.is_file()}


def whole_words(word: str, text: str) -> list[str]:
    text = unicodedata.normalize("NFC", text)
    return re.findall(rf"(?<!\w){re.escape(word)}(?!\w)", text, re.IGNORECASE)


def old_key(email: str) -> str:
    return hashlib.sha256((OLD_SALT + email).encode()).hexdigest()[:12]


# --------------------------------------------------------------------------- keys


def test_a_known_address_does_not_lead_to_its_key(tmp_path: Path) -> None:
    keys = []
    for installation in ("one", "two"):
        engine = make_engine(f"sqlite:///{tmp_path / installation / 'pbem.sqlite3'}")
        upgrade(engine)  # each installation makes its own secret
        GameService(engine).create_game("fifth-avenue", [ZOE, BOB], seed=1)
        folder = tmp_path / installation / "site"
        build(engine, folder)
        key = history.player_key(engine, ZOE[1])
        index = (folder / "index.html").read_text()
        assert (folder / "players" / f"{key}.html").is_file() and f'value="{key}"' in index
        secret = history.archive_secret(engine)
        files = texts_of(folder)
        assert not [name for name, text in files.items() if secret.hex() in text.lower()]
        assert not [path for path in folder.rglob("*") if path.is_file() and secret in path.read_bytes()]
        address = ZOE[1].encode()
        guesses = {old_key(ZOE[1]), hashlib.sha256(address).hexdigest()[:12],
                   hmac.new(b"", address, hashlib.sha256).hexdigest()[:12],
                   hmac.new(OLD_SALT.encode(), address, hashlib.sha256).hexdigest()[:12]}
        assert key not in guesses
        assert not any(guess in text for guess in guesses for text in files.values())
        keys.append(key)
        engine.dispose()
    assert keys[0] != keys[1]


# --------------------------------------------------------------------------- hiding


@pytest.fixture
def talked(sqlite_url: str) -> Iterator[tuple[GameService, int, int]]:
    """A running Fifth Avenue of Zoë Lefèvre, Bob and Zoë Martin in which everybody talks of Zoë, with an undo,
    a pause and a replacement whose reasons name her; and a game of Cyrus and Delphine, Cyrus replaced."""
    engine = make_engine(sqlite_url)
    games = GameService(engine, clock=lambda: datetime(2026, 5, 1, tzinfo=UTC))
    talk = TableTalk(games)
    game, _ = play(games, Setup("fifth-avenue", (ZOE, BOB, MARTIN), seed=3, commands=8))
    talk.say(game, BOB[1], "zoë, nice move! ZOË LEFÈVRE leads, zoe@example.org. My zoëtrope spins.")
    talk.say(game, MARTIN[1], "I am Zoë Martin, not the other Zoë")
    talk.tell(game, "Congratulations ZOË")
    games.undo(game, steps=1, reason="Zoë asked for it")
    games.set_status(game, "pause", reason="zoë is away")
    games.set_status(game, "resume")
    other, _ = play(games, Setup("manhattan", (CY, DEE), seed=4, commands=3))
    games.replace_player(other, CY[1], "eve@example.org", "Evelyn", reason="Cyrus (Cy) moved away")
    yield games, game, other
    engine.dispose()


def assert_nobody_hidden_is_named(folder: Path, game: int, other: int, zoe: str) -> None:
    """No file of the site names Zoë Lefèvre or Cyrus (``zoe``: the name shown for her)."""
    files = texts_of(folder)
    for name, text in files.items():
        rest = re.sub("zoë martin", "", unicodedata.normalize("NFC", text), flags=re.IGNORECASE)
        assert not whole_words("Zoë", rest) and not whole_words("Lefèvre", rest), name
        assert not whole_words("Cyrus", text) and "@" not in re.sub(r"@media\b", "", text), name
    page = files[f"games/{game}.html"]
    assert "zoëtrope" in page and "Zoë Martin" in page  # other words and the other Zoë stay
    assert f"{zoe}, nice move! {zoe} leads, {zoe}." in page
    assert f"not the other {zoe}" in page and f"Congratulations {zoe}" in page
    assert f"The moderator says: {zoe} asked for it" in page and f"The moderator says: {zoe} is away" in page
    assert "instead of Player " in files[f"games/{other}.html"]


def test_a_hidden_players_name_and_first_name_are_nowhere(talked, tmp_path: Path) -> None:
    games, game, other = talked
    folder = tmp_path / "site"
    build(games.engine, folder)
    assert whole_words("zoë", (folder / f"games/{game}.html").read_text())  # shown by name before
    assert "Cyrus" in (folder / f"games/{other}.html").read_text()
    history.hide_player(games.engine, ZOE[1])
    history.hide_player(games.engine, CY[1])  # no longer at the table: only the game's steps and talk name him
    report = build(games.engine, folder)
    assert report.games == 2 and not report.full, report
    zoe = history.hidden_name(history.player_key(games.engine, ZOE[1]))
    assert_nobody_hidden_is_named(folder, game, other, zoe)
    build(games.engine, tmp_path / "fresh")  # the same, built at once
    assert_nobody_hidden_is_named(tmp_path / "fresh", game, other, zoe)

    history.hide_player(games.engine, CY[1], hidden=False)
    build(games.engine, folder)
    assert "Cyrus Smith" in (folder / f"games/{other}.html").read_text()


# --------------------------------------------------------------------------- migration 0013


@pytest.fixture(params=["sqlite", "postgresql"])
def empty_url(request: pytest.FixtureRequest, tmp_path: Path) -> Iterator[str]:
    """An empty database of each kind, of this test alone (it is migrated step by step)."""
    if request.param == "sqlite":
        yield f"sqlite:///{tmp_path / 'old.sqlite3'}"
        return
    url = request.getfixturevalue("postgres_url")  # skips, or fails under CI, without PostgreSQL
    admin_url = os.environ.get("PBEM_TEST_PG_ADMIN", "postgresql+psycopg://postgres@127.0.0.1:5432/test")
    name = f"{url.rsplit('/', 1)[1]}_migration"
    admin = sa.create_engine(admin_url, isolation_level="AUTOCOMMIT")
    with admin.connect() as connection:
        connection.exec_driver_sql(f'DROP DATABASE IF EXISTS "{name}" WITH (FORCE)')
        connection.exec_driver_sql(f'CREATE DATABASE "{name}"')
    yield url.rsplit("/", 1)[0] + "/" + name
    with admin.connect() as connection:
        connection.exec_driver_sql(f'DROP DATABASE IF EXISTS "{name}" WITH (FORCE)')
    admin.dispose()


def at_revision(engine: sa.Engine, revision: str) -> None:
    config = alembic_config(engine)
    with engine.begin() as connection:
        config.attributes["connection"] = connection
        command.upgrade(config, revision)


def before_the_upgrade(url: str, tmp_path: Path) -> tuple[sa.Engine, int]:
    """A database at revision 0012 with a game of Zoë, Bob and Cyrus, Cyrus replaced by Delphine since; Zoë,
    Cyrus and Zed (who plays nowhere) hidden under the old keys."""
    engine = make_engine(url)
    at_revision(engine, "0012")
    games_before = GameService(make_engine(f"sqlite:///{tmp_path / 'scratch.sqlite3'}"))
    upgrade(games_before.engine)
    game = games_before.create_game("fifth-avenue", [ZOE, BOB, CY], seed=2)
    games_before.replace_player(game, CY[1], DEE[1], DEE[0])
    copy_game(games_before.engine, engine)  # as an older pbem would have stored it
    games_before.engine.dispose()
    with engine.begin() as connection:
        for email in (ZOE[1], CY[1], "zed@example.org"):
            connection.execute(sa.text("INSERT INTO archive_hidden_players (key, hidden_at) VALUES (:key, :at)"),
                               {"key": old_key(email), "at": datetime(2026, 1, 1, tzinfo=UTC)})
    return engine, game


def test_the_migration_gives_hidden_players_their_new_keys(empty_url: str, tmp_path: Path) -> None:
    engine, _ = before_the_upgrade(empty_url, tmp_path)
    at_revision(engine, "0013")
    with engine.connect() as connection:
        secret = bytes.fromhex(connection.execute(sa.text("SELECT secret FROM archive_secret")).scalar_one())
        rows = {(key, bool(legacy)) for key, legacy in connection.execute(
            sa.text("SELECT key, legacy FROM archive_hidden_players"))}
    assert len(secret) == 32
    assert rows == {(history.key_of(secret, ZOE[1]), False), (history.key_of(secret, CY[1]), False),
                    (old_key("zed@example.org"), True)}
    engine.dispose()


def test_players_hidden_before_the_upgrade_stay_hidden(empty_url: str, tmp_path: Path) -> None:
    engine, game = before_the_upgrade(empty_url, tmp_path)
    upgrade(engine)

    folder = tmp_path / "site"
    build(engine, folder)
    page = (folder / f"games/{game}.html").read_text()
    assert ZOE[0] not in page and "Cyrus" not in page and "Bob" in page and DEE[0] in page
    secret = history.archive_secret(engine)
    assert history.hidden_keys(engine) == {history.key_of(secret, ZOE[1]), history.key_of(secret, CY[1]),
                                           f"legacy:{old_key('zed@example.org')}"}

    games = GameService(engine)
    later = games.create_game("manhattan", [("Zed Zander", "zed@example.org"), BOB], seed=5)
    build(engine, folder)
    assert "Zed" not in (folder / f"games/{later}.html").read_text()
    assert "Zed" not in (folder / "index.html").read_text()
    history.hide_player(engine, "zed@example.org", hidden=False)  # shown by name: the legacy row goes
    assert history.hidden_keys(engine) == {history.key_of(secret, ZOE[1]), history.key_of(secret, CY[1])}
    build(engine, folder)
    assert "Zed Zander" in (folder / f"games/{later}.html").read_text()
    engine.dispose()


def copy_game(source: sa.Engine, target: sa.Engine) -> None:
    """The rows of every game of ``source`` into ``target`` (at revision 0012), in the columns it has."""
    tables = ("games", "seats", "events", "snapshots")
    with source.connect() as reading, target.begin() as writing:
        for table in tables:
            old, new = sa.Table(table, sa.MetaData(), autoload_with=reading), sa.Table(table, sa.MetaData(),
                                                                                     autoload_with=writing)
            columns = [old.c[column.name] for column in new.columns]
            writing.execute(new.insert(), [dict(row._mapping) for row in reading.execute(sa.select(*columns))])
        if target.dialect.name == "postgresql":
            for table in tables:
                writing.exec_driver_sql(f"SELECT setval('{table}_id_seq', (SELECT max(id) FROM {table}))")


def test_a_site_built_with_the_old_keys_is_made_over(sqlite_url: str, tmp_path: Path) -> None:
    """A site an older pbem built (its state in format 2, its player pages named by the old keys) loses every
    old player page at the next build, and every link of every page leads to a page of the site."""
    engine = make_engine(sqlite_url)
    games = GameService(engine)
    play(games, Setup("fifth-avenue", (ZOE, BOB), seed=1, commands=3))
    folder = tmp_path / "site"
    build(engine, folder)
    state = folder / ".pbem-archive" / "state.json"
    for email in (ZOE[1], BOB[1]):  # what the old pbem wrote: pages and links by the old keys
        key = history.player_key(engine, email)
        (folder / "players" / f"{key}.html").rename(folder / "players" / f"{old_key(email)}.html")
        for page in [folder / "index.html", *folder.glob("*/*.html"), state]:
            page.write_text(page.read_text().replace(key, old_key(email)))
    state.write_text(state.read_text().replace('"format": 3', '"format": 2'))
    (folder / ".pbem-archive" / "mark.json").unlink()

    report = build(engine, folder)
    assert report.full and report.removed == 2, report
    keys = {history.player_key(engine, email) for email in (ZOE[1], BOB[1])}
    assert {page.stem for page in (folder / "players").glob("*.html")} == keys
    for page in [folder / "index.html", *folder.glob("*/*.html")]:
        text = page.read_text()
        assert not any(old_key(email) in text for email in (ZOE[1], BOB[1])), page
        for link in re.findall(r'href="([^"#]+)', text):
            assert (page.parent / link).resolve().is_file(), (page, link)
    engine.dispose()
