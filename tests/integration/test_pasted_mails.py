"""Every kind of game mail pasted back without '>' is not read as the player's commands (docs/rules.md D43).

Some mail clients paste the mail answered without quote marks, under a header pbem does not know, as it was
sent or re-wrapped at 72 or 76 columns. For each kind of mail a player gets (a game's start, the moderator
playing for somebody, a deadline that passed, a reminder, the digests, an error reply, an auction's request,
Manhattan's mails) a reply is built from its recipient with the whole mail pasted in each form, placed below
a question (nothing may happen), below a real command and above one (exactly that command applies), sent
as a reply to the mail (In-Reply-To) and as a fresh mail with the game's tag in its subject (which finds the
mail among the game's recent mails to the player: MailLedger.sent_to).

Also: a lone short command copied from our list, and a turn sent again as our confirmation listed it, are the
player's, and a reply that is nothing but the paste reads nothing of it (its command is then in the subject).
Dry runs for the reading; one real run of each kind checks the database.
"""

from __future__ import annotations

import re
import textwrap
from dataclasses import dataclass, field
from datetime import datetime, timedelta, timezone
from functools import cached_property, lru_cache
from typing import Callable

import pytest
from sqlmodel import Session, select

from test_mail_commands import game_rows, mail

from pbem.mail.pasted import LONE_LINE, SHORT_RUN, SentText
from pbem.services.table.service import GameService
from pbem.services.mail_in.mail_commands import MailCommands, MailReport
from pbem.services.mail_in.refusals import RefusalDigest
from pbem.services.clock.timekeeper import Timekeeper
from pbem.store.models import InboundMail, OutboxMail
from pbem_testing.clock import StoppedClock

ANN, BOB, CY = "ann@example.org", "bob@example.org", "cy@example.org"
PLAYERS = [("Ann", ANN), ("Bob", BOB), ("Cy", CY)]
NOON = datetime(2026, 11, 22, 12, 0, tzinfo=timezone.utc)
QUESTION = "Why can't I bid 5?"
INFO = "hand"  # what a player who is not to act sends: answered, changes nothing

# Header blocks no pattern of pbem.mail.text knows (not "-----Original Message-----", not "On ... wrote:", not a
# "From: / Sent:" block, not a phone signature: "Gesendet von Mailbox" would be one and end the reading there).
HEADERS = [
    ["==== Message d'origine ===="],
    ["Ann's mail program wrote something"],
    ["Gesendet: Sonntag, 22. November 2026 um 12:00 Uhr", "Ursprünglicher Text:"],
]
FORMS = ["as sent", "wrapped at 72", "wrapped at 76"]
PLACES = ["below a question", "below a command", "above a command"]
THREADS = ["in-reply-to", "fresh"]


@dataclass
class Scene:
    """A game in the state where ``mails`` (ours, each to its recipient) are the latest: a reply to them is
    the player's answer to the situation now."""

    games: GameService
    clock: StoppedClock
    game_id: int = 1
    mails: list[OutboxMail] = field(default_factory=list)
    own_lines: list[str] = field(default_factory=list)  # what the player writes first ('game 1' under a digest)

    @cached_property
    def processor(self) -> MailCommands:
        return MailCommands(self.games)

    @cached_property
    def title(self) -> str:
        return self.games.get(self.game_id).title


# --------------------------------------------------------------------------- helpers


def outbox(engine, **where) -> list[OutboxMail]:
    with Session(engine) as s:
        query = select(OutboxMail).order_by(OutboxMail.id)
        for name, value in where.items():
            query = query.where(getattr(OutboxMail, name) == value)
        return list(s.exec(query).all())


def newest(engine, **where) -> OutboxMail:
    return outbox(engine, **where)[-1]


def rewrapped(text: str, width: int) -> str:
    """What a client that re-wraps a pasted mail makes of it: each paragraph filled to ``width``."""
    paragraphs = [p for p in re.split(r"\n[ \t]*\n", text.strip("\n")) if p.strip()]
    return "\n\n".join(textwrap.fill(p, width) for p in paragraphs)


