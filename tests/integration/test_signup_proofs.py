"""Open signup without a spam reflector or an impersonator (issue 42), on both databases: every change proven by a
code mailed to the address (or the seat's secret word), names that cannot pass for somebody else's, players told
of watchers once a day, tables that wait for nobody close, and answers that carry nothing of a stranger's text
and come a few times an hour at most, to anybody."""

from __future__ import annotations

from datetime import timedelta
from email.message import EmailMessage
from email.utils import make_msgid

import pytest
from sqlalchemy import update
from sqlmodel import Session, select

from pbem.config import SignupConfig
from pbem.services.clock.timekeeper import Timekeeper
from pbem.services.mail_in.mail_commands import ANSWERS_AN_HOUR, MailCommands
from pbem.services.mail_in.signup_mail import MAX_ANSWER
from pbem.services.table import signup as signup_module
from pbem.services.table.service import GameService
from pbem.services.table.signup import SignupRefused
from pbem.store.models import InboundMail, OutboxMail, SignupRequest, SignupTable, Watcher
from pbem.store.statuses import OutboxStatus

from test_signup import ANN, BOB, CY, DEE, OPEN, clock, confirmed, games, last_code, run, signup  # noqa: F401, I001
from test_signup import outbox as every_mail


def outbox(games: GameService, to: str | None = None) -> list[OutboxMail]:
    return [m for m in every_mail(games) if to is None or m.recipient == to]


def mail(body: str, *, sender: str, subject: str = "hello", headers: dict[str, str] | None = None) -> bytes:
    msg = EmailMessage()
    msg["From"], msg["To"], msg["Subject"] = sender, "game@pbem.example", subject
    msg["Message-ID"] = make_msgid(domain="client.example")
    for name, value in (headers or {}).items():
        msg[name] = value
    msg.set_content(body)
    return bytes(msg)


def handle(commands: MailCommands, raw: bytes, over_limit: str = ""):
    inbound = InboundMail(message_id=make_msgid(domain="x.example"), received_at=commands.games.clock())
    return commands.handle(raw, inbound=inbound, over_limit=over_limit)


# --------------------------------------------------------------------------- point 3: every change proven


def signup_rows(games: GameService, model):
    with Session(games.engine) as s:
        return list(s.exec(select(model)).all())


def test_start_and_the_openers_leave_wait_for_the_code(games) -> None:
    service = signup(games)
    confirmed(service, games, ANN, "new manhattan players 3")
    confirmed(service, games, BOB, "join 1")
    # Forged in Ann's name, 'start 1 with robots' and 'leave 1' only mail Ann a code each: the table stays open.
    assert "a code was mailed to ann@example.org" in run(service, ANN, "start 1 with robots").done[0][1]
    start_code = last_code(games, ANN)
    run(service, ANN, "leave 1")
    leave_code = last_code(games, ANN)
    assert [t.status for t in signup_rows(games, SignupTable)] == ["open"]
    # Bob's own leave needs none: forged, it costs Bob a seat he may take again.
    assert run(service, BOB, "leave 1").done[0][1] == "you left table 1"
    with pytest.raises(SignupRefused, match="you do not sit at table 1"):
        run(service, BOB, "leave 1")
    confirmed(service, games, BOB, "join 1")
    (game_id,) = run(service, ANN, f"confirm {start_code}").games
    names = [p.name for p in games.get(game_id).players]
    assert names[:2] == ["Ann", "Bob"] and names[2].endswith("(robot)")
    with pytest.raises(SignupRefused, match="you do not sit at table 1"):  # started: nothing left to leave
        run(service, ANN, f"confirm {leave_code}")


def test_the_openers_leave_closes_the_table_once_confirmed(games) -> None:
    service = signup(games)
    confirmed(service, games, ANN, "new fifth-avenue players 3")
    confirmed(service, games, BOB, "join 1")
    assert "you had opened it, so it is closed" in confirmed(service, games, ANN, "leave 1").done[0][1]
    assert [m for m in outbox(games, BOB) if "table 1 is closed" in m.subject]


