"""The archive's records read from the store (pbem.archive.history), from games played through the game service.

The games are played once for the module (a finished and a running Fifth Avenue on SQLite and on PostgreSQL, a
finished and a running Manhattan on SQLite) and every test reads them. A record is checked against a replay of
its own, from the seed and the commands in force (not from the snapshots the archive reads).
"""

from __future__ import annotations

import re
import shutil
from collections.abc import Iterator
from dataclasses import asdict
from typing import Any

import pytest
from typer.testing import CliRunner

from pbem.archive import history
from pbem.archive.records import GameRecord
from pbem.cli import app
from pbem.games import get_game
from pbem.games.rng import Rng
from pbem.render.html import render_board_html
from pbem.archive.history import set_archive
from pbem.services.common.errors import BadRequest, GameNotFound
from pbem.services.table.games import effective_commands
from pbem.services.table.service import GameService
from pbem.services.offline.simulate import choose
from pbem.services.table.table_talk import TableTalk
from pbem.store.db import make_engine

pytestmark = pytest.mark.xdist_group("archive_history")  # its module-scoped fixtures are made once, on one worker

ANN, BOB, CY, DEE = "ann@example.org", "bob@example.org", "cy@example.org", "dee@example.org"
PLAYERS = [("Ann", ANN), ("Bob", BOB), ("Cy", CY)]


def planned(kind: str, players: int, seed: int, policy: str) -> list[tuple[int, str]]:
    """A whole game of random legal commands (seat, command), played in memory: a seed and a policy picked
    for a short game (Fifth Avenue 3 players, seed 128: a tie on points that the cards in hand break, and a
    black card drawn, which only its player sees)."""
    state = get_game(kind).new_game(players=players, seed=seed)
    rng, commands = Rng(seed), []
    while not state.is_terminal():
        seat = state.current_player()
        action = choose(state.legal_actions(), rng, policy)
        state.apply_action(seat, action)
        commands.append((seat, str(action)))
    return commands


def submit_all(games: GameService, game_id: int, commands: list[tuple[int, str]]) -> None:
    """Each player's commands in a row as one submission, as a mail with several lines is."""
    emails = {p.seat: p.email for p in games.get(game_id).players}
    run: list[str] = []
    for number, (seat, command) in enumerate(commands):
        run.append(command)
        if number + 1 == len(commands) or commands[number + 1][0] != seat:
            games.submit(game_id, emails[seat], "\n".join(run))
            run = []


@pytest.fixture(scope="module", params=["sqlite", "postgresql"])
def store(request: pytest.FixtureRequest, tmp_path_factory: pytest.TempPathFactory) -> Iterator[Any]:
    """An engine on an empty, migrated database of each kind, for the whole module."""
    if request.param == "sqlite":
        path = tmp_path_factory.mktemp("archive") / "pbem.sqlite3"
        shutil.copy(request.getfixturevalue("sqlite_template"), path)
        engine, emptying = make_engine(f"sqlite:///{path}"), ""
    else:
        engine = make_engine(request.getfixturevalue("postgres_url"))
        emptying = request.getfixturevalue("postgres_emptying")
        with engine.begin() as connection:
            connection.exec_driver_sql(emptying)
    yield engine
    if emptying:
        with engine.begin() as connection:
            connection.exec_driver_sql(emptying)
    engine.dispose()


class Played:
    """The module's games: ``finished`` (Fifth Avenue, 3 players, with an undo, talk, a pause, a replaced
    player), ``running`` (Fifth Avenue, 2 players and the robot, after a black card was drawn), ``left_out``
    (archive=no). Bob is hidden."""

    def __init__(self, engine: Any) -> None:
        self.engine = engine
        self.games = games = GameService(engine)
        talk = TableTalk(games)
        commands = planned("fifth-avenue", 3, 128, "uniform")
        self.finished = games.create_game("fifth-avenue", PLAYERS, seed=128)
        submit_all(games, self.finished, commands[:12])
        self.undo_seq = games.get(self.finished).last_seq + 1
        games.undo(self.finished, steps=3, reason="Bob mistyped")
        submit_all(games, self.finished, commands[9:20])  # the same again: the game ends as planned
        talk.say(self.finished, ANN, "Good luck! Write to me at ann@example.org")
        talk.say(self.finished, BOB, "Thanks, this is Bob")
        talk.tell(self.finished, "Only for Bob: your secret is safe", BOB)
        talk.tell(self.finished, "Welcome, everybody")
        games.set_status(self.finished, "pause", reason="Cy moves house")
        games.set_status(self.finished, "resume")
        self.replaced_seq = games.get(self.finished).last_seq + 1
        games.replace_player(self.finished, CY, DEE, "Dee", reason="Cy (cy@example.org) left")
        submit_all(games, self.finished, commands[20:])
        self.running = games.create_game("fifth-avenue", [("Ann", ANN), ("Bob", BOB)], seed=1)
        submit_all(games, self.running, planned("fifth-avenue", 2, 1, "by-kind")[:8])
        self.left_out = games.create_game("fifth-avenue", [("Cy", CY), ("Dee", DEE)], seed=3)
        set_archive(engine, self.left_out, "no")
        history.hide_player(engine, BOB)
        self.bob_shown = history.hidden_name(history.player_key(engine, BOB))

    def names_at(self, game_id: int, seq: int) -> list[str]:
        if game_id == self.finished:
            return ["Ann", self.bob_shown, "Cy" if seq < self.replaced_seq else "Dee"]
        return ["Ann", self.bob_shown]


