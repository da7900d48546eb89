"""The game service on real databases (SQLite and PostgreSQL): every change or nothing."""

from __future__ import annotations

import json

import pytest
from sqlmodel import Session, func, select

from pbem.games.fifth_avenue import State, new_game
from pbem.render.text import render_board
from pbem.services.table.games import SNAPSHOT_EVERY
from pbem.services.table.service import GameService
from pbem.services.common.errors import BadRequest, CommandRejected, GameNotActive, GameNotFound, ImportFailed, PlayerNotInGame
from pbem.services.table.table_talk import TableTalk
from pbem.store.models import Event, Game, OutboxMail, Snapshot

PLAYERS = [("Ann", "ann@example.org"), ("Bob", "bob@example.org"), ("Cy", "cy@example.org")]


@pytest.fixture
def service(db_engine) -> GameService:
    return GameService(db_engine)


def counts(engine) -> dict[str, int]:
    with Session(engine) as s:
        return {
            model.__tablename__: s.exec(select(func.count()).select_from(model)).one()
            for model in (Game, Event, Snapshot, OutboxMail)
        }


def play_placement(service: GameService, game_id: int) -> None:
    """Play the starting placement with the first legal command each time."""
    while True:
        info, legal = service.legal(game_id)
        (email, commands), = legal.items()
        if not commands[0].startswith("place"):
            return
        service.submit(game_id, email, commands[0])


def test_games_are_numbered_and_listed(service: GameService) -> None:
    first = service.create_game("fifth-avenue", PLAYERS, seed=1)
    second = service.create_game("fifth-avenue", PLAYERS[:2], seed=2, options={"back_side": True})
    assert (first, second) == (1, 2)
    games = service.list_games()
    assert [g.id for g in games] == [1, 2]
    assert games[1].variant == "back-side" and games[1].state.back_side
    assert [p.email for p in games[0].players] == [e for _, e in PLAYERS]
    assert games[0].to_act == ["ann@example.org"]
    assert [g.id for g in service.list_games("active")] == [1, 2]
    assert service.list_games("finished") == []


def test_a_new_game_mails_every_player_their_own_hand(service: GameService, db_engine) -> None:
    game_id = service.create_game("fifth-avenue", PLAYERS, seed=3)
    with Session(db_engine) as s:
        mails = s.exec(select(OutboxMail).where(OutboxMail.game_id == game_id)).all()
    assert sorted(m.recipient for m in mails) == sorted(e for _, e in PLAYERS)
    assert len({m.message_id for m in mails}) == 3
    state = service.get(game_id).state
    names = [n for n, _ in PLAYERS]
    boards = [render_board(state.view(seat), players=names) for seat in range(3)]
    assert len(set(boards)) == 3  # the hands differ, so each board differs
    for mail in mails:
        assert mail.subject.startswith(f"[Fifth Avenue #{game_id}]")
        assert mail.headers["Auto-Submitted"] == "auto-generated"
        seat = [e for _, e in PLAYERS].index(mail.recipient)
        assert boards[seat] in mail.text_body
        assert all(boards[other] not in mail.text_body for other in range(3) if other != seat)


def test_submit_appends_events_stores_state_and_queues_mail(service: GameService, db_engine) -> None:
    game_id = service.create_game("fifth-avenue", PLAYERS, seed=4)
    before = counts(db_engine)
    legal = service.legal(game_id)[1]["ann@example.org"]
    done = service.submit(game_id, "ANN@example.org", legal[0], source="mail:<x1@example.org>")
    after = counts(db_engine)
    assert done.commands == [legal[0]] and done.first_seq == done.last_seq == 2
    assert after["events"] == before["events"] + 1
    assert after["outbox"] == before["outbox"] + 2
    with Session(db_engine) as s:  # the sender's answer and the next player's request; the third hears later
        mails = s.exec(select(OutboxMail).where(OutboxMail.game_id == game_id).order_by(OutboxMail.id.desc())
                       .limit(2)).all()
    info = service.get(game_id)
    assert sorted((m.recipient, m.decision) for m in mails) == [
        ("ann@example.org", None), (info.email_of(info.state.current_player()), 1)]
    history = service.history(game_id)
    assert [h.kind for h in history] == ["created", "command"]
    assert history[1].actor == "ann@example.org" and history[1].source == "mail:<x1@example.org>"
    assert history[1].text == legal[0]
    reference = new_game(3, 4)
    reference.apply_command(0, legal[0])
    assert service.get(game_id).state.to_json() == reference.to_json()


