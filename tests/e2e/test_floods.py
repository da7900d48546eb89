"""Issue 32 through the real worker (Dovecot in, an SMTP server out), on both databases: floods that go through
the legitimate paths (talk, words to the moderator, settings toggles, forged From) never lock a player out of a
move, never flood the moderator, and never keep an ordinary mail from its one answer."""

from __future__ import annotations

from collections import Counter
from datetime import datetime, timedelta, timezone
from email import policy
from email.parser import BytesParser

import pytest
from sqlmodel import Session, select

from pbem.adapters.outbox_sender import build_message
from pbem.config import MailConfig, ServerConfig
from pbem.services.mail_out import notices
from pbem.services.table.service import GameService
from pbem.services.mail_out.moderator_mail import MODERATOR_MAILS_AN_HOUR
from pbem.services.mail_in.screening import RATE_LIMIT
from pbem.services.table.table_talk import TALK_AN_HOUR
from pbem.worker import MailWorker
from pbem.store.db import make_engine
from pbem.store.models import InboundMail, OutboxMail, OutboxStatus
from pbem_testing.clock import StoppedClock

from test_hostile_mail import append, ordinary

GAME = "game@example.test"
MODERATOR = "dee@example.test"
PLAYERS = [("Ann", "ann@example.test"), ("Bob", "bob@example.test"), ("Cy", "cy@example.test")]
SUBJECT = "Re: [Fifth Avenue #1] Ann, Bob, Cy"


@pytest.fixture
def mail_config(dovecot, smtp_server, mailboxes) -> MailConfig:
    return MailConfig(imap=ServerConfig(dovecot.host, dovecot.imap_port, "plain", "game", "secret"),
                      smtp=ServerConfig("127.0.0.1", smtp_server.port, "plain"), game_address=GAME,
                      moderator=MODERATOR, poll_interval=1)


def start(database_url: str, mail_config: MailConfig, clock: StoppedClock, *, secret_words: bool,
          **options: int) -> MailWorker:
    clock.now = datetime.now(timezone.utc)  # the mail's own clock: what the mailbox and the relay see
    engine = make_engine(database_url)
    GameService(engine, mail_domain="example.test", clock=clock).create_game(
        "fifth-avenue", PLAYERS, seed=5, secret_words=secret_words)
    worker = MailWorker(engine, mail_config, clock=clock, **options)
    worker.run_once()  # the opening mails go out
    return worker


def parsed(mailboxes, user: str) -> list:
    parse = BytesParser(policy=policy.default).parsebytes
    return [parse(raw) for raw in mailboxes.messages(user)]


@pytest.mark.parametrize("secret_words", [True, False], ids=["secret-words", "no-secret-words"])
def test_no_flood_locks_a_player_out_of_their_move(mailboxes, mail_config, database_url, secret_words) -> None:
    """60 junk mails, 30 settings toggles and 20 talk mails from the player to move, then the move: applied. In a
    game without secret words the junk is forged under the player's From (a stranger cannot prove less)."""
    clock = StoppedClock(datetime(2026, 11, 23, 9, 0, tzinfo=timezone.utc))
    worker = start(database_url, mail_config, clock, secret_words=secret_words)
    info = worker.games.get(1)
    seat = info.state.current_player()
    player = info.player(seat)
    secret = f"\nsecret {player.secret}" if secret_words else ""
    forger = player.email  # the From of the junk: a forger's in a game without secret words, the player's own in one
    n = iter(range(1000))
    flood = [ordinary(next(n), forger, f"board\nWhat is going on?{secret}")[1] for _ in range(60)]
    flood += [ordinary(next(n), player.email, f"mail {'all' if k % 2 else 'turns'}{secret}")[1] for k in range(30)]
    flood += [ordinary(next(n), player.email, f"say Hello again, number {k}{secret}")[1] for k in range(20)]
    move = info.state.legal_commands()[0]
    move_id, move_raw = ordinary(next(n), player.email, f"{move}{secret}")
    append(mailboxes, flood + [move_raw])

    report = worker.run_once()

    outcomes = Counter(outcome.split(" (")[0] for _, _, outcome in report.processed)
    assert len(report.processed) == 111 and outcomes["applied"] == 1, outcomes
    assert worker.games.history(1)[-1].text == move
    assert worker.games.history(1)[-1].source == f"mail:{move_id}"
    # The limit did its work on the rest: most of the flood was read for a move only, and not answered.
    assert outcomes["ignored"] >= 110 - RATE_LIMIT - TALK_AN_HOUR - 10, outcomes
    assert mailboxes.messages("game") == []


FLOOD_SENDERS = ("ann", "bob", "cy")