@lru_cache(maxsize=64)
def pasted(text: str, form: str) -> str:
    return {"as sent": text, "wrapped at 72": rewrapped(text, 72), "wrapped at 76": rewrapped(text, 76)}[form]


def normal(line: str) -> str:
    return " ".join(line.split()).casefold()


@lru_cache(maxsize=64)
def our_lines(text: str) -> frozenset[str]:
    """Every line of our mail, in every form it was pasted in, as compared."""
    return frozenset(normal(line) for form in FORMS for line in pasted(text, form).splitlines() if line.strip())


def build_reply(scene: Scene, ours: OutboxMail, form: str, place: str, thread: str, own: str) -> bytes:
    header = HEADERS[FORMS.index(form)]
    paste = "\n".join(header) + "\n\n" + pasted(ours.text_body, form) + "\n"
    first = "\n".join(scene.own_lines) + "\n" if scene.own_lines else ""
    if place == "above a command":
        body = f"{first}{paste}\n{own}\n"
    else:
        body = f"{first}{own}\n\n{paste}"
    if thread == "in-reply-to":
        return mail(body, sender=ours.recipient, subject=f"Re: {ours.subject}", in_reply_to=ours.message_id)
    return mail(body, sender=ours.recipient, subject=f"[{scene.title} #{scene.game_id}] about your mail")


def acting(scene: Scene, email: str) -> bool:
    info = scene.games.get(scene.game_id)
    return not info.over and info.email_of(info.state.current_player()) == email


def command_for(scene: Scene, email: str) -> str:
    """The player's own line: a legal command (the first the mail lists) when it is their turn, else 'hand'."""
    if not acting(scene, email):
        return INFO
    return scene.games.get(scene.game_id).state.legal_commands()[0]


def problems(report: MailReport, ours: OutboxMail, form: str, place: str, own: str, is_actor: bool) -> list[str]:
    """What is wrong with the reading of one reply; [] when it is right."""
    header = HEADERS[FORMS.index(form)]
    got = [(r.line, r.status) for r in report.lines]
    found = []
    mine = our_lines(ours.text_body)
    leaked = [r.line for r in report.lines if r.line != own
              and (normal(r.line) in mine or (r.read_from and normal(r.read_from) in mine))]
    if leaked:
        found.append(f"lines of our mail reported: {leaked[:5]}")
    if place == "below a question":
        want = [(QUESTION, "ignored")] + [(h, "ignored") for h in header]
        if report.outcome != "no-commands":  # not applied, not rejected: the game does not hear of it
            found.append(f"outcome {report.outcome!r}, not 'no-commands'")
    elif is_actor:
        want = [(own, "done")] + [(h, "ignored") for h in header]
        if report.outcome != "applied":
            found.append(f"outcome {report.outcome!r}, not 'applied'")
    else:
        want = [(own, "answered")] + [(h, "ignored") for h in header]
        if report.outcome != "info":
            found.append(f"outcome {report.outcome!r}, not 'info'")
    if got != want:
        found.append(f"lines {got[:8]}{' ...' if len(got) > 8 else ''} instead of {want}")
    return found


# --------------------------------------------------------------------------- the scenes


def _service(engine) -> tuple[GameService, StoppedClock]:
    clock = StoppedClock(NOON)
    return GameService(engine, clock=clock), clock


def _play_first(games: GameService, game_id: int = 1) -> None:
    (email, commands), = games.legal(game_id)[1].items()
    games.submit(game_id, email, commands[0])


def _play_until(games: GameService, done: Callable[..., bool], game_id: int = 1, turns: int = 50) -> None:
    """Play the first legal commands until ``done(state)``: each player's run of commands in one submission
    (a turn in one mail), which is quicker than a submission a command."""
    for _ in range(turns):
        info = games.get(game_id)
        state = info.state.clone()
        if done(state):
            return
        seat, run = state.current_player(), []
        while not state.is_terminal() and state.current_player() == seat and not done(state):
            run.append(state.legal_commands()[0])
            state.apply_command(seat, run[-1])
        games.submit(game_id, info.email_of(seat), "\n".join(run))
    raise AssertionError("never got there")


