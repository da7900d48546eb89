"""A signup mail (docs/signup.md): whether a mail is one, and its lines applied through the signup service
(services.table.signup) with the reply that says what was done, what was not (the line, why, what to send
instead) and what was ignored.

A mail is a signup mail when a line of it is a signup command (``games``, ``new ...``, ``join 3``, ``confirm
CODE``, ...) or its subject carries the code of our confirmation mail, and none of its lines is a move of a
game: a player's game mail with prose like "start thinking" stays a game mail. A stranger's line that starts
like a signup command but cannot be read is answered as one. All the mail's signup lines apply or none; a
mail that changed something is recorded with its reply and its changes in one transaction.
"""

from __future__ import annotations

from typing import Callable

from ...games import get_game, names as game_names
from ...mail.commands import read_line
from ...store.models import InboundMail
from ..common.ledger import MailLedger
from ..mail_out.help_text import signup_lines
from ..table.signup import Signup, SignupRefused, SignupResult
from ..table.signup_words import SignupLine, SignupLineError, code_in, read_signup_line, unbroken
from .reply import MAX_LISTED, and_more
from .report import LineReport, MailReport

SIGNUP_CHANGED = "signup"  # a signup mail that changed something (a request, a seat, a table, a watcher)
SIGNUP_INFO = "signup-info"  # a signup mail that only asked ('games')
SIGNUP_REFUSED = "signup-refused"  # one of its lines could not apply: nothing did
MAX_LINES = 20  # signup lines one mail may have; a longer mail is refused whole


def wrap(text: str, indent: str = "") -> str:
    """``text`` at 72 columns, never broken inside a word (``signup_words.unbroken``)."""
    return "\n".join(unbroken(text, indent, indent + "  "))


def is_move(line: str) -> bool:
    """Whether ``line`` holds a move of any game pbem hosts."""
    return any(read_line(line, get_game(name).VOCABULARY).commands for name in game_names())


