"""From a player's mail to applied commands and a reply.

A mail is read (``pbem.mail``), matched to a game and a seat, and its command
lines are submitted through the game service all at once: every command
applies or none does. Lines that are not commands are reported as ignored;
``help``, ``board``, ``hand``, ``legal`` and ``history`` are answered without
changing anything. The reply lists what was done, what was not done (the line,
why, and what is legal instead) and what was ignored, like Mailman's command
runner. Nothing here raises on a bad mail: every mail ends in a report.
"""

from __future__ import annotations

import copy
import hmac
import re
import textwrap
from datetime import date, timedelta
from dataclasses import asdict, dataclass, field, replace
from email.message import EmailMessage
from typing import Any

from ... import render
from ...games import get_game
from ...mail.message import decision, game_tag, message_id, references, sender, subject
from ...games.vocabulary import Vocabulary
from ...mail.commands import LineReading, own_subject, read_line
from ...mail.pasted import SentText
from ...mail.text import (MAX_HTML_BYTES, MAX_READ_BYTES, MAX_TEXT_BYTES, MAX_TEXT_LINES, TALK_WORDS, MailText, end_lines,
                         extract_text, next_end, read_message, same_line_attribution)
from ...games.errors import CommandError
from ..common.ledger import AskedDecision, MailLedger
from ..table.service import GameService
from ..common.errors import CommandRejected, DecisionMoved, GameNotActive, GameNotFound, PlayerNotInGame, ServiceError
from ..common.game_info import GameInfo
from ...store.models import GameStatus, InboundMail
from ..mail_out.help_text import mail_help
from ..mail_out.notices import game_subject, thread_root, with_names
from ..table.table_talk import TableTalk, TalkPlan, first_line
from ..mail_out.delivery import checked_mode as delivery_mode
from ..mail_out.delivery import checked_pictures
from .refusals import REFUSED
from ...words import listing, plural

INFO_WORDS = ("help", "board", "hand", "legal", "history")
AWAY = re.compile(r"^away\s+(?:from\s+)?(\d{4}-\d{1,2}-\d{1,2})\s*(?:to|until|-|–)\s*(\d{4}-\d{1,2}-\d{1,2})\.?$", re.I)


def parse_away(line: str) -> tuple[date, date]:
    """'away 2026-12-24 to 2027-01-02' -> the first and the last day away."""
    found = AWAY.match(line.strip())
    if not found:
        raise ValueError(f"'{line.strip()}' is not an absence.")
    try:
        first, last = (date.fromisoformat("-".join(f"{int(x):02d}" if len(x) < 3 else x for x in d.split("-")))
                       for d in found.groups())
    except ValueError as exc:
        raise ValueError(f"'{line.strip()}' has a date that does not exist ({exc}).") from exc
    return first, last


def talk_blocks(lines: list[str]) -> tuple[list[str], list[tuple[str, str]]]:
    """The lines without the 'say' and 'moderator' texts, and those texts as (word, text): the rest of the
    word's line and, when a line 'end' follows, every line up to it."""
    rest: list[str] = []
    talks: list[tuple[str, str]] = []
    ends = end_lines([line.strip() for line in lines])
    i = 0
    while i < len(lines):
        word, _, text = lines[i].partition(" ")
        word = word.lower().rstrip(":,")
        if word not in TALK_WORDS:
            rest.append(lines[i])
            i += 1
            continue
        end = next_end(ends, i)
        block = [text.strip(), *lines[i + 1:end]] if end >= 0 else [text.strip()]
        talks.append((word, "\n".join(line for line in block if line)))
        i = end + 1 if end >= 0 else i + 1
    return rest, talks


def _more_texts(count: int, how: str = "and") -> str:
    """' (with 3 more texts)': what a line of the reply stands for when a mail had several texts of talk."""
    if count <= 1:
        return ""
    return f" ({how} {plural(count - 1, 'more text')})" if how == "with" else f" ({plural(count - 1, 'more text')} with it)"


DELIVERY_WORDS = {
    "turns": "a mail when you must decide, answers to your mails, results of auctions you bid in, the moderator's "
             "changes and the end, each starting with all that happened since your last mail",
    "all": "a mail whenever anything public happens",
    "digest": "one mail a day with all that happened, and the mails that ask you to decide",
}
# A player's settings by mail, each with what it may be set to.
SETTINGS = {
    "mail": "'mail turns' (a mail when you must decide, the default), 'mail all' or 'mail digest'",
    "pictures": "'pictures on' (a picture of the board in every game mail, the default) or 'pictures off'",
}


def _setting(line: str) -> tuple[str, str]:
    """('mail', mode) or ('pictures', 'on'/'off') of a setting line, or ValueError saying what is wrong."""
    name, value = line.split()[0].lower(), line.split()[1].rstrip(".")
    return name, (delivery_mode(value) if name == "mail" else checked_pictures(value))


