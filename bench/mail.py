"""Mail benchmark over real servers: Dovecot (IMAP, LMTP) and aiosmtpd.

Run: python bench/mail.py [--mails 100]   (needs dovecot: bash tests/install-servers.sh)

Games of two players each; the first player of every game sends one command.
The worker runs in IDLE mode (a thread running `MailWorker.run_forever`).
Throughput: N mails APPENDed to the game mailbox at once; mails per second
until the SMTP server has accepted every reply (a confirmation to the sender
and the request to the next player, for each mail). Latency: mails APPENDed
one at a time, a quarter of a second apart (players do not send in bursts);
from each APPEND to the SMTP server accepting the last mail it caused; p50
and p95. In the same run, the baseline: the same N mails fetched with
imapclient and the same number of replies sent with aiosmtplib, with no game
logic and no database, and the ratio of the two throughputs.
"""

from __future__ import annotations

import argparse
import asyncio
import statistics
import tempfile
import threading
import time
from email.message import EmailMessage
from email.utils import make_msgid
from pathlib import Path

import aiosmtplib
from imapclient import IMAPClient

from pbem.config import MailConfig, ServerConfig
from pbem.services.games import GameService
from pbem.services.worker import MailWorker
from pbem.store.db import make_engine, upgrade
from pbem.testing.mailservers import Dovecot, SmtpToLmtp

GAME = "game@example.test"


def player_mail(sender: str, game_id: int, command: str) -> bytes:
    msg = EmailMessage()
    msg["From"] = sender
    msg["To"] = GAME
    msg["Subject"] = f"Re: [Fifth Avenue #{game_id}] your turn (decision 0)"
    msg["Message-ID"] = make_msgid(domain="bench.example.test")
    msg.set_content(f"{command}\n")
    return bytes(msg)


def percentile(values: list[float], q: float) -> float:
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, int(round(q * (len(ordered) - 1))))]


def run_pbem(dovecot: Dovecot, smtp: SmtpToLmtp, mails: int, paced: int, folder: Path) -> tuple[float, list[float]]:
    engine = make_engine(f"sqlite:///{folder / 'bench.sqlite3'}")
    upgrade(engine)
    games = GameService(engine, mail_domain="example.test")
    config = MailConfig(imap=ServerConfig(dovecot.host, dovecot.imap_port, "plain", "game", "secret"),
                        smtp=ServerConfig("127.0.0.1", smtp.port, "plain"), game_address=GAME, poll_interval=60)
    raw = []
    for i in range(mails + paced):
        game_id = games.create_game("fifth-avenue", [("Ann", "ann@example.test"), ("Bob", "bob@example.test")],
                                    seed=i)
        (_, commands), = games.legal(game_id)[1].items()
        raw.append(player_mail("ann@example.test", game_id, commands[0]))
    worker = MailWorker(engine, config)
    worker.run_once()  # the opening mails go out before the clock starts
    smtp.messages.clear()
    stop = threading.Event()
    thread = threading.Thread(target=worker.run_forever, args=(stop.is_set,), daemon=True)
    thread.start()
    time.sleep(1.0)  # connected and in IDLE

    def wait_for(count: int) -> None:
        deadline = time.monotonic() + 60 + count
        while len(smtp.messages) < count and time.monotonic() < deadline:
            time.sleep(0.002)
        if len(smtp.messages) < count:
            raise SystemExit(f"only {len(smtp.messages)} of {count} replies arrived")

    with IMAPClient(dovecot.host, port=dovecot.imap_port, ssl=False) as client:
        client.login("game", "secret")
        start = time.monotonic()
        for message in raw[:mails]:
            client.append("INBOX", message)
        wait_for(2 * mails)  # a confirmation to Ann and a request to Bob per mail
        rate = mails / (time.monotonic() - start)
        latencies = []
        for message in raw[mails:]:
            time.sleep(0.25)
            before = len(smtp.messages)
            appended = time.monotonic()
            client.append("INBOX", message)
            wait_for(before + 2)
            latencies.append(smtp.messages[before + 1].accepted_at - appended)
    stop.set()
    thread.join(timeout=30)
    engine.dispose()
    return rate, latencies


def run_baseline(dovecot: Dovecot, smtp: SmtpToLmtp, mails: int) -> float:
    raw = [player_mail("ann@example.test", i, "A") for i in range(mails)]
    with IMAPClient(dovecot.host, port=dovecot.imap_port, ssl=False) as client:
        client.login("game", "secret")
        client.select_folder("INBOX")
        client.delete_messages(client.search(["ALL"]))
        client.expunge()
        for message in raw:
            client.append("INBOX", message)
    smtp.messages.clear()

    async def send_all(bodies: list[bytes]) -> None:
        async with aiosmtplib.SMTP(hostname="127.0.0.1", port=smtp.port) as client:
            for body in bodies:
                for to in ("ann@example.test", "bob@example.test"):
                    reply = EmailMessage()
                    reply["From"], reply["To"], reply["Subject"] = GAME, to, "Re: bench"
                    reply.set_content(body[:200].decode("ascii", "replace"))
                    await client.send_message(reply)

    start = time.monotonic()
    with IMAPClient(dovecot.host, port=dovecot.imap_port, ssl=False) as client:
        client.login("game", "secret")
        client.select_folder("INBOX")
        uids = client.search(["ALL"])
        bodies = [client.fetch([uid], ["BODY.PEEK[]"])[uid][b"BODY[]"] for uid in uids]
        asyncio.run(send_all(bodies))
    return mails / (time.monotonic() - start)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--mails", type=int, default=100)
    parser.add_argument("--paced", type=int, default=40, help="mails sent one at a time for the latency")
    args = parser.parse_args()
    with tempfile.TemporaryDirectory() as folder, Dovecot(domain="example.test") as dovecot:
        dovecot.start({"game": "secret", "ann": "secret", "bob": "secret"}) if not dovecot.running else None
        smtp = SmtpToLmtp(dovecot.host, dovecot.lmtp_port)
        smtp.start()
        try:
            rate, latencies = run_pbem(dovecot, smtp, args.mails, args.paced, Path(folder))
            baseline = run_baseline(dovecot, smtp, args.mails)
        finally:
            smtp.stop()
    print(f"mails: {args.mails} at once (throughput), {args.paced} one at a time (latency)")
    print(f"pbem:     {rate:7.1f} mails/s   latency p50 {statistics.median(latencies) * 1000:6.0f} ms   "
          f"p95 {percentile(latencies, 0.95) * 1000:6.0f} ms")
    print(f"baseline: {baseline:7.1f} mails/s   (fetch + the same number of replies, no game logic)")
    print(f"ratio (baseline / pbem throughput): {baseline / rate:.2f}")


if __name__ == "__main__":
    main()