def _in_auction(state) -> bool:
    return state.frames[-1]["kind"] == "auction"


def _to_auction(games: GameService, game_id: int = 1) -> None:
    _play_until(games, _in_auction, game_id)


def _requests(games: GameService, game_id: int = 1) -> list[OutboxMail]:
    """The mail asking the decision open now."""
    info = games.get(game_id)
    return [m for m in outbox(games.engine, game_id=game_id) if m.decision == info.state.moves
            and m.recipient == info.email_of(info.state.current_player())][-1:]


def scene_start(engine) -> Scene:
    """(1) A game begins: the first player is asked to place, the others told."""
    games, clock = _service(engine)
    games.create_game("fifth-avenue", PLAYERS, seed=41)
    return Scene(games, clock, mails=outbox(engine, recipient=ANN)[:1] + outbox(engine, recipient=BOB)[:1])


def scene_moderator_move(engine) -> Scene:
    """(2) The moderator places for Ann: Ann is told it was played for her, the next player for Ann."""
    games, clock = _service(engine)
    games.create_game("fifth-avenue", PLAYERS, seed=41)
    (email, commands), = games.legal(1)[1].items()
    games.submit(1, email, commands[0], source="cli", by="moderator", reason="Ann asked me to")
    return Scene(games, clock, mails=[newest(engine, recipient=email)] + _requests(games))


def scene_moderator_pass(engine) -> Scene:
    """(2) The moderator passes for the bidder in an auction."""
    games, clock = _service(engine)
    games.create_game("fifth-avenue", PLAYERS, seed=41)
    _to_auction(games)
    (email, _), = games.legal(1)[1].items()
    games.submit(1, email, "pass", source="cli", by="moderator", reason="away this week")
    mails = [newest(engine, recipient=email)] + _requests(games)
    assert "The moderator played for you (the moderator says: away this week): pass" in " ".join(
        mails[0].text_body.split())
    return Scene(games, clock, mails=mails)


def scene_deadline_pass(engine) -> Scene:
    """(3) A bid's deadline passed: pass was played for the bidder, who is told, and the next one asked."""
    games, clock = _service(engine)
    games.create_game("fifth-avenue", PLAYERS, seed=41)
    _to_auction(games)
    (email, _), = games.legal(1)[1].items()
    clock.now += timedelta(hours=25)
    assert Timekeeper(games).check().played == [(1, "pass")]
    mails = [newest(engine, recipient=email)] + _requests(games)
    assert "Your deadline passed, so pbem played for you: pass" in " ".join(mails[0].text_body.split())
    return Scene(games, clock, mails=mails)


def scene_late_notice(engine) -> Scene:
    """(3) A decision's deadline passed (the moderator decides): the late player is told."""
    games, clock = _service(engine)
    games.create_game("fifth-avenue", PLAYERS, seed=41)
    clock.now += timedelta(hours=73)
    assert Timekeeper(games).check().expired == [1]
    late = newest(engine, recipient=ANN)
    assert late.subject == "[Fifth Avenue #1] Ann, Bob, Cy" and late.text_body.startswith("Late: ")
    return Scene(games, clock, mails=[late])


def scene_reminder(engine) -> Scene:
    """(4) The reminder, three quarters of the way to the deadline."""
    games, clock = _service(engine)
    games.create_game("fifth-avenue", PLAYERS, seed=41)
    clock.now += timedelta(hours=55)
    assert Timekeeper(games).check().reminded == [1]
    reminder = newest(engine, recipient=ANN)
    assert reminder.subject == "[Fifth Avenue #1] Ann, Bob, Cy" and reminder.text_body.startswith("Reminder: ")
    return Scene(games, clock, mails=[reminder])


