"""Headers anybody can write: what is read from them is valid or absent, never carried into our headers."""

from __future__ import annotations

import pytest

from pbem.adapters.outbox_sender import UnsendableMail, build_message
from pbem.mail.message import (MAX_MESSAGE_ID, MAX_REFERENCES, MAX_SUBJECT, is_message_id, ledger_key, message_id,
                               references, sender, subject)
from pbem.mail.text import read_message
from pbem.store.models import OutboxMail, utcnow

CRLF_WORD = "=?utf-8?q?<a=0D=0AX-Injected:_1@evil>?="


def mail(*headers: str, body: str = "board") -> bytes:
    return ("\r\n".join(headers) + "\r\n\r\n" + body + "\r\n").encode("utf-8", "surrogateescape")


@pytest.mark.parametrize("value", [
    "<abc@example.org>", "<CAF=x+y_z@mail.gmail.com>", "<1.2.3@[127.0.0.1]>", "<a'b/c?d{e}~@x-y.example>",
    "<" + "a" * (MAX_MESSAGE_ID - 4) + "@b>",
])
def test_a_valid_message_id_is_kept(value: str) -> None:
    msg = read_message(mail(f"Message-ID: {value}"))
    assert message_id(msg) == value == ledger_key(msg, "INBOX 1 1")


@pytest.mark.parametrize("value", [
    CRLF_WORD, "<a\x00b@c>", "<a b@c>", "<ab@c> <d@e>", "abc@example.org", "<abc>", "<>", "-",
    "<" + "a" * MAX_MESSAGE_ID + "@b>", "<ä@example.org>", "<a@b>\r\n X-Injected: 1",
])
def test_an_invalid_message_id_counts_as_absent(value: str) -> None:
    msg = read_message(mail(f"Message-ID: {value}", "From: ann@example.org"))
    assert message_id(msg) is None
    key = ledger_key(msg, "INBOX 1 1")
    assert is_message_id(key) and len(key) <= MAX_MESSAGE_ID
    # A second copy of the same mail is still known as the same mail; another invalid value is another mail.
    assert ledger_key(read_message(mail(f"Message-ID: {value}")), "INBOX 1 2") == key
    assert ledger_key(read_message(mail(f"Message-ID: {value}x")), "INBOX 1 1") != key


def test_a_mail_without_message_id_is_known_by_its_place() -> None:
    msg = read_message(mail("From: ann@example.org"))
    assert ledger_key(msg, "INBOX 7 1") != ledger_key(msg, "INBOX 7 2")
    assert ledger_key(msg, "INBOX 7 1") == ledger_key(msg, "INBOX 7 1")


@pytest.mark.parametrize("value, expected", [
    ("Ann <Ann@Example.ORG>", "ann@example.org"),
    ("ann@example.org", "ann@example.org"),
    ("ann@example.org (Ann at home)", "ann@example.org"),
    ('"Lovelace, Ann" <ann@example.org>', "ann@example.org"),
    # The address in angle brackets wins over what looks like an address in the name.
    ("ann@example.org <evil@x.test>", "evil@x.test"),
    ('"ann@example.org" <evil@x.test>', "evil@x.test"),
    ("=?utf-8?q?Ann_=3Cann=40example.org=3E?= <evil@x.test>", "evil@x.test"),
    # Not exactly one valid ASCII address: nobody we could answer.
    ("<evil@x.test> ann@example.org", None),
    ("ann@example.org, bob@example.org", None),
    ("Ann <ann@example.org>, Bob <bob@example.org>", None),
    ("\u212aim@example.org", None),  # a Kelvin sign, not a K
    ("Kim <kim@ex\u00e4mple.org>", None),
    ("=?utf-8?q?ann=40example.org?=", None),
    ("Ann <ann@example.org\r\n X-Injected: 1>", None),
    ("a" * 250 + "@example.org", None),
    ("", None), ("<>", None), ("Ann", None),
])
def test_the_sender_is_one_valid_address(value: str, expected: str | None) -> None:
    assert sender(read_message(mail(f"From: {value}"))) == expected


def test_references_keep_only_valid_ids_and_the_newest_few() -> None:
    many = " ".join(f"<r{n}@example.org>" for n in range(100))
    msg = read_message(mail(f"In-Reply-To: {CRLF_WORD} <p@example.org>", f"References: <bad id> {many}"))
    found = references(msg)
    assert len(found) == MAX_REFERENCES
    assert found[-1] == "<r99@example.org>" and all(is_message_id(mid) for mid in found)
    assert references(read_message(mail("In-Reply-To: <a@b>", "References: <c@d><a@b>"))) == ["<a@b>", "<c@d>"]


def test_the_subject_is_one_line_of_limited_length() -> None:
    msg = read_message(mail("Subject: =?utf-8?q?a=0D=0AX-Injected:_1=00b?= " + "x" * 1000))
    text = subject(msg)
    assert "\r" not in text and "\n" not in text and "\x00" not in text and len(text) == MAX_SUBJECT


def _outbox(recipient: str = "ann@example.org", **headers: str) -> OutboxMail:
    return OutboxMail(recipient=recipient, subject="Re: a\r\nBcc: evil@x.test", text_body="hello\n",
                      headers={"Message-ID": "<ours@pbem.example>", **headers}, next_attempt_at=utcnow(),
                      message_id="<ours@pbem.example>", created_at=utcnow())


def test_no_value_reaches_a_header_we_write_unchecked() -> None:
    message = build_message(_outbox(**{"In-Reply-To": "<a\r\nX-Injected: 1@evil>",
                                       "References": "<ok@example.org> <a\r\nX-Injected: 1@evil>",
                                       "X-Note": "one\r\nX-Injected: 2", "Bad:Name": "x"}), "game@example.org")
    text = message.as_string()
    assert "X-Injected" not in text.split("\n\n", 1)[0].replace("X-Note: one X-Injected: 2", "")
    assert message["In-Reply-To"] is None
    assert message["References"] == "<ok@example.org>"
    assert message["Subject"] == "Re: a Bcc: evil@x.test" and message["Bcc"] is None
    assert "Bad:Name" not in text


@pytest.mark.parametrize("recipient", ["", "ann", "ann@example.org\r\nBcc: x@y", "k\u00e4the@example.org"])
def test_a_recipient_no_server_would_take_is_unsendable(recipient: str) -> None:
    with pytest.raises(UnsendableMail):
        build_message(_outbox(recipient), "game@example.org")