def _setting_words(name: str, value: str) -> str:
    if name == "mail":
        return f"from now on you get the mails of 'mail {value}': {DELIVERY_WORDS[value]}"
    return ("from now on your game mails carry a picture of the board" if value == "on" else
            "from now on your game mails carry no picture (the board is in their text)")


TALK_HINT = ("To talk to the other players, start a line with 'say'; to write to the moderator, with "
             "'moderator' (a line 'end' closes a text of several lines).")
STRANGER_OUTCOMES = ("unknown-game", "not-a-player")
CHANGES = ("applied", "away", "talk", "settings")  # outcomes of a mail that changed something
SETTINGS_AN_HOUR = 10  # mails a player may send an hour that change only settings (each gets a reply)
NO_COMMAND_ANSWERS = 3  # answers an hour to a player's mails without commands (an auto-responder loops)
MAX_COMMANDS = 100  # command lines one mail may have; a longer mail is refused whole, unread
MAX_LISTED = 20  # lines of a mail quoted back in the reply (what was ignored); the rest are counted
HISTORY_LINES = 20
SUBJECT = "the subject"  # where a command was read when the body had none


@dataclass
class LineReport:
    line: str
    status: str  # done, not done, answered, ignored
    note: str = ""
    read_from: str = ""  # the player's whole line (or "the subject ..."), when only this part of it was a command

    def read_from_words(self) -> str:
        return read_from_words(self.read_from)


def read_from_words(read_from: str) -> str:
    """Where a command was read, when it was not a whole line of its own: for the player."""
    if not read_from:
        return ""
    if read_from.startswith(SUBJECT):
        return f"(read from {read_from})"
    return f"(read from your line '{read_from}'; the rest of it is not a command)"


@dataclass
class MailReport:
    sender: str | None
    message_id: str
    subject: str
    text: MailText
    outcome: str = ""  # applied, rejected, stale, info, no-commands, unknown-game, not-a-player, impersonation,
    # no-secret, wrong-secret, inactive, oversized, no-sender
    game_id: int | None = None
    matched_by: str = ""  # game line, subject, reply to our mail, only active game
    seat: int | None = None
    decision: int | None = None  # the decision the mail answered (None: it named none)
    current_decision: int | None = None
    answered: str = ""  # that decision in words ("the auction for 34th Street West")
    open_now: str = ""  # the decision the game waits for, in words: the one an untagged mail applies to
    lines: list[LineReport] = field(default_factory=list)
    effects: list[str] = field(default_factory=list)
    reply_to: str | None = None
    reply_subject: str | None = None
    reply_body: str | None = None
    not_answered: str = ""  # why the mail gets no reply of its own (a stranger's second mail today, ...)
    thread: str = ""  # the game's thread root: the reply's References start with it
    seat_email: str = ""  # a mail refused for want of proof: the seat it spoke for, told in a digest

    @property
    def changed(self) -> bool:
        return self.outcome == "applied"

    def to_dict(self) -> dict[str, Any]:
        data = asdict(self)
        data["text"] = {"body_type": self.text.body_type, "lines": self.text.lines, "ignored": self.text.ignored,
                        "oversized": self.text.oversized}
        data["changed"] = self.changed
        return data


def _split_secret_lines(lines: list[str]) -> tuple[list[str], list[str]]:
    """The lines without the 'secret <word>' ones, and the words those gave."""
    rest, words = [], []
    for line in lines:
        parts = line.split()
        if parts[0].lower().rstrip(":") == "secret":
            words.append(" ".join(parts[1:]))
        else:
            rest.append(line)
    return rest, words


def _and_more(count: int) -> list[str]:
    return [f"  ... and {count - MAX_LISTED} more lines"] if count > MAX_LISTED else []


def _wrap(text: str, indent: str = "") -> str:
    return textwrap.fill(text, width=72, initial_indent=indent, subsequent_indent=indent + "  ")