def scene_reminder_digest(engine) -> Scene:
    """(4) Ann must act in two games: one digest of both reminders (a mail of no single game)."""
    games, clock = _service(engine)
    games.create_game("fifth-avenue", PLAYERS, seed=41)
    games.create_game("fifth-avenue", PLAYERS, seed=42)
    clock.now += timedelta(hours=55)
    assert Timekeeper(games).check().digests == [ANN]
    digest = newest(engine, recipient=ANN)
    assert "digest" in digest.subject and digest.game_id is None
    return Scene(games, clock, mails=[digest], own_lines=["game 1"])  # as the digest says: name the game


def scene_refusal_digest(engine) -> Scene:
    """(5) The hourly digest of mail refused in the seat's name (here: an answer to Ann's mail from another
    address)."""
    games, clock = _service(engine)
    games.create_game("fifth-avenue", PLAYERS, seed=41)
    start = outbox(engine, recipient=ANN)[0]
    command = games.get(1).state.legal_commands()[0]
    inbound = InboundMail(message_id="<forged@elsewhere.example>", mailbox="INBOX", received_at=clock())
    forged = MailCommands(games).handle(mail(command, sender="mallory@example.net", subject=f"Re: {start.subject}",
                                              in_reply_to=start.message_id), inbound=inbound)
    assert forged.outcome == "impersonation"
    assert RefusalDigest(MailCommands(games).ledger).tell() == [ANN]
    digest = newest(engine, recipient=ANN)
    assert "not applied" in digest.subject
    return Scene(games, clock, mails=[digest])


def scene_error_reply(engine) -> Scene:
    """(6) The reply to a mail with a bad command."""
    games, clock = _service(engine)
    games.create_game("fifth-avenue", PLAYERS, seed=41)
    start = outbox(engine, recipient=ANN)[0]
    refused = MailCommands(games).handle(mail("bid brown 4", sender=ANN, subject=f"Re: {start.subject}",
                                               in_reply_to=start.message_id))
    assert refused.outcome == "rejected"
    error = newest(engine, recipient=ANN)
    assert "Not done:" in error.text_body
    return Scene(games, clock, mails=[error])


def scene_auction(engine) -> Scene:
    """(7) Fifth Avenue's request to bid, and the answer to the turn that opened the auctions (its player is
    told what their commands did, and whom the game waits for: a receipt, which asks nothing of them)."""
    games, clock = _service(engine)
    games.create_game("fifth-avenue", PLAYERS, seed=41)
    _to_auction(games)
    request = _requests(games)
    assert request and request[0].headers["X-Pbem-Decision"] == str(request[0].decision)
    assert request[0].text_body.startswith("Bid or pass: the auction for ")
    others = [newest(engine, recipient=email) for _, email in PLAYERS if email != request[0].recipient]
    done = [m for m in others if m.text_body.startswith("Recorded: ") and m.decision is None][:1]
    assert done, [m.text_body[:80] for m in others]
    return Scene(games, clock, mails=request + done)


def scene_manhattan_start(engine) -> Scene:
    """A Manhattan game begins: choose the round's parts (a list of commands only)."""
    games, clock = _service(engine)
    games.create_game("manhattan", PLAYERS, seed=0)
    return Scene(games, clock, mails=outbox(engine, recipient=ANN)[:1])


def scene_manhattan_build(engine) -> Scene:
    """Manhattan's first building turn."""
    games, clock = _service(engine)
    games.create_game("manhattan", PLAYERS, seed=0)
    for _ in range(3):
        _play_first(games)
    return Scene(games, clock, mails=_requests(games))


