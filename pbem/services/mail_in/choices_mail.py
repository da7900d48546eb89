"""The answer to a line ``choices <words>`` (issue 44, point 1): a mail to the asking seat only, listing every
legal command of that group (``services.mail_out.taps.choices``) as a link that answers the decision asked.

A game mail's "More" link opens such a line with the ``ref`` line of the decision mail; the answer's links carry
that same ``ref`` line, so the second tap (and Send) answers exactly that decision and proves the seat as any link
does. The mail records that decision as a decision mail does, so a typed Reply to it answers that decision too,
never a later one (issue 44, point 2). Typed, the line works too: the text part lists the commands. Asking changes
nothing in the game; it is answered only while the decision it names is open and is the asker's own (else the plain
answer a stale reply gets), at most ``limits.CHOICES_AN_HOUR`` times an hour to an address and for one line a mail
(the rest are listed as not answered), and it holds only the reader's own commands.
"""

from __future__ import annotations

from dataclasses import dataclass
from datetime import timedelta

from ...limits import CHOICES_AN_HOUR
from ...mail.mailto import ref_token
from ...render.mail import choices_html
from ...words import cut, plural
from ..common.game_info import GameInfo
from ..common.ledger import AskedDecision, MailLedger
from ..mail_out.notices import asked_decision, game_subject, subject_tag
from ..mail_out.taps import Group, choice_links, choices, groups
from ..table.service import GameService
from .report import LineReport, MailReport
from .reply import wrap, yours

CHOICES = "choices"  # the outcome of a mail answered with a mail of choices (counted for the hourly limit)


@dataclass
class ChoicesAnswer:
    text: list[str]
    html: str | None = None  # the HTML part with the links, when there is a list
    # The decision the list is for, stored with the mail as a decision mail stores its own: a typed Reply to the
    # list then answers that decision only, never a later one (issue 44, point 2).
    asked: AskedDecision | None = None


class Choices:
    def __init__(self, games: GameService, ledger: MailLedger) -> None:
        self.games = games
        self.ledger = ledger

    def answer(self, report: MailReport, info: GameInfo, lines: list[str], linked: list[str]) -> ChoicesAnswer:
        """The answer to the mail's ``choices`` lines (the first is answered), ``linked``: the Message-IDs the mail
        answers, its link's first. Sets the report's outcome: CHOICES when a list is sent."""
        line, rest = lines[0], lines[1:]
        report.lines += [LineReport(other, "not done", "not answered: one list of choices a mail") for other in rest]
        state = info.state
        if state.is_terminal():
            return self._refused(report, line, "the game is over", ["The game is over."])
        if report.decision is not None and report.decision != state.moves:
            # A 'More' link of a decision that is over: like a stale reply, nothing to choose from any more.
            report.lines.append(LineReport(line, "not done", "not answered: the decision it asked about is over"))
            report.outcome = "stale"
            return ChoicesAnswer([])
        if state.current_player() != report.seat:
            return self._refused(report, line, "it is not your turn",
                                 [wrap(f"It is not your turn: waiting for {yours(report, info, report.open_now)}.")])
        since = self.games.clock() - timedelta(hours=1)
        if self.ledger.count(report.sender or "", since, (CHOICES,)) >= CHOICES_AN_HOUR:
            return self._refused(report, line, f"at most {CHOICES_AN_HOUR} lists of choices an hour", [wrap(
                f"You asked for more than {CHOICES_AN_HOUR} lists of choices within an hour: this one is not sent. "
                "Every command you may send is in the mail that asked you, under 'What you may send now'.")])
        legal = state.legal_commands()
        group = choices(legal, line)
        if group is None:
            firsts = list(dict.fromkeys(" ".join(g.words) for g in groups(legal)))
            return self._refused(report, line, "no command you may send now begins so", [wrap(
                f"No command you may send now begins with '{cut(' '.join(line.split()[1:]))}'. Ask for one of: "
                + ", ".join(f"'choices {words}'" for words in firsts) + ".")])
        number = state.moves
        token = self._token(info, number, linked)
        secret = next((p.secret for p in info.players if p.seat == report.seat), "") if not token else ""
        links = choice_links(group, subject_tag(info), number, token, secret)
        report.lines.append(LineReport(line, "answered"))
        report.outcome = CHOICES
        answer = list_mail(game_subject(info), yours(report, info, report.open_now), number, group, links)
        answer.asked = asked_decision(info, number)  # as the decision mail's row records it
        return answer

    def _token(self, info: GameInfo, number: int, linked: list[str]) -> str:
        """The token of the mail of ours that asked this decision and that the mail answers ("" for none): a
        link's ``ref`` line comes first in ``linked``, then a Reply's parent; a query each, so only the first few."""
        for message_id in linked[:3]:
            asked = self.ledger.asked_in_reply([message_id])
            if asked is not None and asked.game_id == info.id and asked.number == number and ref_token(message_id):
                return ref_token(message_id)
        return ""

    @staticmethod
    def _refused(report: MailReport, line: str, why: str, text: list[str]) -> ChoicesAnswer:
        report.lines.append(LineReport(line, "not done", f"not answered: {why}"))
        return ChoicesAnswer(text)


def list_mail(subject: str, decision: str, number: int, group: Group, links: list[dict[str, str]]) -> ChoicesAnswer:
    """The text and the HTML part of the mail of choices that lists ``group``'s ``links`` for ``decision`` (in
    words) of number ``number``, in the game of ``subject``."""
    what = " ".join(group.words)
    part = f", part {group.part} of {group.parts}" if group.parts > 1 else ""
    head = (f"Your choices for {decision} (decision {number}): {plural(len(links), 'command')}"
            + (f" beginning '{what}'" if what else "") + f"{part}.")
    text = [wrap(head), "", *(f"  {command}" for command in group.commands), "",
            wrap("Tap one in the HTML part of this mail, then Send: it answers that decision. Or reply to this "
                 "mail, or to the mail that asked you, with the command.")]
    if group.parts > 1:
        text.append(wrap(f"The other parts: 'choices {what} #N', N from 1 to {group.parts}."))
    return ChoicesAnswer(text, choices_html(subject, head, links))


__all__ = ["CHOICES", "Choices", "ChoicesAnswer", "list_mail"]
