"""Applying what a player's mail asks for, through the game service: its commands all at once (every command
applies or none does), its absences, settings and talk once they did, and the moderator's answers to a
player's word. Each line's outcome goes into the mail's report."""

from __future__ import annotations

import copy
from dataclasses import replace
from datetime import date, timedelta
from typing import Any

from ...games.errors import CommandError, IllegalCommandError
from ...mail.commands import LineReading
from ...mail.text import same_line_attribution
from ...store.models import GameStatus, InboundMail
from ...words import plural
from ..common.errors import CommandRejected, DecisionMoved, GameNotActive, PlayerNotInGame, ServiceError
from ..common.game_info import GameInfo
from ..common.input_checks import contradicted, contradiction, set_ended
from ..common.ledger import AskedDecision, MailLedger
from ..mail_out.delivery import has_auctions
from ..mail_out.notices import with_names
from ..table.service import GameService
from ..table.table_talk import TableTalk, TalkPlan, first_line
from ...mail.message import references
from .lines import SETTINGS, parse_away, setting
from .report import LineReport, MailReport
from .reply import Replies, more_texts, note_for_sender, setting_words, wrap, yours

SETTINGS_AN_HOUR = 10  # mails a player may send an hour that change only settings (each gets a reply)


class MailApplier:
    """Carries out mail on the games of ``games``; ``talk`` relays what players say."""

    def __init__(self, games: GameService, ledger: MailLedger, talk: TableTalk, replies: Replies, *,
                 moderator: str = "") -> None:
        self.games = games
        self.ledger = ledger
        self.talk = talk
        self.replies = replies
        self.moderator = moderator

    def apply(self, report: MailReport, info: GameInfo, readings: list[LineReading], ignored: list[str],
              answered: AskedDecision | None, dry_run: bool, also: list[str] = (),  # type: ignore[assignment]
              inbound: InboundMail | None = None) -> None:
        """Submit the mail's commands, all or none; ``also``: what the sender's confirmation says of the mail's
        other lines (talk, settings), which are carried out once the commands applied. ``inbound``, the worker's
        record of the mail, is stored with the change."""
        commands = [command for reading in readings for command in reading.commands]
        read_from = [("" if reading.whole else reading.line) for reading in readings for _ in reading.commands]
        cut = [r.line for r in readings if same_line_attribution(r.line) in report.text.ignored]
        note = list(also) + note_for_sender(
            ignored, [(command, line) for command, line in zip(commands, read_from) if line], cut)
        if answered is None:
            note = [f"Your mail did not answer a mail that asked for a decision, so it was applied to the one "
                    f"open: {yours(report, info, report.open_now)} (decision {info.state.moves}).", *note]
        try:
            done = self.games.submit(info.id, report.sender or "", "\n".join(commands),
                                     source=f"mail:{report.message_id}" if report.message_id else "mail",
                                     dry_run=dry_run, sender_note=note, inbound=inbound, answered=answered,
                                     # a link answers exactly the decision it was made for, never a later one
                                     decision=answered.number if report.by_link and answered is not None else None)
        except DecisionMoved as exc:
            report.outcome = "stale"
            report.open_now, report.current_decision = exc.now, exc.number
            report.lines.extend(LineReport(command, "not done", "not applied: the decision it answered is over", line)
                                for command, line in zip(commands, read_from))
            return
        except CommandRejected:
            report.outcome = "rejected"
            report.lines.extend(replace(checked, read_from=line) for checked, line
                                in zip(self.check_whole(info, report.seat, commands), read_from))
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
    def check_whole(info: GameInfo, seat: int | None, commands: list[str]) -> list[LineReport]:
        """Every command of a refused mail checked, in order, on a scratch copy of the game where the good ones
        apply and the wrong ones are skipped: each wrong line gets its own reason in one reply."""
        scratch = info.state.clone()
        reports: list[LineReport] = []
        ordered: dict[Any, int] = {}
        for number, command in enumerate(commands, start=1):
            try:
                action = scratch.parse(seat, command)
                earlier = contradicted(action, ordered, number, scratch)
                if earlier is not None:
                    raise IllegalCommandError(contradiction(command, earlier, commands[earlier - 1]), [])
                set_ended(scratch.apply_action(seat, action), ordered)
            except CommandError as exc:
                reports.append(LineReport(command, "not done", with_names(info, exc.message)))
            else:
                reports.append(LineReport(command, "not done", "fine, but a mail applies all its commands or none"))
        return reports

    @staticmethod
    def as_it_would_be(info: GameInfo, report: MailReport) -> GameInfo:
        """The game after the mail's commands, in memory only (for a dry run's answers)."""
        state = copy.deepcopy(info.state)
        done = [r.note for r in report.lines if r.status == "done"]  # the canonical commands
        for command in done:
            state.apply_command(report.seat, command)
        status = GameStatus.FINISHED if state.is_terminal() else info.status
        return replace(info, state=state, status=status, last_seq=info.last_seq + len(done))

    # ------------------------------------------------------------------ absences

    def absences(self, report: MailReport, lines: list[str], commands: list[str]) -> list[tuple[str, date, date]] | None:
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

    def announce(self, report: MailReport, absences: list[tuple[str, date, date]], dry_run: bool) -> list[str]:
        notes = []
        for _line, first, last in absences:
            days = (last - first).days + 1
            if not dry_run:
                self.games.absences.add(report.sender or "", first, last)
            notes.append(f"away from {first:%A %-d %B} to {last:%A %-d %B %Y}: deadlines in that time move "
                         f"{days} day{'s' if days != 1 else ''} later; the other players are told")
        return notes

    # ------------------------------------------------------------------ settings

    @staticmethod
    def last_of_each(report: MailReport, settings: list[str]) -> list[str]:
        """The mail's last line for each setting: a mail changes a setting once, however many lines it has."""
        last = {line.split()[0].lower(): line for line in settings}
        kept = list(last.values())
        report.lines += [LineReport(line, "ignored", "a later line of the mail sets the same") for line in settings
                         if line not in kept]
        return kept

    @staticmethod
    def settings_ok(report: MailReport, settings: list[str], commands: list[str]) -> bool:
        """Whether every 'mail ...' and 'pictures ...' line names a setting; else the mail is refused, saying why."""
        for line in settings:
            try:
                setting(line)
            except ValueError as exc:
                report.outcome = "rejected"
                report.lines += [LineReport(x, "not done", "not reached") for x in commands]
                report.lines.append(LineReport(line, "not done", f"{exc}: {SETTINGS[line.split()[0].lower()]}."))
                return False
        return True

    def settings_in_budget(self, report: MailReport, settings: list[str]) -> list[str]:
        """``settings`` when the sender has mails left of SETTINGS_AN_HOUR (mails that change settings and
        nothing else); otherwise none, each refused saying when they may try again."""
        since = self.games.clock() - timedelta(hours=1)
        if self.ledger.count(report.sender or "", since, ("settings",)) < SETTINGS_AN_HOUR:
            return settings
        report.lines += [LineReport(line, "not done", (
            f"not changed: pbem takes at most {SETTINGS_AN_HOUR} mails an hour that change only settings, and "
            "you have sent that many; try again in an hour, or send the line with your next move")) for line in settings]
        return []

    def mail_settings(self, report: MailReport, info: GameInfo, settings: list[str], dry_run: bool) -> None:
        for line in settings:
            name, value = setting(line)
            if not dry_run:
                change = self.games.set_delivery if name == "mail" else self.games.set_pictures
                change(info.id, value, report.sender)
            report.lines.append(LineReport(line, "done", line))
            report.effects.append(setting_words(name, value, auctions=has_auctions(info.kind)))

    # ------------------------------------------------------------------ talk

    def relay_talk(self, report: MailReport, info: GameInfo, talk: TalkPlan, dry_run: bool) -> None:
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
            report.effects.append(f"{word}: {note}{more_texts(len(texts), 'with')}")

    def moderator_answer(self, msg: object, report: MailReport) -> bool:
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
            self.replies.reply(report, [wrap(f"Your answer could not be relayed to {player}: {exc.message}")])
            return True
        report.lines.append(LineReport("(your answer)", "done"))
        self.replies.reply(report, [wrap(f"Your answer was relayed to {player} in game {game_id}.")])
        return True


__all__ = ["SETTINGS_AN_HOUR", "MailApplier"]
