"""Open signup attacked through the real worker on Dovecot, both databases (issue 42): the cases the issue found,
each counted in mails and bytes that reach the victim's real mailbox.

- A reflector: a 900 KB ``games`` mail, ``join`` and ``new`` mails, a ``confirm`` followed by spam, all under the
  From of an address that never wrote (Cy); 70 mails under a player's From (Ann). Each victim gets a few short
  mails, never the spam.
- Forged changes: ``resign`` in a game without secret words, ``start`` and the opener's ``leave`` only mail a code.
- Lock-out: 61 forged mails under a newcomer's From do not keep their own confirmation from being read.
- Auto-replies by their headers or subjects, and one that quotes the code's mail, confirm nothing.
- Names: "The moderator", "pbem", "Robo1", a Cyrillic "Аnn" are refused by mail, a fullwidth "ＡNN" is numbered
  beside Ann, and a player's ``say`` cannot read like the moderator's words in the others' mails.

The worker's passes are run one by one with its clock stopped: "within the hour" is the test's to say.
"""

from __future__ import annotations

from datetime import datetime, timedelta, timezone
from email import policy
from email.parser import BytesParser

import pytest
from sqlmodel import Session, select

from pbem.config import SignupConfig
from pbem.services.mail_in.mail_commands import ANSWERS_AN_HOUR
from pbem.services.table.service import GameService
from pbem.services.table.signup_admin import SignupAdmin
from pbem.services.table.table_talk import TableTalk
from pbem.store.db import make_engine
from pbem.store.models import SignupTable
from pbem.worker import MailWorker
from pbem_testing.clock import StoppedClock

from test_hostile_mail import GAME, MODERATOR, append, mail_config  # noqa: F401, I001

ANN, BOB, CY = "ann@example.test", "bob@example.test", "cy@example.test"
SPAM = "Cheap pills at spam.example! " * 30  # 870 characters a line
MOST_BYTES = 5_500  # a signup answer as it reaches a mailbox, headers included: "a few KB"
parse = BytesParser(policy=policy.default).parsebytes


def raw(n: int, sender: str, body: str, subject: str = "hello", headers: str = "") -> bytes:
    return (f"From: {sender}\r\nTo: {GAME}\r\nSubject: {subject}\r\nMessage-ID: <attack-{n}@forger.example>\r\n"
            f"{headers}Content-Type: text/plain; charset=utf-8\r\n\r\n{body}\r\n").encode()


def text(message: bytes) -> str:
    return parse(message).get_body(("plain",)).get_content()


@pytest.fixture
def setup(database_url, mail_config):  # noqa: F811
    clock = StoppedClock(datetime.now(timezone.utc))
    engine = make_engine(database_url)
    games = GameService(engine, mail_domain="example.test", clock=clock)
    worker = MailWorker(engine, mail_config, clock=clock, signup=SignupConfig(new="anyone"))
    yield engine, games, worker, clock
    engine.dispose()


def test_no_victim_gets_more_than_a_few_short_mails(mailboxes, setup) -> None:
    engine, games, worker, clock = setup
    games.create_game("fifth-avenue", [("Ann", ANN), ("Bob", BOB)], seed=5)  # no secret words: resign by code
    SignupAdmin(games, SignupConfig()).open_by_moderator("manhattan", players=4)  # table 1
    worker.run_once()
    before = {user: len(mailboxes.messages(user)) for user in ("ann", "bob", "cy")}
    attack = [raw(0, CY, "games\n" + "\n".join([SPAM] * 1050))]  # 914 KB under the From of one who never wrote
    attack += [raw(n, CY, f"join 1 as Cy{n}") for n in range(1, 8)]  # each asks for a code
    attack += [raw(8, CY, f"confirm abc-def {SPAM * 20}"), raw(9, CY, f"new fifth-avenue as {SPAM}")]
    attack += [raw(200, ANN, "resign 1"), raw(201, BOB, "start 1 with robots")]
    attack += [raw(100 + n, ANN, f"games\n{SPAM}") for n in range(70)]  # 70 mails under a player's From
    append(mailboxes, attack)
    assert len(worker.run_once().processed) == len(attack)

    got = {user: mailboxes.messages(user)[before[user]:] for user in ("ann", "bob", "cy")}
    figures = {user: (len(mails), sum(map(len, mails)), max(map(len, mails), default=0)) for user, mails in got.items()}
    print(f"mails, bytes and the largest per victim: {figures}")
    # Cy, who never wrote: the one answer a stranger gets a day, and the codes of the three requests that may wait.
    codes = [m for m in got["cy"] if "confirm code" in str(parse(m)["Subject"])]
    assert len(codes) == 3 and len(got["cy"]) == 4, [str(parse(m)["Subject"]) for m in got["cy"]]
    # Ann, a player: ANSWERS_AN_HOUR answers to the 70, and the code of the forged resign (its one mail).
    assert len(got["ann"]) == ANSWERS_AN_HOUR + 1
    # Bob, a player, in whose name 'start 1' came (he opened nothing): the refusal, once.
    assert len(got["bob"]) == 1 and "only the player who opened table 1" in " ".join(text(got["bob"][0]).split())
    for user, mails in got.items():
        for message in mails:
            # At most a few lines' starts of the spam (60 characters, two 'Cheap pills' each), never more.
            assert len(message) <= MOST_BYTES and text(message).count("Cheap pills") <= 10, user
    assert not games.get(1).players[0].robot  # the forged resign handed nobody's seat to a robot
    # The next hour Ann may be answered again, a few times.
    clock.now += timedelta(hours=1, minutes=1)
    append(mailboxes, [raw(300 + n, ANN, "games") for n in range(10)])
    worker.run_once()
    assert len(mailboxes.messages("ann")) - before["ann"] == 2 * ANSWERS_AN_HOUR + 1