@pytest.fixture(scope="module")
def played(store: Any) -> Played:
    return Played(store)


def replayed(games: GameService, game_id: int) -> dict[int, Any]:
    """The state after every event of the game, from its seed and the commands in force after each event."""
    info = games.get(game_id)
    events = games.history(game_id)
    in_force = effective_commands([{"seq": e.seq, "kind": e.kind, "seat": e.seat, "data": e.data} for e in events])
    module = get_game(info.kind)
    states = {}
    for event in events:
        state = module.new_game(players=len(info.players), seed=info.seed, **info.settings)
        for _, seat, command in in_force[event.seq]:
            state.apply_command(seat, command)
        states[event.seq] = state
    return states


def shown_events(games: GameService, game_id: int) -> list[Any]:
    """The events a page steps through: the first, then every one everybody may read that is not talk."""
    return [e for e in games.history(game_id)
            if e.seq == 1 or (e.data.get("readers") is None and e.kind not in ("say", "tell", "to_moderator"))]


def every_text(record: GameRecord | Any) -> str:
    """Everything a record (or a summary) holds, as one text to search."""
    return repr(asdict(record))


# --------------------------------------------------------------------------- a finished game


def test_a_finished_game_has_one_step_per_public_event_each_with_its_board(played: Played) -> None:
    record = history.record(played.engine, played.finished)
    states = replayed(played.games, played.finished)
    events = shown_events(played.games, played.finished)
    assert [(s.number, s.seq) for s in record.steps] == [(n, e.seq) for n, e in enumerate(events)]
    module = get_game("fifth-avenue")
    for step in record.steps:
        state = states[step.seq]
        names = played.names_at(played.finished, step.seq)
        assert step.board_html == str(render_board_html("fifth-avenue", state.view(None), players=names)), step.number
        assert step.scores == tuple(state.scores)
        assert step.hands == tuple(module.hand_text(state.view(seat)) for seat in range(3))  # nothing is secret now
    changed = [b.number for a, b in zip(record.steps, record.steps[1:]) if a.scores != b.scores]
    assert record.scoring == tuple(changed) and changed


def test_an_undo_is_a_step_back_to_the_board_it_restored(played: Played) -> None:
    record = history.record(played.engine, played.finished)
    by_seq = {step.seq: step for step in record.steps}
    undo = by_seq[played.undo_seq]
    restored = by_seq[played.undo_seq - 4]  # three commands before the undo
    assert undo.words[0].startswith("The moderator took back 3 commands")
    assert undo.words[0].endswith(f"The moderator says: {played.bob_shown} mistyped")  # a hidden name, even in a reason
    assert undo.board_html == restored.board_html and undo.hands == restored.hands
    assert by_seq[played.undo_seq - 1].board_html != undo.board_html


def test_the_words_of_a_finished_game(played: Played) -> None:
    record = history.record(played.engine, played.finished)
    steps = {step.seq: step for step in record.steps}
    for event in played.games.history(played.finished):
        if event.kind == "command":
            names = played.names_at(played.finished, event.seq)
            words = steps[event.seq].words
            assert words[0] == f"{names[event.seat]} played: {event.data['command']}"
            for seat, secrets in event.data.get("private", {}).items():  # what one player saw, told after the game
                name = names[int(seat)]  # of them, for everybody: "Bob drew black 6; only Bob saw it during the game."
                assert all(line in words for secret in secrets for line in history.seen_alone(name, secret))
                assert not any(re.search(r"\b(you|your)\b", line, re.IGNORECASE) for line in words), words
                assert any(line.startswith(f"{name} drew ") and line.endswith(f"; only {name} saw it during the game.")
                           for line in words), words
    assert any(event.data.get("private") for event in played.games.history(played.finished))
    replaced = "The moderator gave seat 3 to Dee instead of Cy. The moderator says: Cy (Cy) left"  # no address
    assert steps[played.replaced_seq].words == (replaced,)
    assert steps[1].words[0] == f"The game began: Ann, {played.bob_shown} and Cy play Fifth Avenue."
    assert [(line.name, line.text) for line in record.talk] == [
        ("Ann", "Good luck! Write to me at Ann"), (played.bob_shown, f"Thanks, this is {played.bob_shown}"),
        ("The moderator", "Welcome, everybody")]
    assert ("board side", "front (5 plots a district)") in record.settings
    assert dict(record.settings)["players"] == f"3: Ann, {played.bob_shown} and Dee"
    winner = record.summary.winners
    assert len(winner) == 1 and record.result[-1].startswith(f"{winner[0]} wins with")
    assert any("tied on" in line and "The most cards in hand breaks the tie" in line for line in record.result)
    assert record.result[1].startswith("Final scores: ")