class MailCommands:
    def __init__(self, games: GameService, *, ledger: MailLedger | None = None, moderator: str = "") -> None:
        self.games = games
        self.ledger = ledger or MailLedger(games.engine, clock=games.clock, mail_domain=games.mail_domain)
        self.moderator = moderator.strip().lower()
        self.talk = TableTalk(games, moderator=self.moderator)
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
            self._reply(report, [_wrap(f"Your mail could not be processed: {exc.message}")])
        if over_limit and report.outcome not in ("applied", *REFUSED):
            report.outcome, report.not_answered, report.reply_to = "ignored", over_limit, None
        answered = any(r.status == "answered" for r in report.lines)
        report.not_answered = report.not_answered or self._not_answered(report)
        if report.not_answered:
            report.reply_to = None
        if dry_run:
            return report
        if inbound is not None:
            inbound.game_id = report.game_id
            inbound.outcome = report.outcome
            inbound.reason = "" if report.changed else (report.lines[0].note if report.lines else report.outcome)
            if report.not_answered:
                inbound.reason = f"not answered: {report.not_answered}"
            if report.outcome in REFUSED:
                inbound.seat_email = report.seat_email
        wants_reply = bool(report.reply_body and report.reply_to) and (not report.changed or answered)
        if wants_reply or (inbound is not None and not report.changed):
            # An applied mail's confirmation goes out with the new board from the game service (and the
            # inbound record was stored with it); a separate reply follows when the player asked for
            # information, and every other mail stores its record with its reply.
            self.ledger.queue_mail(report.reply_to if wants_reply else None, report.reply_subject or "",
                                  report.reply_body or "", game_id=report.game_id,
                                  in_reply_to=report.message_id or None, thread=report.thread or None,
                                  inbound=None if report.changed else inbound)
        return report

    def _not_answered(self, report: MailReport) -> str:
        """Why this mail gets no answer of its own, or "". No mail ping-pong with anybody: a stranger is answered
        once a day, a player's mails without commands three times an hour (an auto-responder without the
        headers that say so loops), and mail that did not prove its seat goes into that seat's hourly digest."""
        if report.outcome in REFUSED:
            return f"{report.seat_email} hears of it in the next hourly digest of refused mail"
        if report.sender is None or report.reply_to != report.sender:
            return ""
        now = self.games.clock()
        if report.outcome in STRANGER_OUTCOMES and not self.games.games_of(report.sender):
            if self.ledger.count(report.sender, now - timedelta(days=1), STRANGER_OUTCOMES) > 0:
                return "a stranger gets one reply a day"
        if report.outcome == "no-commands":
            if self.ledger.count(report.sender, now - timedelta(hours=1), ("no-commands",)) >= NO_COMMAND_ANSWERS:
                return f"at most {NO_COMMAND_ANSWERS} answers an hour to mails without commands"
        return ""

    # ------------------------------------------------------------------ steps

    def _handle(self, msg: Any, report: MailReport, dry_run: bool) -> None:
        if report.sender is None:
            report.outcome = "no-sender"  # nobody to answer
            return
        report.reply_to = report.sender
        if self.moderator and report.sender == self.moderator and not self._over_limit and \
                self._moderator_answer(msg, report):
            return
        if report.text.oversized:
            report.outcome = "oversized"
            self._reply(report, [_wrap(
                f"Your mail is too long for us to read: a mail may have at most {MAX_TEXT_BYTES // 1_000_000} MB and "
                f"{MAX_TEXT_LINES:,} lines of your own text (quoted text does not count), and its text at most "
                f"{MAX_READ_BYTES // 1_000_000} MB ({MAX_HTML_BYTES // 1_000_000} MB as HTML only). Nothing in it "
                "was applied. Please send only your commands (talk is at most 4,000 characters a mail), without "
                "attachments or the quoted board.")])
            return
        named, raw_lines = self._game_lines(report.text.lines)
        info = self._identify(msg, report, named)
        if info is None:
            return
        game_id = info.id
        report.game_id, report.current_decision = game_id, info.state.moves
        report.thread = thread_root(info, self.games.mail_domain)
        answered = self._answered(msg, report, info)
        try:
            report.seat = next(p.seat for p in info.players if p.email == report.sender)
        except StopIteration:
            claimed = [to for gid, to in self.ledger.recipients_of(references(msg))
                       if gid == game_id and to in {p.email for p in info.players}]
            if claimed:
                # An answer to a mail we sent to one seat, from another address: never applied. The seat's own
                # address hears of it in its next digest of refused mail, with the moderator (services.mail_in.refusals).
                owner = claimed[0]
                report.outcome = "impersonation"
                report.seat_email = owner
                self._reply(report, [_wrap(
                    f"A mail answering our mail to {owner} in game {game_id} came from another address, "
                    f"{report.sender}. It was not applied: only mail from {owner} plays that seat; {owner} and the "
                    "moderator hear of it.")])
                return
            report.outcome = "not-a-player"
            self._reply(report, [_wrap(f"You ({report.sender}) do not play in game {game_id}.")] + self._your_games(report))
            return
        sent = self.ledger.sent_to(references(msg), game_id, report.sender or "")
        if (own := self._without_our_text(msg, report, info, sent)) is not None:
            raw_lines = own
        raw_lines, given = _split_secret_lines(raw_lines)
        secret = next(p.secret for p in info.players if p.seat == report.seat)
        if secret and not any(hmac.compare_digest(word.lower().encode(), secret.encode()) for word in given):
            # The From line is easy to forge; the word is not. The seat's own address hears of it in its next
            # digest of refused mail, never once a forged mail (services.mail_in.refusals).
            report.outcome = "wrong-secret" if given else "no-secret"
            report.seat_email = report.sender or ""
            why = "did not have the right one" if given else "did not have it"
            self._reply(report, [_wrap(
                f"Game {game_id} asks for the seat's secret word in every mail, and this mail {why}, so nothing in "
                "it was applied or answered.")])
            return
        vocabulary = get_game(info.kind).VOCABULARY
        readings: list[LineReading] = []
        asked, ignored, away, settings = [], [], [], []
        raw_lines, talks = talk_blocks(raw_lines)
        for line in raw_lines:
            first = line.split()[0].lower().rstrip(":,.")
            if first in INFO_WORDS and len(line.split()) == 1:
                if first not in asked:  # answered once, however often it is asked: no reply grows with the mail
                    asked.append(first)
            elif first == "away":
                away.append(line)
            elif first in SETTINGS and len(line.split()) == 2:
                settings.append(line)
            elif (reading := read_line(line, vocabulary)).commands:
                readings.append(reading)
            else:
                ignored.append(line)  # prose: 'Take care,', 'Pass my regards to Bob'
        if self._over_limit:
            # Over the hourly limit of mails that change nothing: only a move is read (a limit never keeps a
            # player from their turn); talk, settings and questions wait for the next hour.
            asked, away, settings, talks = [], [], [], []
        if not (readings or away or asked or talks or settings):
            readings = self._subject_commands(report, vocabulary, [subject for subject, _ in sent])
        commands = [command for reading in readings for command in reading.commands]
        if len(commands) + len(away) > MAX_COMMANDS:
            report.outcome = "rejected"
            self._reply(report, [_wrap(
                f"Your mail has {len(commands) + len(away)} command lines; one mail may have at most {MAX_COMMANDS}. "
                "Nothing in it was applied. Send the commands of your turn only (several on a line, separated by "
                "';', also work)."), "", *self._answer("legal", info, report)])
            return
        settings = self._last_of_each(report, settings)
        absences = self._absences(report, info, away, commands)
        if absences is not None and not self._settings_ok(report, settings, commands):
            absences = None
        talk = self.talk.plan(report.sender or "", talks) if talks and absences is not None else TalkPlan()
        if settings and not (commands or away or talk.relayed):
            settings = self._settings_in_budget(report, settings)
        if absences is None:
            pass  # refused, and said why: nothing of the mail applies
        elif commands:
            self._apply(report, info, readings, ignored, answered, dry_run,
                        also=[f"{line}: {note}" for line, note in self._talk_notes(info, report, talk, settings)])
        elif away:
            report.outcome = "away"
        elif talk.relayed:
            report.outcome = "talk"
        elif settings:
            report.outcome = "settings"
        elif talks or report.lines:
            report.outcome = "rejected"  # its talk or settings were refused, and nothing else was asked
        elif not asked:
            report.outcome = "no-commands"
        else:
            report.outcome = "info"
        if absences and report.outcome in ("applied", "away"):
            for (line, *_days), note in zip(absences, self._announce(report, absences, dry_run)):
                report.lines.append(LineReport(line, "done", line))
                report.effects.append(note)
        if report.outcome in CHANGES:
            self._mail_settings(report, info, settings, dry_run)
            self._talk(report, info, talk, dry_run)
        else:
            report.lines += [LineReport(first_line(word, texts[0]), "not done", "not reached: nothing of the mail "
                                        "applies" + _more_texts(len(texts)))
                             for word, texts in (("say", talk.say), ("moderator", talk.moderator)) if texts]
        report.lines += [LineReport(refused.line, "not done", f"not relayed: {refused.why}.{_more_texts(refused.texts)}")
                         for refused in talk.refused]
        if asked and report.changed:
            # Answer questions about the game as it is now; in a dry run, as it would be.
            info = self._as_it_would_be(info, report) if dry_run else self.games.get(game_id)
        answers = []
        for word in asked:
            report.lines.append(LineReport(word, "answered"))
            answers += ["", *self._answer(word, info, report)]
        for line in ignored:
            report.lines.append(LineReport(line, "ignored", "not a command"))
        body = self._summary(report, info) + answers
        if report.outcome == "no-commands":
            body += ["", *self._answer("help", info, report)]
        if report.changed:
            # The sender's confirmation (with the new board) goes out with everybody's mail from the service.
            report.reply_subject = f"Re: {game_subject(info)}"
            report.reply_body = "\n".join(body).strip() + "\n"
        else:
            self._reply(report, body)

    def _last_of_each(self, report: MailReport, settings: list[str]) -> list[str]:
        """The mail's last line for each setting: a mail changes a setting once, however many lines it has."""
        last = {line.split()[0].lower(): line for line in settings}
        kept = list(last.values())
        report.lines += [LineReport(line, "ignored", "a later line of the mail sets the same") for line in settings
                         if line not in kept]
        return kept

    def _settings_in_budget(self, report: MailReport, settings: list[str]) -> list[str]:
        """``settings`` when the sender has mails left of SETTINGS_AN_HOUR (mails that change settings and
        nothing else); otherwise none, each refused saying when they may try again."""
        since = self.games.clock() - timedelta(hours=1)
        if self.ledger.count(report.sender or "", since, ("settings",)) < SETTINGS_AN_HOUR:
            return settings
        report.lines += [LineReport(line, "not done", (
            f"not changed: pbem takes at most {SETTINGS_AN_HOUR} mails an hour that change only settings, and "
            "you have sent that many; try again in an hour, or send the line with your next move")) for line in settings]
        return []

    def _without_our_text(self, msg: Any, report: MailReport, info: GameInfo,
                          sent: list[tuple[str, str]]) -> list[str] | None:
        """The player's lines read again without what they pasted back of our mails (``sent``: the mail answered
        and the recent mails to them), wherever it stands; None when nothing of ours was pasted."""
        ours = SentText(text for _, text in sent)
        if not ours or not any(ours.pasted(report.text.body.splitlines())):
            return None  # most mails: nothing of ours unquoted, and the lines read already stand
        vocabulary = get_game(info.kind).VOCABULARY

        def sent_by_players(line: str) -> bool:  # a line a player sends as it is in our mails: an order
            words = line.lower().split()
            return (len(words) == 1 and words[0] in INFO_WORDS) or words[0] in ("game", "away", "secret") or \
                read_line(line, vocabulary).whole

        text = extract_text(msg, pasted=lambda lines: ours.pasted(lines, sent_by_players))
        report.text = text
        return self._game_lines(text.lines)[1]

    def _subject_commands(self, report: MailReport, vocabulary: Vocabulary, ours: list[str]) -> list[LineReading]:
        """The commands of a mail whose body has none, read from its subject: 'Re: [Manhattan #2] your turn ...
        play 5 cairo 1', or a new mail '[Fifth Avenue #3] pass'. A reply whose answered subject we do not know
        is not read: its words may be ours."""
        reading = read_line(own_subject(report.subject, ours), vocabulary)
        return [replace(reading, line=f"{SUBJECT} '{report.subject}'", left=[report.subject])] if reading.commands else []

    def _absences(self, report: MailReport, info: GameInfo, lines: list[str],
                  commands: list[str]) -> list[tuple[str, date, date]] | None:
        """The mail's 'away DATE to DATE' lines, read and checked before anything applies; None after
        refusing the mail for one of them."""
        found = []
        for line in lines:
            try:
                first, last = parse_away(line)
                self.games.absences.check(report.sender or "", first, last, planned=len(found))
            except (ValueError, ServiceError) as exc:
                report.outcome = "rejected"
                why = exc.message if isinstance(exc, ServiceError) else str(exc)
                report.lines += [LineReport(x, "not done", "not reached") for x in commands]
                report.lines.append(LineReport(line, "not done", f"{why} Write it as 'away 2026-12-24 to 2027-01-02' "
                                                                 "(first and last day away, UTC)."))
                return None
            found.append((line, first, last))
        return found

    def _announce(self, report: MailReport, absences: list[tuple[str, date, date]], dry_run: bool) -> list[str]:
        notes = []
        for _line, first, last in absences:
            days = (last - first).days + 1
            if not dry_run:
                self.games.absences.add(report.sender or "", first, last)
            notes.append(f"away from {first:%A %-d %B} to {last:%A %-d %B %Y}: deadlines in that time move "
                         f"{days} day{'s' if days != 1 else ''} later; the other players are told")
        return notes

    def _game_lines(self, lines: list[str]) -> tuple[int | None, list[str]]:
        named, rest = None, []
        for line in lines:
            words = line.split()
            if not words:
                continue
            number = re.fullmatch(r"#?([0-9]{1,30})", words[1]) if len(words) == 2 else None
            if number and words[0].lower() == "game":
                named = int(number.group(1))
            else:
                rest.append(line)
        return named, rest

    def _identify(self, msg: Any, report: MailReport, named: int | None) -> GameInfo | None:
        """The game the mail is for, loaded; None after replying that it cannot be told."""
        candidates = (
            ("game line", lambda: named),
            ("subject", lambda: game_tag(report.subject)),
            ("reply to our mail", lambda: self.ledger.game_of_messages(references(msg))),
        )
        for how, find in candidates:  # in this order, looking no further than needed
            game_id = find()
            if game_id is None:
                continue
            try:
                info = self.games.get(game_id)
            except GameNotFound:
                report.outcome = "unknown-game"
                self._reply(report, [_wrap(f"There is no game {game_id}.")] + self._your_games(report))
                return None
            report.matched_by = how
            return info
        active = [g for g in self.games.games_of(report.sender or "") if g[2] in ("active", "paused")]
        if len(active) == 1:
            report.matched_by = "only active game"
            return self.games.get(active[0][0])
        report.outcome = "unknown-game"
        why = "You play in several games, and your mail does not say which one." if active else \
            "We could not tell which game your mail is for."
        self._reply(report, [_wrap(why)] + self._your_games(report))
        return None

    def _your_games(self, report: MailReport) -> list[str]:
        games = self.games.games_of(report.sender or "")
        if not games:
            return ["", _wrap("You play in no game here. Ask the moderator to add you to one.")]
        lines = ["", "Your games:"] + [f"  #{gid} {title} ({status})" for gid, title, status in games]
        example = games[0][0]
        lines += ["", _wrap(f"Name the game on a line of its own, for example 'game {example}', or reply to a mail "
                            f"of that game (its subject carries [... #{example}]).")]
        return lines

    def _answered(self, msg: Any, report: MailReport, info: GameInfo) -> AskedDecision | None:
        """The decision the mail answers: the one our mail it replies to asked for, else the one a tag in its
        subject or quoted text names. A reply to a mail of ours that asked for nothing (or to another game's
        mail) answers none: its quoted text is that other mail's, not a decision of this game."""
        key, words = get_game(info.kind).decision_context(info.state)
        report.open_now = with_names(info, words)
        replied = self.ledger.asked_in_reply(references(msg))
        if replied is not None:
            answered = replied if replied.game_id == info.id and replied.number is not None else None
        else:
            number = decision(report.subject, report.text.body)
            answered = None if number is None else self.ledger.asked(info.id, number) or AskedDecision(info.id, number)
        if answered is not None:
            report.decision = answered.number
            report.answered = answered.words or f"decision {answered.number}"
        return answered

    def _apply(self, report: MailReport, info: GameInfo, readings: list[LineReading], ignored: list[str],
               answered: AskedDecision | None, dry_run: bool, also: list[str] = ()) -> None:  # type: ignore[assignment]
        """Submit the mail's commands, all or none; ``also``: what the sender's confirmation says of the mail's
        other lines (talk, settings), which are carried out once the commands applied."""
        commands = [command for reading in readings for command in reading.commands]
        read_from = [("" if reading.whole else reading.line) for reading in readings for _ in reading.commands]
        cut = [r.line for r in readings if same_line_attribution(r.line) in report.text.ignored]
        note = list(also) + self._note_for_sender(
            ignored, [(command, line) for command, line in zip(commands, read_from) if line], cut)
        if answered is None:
            note = [f"Your mail did not answer a mail that asked for a decision, so it was applied to the one "
                    f"open: {self._yours(report, info, report.open_now)} (decision {info.state.moves}).", *note]
        try:
            done = self.games.submit(info.id, report.sender or "", "\n".join(commands),
                                     source=f"mail:{report.message_id}" if report.message_id else "mail",
                                     dry_run=dry_run, sender_note=note, inbound=self._inbound, answered=answered)
        except DecisionMoved as exc:
            report.outcome = "stale"
            report.open_now, report.current_decision = exc.now, exc.number
            report.lines.extend(LineReport(command, "not done", "not applied: the decision it answered is over", line)
                                for command, line in zip(commands, read_from))
            return
        except CommandRejected:
            report.outcome = "rejected"
            report.lines.extend(replace(checked, read_from=line) for checked, line
                                in zip(self._check_whole(info, report.seat, commands), read_from))
            return
        except (GameNotActive, PlayerNotInGame) as exc:
            report.outcome = "inactive"
            report.lines.extend(LineReport(command, "not done", exc.message, line) for command, line in zip(commands, read_from))
            return
        report.outcome = "applied"
        report.effects = done.effects
        report.lines.extend(LineReport(command, "done", canonical, line)
                            for command, canonical, line in zip(commands, done.commands, read_from))

    @staticmethod
    def _check_whole(info: GameInfo, seat: int | None, commands: list[str]) -> list[LineReport]:
        """Every command of a refused mail checked, in order, on a scratch copy of the game where the good ones
        apply and the wrong ones are skipped: each wrong line gets its own reason in one reply."""
        scratch = info.state.clone()
        reports = []
        for command in commands:
            try:
                scratch.apply_action(seat, scratch.parse(seat, command))
            except CommandError as exc:
                reports.append(LineReport(command, "not done", with_names(info, exc.message)))
            else:
                reports.append(LineReport(command, "not done", "fine, but a mail applies all its commands or none"))
        return reports

    @staticmethod
    def _yours(report: MailReport, info: GameInfo, words: str) -> str:
        """'Ann's turn' as Ann reads it: 'your turn'."""
        name = next((p.name for p in info.players if p.seat == report.seat), None)
        return f"your{words[len(name) + 2:]}" if name and words.startswith(f"{name}'s") else words

    @staticmethod
    def _as_it_would_be(info: GameInfo, report: MailReport) -> GameInfo:
        """The game after the mail's commands, in memory only (for a dry run's answers)."""
        state = copy.deepcopy(info.state)
        done = [r.note for r in report.lines if r.status == "done"]  # the canonical commands
        for command in done:
            state.apply_command(report.seat, command)
        status = GameStatus.FINISHED if state.is_terminal() else info.status
        return replace(info, state=state, status=status, last_seq=info.last_seq + len(done))

    @staticmethod
    def _note_for_sender(ignored: list[str], taken: list[tuple[str, str]], cut: list[str]) -> list[str]:
        """What the sender's confirmation says of their mail besides the commands: where a command was read from
        a longer line (``taken``: command, line), a command line that followed an 'On ... wrote:' on its line
        (``cut``), and the lines that were not commands."""
        notes = [f"{command} {read_from_words(line)}" for command, line in taken]
        notes += [f"{line} (read from after the 'On ... wrote:' on the same line)" for line in cut]
        if ignored:
            notes += (["Lines of your mail that were not commands (ignored):"] + [f"  {line}" for line in ignored[:MAX_LISTED]]
                      + _and_more(len(ignored)) + [TALK_HINT])
        return notes

    def _settings_ok(self, report: MailReport, settings: list[str], commands: list[str]) -> bool:
        """Whether every 'mail ...' and 'pictures ...' line names a setting; else the mail is refused, saying why."""
        for line in settings:
            try:
                _setting(line)
            except ValueError as exc:
                report.outcome = "rejected"
                report.lines += [LineReport(x, "not done", "not reached") for x in commands]
                report.lines.append(LineReport(line, "not done", f"{exc}: {SETTINGS[line.split()[0].lower()]}."))
                return False
        return True

    def _talk_notes(self, info: GameInfo, report: MailReport, talk: TalkPlan,
                    settings: list[str]) -> list[tuple[str, str]]:
        """(line, what is done with it) for the mail's talk and settings, for the sender's confirmation."""
        others = [p.name for p in info.players if p.seat != report.seat]
        notes = [(first_line("say", talk.say[0]), f"relayed to {listing(others)}{_more_texts(len(talk.say), 'with')}")
                 ] if talk.say else []
        notes += [(first_line("moderator", talk.moderator[0]), f"relayed to the moderator, {self.moderator}"
                   f"{_more_texts(len(talk.moderator), 'with')}")] if talk.moderator else []
        notes += [(refused.line, f"not relayed: {refused.why}.{_more_texts(refused.texts)}") for refused in talk.refused]
        notes += [(line, _setting_words(*_setting(line))) for line in settings]
        return notes

    def _mail_settings(self, report: MailReport, info: GameInfo, settings: list[str], dry_run: bool) -> None:
        for line in settings:
            name, value = _setting(line)
            if not dry_run:
                change = self.games.set_delivery if name == "mail" else self.games.set_pictures
                change(info.id, value, report.sender)
            report.lines.append(LineReport(line, "done", line))
            report.effects.append(_setting_words(name, value))

    def _talk(self, report: MailReport, info: GameInfo, talk: TalkPlan, dry_run: bool) -> None:
        """Relay the mail's talk (after its commands applied): its say texts as one message, its moderator
        texts as another."""
        for word, texts in (("say", talk.say), ("moderator", talk.moderator)):
            if not texts:
                continue
            line = first_line(word, texts[0])
            try:
                if dry_run:
                    note = "would be relayed"
                elif word == "say":
                    note = f"relayed to {plural(self.talk.say(info.id, report.sender or '', texts), 'player')}"
                else:
                    note = f"relayed to the moderator, {self.talk.to_moderator(info.id, report.sender or '', texts)}"
            except ServiceError as exc:
                report.lines.append(LineReport(line, "not done", exc.message))
                continue
            report.lines.append(LineReport(line, "done", line))
            report.effects.append(f"{word}: {note}{_more_texts(len(texts), 'with')}")

    def _moderator_answer(self, msg: Any, report: MailReport) -> bool:
        """A reply of the moderator to a player's word: relayed to that player. False when it is no such reply."""
        relayed = self.ledger.relayed_in_reply(references(msg), self.moderator)
        if relayed is None:
            return False
        game_id, player = relayed
        report.game_id, report.outcome = game_id, "talk"
        text = "\n".join(report.text.lines)
        try:
            self.talk.tell(game_id, text, player)
        except ServiceError as exc:
            self._reply(report, [_wrap(f"Your answer could not be relayed to {player}: {exc.message}")])
            return True
        report.lines.append(LineReport("(your answer)", "done"))
        self._reply(report, [_wrap(f"Your answer was relayed to {player} in game {game_id}.")])
        return True

    # ------------------------------------------------------------------ the reply

    def _summary(self, report: MailReport, info: GameInfo) -> list[str]:
        lines: list[str] = []
        if report.outcome == "stale":
            lines += [_wrap(f"Your mail answered {self._yours(report, info, report.answered)} (decision "
                            f"{report.decision}), which is over: the game now waits for "
                            f"{self._yours(report, info, report.open_now)} (decision {report.current_decision}). "
                            "Nothing of your mail was applied. The game as it stands is below; answer this mail "
                            "to play now."), ""]
        elif report.outcome == "rejected":
            wrong = sum(1 for r in report.lines if r.status == "not done" and not r.note.startswith("fine,"))
            lines += [_wrap(f"Nothing of your mail was applied: {'one line was' if wrong == 1 else f'{wrong} lines were'} "
                            "refused, and a mail applies all of its commands or none. Each line was checked as "
                            "if the good ones before it had been applied."), ""]
        elif report.outcome == "inactive":
            lines += [_wrap(f"Game {info.id} is {info.status}: no commands are accepted now."), ""]
        done = [r for r in report.lines if r.status == "done"]
        not_done = [r for r in report.lines if r.status == "not done"]
        if done:
            lines.append("Done:")
            for r in done:
                lines += self._line_as_read(r)
            lines += [_wrap(effect, "    - ") for effect in report.effects]
        if not_done:
            lines.append("Not done:")
            for r in not_done:
                lines += self._line_as_read(r) + [_wrap(r.note, "      ")]
        ignored = [r for r in report.lines if r.status == "ignored"] + [
            LineReport(x, "ignored") for x in report.text.ignored]
        if ignored:
            lines.append("Ignored:")
            lines += [_wrap(r.line, "  ") for r in ignored[:MAX_LISTED]] + _and_more(len(ignored))
            if any(r.status == "ignored" for r in report.lines):
                lines.append(_wrap(TALK_HINT))
        if report.outcome in ("stale", "rejected") and report.seat == info.state.current_player():
            lines += ["", *self._answer("legal", info, report)]
        if report.outcome == "stale":
            lines += ["", *self._answer("board", info, report)]  # the situation now, not the one answered
        return lines

    @staticmethod
    def _line_as_read(r: LineReport) -> list[str]:
        """A command of the mail, and under it where it was read when that was not a whole line of its own."""
        return [_wrap(r.line, "  ")] + ([_wrap(r.read_from_words(), "      ")] if r.read_from else [])

    def _reply(self, report: MailReport, body: list[str]) -> None:
        base = report.subject if report.subject.lower().startswith("re:") else f"Re: {report.subject}".strip()
        if report.game_id is not None:  # the game's one subject: its mails stay in one conversation
            base = f"Re: {game_subject(self.games.get(report.game_id))}"
        report.reply_subject = base if base != "Re:" else "Re: your mail"
        report.reply_body = "\n".join(body).strip() + "\n"

    def _answer(self, word: str, info: GameInfo, report: MailReport) -> list[str]:
        seat = report.seat
        state = info.state
        names = [p.name for p in sorted(info.players, key=lambda p: p.seat)]
        to_act = None if state.is_terminal() else state.current_player()
        if word == "board":
            return ["Board:", render.board(info.kind, state.view(seat), players=names).rstrip()]
        if word == "hand":
            return [_wrap(f"Your hand: {get_game(info.kind).hand_text(state.view(seat))}.")]
        if word == "legal":
            if to_act is None:
                return ["The game is over."]
            if to_act != seat:
                return [_wrap(f"It is not your turn: waiting for {names[to_act]}.")]
            shapes = get_game(info.kind).legal_shapes(state)
            return ["You may send now (<a|b> means a or b):"] + [_wrap(shape, "  ") for shape in shapes]
        if word == "history":
            entries = [h for h in self.games.history(info.id) if h.kind == "command"][-HISTORY_LINES:]
            page = [_wrap(f"Every move, with the board after it: {info.page}")] if info.page else []
            return ["The last commands:"] + [
                _wrap(f"#{h.seq} {names[h.seat]}: {h.data.get('command', h.text)}", "  ") for h in entries] + page
        return mail_help(info, seat, moderator=self.moderator)