def scene_auction_result(engine) -> Scene:
    """Fifth Avenue: an auction's result, told to a player who bid in it and lost (its first line names the
    winner), and the winner's request to build."""
    games, clock = _service(engine)
    games.create_game("fifth-avenue", PLAYERS, seed=41)
    _to_auction(games)
    state = games.get(1).state
    site, bidder = state.frames[-1]["site"], state.current_player()
    games.submit(1, games.get(1).email_of(bidder), next(c for c in state.legal_commands() if c.startswith("bid")))
    _play_until(games, lambda st: not (_in_auction(st) and st.frames[-1]["site"] == site))
    result = f"{games.get(1).players[bidder].name} won {games.get(1).state.board.name(site)}"
    lost = [m for _, email in PLAYERS if email != games.get(1).email_of(bidder)
            for m in [newest(engine, recipient=email)] if m.text_body.startswith(result)]
    assert lost and lost[0].decision is None
    return Scene(games, clock, mails=lost[:1] + _requests(games))


def scene_talk(engine) -> Scene:
    """Table talk: Bob's words of several lines ('say' ... 'end', one of them a command) relayed to Ann, who
    must decide; the moderator's word to Cy; pbem's answer to Bob's mail. (One mail a player: a second real
    reply of the same player would find the first one's lines in our answer to it, the 'Ignored:' list.)"""
    from pbem.services.table.table_talk import TableTalk

    games, clock = _service(engine)
    games.create_game("fifth-avenue", PLAYERS, seed=41)
    said = MailCommands(games).handle(mail("say Good luck, all!\nAnn, I would send this:\nplace 34W orange\nend",
                                           sender=BOB))
    assert said.outcome == "talk", said.reply_body
    relayed = newest(engine, recipient=ANN)
    assert "Bob says: Good luck, all!" in relayed.text_body and "place 34W orange" in relayed.text_body
    TableTalk(games).tell(1, "Welcome to the game.\nAnn is away next week.", CY)
    told = newest(engine, recipient=CY)
    assert "The moderator says to Cy: Welcome to the game." in told.text_body
    return Scene(games, clock, mails=[relayed, told, newest(engine, recipient=BOB)])


def scene_help(engine) -> Scene:
    """The answer to 'mail all' and 'help': the new setting, then every command with its shape and an example."""
    games, clock = _service(engine)
    games.create_game("fifth-avenue", PLAYERS, seed=41)
    report = MailCommands(games).handle(mail("mail all\nhelp", sender=ANN))
    assert report.reply_body and "How to play Fifth Avenue #1 by mail" in report.reply_body
    answer = newest(engine, recipient=ANN)
    assert "for example: " in answer.text_body and "from now on you get the mails of 'mail all'" in " ".join(
        answer.text_body.split())
    return Scene(games, clock, mails=[answer])


def scene_public(engine) -> Scene:
    """Delivery 'all': a player not to act is mailed what another player did (its preview is that)."""
    games, clock = _service(engine)
    games.create_game("fifth-avenue", PLAYERS, seed=41)
    games.set_delivery(1, "all")
    _play_first(games)
    info = games.get(1)
    watcher = next(p.email for p in info.players if p.email != ANN and p.seat != info.state.current_player())
    public = newest(engine, recipient=watcher)
    assert public.decision is None and public.text_body.startswith("Ann played: ")
    return Scene(games, clock, mails=[public] + _requests(games))


def scene_daily(engine) -> Scene:
    """Delivery 'digest': the daily mail of what happened, to a player not to act."""
    games, clock = _service(engine)
    games.create_game("fifth-avenue", PLAYERS, seed=41)
    games.set_delivery(1, "digest")
    Timekeeper(games).check()  # the players' day starts
    _play_first(games)
    clock.now += timedelta(hours=25)
    daily = Timekeeper(games).check().daily
    assert daily, "no daily mail"
    mails = [newest(engine, recipient=email) for _, email in daily]
    assert all(m.text_body.startswith("Your daily mail: ") for m in mails)
    return Scene(games, clock, mails=mails[:1] + _requests(games))


