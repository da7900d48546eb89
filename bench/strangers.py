"""Three strangers at one table, by mail, to the end (issue 47, point 7): what a player's mailbox receives.

Run: python bench/strangers.py [--database URL] [--seed 47]
(needs dovecot: bash tests/install-servers.sh)

Through the real worker (its passes run one by one, its clock moved by hand) on a private Dovecot and a real
SMTP server: Ann opens a 3-player Fifth Avenue table by mail from NeoMutt, Bob joins answering in Gmail's shape,
Cy joins from a phone that sends HTML only, each confirming by a plain Reply 'yes' to the code's mail; Wat
watches the game from Outlook. Then every decision is a plain Reply (no secret word typed) in its player's
shape to the newest mail that asks them something, the command the heuristic robot would choose from the
player's own view, until the game is over. A day passes every 25 decisions, so the watcher's daily mails
go out. Printed: the mails each person got (by the first words of their first line), their sizes as sent
(the message as Dovecot stores it: median and largest), the game mails per decision, the signup mails per
request, how long the worker took to answer a move (median and largest), and checks that no mail to one
person shows another's address, hand or secret word.
"""

from __future__ import annotations

import argparse
import re
import statistics
import sys
import tempfile
import time
from collections import Counter
from datetime import datetime, timezone
from email import policy
from email.message import EmailMessage
from email.parser import BytesParser
from email.utils import make_msgid
from pathlib import Path

import checkout  # noqa: F401 - pbem_testing/ in reach (bench/checkout.py)
from pbem.config import MailConfig, ServerConfig, SignupConfig
from pbem.services.table.robot_seats import decide
from pbem.services.table.service import GameService
from pbem.store.db import make_engine, upgrade
from pbem.worker import MailWorker
from pbem_testing.clock import StoppedClock
from pbem_testing.mailservers import Dovecot, SmtpToLmtp
from pbem_testing.reply_shapes import shaped_reply

GAME = "game@example.test"
MODERATOR = "mod@example.test"
PEOPLE = {"ann": ("Ann", "neomutt"), "bob": ("Bob", "gmail"), "cy": ("Cy", "html-only"), "wat": ("Wat", "outlook")}
USERS = ("game", "mod", *PEOPLE)
ADDRESS = re.compile(r"[\w.+-]+@[\w-]+(?:\.[\w-]+)+")


def address(user: str) -> str:
    return f"{user}@example.test"


def read_inbox(dovecot: Dovecot, user: str) -> list[tuple[EmailMessage, int]]:
    """Every message in ``user``'s INBOX with its size as stored, oldest first."""
    client = dovecot.imap(user)
    try:
        client.select_folder("INBOX", readonly=True)
        uids = sorted(client.search(["ALL"]))
        data = client.fetch(uids, ["BODY.PEEK[]", "RFC822.SIZE"]) if uids else {}
        return [(BytesParser(policy=policy.default).parsebytes(data[uid][b"BODY[]"]), data[uid][b"RFC822.SIZE"])
                for uid in uids]
    finally:
        client.logout()


def text_of(mail: EmailMessage) -> str:
    body = mail.get_body(("plain",))
    return body.get_content().replace("\r\n", "\n") if body is not None else ""


def new_mail(user: str, text: str, html_only: bool = False) -> EmailMessage:
    msg = EmailMessage()
    msg["From"], msg["To"], msg["Subject"] = f"{PEOPLE[user][0]} <{address(user)}>", GAME, "pbem"
    msg["Message-ID"] = make_msgid(domain="client.example.test")
    if html_only:
        msg.set_content("<div>" + "<br>".join(text.splitlines()) + "</div>", subtype="html")
    else:
        msg.set_content(text)
    return msg


def kind_of(mail: EmailMessage) -> str:
    """A mail's kind, by the first words of its first line ('Your turn', 'Done', 'Game over', ...)."""
    first = text_of(mail).strip().splitlines()[0] if text_of(mail).strip() else str(mail["Subject"])
    head = re.split(r"[:.!]", first)[0]
    return " ".join(head.split()[:3])


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--database", default="", help="database URL (default: a SQLite file in a temp folder)")
    parser.add_argument("--seed", type=int, default=47, help="the heuristic robot's choices")
    args = parser.parse_args()
    url = args.database or f"sqlite:///{Path(tempfile.mkdtemp(prefix='pbem-bench-')) / 'bench.sqlite3'}"
    engine = make_engine(url)
    upgrade(engine)
    clock = StoppedClock(datetime(2026, 11, 23, 9, 0, tzinfo=timezone.utc))
    with Dovecot(domain="example.test") as dovecot:
        dovecot.start({user: "secret" for user in USERS})
        with SmtpToLmtp(dovecot.host, dovecot.lmtp_port) as smtp:
            config = MailConfig(imap=ServerConfig(dovecot.host, dovecot.imap_port, "plain", "game", "secret"),
                                smtp=ServerConfig("127.0.0.1", smtp.port, "plain"), game_address=GAME,
                                poll_interval=1, moderator=MODERATOR)
            worker = MailWorker(engine, config, clock=clock, signup=SignupConfig(new="anyone"))
            games = GameService(engine, mail_domain="example.test", clock=clock)
            play(dovecot, smtp, worker, games, clock, args.seed)
    engine.dispose()


