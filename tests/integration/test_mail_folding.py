"""Folding (services.mail_out.mail_folding): a game mail still waiting to be sent gives way to a later mail to the same
reader about the same game, which then tells everything since the reader's last mail that went out. So a
person playing robots gets one mail a decision, not "Done" and "Your turn" a second apart."""

from __future__ import annotations

import pytest
from sqlmodel import Session, select

from pbem.services.mail_out.receipts import is_receipt
from pbem.services.table.service import GameService
from pbem.services.table.robot_seats import RobotPlayers
from pbem.store.models import OutboxMail
from pbem.store.statuses import OutboxStatus

ANN = ("Ann", "ann@example.org")
BOB = ("Bob", "bob@example.org")


@pytest.fixture
def service(game_service: GameService) -> GameService:
    return game_service


def mails_to(service: GameService, address: str) -> list[OutboxMail]:
    with Session(service.engine) as s:
        return list(s.exec(select(OutboxMail).where(OutboxMail.recipient == address).order_by(OutboxMail.id)).all())


def send_all(service: GameService) -> None:
    """The end of a worker's pass: what waits is sent."""
    with Session(service.engine) as s:
        for mail in s.exec(select(OutboxMail).where(OutboxMail.status == OutboxStatus.QUEUED)).all():
            mail.status = OutboxStatus.SENT
            s.add(mail)
        s.commit()


def flat(mail: OutboxMail) -> str:
    return " ".join(mail.text_body.split())


def test_a_person_playing_robots_gets_one_mail_a_decision_telling_their_move_and_the_robots_answers(service):
    game_id = service.create_game("manhattan", [("Robo", "robot"), ANN, ("Maxi", "robot")], seed=7)
    robots = RobotPlayers(service)
    robots.play_due()
    send_all(service)
    for _ in range(6):
        before = len(mails_to(service, ANN[1]))
        info = service.get(game_id)
        command = info.state.legal_commands()[0]
        service.submit(game_id, ANN[1], command)  # the receipt waits to be sent
        moves = robots.play_due().moves
        assert moves, "the robots answer in the same pass"
        new = mails_to(service, ANN[1])[before:]
        waiting = [m for m in new if m.status == OutboxStatus.QUEUED]
        assert len(waiting) == 1 and {m.status for m in new} == {OutboxStatus.QUEUED, OutboxStatus.FOLDED}
        text = flat(waiting[0])
        assert text.startswith("Your turn: ") and f"You played: {command}" in text
        assert all(f"played: {robot_command}" in text for _, _, robot_command in moves)
        send_all(service)


def test_a_sent_mail_a_claimed_mail_and_a_mail_with_a_note_are_never_taken_back(service):
    game_id = service.create_game("fifth-avenue", [ANN, BOB, ("Cy", "cy@example.org")], seed=3)
    send_all(service)
    first = service.get(game_id)
    ann = first.email_of(first.state.current_player())
    service.submit(game_id, ann, first.state.legal_commands()[0])
    send_all(service)  # the mails of that move went out
    second = service.get(game_id)
    mover = second.email_of(second.state.current_player())
    service.submit(game_id, mover, second.state.legal_commands()[0], sender_note=["Line 2 was ignored: hello"])
    noted = mails_to(service, mover)[-1]
    assert noted.told_from is None and "Line 2 was ignored" in noted.text_body
    with Session(service.engine) as s:  # a sender claims the next player's request before the next move
        third = service.get(game_id)
        claimed = [m for m in s.exec(select(OutboxMail).where(OutboxMail.status == OutboxStatus.QUEUED)).all()
                   if m.recipient == third.email_of(third.state.current_player())]
        claimed_ids, claimed_by = {m.id for m in claimed}, claimed[0].recipient
        for mail in claimed:
            mail.status = OutboxStatus.SENDING
            s.add(mail)
        s.commit()
    for _ in range(3):  # more moves, with everything still unsent but what was claimed
        now = service.get(game_id)
        service.submit(game_id, now.email_of(now.state.current_player()), now.state.legal_commands()[0])
    statuses = {m.id: m.status for m in mails_to(service, mover)}
    assert statuses[noted.id] == OutboxStatus.QUEUED, "a mail with a note about the reader's own mail stays"
    assert claimed_ids and all(m.status == OutboxStatus.SENDING for m in mails_to(service, claimed_by)
                               if m.id in claimed_ids), "a mail a sender claimed goes out"
    assert all(m.status == OutboxStatus.SENT for m in mails_to(service, ann)[:2])


def test_people_whose_mails_came_together_are_told_once(service):
    """Two people's mails applied in one pass: the second mover's request to move (from the first move) gives
    way to the receipt for their own move, and their next game mail tells both moves. The first mover, whom the
    second move does not concern (delivery 'turns'), keeps their receipt."""
    game_id = service.create_game("fifth-avenue", [ANN, BOB, ("Cy", "cy@example.org")], seed=4)
    send_all(service)
    played = []
    for _ in range(2):
        info = service.get(game_id)
        seat = info.state.current_player()
        command = info.state.legal_commands()[0]
        service.submit(game_id, info.email_of(seat), command)
        played.append((info.email_of(seat), command))
    (first, first_command), (second, second_command) = played
    assert first != second
    waiting = {address: [m for m in mails_to(service, address) if m.status == OutboxStatus.QUEUED]
               for address in (ANN[1], BOB[1], "cy@example.org")}
    assert all(len(mails) == 1 for mails in waiting.values()), {a: len(m) for a, m in waiting.items()}
    assert all(is_receipt(waiting[address][0]) for address in (first, second))
    assert flat(waiting[second][0]).startswith(f"Recorded: {second_command}")
    assert [m.status for m in mails_to(service, second)][-2:] == [OutboxStatus.FOLDED, OutboxStatus.QUEUED]
    assert flat(waiting[first][0]).startswith(f"Recorded: {first_command}")
    send_all(service)
    while not [m for m in mails_to(service, second) if m.status == OutboxStatus.QUEUED and not is_receipt(m)]:
        info = service.get(game_id)
        service.submit(game_id, info.email_of(info.state.current_player()), info.state.legal_commands()[0])
    (board,) = [m for m in mails_to(service, second) if m.status == OutboxStatus.QUEUED and not is_receipt(m)]
    assert first_command in flat(board) and f"You played: {second_command}" in flat(board)
