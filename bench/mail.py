"""Mail benchmark over real servers: Dovecot (IMAP, LMTP) and aiosmtpd.

Run: python bench/mail.py [--mails 100] [--paced 40] [--rounds 3] [--database URL] [--profile FILE] [--queries]
(needs dovecot: bash tests/install-servers.sh)

Games of two players each; the first player of every game sends one command.
The worker is the real thing: ``pbem worker`` in a process of its own, in IDLE
mode, as deployed. The SMTP server delivering into Dovecot runs in this
process and notes when it accepted each mail.

- Throughput: N mails APPENDed to the game mailbox at once (for each, the
  worker sends a confirmation to the sender and a request to the next
  player); mails per second in the steady state, from the SMTP server
  accepting the first mail's answers to its accepting the last one's.
- Latency: mails APPENDed one at a time, a quarter of a second apart (players
  do not send in bursts), from each APPEND to the SMTP server accepting the
  last mail it caused; p50 and p95. Dovecot tells an IDLE client of new mail
  about 0.5 s after it arrives (its notify delay), which is in every figure.
- Baseline, in the same run: a process that fetches the same N mails with
  imapclient and sends as many mails of the same size with aiosmtplib (the
  answers pbem sent, readdressed), no game logic and no database; the ratio of
  the two throughputs.
- CPU per mail: the worker's own CPU time (user + system, all its threads and
  its outbox process, from /proc) over each burst, divided by the mails; the
  baseline client's likewise; and the worker's split between its own process
  (reading and applying) and its outbox process (building and sending).
  Less noisy than the rates on a busy machine: other processes slow the clock,
  not the work. On PostgreSQL (a server on this machine) also the CPU of the
  server processes that serve the worker's connections.
- ``--queries``: the worker's statements, transactions and (PostgreSQL) round
  trips to the server per mail, by kind, for each of its two processes
  (bench/sql_count.py); ``--trace`` adds every one of them for the last paced
  mail, in order. Counts, not times: they hold on a busy machine.

On SQLite the worker's rate was held back by the disk more than by its work:
each applied mail's commit was flushed (synchronous=FULL), which made the
difference between a ratio of 1.54-1.74 and 1.19 on this machine (issue 35),
with the same CPU per mail. Since issue 45 the worker flushes once a batch of
mails, before they leave the mailbox, and the sender once before it sends what
it claimed (docs/architecture.md, "Power cuts"): 20 fdatasyncs instead of 64
for 32 mails. On a machine whose disk syncs in 0.1 ms and whose CPUs are busy
with other work the ratio follows the load, not the flushes (CHANGELOG).
"""

from __future__ import annotations

import argparse
import asyncio
import json
import os
import signal
import statistics
import subprocess
import sys
import tempfile
import time
from email import policy
from email.message import EmailMessage
from email.parser import BytesParser
from email.utils import make_msgid
from pathlib import Path

from imapclient import IMAPClient

from pbem.config import MailConfig, ServerConfig
from pbem.services.table.service import GameService
from pbem.worker import MailWorker
from pbem.store.db import make_engine, upgrade
import checkout  # noqa: F401 - pbem_testing/ in reach (bench/checkout.py)
from pbem_testing.mailservers import Dovecot, SmtpToLmtp
from pbem_testing.workers import worker_env

GAME = "game@example.test"
PLAYERS = [("Ann", "ann@example.test"), ("Bob", "bob@example.test")]


def player_mail(sender: str, game_id: int, command: str) -> bytes:
    msg = EmailMessage()
    msg["From"] = sender
    msg["To"] = GAME
    msg["Subject"] = f"Re: [Fifth Avenue #{game_id}] your turn (decision 0)"
    msg["Message-ID"] = make_msgid(domain="bench.example.test")
    msg.set_content(f"{command}\n")
    return bytes(msg)


def cpu_seconds(pid: int) -> float:
    """User + system CPU so far of process ``pid`` (every thread) and of the processes it started and that still
    run (the worker's outbox process), from /proc."""
    return sum(cpu_split(pid))


