"""Issue 32, points 1, 3 and 4, on both databases: what one mail of talk may make pbem send, the budgets of talk
and settings, relayed words that cannot pass for pbem's, and the moderator's hourly budget of mails."""

from __future__ import annotations

import re
from datetime import datetime, timedelta, timezone
from email.message import EmailMessage
from email.utils import make_msgid

import pytest
from sqlmodel import Session, select

from pbem.adapters.outbox_sender import build_message
from pbem.config import MailConfig, ServerConfig
from pbem.render.text import SAID
from pbem.services.table.service import GameService
from pbem.services.mail_in.applying import SETTINGS_AN_HOUR
from pbem.services.mail_in.mail_commands import MailCommands
from pbem.services.mail_out import relay as relay_module
from pbem.services.mail_out.moderator_mail import MODERATOR_MAILS_AN_HOUR, release
from pbem.services.mail_out.relay import OutboxRelay
from pbem.services.table.table_talk import MAX_TALK, TALK_AN_HOUR
from pbem.store.models import Event, InboundMail, OutboxMail, OutboxStatus
from pbem.services.mail_out import notices
from pbem_testing.clock import StoppedClock

ANN, BOB, CY = "ann@example.org", "bob@example.org", "cy@example.org"
MODERATOR = "mod@example.org"
PLAYERS = [("Ann", ANN), ("Bob", BOB), ("Cy", CY)]
START = datetime(2026, 11, 27, 9, 0, tzinfo=timezone.utc)


@pytest.fixture
def clock() -> StoppedClock:
    return StoppedClock(START)


@pytest.fixture
def games(db_engine, clock) -> GameService:
    service = GameService(db_engine, clock=clock, mail_domain="example.org")
    service.create_game("fifth-avenue", PLAYERS, seed=41)
    return service


@pytest.fixture
def processor(games: GameService) -> MailCommands:
    return MailCommands(games, moderator=MODERATOR)


def mail(body: str, *, sender: str = ANN) -> bytes:
    msg = EmailMessage()
    msg["From"] = sender
    msg["To"] = "game@example.org"
    msg["Subject"] = "Re: [Fifth Avenue #1] Ann, Bob, Cy"
    msg["Message-ID"] = make_msgid(domain="client.example")
    msg.set_content(body)
    return bytes(msg)


def outbox(engine, after: int = 0) -> list[OutboxMail]:
    with Session(engine) as s:
        return list(s.exec(select(OutboxMail).where(OutboxMail.id > after).order_by(OutboxMail.id)).all())


def last_id(engine) -> int:
    return max((m.id for m in outbox(engine)), default=0)


def talk_events(engine) -> list[Event]:
    with Session(engine) as s:
        return list(s.exec(select(Event).where(Event.kind.in_(("say", "to_moderator", "tell")))
                           .order_by(Event.seq)).all())


def the_players_move(games: GameService) -> tuple[str, str]:
    (email, commands), = games.legal(1)[1].items()
    return email, commands[0]


def said(text: str) -> list[str]:
    return [line for line in text.splitlines() if SAID in line]


# --------------------------------------------------------------------------- one mail: one message a kind


def test_a_thousand_moderator_lines_make_one_mail_to_the_moderator(processor, games, db_engine) -> None:
    before = last_id(db_engine)
    report = processor.handle(mail("\n".join(f"moderator help me, line {n}" for n in range(1000))))
    assert report.outcome == "talk"
    mails = outbox(db_engine, before)
    to_moderator = [m for m in mails if m.recipient == MODERATOR]
    assert len(to_moderator) == 1 and to_moderator[0].status == OutboxStatus.HELD
    relayed = said(to_moderator[0].text_body)
    assert relayed[0] == f"Ann{SAID}help me, line 0"
    assert MAX_TALK - 100 < sum(len(line.removeprefix(f"Ann{SAID}")) for line in relayed) <= MAX_TALK
    assert [e.kind for e in talk_events(db_engine)] == ["to_moderator"]
    # Ann's one reply says what went and what did not, in a few lines however many she sent.
    (reply,) = [m for m in mails if m.recipient == ANN]
    text = " ".join(reply.text_body.split())
    assert "relayed to the moderator, mod@example.org" in text
    assert re.search(r"not relayed: one mail carries at most 4,000 characters of talk", text)
    assert re.search(r"\(\d+ more texts with it\)", text) and len(reply.text_body) < 4000


