"""Short mails in a game's thread that carry no board: the receipt for a player's mail that changed the game but
asks nothing of them now (a bid or a pass that lets an auction go on, a move after which another decides;
issue 47, point 2), and a digest player's word of a moderator's change.

A receipt says what was recorded, whom the game waits for (as the reader may know it) and when the reader hears
from the game next; it is text only, a few hundred bytes (at most 2 KB as sent, tests/integration/test_receipts.py),
and marked ``X-Pbem-Receipt`` so that counts of game mails (the demo's, the mail budget's) can tell it apart. It
does not count as a game mail for the chronicle: the reader's next game mail still tells everything since their
last one, the recorded command included.
"""

from __future__ import annotations

from datetime import datetime

from ...games import get_game
from ...render.text import wrap
from ...store.models import OutboxMail
from ...words import plural
from ..common.game_info import GameInfo
from .chronicle import happenings, with_names
from .delivery import has_auctions
from .first_screen import orders_in_force
from .notices import MakeMsgid, asks, game_subject, sender_name, thread_root

RECEIPT_HEADER = "X-Pbem-Receipt"
MAX_EFFECTS = 6  # lines of what a receipt's commands did; a longer list is counted


def waiting_words(info: GameInfo, seat: int) -> str:
    """Whom the game waits for, as ``seat`` may read it (their own view: nothing of another hand)."""
    state = info.state
    if state.is_terminal():
        return "The game is over."
    if info.status != "active":
        return f"The game is {info.status}: nobody acts until the moderator resumes it."
    if asks(info, seat):
        return with_names(info, f"The game waits for you: {get_game(info.kind).decision_request(state)}.")
    sentence = state.view(seat)["waiting_for"]
    return "Next: " + with_names(info, sentence[0].upper() + sentence[1:]).rstrip(".") + "."


def next_mail_words(info: GameInfo, seat: int) -> str:
    """When the player at ``seat`` hears from the game next, by their delivery setting."""
    player = info.player(seat)
    if info.state.is_terminal():
        return "You get no more mails of this game unless you write to it."
    if asks(info, seat):
        return "Your last game mail shows the board; reply 'board' for it as it stands now."
    auction = ", when an auction you bid in ends" if has_auctions(info.kind) else ""
    if player.delivery == "all":
        return wrap("You hear from the game again as soon as anything public happens, with all that happened "
                    "meanwhile.")
    if player.delivery == "digest":
        return wrap("You hear from the game again when you must decide, or in your daily mail, with all that "
                    "happened meanwhile.")
    return wrap(f"You hear from the game again when you must decide{auction} or when the moderator changes "
                "something, with all that happened meanwhile.")


SET_MAILS = {  # what 'orders on|off' does, in its receipt
    "orders on": "From now on you are mailed each set of auctions when it begins, the game's first included, to "
                 "answer it all at once with orders ('orders off' stops it).",
    "orders off": "Sets of auctions are no longer mailed to you when they begin: you read each in your first call "
                  "to bid in it (an order you give starts the mails again).",
}


def receipt(info: GameInfo, seat: int, commands: list[str], effects: list[str], msgid: MakeMsgid, now: datetime,
            domain: str = "pbem.invalid", note: list[str] = ()) -> OutboxMail:  # type: ignore[assignment]
    """The receipt for the commands the player at ``seat`` sent (``effects``: what they did, in that player's
    words), when no game mail answers them now: a bid that lets its auction go on, orders given ahead of their
    turn, a move after which another player decides. The reader's orders in force follow what was recorded;
    ``note``: what the sender's mail needs said about it (lines it ignored, the decision it was applied to),
    which a board mail would have carried."""
    done = [wrap(effect[0].upper() + effect[1:], indent="  - ", hang="    ") for effect in effects[:MAX_EFFECTS]]
    if len(effects) > MAX_EFFECTS:
        done.append(f"    ... and {plural(len(effects) - MAX_EFFECTS, 'more')}")
    standing = orders_in_force(info, seat)
    said = ["", *(wrap(line) for line in note)] if note else []
    setting = next((command for command in reversed(commands) if command in SET_MAILS), None)
    if setting is not None:  # 'orders on|off' (Fifth Avenue, D48) changes nothing anybody sees: say what it does
        done.append(wrap(SET_MAILS[setting]))
    lines = [wrap(f"Recorded: {'; '.join(commands)}"), *done, *([wrap(standing)] if standing else []), *said, "",
             wrap(waiting_words(info, seat)), next_mail_words(info, seat)]
    mail = short_mail(info, seat, lines, msgid, now, domain)
    if not note:  # nothing the reader's next game mail would not tell: a game mail queued after it may take its place
        mail.told_from = info.player(seat).told_seq
    return mail


def moderator_word(info: GameInfo, seat: int, msgid: MakeMsgid, now: datetime,
                   domain: str = "pbem.invalid") -> OutboxMail | None:
    """A digest player's word of a moderator's change (the game's newest event, as their game mails tell it), at
    once rather than in their next daily mail; None when that event tells them nothing."""
    told = happenings(info.recent, info, seat, after=info.last_seq - 1)
    if not told:
        return None
    said = [wrap(item.headline) for item in told] + [wrap(d, indent="  - ", hang="    ") for item in told
                                                      for d in item.details]
    lines = [*said, "", wrap(waiting_words(info, seat)), next_mail_words(info, seat)]
    return short_mail(info, seat, lines, msgid, now, domain)


def short_mail(info: GameInfo, seat: int, lines: list[str], msgid: MakeMsgid, now: datetime,
               domain: str) -> OutboxMail:
    """A text-only mail of ``lines`` (filled already) to the player at ``seat``, in the game's thread."""
    root = thread_root(info, domain)
    message_id = msgid()
    return OutboxMail(
        game_id=info.id, recipient=info.player(seat).email, subject=game_subject(info),
        headers={"Message-ID": message_id, "In-Reply-To": root, "References": root,
                 "Auto-Submitted": "auto-generated", "X-Pbem-Game": str(info.id), "From-Name": sender_name(info),
                 RECEIPT_HEADER: "yes"},
        text_body="\n".join(lines).strip() + "\n", html_body=None, next_attempt_at=now, message_id=message_id,
        created_at=now)


def is_receipt(mail: OutboxMail) -> bool:
    return (mail.headers or {}).get(RECEIPT_HEADER) == "yes"


__all__ = ["MAX_EFFECTS", "RECEIPT_HEADER", "is_receipt", "moderator_word", "next_mail_words",
           "receipt", "short_mail", "waiting_words"]