def cpu_split(pid: int) -> tuple[float, float]:
    """The CPU so far of process ``pid`` itself (the worker: reading and applying mail) and of the processes it
    started (its outbox process: building and sending the answers)."""
    fields = Path(f"/proc/{pid}/stat").read_text().rpartition(")")[2].split()
    own = (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")
    children = {int(child) for task in Path(f"/proc/{pid}/task").iterdir()
                for child in (task / "children").read_text().split()}
    return own, sum(cpu_seconds(child) for child in children)


def server_cpu(engine) -> dict[int, float] | None:  # type: ignore[no-untyped-def]
    """The CPU so far of each of the PostgreSQL server's processes that serve the benchmark's database (one a
    connection of the worker and of its outbox process), from /proc; None for SQLite or a server elsewhere."""
    if engine.dialect.name != "postgresql":
        return None
    with engine.connect() as connection:
        pids = connection.exec_driver_sql("SELECT pid FROM pg_stat_activity WHERE datname = current_database() "
                                          "AND pid <> pg_backend_pid()").scalars().all()
    if pids and not Path(f"/proc/{pids[0]}").exists():
        return None  # a server on another machine
    found = {}
    for pid in pids:
        try:
            found[pid] = cpu_split(pid)[0]
        except OSError:
            pass  # gone meanwhile
    return found


def percentile(values: list[float], q: float) -> float:
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, int(round(q * (len(ordered) - 1))))]


def steady_rate(smtp: SmtpToLmtp, mails: int) -> float:
    """Mails per second between the first mail's second answer and the last mail's, as the SMTP server saw it."""
    first, last = smtp.messages[1].accepted_at, smtp.messages[2 * mails - 1].accepted_at
    return (mails - 1) / (last - first)


def wait_for(smtp: SmtpToLmtp, count: int, limit: float) -> None:
    deadline = time.monotonic() + limit
    while len(smtp.messages) < count and time.monotonic() < deadline:
        time.sleep(0.002)
    if len(smtp.messages) < count:
        raise SystemExit(f"only {len(smtp.messages)} of {count} answers arrived")


def run_pbem(dovecot: Dovecot, smtp: SmtpToLmtp, mails: int, paced: int, url: str, folder: Path, rounds: int,
             profile: str | None = None, queries: list[tuple[float, float]] | None = None
             ) -> tuple[list[float], list[float], list[float], list[tuple[float, float]], list[float]]:
    """The worker's rates, latencies, CPU per mail and its split, and (PostgreSQL) the CPU per mail of the server
    processes serving it. ``queries``, when given, gets the time window of each burst and of each paced mail, and
    the worker runs under bench/sql_count.py (its notes in ``folder``/sql)."""
    engine = make_engine(url)
    upgrade(engine)
    games = GameService(engine, mail_domain="example.test")
    raw = []
    for i in range(mails * rounds + paced):
        game_id = games.create_game("fifth-avenue", PLAYERS, seed=i)
        (_, commands), = games.legal(game_id)[1].items()
        raw.append(player_mail(PLAYERS[0][1], game_id, commands[0]))
    config = MailConfig(imap=ServerConfig(dovecot.host, dovecot.imap_port, "plain", "game", "secret"),
                        smtp=ServerConfig("127.0.0.1", smtp.port, "plain"), game_address=GAME)
    MailWorker(engine, config).run_once()  # the opening mails go out before the clock starts
    engine.dispose()
    watcher = make_engine(url)  # reads which server processes serve the worker (PostgreSQL)
    smtp.messages.clear()
    env = worker_env(url, folder, dovecot, smtp.port, GAME, 600)
    command = [sys.executable, "-m", "cProfile", "-o", profile, "-m", "pbem", "worker"] if profile else ["pbem", "worker"]
    if queries is not None:
        env["BENCH_SQL_NOTES"] = str(folder / "sql")
        command = [sys.executable, str(Path(__file__).with_name("sql_count.py")), "worker"]
    worker = subprocess.Popen(command, env=env, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True)
    try:
        with IMAPClient(dovecot.host, port=dovecot.imap_port, ssl=False) as client:
            client.login("game", "secret")
            time.sleep(3.0)  # the worker has started, connected and gone into IDLE
            rates, cpu, split, server = [], [], [], []
            for burst in range(rounds):
                smtp.messages.clear()
                before, server_before = cpu_split(worker.pid), server_cpu(watcher)
                started = time.monotonic()
                client.multiappend("INBOX", raw[burst * mails:(burst + 1) * mails])
                wait_for(smtp, 2 * mails, 120 + mails)  # a confirmation to Ann and a request to Bob per mail
                time.sleep(0.5)  # the worker files the last mails and goes back to IDLE
                after, server_after = cpu_split(worker.pid), server_cpu(watcher)
                if server_before is not None and server_after is not None:  # a connection opened meanwhile: all its CPU
                    server.append(sum(c - server_before.get(pid, 0.0) for pid, c in server_after.items()) / mails)
                if queries is not None:
                    queries.append((started, time.monotonic()))
                split.append(((after[0] - before[0]) / mails, (after[1] - before[1]) / mails))
                cpu.append(sum(split[-1]))
                rates.append(steady_rate(smtp, mails))
                time.sleep(0.5)
            latencies = []
            for message in raw[mails * rounds:]:
                time.sleep(0.25)
                before = len(smtp.messages)
                appended = time.monotonic()
                client.append("INBOX", message)
                wait_for(smtp, before + 2, 60)
                if queries is not None:
                    queries.append((appended, time.monotonic()))
                latencies.append(smtp.messages[before + 1].accepted_at - appended)
    finally:
        watcher.dispose()
        worker.send_signal(signal.SIGTERM)
        output, _ = worker.communicate(timeout=60)
    if worker.returncode != 0:
        raise SystemExit(f"the worker failed:\n{output}")
    return rates, latencies, cpu, split, server


