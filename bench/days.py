"""How many days a game takes by mail, and how many mails a player gets, when people read their mail a few times a day.

Run: python bench/days.py [--games 9] [--reads 3,6] [--seed 1] [--only fifth-avenue:3,manhattan:4]

Every game is played through the game service (an in-memory SQLite database, the mails written to its outbox as
the worker writes them) by simulated people. Each person lives in a time zone of their own (a whole hour from
UTC-8 to UTC+9, drawn) and reads their mail k times a day, at hours drawn afresh each day between 8:00 and 24:00
of their own time; at each read they answer, in one mail, everything the game asks of them then (a person who
uses orders sends 'orders on' with their first, unless --orders-on 0, so every set's start mails them): the quick robot
(`heuristic`) decides each command, and the commands go in as one mail while the game still waits for that
person (a turn's phases, say). A mail reaches its reader at once; the next read after it is when they answer.
Every mail the service queues counts as sent at once (each mail is a pass of the worker of its own), so none
folds into a later one.

Printed for Fifth Avenue and Manhattan with 3 and 4 players, at each k: the median over the games of

- days: from the game's first mail to its last command;
- hand-offs: how often the person the game waits for changed, and how many of them were inside an auction set;
- waits: the hours the game stood waiting for somebody to read their mail, inside auction sets (bids, passes,
  the winners' builds) and outside them;
- mails a player: every mail of the game to one player (board mails and receipts), and receipts alone.

The draws are seeded (--seed): the same options print the same table.
"""

from __future__ import annotations

import argparse
import random
import statistics
from dataclasses import dataclass, field
from datetime import datetime, timedelta, timezone

from sqlalchemy import update
from sqlmodel import Session, SQLModel, create_engine, select

from pbem.games import get_game
from pbem.games.errors import CommandError
from pbem.games.fifth_avenue.orders import Holding, most_reachable
from pbem.games.fifth_avenue.rules import allowed_bid_colors
from pbem.services.mail_out.receipts import RECEIPT_HEADER
from pbem.services.table.robot_seats import decide
from pbem.services.table.service import GameService
from pbem.store.models import OutboxMail
from pbem.store.statuses import OutboxStatus

NAMES = ["Ann", "Bob", "Cy", "Dee"]
START = datetime(2026, 3, 2, 9, 0, tzinfo=timezone.utc)  # a Monday; the first mail goes out then
DAY = timedelta(days=1)
FIRST_HOUR, LAST_HOUR = 8, 24  # a person reads between these hours of their own time
MOST_MAILS = 5000  # a game that needs more answers than this is a fault of the simulation, not a result


@dataclass
class Reader:
    """One person's reading habit: ``reads`` times a day at hours drawn each day, in their own time zone."""

    seed: int
    reads: int
    offset: int  # hours east of UTC
    days: dict[int, list[datetime]] = field(default_factory=dict)

    def reads_on(self, day: int) -> list[datetime]:
        """The moments (UTC) of the reads on local day ``day`` (days since START's date), drawn once."""
        if day not in self.days:
            rng = random.Random(self.seed * 1_000_003 + day)
            midnight = datetime(START.year, START.month, START.day, tzinfo=timezone.utc) + day * DAY \
                - timedelta(hours=self.offset)
            self.days[day] = sorted(midnight + timedelta(hours=rng.uniform(FIRST_HOUR, LAST_HOUR))
                                    for _ in range(self.reads))
        return self.days[day]

    def next_read(self, after: datetime) -> datetime:
        """The first read strictly after ``after``: when a mail that arrived then is read and answered."""
        day = (after + timedelta(hours=self.offset) - START.replace(hour=0)).days - 1
        while True:
            for moment in self.reads_on(day):
                if moment > after:
                    return moment
            day += 1


@dataclass
class Played:
    """One game by mail: its length, the waits and hand-offs, the mails each player got."""

    days: float
    handoffs: int = 0
    handoffs_in_auctions: int = 0
    wait_auctions: float = 0.0  # hours
    wait_outside: float = 0.0
    mails: list[int] = field(default_factory=list)
    receipts: list[int] = field(default_factory=list)


def in_auctions(state) -> bool:
    """Whether the decision now due is part of an auction set (a bid, a pass, a winner's build)."""
    frames = getattr(state, "frames", None) or []
    return any(frame.get("kind") == "auctions" for frame in frames)