def test_unwatch_and_resign_without_secret_words_wait_for_the_code(games) -> None:
    service = signup(games)
    game_id = games.create_game("fifth-avenue", [("Ann", ANN), ("Bob", BOB), ("Cy", CY)])  # no secret words
    confirmed(service, games, DEE, f"watch {game_id}")
    run(service, DEE, f"unwatch {game_id}")
    assert [w.email for w in signup_rows(games, Watcher)] == [DEE]  # a forged unwatch changes nothing
    confirmed(service, games, DEE, f"unwatch {game_id}")
    assert signup_rows(games, Watcher) == []
    run(service, BOB, f"resign {game_id}")
    assert not games.get(game_id).players[1].robot  # a forged resign hands nobody's seat to a robot
    assert "a robot plays your seat" in run(service, BOB, f"confirm {last_code(games, BOB)}").done[0][1]
    assert games.get(game_id).players[1].robot


def test_one_code_a_mail(games) -> None:
    service = signup(games)
    confirmed(service, games, ANN, "new fifth-avenue")
    with pytest.raises(SignupRefused, match="one mail asks for one code") as refused:
        run(service, BOB, "join 1", "new manhattan")
    assert refused.value.line == "new manhattan" and outbox(games, BOB) == []  # nothing of the mail: no code either


def test_a_code_that_clashes_is_drawn_again(games, monkeypatch) -> None:
    words = iter(["apple-pear", "apple-pear", "plum-fig"])
    monkeypatch.setattr(signup_module, "new_secret_word", lambda: next(words))
    service = signup(games)
    run(service, ANN, "new fifth-avenue")
    run(service, BOB, "new manhattan")  # drew ann's code first: drawn again, not set aside
    assert (last_code(games, ANN), last_code(games, BOB)) == ("apple-pear", "plum-fig")


def test_players_hear_of_watchers_in_their_next_game_mail_by_the_name_they_chose(games, clock) -> None:
    """The loop of the issue: watch, unwatch, watch again, by an address that has its codes, mailed every player
    once per mail. Issue 47: no mail of its own at all; the players read of a watcher in their next game mail,
    by the name the watcher chose ('watch N as NAME'), once a game for an address; the watchers do not."""
    service = signup(games)
    game_id = games.create_game("fifth-avenue", [("Ann", ANN), ("Bob", BOB)], secret_words=True)

    def told(to: str) -> list[OutboxMail]:
        return [m for m in outbox(games, to) if "now watches" in m.text_body]

    answer = run(service, DEE, f"watch {game_id} as Dee Lights")
    assert "the players hear that Dee Lights watches" in " ".join(outbox(games, DEE)[-1].text_body.split()), answer
    run(service, DEE, f"confirm {last_code(games, DEE)}")
    for _ in range(5):
        confirmed(service, games, DEE, f"unwatch {game_id}")
        confirmed(service, games, DEE, f"watch {game_id} as Dee Lights")
    confirmed(service, games, "eve@example.org", f"watch {game_id}")
    assert told(ANN) == [] and told(BOB) == []  # no mail of its own
    # Ann's move brings her a receipt (it asks nothing more of her: issue 47, point 2) and Bob a game mail; play
    # on until Ann's next game mail too, each move's mails sent before the next as the worker sends them (an
    # unsent mail would fold into its reader's next one).
    for _ in range(20):
        if told(ANN) and told(BOB):
            break
        info = games.get(game_id)
        games.submit(game_id, info.email_of(info.state.current_player()), info.state.legal_commands()[0])
        with games.engine.begin() as connection:
            connection.execute(update(OutboxMail).where(OutboxMail.status == OutboxStatus.QUEUED)
                               .values(status=OutboxStatus.SENT))
    for player in (ANN, BOB):
        said = " ".join(" ".join(m.text_body.split()) for m in told(player))
        assert said.count("Dee Lights now watches the game") == 1, said
        assert said.count("A watcher now watches the game") == 1 and "dee@" not in said and "eve@" not in said
    clock.now += timedelta(days=1, minutes=1)
    Timekeeper(games).check()  # the watchers' daily mails tell the game, not who watches it
    assert not any("now watches" in m.text_body for m in outbox(games, DEE) + outbox(games, "eve@example.org"))


# --------------------------------------------------------------------------- point 2: names


@pytest.mark.parametrize("name", ["The moderator", "pbem", "Robo1", "Robot Fan", "M0derator", "Robo",
                                  "\u0410nn", "\u0391nn"])