def test_two_hundred_say_texts_make_one_small_mail_to_each_reader(processor, games, db_engine) -> None:
    long = "These are long words, " * 180  # about 4,000 characters a text: 800 KB in all
    before = last_id(db_engine)
    report = processor.handle(mail("\n".join(f"say {n}: {long}" for n in range(200))))
    assert report.outcome == "talk"
    mails = outbox(db_engine, before)
    readers = [m for m in mails if m.recipient in (BOB, CY)]
    assert sorted(m.recipient for m in readers) == [BOB, CY]
    for relayed in readers:
        assert len(bytes(build_message(relayed, "game@example.org"))) <= 10_000  # as sent
        assert relayed.html_body is None and relayed.picture is None  # words, not the board
    assert len(talk_events(db_engine)) == 1


def test_several_texts_of_one_mail_are_one_message(processor, games, db_engine) -> None:
    before = last_id(db_engine)
    processor.handle(mail("say hello\nsay again\nmoderator one\nmoderator two"))
    mails = outbox(db_engine, before)
    assert sorted(m.recipient for m in mails if m.recipient != ANN) == [BOB, CY, MODERATOR]
    (to_bob,) = [m for m in mails if m.recipient == BOB]
    assert said(to_bob.text_body) == [f"  Ann{SAID}hello", f"  Ann{SAID}again"]
    assert [e.kind for e in talk_events(db_engine)] == ["say", "to_moderator"]


# --------------------------------------------------------------------------- the hour's budgets


def test_talk_past_the_hour_is_refused_and_the_move_still_applies(processor, games, db_engine, clock) -> None:
    for n in range(TALK_AN_HOUR):
        clock.now = START + timedelta(minutes=n)
        assert processor.handle(mail(f"say message {n}")).outcome == "talk"
    clock.now = START + timedelta(minutes=30)
    email, move = the_players_move(games)
    assert email == ANN
    before = last_id(db_engine)
    report = processor.handle(mail(f"{move}\nsay one too many"))
    assert report.outcome == "applied"
    assert games.history(1)[-1].text == move
    assert len(talk_events(db_engine)) == TALK_AN_HOUR
    (confirmation,) = [m for m in outbox(db_engine, before) if m.recipient == ANN and m.decision is None] or [
        m for m in outbox(db_engine, before) if m.recipient == ANN]
    text = " ".join(confirmation.text_body.split())
    # The first message of the hour grows an hour old at 10:00: from then, one more may go.
    assert ("not relayed: pbem relays at most 10 messages of talk an hour for one player, and you have had 10 in "
            "the last hour; you may write again from Friday 27 November 2026, 10:00 UTC.") in text
    assert not [m for m in outbox(db_engine, before) if m.recipient in (BOB, CY) and "one too many" in m.text_body]
    clock.now = START + timedelta(hours=1, seconds=1)
    assert processor.handle(mail("say back again")).outcome == "talk"


def test_talk_alone_over_the_hour_is_refused(processor, games, db_engine, clock) -> None:
    for n in range(TALK_AN_HOUR):
        processor.handle(mail(f"say message {n}"))
    report = processor.handle(mail("say and more"))
    assert report.outcome == "rejected"
    assert "say and more not relayed: pbem relays at most 10 messages" in " ".join(report.reply_body.split())


def recorded(processor: MailCommands, raw: bytes):
    """The mail handled as the worker does, its record kept in the ledger (what the budgets count)."""
    return processor.handle(raw, inbound=InboundMail(message_id=make_msgid(domain="x.example"), mailbox="INBOX",
                                                     received_at=processor.games.clock()))


def test_settings_have_a_budget_of_their_own(processor, games, db_engine) -> None:
    assert recorded(processor, mail("\n".join(["mail digest", "mail all"] * 500))).outcome == "settings"
    assert games.get(1).players[0].delivery == "all"  # the mail's last line for it: one change, not a thousand
    for n in range(SETTINGS_AN_HOUR - 1):
        assert recorded(processor, mail(f"pictures {'off' if n % 2 else 'on'}")).outcome == "settings"
    refused = recorded(processor, mail("mail turns"))
    assert refused.outcome == "rejected" and games.get(1).players[0].delivery == "all"
    assert f"at most {SETTINGS_AN_HOUR} mails an hour that change only settings" in " ".join(refused.reply_body.split())
    # With a move, a setting is never refused.
    email, move = the_players_move(games)
    assert recorded(processor, mail(f"{move}\nmail turns")).outcome == "applied"
    assert games.get(1).players[0].delivery == "turns"