class SignupMail:
    def __init__(self, signup: Signup, ledger: MailLedger) -> None:
        self.signup = signup
        self.ledger = ledger

    def read(self, lines: list[str], subject: str, stranger: Callable[[], bool]) -> tuple[
            list[SignupLine | SignupLineError], list[str]] | None:
        """The mail's signup lines (each read, or why it cannot be) and its other lines, when it is a signup
        mail; None when it is not. ``stranger()``: whether the sender plays in no game (asked only when the
        mail's only signup-like lines cannot be read)."""
        found: list[SignupLine | SignupLineError] = []
        rest: list[str] = []
        for line in lines:
            try:
                read = read_signup_line(line)
            except SignupLineError as exc:
                exc.line = line.strip()  # type: ignore[attr-defined]
                read = exc
            if read is None:
                rest.append(line)
            else:
                found.append(read)
        valid = [x for x in found if isinstance(x, SignupLine)]
        code = code_in(subject)
        if code and not any(x.action == "confirm" for x in valid):
            valid.append(SignupLine(f"(the code in the subject) confirm {code}", "confirm", code=code))
            found.append(valid[-1])
        if not valid and not (found and stranger()):
            return None
        if any(is_move(line) for line in rest):
            return None  # a game's mail: its signup-like lines are its prose
        return found, rest

    def handle(self, report: MailReport, found: list[SignupLine | SignupLineError], rest: list[str],
               secrets: list[str], *, dry_run: bool, inbound: InboundMail | None, over_limit: str,
               in_reply_to: str | None) -> None:
        """Apply the signup lines and write the reply into ``report``; a mail that changed something is stored
        with its reply here (``inbound`` and the reply in the change's transaction)."""
        email = report.sender or ""
        if over_limit:
            report.outcome = SIGNUP_INFO  # recorded, not answered (mail_commands)
            return
        ignored = [LineReport(line, "ignored", "not a command") for line in rest]
        if len(found) > MAX_LINES:
            report.outcome = SIGNUP_REFUSED
            report.lines = ignored
            self._reply(report, [wrap(f"Your mail has {len(found)} signup lines; one mail may have at most "
                                      f"{MAX_LINES}. Nothing in it was applied.")])
            return
        bad = [x for x in found if isinstance(x, SignupLineError)]
        if bad:
            first = bad[0]
            report.outcome = SIGNUP_REFUSED
            report.lines += [LineReport(getattr(first, "line", ""), "not done",
                                        f"{first.why}; send for example '{first.instead}'")]
            report.lines += [LineReport(x.line if isinstance(x, SignupLine) else getattr(x, "line", ""), "not done",
                                        "not reached: nothing of the mail applies") for x in found if x is not first]
            report.lines += ignored
            self._reply(report, [])
            return
        lines = [x for x in found if isinstance(x, SignupLine)]
        result = SignupResult()

        def also(done: SignupResult, session: object) -> list[object]:
            if not done.changed:
                return []
            report.outcome = SIGNUP_CHANGED
            self._lines(report, done, lines, ignored)
            self._reply(report, done.answers)
            rows: list[object] = []
            if inbound is not None:
                inbound.outcome, inbound.sender, inbound.reason = SIGNUP_CHANGED, email, ""
                rows.append(inbound)
            if report.reply_to and report.reply_body:
                rows.append(self.ledger.reply_mail(report.reply_to, report.reply_subject or "", report.reply_body,
                                                   in_reply_to=in_reply_to))
            return rows

        try:
            result = self.signup.apply(email, lines, secrets=secrets, dry_run=dry_run, also=also)
        except SignupRefused as exc:
            report.outcome = SIGNUP_REFUSED
            report.lines = [LineReport(x.line, "not done", f"{exc.why}" + (f"; instead: {exc.instead}" if exc.instead
                                                                          else "") if x.line == exc.line else
                                       "not applied: a mail's lines apply all or none") for x in lines]
            report.lines += ignored
            self._reply(report, [wrap("Nothing of your mail was applied: one line was refused, and a mail applies "
                                      "all its lines or none.")])
            return
        if not result.changed:
            report.outcome = SIGNUP_INFO
            self._lines(report, result, lines, ignored)
            self._reply(report, result.answers)

    @staticmethod
    def _lines(report: MailReport, result: SignupResult, lines: list[SignupLine], ignored: list[LineReport]) -> None:
        notes = dict(result.done)
        report.lines = [LineReport(x.line, "answered") if x.action == "games" else
                        LineReport(x.line, "done", notes.get(x.line, "")) for x in lines] + ignored

    @staticmethod
    def _reply(report: MailReport, answers: list[str]) -> None:
        body: list[str] = []
        if report.outcome == SIGNUP_REFUSED and answers:
            body += answers + [""]
        done = [r for r in report.lines if r.status == "done"]
        not_done = [r for r in report.lines if r.status == "not done"]
        ignored = [r for r in report.lines if r.status == "ignored"]
        if done:
            body.append("Done:")
            for r in done:
                body += [wrap(r.line, "  "), wrap(r.note, "      ")]
        if not_done:
            body.append("Not done:")
            for r in not_done:
                body += [wrap(r.line, "  "), wrap(r.note, "      ")]
        if report.outcome != SIGNUP_REFUSED and answers:
            body += ([""] if body else []) + answers
        if ignored:
            body += ["", "Ignored (not commands):"] + [wrap(r.line, "  ") for r in ignored[:MAX_LISTED]] + \
                and_more(len(ignored))
        if any(r.status == "answered" for r in report.lines):  # 'games': and what one may do with them
            body += ["", *signup_lines()]
        elif not answers or report.outcome == SIGNUP_REFUSED:
            body += ["", wrap("Send 'games' for the open tables, the running games and what you may send.")]
        base = report.subject if report.subject.lower().startswith("re:") else f"Re: {report.subject}".strip()
        report.reply_subject = base if base != "Re:" else "Re: your mail"
        report.reply_body = "\n".join(body).strip() + "\n"


__all__ = ["SIGNUP_CHANGED", "SIGNUP_INFO", "SIGNUP_REFUSED", "SignupMail", "is_move"]