def test_names_that_pass_for_somebody_else_are_refused(games, name: str) -> None:
    with pytest.raises(Exception) as refused:
        run(signup(games), ANN, f"new fifth-avenue as {name}")
    assert "may not be a player's name" in str(refused.value.why), refused.value.why


def test_names_clash_on_their_skeleton(games) -> None:
    service = signup(games)
    confirmed(service, games, "moderator@example.org", "new fifth-avenue players 4")  # not seated as 'Moderator'
    confirmed(service, games, ANN, "join 1")
    confirmed(service, games, BOB, "join 1 as \uff21nn")  # fullwidth: kept as NFKC makes it, and numbered
    confirmed(service, games, CY, "join 1 as ANN")
    names = [p.name for p in games.get(1).players]
    assert names == ["Player", "Ann", "Ann 2", "ANN 3"]


# --------------------------------------------------------------------------- point 4: tables that wait close


def test_a_table_nobody_new_joins_closes_and_its_players_are_told(games, clock) -> None:
    service = signup(games)
    confirmed(service, games, ANN, "new fifth-avenue players 3")
    clock.now += timedelta(days=5)
    confirmed(service, games, BOB, "join 1")  # a new player: the table waits 7 days from now
    keeper = Timekeeper(games, signup=SignupConfig(idle_days=7))
    clock.now += timedelta(days=6)
    assert keeper.check().closed_tables == []
    clock.now += timedelta(days=1, minutes=1)
    assert keeper.check().closed_tables == [1]
    assert [t.status for t in signup_rows(games, SignupTable)] == ["closed"]
    for email in (ANN, BOB):
        assert [m for m in outbox(games, email) if "nobody new joined it for 7 days" in " ".join(m.text_body.split())]
    assert keeper.check().closed_tables == []
    with pytest.raises(SignupRefused, match="table 1 is closed"):
        run(service, CY, "join 1")


def test_games_lists_the_fullest_and_newest_first(games) -> None:
    service = signup(games, SignupConfig(new="anyone", new_per_day_all=1000, open_per_address=100, new_per_day=100))
    for n in range(12):
        service.open_by_moderator("manhattan")
    confirmed(service, games, ANN, "join 3")
    answer = " ".join(run(service, DEE, "games").answers)
    order = [int(word) for word in __import__("re").findall(r"table (\d+):", answer)]
    assert order == [3, 12, 11, 10, 9, 8, 7, 6, 5, 4] and "... and 2 more tables, emptier or older" in answer


# --------------------------------------------------------------------------- points 1 and 3: by mail


@pytest.fixture
def commands(games: GameService) -> MailCommands:
    return MailCommands(games, moderator="mod@example.org", signup=OPEN)


def test_the_code_in_the_subject_confirms_only_with_the_senders_yes(commands, games) -> None:
    handle(commands, mail("new fifth-avenue", sender=ANN))
    (code_mail,) = outbox(games, ANN)
    quoted = "\n".join(f"> {line}" for line in code_mail.text_body.splitlines())
    # An auto-responder that quotes our mail, or sends it back whole, or writes its own words, confirms nothing,
    # and asks for nothing either: no line of the code's mail reads as a command.
    for body in (quoted, code_mail.text_body, "I am away until Monday."):
        report = handle(commands, mail(body, sender=ANN, subject=f"Re: {code_mail.subject}"))
        assert report.outcome == "signup-refused", (body, report.outcome)
        assert "no line of yours says yes" in report.reply_body or report.reply_to is None
    assert signup_rows(games, SignupTable) == [] and len(signup_rows(games, SignupRequest)) == 1
    report = handle(commands, mail(f"Yes\n\n{quoted}", sender=ANN, subject=f"Re: {code_mail.subject}"))
    assert report.outcome == "signup" and len(signup_rows(games, SignupTable)) == 1


def test_a_right_code_is_read_over_the_hourly_limit(commands, games) -> None:
    handle(commands, mail("join 1\nnew manhattan", sender=BOB))  # (refused: no table 1)
    handle(commands, mail("new manhattan", sender=BOB))
    code = last_code(games, BOB)
    over = "rate limit: more than 60 mails from bob@example.org in an hour that changed nothing"
    assert handle(commands, mail("games", sender=BOB), over).outcome == "ignored"
    assert handle(commands, mail("confirm wrong-code", sender=BOB), over).reply_to is None
    report = handle(commands, mail(f"confirm {code}\ngames", sender=BOB), over)
    assert report.outcome == "signup" and len(signup_rows(games, SignupTable)) == 1