def run_baseline(dovecot: Dovecot, smtp: SmtpToLmtp, mails: int, answers: list[bytes], folder: Path
                 ) -> tuple[float, float]:
    """The same N mails in the game's INBOX, then a client process that fetches them and sends 2N mails."""
    raw = [player_mail(PLAYERS[0][1], i, "A") for i in range(mails)]
    with IMAPClient(dovecot.host, port=dovecot.imap_port, ssl=False) as client:
        client.login("game", "secret")
        client.select_folder("INBOX")
        client.delete_messages(client.search(["ALL"]))
        client.expunge()
        client.multiappend("INBOX", raw)
    smtp.messages.clear()
    bodies = folder / "answers.json"
    bodies.write_text(json.dumps([a.decode("utf-8", "replace") for a in answers[: 2 * mails]]))
    client = subprocess.Popen([sys.executable, __file__, "--baseline-client", str(dovecot.imap_port), str(smtp.port),
                               str(mails), str(bodies)], stderr=subprocess.PIPE, text=True)
    _, status, usage = os.wait4(client.pid, 0)
    if os.waitstatus_to_exitcode(status) != 0:
        raise SystemExit(f"the baseline client failed:\n{client.stderr.read()}")
    client.stderr.close()
    wait_for(smtp, 2 * mails, 60)
    return steady_rate(smtp, mails), (usage.ru_utime + usage.ru_stime) / mails


def baseline_client(imap_port: int, smtp_port: int, mails: int, bodies: Path) -> None:
    """Fetch every mail of the INBOX one by one, and send two mails of the size pbem answers with for each."""
    import aiosmtplib

    answers = [BytesParser(policy=policy.default).parsebytes(text.encode()) for text in json.loads(bodies.read_text())]
    for answer, to in zip(answers, [PLAYERS[n % 2][1] for n in range(len(answers))]):
        del answer["To"]
        answer["To"] = to

    async def fetch_and_answer() -> None:
        async with aiosmtplib.SMTP(hostname="127.0.0.1", port=smtp_port) as smtp:
            with IMAPClient("127.0.0.1", port=imap_port, ssl=False) as imap:
                imap.login("game", "secret")
                imap.select_folder("INBOX")
                uids = imap.search(["ALL"])
                assert len(uids) == mails
                for n, uid in enumerate(uids):
                    imap.fetch([uid], ["BODY.PEEK[]"])
                    for k in (2 * n, 2 * n + 1):
                        await smtp.send_message(answers[k % len(answers)])

    asyncio.run(fetch_and_answer())