def test_the_summaries(played: Played) -> None:
    summaries = {s.id: s for s in history.summaries(played.engine)}
    assert set(summaries) == {played.finished, played.running} == set(history.archived_games(played.engine))
    last = history.archived_games(played.engine)
    finished, running = summaries[played.finished], summaries[played.running]
    events = played.games.history(played.finished)
    assert finished.last_seq == last[played.finished] == events[-1].seq
    assert finished.finished and finished.ended_at == events[-1].time and finished.to_act == ()
    assert [p.name for p in finished.players] == ["Ann", played.bob_shown, "Dee"]
    assert [p.hidden for p in finished.players] == [False, True, False]
    info = played.games.get(played.finished)
    assert [p.score for p in finished.players] == list(info.state.scores)
    assert {p.seat for p in finished.players if p.winner} == set(info.state.result["winners"])
    assert finished.started_at == info.created_at and finished.title == "Fifth Avenue"
    state = played.games.get(played.running).state
    assert running.status == "active" and running.ended_at is None and not running.winners
    assert running.to_act == (["Ann", played.bob_shown][state.current_player()],)
    assert history.summaries(played.engine, ids=[played.running]) == [running]
    assert history.summaries(played.engine, ids=[]) == []


# --------------------------------------------------------------------------- what is never shown


def test_a_running_game_shows_no_hand_and_nothing_private(played: Played) -> None:
    record = history.record(played.engine, played.running)
    text = every_text(record)
    assert all(step.hands is None for step in record.steps)
    assert len(record.steps) == len(shown_events(played.games, played.running)) and record.result == ()
    state = played.games.get(played.running).state
    module = get_game("fifth-avenue")
    for seat in range(2):
        hand = module.hand_text(state.view(seat))
        assert hand != "no cards" and hand not in text
    secrets = [secret for event in played.games.history(played.running)
               for lines in event.data.get("private", {}).values() for secret in lines]
    assert secrets and all(secret.strip() not in text for secret in secrets)
    assert "only " not in text and "You drew" not in text
    assert dict(record.settings)["robot bidder"].startswith("yes: with two players a robot bids")


def test_no_address_and_no_hidden_name_is_ever_shown(played: Played) -> None:
    texts = [every_text(history.record(played.engine, game_id)) for game_id in (played.finished, played.running)]
    texts += [every_text(summary) for summary in history.summaries(played.engine)]
    for text in texts:
        assert "@" not in text and "Bob" not in text and "secret" not in text
    keys = {p.key for s in history.summaries(played.engine) for p in s.players}
    assert keys == {history.player_key(played.engine, address) for address in (ANN, BOB, DEE)}
    assert all(re.fullmatch("[0-9a-f]{12}", key) for key in keys)
    assert history.player_key(played.engine, " Ann@Example.ORG ") == history.player_key(played.engine, ANN)


def test_games_left_out_are_not_in_the_archive(played: Played) -> None:
    assert played.left_out not in history.archived_games(played.engine)
    assert history.summaries(played.engine, ids=[played.left_out]) == []
    with pytest.raises(GameNotFound):
        history.record(played.engine, played.left_out)
    with pytest.raises(BadRequest, match="use yes or no"):
        set_archive(played.engine, played.left_out, "maybe")
    with pytest.raises(GameNotFound):
        set_archive(played.engine, 999, "no")
    assert set_archive(played.engine, played.left_out, "yes") == "yes"
    try:
        assert played.left_out in history.archived_games(played.engine)
        assert [s.id for s in history.summaries(played.engine, ids=[played.left_out])] == [played.left_out]
    finally:
        set_archive(played.engine, played.left_out, "off")
    assert played.left_out not in history.archived_games(played.engine)


