"""Issue 44, point 1: the line 'choices <words>' (what a game mail's More link sends, or typed), on real
databases. It is answered with a mail to the asking seat only that lists the legal commands beginning with those
words, as text and as links carrying the ref line of the decision mail it answers; it changes nothing in the game,
is answered once a mail, only to the seat that must decide, at most limits.CHOICES_AN_HOUR times an hour."""

from __future__ import annotations

from sqlmodel import Session, select

from test_mail_commands import ANN, BOB, PLAYERS, game_rows, mail

import pytest

from pbem.limits import CHOICES_AN_HOUR
from pbem.mail.mailto import ref_token
from pbem.services.mail_in.mail_commands import MailCommands
from pbem.services.table.service import GameService
from pbem.store.models import InboundMail, OutboxMail
from pbem_testing.link_shapes import links, read_mailto


@pytest.fixture
def games(db_engine) -> GameService:
    service = GameService(db_engine)
    service.create_game("fifth-avenue", PLAYERS, seed=41)
    return service


def decision_mail(games: GameService, email: str) -> OutboxMail:
    """The last game mail that asked ``email`` a decision (a list of choices records its decision too, but it is
    a reply: it has no X-Pbem-Decision header)."""
    with Session(games.engine) as s:
        return next(m for m in s.exec(select(OutboxMail).where(OutboxMail.recipient == email)
                                      .order_by(OutboxMail.id.desc())).all() if "X-Pbem-Decision" in m.headers)


def replies(games: GameService) -> list[OutboxMail]:
    with Session(games.engine) as s:
        return [m for m in s.exec(select(OutboxMail).order_by(OutboxMail.id)).all()
                if "X-Pbem-Decision" not in m.headers]


def test_a_typed_choices_line_lists_the_commands_as_links_of_the_decision(games: GameService) -> None:
    processor = MailCommands(games)
    asked = decision_mail(games, ANN)
    legal = games.get(1).state.legal_commands()
    before, had = game_rows(games.engine), len(replies(games))
    report = processor.handle(mail("choices place", in_reply_to=asked.message_id))
    assert report.outcome == "choices" and not report.changed and game_rows(games.engine) == before
    (answer,) = replies(games)[had:]
    assert answer.recipient == ANN
    found = links(answer.html_body)
    assert list(found) == [c for c in legal if c.split()[0] == "place"] and len(found) > 1
    token = ref_token(asked.message_id)
    assert all(read_mailto(url)[1]["body"] == f"{command}\r\nref {token}" for command, url in found.items())
    assert all(f"  {command}" in answer.text_body.splitlines() for command in found)  # typed users read them

    # Not the seat that decides; a second line; a move beside it: answered in words, no list.
    report = processor.handle(mail("choices place", sender=BOB))
    assert report.outcome == "info" and "It is not your turn" in report.reply_body and report.reply_html is None
    report = processor.handle(mail("choices place\nchoices pla", in_reply_to=asked.message_id))
    assert report.outcome == "choices" and [r.note for r in report.lines if r.status == "not done"] == [
        "not answered: one list of choices a mail"]
    report = processor.handle(mail("choices nothing", in_reply_to=asked.message_id))
    assert report.outcome == "info" and "No command you may send now begins with 'nothing'" in report.reply_body
    report = processor.handle(mail("choices " + "nothing" * 300, in_reply_to=asked.message_id))  # not echoed whole
    assert report.outcome == "info" and "nothing" * 8 in report.reply_body and "nothing" * 9 not in report.reply_body


def test_lists_of_choices_are_answered_at_most_ten_times_an_hour(games: GameService) -> None:
    processor = MailCommands(games)
    asked = decision_mail(games, ANN)
    outcomes = [processor.handle(mail("choices", in_reply_to=asked.message_id), inbound=InboundMail(
        message_id=f"<c{n}@x>", mailbox="INBOX", received_at=games.clock())).outcome for n in range(CHOICES_AN_HOUR + 1)]
    assert outcomes == ["choices"] * CHOICES_AN_HOUR + ["info"]
    last = replies(games)[-1]
    assert f"more than {CHOICES_AN_HOUR} lists of choices within an hour" in " ".join(last.text_body.split())
    assert last.html_body is None


def test_a_reply_to_a_list_of_choices_answers_its_decision_and_never_a_later_one(games: GameService) -> None:
    """Issue 44, point 2: a typed Reply to a mail of choices (no ref line; its In-Reply-To names the list) is tied
    to the decision the list was sent for, as a Reply to the decision mail is: applied while it is open, refused
    as stale once it is over, never applied to the decision open then."""
    processor = MailCommands(games)
    asked = decision_mail(games, ANN)
    processor.handle(mail("choices place", in_reply_to=asked.message_id))
    listed = replies(games)[-1]
    assert (listed.decision, listed.decision_key, listed.decision_words) == (
        asked.decision, asked.decision_key, asked.decision_words)
    first, second = list(links(listed.html_body))[:2]

    report = processor.handle(mail(first, in_reply_to=listed.message_id))
    assert report.outcome == "applied" and report.decision == asked.decision
    assert report.answered == asked.decision_words  # not "applied to the one open" with a note

    # Ann's decision is over (Cy places now); her second Reply to the same list changes nothing.
    before = game_rows(games.engine)
    report = processor.handle(mail(second, in_reply_to=listed.message_id))
    assert report.outcome == "stale" and game_rows(games.engine) == before
    assert report.decision == asked.decision and report.current_decision == asked.decision + 1
    text = " ".join(report.reply_body.split())
    assert (f"Your mail answered your starting skyscraper (decision {asked.decision}), which is over: the game "
            f"now waits for Cy's starting skyscraper (decision {asked.decision + 1})") in text
    assert "Nothing of your mail was applied" in text
