"""A signup mail (docs/signup.md): whether a mail is one, and its lines applied through the signup service
(services.table.signup) with the reply that says what was done, what was not (the line, why, what to send
instead) and what was ignored.

A mail is a signup mail when a line of it is a signup command (``games``, ``new ...``, ``join 3``, ``confirm
CODE``, ...) or its subject carries the code of our confirmation mail, and none of its lines is a move of a
game: a player's game mail with prose like "start thinking" stays a game mail. A stranger's line that starts
like a signup command but cannot be read is answered as one. All the mail's signup lines apply or none; a
mail that changed something is recorded with its reply and its changes in one transaction.

An answer to our code mail confirms only with a line of the sender's own: ``yes`` (or ``confirm CODE``). The
code in the subject alone confirms nothing, so an auto-responder that answers with our mail quoted, or with
text of its own, never confirms a forged request. A mail that asked for a code is answered by the code's mail
alone. No answer carries more of the sender's text than a few lines' starts (``QUOTED`` characters each), and
none is longer than ``MAX_ANSWER`` characters, whatever came in.
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
from ...words import cut, plural
from .lines import MAX_WORDS_READ
from .reply import MAX_LISTED, and_more
from .report import LineReport, MailReport

SIGNUP_CHANGED = "signup"  # a signup mail that changed something (a request, a seat, a table, a watcher)
SIGNUP_INFO = "signup-info"  # a signup mail that only asked ('games')
SIGNUP_REFUSED = "signup-refused"  # one of its lines could not apply: nothing did
MAX_LINES = 20  # signup lines one mail may have; a longer mail is refused whole
MAX_ANSWER = 4000  # characters of a signup answer's text at most (the 'games' listing is about 2,000)
YES = ("yes", "confirm")  # a line of the sender's own that confirms the code in the subject


def wrap(text: str, indent: str = "") -> str:
    """``text`` at 72 columns, never broken inside a word (``signup_words.unbroken``)."""
    return "\n".join(unbroken(text, indent, indent + "  "))


def is_move(line: str) -> bool:
    """Whether ``line`` holds a move of any game pbem hosts (reading stops at the first command found)."""
    return any(read_line(line, get_game(name).VOCABULARY, most=1).commands for name in game_names())


def holds_a_move(lines: list[str]) -> bool:
    """Whether any of ``lines`` is a move, read up to MAX_WORDS_READ words in all, as a game's mail is, each line
    read once for each game (issue 41: 'games' above a line of 330,000 'A,' read that line whole for each game, 1.7
    s of CPU)."""
    games = len(game_names())
    words = 0
    for line in lines:
        words += len(line.split()) * games
        if words > MAX_WORDS_READ:
            return False
        if is_move(line):
            return True
    return False


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
            yes = [line for line in rest if line.strip().rstrip(".!").lower() in YES]
            if yes:
                rest.remove(yes[0])
                valid.append(SignupLine(f"{yes[0].strip()} (the code in the subject)", "confirm", code=code))
                found.append(valid[-1])
            else:
                unsaid = SignupLineError("the code is in the subject, but no line of yours says yes",
                                         "yes, on a line of its own above the quoted mail")
                unsaid.line = "(the code in the subject)"  # type: ignore[attr-defined]
                found.append(unsaid)
        if not valid and not (found and (code or stranger())):
            return None
        if holds_a_move(rest):
            return None  # a game's mail: its signup-like lines are its prose
        return found, rest

    def handle(self, report: MailReport, found: list[SignupLine | SignupLineError], rest: list[str],
               secrets: list[str], *, dry_run: bool, inbound: InboundMail | None, over_limit: str,
               in_reply_to: str | None, replied: bool = False) -> None:
        """Apply the signup lines and write the reply into ``report``; a mail that changed something is stored
        with its reply here (``inbound`` and the reply in the change's transaction)."""
        email = report.sender or ""
        if over_limit:
            # Over the hourly limit of mails that change nothing, a code that comes back is still read, as a move
            # is: forged mails in a newcomer's name must not lock out their confirmation. Nothing else is.
            found = [x for x in found if isinstance(x, SignupLine) and x.action == "confirm"][:1]
            if not found:
                report.outcome = SIGNUP_INFO  # recorded, not answered (mail_commands)
                return
            rest = []
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
                inbound.to_stranger = done.stranger
                rows.append(inbound)
            if done.code_mail is not None:  # the code's mail is the answer: one mail, not two
                done.code_mail.text_body += "\n" + self._what_else(report)
            elif report.reply_to and report.reply_body:
                rows.append(self.ledger.reply_mail(report.reply_to, report.reply_subject or "", report.reply_body,
                                                   in_reply_to=in_reply_to))
            report.reply_to = None  # answered here, with the change: mail_commands queues nothing more
            return rows

        try:
            result = self.signup.apply(email, lines, secrets=secrets, replied=replied, dry_run=dry_run, also=also)
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
    def _what_else(report: MailReport) -> str:
        """What the code's mail says of the mail it answers, after the code: each line's outcome. Every line is
        quoted ('...'), so that no line of the code's mail, sent back whole, reads as a command."""
        lines = ["Your mail, line by line:"]
        lines += [wrap(f"'{cut(r.line)}': {r.note or r.status}", "  ") for r in report.lines
                  if r.status != "ignored"]
        ignored = sum(r.status == "ignored" for r in report.lines)
        if ignored:
            lines.append(f"  and {ignored} lines that are no commands (ignored)")
        return "\n".join(lines) + "\n"

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
                body += [wrap(cut(r.line), "  "), wrap(r.note, "      ")]
        if not_done:
            body.append("Not done:")
            for r in not_done:
                body += [wrap(cut(r.line), "  "), wrap(r.note, "      ")]
        if body:  # the first line a client shows says what became of the mail, as a sentence, not "Done:"
            first = done[0].note if done else "nothing of your mail was done; why is below"
            more = f" ({plural(len(done) - 1, 'more line')} done too.)" if len(done) > 1 else ""
            body = [wrap(f"{first[0].upper()}{first[1:].rstrip('.')}.{more}"), ""] + body
        if report.outcome != SIGNUP_REFUSED and answers:
            body += ([""] if body else []) + answers
        if ignored:
            body += ["", "Ignored (not commands):"] + [wrap(cut(r.line), "  ") for r in ignored[:MAX_LISTED]] \
                + and_more(len(ignored))
        if any(r.status == "answered" for r in report.lines):  # 'games': and what one may do with them
            body += ["", *signup_lines()]
        elif not answers or report.outcome == SIGNUP_REFUSED:
            body += ["", wrap("Send 'games' for the open tables, the running games and what you may send.")]
        base = report.subject if report.subject.lower().startswith("re:") else f"Re: {report.subject}".strip()
        report.reply_subject = base if base != "Re:" else "Re: your mail"
        text = "\n".join(body).strip() + "\n"
        if len(text) > MAX_ANSWER:  # a last guard: every part above is bounded, and together they stay below it
            text = text[: MAX_ANSWER - 40].rsplit("\n", 1)[0] + "\n(the rest of this answer is left out)\n"
        report.reply_body = text


__all__ = ["MAX_ANSWER", "SIGNUP_CHANGED", "SIGNUP_INFO", "SIGNUP_REFUSED", "SignupMail", "is_move"]
