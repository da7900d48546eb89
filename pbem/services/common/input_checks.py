"""What people type in for a game, checked before it is kept: an address, a name, a seat named by address, a
seat's secret word."""

from __future__ import annotations

import hmac
import re
from typing import Any, Iterable

from ...mail.message import MAX_ADDRESS, is_address
from ...store.models import NAME
from .errors import BadRequest

_CONTROL = re.compile(r"[\x00-\x1f\x7f]")


def _shown(value: str) -> str:
    return repr(value if len(value) <= 60 else value[:57] + "...")


def checked_address(value: str) -> str:
    """``value`` as pbem keeps a player's address: a plain ASCII address (``pbem.mail.message.is_address``, the
    rule the mail side reads a sender with), lower case, surrounding spaces dropped. BadRequest for anything
    else: a line break or a control character anywhere, a space inside, non-ASCII, no @, longer than 254."""
    candidate = value.strip(" ") if isinstance(value, str) else ""
    if candidate and is_address(candidate):
        return candidate.lower()
    odd = next((c for c in candidate if not c.isascii()), "")
    why = ("is empty" if not candidate else
           "holds a line break or a control character" if _CONTROL.search(candidate) else
           f"holds the non-ASCII character {odd!r} (U+{ord(odd):04X})" if odd else
           "holds a space" if " " in candidate else
           f"is longer than {MAX_ADDRESS} characters" if len(candidate) > MAX_ADDRESS else
           "has no @" if "@" not in candidate else "is not of the form name@example.org")
    raise BadRequest(f"{_shown(str(value))} is not an email address pbem can mail: it {why}")


def checked_name(value: str) -> str:
    """``value`` as pbem keeps a player's name: stripped, not empty, one line, at most NAME characters."""
    name = value.strip() if isinstance(value, str) else ""
    if not name or _CONTROL.search(name) or len(name) > NAME:
        raise BadRequest(f"a player's name must be 1 to {NAME} characters on one line, not {_shown(str(value))}")
    return name


def seat_with(seats: Iterable[Any], address: str) -> int | None:
    """The seat (of Seats or PlayerInfos) that ``address`` names, compared as stored (lower case); None when it is
    nobody's, and for text with a line break or a control character. Non-ASCII is never lower-cased: the Kelvin
    sign would become a 'k' and name somebody else's seat."""
    if _CONTROL.search(address):
        return None
    key = address.strip()
    key = key.lower() if key.isascii() else key
    return next((x.seat for x in seats if x.email == key), None)


def proves_seat(secret: str, given: Iterable[str]) -> bool:
    """Whether a mail that gave the secret words ``given`` may act for a seat whose word is ``secret`` (a seat
    without one asks for none). Compared in constant time: a reply must not tell how much of a guess was right."""
    return not secret or any(hmac.compare_digest(word.lower().encode(), secret.encode()) for word in given)


def named_address(address: str) -> str:
    """An address somebody gave, for a message: as written, or quoted when it holds control characters."""
    return repr(address) if _CONTROL.search(address) else address


def contradicted(action: Any, seen: dict[Any, int], number: int, state: Any = None) -> int | None:
    """The earlier line of a mail that ``action`` (its line ``number``) contradicts: an order for the same
    decision of the same auction (the engine's ``order_key``, issue 43; the game ``state`` before the line,
    when it has ``order_key``, names the auction an order leaves out: 'bid up to 5' then 'bid 42W up to 8'
    while 42W runs). Otherwise None, and it is noted in ``seen``, which the caller keeps for one mail."""
    key = state.order_key(action) if hasattr(state, "order_key") else getattr(action, "order_key", None)
    if key is None:
        return None
    if key in seen:
        return seen[key]
    seen[key] = number
    return None


def set_ended(events: list[dict[str, Any]], seen: dict[Any, int]) -> None:
    """Forget the orders of a mail's lines so far when ``events`` (of its last line) ended a set of auctions: the
    next set's orders, its Central Park's too, are for other auctions and contradict none of them."""
    if any(event.get("kind") == "auctions_end" for event in events):
        seen.clear()


def contradiction(line: str, earlier: int, earlier_line: str) -> str:
    return (f"'{line}' contradicts line {earlier} ('{earlier_line}'): give one order for each auction and "
            "one for its build.")