def test_a_bad_line_changes_nothing(service: GameService, db_engine) -> None:
    game_id = service.create_game("fifth-avenue", PLAYERS, seed=5)
    play_placement(service, game_id)
    state_before = service.get(game_id).state.to_json()
    before = counts(db_engine)
    with pytest.raises(CommandRejected) as err:
        service.submit(game_id, "ann@example.org", "A\ncards orange orange\nmove white 34W")
    assert err.value.line_number == 2 and err.value.line == "cards orange orange"
    assert "different colors" in err.value.message
    assert err.value.legal  # what the player may do instead
    assert counts(db_engine) == before
    assert service.get(game_id).state.to_json() == state_before


@pytest.mark.parametrize(
    "call,error,fragment",
    [
        (lambda s, g: s.submit(99, "ann@example.org", "A"), GameNotFound, "there is no game 99"),
        (lambda s, g: s.submit(g, "eve@example.org", "A"), PlayerNotInGame, "eve@example.org does not play"),
        (lambda s, g: s.submit(g, "bob@example.org", "place 34W orange"), CommandRejected, "not your turn"),
        (lambda s, g: s.submit(g, "ann@example.org", "dance"), CommandRejected, "'dance' is not a command"),
        (lambda s, g: s.submit(g, "ann@example.org", "  "), BadRequest, "no command"),
        (lambda s, g: s.create_game("chess", PLAYERS), BadRequest, "unknown game"),
        (lambda s, g: s.create_game("fifth-avenue", PLAYERS[:1]), BadRequest, "for 2, 3, 4 players"),
        (lambda s, g: s.create_game("fifth-avenue", [PLAYERS[0], PLAYERS[0]]), BadRequest, "different email"),
        (lambda s, g: s.undo(g, steps=1), BadRequest, "cannot undo 1 command: 0 are in force"),
        (lambda s, g: s.undo(g, to=7), BadRequest, "there is no event 7"),
        (lambda s, g: s.replace_player(g, "eve@example.org", "x@example.org"), PlayerNotInGame, "does not play"),
        (lambda s, g: s.replace_player(g, "ann@example.org", "bob@example.org"), BadRequest, "already plays"),
        (lambda s, g: s.set_status(g, "resume"), GameNotActive, "is active; it cannot be resumed"),
    ],
)
def test_bad_requests_give_one_clear_message_and_change_nothing(service, db_engine, call, error, fragment) -> None:
    game_id = service.create_game("fifth-avenue", PLAYERS, seed=6)
    before = counts(db_engine)
    with pytest.raises(error) as err:
        call(service, game_id)
    assert fragment in err.value.message.lower() or fragment in err.value.message
    assert "\n" not in err.value.message
    assert counts(db_engine) == before


def test_paused_and_finished_games_refuse_commands(service: GameService) -> None:
    game_id = service.create_game("fifth-avenue", PLAYERS, seed=7)
    assert service.set_status(game_id, "pause") == "paused"
    with pytest.raises(GameNotActive, match="paused"):
        service.submit(game_id, "ann@example.org", service.get(game_id).state.legal_commands()[0])
    assert service.set_status(game_id, "resume") == "active"
    assert service.set_status(game_id, "abort") == "aborted"
    with pytest.raises(GameNotActive, match="aborted"):
        service.submit(game_id, "ann@example.org", "A")
    kinds = [h.kind for h in service.history(game_id)]
    assert kinds == ["created", "pause", "resume", "abort"]