def scene_long_chronicle(engine) -> Scene:
    """What happened since the reader's last mail does not fit above the board: the older items go below it
    (here: moves Cy was not mailed of, Ann's long words between them, relayed to Cy at once and told again with
    the moves, and the moves until Cy must decide)."""
    games, clock = _service(engine)
    games.create_game("fifth-avenue", PLAYERS, seed=41)
    _play_until(games, lambda state: state.current_player() not in (0, 2))
    for n in range(3):
        lines = [f"say Thoughts on the city, part {n + 1}"] + [f"Point {k} of part {n + 1}, about the districts."
                                                              for k in range(8)] + ["end"]
        assert MailCommands(games).handle(mail("\n".join(lines), sender=ANN)).outcome == "talk"
    _play_until(games, lambda state: state.current_player() == 2)
    request = _requests(games)
    assert request and request[0].recipient == CY and "Earlier since your last mail:" in request[0].text_body
    return Scene(games, clock, mails=request)


def scene_game_over(engine) -> Scene:
    """Manhattan's last mails: the game is over (nobody is to act)."""
    games, clock = _service(engine)
    games.create_game("manhattan", PLAYERS, seed=0)
    _play_until(games, lambda state: state.is_terminal(), turns=200)
    over = [newest(engine, recipient=email) for _, email in PLAYERS]
    assert all(m.text_body.startswith("Game over: ") for m in over)
    return Scene(games, clock, mails=over[:2])


SCENES: dict[str, Callable[..., Scene]] = {
    "start": scene_start,
    "moderator-move": scene_moderator_move,
    "moderator-pass": scene_moderator_pass,
    "deadline-pass": scene_deadline_pass,
    "late-notice": scene_late_notice,
    "reminder": scene_reminder,
    "reminder-digest": scene_reminder_digest,
    "refusal-digest": scene_refusal_digest,
    "error-reply": scene_error_reply,
    "auction": scene_auction,
    "manhattan-start": scene_manhattan_start,
    "manhattan-build": scene_manhattan_build,
    "auction-result": scene_auction_result,
    "talk": scene_talk,
    "help": scene_help,
    "public": scene_public,
    "daily": scene_daily,
    "long-chronicle": scene_long_chronicle,
    "game-over": scene_game_over,
}


# A fresh mail finds the same mails of ours as a reply does (the answered one is among the game's recent mails
# to the player): its question is tried in every form, its command in one form a place (and in the real run,
# wrapped at 72 above the paste); a reply to the mail gets every form in every place.
CASES = {
    "in-reply-to": [(form, place) for form in FORMS for place in PLACES],
    "fresh": [(form, "below a question") for form in FORMS]
             + [("wrapped at 76", "below a command"), ("as sent", "above a command")],
}


def check_replies(scene: Scene, threads: list[str]) -> list[str]:
    """Dry runs of the replies to every mail of the scene: what was read wrong, in words."""
    failures = []
    for ours in scene.mails:
        own = command_for(scene, ours.recipient)
        for thread in threads:
            for form, place in CASES[thread]:
                line = QUESTION if place == "below a question" else own
                report = scene.processor.handle(build_reply(scene, ours, form, place, thread, line), dry_run=True)
                failures += [f"{ours.recipient} {ours.subject!r}, {thread}, {form}, {place}: {p}"
                             for p in problems(report, ours, form, place, own, own != INFO)]
    return failures


# --------------------------------------------------------------------------- the tests


