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


_ROBOT_SENDERS = re.compile(r"^(mailer-daemon|postmaster|nobody|no-?reply|bounces?)(@|$)|-request@|^owner-", re.I)


def is_bounce(reason: str) -> bool:
    """Whether ``automatic_reason`` said the mail is a delivery report (not an auto-reply or a list's mail)."""
    return reason.startswith(("multipart/report", "null return path", "sent by mailer-daemon", "sent by postmaster"))


def automatic_reason(msg: EmailMessage, own_addresses: tuple[str, ...] = ()) -> str | None:
    """Why this mail must not be answered (RFC 3834 and common practice), or None for a person's mail."""
    auto = _header(msg, "Auto-Submitted").strip().lower()
    if auto and auto != "no":
        return f"Auto-Submitted: {auto}"
    precedence = _header(msg, "Precedence").strip().lower()
    if precedence in ("bulk", "junk", "list"):
        return f"Precedence: {precedence}"
    for name in ("List-Id", "List-Unsubscribe", "List-Post", "X-Autoreply", "X-Autorespond", "X-Pbem"):
        if _header(msg, name):
            return f"{name} header" if name != "X-Pbem" else "our own mail"
    if _header(msg, "Return-Path").strip() == "<>":
        return "null return path (a bounce)"
    try:
        content_type = msg.get_content_type()
        report_type = (msg.get_param("report-type") or "") if content_type == "multipart/report" else ""
    except Exception:
        content_type, report_type = "", ""
    if content_type == "multipart/report":
        return f"multipart/report ({report_type or 'bounce'})"
    who = sender(msg) or ""
    if _ROBOT_SENDERS.search(who):
        return f"sent by {who}"
    if who and who in own_addresses:
        return "our own mail"
    return None