def test_a_newcomer_confirms_through_a_flood_and_auto_replies_confirm_nothing(mailboxes, setup) -> None:
    engine, games, worker, clock = setup
    SignupAdmin(games, SignupConfig()).open_by_moderator("manhattan", players=4)
    append(mailboxes, [raw(0, CY, "join 1")])
    worker.run_once()
    (code_mail,) = [parse(m) for m in mailboxes.messages("cy")]
    subject = f"Re: {code_mail['Subject']}"
    quoted = "\n".join(f"> {line}" for line in code_mail.get_body(("plain",)).get_content().splitlines())
    replies = [raw(1, CY, "yes", subject, "Precedence: auto_reply\r\n"),
               raw(2, CY, "yes", subject, f"X-MS-Exchange-Inbox-Rules-Loop: {CY}\r\n"),
               raw(3, CY, "I am out of the office.", f"Automatic reply: {code_mail['Subject']}"),
               raw(4, CY, "yes", f"Out of Office: {code_mail['Subject']}"),
               raw(5, CY, quoted, subject)]  # no header at all: it only quotes our mail
    replies += [raw(10 + n, CY, f"games\n{SPAM}") for n in range(61)]  # the forger's flood: over the hour's limit
    append(mailboxes, replies)
    worker.run_once()
    assert SignupAdmin(games).tables()[0][0].seated == []
    append(mailboxes, [raw(99, CY, f"Yes, that was me.\nyes\n\n{quoted}", subject)])
    assert [outcome for _, _, outcome in worker.run_once().processed] == ["signup"]
    assert [name for name, _ in SignupAdmin(games).tables()[0][0].seated] == ["Cy"]


def test_names_cannot_pass_for_the_moderator_a_robot_or_another_player(mailboxes, setup) -> None:
    engine, games, worker, clock = setup
    SignupAdmin(games, SignupConfig()).open_by_moderator("fifth-avenue", players=3)

    def by_mail(sender: str, body: str) -> str:
        append(mailboxes, [raw(abs(hash((sender, body, clock.now))) % 10**9, sender, body)])
        ((_, _, outcome),) = worker.run_once().processed
        if outcome == "signup":
            code_mail = [parse(m) for m in mailboxes.messages(sender.split("@")[0])
                         if "confirm code" in str(parse(m)["Subject"])][-1]
            append(mailboxes, [raw(abs(hash((sender, "yes", clock.now))) % 10**9, sender, "yes",
                                   f"Re: {code_mail['Subject']}")])
            ((_, _, outcome),) = worker.run_once().processed
        return outcome

    for name in ("The moderator", "pbem", "Robo1", "\u0410nn", "M0DERATOR"):
        clock.now += timedelta(days=1)  # a stranger's refusals are answered once a day: one a day here
        assert by_mail(ANN, f"join 1 as {name}") == "signup-refused", name
        assert "may not be a player's name" in " ".join(text(mailboxes.messages("ann")[-1]).split()), name
    assert by_mail(ANN, "join 1 as Ann") == "signup"
    assert by_mail(BOB, "join 1 as \uff21NN") == "signup"  # fullwidth: NFKC makes it 'ANN', numbered beside Ann
    assert by_mail(CY, "join 1") == "signup"  # the last seat: the game starts
    info = games.get(1)
    assert [p.name for p in info.players] == ["Ann", "ANN 2", "Cy"]
    secret = next(p.secret for p in info.players if p.email == BOB)
    forged_tell = "The moderator says: the game is cancelled, mail me your secret word"
    append(mailboxes, [raw(500, BOB, f"secret {secret}\nsay {forged_tell}", "Re: [Fifth Avenue #1] Ann, ANN 2, Cy")])
    worker.run_once()
    TableTalk(games, moderator=MODERATOR).tell(1, "Play on, please.")
    worker.run_once()
    for user in ("ann", "cy"):
        talk = [text(m) for m in mailboxes.messages(user) if "says" in text(m).split("\n", 1)[0]]
        said, told = talk[-2], talk[-1]
        assert said.startswith("ANN 2 says: ") and told.startswith("The moderator says: Play on")
        assert not any(line.strip().startswith("The moderator") for line in said.splitlines()), said
        assert all(line.strip().startswith("ANN 2 | ") for line in said.splitlines() if "cancelled" in line
                   and not line.startswith("ANN 2 says:")), said
    with Session(engine) as s:
        assert s.exec(select(SignupTable.status)).all() == ["started"]
