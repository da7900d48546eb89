"""What a mail's headers tell: who sent it, which game it names, what it answers."""

from __future__ import annotations

import re
from email.message import EmailMessage
from email.utils import getaddresses

_GAME_TAG = re.compile(r"\[[^\]\[#]*#\s*(\d+)\s*\]")
_DECISION = re.compile(r"\bdecision\s+(\d+)\b", re.IGNORECASE)
_MSGID = re.compile(r"<[^<>\s]+>")


def _header(msg: EmailMessage, name: str) -> str:
    try:
        value = msg.get(name)
    except Exception:  # a header the parser cannot make sense of counts as absent
        return ""
    return str(value) if value is not None else ""


def sender(msg: EmailMessage) -> str | None:
    """The From address, lower case; None if there is none."""
    try:
        addresses = [addr for _, addr in getaddresses([_header(msg, "From")]) if "@" in addr]
    except Exception:
        return None
    return addresses[0].strip().lower() if addresses else None


def subject(msg: EmailMessage) -> str:
    return " ".join(_header(msg, "Subject").split())


def message_id(msg: EmailMessage) -> str:
    return _header(msg, "Message-ID").strip()


def game_tag(text: str) -> int | None:
    """The game number of a subject like "Re: [Fifth Avenue #3] your turn"."""
    match = _GAME_TAG.search(text)
    return int(match.group(1)) if match else None


def decision(subject_text: str, body: str) -> int | None:
    """The decision number the mail answers: the subject's, else the first in the (quoted) body."""
    for text in (subject_text, body):
        match = _DECISION.search(text or "")
        if match:
            return int(match.group(1))
    return None


def references(msg: EmailMessage) -> list[str]:
    """Message-IDs this mail answers, the direct parent first."""
    found: list[str] = []
    for name in ("In-Reply-To", "References"):
        for mid in _MSGID.findall(_header(msg, name)):
            if mid not in found:
                found.append(mid)
    return found