def answer(kind: str, state, seat: int, seed: int, orders=None) -> list[str]:
    """Everything the game asks of ``seat`` now, as one mail: a person who uses orders (``orders``: a function
    of the state giving their orders) gives them for the set that runs, also for one their own move begins,
    then the robot decides while the game waits for them."""
    module = get_game(kind)
    trial = module.State.from_json(state.to_json())
    lines: list[str] = []
    ordered_for = None  # the set this mail gives orders for: a second set begun within the mail is not read yet
    while True:
        if orders and (which := set_key(trial)) is not None:
            if ordered_for not in (None, which):
                return lines  # the person has not seen that set: they answer it at their next read
            ordered_for = which
        for line in orders(trial) if orders else []:
            try:
                trial.apply_command(seat, line)
            except CommandError:  # an earlier line of the mail changed the set under it (its auction ended)
                continue
            lines.append(line)
        if trial.is_terminal() or trial.current_player() != seat:
            return lines
        command = decide(kind, "heuristic", trial, seat, seed + trial.moves)
        trial.apply_command(seat, command)
        lines.append(command)


def set_key(state):
    """The set of auctions that runs, told apart from the one before it (its trigger and commissioner), or None."""
    auctions = next((f for f in reversed(getattr(state, "frames", None) or []) if f.get("kind") == "auctions"), None)
    return (auctions["trigger"], auctions["commissioner"]) if auctions else None


def set_sites(state) -> list[str]:
    """The auctions of the set that runs (the running one first), or none."""
    frames = getattr(state, "frames", None) or []
    sets = [f for f in frames if f.get("kind") == "auctions"]
    if not sets:
        return []
    running = next((f["site"] for f in frames if f.get("kind") in ("auction", "build")), None)
    return [*([running] if running else []), *sets[-1]["queue"]]


def orders_for(state, seat: int, done: set, seed: int) -> list[str]:
    """A person who uses orders answers every auction of the set they have not ordered yet: 'build max' (the
    robot's rule of thumb: they do not want to be asked again), and a standing bid of a share (30-60 %, drawn
    for the game's ``seed``, the seat, the set and the auction, so the same whenever in the set they order)
    of the most they can reach there; nothing where they are out already. ``done`` holds the set (its trigger and
    commissioner) and the sites ordered in it: a set that follows another at once is ordered afresh."""
    lines: list[str] = []
    sites = set_sites(state)
    frame = state.frames[-1] if sites else {}
    which = set_key(state)
    if which not in done:  # another set than the one ordered for (two may follow each other in one mail)
        done.clear()
        done.add(which)
    for site in sites:
        if site in done:
            continue
        if frame.get("site") == site and (frame["kind"] == "build" or seat in frame["out"]):
            continue
        running = frame.get("site") == site and frame["kind"] == "auction"
        colors = [c for c in allowed_bid_colors(state, frame if running else {"site": site, "color": None}, seat)[0]]
        reach = most_reachable(Holding(state.hands[seat], None), colors, "black") if colors else 0
        own = frame["bids"].get(str(seat)) if running else None
        if own is not None:
            reach += sum(v * (a + b) for v, a, b in zip((4, 5, 6), own["colored"], own["black"]))
        lines.append(f"build {site} max")
        share = random.Random(f"{seed} {seat} {which} {site}").uniform(0.3, 0.6)  # the same whenever they order
        lines.append(f"bid {site} up to {round(reach * share)}")
        done.add(site)
    return lines


