"""The outbox service on real databases (SQLite and PostgreSQL): order, filters and refusals."""

from __future__ import annotations

from datetime import datetime, timezone

import pytest
from sqlmodel import Session, select

from pbem.services.table.service import GameService

from pbem.services.common.errors import BadRequest, GameNotFound, ServiceError
from pbem.services.common.ledger import MailLedger
from pbem.services.mail_out.outbox import MailNotFound, OutboxEntry, OutboxService
from pbem.store.models import OutboxMail, OutboxStatus

ANN, BOB, CY = "ann@example.org", "bob@example.org", "cy@example.org"
SENT_AT = datetime(2030, 1, 2, 3, 4, 5, tzinfo=timezone.utc)


@pytest.fixture
def outbox(db_engine) -> OutboxService:
    games = GameService(db_engine)
    games.create_game("fifth-avenue", [("Ann", ANN), ("Bob", BOB)], seed=3)
    games.create_game("fifth-avenue", [("Ann", ANN), ("Bob", BOB), ("Cy", CY)], seed=4)
    MailLedger(db_engine).queue_mail(CY, "a note without a game", "Hello.")
    with Session(db_engine) as s:
        first = s.exec(select(OutboxMail).order_by(OutboxMail.id)).first()
        first.status, first.attempts, first.sent_at = OutboxStatus.SENT, 1, SENT_AT
        s.add(first)
        s.commit()
    return OutboxService(db_engine)


def test_everything_oldest_first(outbox: OutboxService) -> None:
    entries = outbox.list()
    assert [e.id for e in entries] == [1, 2, 3, 4, 5, 6]
    assert all(isinstance(e, OutboxEntry) for e in entries)
    assert [e.game_id for e in entries] == [1, 1, 2, 2, 2, None]
    assert [e.recipient for e in entries] == [ANN, BOB, ANN, BOB, CY, CY]
    assert all(e.subject.startswith("[Fifth Avenue #1]") for e in entries[:2])
    assert all(e.subject.startswith("[Fifth Avenue #2]") for e in entries[2:5])
    assert entries[5].subject == "a note without a game" and entries[5].html_body is None
    assert entries[0].created_at.tzinfo is not None and entries[0].sent_at == SENT_AT


def test_filters_combine(outbox: OutboxService) -> None:
    assert [e.id for e in outbox.list(game_id=1)] == [1, 2]
    assert [e.id for e in outbox.list(game_id=2)] == [3, 4, 5]
    assert [e.id for e in outbox.list(status="sent")] == [1]
    assert [e.id for e in outbox.list(status="queued")] == [2, 3, 4, 5, 6]
    assert [e.id for e in outbox.list(game_id=1, status="queued")] == [2]
    assert outbox.list(status="failed") == []


def test_limit_keeps_the_newest_still_oldest_first(outbox: OutboxService) -> None:
    assert [e.id for e in outbox.list(limit=2)] == [5, 6]
    assert [e.id for e in outbox.list(game_id=2, limit=2)] == [4, 5]
    assert [e.id for e in outbox.list(limit=100)] == [1, 2, 3, 4, 5, 6]


def test_show_has_headers_and_both_bodies(outbox: OutboxService) -> None:
    mail = outbox.show(2)
    assert mail.recipient == BOB and mail.status == "queued" and mail.attempts == 0
    assert mail.headers["Message-ID"] == mail.message_id and mail.headers["X-Pbem-Game"] == "1"
    assert "Fifth Avenue" in mail.text_body and mail.html_body and "<" in mail.html_body
    assert mail.sent_at is None and mail.last_error == ""


def test_refusals_are_service_errors(outbox: OutboxService) -> None:
    with pytest.raises(BadRequest, match="unknown status 'lost'; use one of queued, sending, sent, failed"):
        outbox.list(status="lost")
    with pytest.raises(BadRequest, match="at least 1"):
        outbox.list(limit=0)
    with pytest.raises(GameNotFound, match="there is no game 9"):
        outbox.list(game_id=9)
    with pytest.raises(MailNotFound, match="there is no mail 999") as caught:
        outbox.show(999)
    assert isinstance(caught.value, ServiceError) and caught.value.message == "there is no mail 999"


def test_an_empty_outbox(db_engine) -> None:
    assert OutboxService(db_engine).list() == []
