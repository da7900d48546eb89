"""The game mailbox over IMAP (imapclient): list, fetch, move.

Mail is read with BODY.PEEK[] (it stays unseen) and moved out of the inbox only
after its processing has been committed, with MOVE where the server has it and
COPY + \\Deleted + UID EXPUNGE otherwise.
"""

from __future__ import annotations

import ssl
import time
from dataclasses import dataclass
from datetime import datetime, timezone
from types import TracebackType
from typing import Callable

from imapclient import IMAPClient
from imapclient.exceptions import IMAPClientError

from ..config import ServerConfig


@dataclass
class MailboxState:
    name: str
    uidvalidity: int
    uids: list[int]


class Inbox:
    def __init__(self, server: ServerConfig, *, timeout: float = 60) -> None:
        self.server = server
        self.timeout = timeout
        self.client: IMAPClient | None = None

    def __enter__(self) -> "Inbox":
        self.connect()
        return self

    def __exit__(self, exc_type: type[BaseException] | None, exc: BaseException | None, tb: TracebackType | None) -> None:
        self.close()

    def connect(self) -> IMAPClient:
        from imapclient import SocketTimeout

        s = self.server
        # Loading the CA bundle costs ~40 ms a connection: only where TLS is used.
        context = ssl.create_default_context() if s.security in ("ssl", "starttls") else None
        client = IMAPClient(s.host, port=s.port, ssl=s.security == "ssl", ssl_context=context,
                            timeout=SocketTimeout(connect=15, read=self.timeout))
        if s.security == "starttls":
            client.starttls(context)
        client.login(s.user, s.password)
        self.client = client
        return client

    def close(self) -> None:
        if self.client is not None:
            try:
                self.client.logout()
            except (IMAPClientError, OSError):
                pass
            self.client = None

    @property
    def imap(self) -> IMAPClient:
        assert self.client is not None, "not connected"
        return self.client

    def ensure_folder(self, name: str) -> None:
        if not self.imap.folder_exists(name):
            self.imap.create_folder(name)

    def open(self, mailbox: str) -> MailboxState:
        info = self.imap.select_folder(mailbox)
        uids = sorted(int(uid) for uid in self.imap.search(["ALL"]))
        return MailboxState(mailbox, int(info[b"UIDVALIDITY"]), uids)

    def fetch(self, uid: int) -> bytes | None:
        """The mail as sent; None when it is gone (another session expunged it: Dovecot then answers NIL)."""
        data = self.imap.fetch([uid], ["BODY.PEEK[]"])
        body = (data.get(uid) or {}).get(b"BODY[]")
        return bytes(body) if body is not None else None

    def arrived(self, uid: int) -> datetime | None:
        """When mail ``uid`` of the selected mailbox arrived (its INTERNALDATE, in UTC); None when it is gone."""
        data = self.imap.fetch([uid], ["INTERNALDATE"])
        moment = (data.get(uid) or {}).get(b"INTERNALDATE")
        return moment.astimezone(timezone.utc) if isinstance(moment, datetime) else None  # naive = local time

    def backlog(self) -> tuple[int, datetime | None]:
        """The mails in the selected mailbox now, and when the oldest of them (the lowest UID) arrived."""
        uids = self.imap.search(["ALL"])
        return len(uids), self.arrived(min(uids)) if uids else None

    def headers(self, uid: int, names: tuple[str, ...] = ("MESSAGE-ID",)) -> bytes:
        """Only these header fields of a mail, as sent (b"" when it has none of them)."""
        data = self.imap.fetch([uid], [f"BODY.PEEK[HEADER.FIELDS ({' '.join(names)})]"])
        entry = data.get(uid, {})
        return bytes(next((v for k, v in entry.items() if k.startswith(b"BODY[HEADER")), b"") or b"")

    def move(self, uids: list[int], folder: str) -> None:
        if not uids:
            return
        if self.imap.has_capability("MOVE"):
            self.imap.move(uids, folder)
            return
        self.imap.copy(uids, folder)
        self.imap.add_flags(uids, [b"\\Deleted"])
        if self.imap.has_capability("UIDPLUS"):
            self.imap.uid_expunge(uids)
        else:
            self.imap.expunge()

    def wait(self, seconds: float, stop: Callable[[], bool] = lambda: False, chunk: float = 5.0) -> bool:
        """Wait up to ``seconds`` for news in the selected mailbox; True when something arrived.

        Uses IDLE where the server has it (checked in short chunks so a stop request is seen soon),
        and plain sleeping otherwise. A dropped connection shows up as an error on the NOOP after.
        """
        deadline = time.monotonic() + seconds
        # A server tells an IDLE session only of changes made while it idles (Dovecot: not of mail that came
        # between the last command and IDLE), so ask first: mail that arrived since the last search ends the wait.
        _, changes = self.imap.noop()
        if any(len(change) > 1 and change[1] == b"EXISTS" for change in changes):
            return True
        if not self.imap.has_capability("IDLE"):
            while time.monotonic() < deadline and not stop():
                time.sleep(min(chunk, max(0.0, deadline - time.monotonic())))
            return True
        arrived = False
        self.imap.idle()
        try:
            while time.monotonic() < deadline and not stop() and not arrived:
                arrived = bool(self.imap.idle_check(timeout=min(chunk, max(0.1, deadline - time.monotonic()))))
        finally:
            self.imap.idle_done()
        self.imap.noop()
        return arrived