def play(kind: str, players: int, seed: int, reads: int, share: float = 0.0, orders_on: bool = True) -> Played:
    now = START
    engine = create_engine("sqlite://")
    SQLModel.metadata.create_all(engine)
    service = GameService(engine, clock=lambda: now)
    people = [(name, f"{name.lower()}@example.org") for name in NAMES[:players]]
    game_id = service.create_game(kind, people, seed=seed)
    draw = random.Random(seed * 7919 + reads)
    readers = [Reader(seed=draw.randrange(2**31), reads=reads, offset=draw.randint(-8, 9)) for _ in people]
    ordering = {seat for seat in range(players) if seat < round(share * players)}
    ordered: list[set[str]] = [set() for _ in people]  # the sites of the running set each has ordered
    played = Played(days=0.0)
    asked: dict[int, datetime] = {0: START}  # who has a mail that asks them something, since when
    last = None
    for _ in range(MOST_MAILS):
        info = service.get(game_id)
        state = info.state
        if info.over:
            break
        seat = min(asked, key=lambda s: (readers[s].next_read(asked[s]), s))
        now = readers[seat].next_read(asked[seat])
        hours = (now - asked.pop(seat)).total_seconds() / 3600
        orders = (lambda trial: orders_for(trial, seat, ordered[seat], seed)) if seat in ordering else None
        lines = answer(kind, state, seat, seed, orders)
        if orders and orders_on and seat not in state.order_seats:
            lines.insert(0, "orders on")  # with their first mail: every set's start mails them, the first's too
        if not lines:
            continue  # asked for orders, but the set was over before they read: the game did not wait for them
        auction = in_auctions(state)
        if state.current_player() != seat:
            pass  # orders sent ahead of their turn: the game waited for nobody
        elif auction:
            played.wait_auctions += hours
        else:
            played.wait_outside += hours
        if last is not None and seat != last:
            played.handoffs += 1
            played.handoffs_in_auctions += auction
        began = not set_sites(state)
        service.submit(game_id, people[seat][1], "\n".join(lines), source="mail")
        sent(engine)
        last = seat
        after = service.get(game_id).state
        if not set_sites(after):
            for done in ordered:
                done.clear()
        elif began:  # a set of auctions began: every bidder who has given orders is mailed for them at once
            for other in ordering & set(after.order_seats):
                asked.setdefault(other, now)
        if not after.is_terminal():
            asked.setdefault(after.current_player(), now)
    else:
        raise RuntimeError(f"{kind} {players}p seed {seed}: no end after {MOST_MAILS} mails")
    played.days = (now - START).total_seconds() / 86400
    with Session(engine) as s:
        rows = s.exec(select(OutboxMail).where(OutboxMail.game_id == game_id)).all()
    for _, address in people:
        mine = [row for row in rows if row.recipient == address]
        played.mails.append(len(mine))
        played.receipts.append(sum(1 for row in mine if RECEIPT_HEADER in (row.headers or {})))
    return played


def sent(engine) -> None:
    """The worker's pass ends: what it queued is sent, so nothing folds into a later mail."""
    with engine.begin() as connection:
        connection.execute(update(OutboxMail).where(OutboxMail.status == OutboxStatus.QUEUED)
                           .values(status=OutboxStatus.SENT))


def median(values) -> float:
    return statistics.median(values) if values else 0.0


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--games", type=int, default=9, help="games of each kind and size (9)")
    parser.add_argument("--reads", default="3,6", help="reads a day, comma separated (3,6)")
    parser.add_argument("--orders", default="0,1", help="shares of the players who use orders (0,1)")
    parser.add_argument("--orders-on", type=int, default=1,
                        help="1: a player who uses orders sends 'orders on' with their first mail (D48); 0: not")
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument("--only", default="fifth-avenue:3,fifth-avenue:4,manhattan:3,manhattan:4",
                        help="the games, as kind:players, comma separated")
    args = parser.parse_args()
    tables = [(kind, int(n)) for kind, n in (item.split(":") for item in args.only.split(","))]
    print(f"{'game':12} {'p':>1} {'reads':>5} {'orders':>6} {'days':>5} {'hand-offs':>9} {'in auct.':>8} "
          f"{'wait h auct.':>12} {'wait h out':>10} {'mails/pl':>8} {'receipts':>8}")
    for kind, players in tables:
        for reads in (int(k) for k in args.reads.split(",")):
            for share in (float(x) for x in args.orders.split(",")):
                if share and kind == "manhattan":
                    continue  # no auctions, no orders
                games = [play(kind, players, args.seed + n, reads, share, bool(args.orders_on))
                         for n in range(args.games)]
                print(f"{kind:12} {players:>1} {reads:>5} {share:>6.0%} {median(g.days for g in games):5.1f} "
                      f"{median(g.handoffs for g in games):9.0f} {median(g.handoffs_in_auctions for g in games):8.0f} "
                      f"{median(g.wait_auctions for g in games):12.0f} {median(g.wait_outside for g in games):10.0f} "
                      f"{median(m for g in games for m in g.mails):8.0f} "
                      f"{median(r for g in games for r in g.receipts):8.0f}", flush=True)


if __name__ == "__main__":
    main()
