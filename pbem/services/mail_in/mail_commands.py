"""From a player's mail to applied commands and a reply: the order of the steps, each done by a module of its own.

A mail is read (``pbem.mail``; its lines sorted by ``lines``), matched to a game and a seat (``finding``), and
its command lines are submitted through the game service all at once (``applying``): every command applies or
none does. Lines that are not commands are reported as ignored (greetings, sign-offs and signatures in
silence: ``pbem.mail.courtesy``); ``help``, ``board``, ``hand``, ``legal`` and
``history`` are answered without changing anything. The reply (``reply``) lists what was done, what was not
done (the line, why, and what is legal instead) and what was ignored, like Mailman's command runner. Nothing
here raises on a bad mail: every mail ends in a report (``report``).
"""

from __future__ import annotations

from dataclasses import replace
from datetime import timedelta
from email.message import EmailMessage
from typing import Any

from ...config import SignupConfig
from ...games import get_game
from ...mail.mailto import message_id_of, split_ref_lines
from ...mail.message import message_id, sender, subject
from ...mail.text import MAX_HTML_BYTES, MAX_READ_BYTES, MAX_TEXT_BYTES, MAX_TEXT_LINES, extract_text, read_message
from ...store.models import InboundMail
from ..common.errors import ServiceError
from ..common.ledger import NOT_ANSWERED, MailLedger
from ..mail_out.notices import game_subject, thread_root
from ..table.service import GameService
from ..table.signup import Signup
from ..table.table_talk import TableTalk, TalkPlan, first_line
from .applying import MailApplier
from .choices_mail import CHOICES, Choices
from .finding import GameFinder, answered_ids
from .lines import game_lines, sort_lines, split_secret_lines, subject_commands, without_our_text
from .refusals import REFUSED
from .reply import Replies, more_texts, wrap
from .signup_mail import SIGNUP_CHANGED, SIGNUP_INFO, SIGNUP_REFUSED, SignupMail
from .report import LineReport, MailReport

CHANGES = ("applied", "away", "talk", "settings", SIGNUP_CHANGED)  # outcomes of a mail that changed something
RECEIPTED = ("away", "talk", "settings")  # changes whose reply is the sender's receipt (an applied mail's comes with
# the game's mails: services.mail_out.receipts)
NO_COMMAND_ANSWERS = 3  # answers an hour to a player's mails without commands (an auto-responder loops)
ANSWERS_AN_HOUR = 5  # answers an hour to one address's mails that changed nothing, players' too (a forger's From)
UNPROVEN_ANSWERS = 5  # answers an hour to a seat's address for its mails that did not prove the seat; beyond, the digest
UNANSWERED = ("ignored", "error", "no-sender")  # outcomes that never get an answer of their own
MAX_COMMANDS = 100  # command lines one mail may have; a longer mail is refused whole, unread


