"""The moderator by mail and from the CLI, on the real mail servers: what they are told, what players are told."""

from __future__ import annotations

from test_deadlines import ANN, BOB, MODERATOR, table, text  # noqa: F401 - table is a fixture
from test_worker_mail import inbox

__all__ = ["table"]


def test_a_mail_that_can_never_be_sent_is_told_to_the_moderator(table, dovecot) -> None:
    clock, games, worker = table
    games.create_game("fifth-avenue", [ANN, ("Zed", "zed@example.test")], seed=3)  # no such mailbox: 550
    worker.run_once()
    worker.run_once()  # the moderator's mail was queued after the failure: it goes out on the next pass
    (told,) = inbox(dovecot, "dee")
    assert str(told["Subject"]) == "[pbem] moderator: 1 mail could not be sent"
    said = " ".join(text(told).split())
    assert "to zed@example.test: [Fifth Avenue #1] Ann, Zed -- 550" in said
    assert "pbem outbox retry" in said
    assert len(inbox(dovecot, "ann")) == 1


def test_moderator_changes_reach_every_player_with_the_reason(table, dovecot) -> None:
    clock, games, worker = table
    game_id = games.create_game("fifth-avenue", [ANN, BOB, ("Cy", "cy@example.test")], seed=3)
    while (info := games.get(game_id)).state.frames[-1]["kind"] == "placement":  # the starting skyscrapers
        (email, legal), = games.legal(game_id)[1].items()
        games.submit(game_id, email, legal[0])
    assert info.to_act == [ANN[1]]
    first = "A"  # the first phase of a turn: on its own it is news to nobody but Ann
    games.submit(game_id, ANN[1], first, by="moderator", reason="Ann asked by phone")
    games.undo(game_id, steps=1, reason="she changed her mind")
    games.set_timing(game_id, {"deadline": "48h"}, reason="we play faster now")
    worker.run_once()
    for user in ("ann", "bob", "cy"):  # Cy neither played nor acts next: told all the same
        said = [" ".join(text(m).split()) for m in inbox(dovecot, user)]
        assert any(f"The moderator played for {'you' if user == 'ann' else 'Ann'} (the moderator says: Ann asked "
                   f"by phone): {first}" in s for s in said), said
        assert any("The moderator took back 1 command: Ann's 'A';" in s
                   and "The moderator says: she changed her mind" in s for s in said), said
        assert any("The moderator set the deadlines: 2 days for a decision" in s and "we play faster now" in s
                   for s in said)
    reasons = [h.data["reason"] for h in games.history(game_id) if "reason" in h.data]
    assert reasons == ["Ann asked by phone", "she changed her mind", "we play faster now"]
    # Resend: the board again, to one player or to all; the one who must decide is asked again.
    before = len(inbox(dovecot, "ann"))
    assert games.resend(game_id, ANN[1]) == 1
    worker.run_once()
    again = inbox(dovecot, "ann")[before:]
    assert [str(m["Subject"]) for m in again] == ["[Fifth Avenue #1] Ann, Bob, Cy"]
    assert again[0]["X-Pbem-Decision"] == "6"  # Ann is asked again
    assert text(again[0]).startswith("Your turn: ") and "Answer by" in " ".join(text(again[0]).split())
    before = len(inbox(dovecot, "cy"))
    assert games.resend(game_id) == 3
    worker.run_once()
    (board,) = inbox(dovecot, "cy")[before:]  # Cy is not asked: told why the board comes again
    assert board["X-Pbem-Decision"] is None
    assert text(board).startswith("The board as it stands, sent again by the moderator.")


def test_a_replaced_player_is_told_by_mail_that_they_no_longer_play(table, dovecot) -> None:
    clock, games, worker = table
    game_id = games.create_game("fifth-avenue", [ANN, BOB, ("Cy", "cy@example.test")], seed=3)
    worker.run_once()
    before = len(inbox(dovecot, "bob"))
    games.replace_player(game_id, BOB[1], "dee@example.test", "Dee", reason="Bob moved abroad")
    worker.run_once()
    (told,) = inbox(dovecot, "bob")[before:]
    assert str(told["Subject"]) == f"[Fifth Avenue #{game_id}] Ann, Bob, Cy"  # the game's one subject, kept
    said = " ".join(text(told).split())
    assert f"You no longer play in Fifth Avenue #{game_id}" in said and "to Dee." in said
    assert "The moderator says: Bob moved abroad" in said
    moderator_history = [h for h in games.history(game_id) if h.kind == "replace_player"]
    assert moderator_history[0].data["reason"] == "Bob moved abroad"
