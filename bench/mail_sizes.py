"""Mail sizes over complete games: what a player's mailbox receives.

Run: python bench/mail_sizes.py [--seeds 2]

Plays complete seeded games of both kinds (Fifth Avenue with 3 players and 2
with the robot, Manhattan with 2 and 4) through the game service on a SQLite
file. After every move it sends what the move queued, as the worker's sender
does within a second: builds each mail (text part, HTML part and the picture of
the board) and marks it sent. A mail left unsent would be folded into the
reader's next one (services.mail_out.mail_folding) and make that one tell more
than a player ever receives. Prints, for the game mails (with the board; the
short text receipts apart), the median and largest size of each part and of the
whole mail as sent, and how long building a mail took (drawing its picture
included, once per position as the sender does); then the game mails and the
receipts per decision, and the median of every mail as sent, receipts included.

Budgets (issue 47, point 2): the median game mail as sent at most 40 KB, and at
most 1.3 game mails a decision for both games. With --seeds 1, before and after
the mover's board mail became a receipt (bench/results/receipts_issue47.txt):
game mails a decision Fifth Avenue 3p 1.34 -> 1.08, 2p 1.21 -> 0.95, Manhattan
2p 1.89 -> 1.03, 4p 2.06 -> 1.06; median game mail as sent 36.4-37.6 KB ->
37.6-38.9 KB (the small "Done" mails are gone), every mail 30.1-37.4 KB.
"""

from __future__ import annotations

import argparse
import statistics
import tempfile
import time
from dataclasses import dataclass, field
from pathlib import Path

from sqlalchemy import Engine

from sqlmodel import Session, select

from pbem.adapters.outbox_sender import build_message
from pbem.games.rng import Rng
from pbem.services.mail_out.receipts import is_receipt
from pbem.services.table.service import GameService
from pbem.services.offline.simulate import choose
from pbem.store.db import make_engine, upgrade
from pbem.store.models import OutboxMail
from pbem.store.statuses import OutboxStatus

NAMES = ["Ann", "Bob", "Cy", "Dee"]
GAMES = [("fifth-avenue", 3), ("fifth-avenue", 2), ("manhattan", 2), ("manhattan", 4)]


@dataclass
class Sizes:
    text: list[int] = field(default_factory=list)
    html: list[int] = field(default_factory=list)
    picture: list[int] = field(default_factory=list)
    sent: list[int] = field(default_factory=list)
    took: list[float] = field(default_factory=list)
    receipts: list[int] = field(default_factory=list)  # as sent
    decisions: int = 0


def send_queued(engine: Engine, game_id: int, sizes: Sizes) -> None:
    """Build every queued mail of the game as the sender does, note its sizes and mark it sent."""
    with Session(engine) as s:
        for mail in s.exec(select(OutboxMail).where(OutboxMail.game_id == game_id,
                                                    OutboxMail.status == OutboxStatus.QUEUED)).all():
            start = time.perf_counter()
            message = build_message(mail, "game@example.test")
            raw = message.as_bytes()
            mail.status = OutboxStatus.SENT
            s.add(mail)
            if is_receipt(mail):
                sizes.receipts.append(len(raw))
                continue
            sizes.took.append(time.perf_counter() - start)
            sizes.text.append(len(mail.text_body.encode()))
            sizes.html.append(len((mail.html_body or "").encode()))
            sizes.picture.append(sum(len(part.get_payload(decode=True)) for part in message.walk()
                                     if part.get_content_type() == "image/png"))
            sizes.sent.append(len(raw))
        s.commit()


def play(engine: Engine, games: GameService, kind: str, players: int, seed: int, sizes: Sizes) -> int:
    game_id = games.create_game(kind, [(n, f"{n.lower()}@example.test") for n in NAMES[:players]], seed=seed)
    send_queued(engine, game_id, sizes)
    rng = Rng(seed)
    for _ in range(5000):
        info, legal = games.legal(game_id)
        if not legal:
            sizes.decisions += info.state.moves
            return game_id
        (email, commands), = legal.items()
        games.submit(game_id, email, choose(commands, rng, "by-kind"))
        send_queued(engine, game_id, sizes)
    raise SystemExit(f"game {game_id} did not end")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--seeds", type=int, default=2, help="games of each kind and size")
    args = parser.parse_args()
    with tempfile.TemporaryDirectory() as folder:
        engine = make_engine(f"sqlite:///{Path(folder) / 'sizes.sqlite3'}")
        upgrade(engine)
        games = GameService(engine, mail_domain="example.test")
        print(f"{'game':<16} {'mails':>5} {'text':>13} {'html':>13} {'picture':>13} {'as sent':>15} {'build ms':>9} "
              f"{'decisions':>9} {'mails/dec.':>10} {'receipts':>8} {'receipts/dec.':>13} {'all as sent':>11} "
              f"{'largest':>7}")
        print(f"{'':<16} {'':>5} {'median/max':>13} {'median/max':>13} {'median/max':>13} {'median/max':>15} "
              f"{'median':>9} {'':>9} {'':>10} {'':>8} {'':>13} {'median':>11}")
        for kind, players in GAMES:
            sizes = Sizes()
            for seed in range(args.seeds):
                play(engine, games, kind, players, seed, sizes)

            def both(values: list[int]) -> str:
                return f"{statistics.median(values) / 1024:5.1f}/{max(values) / 1024:5.1f}K"

            print(f"{kind + ' ' + str(players) + 'p':<16} {len(sizes.sent):>5} {both(sizes.text):>13} "
                  f"{both(sizes.html):>13} {both(sizes.picture):>13} {both(sizes.sent):>15} "
                  f"{statistics.median(sizes.took) * 1000:>9.1f} {sizes.decisions:>9} "
                  f"{len(sizes.sent) / sizes.decisions:>10.2f} {len(sizes.receipts):>8} "
                  f"{len(sizes.receipts) / sizes.decisions:>13.2f} "
                  f"{statistics.median(sizes.sent + sizes.receipts) / 1024:>10.1f}K {max(sizes.sent):>7}")


if __name__ == "__main__":
    main()
