"""`pbem demo`: a whole game played by mail on this machine, with nothing to set up.

The mail system is local and private (``mailserver``: pymap for IMAP, aiosmtpd
for SMTP, both on 127.0.0.1, in memory); the players are robots that read
their own inboxes and answer like a mail client (``players``), or a person
with any mail client (``--human``); the game, its mails and its history go to
the normal database through the normal services, so the finished game stays
in the archive like any other.

    demo = Demo(engine, players=3, seed=1)
    demo.start()
    while not demo.finished:
        for line in demo.step().lines:
            print(line)
    demo.stop()
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from sqlalchemy import Engine, func
from sqlmodel import select

from ..config import MailConfig, ServerConfig
from ..games import get_game
from ..services.table.service import GameService
from ..services.common.game_info import GameInfo, HistoryEntry
from ..services.table.robot_seats import decide
from ..worker import MailWorker, PassReport
from ..store.models import GameStatus, OutboxMail, OutboxStatus
from ..store.uow import UnitOfWork
from ..words import plural
from .mailserver import DemoMailServer, new_password
from .players import Robot

DOMAIN = "demo.test"
GAME_ADDRESS = f"game@{DOMAIN}"
ROBOT_NAMES = ("Ann", "Bob", "Cy", "Dora")
HUMAN_PASSWORD = "pbem-demo"  # the human's mailbox exists only in this process's memory, on 127.0.0.1
HUMAN_PORTS = (11143, 10025)  # tried first with --human, so a mail client set up once keeps working
MAX_TRIES = 5  # robot answers refused for one decision before the demo gives up


class DemoError(Exception):
    """The demo cannot go on; ``message`` is one sentence."""

    def __init__(self, message: str) -> None:
        super().__init__(message)
        self.message = message


@dataclass
class DemoSeat:
    seat: int
    name: str
    address: str
    password: str
    human: bool = False
    robot: Robot | None = None


@dataclass
class Step:
    lines: list[str] = field(default_factory=list)  # turns completed during this step
    waiting_for: DemoSeat | None = None  # a person must answer before the game can go on
    paused: bool = False  # the moderator paused the game (pbem game pause): nothing to do until resumed
    human_outcomes: list[str] = field(default_factory=list)  # what became of the person's mails
    report: PassReport | None = None


# --------------------------------------------------------------------------- the turns, in words


class TurnLog:
    """Turns the game's history into one line per completed turn, by replaying its commands.

    The start-up placements make one "setup" line. A turn line has the commands of the player whose turn
    it is, then what its auctions came to (the bids and passes of everybody are in the history), then
    the points scored during the turn in brackets:

        turn 9: Cy: A; cards orange violet; move beige CH | auctions: Ann won 42E (built 0), no bids for 52E  [Cy +1]
    """

    AUCTION_WORDS = ("bid", "pass", "build", "stop")

    def __init__(self, kind: str, names: list[str], seed: int, settings: dict[str, Any]) -> None:
        self.names = names
        self.engine = get_game(kind)
        self.state = self.engine.new_game(players=len(names), seed=seed, **settings)
        self.last_seq = 0
        self.turns = 0
        self._commands: list[tuple[int, str]] = []
        self._auctions: list[str] = []
        self._scores = list(self.state.scores)

    def feed(self, history: list[HistoryEntry]) -> list[str]:
        lines = []
        for entry in history:
            if entry.seq <= self.last_seq:
                continue
            self.last_seq = entry.seq
            if entry.kind != "command" or entry.seat is None:
                continue
            before = self.engine.turn_owner(self.state)
            command = entry.data["command"]
            events = self.state.apply_command(entry.seat, command)
            after = self.engine.turn_owner(self.state)
            if before[0] != "turn" or command.split()[0].lower() not in self.AUCTION_WORDS:
                self._commands.append((entry.seat, command))
            self._note(events)
            if before[0] == "placement" and after[0] != "placement":
                lines.append(f"setup: {self._said()}")
            elif before[0] == "turn" and after != before:
                self.turns += 1
                lines.append(f"turn {self.turns}: {self._said()}")
        return lines

    def _name(self, seat: Any) -> str:
        return self.names[seat] if isinstance(seat, int) and 0 <= seat < len(self.names) else "the robot bidder"

    def _note(self, events: list[dict[str, Any]]) -> None:
        for event in events:
            kind = event.get("kind")
            if kind == "won":
                self._auctions.append(f"{self._name(event.get('actor'))} won {event.get('site', '?')}")
            elif kind in ("built", "robot_built") and self._auctions:
                count = event.get("count", len(event.get("plots", [])))
                self._auctions[-1] += f" (built {count})"
            elif kind == "building_stop" and self._auctions:
                self._auctions[-1] += f" (building stop in {event.get('site', '?')})"
            elif kind == "no_bids":
                self._auctions.append(f"no bids for {event.get('site', '?')}")

    def _said(self) -> str:
        parts, actor = [], None
        for seat, command in self._commands:
            parts.append(command if seat == actor else f"{self.names[seat]}: {command}")
            actor = seat
        text = "; ".join(parts)
        if self._auctions:
            text += " | auctions: " + ", ".join(self._auctions)
        scores = list(self.state.scores)
        gained = [f"{self.names[s]} +{now - was}" for s, (was, now) in enumerate(zip(self._scores, scores)) if now > was]
        self._commands, self._auctions, self._scores = [], [], scores
        return text + (f"  [{', '.join(gained)}]" if gained else "")


# --------------------------------------------------------------------------- the demo


class Demo:
    def __init__(self, engine: Engine, *, game: str = "fifth-avenue", players: int = 3, seed: int = 1,
                 human: str | None = None) -> None:
        try:
            module = get_game(game)
        except KeyError as exc:
            raise DemoError(str(exc.args[0])) from exc
        self.kind = module.NAME
        if players not in module.PLAYERS:
            raise DemoError(f"{module.TITLE} is for {', '.join(map(str, module.PLAYERS))} players, not {players}")
        self.engine = engine
        self.players = players
        self.seed = seed
        self.games = GameService(engine, mail_domain=DOMAIN)
        self.seats = self._seats(players, human)
        self.mail: DemoMailServer | None = None
        self.worker: MailWorker | None = None
        self.game_id = 0
        self.info: GameInfo | None = None
        self.log: TurnLog | None = None
        self._tries: dict[int, int] = {}

    @staticmethod
    def _seats(players: int, human: str | None) -> list[DemoSeat]:
        seats: list[DemoSeat] = []
        if human is not None:
            address = human.strip().lower()
            local = address.partition("@")[0]
            if "@" not in address or not local or address.endswith("@") or any(c.isspace() for c in address):
                raise DemoError(f"--human needs an email address, not {human!r}")
            if address == GAME_ADDRESS or address in {f"{n.lower()}@{DOMAIN}" for n in ROBOT_NAMES}:
                raise DemoError(f"{address} is taken by the demo itself; use your own address")
            name = local.replace(".", " ").replace("_", " ").title()[:20] or "You"
            seats.append(DemoSeat(0, name, address, HUMAN_PASSWORD, human=True))
        names = iter(n for n in ROBOT_NAMES if not seats or n.lower() != seats[0].name.lower())
        while len(seats) < players:
            name = next(names)
            seats.append(DemoSeat(len(seats), name, f"{name.lower()}@{DOMAIN}", new_password()))
        return seats

    @property
    def human(self) -> DemoSeat | None:
        return next((s for s in self.seats if s.human), None)

    # -- life cycle ------------------------------------------------------------------

    def others_unsent(self) -> int:
        """The unsent mails in the outbox for anybody but the demo's mailboxes: mails of games played for real,
        which the demo's worker would send, since it sends the whole outbox."""
        ours = [GAME_ADDRESS] + [s.address for s in self.seats]
        with UnitOfWork(self.engine) as uow:
            return uow.session.exec(
                select(func.count()).select_from(OutboxMail).where(
                    OutboxMail.status.in_((OutboxStatus.QUEUED, OutboxStatus.SENDING)),
                    OutboxMail.recipient.not_in(ours), ~OutboxMail.recipient.like(f"%@{DOMAIN}"))
            ).one()

    def check_outbox(self) -> None:
        """Refuse a database whose outbox holds unsent mail of other games (``others_unsent``)."""
        waiting = self.others_unsent()
        if waiting:
            raise DemoError(
                f"the database holds {plural(waiting, 'unsent mail')} of other games, which the demo's worker would try to "
                "send; give the demo a database of its own, e.g. pbem --db sqlite:///pbem-demo.sqlite3 demo")

    def start(self) -> None:
        self.check_outbox()
        ports = HUMAN_PORTS if self.human else (0, 0)
        self.mail = DemoMailServer({GAME_ADDRESS: new_password()}, imap_port=ports[0], smtp_port=ports[1],
                                   defer_from=(GAME_ADDRESS,))
        self.mail.start()
        try:
            for seat in self.seats:
                self.mail.add_user(seat.address, seat.password)
            config = MailConfig(
                imap=ServerConfig(self.mail.host, self.mail.imap_port, "plain", GAME_ADDRESS,
                                  self.mail.users[GAME_ADDRESS]),
                smtp=ServerConfig(self.mail.host, self.mail.smtp_port, "plain"),
                game_address=GAME_ADDRESS,
                poll_interval=1,
            )
            self.game_id = self.games.create_game(self.kind, [(s.name, s.address) for s in self.seats], seed=self.seed)
            self.info = self.games.get(self.game_id)
            self.log = TurnLog(self.kind, [s.name for s in self.seats], self.info.seed, self.info.settings)
            tag = f"[{self.info.title} #{self.game_id}]"
            for seat in self.seats:
                if not seat.human:
                    seat.robot = Robot(self.mail, seat.name, seat.address, (self.seed << 8) ^ (seat.seat + 1) ^ 0xD3E0,
                                       subject_tag=tag)
            self.worker = MailWorker(self.engine, config, mail_domain=DOMAIN)
        except BaseException:
            self.stop()
            raise

    def stop(self) -> None:
        for seat in self.seats:
            if seat.robot is not None:
                seat.robot.close()
        if self.mail is not None:
            self.mail.stop()
            self.mail = None

    def __enter__(self) -> Demo:
        self.start()
        return self

    def __exit__(self, *exc_info: object) -> None:
        self.stop()

    # -- playing -----------------------------------------------------------------------

    @property
    def finished(self) -> bool:
        info = self.info
        return info is not None and (info.over or info.status not in (GameStatus.ACTIVE, GameStatus.PAUSED))

    @property
    def turns(self) -> int:
        return self.log.turns if self.log else 0

    @property
    def mails(self) -> int:
        """Every mail the demo's server delivered: the game's and the players'."""
        return self.mail.delivered if self.mail else 0

    @property
    def game_mails(self) -> int:
        """The game mails the game sent to the players (a delivery to each player's inbox), receipts apart."""
        return sum(self.mail.received[s.address] - self.mail.receipts[s.address] for s in self.seats) if self.mail else 0

    @property
    def receipts(self) -> int:
        """The receipts without a board the game sent to the players (services.mail_out.receipts)."""
        return sum(self.mail.receipts[s.address] for s in self.seats) if self.mail else 0

    @property
    def player_mails(self) -> int:
        """The mails the players sent to the game."""
        return self.mail.received[GAME_ADDRESS] if self.mail else 0

    @property
    def decision(self) -> int:
        return self.info.state.moves if self.info is not None else 0

    def step(self) -> Step:
        """One worker pass (read the game mailbox, apply, send the outbox), then the robot whose decision
        it is answers by mail. When a person must decide, the step only reports whom the game waits for."""
        assert self.worker is not None and self.log is not None, "call start() first"
        step = Step(report=self.worker.run_once())
        human = self.human
        if human is not None:
            step.human_outcomes = [outcome for _uid, who, outcome in step.report.processed if who == human.address]
        step.lines = self.log.feed(self.games.history(self.game_id))
        self.info = info = self.games.get(self.game_id)
        if self.finished:
            return step
        if info.status != GameStatus.ACTIVE:
            step.paused = True
            return step
        seat = self.seats[info.state.current_player()]
        if seat.robot is None:
            step.waiting_for = seat
            return step
        decision = info.state.moves
        self._tries[decision] = tries = self._tries.get(decision, 0) + 1
        if tries > MAX_TRIES:
            raise DemoError(f"{seat.name}'s mails for decision {decision} were refused {MAX_TRIES} times; "
                            f"the game's history says why (pbem game history {self.game_id})")
        # The demo's players think as pbem's robot players do (from their own view alone), and answer by mail.
        command = decide(info.kind, "heuristic", info.state, seat.seat, (self.seed << 8) ^ decision)
        seat.robot.answer(decision, GAME_ADDRESS, command=command)
        return step

    def board(self) -> str:
        from .. import render

        assert self.info is not None
        return render.board(self.info.kind, self.info.state.view(None), players=[s.name for s in self.seats])


__all__ = ["Demo", "DemoError", "DemoSeat", "GAME", "GAME_ADDRESS", "HUMAN_PASSWORD", "Step", "TurnLog"]
