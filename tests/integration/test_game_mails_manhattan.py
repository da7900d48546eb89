"""Manhattan by mail: the same services and templates as Fifth Avenue, its own board.

Golden files under tests/data/mails/ (PBEM_UPDATE_GOLDEN=1 rewrites them; review
the diff): a new game, choosing parts, a building turn, the end of a round with
its scoring, and a 2-player game with two colors a player. And complete random
games through the service: every mail at most 72 columns, no other player's
hand, every decision asked of the player who must make it.
"""

from __future__ import annotations

import re

import pytest
from test_game_mails import NAMES, Table, golden, sqlite_engine  # noqa: F401 - sqlite_engine is a fixture

from pbem.games.rng import Rng
from pbem.services.simulate import choose

__all__ = ["sqlite_engine"]


def play_until(table: Table, done, rng: Rng, limit: int = 2000) -> None:  # type: ignore[no-untyped-def]
    for _ in range(limit):
        info = table.service.get(table.game)
        if done(info.state):
            return
        seat = info.state.current_player()
        table.submit(seat, str(choose(info.state.legal_actions(), rng, "uniform")))
    raise AssertionError("never reached")


def test_golden_new_manhattan_game(sqlite_engine) -> None:
    table = Table(sqlite_engine, 3, seed=0, kind="manhattan")
    mails = table.new_mails()
    assert [m.recipient for m in mails] == [e for _, e in NAMES[:3]]
    assert mails[0].subject == "[Manhattan #1] your turn: choose parts (decision 0)"
    golden("manhattan_new_game_3p.txt", mails)


def test_golden_choosing_and_building(sqlite_engine) -> None:
    table = Table(sqlite_engine, 3, seed=0, kind="manhattan")
    table.new_mails()
    for _ in range(3):  # everybody chooses the round's parts
        info = table.service.get(table.game)
        table.submit(info.state.current_player(), info.state.legal_commands()[0])
    chosen = table.new_mails()
    info = table.service.get(table.game)
    table.submit(info.state.current_player(), info.state.legal_commands()[0])  # the first building turn
    golden("manhattan_choose_and_build_3p.txt", chosen + table.new_mails())


def test_golden_end_of_a_round(sqlite_engine) -> None:
    table = Table(sqlite_engine, 4, seed=2, kind="manhattan")
    play_until(table, lambda s: s.round == 1 and sum(map(sum, s.chosen.values())) == 1 and s.phase == "build",
               Rng(5))
    table.new_mails()
    info = table.service.get(table.game)
    table.submit(info.state.current_player(), info.state.legal_commands()[0])  # the round's last part
    mails = table.new_mails()
    assert any("result: round 1 scored" in m.subject for m in mails)
    golden("manhattan_round_scored_4p.txt", mails)


def test_golden_two_players_two_colors(sqlite_engine) -> None:
    table = Table(sqlite_engine, 2, seed=1, kind="manhattan")
    first = table.new_mails()
    info = table.service.get(table.game)
    table.submit(info.state.current_player(), info.state.legal_commands()[0])
    golden("manhattan_two_players.txt", first + table.new_mails())


@pytest.mark.parametrize("players, seed", [(2, 11), (3, 12), (4, 13)])
def test_complete_games_mail_the_right_player_and_nothing_hidden(sqlite_engine, players, seed) -> None:
    table = Table(sqlite_engine, players, seed=seed, kind="manhattan")
    rng = Rng(seed)
    asked = table.new_mails()
    while True:
        info = table.service.get(table.game)
        for mail in asked:
            assert max(map(len, mail.text_body.splitlines())) <= 72, mail.subject
            seat = next(p.seat for p in info.players if p.email == mail.recipient)
            for other in range(players):  # another player's hand never appears in a mail
                if other != seat:
                    assert f"{info.players[other].name}: cards" not in mail.text_body
        if info.over:
            break
        seat = info.state.current_player()
        requests = [m for m in asked if f"(decision {info.state.moves})" in m.subject]
        assert [m.recipient for m in requests] == [info.email_of(seat)], [m.subject for m in asked]
        listed = re.search(r"^Send one of these commands.*?:\n((?:  .+\n)+)", requests[0].text_body, re.M)
        commands = [line.strip() for line in listed.group(1).splitlines()]
        command = commands[rng.below(len(commands))]
        assert command in info.state.legal_commands()
        table.submit(seat, command)
        asked = table.new_mails()
    assert any("game over" in m.subject for m in asked)


def test_a_builder_with_one_legal_command_is_not_asked_and_everybody_is_told(sqlite_engine) -> None:
    """M20 through the service: the play is made for the builder, who gets no request, and every mail says so."""
    table = Table(sqlite_engine, 4, seed=18, kind="manhattan")
    rng = Rng(18)
    for _ in range(400):
        info = table.service.get(table.game)
        seat = info.state.current_player()
        table.submit(seat, str(choose(info.state.legal_actions(), rng, "uniform")))
        mails = table.new_mails()
        told = [m for m in mails if "had only one legal command" in m.text_body]
        if told:
            break
    else:
        raise AssertionError("no forced play in this game")
    forced = re.search(r"(\w+) had only one legal command \((play|pass) [^)]*\), so pbem played it for them",
                       " ".join(told[0].text_body.split()))
    assert forced, told[0].text_body
    assert sorted(m.recipient for m in told) == sorted(e for _, e in NAMES[:4]), "everybody is told"
    now = table.service.get(table.game)
    assert now.players[now.state.current_player()].name != forced.group(1), "the game waits for somebody else"
    asked = [m.recipient for m in mails if f"(decision {now.state.moves})" in m.subject]
    assert asked == [now.email_of(now.state.current_player())]
