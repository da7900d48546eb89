"""The mail server fixtures are real servers: Dovecot IMAP/LMTP and SMTP in front of it."""

from __future__ import annotations

import asyncio
from email.message import EmailMessage
from email.utils import make_msgid

import aiosmtplib
import pytest
from imapclient import IMAPClient
from imapclient.exceptions import LoginError

from pbem_testing.mailservers import Dovecot, Mailboxes, SmtpToLmtp
from pbem_testing.waiting import wait_until


def _message(sender: str, to: list[str], subject: str, body: str = "hello\n") -> EmailMessage:
    message = EmailMessage()
    message["From"] = sender
    message["To"] = ", ".join(to)
    message["Subject"] = subject
    message["Message-ID"] = make_msgid(domain="example.test")
    message.set_content(body)
    return message


def _send(smtp: SmtpToLmtp, message: EmailMessage, recipients: list[str] | None = None):
    return asyncio.run(
        aiosmtplib.send(
            message,
            recipients=recipients,
            hostname=smtp.host,
            port=smtp.port,
            use_tls=False,
            start_tls=False,
            timeout=60,
        )
    )


def _raw(subject: str) -> bytes:
    return f"From: game@example.test\r\nTo: game@example.test\r\nSubject: {subject}\r\n\r\nbody of {subject}\r\n".encode()


def test_imap_login_append_and_fetch(dovecot: Dovecot, mailboxes: Mailboxes) -> None:
    client = IMAPClient(dovecot.host, port=dovecot.imap_port, ssl=False, timeout=10)
    try:
        client.login("game", "secret")
        client.append("INBOX", _raw("appended"))
        client.select_folder("INBOX")
        uids = client.search("ALL")
        assert len(uids) == 1
        fetched = client.fetch(uids, [b"BODY.PEEK[]", b"FLAGS"])[uids[0]]
        assert fetched[b"BODY[]"] == _raw("appended")
        assert b"\\Seen" not in fetched[b"FLAGS"]
    finally:
        client.logout()
    with pytest.raises(LoginError):
        other = IMAPClient(dovecot.host, port=dovecot.imap_port, ssl=False, timeout=10)
        try:
            other.login("game", "wrong")
        finally:
            other.shutdown()


def test_smtp_delivers_into_the_inbox(smtp_server: SmtpToLmtp, mailboxes: Mailboxes) -> None:
    message = _message(mailboxes.address("game"), [mailboxes.address("ann")], "Your turn")
    refused, _reply = _send(smtp_server, message)
    assert refused == {}
    [delivered] = mailboxes.wait_for("ann")
    assert b"Subject: Your turn" in delivered
    assert b"Delivered-To: ann@example.test" in delivered
    assert message["Message-ID"].encode() in delivered
    assert [(m.mail_from, m.rcpt_tos) for m in smtp_server.messages] == [("game@example.test", ("ann@example.test",))]
    assert mailboxes.messages("bob") == []


def test_unknown_recipient_is_refused_permanently(smtp_server: SmtpToLmtp, mailboxes: Mailboxes) -> None:
    with pytest.raises(aiosmtplib.SMTPRecipientsRefused) as refused:
        _send(smtp_server, _message("game@example.test", ["nobody@example.test"], "lost"))
    [error] = refused.value.recipients
    assert 500 <= error.code < 600
    # one good and one unknown recipient: the good one still gets it
    results, _reply = _send(
        smtp_server, _message("game@example.test", ["bob@example.test", "nobody@example.test"], "half")
    )
    assert list(results) == ["nobody@example.test"]
    assert 500 <= results["nobody@example.test"][0] < 600
    assert len(mailboxes.wait_for("bob")) == 1
    assert len(smtp_server.messages) == 1


def test_refuse_with_simulates_temporary_and_permanent_failures(
    smtp_server: SmtpToLmtp, mailboxes: Mailboxes
) -> None:
    smtp_server.refuse_with(451)
    with pytest.raises(aiosmtplib.SMTPRecipientsRefused) as refused:
        _send(smtp_server, _message("game@example.test", ["cy@example.test"], "try 1"))
    assert [error.code for error in refused.value.recipients] == [451]

    smtp_server.refuse_with(550)
    with pytest.raises(aiosmtplib.SMTPRecipientsRefused) as refused:
        _send(smtp_server, _message("game@example.test", ["cy@example.test"], "try 2"))
    assert [error.code for error in refused.value.recipients] == [550]
    assert mailboxes.messages("cy") == []

    smtp_server.refuse_with(None)
    refused_now, _reply = _send(smtp_server, _message("game@example.test", ["cy@example.test"], "try 3"))
    assert refused_now == {}
    [delivered] = mailboxes.wait_for("cy")
    assert b"Subject: try 3" in delivered


def test_smtp_server_down_and_up_again(smtp_server: SmtpToLmtp, mailboxes: Mailboxes) -> None:
    port = smtp_server.port
    smtp_server.down()
    with pytest.raises(aiosmtplib.SMTPConnectError):
        _send(smtp_server, _message("game@example.test", ["dee@example.test"], "while down"))
    smtp_server.up()
    assert smtp_server.port == port
    refused, _reply = _send(smtp_server, _message("game@example.test", ["dee@example.test"], "back up"))
    assert refused == {}
    [delivered] = mailboxes.wait_for("dee")
    assert b"Subject: back up" in delivered


def test_move_to_a_new_folder(mailboxes: Mailboxes) -> None:
    with mailboxes.login("game") as client:
        assert b"MOVE" in client.capabilities()
        client.append("INBOX", _raw("to move"))
        client.create_folder("Processed")
        client.select_folder("INBOX")
        [uid] = client.search("ALL")
        client.move([uid], "Processed")
        assert client.search("ALL") == []
    assert mailboxes.messages("game") == []
    assert mailboxes.messages("game", folder="Processed") == [_raw("to move")]


def test_idle_sees_an_append_from_another_connection(mailboxes: Mailboxes) -> None:
    with mailboxes.login("game") as watcher, mailboxes.login("game") as writer:
        watcher.select_folder("INBOX")
        watcher.idle()
        writer.append("INBOX", _raw("wake up"))
        seen: list = []

        def told() -> bool:
            seen.extend(watcher.idle_check(timeout=0.5))
            return any(b"EXISTS" in response for response in seen)

        wait_until(told, "IDLE tells of the append", every=0)
        watcher.idle_done()
        assert any(response[1] == b"EXISTS" and response[0] == 1 for response in seen), seen


def test_add_user_while_running(dovecot: Dovecot, smtp_server: SmtpToLmtp, mailboxes: Mailboxes) -> None:
    dovecot.add_user("probe-added", "secret")
    refused, _reply = _send(smtp_server, _message("game@example.test", ["probe-added@example.test"], "welcome"))
    assert refused == {}
    assert len(mailboxes.wait_for("probe-added")) == 1


@pytest.mark.parametrize("run", [1, 2])
def test_every_test_starts_with_empty_mailboxes(run: int, dovecot: Dovecot, mailboxes: Mailboxes) -> None:
    for user in dovecot.users:
        with mailboxes.login(user) as client:
            assert [name for _flags, _delimiter, name in client.list_folders()] == ["INBOX"]
            assert client.select_folder("INBOX")[b"EXISTS"] == 0
    # leave a mess for the next run to find cleaned up
    with mailboxes.login("ann") as client:
        client.append("INBOX", _raw(f"left over {run}"))
        delimiter = client.list_folders()[0][1].decode()
        client.create_folder("Old")
        client.create_folder(f"Old{delimiter}Deeper")
        client.append(f"Old{delimiter}Deeper", _raw("nested"))