@pytest.mark.parametrize("kind", list(SCENES))
def test_a_pasted_mail_is_never_read_as_commands(db_engine, kind: str) -> None:
    """Each mail of the kind, pasted whole (as sent, re-wrapped at 72 and at 76) under an unknown header, in a
    reply to it and in a fresh mail: below a question nothing happens and nothing of the paste is reported;
    below or above the player's command exactly that command is done (from a player not to act, their 'hand' is
    answered). Dry runs; then real runs: the question and 'hand' change nothing in the database, the command
    adds exactly itself."""
    scene = SCENES[kind](db_engine)
    assert scene.mails, kind
    failures = check_replies(scene, THREADS)
    assert not failures, "\n".join(failures[:12])

    processor = scene.processor
    for ours in scene.mails:
        own = command_for(scene, ours.recipient)
        before = game_rows(db_engine)
        report = processor.handle(build_reply(scene, ours, "wrapped at 76", "below a question", "in-reply-to",
                                              QUESTION))
        assert report.outcome == "no-commands" and game_rows(db_engine) == before, report.reply_body
        assert QUESTION in report.reply_body
        if own == INFO:
            report = processor.handle(build_reply(scene, ours, "as sent", "below a command", "fresh", own))
            assert report.outcome == "info" and game_rows(db_engine) == before, report.reply_body
    # Every kind but the end of a game has a mail to the player whose turn it is: commands are tested, not only
    # questions.
    actor = next((m for m in scene.mails if acting(scene, m.recipient)), None)
    if actor is None:
        assert kind == "game-over" and scene.games.get(scene.game_id).over
        return
    own = command_for(scene, actor.recipient)
    events = game_rows(db_engine)[0]
    seq = scene.games.get(scene.game_id).last_seq
    report = processor.handle(build_reply(scene, actor, "wrapped at 72", "above a command", "fresh", own))
    assert report.outcome == "applied", report.reply_body
    assert [(r.line, r.status) for r in report.lines if r.status == "done"] == [(own, "done")]
    after = [h for h in scene.games.history(scene.game_id) if h.seq > seq]
    assert [(h.kind, h.text, h.actor) for h in after] == [("command", own, actor.recipient)]
    assert game_rows(db_engine)[0] == events + 1


@pytest.mark.parametrize("kind", ["auction", "manhattan-start"])
def test_a_lone_command_copied_from_our_list_is_the_players(db_engine, kind: str) -> None:
    """A reply whose only line is a short command that our mail shows ('pass' from the commands an auction's
    request lists, 'choose 1 1 1 1' from the example Manhattan's gives) is the player's: read and applied, in a
    reply and in a fresh mail."""
    scene = SCENES[kind](db_engine)
    ours = next(m for m in scene.mails if acting(scene, m.recipient))
    own = "pass" if kind == "auction" else command_for(scene, ours.recipient)
    if kind == "auction":
        assert f"\n  {own}\n" in ours.text_body  # copied from our list of commands
    else:
        assert normal(own) in normal(ours.text_body)  # copied from our example
    # Alone, and with a line of the player's that is not ours (the paste dropped, something is left of the mail).
    for body, lines in ((own, [(own, "done")]), (f"{own}\n\nGood game so far", [(own, "done"), ("Good game so far", "ignored")])):
        fresh = mail(body, sender=ours.recipient, subject=f"[{scene.title} #{scene.game_id}] my move")
        dry = scene.processor.handle(fresh, dry_run=True)
        assert dry.outcome == "applied" and [(r.line, r.status) for r in dry.lines] == lines, body
    events = game_rows(db_engine)[0]
    report = scene.processor.handle(mail(own, sender=ours.recipient, subject=f"Re: {ours.subject}",
                                          in_reply_to=ours.message_id))
    assert report.outcome == "applied" and [(r.line, r.status) for r in report.lines] == [(own, "done")]
    assert game_rows(db_engine)[0] == events + 1
    assert scene.games.history(scene.game_id)[-1].text == own


