"""A storm: a steady stream of moves by mail while workers are killed, database connections are cut, and two
workers serve one mailbox. For the storm test and ``bench/storm.py``.

Players' mails go into a real IMAP mailbox (Dovecot); ``workers`` long-running ``pbem worker`` processes
serve it and one database, and answer through a real SMTP server. Each move is the current player's first
legal command, mailed as a reply to the decision, sometimes twice (a client that sends twice) and with a
question mail beside it. Meanwhile, at random moments, one worker is killed with SIGKILL and started
again, and (on PostgreSQL) every connection of the workers is terminated. At the end the storm waits for
the mailbox and the outbox to drain, stops the workers, and counts: moves lost, moves applied twice, mails
set aside, mails delivered twice (at most one per kill: the documented window), workers that died unbidden.
"""

from __future__ import annotations

import random
import signal
import subprocess
import sys
import time
from collections import Counter
from dataclasses import dataclass, field
from email import policy
from email.parser import BytesParser
from pathlib import Path

import sqlalchemy as sa
from sqlmodel import Session, select

from pbem.services.table.service import GameService
from pbem.store.db import make_engine
from pbem.store.models import Event, InboundMail, OutboxMail, OutboxStatus, SignupRequest
from .mailservers import Dovecot, SmtpToLmtp
from .waiting import HANG, NeverHappened, wait_until
from .workers import mails_in_inbox, stop_workers, unsent_mails, worker_env

GAME = "game@example.test"
PLAYERS = [("Ann", "ann@example.test"), ("Bob", "bob@example.test"), ("Cy", "cy@example.test")]
STRANGER = "dee@example.test"


@dataclass
class StormReport:
    moves: int = 0  # move mails sent (each once, some delivered twice)
    applied: int = 0  # of those, applied
    lost: int = 0  # sent, never applied
    applied_twice: int = 0
    copies: int = 0  # mails the players sent twice
    questions: int = 0
    signups: int = 0  # a stranger's signup mails beside the moves ('watch 1', 'games': issue 36)
    signup_unmatched: int = 0  # signup requests stored without their mail's record, or records without them
    stranger_mails: int = 0  # mails pbem sent the stranger (issue 42: a day's answer and the codes that may wait)
    stranger_largest: int = 0  # characters of the longest of them
    kills: int = 0
    cuts: int = 0  # times every database connection of the workers was terminated
    unbidden_exits: int = 0  # workers that ended without being killed
    set_aside: int = 0  # mails recorded as 'error'
    sent: int = 0  # outbox rows sent
    delivered: int = 0  # mails the SMTP server took
    doubles: int = 0  # deliveries beyond the first of one Message-ID
    seconds: float = 0.0
    notes: list[str] = field(default_factory=list)

    @property
    def ok(self) -> bool:
        return (self.lost == self.applied_twice == self.set_aside == self.unbidden_exits == self.signup_unmatched == 0
                and self.doubles <= self.kills)

    def line(self) -> str:
        return (f"{self.moves} moves ({self.copies} sent twice, {self.questions} questions and {self.signups} "
                f"signup mails beside them, {self.signup_unmatched} of these unmatched, {self.stranger_mails} mails to "
                f"the stranger, the longest {self.stranger_largest} characters): "
                f"{self.applied} applied, {self.lost} lost, {self.applied_twice} applied twice; "
                f"{self.kills} kills, {self.cuts} connection cuts, {self.unbidden_exits} unbidden exits; "
                f"{self.set_aside} set aside; {self.sent} mails sent, {self.delivered} delivered, "
                f"{self.doubles} delivered twice; {self.seconds:.1f} s")


