"""Robot players that play by mail, the way a person with a mail client would.

A robot reads its own INBOX over IMAP (imapclient), finds the newest game mail
that asks it for the current decision ("(decision N)" in the subject), picks
one of the commands the mail lists under "Send one of these commands" with a
seeded random generator (a kind of command first, then one of that kind, so
robots also bid, pass, score and stop rather than only placing businesses),
and answers over SMTP: "Re:" subject, In-Reply-To and References, its command
on top and the game's mail quoted below with "> ".
"""

from __future__ import annotations

import re
import smtplib
import time
from dataclasses import dataclass
from email import policy
from email.message import EmailMessage
from email.parser import BytesParser
from email.utils import format_datetime, formataddr, make_msgid, parseaddr
from datetime import datetime, timezone
from typing import TYPE_CHECKING, Protocol

from ..games.rng import Rng

if TYPE_CHECKING:
    from imapclient import IMAPClient

LISTED = re.compile(r"^Send one of these commands.*?:\n((?:  .+\n)+)", re.M)
DECISION = re.compile(r"\(decision (\d+)\)")


class MailAccess(Protocol):
    """Where a robot's mailbox is: the demo's own servers, or any IMAP and SMTP server (the tests use Dovecot)."""

    host: str  # of the SMTP server
    smtp_port: int

    def imap(self, address: str) -> IMAPClient:
        """A new IMAP connection logged in as ``address``."""


class RobotError(RuntimeError):
    """A robot cannot answer (its request never came, or listed no command)."""


@dataclass
class Reply:
    decision: int
    command: str
    message_id: str


def listed_commands(text: str) -> list[str]:
    """The commands a game mail offers, in its order."""
    found = LISTED.search(text.replace("\r\n", "\n"))
    return [line.strip() for line in found.group(1).splitlines() if line.strip()] if found else []


def pick(commands: list[str], rng: Rng) -> str:
    """A kind of command first (its first word: place, A, B, C, D, cards, move, bid, pass, build, stop),
    then one command of that kind."""
    kinds: dict[str, list[str]] = {}
    for command in commands:
        kinds.setdefault(command.split()[0].lower(), []).append(command)
    group = kinds[sorted(kinds)[rng.below(len(kinds))]]
    return group[rng.below(len(group))]


def text_of(message: EmailMessage) -> str:
    part = message.get_body(("plain",))
    return part.get_content().replace("\r\n", "\n") if part is not None else ""


def reply_like_a_client(original: EmailMessage, sender: str, text: str, *, now: datetime | None = None) -> EmailMessage:
    """A reply as mail clients write it: the answer on top, the original quoted below."""
    now = now or datetime.now(timezone.utc)
    subject = str(original["Subject"] or "")
    reply = EmailMessage()
    reply["From"] = sender
    reply["To"] = str(original["Reply-To"] or original["From"])
    reply["Subject"] = subject if subject.lower().startswith("re:") else f"Re: {subject}"
    reply["Date"] = format_datetime(now)
    reply["Message-ID"] = make_msgid(domain=parseaddr(sender)[1].rpartition("@")[2] or "demo.test")
    if original["Message-ID"]:
        reply["In-Reply-To"] = str(original["Message-ID"])
        reply["References"] = f"{original.get('References', '')} {original['Message-ID']}".strip()
    quoted = "\n".join(("> " + line).rstrip() for line in text_of(original).splitlines())
    written = original["Date"] or format_datetime(now)
    reply.set_content(f"{text}\n\nOn {written}, {original['From']} wrote:\n{quoted}\n")
    return reply


def _subject(header_block: bytes) -> str:
    """The Subject of a fetched header block, decoded."""
    message = BytesParser(policy=policy.default).parsebytes(header_block, headersonly=True)
    return str(message["Subject"] or "")


class Robot:
    """One seat played by a program through its own mailbox."""

    def __init__(self, mail: MailAccess, name: str, address: str, seed: int, *, subject_tag: str) -> None:
        self.mail = mail
        self.name = name
        self.address = address.strip().lower()
        self.subject_tag = subject_tag  # "[Fifth Avenue #7]": mail of other games is left alone
        self.rng = Rng(seed)
        self.requests: dict[int, tuple[int, EmailMessage]] = {}  # decision -> (uid, the newest mail asking it)
        self.last_uid = 0
        self.sent = 0
        self._client: IMAPClient | None = None

    # -- the mailbox -----------------------------------------------------------------

    def _imap(self) -> IMAPClient:
        if self._client is None:
            self._client = self.mail.imap(self.address)
            self._client.select_folder("INBOX")
        return self._client

    def close(self) -> None:
        client, self._client = self._client, None
        if client is not None:
            try:
                client.logout()
            except Exception:  # noqa: BLE001 - the server may be gone already
                pass

    def check_mail(self) -> int:
        """Read the mails that arrived since the last look; returns how many."""
        from imapclient.exceptions import IMAPClientError

        try:
            client = self._imap()
            client.noop()
            uids = sorted(uid for uid in client.search(["UID", f"{self.last_uid + 1}:*"]) if uid > self.last_uid)
        except (IMAPClientError, OSError):
            self.close()  # log in again next time
            raise
        if not uids:
            return 0
        # Subjects first (cheap); the whole mail only for the newest request of each decision.
        heads = client.fetch(uids, ["BODY.PEEK[HEADER.FIELDS (SUBJECT)]"])
        wanted: dict[int, int] = {}
        for uid in uids:
            subject = _subject(next((v for k, v in heads.get(uid, {}).items() if k.startswith(b"BODY[HEADER")), b""))
            found = DECISION.search(subject)
            if found and self.subject_tag in subject:
                wanted[int(found.group(1))] = uid
        if wanted:
            bodies = client.fetch(sorted(wanted.values()), ["BODY.PEEK[]"])
            for decision, uid in wanted.items():
                raw = bodies.get(uid, {}).get(b"BODY[]")
                if raw is not None:
                    self.requests[decision] = (uid, BytesParser(policy=policy.default).parsebytes(raw))
        self.last_uid = uids[-1]
        return len(uids)

    def request(self, decision: int, timeout: float = 10.0) -> EmailMessage:
        """The newest mail asking for ``decision``, waiting for it up to ``timeout`` seconds."""
        deadline = time.monotonic() + timeout
        while True:
            self.check_mail()
            if decision in self.requests:
                for older in [d for d in self.requests if d < decision]:
                    del self.requests[older]  # answered long ago
                return self.requests[decision][1]
            if time.monotonic() > deadline:
                raise RobotError(f"{self.name} <{self.address}> got no mail asking for decision {decision} "
                                 f"within {timeout:.0f} s")
            time.sleep(0.05)

    # -- answering -------------------------------------------------------------------

    def answer(self, decision: int, game_address: str, *, timeout: float = 10.0) -> Reply:
        """Read the request for ``decision``, choose a command and mail it to the game."""
        request = self.request(decision, timeout)
        commands = listed_commands(text_of(request))
        if not commands:
            raise RobotError(f"the mail asking {self.name} for decision {decision} lists no command")
        command = pick(commands, self.rng)
        reply = reply_like_a_client(request, formataddr((self.name, self.address)), command)
        self.send(reply, game_address)
        return Reply(decision, command, str(reply["Message-ID"]))

    def send(self, message: EmailMessage, to: str) -> None:
        with smtplib.SMTP(self.mail.host, self.mail.smtp_port, timeout=30) as smtp:
            smtp.send_message(message, from_addr=self.address, to_addrs=[to])
        self.sent += 1
