"""The first screen answers the mail's question (issue 35, point 2): within the first 24 lines of the text part
(at 80 columns; pbem fills to 72), every mail that asks for a decision says the decision, the deadline and an
example; a bid mail the bids so far, the high bid, and the reader's own cards that can bid with the most they
can bid; the mail that ends the game the winner and the final scores. Over complete games of both games, every
decision kind; the HTML part puts the same block in the same place, before what happened and the board
(tests/e2e/test_mails_in_a_browser.py measures it at 390 px in Chromium)."""

from __future__ import annotations

import pytest
from datetime import timedelta
from email.utils import make_msgid

from test_game_mails import NAMES, NOON, Table, random_commands, same_content, sqlite_engine  # noqa: F401

from pbem.games import fifth_avenue
from pbem.games.fifth_avenue import bid_reach
from pbem.games.manhattan.actions import Pass
from pbem.games.rng import Rng
from pbem.services.mail_out import notices
from pbem.services.offline.simulate import choose
from pbem.store.models import OutboxMail

__all__ = ["sqlite_engine"]

SCREEN = 24  # lines of an 80x24 terminal


def first_screen(mail: OutboxMail) -> str:
    lines = mail.text_body.splitlines()
    assert max(map(len, lines)) <= 80
    return "\n".join(lines[:SCREEN])


def fifth_avenue_kind(state) -> str:  # type: ignore[no-untyped-def]
    frame = state.frames[-1]
    return f"turn, phase {frame['phase']}" if frame["kind"] == "turn" else frame["kind"]


def manhattan_kind(state) -> str:  # type: ignore[no-untyped-def]
    if state.phase != "build":
        return state.phase
    return "pass a card" if isinstance(state.legal_actions()[0], Pass) else "build"


def check_request(mail: OutboxMail, state, names: list[str]) -> None:  # type: ignore[no-untyped-def]
    top = first_screen(mail)
    said = " ".join(top.split())
    assert "Answer by " in said and "for example" in said.lower(), top
    reach = bid_reach(state) if hasattr(state, "frames") else None  # only Fifth Avenue bids
    if reach is None:
        assert "Bids for " not in mail.text_body
        return
    frame = state.frames[-1]
    assert f"Bids for {state.board.name(frame['site'])} so far:" in top, top
    for bidder in frame["order"]:
        assert (names[bidder] if bidder < len(names) else "the robot") in top.split("so far:")[1]
    assert "High bid: " in top
    cards = ", ".join(f"{color} {' '.join(map(str, values))}" for color, values in reach["cards"])
    assert (f"Your cards that can bid: {cards};" in said and f"{reach['most']}" in said) if cards \
        else "You hold no card that can bid" in said, top


def check_end(mail: OutboxMail, state, names: list[str]) -> None:  # type: ignore[no-untyped-def]
    top = first_screen(mail)
    assert "Final scores:" in top, top
    block = top.split("Final scores:")[1].split("\n\n")[0]
    for seat, score in enumerate(state.result["scores"]):
        assert any(line.split()[:2] == [names[seat], str(score)] for line in block.splitlines() if line.strip()), top
    winners = [names[w] for w in state.result["winners"]]
    sentence = " ".join(block.split()).split(" winner")[-1]  # the sentence under the rows
    assert all(w in sentence for w in winners) and ("wins with" in sentence or "share the win" in sentence), block


def check_html_order(mail: OutboxMail, answered: bool) -> None:
    html = mail.html_body
    decision = html.index('class="decision"') if 'class="decision"' in html else html.index('class="waiting"')
    board = html.index("<h3")  # the board's first section
    assert decision < board
    if answered:
        answer = html.index('class="answer"')
        assert decision < answer < board
        if "<h2>Since your last mail" in html:
            assert answer < html.index("<h2>Since your last mail")
    same_content(mail.text_body, html)


