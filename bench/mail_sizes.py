"""Mail sizes over complete games: what a player's mailbox receives.

Run: python bench/mail_sizes.py [--seeds 2]

Plays complete seeded games of both kinds (Fifth Avenue with 3 players and 2
with the robot, Manhattan with 2 and 4) through the game service on a SQLite
file, builds every queued mail as the sender sends it (text part, HTML part and
the picture of the board), and prints the median and largest size of each
part and of the whole mail as sent, and how long building a mail took
(drawing its picture included, once per position as the sender does).
"""

from __future__ import annotations

import argparse
import statistics
import tempfile
import time
from pathlib import Path

from sqlmodel import Session, select

from pbem.adapters.outbox_sender import build_message
from pbem.games.rng import Rng
from pbem.services.table.service import GameService
from pbem.services.offline.simulate import choose
from pbem.store.db import make_engine, upgrade
from pbem.store.models import OutboxMail

NAMES = ["Ann", "Bob", "Cy", "Dee"]
GAMES = [("fifth-avenue", 3), ("fifth-avenue", 2), ("manhattan", 2), ("manhattan", 4)]


def play(games: GameService, kind: str, players: int, seed: int) -> int:
    game_id = games.create_game(kind, [(n, f"{n.lower()}@example.test") for n in NAMES[:players]], seed=seed)
    rng = Rng(seed)
    for _ in range(5000):
        info, legal = games.legal(game_id)
        if not legal:
            return game_id
        (email, commands), = legal.items()
        games.submit(game_id, email, choose(commands, rng, "by-kind"))
    raise SystemExit(f"game {game_id} did not end")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--seeds", type=int, default=2, help="games of each kind and size")
    args = parser.parse_args()
    with tempfile.TemporaryDirectory() as folder:
        engine = make_engine(f"sqlite:///{Path(folder) / 'sizes.sqlite3'}")
        upgrade(engine)
        games = GameService(engine, mail_domain="example.test")
        print(f"{'game':<16} {'mails':>5} {'text':>13} {'html':>13} {'picture':>13} {'as sent':>15} {'build ms':>9}")
        print(f"{'':<16} {'':>5} {'median/max':>13} {'median/max':>13} {'median/max':>13} {'median/max':>15} "
              f"{'median':>9}")
        for kind, players in GAMES:
            ids = [play(games, kind, players, seed) for seed in range(args.seeds)]
            with Session(engine) as s:
                mails = s.exec(select(OutboxMail).where(OutboxMail.game_id.in_(ids))).all()
            text, html, picture, sent, took = [], [], [], [], []
            for mail in mails:
                start = time.perf_counter()
                message = build_message(mail, "game@example.test").as_bytes()
                took.append(time.perf_counter() - start)
                text.append(len(mail.text_body.encode()))
                html.append(len((mail.html_body or "").encode()))
                picture.append(sum(len(part.get_payload(decode=True)) for part in
                                   build_message(mail, "game@example.test").walk()
                                   if part.get_content_type() == "image/png"))
                sent.append(len(message))

            def both(values: list[int]) -> str:
                return f"{statistics.median(values) / 1024:5.1f}/{max(values) / 1024:5.1f}K"

            print(f"{kind + ' ' + str(players) + 'p':<16} {len(mails):>5} {both(text):>13} {both(html):>13} "
                  f"{both(picture):>13} {both(sent):>15} {statistics.median(took) * 1000:>9.1f}")


if __name__ == "__main__":
    main()