def test_a_player_shown_by_name_again(played: Played) -> None:
    key = history.hide_player(played.engine, BOB, hidden=False)
    try:
        assert key == history.player_key(played.engine, BOB) and key not in history.hidden_keys(played.engine)
        running = history.summaries(played.engine, ids=[played.running])[0]
        assert [(p.name, p.hidden) for p in running.players] == [("Ann", False), ("Bob", False)]
    finally:
        history.hide_player(played.engine, BOB)
    assert history.hidden_keys(played.engine) == {key}


# --------------------------------------------------------------------------- the steps after a step


def test_steps_after_are_exactly_the_later_steps_of_the_whole_record(played: Played) -> None:
    whole = history.record(played.engine, played.finished)
    last = whole.summary.last_seq
    for after in sorted({1, 2, 11, played.undo_seq - 1, played.undo_seq, played.undo_seq + 1, played.replaced_seq - 3,
                         played.replaced_seq, last - 1, last}):
        later = history.record(played.engine, played.finished, steps_after=after)
        assert later.steps == tuple(step for step in whole.steps if step.seq > after), after
        assert set(later.scoring) == set(whole.scoring) & {step.number for step in later.steps}, after
        assert (later.summary, later.settings, later.talk, later.result) == (
            whole.summary, whole.settings, whole.talk, whole.result)


# --------------------------------------------------------------------------- import, export and the command line


@pytest.fixture
def service(sqlite_url: str) -> Iterator[GameService]:
    engine = make_engine(sqlite_url)
    yield GameService(engine)
    engine.dispose()


def test_an_imported_game_is_the_same_record(played: Played) -> None:
    doc = played.games.export(played.finished)
    assert doc["game"]["archive"] == "yes"
    copy = played.games.import_game(doc)
    original, imported = history.record(played.engine, played.finished), history.record(played.engine, copy)
    assert imported.steps == original.steps  # replayed from the seed: the import keeps only its last snapshot
    assert (imported.talk, imported.result, imported.settings) == (original.talk, original.result, original.settings)
    left_out = played.games.export(played.left_out)
    assert left_out["game"]["archive"] == "no"
    assert played.games.import_game(left_out) not in history.archived_games(played.engine)
    del left_out["game"]["archive"]  # an export from before the archive: the game is in it
    assert played.games.import_game(left_out) in history.archived_games(played.engine)


def test_the_moderator_leaves_a_game_out_from_the_command_line(sqlite_url: str, tmp_path) -> None:
    engine = make_engine(sqlite_url)
    game = GameService(engine).create_game("manhattan", PLAYERS[:2], seed=4)
    env = {"PBEM_CONFIG": "/dev/null"}  # no config file: the defaults

    def pbem(*args: str) -> Any:
        return CliRunner().invoke(app, ["--db", sqlite_url, "game", "set", str(game), *args], env=env)

    result = pbem("archive=no")
    assert result.exit_code == 0 and result.stdout == f"Game {game}: archive = no.\n", result.output
    assert history.archived_games(engine) == {}
    assert "use yes or no" in pbem("archive=perhaps").output
    assert "without --player" in pbem("archive=yes", "--player", ANN).output
    assert pbem("archive=yes").exit_code == 0 and game in history.archived_games(engine)
    engine.dispose()


# --------------------------------------------------------------------------- Manhattan


def test_manhattan_games(service: GameService) -> None:
    engine = service.engine
    finished = service.create_game("manhattan", PLAYERS, seed=29)
    submit_all(service, finished, planned("manhattan", 3, 29, "by-kind"))
    running = service.create_game("manhattan", PLAYERS[:2], seed=2)
    submit_all(service, running, planned("manhattan", 2, 2, "by-kind")[:9])
    module = get_game("manhattan")
    names = ["Ann", "Bob", "Cy"]
    record = history.record(engine, finished)
    states = replayed(service, finished)
    assert [s.seq for s in record.steps] == [e.seq for e in shown_events(service, finished)]
    for step in record.steps:
        state = states[step.seq]
        assert step.board_html == str(render_board_html("manhattan", state.view(None), players=names))
        assert step.hands == tuple(module.hand_text(state.view(seat)) for seat in range(3))
    assert ("colors", "Ann blue; Bob red; Cy green") in record.settings
    assert record.result[0] == "The game ended after round 6." and record.result[-1].endswith(" points.")
    assert record.summary.finished and record.scoring
    open_game = history.record(engine, running)
    text = every_text(open_game)
    state = service.get(running).state
    assert all(step.hands is None for step in open_game.steps)
    assert all(module.hand_text(state.view(seat)) not in text for seat in range(2))
    assert open_game.summary.to_act == (names[state.current_player()],)
