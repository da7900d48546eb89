"""A crowd: many games played by mail at once while several ``pbem worker`` processes serve one mailbox and one
database, then everything counted. For ``tests/e2e/test_three_workers.py``.

Each game's moves are planned before the workers start: from its seed, a seeded chooser takes a kind of command
(its first word) and then one legal command of that kind, so games place, act, score, bid and pass. Half of the
games are first played by the moderator's CLI (``GameService.submit``) to two moves before their first auction,
so that bids come by mail too; their mails then run on until no auction is open, so that every bid's answer
(the next call to bid or the auction's result, rules D44) is due before the end.

The players' mails are APPENDed to the game mailbox over one IMAP connection while the workers run: now one
game's next move, now a burst of the next move of every game that waits for one (a game's next move is sent
once its last one is applied, as a player answers the mail asking it), with now and then a question
(``board``) beside them and now and then a mail appended a second time a moment later (a client that sends
twice). The workers poll only every hour: each mail must wake one through IDLE, for the stream ends within
``waiting.HANG`` only if none waits for the poll (a slow machine cannot make it pass or fail). ``kill_at`` kills one worker with SIGKILL once that share of the moves is sent, in the middle of
a burst, while it holds claims on mails, and does not start it again. The workers answer through a real SMTP server into the
players' mailboxes.

``count()`` collects what the checks need: the ledger, the events, the outbox, the folders of the game mailbox,
what the SMTP server took, and each worker's log.
"""

from __future__ import annotations

import random
import re
import signal
import subprocess
import sys
import time
from collections import Counter
from dataclasses import dataclass
from email import policy
from email.message import EmailMessage
from email.parser import BytesParser
from email.utils import format_datetime
from pathlib import Path

import sqlalchemy as sa
from sqlmodel import Session, select

from pbem.games import get_game
from pbem.services.table.service import GameService
from pbem.store.db import make_engine
from pbem.store.models import Event, InboundMail, MailClaim, OutboxMail, utcnow
from .mailservers import Dovecot, SmtpToLmtp
from .waiting import HANG, NeverHappened, wait_until
from .workers import mails_in_inbox, stop_workers, unsent_mails, worker_env

GAME = "game@example.test"
PEOPLE = [("Ann", "ann@example.test"), ("Bob", "bob@example.test"), ("Cy", "cy@example.test"),
          ("Dee", "dee@example.test")]
LOGGED = re.compile(r"mail (\d+) from (\S+): (.+)$")


@dataclass
class Plan:
    game_id: int
    players: list[tuple[str, str]]
    before: list[tuple[int, str]]  # (seat, command) played by the moderator's CLI before the workers start
    mailed: list[tuple[int, str, bool, int]]  # (seat, command, a bid or pass in an auction, decision) sent by mail
    sent: int = 0  # of ``mailed``, appended so far


@dataclass
class Sent:
    message_id: str
    game_id: int
    sender: str
    kind: str  # "move" or "question"
    command: str = ""
    bid: bool = False  # a bid or a pass in an auction (rules D44: its answer may come later)
    appended: int = 1  # times APPENDed (2: the client sent it twice)
    at: float = 0.0  # time.monotonic() of its first APPEND


@dataclass
class Counts:
    """What was found after the crowd: the ledger's rows by Message-ID, each game's command events, the outbox,
    the game mailbox's folders, what the SMTP server took, and the workers' logs."""

    inbound: dict[str, list[InboundMail]]
    events: dict[int, list[Event]]  # the command events of each game, in order
    outbox: list[OutboxMail]
    folders: dict[str, Counter]  # folder -> Message-ID -> copies in it
    delivered: Counter  # Message-ID -> times the SMTP server took it
    delivered_in_reply_to: dict[str, list[str]]  # In-Reply-To -> Message-IDs delivered with it
    claims_left: int
    logs: list[str]


