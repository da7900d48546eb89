"""The storm, longer than the test's: moves by mail while two workers share one mailbox and are killed.

Run: python bench/storm.py [--moves 150] [--kill-chance 0.2] [--cut-chance 0.15] [--database URL]
(needs dovecot: bash tests/install-servers.sh; PostgreSQL runs are skipped when --postgres is not given)

One line per database (a SQLite file; PostgreSQL at --postgres, where every database connection of the
workers is also terminated at random moments): moves sent and applied, moves lost and applied twice, kills,
connection cuts, workers that died unbidden, mails set aside, mails sent and delivered, mails delivered
twice (at most one per kill may be), and the wall time. See pbem_testing.storm.
"""

from __future__ import annotations

import argparse
import sys
import tempfile
from pathlib import Path

import sqlalchemy as sa

from pbem.store.db import make_engine, upgrade
import checkout  # noqa: F401 - pbem_testing/ in reach (bench/checkout.py)
from pbem_testing.mailservers import Dovecot, SmtpToLmtp
from pbem_testing.storm import Storm


def fresh_postgres(admin_url: str, name: str) -> str:
    admin = sa.create_engine(admin_url, isolation_level="AUTOCOMMIT")
    with admin.connect() as connection:
        connection.exec_driver_sql(f'DROP DATABASE IF EXISTS "{name}" WITH (FORCE)')
        connection.exec_driver_sql(f'CREATE DATABASE "{name}"')
    admin.dispose()
    return admin_url.rsplit("/", 1)[0] + "/" + name


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--moves", type=int, default=150)
    parser.add_argument("--kill-chance", type=float, default=0.2, help="chance of a SIGKILL after each move")
    parser.add_argument("--cut-chance", type=float, default=0.15, help="PostgreSQL: chance of cutting connections")
    parser.add_argument("--postgres", default="", help="admin URL, e.g. postgresql+psycopg://postgres@127.0.0.1/test")
    parser.add_argument("--seed", type=int, default=11)
    args = parser.parse_args()
    ok = True
    with tempfile.TemporaryDirectory(prefix="pbem-storm-") as tmp, Dovecot(domain="example.test") as dovecot:
        dovecot.start({user: "secret" for user in ("game", "ann", "bob", "cy")})
        with SmtpToLmtp(dovecot.host, dovecot.lmtp_port) as smtp:
            urls = [("sqlite", f"sqlite:///{tmp}/storm.sqlite3")]
            if args.postgres:
                urls.append(("postgresql", fresh_postgres(args.postgres, "pbem_storm")))
            for name, url in urls:
                engine = make_engine(url)
                upgrade(engine)
                engine.dispose()
                dovecot.empty_mailboxes()
                smtp.reset()
                folder = Path(tmp) / name
                folder.mkdir()
                report = Storm(url, dovecot, smtp, folder, seed=args.seed).play(
                    args.moves, kill_chance=args.kill_chance, cut_chance=args.cut_chance if name != "sqlite" else 0)
                print(f"{name:>10}: {report.line()}" + (f" NOTES: {report.notes}" if report.notes else ""))
                ok &= report.ok and not report.notes
    return 0 if ok else 1


if __name__ == "__main__":
    sys.exit(main())
