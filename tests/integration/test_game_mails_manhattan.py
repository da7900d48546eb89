"""Manhattan by mail: the same services and templates as Fifth Avenue, its own board.

Golden files under tests/data/mails/ (PBEM_UPDATE_GOLDEN=1 rewrites them; review
the diff): a new game, choosing parts, a building turn, the end of a round with
its scoring, and a 2-player game with two colors a player; the HTML part of a few
under tests/data/mails/html/. And complete random games through the service:
every mail at most 72 columns, no other player's hand, every decision asked of the
player who must make it, and the HTML part of every mail saying what its text part
says (the same commands, the same numbers: issue 17, point 4).
"""

from __future__ import annotations

import re

import pytest
from test_game_mails import (NAMES, Table, golden, golden_html, html_sections, mailed_commands, same_content,  # noqa: F401
                             sqlite_engine)  # sqlite_engine is a fixture

from pbem.games.manhattan import hand_text
from pbem.games.rng import Rng
from pbem.services.offline.simulate import choose

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
    assert {m.subject for m in mails} == {"[Manhattan #1] Ann, Bob, Cy"}
    assert [m.decision for m in mails] == [0, None, None] and mails[0].headers["X-Pbem-Decision"] == "0"
    assert mails[0].text_body.startswith("Your turn: choose 4 building parts for round 1")
    golden("manhattan_new_game_3p.txt", mails)
    golden_html("manhattan_new_game_3p_ann.html", mails[0])


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
    seat = info.state.current_player()
    table.submit(seat, info.state.legal_commands()[0])  # the round's last part
    mails = table.new_mails()
    # The last part of the round answers its player with a receipt telling the result (it asks nothing more of
    # them: issue 47, point 2); the next start player is asked to choose, with the board.
    info = table.service.get(table.game)
    assert info.state.round == 2
    by_recipient = {m.recipient: m for m in mails}
    assert sorted(by_recipient) == [info.email_of(info.state.current_player())]
    assert by_recipient[info.email_of(info.state.current_player())].decision == info.state.moves
    receipt = table.receipts[-1]
    assert receipt.recipient == info.email_of(seat) and receipt.text_body.startswith("Recorded: ")
    for text in [m.text_body for m in mails] + [receipt.text_body]:  # both tell the scoring, everybody's points
        flat = " ".join(text.split())
        assert re.search(r"round 1 scored \(.*\) \(Ann \+\d+, Bob \+\d+, Cy \+\d+, Dee \+\d+\)", flat,
                         re.IGNORECASE), flat[:1500]
    golden("manhattan_round_scored_4p.txt", mails)
    golden_html("manhattan_round_scored_4p_first.html", mails[0])  # the scoring, and the next round's choice


def test_golden_two_players_two_colors(sqlite_engine) -> None:
    table = Table(sqlite_engine, 2, seed=1, kind="manhattan")
    first = table.new_mails()
    info = table.service.get(table.game)
    table.submit(info.state.current_player(), info.state.legal_commands()[0])
    mails = first + table.new_mails()
    golden("manhattan_two_players.txt", mails)
    golden_html("manhattan_two_players_last.html", mails[-1])  # two colors a player


@pytest.mark.parametrize("players, seed", [(2, 11), (3, 12), (4, 13)])
def test_complete_games_mail_the_right_player_and_nothing_hidden(sqlite_engine, players, seed) -> None:
    table = Table(sqlite_engine, players, seed=seed, kind="manhattan")
    rng = Rng(seed)
    subject = "[Manhattan #1] " + ", ".join(name for name, _ in table.players)
    asked = table.new_mails()
    while True:
        info = table.service.get(table.game)
        for mail in asked:
            assert max(map(len, mail.text_body.splitlines())) <= 72, mail.text_body[:300]
            assert mail.subject == subject
            seat = next(p.seat for p in info.players if p.email == mail.recipient)
            # the recipient's own hand, once; another player's hand never appears in a mail
            hands = re.findall(r"^Your hand: (.*)", mail.text_body, re.M)
            assert len(hands) == 1 and hands[0].startswith(hand_text(info.state.view(seat)) + "."), hands
            for other in range(players):
                if other != seat:
                    assert f"{info.players[other].name}: cards" not in mail.text_body
            # the HTML part: the same content (commands, numbers), the same hand
            same_content(mail.text_body, mail.html_body)
            hand = next(body for head, body in html_sections(mail.html_body)[0] if head == "Your hand")
            assert hand.startswith("Your hand Cards " + (", ".join(map(str, info.state.view(seat)["hand"])) or "none")
                                   + ". "), hand
        if info.over:
            break
        seat = info.state.current_player()
        requests = [m for m in asked if m.decision is not None]
        assert [m.recipient for m in requests] == [info.email_of(seat)], [m.text_body[:100] for m in asked]
        assert requests[0].decision == info.state.moves
        assert requests[0].headers["X-Pbem-Decision"] == str(info.state.moves)
        commands = mailed_commands(info.state, requests[0].text_body)
        command = commands[rng.below(len(commands))]
        table.submit(seat, command)
        asked = table.new_mails()
    assert asked and all(m.text_body.startswith("Game over: ") for m in asked)
    assert sorted(m.recipient for m in asked) == sorted(e for _, e in table.players)  # the end: news for all


def test_a_builder_with_one_legal_command_is_not_asked_and_everybody_is_told(sqlite_engine) -> None:
    """M20 through the service: the play is made for the builder, who gets no request, and every mail says so
    (delivery 'all': every player is mailed whenever something public happened, as a forced play is)."""
    table = Table(sqlite_engine, 4, seed=18, kind="manhattan")
    table.service.set_delivery(table.game, "all")
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
    asked = [(m.recipient, m.decision) for m in mails if m.decision is not None]
    assert asked == [(now.email_of(now.state.current_player()), now.state.moves)]


def test_only_the_blocked_builder_is_told_that_none_of_their_cards_can_build(sqlite_engine) -> None:
    """That follows from their hand (docs/rules.md M15): the others' mails name an ordinary turn. The game is
    one of the random games in which a player must pass (tests/unit/test_manhattan_random_games.py)."""
    players, seed = 4, 521
    table = Table(sqlite_engine, players, seed=seed, kind="manhattan")
    table.service.set_delivery(table.game, "all")
    rng = Rng(seed * 7919 + players)
    table.new_mails()
    blocked = 0
    while not (info := table.service.get(table.game)).over:
        seat = info.state.current_player()
        actions = info.state.legal_actions()
        table.submit(seat, str(choose(actions, rng, "uniform")))
        mails = table.new_mails()
        after = table.service.get(table.game)
        if after.over or not all(type(a).__name__ == "Pass" for a in after.state.legal_actions()):
            continue
        blocked += 1
        turn = after.email_of(after.state.current_player())
        told = {m.recipient for m in mails if "can build no part" in " ".join(m.text_body.split())}
        assert told == {turn}, (turn, told)
    assert blocked
