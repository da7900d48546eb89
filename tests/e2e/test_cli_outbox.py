"""The moderator's `pbem outbox ...` commands, run as a moderator would, on real databases."""

from __future__ import annotations

import json

from pbem.services.common.ledger import MailLedger
from pbem.store.db import make_engine

ANN, BOB = "ann@example.org", "bob@example.org"


def test_the_outbox_after_a_new_game(database_url: str, pbem, one_line_error) -> None:
    url = database_url
    assert json.loads(pbem(url, "outbox", "list", "--json").stdout) == []
    pbem(url, "game", "new", "fifth-avenue", "--player", f"Ann={ANN}", "--player", f"Bob={BOB}", "--seed", "3")

    mails = json.loads(pbem(url, "outbox", "list", "--json").stdout)
    assert [m["recipient"] for m in mails] == [ANN, BOB]  # one per player, oldest first
    assert [m["id"] for m in mails] == sorted(m["id"] for m in mails)
    for m in mails:
        assert m["subject"].startswith("[Fifth Avenue #1]")
        assert m["game"] == 1 and m["status"] == "queued" and m["attempts"] == 0 and m["sent_at"] is None
        assert "text_body" not in m

    assert json.loads(pbem(url, "outbox", "list", "--game", "1", "--json").stdout) == mails
    assert json.loads(pbem(url, "outbox", "list", "--status", "queued", "--json").stdout) == mails
    assert json.loads(pbem(url, "outbox", "list", "--status", "sent", "--json").stdout) == []
    assert json.loads(pbem(url, "outbox", "list", "--limit", "1", "--json").stdout) == mails[-1:]

    one_line_error(pbem(url, "outbox", "list", "--status", "lost", check=False), "unknown status 'lost'")
    one_line_error(pbem(url, "outbox", "list", "--game", "9", check=False), "there is no game 9")
    one_line_error(pbem(url, "outbox", "list", "--limit", "0", check=False), "at least 1")

    table = pbem(url, "outbox", "list").stdout
    assert ANN in table and BOB in table and "queued" in table

    first = str(mails[0]["id"])
    shown = json.loads(pbem(url, "outbox", "show", first, "--json").stdout)
    assert shown["recipient"] == ANN and shown["subject"] == mails[0]["subject"]
    assert "Fifth Avenue" in shown["text_body"] and shown["html_body"]
    assert shown["headers"]["Message-ID"] == shown["message_id"]

    text = pbem(url, "outbox", "show", first).stdout
    assert f"Message-ID: {shown['message_id']}" in text
    assert f"Subject: {shown['subject']}" in text and f"To: {ANN}" in text and "Status: queued" in text
    assert text.index("--- text part ---") < text.index("--- HTML part ---")
    assert shown["text_body"].strip().splitlines()[0] in text

    one_line_error(pbem(url, "outbox", "show", "999", check=False), "there is no mail 999")


def test_a_mail_without_html_says_so(database_url: str, pbem) -> None:
    engine = make_engine(database_url)
    MailLedger(engine).queue_mail(ANN, "a plain note", "Just text.")
    engine.dispose()
    text = pbem(database_url, "outbox", "show", "1").stdout
    assert "Subject: a plain note" in text and "Just text." in text
    assert "(no HTML part)" in text and "--- HTML part ---" not in text
    listed = json.loads(pbem(database_url, "outbox", "list", "--json").stdout)
    assert listed[0]["game"] is None
