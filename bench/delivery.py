"""How many game mails a complete game sends, by delivery setting, and how long building them takes.

Plays whole games through the game service on an in-memory SQLite database
(random commands of each kind, one command a mail, as `pbem demo`'s robots
send them) and prints, per game and setting: game mails, decisions, mails a
decision, mails per player, the average mail size and the time a command takes
with its mails. Each command is a pass of the worker of its own: what it queued
is sent before the next. Then one person against robots: their decisions and
the mails they get (a mail waiting unsent folds into a later one:
services.mail_out.mail_folding).

Run: python bench/delivery.py [--games N] [--players P]
"""

from __future__ import annotations

import argparse
import statistics
import time

from sqlalchemy import update
from sqlmodel import Session, SQLModel, create_engine, select

from pbem.games.rng import Rng
from pbem.services.table.service import GameService
from pbem.services.table.robot_seats import RobotPlayers
from pbem.services.offline.simulate import choose
from pbem.store.models import OutboxMail
from pbem.store.statuses import OutboxStatus

NAMES = ["Ann", "Bob", "Cy", "Dee"]


def end_of_pass(engine) -> None:
    """A worker's pass ends: the mail it queued is sent (so it cannot fold into a later one)."""
    with engine.begin() as connection:
        connection.execute(update(OutboxMail).where(OutboxMail.status == OutboxStatus.QUEUED)
                           .values(status=OutboxStatus.SENT))


def play(kind: str, players: int, seed: int, mode: str) -> tuple[int, list[OutboxMail], float]:
    engine = create_engine("sqlite://")
    SQLModel.metadata.create_all(engine)
    service = GameService(engine)
    game_id = service.create_game(kind, [(n, f"{n.lower()}@example.org") for n in NAMES[:players]], seed=seed)
    service.set_delivery(game_id, mode)
    rng = Rng(seed ^ 0x5EED)
    started = time.perf_counter()
    submits = 0
    while not (info := service.get(game_id)).over:
        state = info.state
        service.submit(game_id, info.email_of(state.current_player()), str(choose(state.legal_actions(), rng, "by-kind")))
        submits += 1
        end_of_pass(engine)  # each mail in a pass of its own: what it queued is sent, not folded
    took = (time.perf_counter() - started) / max(1, submits)
    with Session(engine) as s:
        mails = list(s.exec(select(OutboxMail).where(OutboxMail.game_id == game_id,
                                                     OutboxMail.status != OutboxStatus.FOLDED)).all())
    return info.state.moves, mails, took


def against_robots(kind: str, robots: int, seed: int) -> tuple[int, int, int]:
    """One person against ``robots`` quick robots, each of the person's mails in a pass of its own in which the
    robots answer: the person's decisions, the mails they were sent, and the mails folded into later ones."""
    engine = create_engine("sqlite://")
    SQLModel.metadata.create_all(engine)
    service = GameService(engine)
    person = "ann@example.org"
    game_id = service.create_game(kind, [("Ann", person)] + [(f"R{n}", "robot") for n in range(robots)], seed=seed)
    players = RobotPlayers(service)
    rng = Rng(seed ^ 0x5EED)
    decisions = 0
    while True:
        while players.play_due([game_id]).more:
            pass
        end_of_pass(engine)
        if (info := service.get(game_id)).over:
            break
        service.submit(game_id, person, str(choose(info.state.legal_actions(), rng, "by-kind")))
        decisions += 1
    with Session(engine) as s:
        statuses = [m.status for m in s.exec(select(OutboxMail).where(OutboxMail.recipient == person)).all()]
    return decisions, statuses.count(OutboxStatus.SENT), statuses.count(OutboxStatus.FOLDED)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--games", type=int, default=3)
    parser.add_argument("--players", type=int, default=3)
    args = parser.parse_args()
    print(f"{'game':12} {'setting':7} {'mails':>6} {'decisions':>9} {'a decision':>10} {'a player':>8} "
          f"{'size KB':>7} {'ms a command':>12}")
    for kind in ("fifth-avenue", "manhattan"):
        for mode in ("all", "turns", "digest"):
            rates, sizes, times, counts, moves = [], [], [], [], []
            for seed in range(1, args.games + 1):
                decisions, mails, took = play(kind, args.players, seed, mode)
                rates.append(len(mails) / decisions)
                sizes += [len(m.text_body) for m in mails]
                times.append(took * 1000)
                counts.append(len(mails))
                moves.append(decisions)
            print(f"{kind:12} {mode:7} {statistics.mean(counts):6.0f} {statistics.mean(moves):9.0f} "
                  f"{statistics.mean(rates):10.2f} {statistics.mean(counts) / args.players:8.0f} "
                  f"{statistics.mean(sizes) / 1024:7.1f} {statistics.mean(times):12.1f}")
    print(f"\none person against {args.players - 1} quick robots (delivery 'turns'):")
    print(f"{'game':12} {'decisions':>9} {'mails':>6} {'a decision':>10} {'folded':>7}")
    for kind in ("fifth-avenue", "manhattan"):
        games = [against_robots(kind, args.players - 1, seed) for seed in range(1, args.games + 1)]
        decisions, sent, folded = (statistics.mean(g[i] for g in games) for i in range(3))
        print(f"{kind:12} {decisions:9.0f} {sent:6.0f} {sent / decisions:10.2f} {folded:7.0f}")


if __name__ == "__main__":
    main()
