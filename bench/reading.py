"""What reading a player's reply costs: the line reader, the text extraction, and our pasted mail found.

Run: python bench/reading.py [--repeat 5]

In process, no mail servers; the last part uses a SQLite file. Printed, each the best of --repeat runs:

- ``read_line`` over a mix of commands and prose (lines per second);
- ``extract_text`` on a short command above a quote of 1.5 MB and of 19 MB (seconds);
- ``MailCommands.handle`` (dry run) on a game that has sent the player 60 mails, for: a one-line command; a
  command above one of our mails pasted without quote marks; a command above 5,000 lines of unquoted text
  that is not ours (the worst case of the pasted-text search); with the peak memory of the last.
"""

from __future__ import annotations

import argparse
import tempfile
import time
import tracemalloc
from email.message import EmailMessage
from email.utils import make_msgid
from pathlib import Path

from sqlmodel import Session, select

from pbem.games.fifth_avenue import VOCABULARY
from pbem.mail.commands import read_line
from pbem.mail.text import extract_text, read_message
from pbem.services.table.service import GameService
from pbem.services.mail_in.mail_commands import MailCommands
from pbem.store.db import make_engine, upgrade
from pbem.store.models import OutboxMail

LINES = ["bid brown 4 6", "Hi all, bid brown 4 6 thanks!", "Take care,", "Ann", "cards orange gray, move white 34W",
         "Pass my regards to Bob", "A quick question: can I bid twice?", "bid brwn 4"]


def best(repeat: int, work) -> float:  # type: ignore[no-untyped-def]
    times = []
    for _ in range(repeat):
        start = time.perf_counter()
        work()
        times.append(time.perf_counter() - start)
    return min(times)


def reply(body: str, sender: str, subject: str = "Re: [Fifth Avenue #1] your turn") -> bytes:
    msg = EmailMessage()
    msg["From"], msg["To"], msg["Subject"] = sender, "game@pbem.example", subject
    msg["Message-ID"] = make_msgid(domain="client.example")
    msg.set_content(body)
    return bytes(msg)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--repeat", type=int, default=5)
    args = parser.parse_args()

    lines = LINES * 2500
    seconds = best(args.repeat, lambda: [read_line(line, VOCABULARY) for line in lines])
    print(f"read_line: {len(lines) / seconds:,.0f} lines/s ({len(lines)} lines in {seconds:.3f} s)")

    for megabytes in (1.5, 19):
        quote = "> " + "x" * 70 + "\n"
        body = "bid brown 4 6\n\nOn Mon, 23 Nov 2026 at 10:00, pbem <game@pbem.example> wrote:\n" + quote * int(
            megabytes * 1e6 / len(quote))
        msg = read_message(reply(body, "ann@example.org"))
        seconds = best(args.repeat, lambda: extract_text(msg))
        print(f"extract_text, command above a {megabytes:g} MB quote: {seconds:.3f} s")

    with tempfile.TemporaryDirectory() as folder:
        url = f"sqlite:///{Path(folder) / 'bench.sqlite3'}"
        engine = make_engine(url)
        upgrade(engine)
        games = GameService(engine)
        players = [("Ann", "ann@example.org"), ("Bob", "bob@example.org"), ("Cy", "cy@example.org")]
        game = games.create_game("fifth-avenue", players, seed=41)
        while True:  # play until Ann has been sent 60 mails
            with Session(engine) as s:
                sent = s.exec(select(OutboxMail).where(OutboxMail.recipient == "ann@example.org")).all()
            if len(sent) >= 60:
                break
            (email, commands), = games.legal(game)[1].items()
            games.submit(game, email, commands[0])
        ann = games.legal(game)[1]
        email = next(iter(ann))
        command = ann[email][0]
        with Session(engine) as s:
            last = s.exec(select(OutboxMail).where(OutboxMail.recipient == email).order_by(OutboxMail.id.desc())).first()
        processor = MailCommands(games)
        noise = "\n".join(f"line {n} of something the player wrote about the weather and the game" for n in range(5000))
        cases = {
            "one-line command": command,
            "command above our mail pasted unquoted": f"{command}\n\nFrom my phone:\n{last.text_body}",
            "command above 5,000 lines not ours": f"{command}\n{noise}",
        }
        for name, body in cases.items():
            raw = reply(body, email, subject=f"Re: {last.subject}")
            seconds = best(args.repeat, lambda: processor.handle(raw, dry_run=True))
            outcome = processor.handle(raw, dry_run=True).outcome
            print(f"handle, {name} ({len(raw):,} bytes, {outcome}): {seconds * 1000:.0f} ms")
        tracemalloc.start()
        processor.handle(raw, dry_run=True)
        peak = tracemalloc.get_traced_memory()[1]
        tracemalloc.stop()
        print(f"peak memory of the last: {peak / 2**20:.1f} MiB")
        engine.dispose()


if __name__ == "__main__":
    main()