def test_no_answer_carries_a_strangers_text(commands, games) -> None:
    spam = "BUY NOW " * 120  # 960 characters a line
    cases = {"games": "games\n" + "\n".join([spam] * 900),  # the 900 KB mail of the issue
             "confirm": f"confirm abc-def {spam * 50}",
             "join": f"join 1 as {spam}",
             "new": f"new fifth-avenue players {spam}"}
    for n, (case, body) in enumerate(cases.items()):
        sender = f"victim{n}@example.net"
        handle(commands, mail(body, sender=sender))
        (answer,) = outbox(games, sender)
        assert len(answer.text_body) <= MAX_ANSWER and answer.text_body.count("BUY NOW") <= 5 * 8, case


def test_an_address_gets_a_few_answers_an_hour_to_mails_that_change_nothing(commands, games, clock) -> None:
    """70 mails under a player's From that change nothing: the player gets ANSWERS_AN_HOUR answers in the hour,
    the last one saying so; the next hour, again that many. A move is still applied."""
    games.create_game("fifth-avenue", [("Ann", ANN), ("Bob", BOB)], seed=3)
    before = len(outbox(games, ANN))
    for _ in range(70):
        handle(commands, mail("games\nBUY NOW", sender=ANN))
    answers = outbox(games, ANN)[before:]
    assert len(answers) == ANSWERS_AN_HOUR
    assert f"This is the {ANSWERS_AN_HOUR}th answer within an hour" in " ".join(answers[-1].text_body.split())
    (email, legal), = games.legal(1)[1].items()
    if email == ANN:
        assert handle(commands, mail(legal[0], sender=ANN, subject="Re: [Fifth Avenue #1] Ann, Bob")).outcome == \
            "applied"
    clock.now += timedelta(hours=1, minutes=1)
    before = len(outbox(games, ANN))
    for _ in range(10):
        handle(commands, mail("games", sender=ANN))
    assert len(outbox(games, ANN)) - before == ANSWERS_AN_HOUR


def test_all_strangers_together_have_a_daily_budget(games, clock) -> None:
    commands = MailCommands(games, signup=SignupConfig(new="anyone", stranger_mails_per_day=3))
    for n in range(5):
        handle(commands, mail("games", sender=f"s{n}@example.net"))
    for n in range(5, 7):
        handle(commands, mail("new manhattan", sender=f"s{n}@example.net"))
    mailed = {m.recipient for m in outbox(games)}
    assert mailed == {"s0@example.net", "s1@example.net", "s2@example.net"}
    with Session(games.engine) as s:
        assert s.exec(select(SignupTable)).all() == [] and len([r for r in s.exec(select(InboundMail)).all()
                                                                if r.to_stranger]) == 3
    clock.now += timedelta(days=1, minutes=1)
    handle(commands, mail("games", sender="s9@example.net"))
    assert outbox(games)[-1].recipient == "s9@example.net"


def test_automatic_replies_are_known_by_their_headers_and_subjects(commands, games) -> None:
    handle(commands, mail("new fifth-avenue", sender=ANN))
    (code_mail,) = outbox(games, ANN)
    from pbem.mail.message import automatic_reason
    from pbem.mail.text import read_message

    for headers, subject in (({"Precedence": "auto_reply"}, "Re: x"), ({"X-MS-Exchange-Inbox-Rules-Loop": ANN}, "x"),
                             ({"Auto-Submitted": "auto-replied"}, "x"), ({"X-Autoreply": "yes"}, "x"),
                             ({"X-Autorespond": "x"}, "x"), ({}, f"Automatic reply: {code_mail.subject}"),
                             ({}, f"Out of Office: {code_mail.subject}"), ({}, f"Auto: {code_mail.subject}")):
        raw = mail("yes", sender=ANN, subject=subject, headers=headers)
        assert automatic_reason(read_message(raw)), (headers, subject)
    assert automatic_reason(read_message(mail("yes", sender=ANN, subject=f"Re: {code_mail.subject}"))) is None
