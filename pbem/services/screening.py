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

from ..mail.message import automatic_reason, message_id, sender, subject
from ..mail.text import extract_text, read_message
from .games import GameService
from .ledger import MailLedger
from .mail_commands import MailCommands, MailReport
from .refusals import REFUSED
from .robot_seats import is_robot_address

RATE_LIMIT = 60  # mails per sender and hour that applied nothing; more are recorded and not processed


def why_ignored(msg: EmailMessage, *, ledger: MailLedger, game_address: str,
                rate_limit: int = RATE_LIMIT) -> str | None:
    """Why the worker ignores this mail (automatic mail, or a sender over the rate limit); None when it is processed.

    Only mails that applied nothing count toward the rate limit: a lively auction is many mails, while a loop or
    abuse repeats without changing anything. Mail that failed to prove its seat does not count either: forged in
    a player's name, it would lock the player out (and it is never answered one by one anyway)."""
    reason = automatic_reason(msg, (game_address,) if game_address else ())
    if reason:
        return reason
    who = sender(msg)
    if who and is_robot_address(who):  # nobody writes as a robot but to play its seat (robots read no mail)
        return f"from a robot's address ({who}): robots send no mail"
    if who and ledger.count(who, ledger.clock() - timedelta(hours=1), excluding=("applied", *REFUSED)) >= rate_limit:
        return f"rate limit: more than {rate_limit} mails from {who} in an hour that applied nothing"
    return None


@dataclass
class Explanation:
    """What the worker would do with a mail: ``report`` as ``MailCommands`` reads it, unless the mail is
    ``ignored``: then no command is read, the outcome is "ignored", and there is no reply."""

    report: MailReport
    ignored: str | None = None  # why the worker would ignore the mail; None: it would process it

    def to_dict(self) -> dict[str, Any]:
        return {**self.report.to_dict(), "reason": self.ignored}


def explain(raw: bytes, games: GameService, *, game_address: str, rate_limit: int = RATE_LIMIT) -> Explanation:
    """What the worker would do with ``raw``, changing nothing: ignore it (and why), or process it (a dry run)."""
    commands = MailCommands(games)
    msg = read_message(raw)
    reason = why_ignored(msg, ledger=commands.ledger, game_address=game_address, rate_limit=rate_limit)
    if reason is None:
        return Explanation(commands.handle(raw, dry_run=True, parsed=msg))
    report = MailReport(sender=sender(msg), message_id=message_id(msg) or "", subject=subject(msg),
                        text=extract_text(msg), outcome="ignored", not_answered=reason)
    return Explanation(report, ignored=reason)