class Storm:
    def __init__(self, database_url: str, dovecot: Dovecot, smtp: SmtpToLmtp, folder: Path, *, seed: int = 1,
                 workers: int = 2, log=lambda line: None) -> None:
        self.url = database_url
        self.dovecot = dovecot
        self.smtp = smtp
        self.folder = folder
        self.rng = random.Random(seed)
        self.seed = seed
        self.workers: list[subprocess.Popen | None] = [None] * workers
        self.log = log
        self.report = StormReport()
        self.engine = make_engine(database_url)
        self.games = GameService(self.engine, mail_domain="example.test")
        self.sent_moves: list[str] = []  # Message-IDs
        self.counter = 0

    # ------------------------------------------------------------------ workers

    def _env(self) -> dict[str, str]:
        return worker_env(self.url, self.folder, self.dovecot, self.smtp.port, GAME, 2)

    def _start(self, n: int) -> None:
        log = open(self.folder / f"worker-{n}.log", "ab")
        self.workers[n] = subprocess.Popen([sys.executable, "-m", "pbem", "worker"], env=self._env(),
                                           stdout=log, stderr=subprocess.STDOUT)
        log.close()

    def _check_alive(self) -> None:
        for n, proc in enumerate(self.workers):
            if proc is not None and proc.poll() is not None:
                self.report.unbidden_exits += 1
                self.report.notes.append(f"worker {n} exited with {proc.returncode}")
                self._start(n)

    def kill_one(self) -> None:
        n = self.rng.randrange(len(self.workers))
        proc = self.workers[n]
        assert proc is not None
        proc.send_signal(signal.SIGKILL)
        proc.wait()
        self.report.kills += 1
        self._start(n)

    def cut_connections(self) -> None:
        """Terminate every connection to the storm's database but this one (PostgreSQL only)."""
        with self.engine.connect() as connection:
            connection.execute(sa.text(
                "SELECT pg_terminate_backend(pid) FROM pg_stat_activity "
                "WHERE datname = current_database() AND pid <> pg_backend_pid()"))
            connection.commit()
        self.report.cuts += 1

    # ------------------------------------------------------------------ players

    def _mail(self, sender: str, body: str, decision: int) -> tuple[str, bytes]:
        self.counter += 1
        mid = f"<storm-{self.seed}-{self.counter}@players.example.test>"
        raw = (f"From: {sender}\r\nTo: {GAME}\r\nSubject: Re: [Fifth Avenue #1] your turn (decision {decision})\r\n"
               f"Message-ID: {mid}\r\nDate: Mon, 23 Nov 2026 10:00:00 +0000\r\n\r\n{body}\r\n").encode()
        return mid, raw

    def _append(self, raws: list[bytes]) -> None:
        with self.dovecot.imap("game") as client:
            for raw in raws:
                client.append("INBOX", raw)

    def _commands(self) -> int:
        with Session(self.engine) as s:
            return s.exec(select(sa.func.count()).select_from(Event).where(Event.kind == "command")).one()

    def _wait(self, condition) -> bool:
        try:  # sa.exc.OperationalError: our own connection was cut with the others
            wait_until(condition, "the storm", ignore=(sa.exc.OperationalError,))
        except NeverHappened:
            return False
        return True

    def play(self, moves: int, *, kill_chance: float = 0.15, cut_chance: float = 0.0) -> StormReport:
        started = time.monotonic()
        self.games.create_game("fifth-avenue", PLAYERS, seed=self.seed)
        for n in range(len(self.workers)):
            self._start(n)
        try:
            for _ in range(moves):
                self._check_alive()
                info = self.games.get(1)
                if info.state.is_terminal():
                    break
                seat = info.state.current_player()
                before = self._commands()
                mid, raw = self._mail(PLAYERS[seat][1], info.state.legal_commands()[0], info.state.moves)
                batch = [raw]
                if self.rng.random() < 0.2:
                    batch.append(raw)  # the same mail twice
                    self.report.copies += 1
                if self.rng.random() < 0.2:
                    batch.insert(0, self._mail(PLAYERS[self.rng.randrange(3)][1], "board", info.state.moves)[1])
                    self.report.questions += 1
                if self.rng.random() < 0.2:  # a stranger asks to watch, or for the games (issue 36), or reflects
                    # spam, takes the moderator's name, stops watching (issue 42)
                    body = self.rng.choice(("watch 1", "games", "games\n" + "\n".join(["spam " * 100] * 100),
                                            "unwatch 1", "new fifth-avenue as The moderator"))
                    batch.insert(self.rng.randrange(len(batch) + 1), self._mail(STRANGER, body, info.state.moves)[1])
                    self.report.signups += 1
                self._append(batch)
                self.sent_moves.append(mid)
                self.report.moves += 1
                time.sleep(self.rng.random() * 0.3)
                if self.rng.random() < kill_chance:
                    self.kill_one()
                if self.rng.random() < cut_chance:
                    self.cut_connections()
                if not self._wait(lambda: self._commands() > before):
                    self.report.notes.append(f"move {mid} not applied within {HANG:g} s")
                    break
            self._drain()
        finally:
            self._stop()
        self._count()
        self.report.seconds = time.monotonic() - started
        self.engine.dispose()
        return self.report

    def _inbox(self) -> int:
        return mails_in_inbox(self.dovecot)

    def _unsent(self) -> int:
        return unsent_mails(self.engine)

    def _drain(self) -> None:
        if not self._wait(lambda: self._inbox() == 0 and self._unsent() == 0):
            self.report.notes.append(f"not drained: {self._inbox()} mails in the INBOX, {self._unsent()} unsent")

    def _stop(self) -> None:
        self.report.unbidden_exits += stop_workers(self.workers, self.report.notes)

    def _count(self) -> None:
        with Session(self.engine) as s:
            sources = Counter(e.source for e in s.exec(select(Event).where(Event.kind == "command")).all())
            self.report.set_aside = s.exec(select(sa.func.count()).select_from(InboundMail).where(
                InboundMail.outcome == "error")).one()
            self.report.sent = s.exec(select(sa.func.count()).select_from(OutboxMail).where(
                OutboxMail.status == OutboxStatus.SENT)).one()
            # Each signup mail that asked for something is recorded with its request in one transaction: as many
            # requests as records of changes, whatever was killed meanwhile.
            requests = s.exec(select(sa.func.count()).select_from(SignupRequest).where(
                SignupRequest.email == STRANGER)).one()
            changed = s.exec(select(sa.func.count()).select_from(InboundMail).where(
                InboundMail.sender == STRANGER, InboundMail.outcome == "signup")).one()
            self.report.signup_unmatched = abs(requests - changed)
            to_stranger = s.exec(select(OutboxMail.text_body).where(OutboxMail.recipient == STRANGER)).all()
            self.report.stranger_mails = len(to_stranger)
            self.report.stranger_largest = max(map(len, to_stranger), default=0)
        for mid in self.sent_moves:
            times = sources[f"mail:{mid}"]
            self.report.applied += times > 0
            self.report.lost += times == 0
            self.report.applied_twice += times > 1
        parse = BytesParser(policy=policy.compat32).parsebytes
        received = Counter(parse(m.data, headersonly=True)["Message-ID"] for m in self.smtp.messages)
        self.report.delivered = sum(received.values())
        self.report.doubles = sum(times - 1 for times in received.values())