def print_queries(path: str, windows: list[tuple[float, float]], mails: int, paced: list[tuple[float, float]],
                  trace: bool) -> None:
    """The worker's statements (by their first words), transactions and round trips per mail, medians of the
    bursts, both of its processes together and each; with ``trace``, all the worker did for the last paced mail."""
    from sql_count import counts, trace as traced

    if trace and paced:
        for role in ("worker", "outbox"):
            print(f"the {role} process, the last paced mail, from its APPEND to its answers:")
            print("\n".join(traced(path, *paced[-1], role)))

    for role in ("*", "worker", "outbox"):
        bursts = [counts(path, start, end, role) for start, end in windows]
        kinds = sorted({kind for burst in bursts for kind in burst})

        def per_mail(kind: str, what: str | None = None) -> float:
            return statistics.median(sum(n for w, n in burst.get(kind, {}).items() if what is None or w == what)
                                     for burst in bursts) / mails

        print({"*": "per mail, both processes", "worker": "the worker's process", "outbox": "its outbox process"}[role]
              + " (medians of the bursts): " + ", ".join(f"{kind} {per_mail(kind):.1f}" for kind in kinds))
        for kind in ("sql", "roundtrip"):
            found = sorted({w for burst in bursts for w in burst.get(kind, {})}, key=lambda w: -per_mail(kind, w))
            print(f"  {kind}: " + ", ".join(f"{w} {per_mail(kind, w):.2f}" for w in found if per_mail(kind, w) >= 0.01))


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--mails", type=int, default=100)
    parser.add_argument("--paced", type=int, default=40, help="mails sent one at a time for the latency")
    parser.add_argument("--database", help="database URL (default: a new SQLite file)")
    parser.add_argument("--rounds", type=int, default=3, help="bursts of --mails for each side; medians are shown")
    parser.add_argument("--profile", metavar="FILE", help="run the worker under cProfile and write its profile here "
                        "(python -m pstats FILE); its figures are then slower than without")
    parser.add_argument("--queries", action="store_true", help="count the worker's statements, transactions and "
                        "(PostgreSQL) round trips per mail, by kind (bench/sql_count.py); its figures are then slower")
    parser.add_argument("--trace", action="store_true", help="with --queries, print what the worker did for the last "
                        "paced mail, statement by statement")
    parser.add_argument("--baseline-client", nargs=4, help=argparse.SUPPRESS)
    args = parser.parse_args()
    if args.baseline_client:
        imap_port, smtp_port, mails, bodies = args.baseline_client
        baseline_client(int(imap_port), int(smtp_port), int(mails), Path(bodies))
        return
    with tempfile.TemporaryDirectory() as name, Dovecot(domain="example.test") as dovecot:
        folder = Path(name)
        dovecot.start({"game": "secret", "ann": "secret", "bob": "secret"})
        smtp = SmtpToLmtp(dovecot.host, dovecot.lmtp_port)
        smtp.start()
        try:
            url = args.database or f"sqlite:///{folder / 'bench.sqlite3'}"
            windows: list[tuple[float, float]] | None = [] if args.queries else None
            rates, latencies, cpu, split, server = run_pbem(dovecot, smtp, args.mails, args.paced, url, folder,
                                                            args.rounds, args.profile, windows)
            if windows is not None:
                print_queries(str(folder / "sql"), windows[:args.rounds], args.mails, windows[args.rounds:],
                              args.trace)
            answers = [m.data for m in smtp.messages]
            baselines, baseline_cpu = zip(*[run_baseline(dovecot, smtp, args.mails, answers, folder)
                                            for _ in range(args.rounds)])
        finally:
            smtp.stop()
    size = statistics.mean(len(a) for a in answers)
    rate, baseline = statistics.median(rates), statistics.median(baselines)
    print(f"mails: {args.rounds} x {args.mails} at once (throughput), {args.paced} one at a time (latency); "
          f"database {url.split(':')[0]}; answers of {size / 1024:.1f} KiB on average")
    print(f"pbem:     {rate:7.1f} mails/s (rounds: {', '.join(f'{r:.1f}' for r in rates)})   "
          f"latency p50 {statistics.median(latencies) * 1000:.0f} ms, p95 {percentile(latencies, 0.95) * 1000:.0f} ms")
    print(f"baseline: {baseline:7.1f} mails/s (rounds: {', '.join(f'{r:.1f}' for r in baselines)})   "
          "fetch + as many answers of the same size, no game logic")
    print(f"ratio (baseline / pbem, medians): {baseline / rate:.2f}")
    worker_ms, client_ms = statistics.median(cpu) * 1000, statistics.median(baseline_cpu) * 1000
    print(f"CPU per mail: pbem worker {worker_ms:.1f} ms (rounds: {', '.join(f'{c * 1000:.1f}' for c in cpu)}), "
          f"baseline client {client_ms:.1f} ms (its start-up included); ratio {worker_ms / client_ms:.2f}")
    reading, sending = (statistics.median(part) * 1000 for part in zip(*split))
    print(f"  of the worker's: reading and applying (the worker's process) {reading:.1f} ms, building and sending "
          f"the answers (its outbox process) {sending:.1f} ms")
    if server:
        print(f"  and PostgreSQL's processes serving them: {statistics.median(server) * 1000:.1f} ms a mail (rounds: "
              f"{', '.join(f'{c * 1000:.1f}' for c in server)})")


if __name__ == "__main__":
    main()
