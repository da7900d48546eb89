"""Whether a mail must be ignored: recorded, never processed, never answered.

The mail worker asks before it reads any command (``MailWorker``), and ``pbem mail explain`` asks the same
question the same way, so what it shows is what the worker does: automatic mail (auto-replies, bounces,
lists, our own) and a sender over the rate limit get no reply, whatever they say.
"""

from __future__ import annotations

from dataclasses import dataclass
from datetime import timedelta
from email.message import EmailMessage
from typing import Any

from ...config import SignupConfig
from ...mail.message import automatic_reason, message_id, sender, subject
from ...mail.text import extract_text, read_message
from ..table.service import GameService
from ..common.ledger import MailLedger
from .mail_commands import CHANGES, MailCommands
from .report import MailReport
from .refusals import REFUSED
from ..table.robot_names import is_robot_address

RATE_LIMIT = 60  # mails per sender and hour that changed nothing; beyond, only a move is read (no reply)


def why_ignored(msg: EmailMessage, *, ledger: MailLedger, game_address: str,
                rate_limit: int = RATE_LIMIT) -> str | None:
    """Why the worker ignores this mail unread (automatic mail, a robot's address); None when it reads it.

    A sender over the rate limit is still read (``over_limit``): a limit never keeps a player from a move."""
    reason = automatic_reason(msg, (game_address,) if game_address else ())
    if reason:
        return reason
    who = sender(msg)
    if who and is_robot_address(who):  # nobody writes as a robot but to play its seat (robots read no mail)
        return f"from a robot's address ({who}): robots send no mail"
    return None


def over_limit(msg: EmailMessage, *, ledger: MailLedger, moderator: str = "", rate_limit: int = RATE_LIMIT) -> str:
    """Why the sender of ``msg`` is over the hourly limit of mails that changed nothing, or "".

    Only mails that changed nothing count: a lively auction is many mails, while a loop or abuse repeats
    without changing anything. Talk, settings and absences count against budgets of their own (table_talk,
    mail_commands), not here. Mail that failed to prove its seat does not count either: forged in a player's
    name, it would use up the player's limit. The moderator has no limit: their answers are talk."""
    who = sender(msg)
    if not who or who == moderator:
        return ""
    if ledger.count(who, ledger.clock() - timedelta(hours=1), excluding=(*CHANGES, *REFUSED)) >= rate_limit:
        return (f"rate limit: more than {rate_limit} mails from {who} in an hour that changed nothing; only a move "
                "is read until the hour is over")
    return ""


@dataclass
class Explanation:
    """What the worker would do with a mail: ``report`` as ``MailCommands`` reads it, unless the mail is
    ``ignored``: then no command is read, the outcome is "ignored", and there is no reply."""

    report: MailReport
    ignored: str | None = None  # why the worker would ignore the mail; None: it would process it

    def to_dict(self) -> dict[str, Any]:
        return {**self.report.to_dict(), "reason": self.ignored}


def explain(raw: bytes, games: GameService, *, game_address: str, rate_limit: int = RATE_LIMIT,
            moderator: str = "", signup: SignupConfig = SignupConfig()) -> Explanation:
    """What the worker would do with ``raw``, changing nothing: ignore it (and why), or process it (a dry run)."""
    commands = MailCommands(games, moderator=moderator, signup=signup)
    msg = read_message(raw)
    reason = why_ignored(msg, ledger=commands.ledger, game_address=game_address, rate_limit=rate_limit)
    if reason is None:
        limit = over_limit(msg, ledger=commands.ledger, moderator=commands.moderator, rate_limit=rate_limit)
        return Explanation(commands.handle(raw, dry_run=True, parsed=msg, over_limit=limit))
    report = MailReport(sender=sender(msg), message_id=message_id(msg) or "", subject=subject(msg),
                        text=extract_text(msg), outcome="ignored", not_answered=reason)
    return Explanation(report, ignored=reason)