class MailCommands:
    def __init__(self, games: GameService, *, ledger: MailLedger | None = None, moderator: str = "",
                 signup: SignupConfig = SignupConfig(), answers_an_hour: int = ANSWERS_AN_HOUR) -> None:
        self.games = games
        self.answers_an_hour = answers_an_hour
        self.ledger = ledger or MailLedger(games.engine, clock=games.clock, mail_domain=games.mail_domain)
        self.moderator = moderator.strip().lower()
        self.talk = TableTalk(games, moderator=self.moderator)
        self.replies = Replies(games, moderator=self.moderator)
        self.finder = GameFinder(games, self.ledger, self.replies)
        self.applier = MailApplier(games, self.ledger, self.talk, self.replies, moderator=self.moderator)
        self.choices = Choices(games, self.ledger)
        self.signup = SignupMail(Signup(games, signup, moderator=self.moderator), self.ledger)
        self._inbound: InboundMail | None = None
        self._over_limit = ""

    # ------------------------------------------------------------------ the one entry point

    def handle(self, raw: bytes, *, dry_run: bool = False, inbound: InboundMail | None = None,
               parsed: EmailMessage | None = None, over_limit: str = "") -> MailReport:
        """Process one mail; with ``dry_run`` say what would happen and change nothing.

        ``inbound`` (the mail worker's record of this mail) is stored in the same transaction as
        the mail's effects: the game change or the reply. ``parsed`` is ``raw`` already read, when the
        caller has it. ``over_limit``: why the sender is over the hourly limit of mails that change nothing
        (services.mail_in.screening); then only the mail's moves are read, and if none applies the mail is ignored
        (recorded with that reason, no reply).
        """
        msg = parsed if parsed is not None else read_message(raw)
        report = MailReport(sender=sender(msg), message_id=message_id(msg) or "", subject=subject(msg), text=extract_text(msg))
        self._inbound = inbound
        self._over_limit = over_limit
        if inbound is not None:
            inbound.outcome, inbound.sender = "applied", report.sender or ""
        try:
            self._handle(msg, report, dry_run)
        except ServiceError as exc:  # a refusal the checks above did not foresee still gets a clear reply
            report.outcome = report.outcome or "rejected"
            self.replies.reply(report, [wrap(f"Your mail could not be processed: {exc.message}")])
        if over_limit and report.outcome not in ("applied", SIGNUP_CHANGED, *REFUSED):  # a move, a code: read
            report.outcome, report.not_answered, report.reply_to = "ignored", over_limit, None
        answered = any(r.status == "answered" for r in report.lines)
        stranger = self._stranger(report)
        report.not_answered = report.not_answered or self._not_answered(report, stranger, answered_ids(msg, report))
        if report.not_answered:
            report.reply_to = None
        if dry_run:
            return report
        if inbound is not None:
            inbound.game_id = report.game_id
            inbound.outcome = report.outcome
            inbound.reason = "" if report.changed else (report.lines[0].note if report.lines else report.outcome)[:500]
            if report.not_answered:
                inbound.reason = f"{NOT_ANSWERED} {report.not_answered}"
            if report.outcome in REFUSED:
                inbound.seat_email = report.seat_email
            inbound.to_stranger = inbound.to_stranger or (stranger and bool(report.reply_to))
        wants_reply = bool(report.reply_body and report.reply_to) and (not report.changed or answered)
        if wants_reply or (inbound is not None and not report.changed):
            # An applied mail's confirmation goes out with the new board from the game service (and the
            # inbound record was stored with it); a separate reply follows when the player asked for
            # information, and every other mail stores its record with its reply.
            self.ledger.queue_mail(report.reply_to if wants_reply else None, report.reply_subject or "",
                                  report.reply_body or "", game_id=report.game_id,
                                  in_reply_to=report.message_id or None, thread=report.thread or None,
                                  inbound=None if report.changed else inbound, html=report.reply_html,
                                  asked=report.reply_asked)
        return report

    def _stranger(self, report: MailReport) -> bool:
        """Whether a reply to this mail would go to an address that plays in no game (not the moderator's)."""
        return bool(report.sender and report.reply_to == report.sender and report.sender != self.moderator
                    and not report.changed and not self.games.games_of(report.sender))

    def _not_answered(self, report: MailReport, stranger: bool, answers: list[str]) -> str:
        """Why this mail gets no answer of its own, or "". No mail ping-pong with anybody, and no reflector: a
        stranger is answered once a day, and all strangers together ``[signup] stranger_mails_per_day`` times;
        any address's mails that changed nothing ANSWERS_AN_HOUR times an hour (forged in a player's name, they
        would mail the player without end), a player's mails without commands three times an hour (an
        auto-responder without the headers that say so loops); mail that did not prove its seat goes into that
        seat's hourly digest, but for UNPROVEN_ANSWERS an hour that lack only the proof. A mail that answers one
        of our mails to its sender (``answers``: its references) is not held to the hourly number: a forger never
        sees our Message-IDs."""
        now = self.games.clock()
        if report.outcome == "no-secret" and report.sender and self.ledger.count(
                report.sender, now - timedelta(hours=1), ("no-secret",), answered=True) < UNPROVEN_ANSWERS:
            # The seat's own address without proof is most likely its player, who forgot: answered at once with the
            # fix (it goes to the seat's address only), whatever the hourly limit, and so not in the digest.
            report.seat_email = ""
            return ""
        if report.outcome in REFUSED:
            return f"{report.seat_email} hears of it in the next hourly digest of refused mail"
        if report.sender is None or report.reply_to != report.sender or report.changed \
                or report.sender == self.moderator:
            return ""
        nothing = (*CHANGES, *REFUSED, *UNANSWERED)  # what a mail that changed nothing and was answered is not
        if stranger:
            if self.ledger.count(report.sender, now - timedelta(days=1), excluding=nothing, answered=True) > 0:
                return "a stranger gets one reply a day"
            budget = self.signup.signup.config.stranger_mails_per_day
            if self.ledger.strangers_mailed(now - timedelta(days=1)) >= budget:
                return f"pbem mails addresses that play in no game {budget} times a day, all together"
        if report.outcome == "no-commands":
            if self.ledger.count(report.sender, now - timedelta(hours=1), ("no-commands",)) >= NO_COMMAND_ANSWERS:
                return f"at most {NO_COMMAND_ANSWERS} answers an hour to mails without commands"
        had = self.ledger.count(report.sender, now - timedelta(hours=1), excluding=nothing, answered=True)
        if had >= self.answers_an_hour:
            if any(to == report.sender for _, to in self.ledger.recipients_of(answers)):
                return ""  # it answers our mail to this address: its sender read that mail, so is who they say
            return f"at most {self.answers_an_hour} answers an hour to mails that change nothing"
        if had == self.answers_an_hour - 1 and report.reply_body:
            report.reply_body += "\n" + wrap(
                f"This is the {self.answers_an_hour}th answer within an hour to your mails that changed nothing: more "
                "such mails are not answered until the hour is over. A move is always read and answered.") + "\n"
        return ""

    # ------------------------------------------------------------------ steps

    def _signup(self, msg: Any, report: MailReport, raw_lines: list[str], dry_run: bool) -> bool:
        """Whether the mail is a signup mail (services.mail_in.signup_mail), which is then handled."""
        lines, secrets = split_secret_lines(raw_lines)
        found = self.signup.read(lines, report.subject, lambda: not self.games.games_of(report.sender or ""))
        if found is None:
            return False
        self.signup.handle(report, *found, secrets, dry_run=dry_run, inbound=self._inbound,
                           over_limit=self._over_limit, in_reply_to=report.message_id or None,
                           replied=self.finder.answers_ours(msg, report))
        return True

    def _handle(self, msg: Any, report: MailReport, dry_run: bool) -> None:
        if report.sender is None:
            report.outcome = "no-sender"  # nobody to answer
            return
        report.reply_to = report.sender
        if self.moderator and report.sender == self.moderator and not self._over_limit and \
                self.applier.moderator_answer(msg, report):
            return
        if report.text.oversized:
            report.outcome = "oversized"
            self.replies.reply(report, [wrap(
                f"Your mail is too long for us to read: a mail may have at most {MAX_TEXT_BYTES // 1_000_000} MB and "
                f"{MAX_TEXT_LINES:,} lines of your own text (quoted text does not count), and its text at most "
                f"{MAX_READ_BYTES // 1_000_000} MB ({MAX_HTML_BYTES // 1_000_000} MB as HTML only). Nothing in it "
                "was applied. Please send only your commands (talk is at most 4,000 characters a mail), without "
                "attachments or the quoted board.")])
            return
        named, raw_lines = game_lines(report.text.lines)
        raw_lines, tokens = split_ref_lines(raw_lines)
        report.linked = [message_id_of(token, self.games.mail_domain) for token in tokens]
        if self._signup(msg, report, raw_lines, dry_run):
            return
        info = self.finder.game(msg, report, named)
        if info is None:
            return
        game_id = info.id
        report.game_id, report.current_decision = game_id, info.state.moves
        report.thread = thread_root(info, self.games.mail_domain)
        answered = self.finder.answered(msg, report, info)
        if not self.finder.seat(msg, report, info):
            return
        sent = self.ledger.sent_to(answered_ids(msg, report), game_id, report.sender or "")
        if (own := without_our_text(msg, report.text, info.kind, sent)) is not None:
            report.text = own
            raw_lines = split_ref_lines(game_lines(own.lines)[1])[0]
        raw_lines, given = split_secret_lines(raw_lines)
        if not self.finder.proven(msg, report, info, given):
            return
        vocabulary = get_game(info.kind).VOCABULARY
        found = sort_lines(raw_lines, vocabulary, most=MAX_COMMANDS + 1)  # one more tells that there are too many
        if found.courtesy and not (found.readings or found.asked or found.ignored or found.away or found.settings
                                   or found.talks):
            # The mail's only lines: 'Yes.', 'Agreed', 'Confused!' were meant for somebody, so the answer shows
            # them with how to reach the players or the moderator, instead of passing them over (issue 41).
            found = replace(found, ignored=found.courtesy, courtesy=[])
        readings, asked, ignored, away, settings, talks, choices = (
            found.readings, found.asked, found.ignored, found.away, found.settings, found.talks, found.choices)
        if self._over_limit:
            # Over the hourly limit of mails that change nothing: only a move is read (a limit never keeps a
            # player from their turn); talk, settings and questions wait for the next hour.
            asked, away, settings, talks, choices = [], [], [], [], []
        if not (readings or away or asked or talks or settings or choices):
            readings = subject_commands(report.subject, vocabulary, [subject for subject, _ in sent])
        commands = [command for reading in readings for command in reading.commands]
        if len(commands) + len(away) > MAX_COMMANDS:
            report.outcome = "rejected"
            self.replies.reply(report, [wrap(
                f"Your mail has more than {MAX_COMMANDS} command lines; one mail may have at most {MAX_COMMANDS}. "
                "Nothing in it was applied. Send the commands of your turn only (several on a line, separated by "
                "';', also work)."), "", *self.replies.answer("legal", info, report)])
            return
        settings = self.applier.last_of_each(report, settings)
        absences = self.applier.absences(report, away, commands)
        if absences is not None and not self.applier.settings_ok(report, settings, commands):
            absences = None
        talk = self.talk.plan(report.sender or "", talks) if talks and absences is not None else TalkPlan()
        if settings and not (commands or away or talk.relayed):
            settings = self.applier.settings_in_budget(report, settings)
        if absences is None:
            pass  # refused, and said why: nothing of the mail applies
        elif commands:
            self.applier.apply(report, info, readings, ignored, answered, dry_run,
                               also=[f"{line}: {note}" for line, note in self.replies.talk_notes(info, report, talk, settings)],
                               inbound=self._inbound)
        elif away:
            report.outcome = "away"
        elif talk.relayed:
            report.outcome = "talk"
        elif settings:
            report.outcome = "settings"
        elif talks or report.lines:
            report.outcome = "rejected"  # its talk or settings were refused, and nothing else was asked
        elif choices:
            report.outcome = "info"  # CHOICES once a list is sent (services.mail_in.choices_mail), stale if over
        elif not asked:
            report.outcome = "no-commands"
        else:
            report.outcome = "info"
        if absences and report.outcome in ("applied", "away"):
            for (line, *_days), note in zip(absences, self.applier.announce(report, absences, dry_run)):
                report.lines.append(LineReport(line, "done", line))
                report.effects.append(note)
        if report.outcome in CHANGES:
            self.applier.mail_settings(report, info, settings, dry_run)
            self.applier.relay_talk(report, info, talk, dry_run)
        else:
            report.lines += [LineReport(first_line(word, texts[0]), "not done", "not reached: nothing of the mail "
                                        "applies" + more_texts(len(texts)))
                             for word, texts in (("say", talk.say), ("moderator", talk.moderator)) if texts]
        report.lines += [LineReport(refused.line, "not done", f"not relayed: {refused.why}.{more_texts(refused.texts)}")
                         for refused in talk.refused]
        if asked and report.changed:
            # Answer questions about the game as it is now; in a dry run, as it would be.
            info = self.applier.as_it_would_be(info, report) if dry_run else self.games.get(game_id)
        answers = []
        for word in asked:
            report.lines.append(LineReport(word, "answered"))
            answers += ["", *self.replies.answer(word, info, report)]
        if choices and report.outcome == "info":
            chosen = self.choices.answer(report, info, choices, answered_ids(msg, report))
            answers += ["", *chosen.text]
            report.reply_html, report.reply_asked = chosen.html, chosen.asked
        elif choices:  # with moves, talk or settings: the list would be of a decision the mail itself may end
            report.lines += [LineReport(line, "not done", "not answered: a list of choices is sent for a mail "
                                        "with no other lines") for line in choices]
        for line in ignored:
            report.lines.append(LineReport(line, "ignored", "not a command"))
        for line in found.courtesy:  # in the report (pbem mail explain), not in the reply
            report.lines.append(LineReport(line, "courtesy", "a greeting, sign-off or signature"))
        body = self.replies.summary(report, info) + answers
        if report.outcome in RECEIPTED:
            # The reply is their receipt: whom the game waits for and when they hear next (settings as now set).
            body += ["", *self.replies.next_steps(report, info if dry_run else self.games.get(game_id))]
        if report.outcome == "no-commands":
            body += ["", *self.replies.answer("help", info, report)]
        if report.changed:
            # The sender's confirmation (with the new board) goes out with everybody's mail from the service.
            report.reply_subject = f"Re: {game_subject(info)}"
            report.reply_body = "\n".join(body).strip() + "\n"
        else:
            self.replies.reply(report, body)


__all__ = ["ANSWERS_AN_HOUR", "CHANGES", "MAX_COMMANDS", "NO_COMMAND_ANSWERS", "RECEIPTED", "UNPROVEN_ANSWERS", "MailCommands", "MailReport"]