def play(table: Table, next_command) -> tuple[set[str], int]:  # type: ignore[no-untyped-def]
    """Every mail of a complete game checked against the state it was made in; the decision kinds asked."""
    kinds: set[str] = set()
    ends = 0
    names = [name for name, _ in table.players]
    mails = table.new_mails()
    while True:
        info = table.service.get(table.game)
        state = info.state
        for mail in mails:
            seat = next(p.seat for p in info.players if p.email == mail.recipient)
            if state.is_terminal():
                check_end(mail, state, names)
                check_html_order(mail, True)
                ends += 1
            elif mail.decision is not None:
                kinds.add(fifth_avenue_kind(state) if info.kind == "fifth-avenue" else manhattan_kind(state))
                check_request(mail, state, names)
                check_html_order(mail, "Bids for " in mail.text_body)
            else:  # only the bidder sees their cards
                assert "Your cards that can bid" not in mail.text_body and "can bid" not in mail.html_body
                assert seat != state.current_player()
        if state.is_terminal():
            return kinds, ends
        table.submit(state.current_player(), next_command(state))
        mails = table.new_mails()


@pytest.mark.parametrize("players, seed", [(3, 0), (2, 5)])
def test_every_fifth_avenue_decision_and_the_end_on_the_first_screen(sqlite_engine, players, seed) -> None:
    table = Table(sqlite_engine, players, seed=seed)
    rng = Rng(seed)
    kinds, ends = play(table, lambda state: str(choose(state.legal_actions(), rng, "by-kind")))
    assert {"placement", "turn, phase 1", "turn, phase 2", "turn, phase 3", "auction", "build"} <= kinds, kinds
    assert ends == players


@pytest.mark.parametrize("players, seed", [(2, 11), (3, 12)])
def test_every_manhattan_decision_and_the_end_on_the_first_screen(sqlite_engine, players, seed) -> None:
    table = Table(sqlite_engine, players, seed=seed, kind="manhattan")
    rng = Rng(seed)
    kinds, ends = play(table, lambda state: str(choose(state.legal_actions(), rng, "uniform")))
    assert {"choose", "build"} <= kinds, kinds
    assert ends == players


def test_a_manhattan_player_who_can_only_pass_a_card_sees_it_on_the_first_screen(sqlite_engine) -> None:
    """The rarest decision (M5: no card of the player's can build, so they pass one): random play never
    reaches it, so the position is made by hand: every site of every city a tall red tower."""
    table = Table(sqlite_engine, 2, seed=11, kind="manhattan")
    rng = Rng(11)
    while True:
        state = table.service.get(table.game).state
        if state.phase == "build":
            break
        table.submit(state.current_player(), str(choose(state.legal_actions(), rng, "uniform")))
    info = table.service.get(table.game)
    for sites in info.state.cities.values():
        sites[:] = [[("red", 4), ("red", 4)] for _ in sites]
    assert manhattan_kind(info.state) == "pass a card"
    seat = info.state.current_player()
    info.due_at = NOON + timedelta(days=2)  # as the service sets it from the open clock
    (mail,) = notices.board_again(info, make_msgid, NOON, seats=[seat])
    check_request(mail, info.state, [name for name, _ in table.players])
    assert "pass" in first_screen(mail).lower(), first_screen(mail)
    check_html_order(mail, False)


def test_the_example_after_an_auction_builds_the_most_it_may() -> None:
    """The example under a decision is a command that does something: after a won auction the most the
    winner may build, never 'build 0' (a player who copies it builds nothing), and never 'pass'."""
    for players, seed in ((3, 0), (2, 5)):
        state = fifth_avenue.new_game(players, seed=seed)
        rng = Rng(seed)
        seen = 0
        while not state.is_terminal():
            legal = state.legal_commands()
            builds = [c for c in legal if c.split()[0] == "build"]
            if builds:
                most = max(int(c.split()[1]) for c in builds)
                if most:
                    assert notices._example(legal) == f"build {most}", legal
                    seen += 1
            elif len(legal) > 1:
                assert notices._example(legal).split()[0] != "pass", legal
            state.apply_action(state.current_player(), choose(state.legal_actions(), rng, "by-kind"))
        assert seen, "no auction won with room to build"
