"""A game mail still waiting to be sent gives way to a later mail to the same reader about the same game.

Robots answer a person's move within the same pass of the worker, and people's mails that came in together are
applied one after the other: without folding, a player gets "Done: ..." and, a second later, "Your turn: ...",
two mails where one tells it all. A game mail that carries nothing but what happened since its reader's last
mail and the game as it stands (``OutboxMail.told_from`` set: no note on the reader's own mail, nothing added)
is therefore taken back while nobody has started sending it, when a later mail goes to the same reader about
the same game; the reader's mark of what they were told goes back to before it, so the later mail tells
everything since the last mail that went out. A mail a sender has claimed is left alone: it goes out, and the
later mail tells what came after it.

A receipt (services.mail_out.receipts) without a note gives way the same way to a later game mail, which tells
the recorded move among the rest; and a receipt takes back an unsent game mail of its reader (a request to
decide that their own mail has just answered, say), whose news their next game mail then tells. A receipt never
takes back another receipt: each mail of a player is answered.
"""

from __future__ import annotations

from sqlalchemy import bindparam, update
from sqlmodel import Session, select

from ...store.models import OutboxMail, Seat
from ...store.statuses import OutboxStatus
from ..common.game_info import GameInfo
from .receipts import RECEIPT_HEADER


# Built once and run as a Core statement: a mail's change runs it twice, and building it and the ORM's handling of
# it cost more than running it (bench/mail.py).
_FOLDABLE = select(OutboxMail.id, OutboxMail.recipient, OutboxMail.told_from, OutboxMail.headers).where(
    OutboxMail.game_id == bindparam("game_id"), OutboxMail.status == OutboxStatus.QUEUED, OutboxMail.attempts == 0,
    OutboxMail.told_from.is_not(None), OutboxMail.recipient.in_(bindparam("recipients", expanding=True)))  # type: ignore[union-attr]


def fold_unsent(s: Session, info: GameInfo, readers: set[int], *, for_receipt: bool = False) -> set[int]:
    """Take back the unsent, foldable mails of ``info``'s game to the players at ``readers`` (status
    ``folded``), and move each such player's told mark back to before the earliest of them. Returns the seats
    whose mails were taken back: their next mail must be composed again, from the earlier mark.
    ``for_receipt``: the later mail is a receipt, which takes back game mails only."""
    seats = {info.email_of(seat): seat for seat in readers}
    if not seats:
        return set()
    s.flush()  # the session's unwritten mails are candidates too, as with the ORM's own statements (autoflush)
    waiting = s.connection().execute(_FOLDABLE, {"game_id": info.id, "recipients": list(seats)}).all()
    back: dict[int, int] = {}
    for mail_id, recipient, told_from, headers in waiting:
        if for_receipt and (headers or {}).get(RECEIPT_HEADER) == "yes":
            continue
        # Only while no sender has claimed it: a claim changes the status first, in its own transaction.
        taken = s.connection().execute(update(OutboxMail).where(
            OutboxMail.id == mail_id, OutboxMail.status == OutboxStatus.QUEUED).values(status=OutboxStatus.FOLDED))
        if taken.rowcount == 1:
            seat = seats[recipient]
            back[seat] = min(back.get(seat, told_from), told_from)
    for seat, told in back.items():
        s.connection().execute(update(Seat).where(Seat.game_id == info.id, Seat.seat == seat).values(told_seq=told))
        info.player(seat).told_seq = told
    return set(back)


__all__ = ["fold_unsent"]
