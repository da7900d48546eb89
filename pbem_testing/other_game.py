"""A seated player's mail of one long line, and a player of another game who asks for the board meanwhile (issue
41, point 2), through a real ``pbem worker`` on a real Dovecot and SMTP server.

Game 1 seats Ann and Bob, game 2 Cy and Dee. Ann answers her opening mail with the worst one-line text the limits
let through; Dee answers hers with ``board`` and her mail lands in the mailbox right behind Ann's. The worker reads
one mail after another, so Dee waits for Ann's mail to be read: ``tests/e2e/test_long_line_and_other_games.py``
proves that her answer comes, ``bench/other_game.py`` measures how long it takes and what the worker's CPU spent.
"""

from __future__ import annotations

import os
import subprocess
import time
from email import policy
from email.parser import BytesParser
from pathlib import Path

from pbem.services.table.service import GameService
from pbem.store.db import make_engine
from .mailservers import Dovecot
from .waiting import wait_until
from .workers import stop_workers, worker_env

GAME = "game@example.test"
FIRST_GAME = [("Ann", "ann@example.test"), ("Bob", "bob@example.test")]
OTHER_GAME = [("Cy", "cy@example.test"), ("Dee", "dee@example.test")]
USERS = ("game", "ann", "bob", "cy", "dee")

# The one-line texts that cost the most to read (measured through the worker's reading of one mail): the issue's
# line of a real client's fixture, a line of action A's word after a clause mark again and again (each a command
# to try: 1.5 s of CPU before the mail's word budget), short words that look like names (each a word to match
# against the game's words and a name for the courtesy step), and a line of address pieces.
LONG_LINES = {
    "'A' and 700,000 '>'": "A" + ">" * 700_000,
    "330,000 x 'A,'": "A, " * 330_000,
    "247,000 x 'Ann' and a no-break space": "Ann\xa0" * 247_000,
    "111,000 x 'a@b. <a@b'": "a@b. <a@b" * 111_000,
}
# The costliest mail of any shape (bench/hostile.py): an HTML-only body of 124,000 tags (1 MB).
HTML_TAGS = "<p>board</p>" + "<b> </b>" * 124_000

_parse = BytesParser(policy=policy.default).parsebytes


def _cpu_seconds(pid: int) -> float:
    """The user and system CPU a process has spent (Linux /proc)."""
    fields = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()
    return (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")


class TwoGames:
    """Two games, a running worker, and the two replies. Use as a context manager: the worker is stopped after."""

    def __init__(self, url: str, dovecot: Dovecot, smtp_port: int, folder: Path) -> None:
        self.url, self.dovecot, self.smtp_port, self.folder = url, dovecot, smtp_port, folder
        self.worker: subprocess.Popen | None = None
        self.notes: list[str] = []

    def __enter__(self) -> TwoGames:
        engine = make_engine(self.url)
        games = GameService(engine, mail_domain="example.test")
        self.games = (games.create_game("fifth-avenue", FIRST_GAME, seed=5),
                      games.create_game("fifth-avenue", OTHER_GAME, seed=6))
        engine.dispose()
        env = worker_env(self.url, self.folder, self.dovecot, self.smtp_port, GAME, 1)
        self.log = open(self.folder / "worker.log", "w")
        self.worker = subprocess.Popen(["pbem", "worker"], env=env, stdout=self.log, stderr=subprocess.STDOUT)
        self.opening = {user: wait_until(lambda user=user: self.inbox(user), f"{user}'s opening mail")[0]
                        for user in ("ann", "dee")}
        return self

    def __exit__(self, *exc_info: object) -> None:
        stop_workers([self.worker], self.notes)
        self.log.close()

    def inbox(self, user: str) -> list[bytes]:
        with self.dovecot.imap(user) as client:
            client.select_folder("INBOX", readonly=True)
            uids = sorted(client.search("ALL"))
            fetched = client.fetch(uids, [b"BODY.PEEK[]"]) if uids else {}
            return [fetched[uid][b"BODY[]"] for uid in uids]

    def reply(self, user: str, body: str, n: int, content_type: str = "text/plain") -> tuple[str, bytes]:
        """``user``'s Reply to their opening mail (so it proves the seat), with ``body`` as its text."""
        original = _parse(self.opening[user], headersonly=True)
        mid = f"<long-line-{n}-{user}@client.example.test>"
        head = (f"From: {user.capitalize()} <{user}@example.test>\r\nTo: {GAME}\r\nSubject: Re: {original['Subject']}"
                f"\r\nMessage-ID: {mid}\r\nIn-Reply-To: {original['Message-ID']}\r\nReferences: {original['Message-ID']}"
                f"\r\nDate: Mon, 23 Nov 2026 10:00:00 +0000\r\nContent-Type: {content_type}; charset=utf-8\r\n\r\n")
        return mid, head.encode() + body.encode("utf-8") + b"\r\n"

    def answer_to(self, user: str, mid: str) -> str | None:
        """The text of pbem's answer to ``mid`` in ``user``'s INBOX, if it has come. Only the In-Reply-To of each
        mail is fetched until it is there: a game mail is some 70 KB, and this is asked many times a second."""
        with self.dovecot.imap(user) as client:
            client.select_folder("INBOX", readonly=True)
            uids = client.search("ALL")
            heads = client.fetch(uids, [b"BODY.PEEK[HEADER.FIELDS (IN-REPLY-TO)]"]) if uids else {}
            for uid, data in heads.items():
                if _parse(data[b"BODY[HEADER.FIELDS (IN-REPLY-TO)]"], headersonly=True)["In-Reply-To"] == mid:
                    raw = client.fetch([uid], [b"BODY.PEEK[]"])[uid][b"BODY[]"]
                    return _parse(raw).get_body(("plain",)).get_content()
        return None

    def play(self, long_line: str, n: int = 1, content_type: str = "text/plain") -> dict:
        """Ann's long line, then Dee's ``board``, put in the game mailbox at one moment; returns both answers, the
        seconds from that moment to Dee's answer in her INBOX, and the worker's CPU seconds until then."""
        assert self.worker is not None
        ann_mid, ann_raw = self.reply("ann", long_line, n, content_type)
        dee_mid, dee_raw = self.reply("dee", "board", n)
        cpu = _cpu_seconds(self.worker.pid)
        with self.dovecot.imap("game") as client:
            start = time.monotonic()
            client.multiappend("INBOX", [ann_raw, dee_raw])  # in this order: Dee's mail is read after Ann's
        dee = wait_until(lambda: self.answer_to("dee", dee_mid), "Dee's answer while Ann's long line is read")
        latency = time.monotonic() - start
        spent = _cpu_seconds(self.worker.pid) - cpu
        ann = wait_until(lambda: self.answer_to("ann", ann_mid), "the answer to Ann's long line")
        return {"ann": ann, "dee": dee, "latency": latency, "worker_cpu": spent}


__all__ = ["FIRST_GAME", "GAME", "HTML_TAGS", "LONG_LINES", "OTHER_GAME", "TwoGames", "USERS"]
