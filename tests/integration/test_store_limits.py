"""Column sizes never decide the fate of a mail: every value is cut to its declared limit before it is
written, on SQLite (which ignores lengths) and PostgreSQL (which refuses what is longer) alike; and the
store tells a database that failed from a statement it refuses."""

from __future__ import annotations

import sqlite3

import pytest
import sqlalchemy as sa
from sqlalchemy import String, Text
from sqlmodel import Session, select

from pbem.adapters.outbox_sender import _finish
from pbem.services.common.ledger import MailLedger
from pbem.store.db import is_transient, make_engine
from pbem.store.models import InboundMail, OutboxMail, limit_of, metadata, utcnow

OUR_OWN_TEXT = {("snapshots", "state"), ("outbox", "text_body"), ("outbox", "html_body"),
                ("decision_clocks", "extended")}  # written by pbem alone, never from a mail


def test_every_text_column_declares_its_limit() -> None:
    for table in metadata.tables.values():
        for column in table.columns:
            if isinstance(column.type, Text):
                assert limit_of(column) or (table.name, column.name) in OUR_OWN_TEXT, (table.name, column.name)
            elif isinstance(column.type, String):
                assert column.type.length, (table.name, column.name)


def test_a_mails_values_are_cut_to_their_columns(db_engine) -> None:
    record = InboundMail(message_id="<" + "m" * 3000 + "@x>", mailbox="INBOX", sender="s\x00" * 1000,
                         outcome="o" * 500, reason="why? " * 5000, received_at=utcnow())
    MailLedger(db_engine).queue_mail("ann@example.test", "s" * 5000, "body\x00", inbound=record)
    with Session(db_engine) as s:
        stored = s.exec(select(InboundMail)).one()
        mail = s.exec(select(OutboxMail)).one()
    assert len(stored.message_id) == limit_of(InboundMail.message_id) == 255
    assert stored.sender == "s" * limit_of(InboundMail.sender)
    assert len(stored.outcome) == limit_of(InboundMail.outcome) and len(stored.reason) == limit_of(InboundMail.reason)
    assert len(mail.subject) == limit_of(OutboxMail.subject) and mail.text_body == "body"
    _finish(db_engine, mail.id, last_error="550 " + "no " * 5000)  # a server's words, through a Core UPDATE
    with Session(db_engine) as s:
        assert len(s.get(OutboxMail, mail.id).last_error) == limit_of(OutboxMail.last_error)


def test_json_values_lose_their_nul_characters_and_values_that_fit_are_kept_as_they_are(db_engine) -> None:
    """Issue 45, point 8: a row's values are checked without being copied (every row a mail writes passes), and
    still cut: a NUL anywhere in a JSON value, a key or a list's item, is taken out; what fits is the same object."""
    headers = {"X-A\x00": "b\x00", "X-List": ["c\x00", {"d": "e\x00"}]}
    fits = {"From-Name": "Fifth Avenue #1 (pbem)", "X-List": ["a", 1, None]}
    mails = [OutboxMail(recipient="ann@example.test", subject="s", headers=headers, text_body="t", html_body="", message_id="<a@x>",
                        next_attempt_at=utcnow(), created_at=utcnow()),
             OutboxMail(recipient="bob@example.test", subject="s", headers=fits, text_body="t", html_body="", message_id="<b@x>",
                        next_attempt_at=utcnow(), created_at=utcnow())]
    with Session(db_engine) as s:
        s.add_all(mails)
        s.flush()
        assert mails[1].headers is fits and mails[1].subject == "s"
        s.commit()
    with Session(db_engine) as s:
        stored = {m.recipient: m.headers for m in s.exec(select(OutboxMail)).all()}
    assert stored == {"ann@example.test": {"X-A": "b", "X-List": ["c", {"d": "e"}]}, "bob@example.test": fits}


def test_a_refused_statement_is_not_a_failed_database(db_engine) -> None:
    MailLedger(db_engine).queue_mail("ann@example.test", "a", "b")
    with pytest.raises(sa.exc.IntegrityError) as refused, db_engine.begin() as connection:
        mid = connection.execute(sa.text("SELECT message_id FROM outbox")).scalar()
        connection.execute(sa.text("INSERT INTO outbox (recipient, subject, headers, text_body, status, attempts, "
                                   "next_attempt_at, last_error, message_id, created_at) VALUES ('a', 'b', '{}', "
                                   "'c', 'queued', 0, :t, '', :m, :t)"), {"m": mid, "t": utcnow()})
    assert not is_transient(refused.value)


def test_a_terminated_connection_is_a_failed_database(postgresql_url) -> None:
    engine = make_engine(postgresql_url)
    admin = sa.create_engine(postgresql_url, isolation_level="AUTOCOMMIT")
    try:
        with engine.connect() as connection:
            pid = connection.execute(sa.text("SELECT pg_backend_pid()")).scalar()
            with admin.connect() as other:
                other.execute(sa.text("SELECT pg_terminate_backend(:pid)"), {"pid": pid})
            with pytest.raises(sa.exc.DBAPIError) as failed:
                connection.execute(sa.text("SELECT 1"))
        assert is_transient(failed.value)
        with pytest.raises(sa.exc.DBAPIError) as too_long, engine.begin() as connection:
            connection.execute(sa.text("INSERT INTO marks (name, at) VALUES (:n, now())"), {"n": "x" * 300})
        assert not is_transient(too_long.value)
    finally:
        admin.dispose()
        engine.dispose()


@pytest.mark.parametrize("message, transient", [("database is locked", True), ("no such table: games", False)])
def test_sqlite_failures(message: str, transient: bool) -> None:
    assert is_transient(sa.exc.OperationalError("SELECT 1", {}, sqlite3.OperationalError(message))) is transient