def test_talk_floods_among_ordinary_mails(mailboxes, mail_config, database_url, capsys) -> None:
    """Talk floods (1,000 and 35,000 'moderator' lines, 200 'say' texts, words to the moderator from everyone,
    settings toggles, forged From) mixed with ordinary mails: every ordinary mail is answered once, the
    moderator gets at most the hour's budget (and the rest in one digest an hour later), no talk mail is
    heavier than 10 KB."""
    clock = StoppedClock(datetime(2026, 11, 23, 9, 0, tzinfo=timezone.utc))
    # 15 questions a player in one hour: more than the 5 answers an hour of issue 42 (test_hostile_signup has
    # those), lifted here, where the talk budgets are what is measured.
    worker = start(database_url, mail_config, clock, secret_words=False, answers_an_hour=10**6)
    email = {user: f"{user}@example.test" for user in FLOOD_SENDERS}
    n = iter(range(100_000))
    long_words = "These are long words, " * 180
    floods = [
        ordinary(next(n), email["ann"], "\n".join(f"moderator help me, line {k}" for k in range(1000)))[1],
        ordinary(next(n), email["bob"], "\n".join(f"moderator help {k}" for k in range(35_000)))[1],
        ordinary(next(n), email["cy"], "\n".join(f"say {k}: {long_words}" for k in range(200)))[1],
    ]
    for user in FLOOD_SENDERS:  # words to the moderator from everyone, some forged: 36 messages, budget 20
        floods += [ordinary(next(n), email[user], f"moderator Please look at game 1, note {k}")[1] for k in range(12)]
    floods += [ordinary(next(n), email["ann"], f"pictures {'off' if k % 2 else 'on'}")[1] for k in range(30)]
    floods += [ordinary(next(n), email["bob"], f"say Chatter {k}")[1] for k in range(20)]
    expected = {}
    batch = list(floods)
    for k in range(45):
        user = FLOOD_SENDERS[k % 3]
        mid, raw = ordinary(next(n), email[user], ["board", "hand", "legal", "help", "history"][k % 5])
        expected[mid] = user
        batch.insert((k * 7919) % (len(batch) + 1), raw)
    moderator_before = len(mailboxes.messages("dee"))
    append(mailboxes, batch)

    report = worker.run_once()

    assert len(report.processed) == len(batch) and mailboxes.messages("game") == []
    for user in FLOOD_SENDERS:
        answers = Counter(m["In-Reply-To"] for m in parsed(mailboxes, user))
        assert {mid: answers[mid] for mid, who in expected.items() if who == user} == {
            mid: 1 for mid, who in expected.items() if who == user}, user
    to_moderator = len(mailboxes.messages("dee")) - moderator_before
    assert to_moderator == MODERATOR_MAILS_AN_HOUR  # 36 messages to the moderator, the last of the 20 a digest
    with Session(worker.engine) as s:
        words = s.exec(select(OutboxMail).where(OutboxMail.recipient == MODERATOR,
                                                OutboxMail.subject.like("%writes"))).all()
        talk_mails = [m for m in s.exec(select(OutboxMail).where(OutboxMail.status == OutboxStatus.SENT)).all()
                      if " says: " in m.text_body.splitlines()[0] and m.html_body is None]
        outcomes = Counter(s.exec(select(InboundMail.outcome)).all())
    digested = [m for m in words if m.status == OutboxStatus.FOLDED]
    # Each player's hour of talk (Cy's 200 'say' texts took one of hers; Bob's 35,000 lines were too long to read)
    assert len(words) == 3 * TALK_AN_HOUR - 1
    assert {m.status for m in words} == {OutboxStatus.SENT, OutboxStatus.FOLDED}
    (digest,) = [m for m in parsed(mailboxes, "dee") if "notices in one mail" in m["Subject"]]
    assert all(f"#{m.id} " in digest.get_content() for m in digested)
    sizes = [len(bytes(build_message(m, GAME))) for m in talk_mails]  # as sent
    assert len(talk_mails) >= 2 and max(sizes) <= 10_000  # Cy's 200 texts, to Ann and Bob at least

    # The hour is full: what comes now waits, and comes in one digest when the hour has room again.
    with Session(worker.engine) as s:
        s.add_all(notices.to_moderator(MODERATOR, f"notice {k}", ["Something happened."], worker.ledger.new_message_id,
                                       clock()) for k in range(5))
        s.commit()
    worker.run_once()
    assert len(mailboxes.messages("dee")) == moderator_before + to_moderator
    clock.now += timedelta(hours=1, minutes=1)
    worker.run_once()
    later = parsed(mailboxes, "dee")[moderator_before + to_moderator:]
    # (with what the hour's pass added: the worker, an hour away from the deadlines, says so)
    assert len(later) == 1 and int(later[0]["Subject"].split()[2]) >= 5, later[0]["Subject"]
    with capsys.disabled():
        print(f"\n{len(batch)} mails, {len(expected)} ordinary: outcomes {dict(outcomes)}; to the moderator "
              f"{to_moderator} in the pass (the last a digest of {len(digested)}); talk mails "
              f"{len(sizes)}, the largest {max(sizes):,} bytes")