def play(dovecot: Dovecot, smtp: SmtpToLmtp, worker: MailWorker, games: GameService, clock: StoppedClock,
         seed: int) -> None:
    import smtplib

    answer_times: list[float] = []

    def mail_in(message: EmailMessage, outcome: str | None = None) -> None:
        with smtplib.SMTP("127.0.0.1", smtp.port) as client:
            client.send_message(message)
        started = time.perf_counter()
        report = worker.run_once()
        answer_times.append(time.perf_counter() - started)
        found = [o for _, _, o in report.processed]
        if outcome is not None and found != [outcome]:
            sys.exit(f"expected {outcome}, got {found} for {message['From']}: {str(message.get_body()).strip()[:200]}")

    def reply(user: str, original: EmailMessage, text: str, outcome: str | None = None) -> None:
        mail_in(shaped_reply(PEOPLE[user][1], original, f"{PEOPLE[user][0]} <{address(user)}>", text), outcome)

    def confirm(user: str) -> None:
        code_mail = next(m for m, _ in reversed(read_inbox(dovecot, user)) if "confirm code " in str(m["Subject"]))
        reply(user, code_mail, "yes", "signup")

    signup_mails: dict[str, int] = {}

    def request(user: str, text: str) -> None:
        before = len(read_inbox(dovecot, user))
        mail_in(new_mail(user, text, html_only=PEOPLE[user][1] == "html-only"), "signup")
        signup_mails[f"{user}: {text}"] = len(read_inbox(dovecot, user)) - before
        confirm(user)

    request("ann", "Hello!\nnew fifth-avenue players 3 as Ann")
    request("bob", "join 1 as Bob")
    request("cy", "join 1 as Cy")  # the last seat: the game starts
    game_id = 1
    info = games.get(game_id)
    request("wat", f"watch {game_id} as Wat")
    decisions = 0
    users = {p.email: p.email.split("@")[0] for p in info.players}
    while not (info := games.get(game_id)).over:
        seat = info.state.current_player()
        user = users[info.email_of(seat)]
        asked = next(m for m, _ in reversed(read_inbox(dovecot, user)) if m["X-Pbem-Decision"] is not None)
        command = decide(info.kind, "heuristic", info.state, seat, seed + info.state.moves)
        reply(user, asked, f"Hi all,\n{command}\nThanks", "applied")
        decisions += 1
        if decisions % 25 == 0:
            clock.advance(days=1, minutes=1)
            worker.run_once()  # the watcher's daily mail
        if decisions > 1500:
            sys.exit("the game does not end")
    clock.advance(days=1, minutes=1)
    worker.run_once()  # the watcher's last mail
    report(dovecot, games, game_id, decisions, signup_mails, answer_times)


def report(dovecot: Dovecot, games: GameService, game_id: int, decisions: int, signup_mails: dict[str, int],
           answer_times: list[float]) -> None:
    info = games.get(game_id)
    secrets = {p.email: p.secret for p in info.players if p.secret}
    print(f"Fifth Avenue, 3 players, by mail to the end: {decisions} decisions; result: "
          + ", ".join(f"{p.name} {info.state.scores[p.seat]}" for p in info.players))
    print("signup mails per request (the code's mail is the answer):",
          ", ".join(f"'{k}' {v}" for k, v in signup_mails.items()))
    print(f"worker pass per mail: median {statistics.median(answer_times):.2f} s, largest {max(answer_times):.2f} s "
          f"({len(answer_times)} mails)")
    total_game = 0
    problems: list[str] = []
    for user, (name, shape) in PEOPLE.items():
        box = read_inbox(dovecot, user)
        game_mails = [(m, size) for m, size in box if f"#{game_id}]" in str(m["Subject"]) or m["X-Pbem-Game"]]
        sizes = sorted(size for _, size in box)
        kinds = Counter(kind_of(m) for m, _ in box)
        by_kind: dict[str, list[int]] = {}
        for m, size in box:
            by_kind.setdefault(kind_of(m), []).append(size)
        if user != "wat":
            total_game += len(game_mails)
        print(f"\n{name} ({shape}): {len(box)} mails, {len(game_mails)} of the game; size as sent median "
              f"{statistics.median(sizes) / 1000:.1f} KB, largest {max(sizes) / 1000:.1f} KB")
        for kind, count in kinds.most_common():
            print(f"  {count:4}  {kind:24} median {statistics.median(by_kind[kind]) / 1000:5.1f} KB")
        code = next((m for m, _ in box if "confirm code " in str(m["Subject"])), None)
        if code is not None:
            print("  the code's mail begins: " + " / ".join(text_of(code).strip().splitlines()[:4]))
        heard = [m for m, _ in box if "Wat now watches the game" in " ".join(text_of(m).split())]
        if user != "wat":
            print(f"  mails that tell of the watcher Wat: {len(heard)}"
                  + (f" (the first: {kind_of(heard[0])})" if heard else ""))
        for mail, _ in box:
            text = text_of(mail) + "".join(p.get_content() for p in mail.walk() if p.get_content_type() == "text/html")
            shown = set(ADDRESS.findall(text)) - {address(user), MODERATOR, GAME}
            if shown:
                problems.append(f"{user}: {kind_of(mail)} shows {sorted(shown)}")
            others = [word for email, word in secrets.items() if email != address(user) and word in text]
            if others:
                problems.append(f"{user}: {kind_of(mail)} shows another's secret word")
            if user == "wat" and ("Your hand" in text or "HANDS" in text):
                problems.append("wat: a hand")
        if user == "wat":
            wide = [len(line) for m, _ in box for line in text_of(m).splitlines() if len(line) > 72]
            print(f"  lines over 72 columns: {len(wide)}")
    print(f"\ngame mails per decision (the three players): {total_game / decisions:.2f}")
    print("problems:", "; ".join(problems) if problems else "none")


if __name__ == "__main__":
    main()