class Crowd:
    def __init__(self, database_url: str, dovecot: Dovecot, smtp: SmtpToLmtp, folder: Path, *, seed: int = 1,
                 games: int = 14, moves: int = 5, workers: int = 3, poll_interval: float = 3600.0) -> None:
        self.url = database_url
        self.dovecot = dovecot
        self.smtp = smtp
        self.folder = folder
        self.seed = seed
        self.rng = random.Random(seed)
        self.engine = make_engine(database_url)
        self.games = GameService(self.engine, mail_domain="example.test")
        self.plans: list[Plan] = [self._plan(n, moves) for n in range(games)]
        self.poll_interval = poll_interval
        self.workers: list[subprocess.Popen] = []
        self.worker_count = workers
        self.killed: list[int] = []  # the workers killed (their numbers)
        self.claims_of_killed = 0  # claims the killed worker held just after its death
        self.freed_after: float | None = None  # seconds from the kill until another worker had freed those claims
        self._killed_at = 0.0
        self.sent: dict[str, Sent] = {}
        self.appended = 0  # APPENDs in all, copies included
        self.bursts = 0
        self.seconds = 0.0
        self.latencies: list[float] = []  # a move's APPEND to its event, as the stream saw it
        self.notes: list[str] = []
        self._counter = 0

    # ------------------------------------------------------------------ before the workers

    def _choose(self, state, rng: random.Random) -> str:
        legal = state.legal_commands()
        kinds = sorted({command.split()[0] for command in legal})
        kind = rng.choice(kinds)
        return rng.choice([command for command in legal if command.split()[0] == kind])

    def _plan(self, n: int, moves: int) -> Plan:
        """Game ``n``: 2 or 3 of the four people; its commands, from the seed."""
        count = 2 if n % 4 == 3 else 3
        players = [PEOPLE[(n + k) % len(PEOPLE)] for k in range(count)]
        game_id = self.games.create_game("fifth-avenue", players, seed=1000 * self.seed + n)
        engine = get_game("fifth-avenue")
        auctions = n % 2 == 1
        rng = random.Random(f"{self.seed}-{n}")
        state = self.games.get(game_id).state
        script: list[tuple[int, str, bool, int]] = []  # (seat, command, made in an auction, the decision's number)
        before = 0
        while not state.is_terminal() and len(script) < 300:
            in_auction = engine.decision_context(state)[0].startswith("auction")
            if auctions and in_auction and not before:
                before = max(1, len(script) - 2)  # the auction game's mails begin two moves before its first auction
            if (before or not auctions) and len(script) >= before + moves and not in_auction:
                break  # enough moves mailed, and no auction open: every bid has had its answer
            seat, decision = state.current_player(), state.moves  # robots' and forced moves count too
            command = self._choose(state, rng)
            state.apply_action(seat, state.parse(seat, command))
            script.append((seat, command, in_auction, decision))
        assert before or not auctions, f"game {game_id} (seed {1000 * self.seed + n}) reached no auction"
        plan = Plan(game_id, players, [(seat, command) for seat, command, *_ in script[:before]], script[before:])
        self._play_before(plan)
        return plan

    def _play_before(self, plan: Plan) -> None:
        """The moderator's CLI plays the moves before the mailed ones (a player's consecutive commands at once)."""
        runs: list[tuple[int, list[str]]] = []
        for seat, command in plan.before:
            if runs and runs[-1][0] == seat:
                runs[-1][1].append(command)
            else:
                runs.append((seat, [command]))
        for seat, commands in runs:
            self.games.submit(plan.game_id, plan.players[seat][1], "\n".join(commands), source="cli")

    # ------------------------------------------------------------------ workers

    def _env(self) -> dict[str, str]:
        return worker_env(self.url, self.folder, self.dovecot, self.smtp.port, GAME, self.poll_interval)

    def start(self) -> None:
        for n in range(self.worker_count):
            with open(self.folder / f"worker-{n}.log", "wb") as log:
                self.workers.append(subprocess.Popen([sys.executable, "-m", "pbem", "worker"], env=self._env(),
                                                     stdout=log, stderr=subprocess.STDOUT))
        def watching() -> bool:
            return all("watching" in (self.folder / f"worker-{n}.log").read_text(errors="replace")
                       for n in range(self.worker_count))

        try:  # the mailbox's first mail waits for all of them
            wait_until(lambda: watching() or any(proc.poll() is not None for proc in self.workers), "the workers start")
        except NeverHappened:
            pass
        if not watching():
            self.notes.append("the workers did not all start")

    def owner_of(self, owner: str) -> int | None:
        """The number of the worker named ``owner`` ("host pid token"), if it is one of ours."""
        parts = owner.split()
        pid = int(parts[1]) if len(parts) == 3 and parts[1].isdigit() else None
        return next((n for n, proc in enumerate(self.workers) if proc.pid == pid), None)

    def _claims(self) -> Counter:
        with Session(self.engine) as s:
            return Counter(self.owner_of(owner) for owner in s.exec(select(MailClaim.owner)).all())

    def _kill_one(self) -> None:
        """SIGKILL a worker while it holds claims (the first seen within 3 s; else the first alive), and leave it
        dead."""
        alive = [n for n in range(len(self.workers)) if n not in self.killed]
        deadline = time.monotonic() + 3
        while (held := self._claims()).keys().isdisjoint(alive) and time.monotonic() < deadline:
            time.sleep(0.01)
        victim = max(alive, key=lambda n: held.get(n, 0))
        self.workers[victim].send_signal(signal.SIGKILL)
        self.workers[victim].wait()
        self.killed.append(victim)
        self._killed_at = time.monotonic()
        self.claims_of_killed = self._claims().get(victim, 0)

    def stop(self) -> None:
        stop_workers(self.workers, self.notes, gone=self.killed)

    # ------------------------------------------------------------------ players

    def _request(self, game_id: int, email: str, decision: int) -> str | None:
        """The Message-ID of the mail that asked ``email`` for ``decision``: the one a player answers."""
        with Session(self.engine) as s:
            return s.exec(select(OutboxMail.message_id).where(
                OutboxMail.game_id == game_id, OutboxMail.recipient == email, OutboxMail.decision == decision,
            ).order_by(OutboxMail.id.desc()).limit(1)).first()  # type: ignore[union-attr]

    def _mail(self, plan: Plan, sender: str, body: str, decision: int | None,
              answering: str | None) -> tuple[str, bytes]:
        self._counter += 1
        mid = f"<crowd-{self.seed}-{self._counter}@players.example.test>"
        msg = EmailMessage()
        msg["From"] = sender
        msg["To"] = GAME
        names = ", ".join(name for name, _ in plan.players)
        tag = f" (decision {decision})" if decision is not None else ""
        msg["Subject"] = f"Re: [Fifth Avenue #{plan.game_id}] {names}{tag}"
        msg["Message-ID"] = mid
        msg["Date"] = format_datetime(utcnow())
        if answering:
            msg["In-Reply-To"] = answering
            msg["References"] = answering
        msg.set_content(f"{body}\n")
        return mid, bytes(msg)

    def _next_move(self, plan: Plan) -> tuple[str, bytes]:
        seat, command, bid, decision = plan.mailed[plan.sent]
        email = plan.players[seat][1]
        mid, raw = self._mail(plan, email, command, decision, self._request(plan.game_id, email, decision))
        self.sent[mid] = Sent(mid, plan.game_id, email, "move", command, bid, at=time.monotonic())
        plan.sent += 1
        return mid, raw

    def _question(self, plan: Plan) -> bytes:
        email = self.rng.choice(plan.players)[1]
        mid, raw = self._mail(plan, email, "board", None, None)
        self.sent[mid] = Sent(mid, plan.game_id, email, "question", at=time.monotonic())
        return raw

    def applied(self) -> Counter:
        """Command events so far, by game."""
        with Session(self.engine) as s:
            rows = s.exec(select(Event.game_id, sa.func.count()).where(Event.kind == "command")
                          .group_by(Event.game_id)).all()
        return Counter(dict(rows))

    def play(self, *, kill_at: float | None = None, timeout: float = HANG) -> None:
        """Start the workers, send the stream, wait until every mail is applied and answered, stop the workers."""
        started = time.monotonic()
        self.start()
        total = sum(len(plan.mailed) for plan in self.plans)
        client = self.dovecot.imap("game")
        try:
            again: list[bytes] = []  # mails the client sends a second time on the next round
            waiting: dict[str, tuple[int, int]] = {}  # Message-ID -> (game, events it makes)
            deadline = time.monotonic() + timeout
            while any(plan.sent < len(plan.mailed) for plan in self.plans) or waiting:
                if time.monotonic() > deadline:
                    self.notes.append(f"the stream did not end in {timeout:.0f} s: {self._stuck(waiting)}")
                    break
                applied = self.applied()
                for mid, (game_id, wanted) in list(waiting.items()):
                    if applied[game_id] >= wanted:
                        self.latencies.append(time.monotonic() - self.sent[mid].at)
                        del waiting[mid]
                ready = [plan for plan in self.plans
                         if plan.sent < len(plan.mailed) and applied[plan.game_id] == len(plan.before) + plan.sent]
                raws = list(again)
                again.clear()
                kill_now = kill_at is not None and not self.killed and \
                    sum(plan.sent for plan in self.plans) >= kill_at * total
                if ready:
                    burst = (self.rng.random() < 0.2 or kill_now) and len(ready) > 2
                    self.bursts += burst
                    for plan in ready if burst else [self.rng.choice(ready)]:
                        mid, raw = self._next_move(plan)
                        waiting[mid] = (plan.game_id, len(plan.before) + plan.sent)
                        raws.append(raw)
                        if self.rng.random() < 0.06:
                            again.append(raw)
                            self.sent[mid].appended += 1
                    if self.rng.random() < 0.15:
                        raws.insert(0, self._question(self.rng.choice(self.plans)))
                if raws:
                    client.multiappend("INBOX", raws)
                    self.appended += len(raws)
                if kill_now:
                    self._kill_one()  # in the middle of a burst, whoever holds its mails
                elif self.claims_of_killed and self.freed_after is None and not self._claims().get(self.killed[0]):
                    self.freed_after = time.monotonic() - self._killed_at
                time.sleep(self.rng.uniform(0.02, 0.3))
        finally:
            client.logout()
        self._drain()
        self.stop()
        self.seconds = time.monotonic() - started

    def _stuck(self, waiting: dict[str, tuple[int, int]]) -> str:
        """The mails not applied yet, and what the ledger says of them."""
        with Session(self.engine) as s:
            outcomes = {mid: f"{outcome} {reason[:200]}".strip() for mid, outcome, reason in s.exec(
                select(InboundMail.message_id, InboundMail.outcome, InboundMail.reason).where(
                    InboundMail.message_id.in_(list(waiting)))).all()}  # type: ignore[attr-defined]
        return "; ".join(f"{mid} ({self.sent[mid].command!r} to game {game_id}): {outcomes.get(mid, 'not recorded')}"
                         for mid, (game_id, _) in waiting.items()) + f"; {self._inbox()} mails in the INBOX"

    def _inbox(self) -> int:
        return mails_in_inbox(self.dovecot)

    def _unsent(self) -> int:
        return unsent_mails(self.engine)

    def _drain(self) -> None:
        try:
            wait_until(lambda: self._inbox() == 0 and self._unsent() == 0 and sum(self._claims().values()) == 0,
                       "the mailbox and the outbox drain", every=0.1)
            return
        except NeverHappened:
            pass
        self.notes.append(f"not drained: {self._inbox()} mails in the INBOX, {self._unsent()} unsent, "
                          f"{sum(self._claims().values())} claims")

    # ------------------------------------------------------------------ counting

    def count(self) -> Counts:
        with Session(self.engine) as s:
            inbound: dict[str, list[InboundMail]] = {}
            for row in s.exec(select(InboundMail)).all():
                inbound.setdefault(row.message_id, []).append(row)
            events: dict[int, list[Event]] = {}
            for event in s.exec(select(Event).where(Event.kind == "command").order_by(Event.game_id, Event.seq)).all():
                events.setdefault(event.game_id, []).append(event)
            outbox = list(s.exec(select(OutboxMail).order_by(OutboxMail.id)).all())
            claims_left = s.exec(select(sa.func.count()).select_from(MailClaim)).one()
        folders: dict[str, Counter] = {}
        parse = BytesParser(policy=policy.compat32).parsebytes
        with self.dovecot.imap("game") as client:
            for _flags, _delimiter, name in client.list_folders():
                client.select_folder(name, readonly=True)
                uids = client.search(["ALL"])
                data = client.fetch(uids, ["BODY.PEEK[HEADER.FIELDS (MESSAGE-ID)]"]) if uids else {}
                folders[name] = Counter(
                    str(parse(next(v for k, v in entry.items() if k.startswith(b"BODY[")))["Message-ID"]).strip()
                    for entry in data.values())
        delivered: Counter = Counter()
        in_reply_to: dict[str, list[str]] = {}
        for message in self.smtp.messages:
            headers = parse(message.data, headersonly=True)
            mid = str(headers["Message-ID"]).strip()
            delivered[mid] += 1
            if headers["In-Reply-To"]:
                in_reply_to.setdefault(str(headers["In-Reply-To"]).strip(), []).append(mid)
        logs = [(self.folder / f"worker-{n}.log").read_text(errors="replace") for n in range(len(self.workers))]
        return Counts(inbound, events, outbox, folders, delivered, in_reply_to, claims_left, logs)

    def close(self) -> None:
        self.engine.dispose()


def worker_lines(log: str) -> list[tuple[int, str, str]]:
    """(uid, sender, outcome) of every mail a worker's log says it read."""
    return [(int(m.group(1)), m.group(2), m.group(3).strip()) for m in map(LOGGED.search, log.splitlines()) if m]