# --------------------------------------------------------------------------- relayed words are marked


FORGED = "The moderator says: the game is cancelled, send your secret word to me"
FORGED_TOO = "* Bob resigned, and the game is over"


def test_no_relayed_line_can_pass_for_pbems(processor, games, db_engine) -> None:
    email, move = the_players_move(games)
    games.submit(1, email, move)  # Ann's move: Bob, not asked, has not been mailed of it
    before = last_id(db_engine)
    processor.handle(mail(f"say Hello,\n{FORGED}\n{FORGED_TOO}\nend"))
    (to_bob,) = [m for m in outbox(db_engine, before) if m.recipient == BOB]
    assert marked_only(to_bob.text_body, "  Ann")
    # Bob's next game mail tells the talk again with Ann's move, in the text and in the HTML part.
    while True:
        email, move = the_players_move(games)
        before = last_id(db_engine)
        games.submit(1, email, move)
        boards = [m for m in outbox(db_engine, before) if m.recipient == BOB]
        if boards:
            break
    (board,) = boards
    assert marked_only(board.text_body, "  Ann")
    html_lines = re.findall(r"<p[^>]*>(.*?)</p>", board.html_body, re.S)
    forged = [line for line in html_lines if "cancelled" in line or "resigned" in line]
    assert len(forged) == 2 and all(re.match(r"<span[^>]*>Ann \|</span> ", line) for line in forged)


def marked_only(text: str, speaker: str) -> bool:
    """Whether every line of ``text`` that holds the forged words is marked as ``speaker``'s (and there are some)."""
    lines = [line for line in text.splitlines() if any(word in line for word in ("cancelled", "resigned", "to me"))]
    return bool(lines) and all(line.startswith(f"{speaker}{SAID}") for line in lines)


def test_the_moderator_reads_a_players_words_marked_as_theirs(processor, games, db_engine) -> None:
    before = last_id(db_engine)
    processor.handle(mail(f"moderator Hi,\n{FORGED}\nend"))
    (to_moderator,) = [m for m in outbox(db_engine, before) if m.recipient == MODERATOR]
    assert marked_only(to_moderator.text_body, "Ann")


def test_talk_kept_before_the_budgets_is_still_marked_line_by_line(games, db_engine) -> None:
    """Events stored by earlier versions put the first line into the headline ('Ann says: Hello')."""
    with games.changing(1) as (uow, game, info):
        info.last_seq += 1
        uow.session.add(Event(game_id=1, seq=info.last_seq, actor=ANN, seat=0, kind="say", text=f"Hello\n{FORGED}",
                              data={"words": "Ann says: Hello", "lines": [FORGED]}, created_at=games.clock()))
        uow.commit()
    before = last_id(db_engine)
    email, move = the_players_move(games)
    games.submit(1, email, move)
    (board,) = [m for m in outbox(db_engine, before) if m.recipient == CY]  # Cy is to move
    lines = board.text_body.splitlines()
    assert "* Ann says:" in lines and f"  Ann{SAID}Hello" in lines and marked_only(board.text_body, "  Ann")


# --------------------------------------------------------------------------- the moderator's budget


def moderator_notice(n: int, clock: StoppedClock) -> OutboxMail:
    return notices.to_moderator(MODERATOR, f"notice {n}", [f"Something happened: {n}."],
                                lambda: make_msgid(domain="example.org"), clock())


def mark_sent(engine, when: datetime) -> None:
    with Session(engine) as s:
        for row in s.exec(select(OutboxMail).where(OutboxMail.status == OutboxStatus.QUEUED)).all():
            row.status, row.sent_at = OutboxStatus.SENT, when
            s.add(row)
        s.commit()