def test_a_turn_sent_again_as_our_confirmation_listed_it_is_applied(db_engine) -> None:
    """Ann's turn (an action, then its cards and its move) came in one mail with 'board': our reply listed it
    under 'Done:', one command a line, and the receipt said 'Recorded: <the turn>' on one line.
    The moderator takes it back and Ann sends the same lines again, or that one line: a run made only of
    command lines is the player's, though it is a piece of our mail, long enough to count."""
    games, clock = _service(db_engine)
    games.create_game("fifth-avenue", PLAYERS, seed=41)
    _play_until(games, lambda state: not state.legal_commands()[0].startswith("place"))
    info = games.get(1)
    seat, email = info.state.current_player(), info.email_of(info.state.current_player())
    state, turn = info.state.clone(), []
    action = next(c for c in state.legal_commands() if c.startswith("B "))  # a long one: see LONE_LINE below
    while state.current_player() == seat and not _in_auction(state):
        turn.append(state.legal_commands()[0] if turn else action)
        state.apply_command(seat, turn[-1])
    assert email == ANN and len(turn) >= 2, (email, turn)
    asked = _requests(games)[0]
    first = MailCommands(games).handle(mail("\n".join(turn + ["board"]), sender=email,
                                             subject=f"Re: {asked.subject}", in_reply_to=asked.message_id))
    assert first.outcome == "applied"
    confirmation = newest(db_engine, recipient=email)
    # The answer to 'board' (a reply of its own, after the receipt of the turn).
    assert confirmation.subject.removeprefix("Re: ") == "[Fifth Avenue #1] Ann, Bob, Cy"
    assert confirmation.headers["In-Reply-To"] == first.message_id and "Done:" in confirmation.text_body
    listed = normal(" ".join(turn))
    assert listed in normal(confirmation.text_body) and len(listed) >= SHORT_RUN  # a run our mail holds ...
    assert SentText([confirmation.text_body]).pasted(turn) == [True] * len(turn)  # ... kept only as commands
    games.undo(1, steps=len(turn), reason="Ann asked to take her turn back")

    again = "\n".join(turn)
    # As they were listed, and under a line of the player's that is not ours (so that what is left once the
    # paste is dropped is not empty: see test_a_reply_that_is_only_the_paste_reads_nothing_of_it).
    for body, more in ((again, []), (f"Once more:\n{again}", [("Once more:", "ignored")])):
        dry = MailCommands(games).handle(mail(body, sender=email, subject=f"Re: {confirmation.subject}",
                                               in_reply_to=confirmation.message_id), dry_run=True)
        assert dry.outcome == "applied", dry.reply_body
        assert [(r.line, r.status) for r in dry.lines] == [(command, "done") for command in turn] + more
    # The receipt names the turn on one line ('Recorded: ...'): copied back from there, that line is the
    # player's turn too.
    done = next(m for m in reversed(outbox(db_engine, recipient=email)) if m.text_body.startswith("Recorded: "))
    line = "; ".join(turn)
    assert done.text_body.startswith(f"Recorded: {line}\n") and len(line) >= LONE_LINE
    assert SentText([done.text_body]).pasted([line]) == [True]  # a line our mail holds, long enough to count
    dry = MailCommands(games).handle(mail(line, sender=email, subject=f"Re: {done.subject}",
                                           in_reply_to=done.message_id), dry_run=True)
    assert dry.outcome == "applied", dry.reply_body
    assert [(r.line, r.status) for r in dry.lines] == [(command, "done") for command in turn]
    seq = games.get(1).last_seq
    report = MailCommands(games).handle(mail(again, sender=email, subject="[Fifth Avenue #1] my turn again"))
    assert report.outcome == "applied", report.reply_body
    assert [h.text for h in games.history(1) if h.seq > seq] == turn


def test_a_reply_that_is_only_the_paste_reads_nothing_of_it(db_engine) -> None:
    """Ann answers the late notice with nothing of her own in the body but the client's paste (no header): no
    line of the paste is a command, nothing is refused; her command in the subject is read instead."""
    scene = scene_late_notice(db_engine)
    ours = scene.mails[0]
    own = command_for(scene, ANN)
    failures = []
    for form in FORMS:
        for first in ("", "game 1\n\n"):
            body = first + pasted(ours.text_body, form) + "\n"
            for subject, want in ((f"Re: {ours.subject}", "no-commands"), (f"Re: {ours.subject} {own}", "applied")):
                report = scene.processor.handle(mail(body, sender=ANN, subject=subject,
                                                      in_reply_to=ours.message_id), dry_run=True)
                got = [(r.line, r.status) for r in report.lines]
                if report.outcome != want or any(status != "done" for _, status in got):
                    failures.append(f"{form}, {first.strip() or 'no own line'}, subject {subject!r}: "
                                    f"{report.outcome}, {got[:4]}")
    assert not failures, "\n".join(failures)