def _play_to_the_end(service: GameService, game_id: int, limit: int = 3000) -> int:
    """Random-ish but deterministic play: the middle legal command each time."""
    played = 0
    while played < limit:
        info, legal = service.legal(game_id)
        if not legal:
            return played
        (email, commands), = legal.items()
        service.submit(game_id, email, commands[len(commands) // 2])
        played += 1
    raise AssertionError("the game did not end")


def test_a_finished_game_is_marked_and_refuses_commands(service: GameService) -> None:
    game_id = service.create_game("fifth-avenue", PLAYERS[:2], seed=8)
    _play_to_the_end(service, game_id)
    info = service.get(game_id)
    assert info.status == "finished" and info.over and info.winners
    with pytest.raises(GameNotActive, match="finished"):
        service.submit(game_id, "ann@example.org", "A")


def test_loading_uses_the_latest_snapshot(service: GameService, db_engine) -> None:
    game_id = service.create_game("fifth-avenue", PLAYERS, seed=9)
    for _ in range(3 * SNAPSHOT_EVERY + 3):
        (email, commands), = service.legal(game_id)[1].items()
        service.submit(game_id, email, commands[0])
    with Session(db_engine) as s:
        snapshots = s.exec(select(Snapshot.seq).where(Snapshot.game_id == game_id).order_by(Snapshot.seq)).all()
        last_event = s.exec(select(func.max(Event.seq)).where(Event.game_id == game_id)).one()
        # Tamper with the oldest snapshot: a load that replayed from the start would notice nothing,
        # a load from the latest snapshot must not depend on it.
        first = s.exec(select(Snapshot).where(Snapshot.game_id == game_id, Snapshot.seq == 1)).one()
        first.state = "{}"
        s.add(first)
        s.commit()
    assert snapshots == [1 + n * SNAPSHOT_EVERY for n in range(4)]  # one every SNAPSHOT_EVERY commands
    assert last_event - snapshots[-1] < SNAPSHOT_EVERY
    info = service.get(game_id)
    replay = new_game(3, 9)
    for h in service.history(game_id)[1:]:
        replay.apply_command(h.seat, h.data["command"])
    assert info.state.to_json() == replay.to_json()


def test_undo_restores_exactly_and_keeps_history(service: GameService) -> None:
    game_id = service.create_game("fifth-avenue", PLAYERS, seed=10)
    states = {1: service.get(game_id).state.to_json()}
    for _ in range(12):
        (email, commands), = service.legal(game_id)[1].items()
        done = service.submit(game_id, email, commands[-1])
        states[done.last_seq] = service.get(game_id).state.to_json()
    target, undone = service.undo(game_id, steps=3)
    assert target == 10 and undone == [11, 12, 13]
    assert service.get(game_id).state.to_json() == states[10]
    # Play on, then undo to an event before the first undo: history folds correctly.
    (email, commands), = service.legal(game_id)[1].items()
    service.submit(game_id, email, commands[0])
    target, undone = service.undo(game_id, to=5)
    assert target == 5 and undone == [6, 7, 8, 9, 10, 15]
    assert service.get(game_id).state.to_json() == states[5]
    # Undo to event 13 brings back the state after 13, even though 11-13 were undone meanwhile.
    service.undo(game_id, to=13)
    assert service.get(game_id).state.to_json() == states[13]
    kinds = [h.kind for h in service.history(game_id)]
    assert kinds.count("command") == 13 and kinds.count("undo") == 3
    assert len(kinds) == 17


def test_the_moderator_playing_for_a_player_is_recorded(service: GameService) -> None:
    game_id = service.create_game("fifth-avenue", PLAYERS, seed=11)
    (email, commands), = service.legal(game_id)[1].items()
    service.submit(game_id, email, commands[0], by="moderator")
    entry = service.history(game_id)[-1]
    assert entry.actor == email and entry.data["by"] == "moderator" and entry.source == "cli"


def test_replace_player_moves_the_seat(service: GameService) -> None:
    game_id = service.create_game("fifth-avenue", PLAYERS, seed=12)
    hand = service.get(game_id).state.hands[1]
    player = service.replace_player(game_id, "bob@example.org", "Dora@Example.org", "Dora")
    assert (player.seat, player.name, player.email) == (1, "Dora", "dora@example.org")
    info = service.get(game_id)
    assert [p.email for p in info.players] == ["ann@example.org", "dora@example.org", "cy@example.org"]
    assert info.state.hands[1] == hand
    with pytest.raises(PlayerNotInGame):
        service.view(game_id, "bob@example.org")
    assert service.history(game_id)[-1].kind == "replace_player"


def test_export_and_import_rebuild_the_same_game(service: GameService, db_engine) -> None:
    game_id = service.create_game("fifth-avenue", PLAYERS[:2], seed=13, options={"back_side": True})
    for _ in range(20):
        (email, commands), = service.legal(game_id)[1].items()
        service.submit(game_id, email, commands[0])
    service.undo(game_id, steps=2)
    service.replace_player(game_id, "bob@example.org", "dora@example.org", "Dora")
    service.set_delivery(game_id, "digest")  # the game's choice of mails, and one player's own
    service.set_delivery(game_id, "all", "ann@example.org")
    TableTalk(service).say(game_id, "dora@example.org", "hello, I play Bob's seat now")
    doc = json.loads(json.dumps(service.export(game_id)))
    assert doc["format"] == "pbem-game" and doc["game"]["seed"] == 13
    assert len(doc["commands"]) == 18 and len(doc["events"]) == 24
    new_id = service.import_game(doc)
    assert new_id != game_id
    original, copy = service.get(game_id), service.get(new_id)
    assert copy.state.to_json() == original.state.to_json()
    assert [(p.name, p.email) for p in copy.players] == [(p.name, p.email) for p in original.players]
    assert [h.kind for h in service.history(new_id)] == [h.kind for h in service.history(game_id)]
    # the mails go on where they were: the same settings, each player told up to the same event, and the
    # events the mails tell of (the public engine events of every command, undone ones too) made again alike
    assert copy.delivery == "digest" and [p.delivery for p in copy.players] == ["all", "digest"]
    assert [p.told_seq for p in copy.players] == [p.told_seq for p in original.players]
    assert [h.data for h in service.history(new_id)] == [h.data for h in service.history(game_id)]
    assert all(h.data["events"] for h in service.history(new_id) if h.kind == "command")
    doc["events"][3]["data"]["events"] = [{"kind": "won", "points": "x"}]  # a file's own are never used
    assert [h.data for h in service.history(service.import_game(doc))] == [h.data for h in service.history(game_id)]
    assert State.from_json(json.dumps(doc["state"])) == original.state


@pytest.mark.parametrize(
    "damage,fragment",
    [
        (lambda d: d.update(format="other"), "not a pbem game export"),
        (lambda d: d.update(version=99), "unsupported export version"),
        (lambda d: d.pop("events"), "incomplete or damaged"),
        (lambda d: d["game"].update(kind="chess"), "damaged: unknown game 'chess'"),
        (lambda d: d["game"].pop("seed"), "damaged: 'seed' is missing"),
        (lambda d: d["events"][3]["data"].update(command="place CP orange"), "does not replay"),
        (lambda d: d["state"]["scores"].__setitem__(0, 99), "does not give its final state"),
        (lambda d: d["events"][2].update(seq=9), "numbered 1, 2, 3"),
        (lambda d: d["players"][1].update(seat=0), "seats 0, 1, 2"),
        (lambda d: d["players"][1].update(seat="x"), "needs a seat number"),
        (lambda d: d["players"][1].update(email=d["players"][0]["email"]), "different email"),
        (lambda d: d["players"][0].update(name=None), "needs a seat number, a name"),
        (lambda d: d["game"].update(created_at=5), "created_at must be text"),
        (lambda d: d["game"].update(kind=None), "unknown game kind"),
        (lambda d: d["game"].update(seed="13"), "whole number"),
        (lambda d: d["game"].update(variant=None), "variant must be text"),
        (lambda d: d["events"][3].update(actor=None), "has no actor"),
        (lambda d: d["events"][3].update(text=None), "text must be text"),
        (lambda d: d["events"][3].update(kind="banana"), "unknown kind"),
        (lambda d: d["events"][3].update(seat=7), "not in the game"),
        (lambda d: d["events"].append({**d["events"][-1], "seq": len(d["events"]) + 1, "kind": "undo",
                                       "data": {"to": "x"}}), "not an earlier event"),
        (lambda d: d["game"].update(delivery="often"), "game delivery 'often' is not one of turns, all, digest"),
        (lambda d: d["players"][1].update(delivery=3), "player 1's delivery 3 is not one of"),
        (lambda d: d["players"][0].update(told_seq=99), "player 0's told_seq 99 is not an event of the game"),
        (lambda d: d["events"].append({**d["events"][-1], "seq": len(d["events"]) + 1, "kind": "tell",
                                       "data": {"words": "hi", "readers": 2}}), "is for 2, which are not seats"),
        (lambda d: d["events"].append({**d["events"][-1], "seq": len(d["events"]) + 1, "kind": "say",
                                       "data": {"words": ["hi"]}}), "data words must be text"),
    ],
)
def test_a_corrupt_import_is_refused_and_changes_nothing(service, db_engine, damage, fragment) -> None:
    game_id = service.create_game("fifth-avenue", PLAYERS, seed=14)
    for _ in range(6):
        (email, commands), = service.legal(game_id)[1].items()
        service.submit(game_id, email, commands[0])
    doc = json.loads(json.dumps(service.export(game_id)))
    damage(doc)
    before = counts(db_engine)
    with pytest.raises(ImportFailed) as err:
        service.import_game(doc)
    assert fragment in err.value.message
    assert counts(db_engine) == before
