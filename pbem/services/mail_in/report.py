"""What became of one player's mail: each of its lines and the outcome, which every step of ``mail_commands``
writes into and ``pbem mail explain`` prints."""

from __future__ import annotations

from dataclasses import asdict, dataclass, field
from typing import Any

from ...mail.text import MailText
from ..common.ledger import AskedDecision

SUBJECT = "the subject"  # where a command was read when the body had none


@dataclass
class LineReport:
    line: str
    status: str  # done, not done, answered, ignored, courtesy (a greeting or sign-off: not in the reply)
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
    # no-secret, wrong-secret, inactive, oversized, no-sender; choices (a list of commands sent: choices_mail);
    # signup, signup-info, signup-refused (signup_mail)
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
    reply_html: str | None = None  # an HTML part of the reply: a mail of choices' links (services.mail_in.choices_mail)
    reply_asked: AskedDecision | None = None  # the decision the reply is a list of choices for, stored with it
    not_answered: str = ""  # why the mail gets no reply of its own (a stranger's second mail today, ...)
    thread: str = ""  # the game's thread root: the reply's References start with it
    seat_email: str = ""  # a mail refused for want of proof: the seat it spoke for, told in a digest
    linked: list[str] = field(default_factory=list)  # Message-IDs its 'ref' lines name: a mail sent from a link
    by_link: bool = False  # the decision answered is the one of the mail whose link it came from (exactly that one)

    @property
    def changed(self) -> bool:
        return self.outcome in ("applied", "signup")  # signup: services.mail_in.signup_mail

    def to_dict(self) -> dict[str, Any]:
        data = asdict(self)
        data["text"] = {"body_type": self.text.body_type, "lines": self.text.lines, "ignored": self.text.ignored,
                        "oversized": self.text.oversized}
        data["changed"] = self.changed
        return data


__all__ = ["SUBJECT", "LineReport", "MailReport", "read_from_words"]
