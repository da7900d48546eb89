"""Mail refused because it could not prove it came from the seat it speaks for, told in digests.

A mail without proof of its seat (services.mail_in.finding), or one that answers our mail to a seat from
another address, applies nothing. Such mail is cheap to forge in any number, so none of it gets an answer
of its own (but for a few an hour from the seat's own address without any proof: services.mail_in.mail_commands): the seat's own address hears of it at most once an hour, in one digest of everything refused
in its name since the last one (the first refusal in an hour is told at once), and the moderator gets the
same of the suspicious ones (wrong words and other addresses). The worker calls ``tell()`` every cycle.
"""

from __future__ import annotations

from collections import defaultdict
from datetime import datetime, timedelta

from sqlalchemy import literal_column
from sqlmodel import select

from ...store.models import InboundMail
from ...store.uow import UnitOfWork
from ...timespans import format_moment
from ..common.deadlines import aware as _aware, get_mark, set_mark
from ..common.ledger import MailLedger
from ..mail_out.notices import plain_mail, to_moderator

REFUSED = ("no-secret", "wrong-secret", "impersonation")  # outcomes of mail that did not prove its seat
SUSPICIOUS = ("wrong-secret", "impersonation")  # the moderator hears of these
EVERY = timedelta(hours=1)
LOOK_BACK = timedelta(days=7)  # refusals older than this when first seen are not told any more
# A refusal is told at the first look an hour after the previous digest to its address, so within EVERY of
# coming in: a look reads only the refusals since its last look less that (and less SETTLING, for a mail whose
# record was committed a while after it was stamped), not a week of them at every pass. The time of the last
# look is written at most every LOOKED_EVERY, not at every pass.
LOOKED = "refused-looked"
LOOKED_EVERY = timedelta(minutes=10)
SETTLING = timedelta(minutes=10)
LISTED = 20  # refusals listed in one digest; the rest are counted
MODERATOR = "moderator"

_WHY = {
    "no-secret": "it did not have your secret word",
    "wrong-secret": "it had a wrong secret word",
    "impersonation": "it answered our mail to you from another address",
}


def _mark(address: str) -> str:
    return f"refused:{address}"


class RefusalDigest:
    def __init__(self, ledger: MailLedger, *, moderator: str = "") -> None:
        self.ledger = ledger
        self.moderator = moderator

    def tell(self) -> list[str]:
        """Queue the digests that are due; returns the addresses told."""
        now = self.ledger.clock()
        told = []
        with UnitOfWork(self.ledger.engine, write=True) as uow:
            uow.serialize("refused-mail digests")  # two workers never send one digest twice
            s = uow.session
            looked = get_mark(s, LOOKED)
            since = now - LOOK_BACK if looked is None else max(now - LOOK_BACK, min(looked, now) - EVERY - SETTLING)
            # In the partial index of refused mail (its condition as SQLite must read it: a literal, not a
            # parameter), by time; sorted here, since an ORDER BY would make the database prefer another index.
            rows = sorted(s.exec(select(InboundMail).where(
                InboundMail.seat_email != literal_column("''"), InboundMail.received_at >= since,
                InboundMail.outcome.in_(REFUSED))).all(), key=lambda row: row.id)
            by_seat: dict[str, list[InboundMail]] = defaultdict(list)
            for row in rows:
                by_seat[row.seat_email].append(row)
            mails = []
            for address, refused in sorted(by_seat.items()):
                pending = self._due(s, address, refused, now)
                if pending:
                    mails.append(self._to_seat(address, pending, now))
                    told.append(address)
            suspicious = [row for row in rows if row.outcome in SUSPICIOUS]
            if self.moderator and suspicious:
                pending = self._due(s, MODERATOR, suspicious, now)
                if pending:
                    mails.append(self._to_moderator(pending, now))
                    told.append(self.moderator)
            remember = looked is None or now - looked >= LOOKED_EVERY
            if remember:
                set_mark(s, LOOKED, now)
            if mails or remember:
                s.add_all(mails)
                uow.commit()
        return told

    @staticmethod
    def _due(s, name: str, refused: list[InboundMail], now: datetime) -> list[InboundMail]:
        """The refusals not told yet, if the last digest to ``name`` is an hour old (then marked told)."""
        last = get_mark(s, _mark(name))
        pending = [row for row in refused if last is None or _aware(row.received_at) > last]
        if not pending or (last is not None and now - last < EVERY):
            return []
        set_mark(s, _mark(name), now)
        return pending

    def _lines(self, refused: list[InboundMail], *, to_seat: bool) -> list[str]:
        lines = []
        for row in refused[:LISTED]:
            why = _WHY.get(row.outcome, row.outcome)
            if not to_seat:
                why = why.replace("your", "the seat's").replace("to you", f"to {row.seat_email}")
            game = f"game {row.game_id}, " if row.game_id else ""
            lines.append(f"  {format_moment(_aware(row.received_at))}: {game}from {row.sender or '(unknown)'}: {why}")
        if len(refused) > LISTED:
            lines.append(f"  ... and {len(refused) - LISTED} more")
        return lines

    def _to_seat(self, address: str, refused: list[InboundMail], now: datetime):
        count = f"{len(refused)} mail{'s' if len(refused) != 1 else ''}"
        return plain_mail(address, f"{count} in your name not applied", [
            "These mails spoke for your seat and were not applied, because they could not show that they came "
            "from you:", "", *self._lines(refused, to_seat=True), "",
            "If you sent them, send your commands again as a Reply to a mail of the game, or with the line "
            "'secret <your word>' (the word is near the end of every mail the game sends you). "
            "If you did not, somebody else is using your address; nothing of theirs was applied, and the "
            "moderator hears of it.",
            "", "(You hear of such mail at most once an hour, in one mail like this.)"],
            self.ledger.new_message_id, now)

    def _to_moderator(self, refused: list[InboundMail], now: datetime):
        count = f"{len(refused)} mail{'s' if len(refused) != 1 else ''}"
        return to_moderator(self.moderator, f"{count} refused: wrong secret words or another address", [
            "These mails spoke for a seat without proving it and were not applied; each seat's address was "
            "told (at most once an hour):", "", *self._lines(refused, to_seat=False), "",
            "Many of them may mean somebody is forging a player's address."], self.ledger.new_message_id, now)
