"""The game mailbox adapter against a real Dovecot: waiting for mail with IDLE."""

from __future__ import annotations

import time
from email.message import EmailMessage

from pbem.adapters.imap_inbox import Inbox
from pbem.config import ServerConfig
from pbem_testing.waiting import HANG


def _mail(subject: str) -> bytes:
    message = EmailMessage()
    message["From"], message["To"], message["Subject"] = "ann@example.test", "game@example.test", subject
    message.set_content("A\n")
    return bytes(message)


def _inbox(dovecot) -> Inbox:
    return Inbox(ServerConfig(dovecot.host, dovecot.imap_port, "plain", "game", "secret"))


def test_mail_that_came_before_the_wait_ends_it_at_once(dovecot, mailboxes) -> None:
    # Dovecot tells an IDLE session only of changes made while it idles: mail that arrived between the
    # worker's last search and its IDLE would wait for the next poll unless the wait asks first.
    with _inbox(dovecot) as inbox, mailboxes.login("game") as other:
        assert inbox.open("INBOX").uids == []
        other.append("INBOX", _mail("before the wait"))
        assert inbox.wait(HANG) is True  # only the mail ends it (running out says False): no clock is read


def test_mail_during_idle_wakes_the_wait_and_nothing_lets_it_run_out(dovecot, mailboxes) -> None:
    with _inbox(dovecot) as inbox, mailboxes.login("game") as other:
        inbox.open("INBOX")
        started = time.monotonic()
        assert inbox.wait(1.0) is False and time.monotonic() - started >= 1.0
        import threading

        timer = threading.Timer(0.5, lambda: other.append("INBOX", _mail("during the wait")))
        timer.start()
        assert inbox.wait(HANG) is True  # woken by the mail, not by the end of the wait (False)
        timer.join()


class _NoIdleServer:
    """An IMAP connection to a server without IDLE (a fake: Dovecot always offers it)."""

    def __init__(self) -> None:
        self.idled = False

    def noop(self):
        return b"NOOP completed", []

    def has_capability(self, name: str) -> bool:
        return name != "IDLE"

    def idle(self) -> None:
        self.idled = True


def test_without_idle_the_wait_is_a_poll() -> None:
    inbox = Inbox(ServerConfig("127.0.0.1", 143, "plain"))
    inbox.client = server = _NoIdleServer()  # type: ignore[assignment]
    started = time.monotonic()
    assert inbox.wait(0.5, chunk=0.1) is True  # the poll interval ran out: look again
    assert time.monotonic() - started >= 0.5 and not server.idled
    asked = []

    def stop() -> bool:  # asked between chunks: the third time, a stop is requested
        asked.append(True)
        return len(asked) >= 3

    assert inbox.wait(HANG, stop, chunk=0.1) is True  # returns on the stop request, long before HANG
    assert len(asked) == 3  # each chunk looked for it
