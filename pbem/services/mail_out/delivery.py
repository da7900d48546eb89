"""Which game mails a player gets: their delivery setting.

A change to a game gives each player zero or more reasons to hear of it; the
player's setting says which reasons are worth a mail now. Whatever a player
is not mailed now is not lost: their next game mail begins with everything
that happened since their last one (``services.mail_out.chronicle``).

- ``turns`` (the default): a mail when they must decide, when the moderator or
  a deadline played for them, the results of auctions they bid in, the
  moderator's changes, table talk and the game's start and end;
- ``all``: also a mail whenever something public happened (a turn ended, an
  auction moved, somebody scored) and after each of their own moves: every mail
  pbem had to send;
- ``digest``: the mails of ``turns`` that ask them to decide or answer them,
  talk, the start and the end; the rest comes in one mail a day.

A player's own move that asks nothing more of them is answered by a receipt
without the board under ``turns`` and ``digest`` (issue 47, point 2;
``services.mail_out.notices.commands_applied``, ``services.mail_out.receipts``).

A bid is answered by its auction: the bidder hears of it in their next call to
bid or in the result (both carry it), not in a mail of its own (decision D44
in docs/rules.md).
"""

from __future__ import annotations

from ...games import get_game

MODES = ("turns", "all", "digest")
DEFAULT = "turns"

ASKED = "asked"  # they must decide now
ANSWER = "answer"  # their own mail (or a deadline of theirs) was acted on
AUCTION = "auction"  # an auction they bid in ended
MODERATOR = "moderator"  # the moderator changed the game
TALK = "talk"  # somebody said something to them
START = "start"
END = "end"
PUBLIC = "public"  # something everybody may care about happened
RESEND = "resend"  # the moderator sent the board again on purpose

_MAILED = {
    "all": frozenset({ASKED, ANSWER, AUCTION, MODERATOR, TALK, START, END, PUBLIC, RESEND}),
    "turns": frozenset({ASKED, ANSWER, AUCTION, MODERATOR, TALK, START, END, RESEND}),
    "digest": frozenset({ASKED, ANSWER, TALK, START, END, RESEND}),
}


def mailed(mode: str, reasons: set[str]) -> bool:
    """Whether a player with delivery ``mode`` gets a mail now for ``reasons``."""
    return bool(_MAILED.get(mode, _MAILED[DEFAULT]) & reasons)


def has_auctions(kind: str) -> bool:
    """Whether the players of a game of ``kind`` bid (Fifth Avenue) or not (Manhattan): a text about their mails
    or deadlines names auctions and bids only where there are some."""
    return "bid" in get_game(kind).COMMAND_WORDS


PICTURES = ("on", "off")  # whether a player's game mails carry a picture of the board (render.pictures)


def checked_pictures(value: str) -> str:
    """``value`` as a pictures setting ("on" or "off"; also yes/no, true/false), or ValueError saying which."""
    setting = {"yes": "on", "true": "on", "no": "off", "false": "off"}.get(value.strip().lower(), value.strip().lower())
    if setting not in PICTURES:
        raise ValueError(f"'{value}' is not a pictures setting; use on or off")
    return setting


def checked_mode(value: str) -> str:
    """``value`` as a delivery mode, or ValueError saying which there are."""
    mode = value.strip().lower()
    if mode not in MODES:
        raise ValueError(f"'{value}' is not a delivery setting; use one of {', '.join(MODES)}")
    return mode


__all__ = ["ANSWER", "ASKED", "AUCTION", "DEFAULT", "END", "has_auctions", "MODERATOR", "MODES", "PICTURES", "PUBLIC", "RESEND",
           "START", "TALK", "checked_mode", "checked_pictures", "mailed"]