def test_the_moderator_gets_at_most_so_many_mails_an_hour_and_one_digest(db_engine, clock) -> None:
    with Session(db_engine) as s:
        s.add_all(moderator_notice(n, clock) for n in range(50))
        s.commit()
    assert release(db_engine, clock(), "example.org") == MODERATOR_MAILS_AN_HOUR
    queued = [m for m in outbox(db_engine) if m.status == OutboxStatus.QUEUED]
    assert len(queued) == MODERATOR_MAILS_AN_HOUR
    digest = queued[-1]
    told = re.findall(r"^#\d+ \[pbem\] moderator: notice (\d+)", digest.text_body, re.M)
    assert told == [str(n) for n in range(MODERATOR_MAILS_AN_HOUR - 1, 50)]  # every one not sent alone
    assert "Something happened: 48." in digest.text_body and "Something happened: 49." not in digest.text_body
    assert not [m for m in outbox(db_engine) if m.status == OutboxStatus.HELD]
    mark_sent(db_engine, clock())

    # The hour is full: what comes now waits, then goes as one digest when the hour has room again.
    with Session(db_engine) as s:
        s.add_all(moderator_notice(100 + n, clock) for n in range(5))
        s.commit()
    clock.now = START + timedelta(minutes=59)
    assert release(db_engine, clock(), "example.org") == 0
    clock.now = START + timedelta(hours=1, seconds=1)
    assert release(db_engine, clock(), "example.org") == 1  # what waited for the hour: one digest
    mails = outbox(db_engine)
    (digest,) = [m for m in mails if m.status == OutboxStatus.QUEUED]
    assert "5 notices in one mail" in digest.subject
    assert sum(m.status == OutboxStatus.FOLDED for m in mails) == 50 - MODERATOR_MAILS_AN_HOUR + 1 + 5
    mark_sent(db_engine, clock())
    # Then the hour has room again: a notice goes as it is.
    with Session(db_engine) as s:
        s.add(moderator_notice(200, clock))
        s.commit()
    assert release(db_engine, clock(), "example.org") == 1
    assert [m.subject for m in outbox(db_engine) if m.status == OutboxStatus.QUEUED] == [
        "[pbem] moderator: notice 200"]


def test_what_the_moderator_gets_does_not_depend_on_the_machines_speed(db_engine, clock, smtp_server, mailboxes,
                                                                      monkeypatch) -> None:
    """Issue 40: the relay looked at the moderator's held mails every 5 s of the machine's own clock, so a pass
    that a busy machine made slow let them go in more, smaller rounds: the hour filled with mails sent alone and
    the rest waited an hour for their digest, where a quick machine sent one digest at once. It looks by the
    service's clock now: a pass whose clock stands still sends the same mails, however long it takes."""

    class SlowMachine:  # each look at the machine's clock finds a minute gone
        seconds = 0.0

        @classmethod
        def monotonic(cls) -> float:
            cls.seconds += 60.0
            return cls.seconds

    monkeypatch.setattr(relay_module, "time", SlowMachine)
    smtp = ServerConfig("127.0.0.1", smtp_server.port, "plain")
    moderator = mailboxes.address("dee")
    relay = OutboxRelay(db_engine, MailConfig(imap=smtp, smtp=smtp, game_address=mailboxes.address("game"),
                                              moderator=moderator), clock=clock)
    try:
        for burst in range(5):  # a pass of five mails, each making five notices, each mail answered before the next
            with Session(db_engine) as s:
                s.add_all(notices.to_moderator(moderator, f"notice {burst}.{n}", ["Something happened."],
                                               lambda: make_msgid(domain="example.org"), clock()) for n in range(5))
                s.commit()
            relay.send_now()
        relay.send_now(moderator=True)  # the end of the pass
    finally:
        relay.close()
    mails = outbox(db_engine)
    assert not [m for m in mails if m.status == OutboxStatus.HELD]  # nothing left for the next hour
    sent = [m for m in mails if m.status == OutboxStatus.SENT]
    # The first five went at the pass's first round; of the twenty after it, 14 alone and 6 in one digest.
    assert len(sent) == MODERATOR_MAILS_AN_HOUR and sent[-1].subject.endswith("6 notices in one mail")
    assert len(mailboxes.wait_for("dee", MODERATOR_MAILS_AN_HOUR)) == MODERATOR_MAILS_AN_HOUR
