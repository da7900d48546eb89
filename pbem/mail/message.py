"""What a mail's headers tell: who sent it, which game it names, what it answers.

Anybody can send the game mailbox anything, and some of what is read here goes
into the headers of the mails we write (In-Reply-To, References, To) and into
the database. So the identifying headers are read strictly, from their raw text
(an encoded word is never decoded into a Message-ID or an address): a value
that is not what RFC 5322 allows there, or is longer than we keep, counts as
absent. Nothing here raises, whatever the bytes.
"""

from __future__ import annotations

import hashlib
import re
import secrets
from email.message import EmailMessage

_GAME_TAG = re.compile(r"\[[^\]\[#]*#\s*([0-9]{1,9})\s*\]")
_DECISION = re.compile(r"\bdecision\s+([0-9]{1,9})\b", re.IGNORECASE)
_DECISION_TAG = re.compile(rf"\(\s*{_DECISION.pattern}\s*\)", re.IGNORECASE)  # '(decision 4)' in our subjects

MAX_MESSAGE_ID = 250  # longer Message-IDs are treated as absent (stored in a column of 255)
MAX_ADDRESS = 254  # RFC 5321's longest path, less the angle brackets
MAX_SUBJECT = 200  # what we read (and quote in a reply's subject) of a subject
MAX_REFERENCES = 20  # Message-IDs of In-Reply-To and References looked up, the newest ones
_ATEXT = r"A-Za-z0-9!#$%&'*+/=?^_`{|}~\-"
_MESSAGE_ID = re.compile(rf"<[{_ATEXT}.]+@(?:[{_ATEXT}.]+|\[[\x21-\x5a\x5e-\x7e]*\])>")
_ADDRESS = re.compile(rf"[{_ATEXT}]+(?:\.[{_ATEXT}]+)*@[A-Za-z0-9](?:[A-Za-z0-9-]*[A-Za-z0-9])?"
                      r"(?:\.[A-Za-z0-9](?:[A-Za-z0-9-]*[A-Za-z0-9])?)*")
_QUOTED = re.compile(r'"(?:[^"\\]|\\.)*"')
_COMMENT = re.compile(r"\([^()]*\)")
_CONTROL = re.compile(r"[\x00-\x1f\x7f]")


def _header(msg: EmailMessage, name: str) -> str:
    """A header as decoded for people (encoded words decoded); "" when absent or unreadable."""
    try:
        value = msg.get(name)
        return str(value) if value is not None else ""
    except Exception:  # a header the parser cannot make sense of counts as absent
        return ""


def raw_header(msg: EmailMessage, name: str) -> str | None:
    """The first ``name`` header as it was sent, unfolded and not decoded; None when there is none."""
    try:
        for key, value in msg.raw_items():
            if key.lower() == name.lower():
                return re.sub(r"\r?\n(?=[ \t])", "", str(value)).strip()
    except Exception:
        pass
    return None


def new_message_id(domain: str) -> str:
    """A Message-ID for a mail of ours: 128 random bits from the system's source. A reply that names it answers
    a mail that only its recipient saw, which is how a plain reply proves its seat (services.mail_in.finding);
    email.utils.make_msgid's are a clock and the random module's bits, which a player who sees enough of
    them might predict."""
    return f"<{secrets.token_hex(16)}@{domain}>"


def is_message_id(value: str) -> bool:
    """Whether ``value`` is one Message-ID as RFC 5322 writes it, ASCII, at most MAX_MESSAGE_ID long."""
    return len(value) <= MAX_MESSAGE_ID and _MESSAGE_ID.fullmatch(value) is not None


def is_address(value: str) -> bool:
    """Whether ``value`` is a plain ASCII mailbox address (dot-atom@domain) that SMTP can reach."""
    return len(value) <= MAX_ADDRESS and _ADDRESS.fullmatch(value) is not None


def sender(msg: EmailMessage) -> str | None:
    """The From address, lower case; None when there is not exactly one valid address.

    The address in angle brackets wins over anything that looks like an address in the display name
    (``ann@example.org <evil@x.test>`` is evil@x.test). A non-ASCII address (RFC 6532) is not answered:
    we could not send to it."""
    raw = raw_header(msg, "From")
    if not raw:
        return None
    text = _COMMENT.sub(" ", _QUOTED.sub(" ", raw))  # a display name may hold anything
    angles = re.findall(r"<([^<>]*)>", text)
    if len(angles) > 1:
        return None  # several addresses: whose mail would it be?
    if angles:
        name, _, after = text.partition(f"<{angles[0]}>")
        address = angles[0].strip() if not after.strip() and "," not in name else ""
    else:
        address = text.strip()
    return address.lower() if is_address(address) else None


def subject(msg: EmailMessage) -> str:
    """The subject as decoded, on one line, without control characters, at most MAX_SUBJECT long."""
    return " ".join(_CONTROL.sub(" ", _header(msg, "Subject")).split())[:MAX_SUBJECT]


def message_id(msg: EmailMessage) -> str | None:
    """The mail's Message-ID when it is a valid one (it may go into our In-Reply-To); else None."""
    raw = raw_header(msg, "Message-ID")
    return raw if raw is not None and is_message_id(raw) else None


def ledger_key(msg: EmailMessage, place: str) -> str:
    """What the mail is recorded under, so a second copy is known: its Message-ID; for an invalid one a
    digest of it (copies still match); without any, ``place`` (the mailbox, UIDVALIDITY and UID)."""
    valid = message_id(msg)
    if valid:
        return valid
    raw = raw_header(msg, "Message-ID")
    if raw:
        digest = hashlib.sha256(raw.encode("utf-8", "surrogatepass")).hexdigest()[:40]
        return f"<invalid-{digest}@pbem.invalid>"
    return f"<no-id-{hashlib.sha256(place.encode('utf-8', 'surrogatepass')).hexdigest()[:40]}@pbem.invalid>"


def game_tag(text: str) -> int | None:
    """The game number of a subject like "Re: [Fifth Avenue #3] your turn"."""
    match = _GAME_TAG.search(text)
    return int(match.group(1)) if match else None


def without_tags(subject_text: str) -> str:
    """A subject without its game tag and '(decision N)': '[Fifth Avenue #3] pass (decision 4)' -> 'pass'."""
    text = _DECISION_TAG.sub(" ", _GAME_TAG.sub(" ", subject_text))
    return " ".join(text.split())


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
        given = re.findall(r"<[^<>]*>", raw_header(msg, name) or "")
        for mid in given[-MAX_REFERENCES:] if name == "References" else given[:1]:
            if is_message_id(mid) and mid not in found:
                found.append(mid)
    return found[:MAX_REFERENCES]


# The subjects responders give their answers, in the languages mail clients ship them: "Automatic reply:" and
# "Out of Office:" (Outlook, Exchange), "Auto:" (Lotus Notes), "Autoreply:", "Abwesenheitsnotiz:", "Réponse
# automatique :", ... Only at the start and with the colon: a person's subject rarely begins so.
_AUTO_SUBJECT = re.compile(
    r"^\s*(?:automatic reply|auto(?:matic)?[- ]?(?:reply|response)|autoreply|auto|out of (?:the )?office(?: autoreply)?"
    r"|automatische antwort|abwesenheitsnotiz|r[ée]ponse automatique|respuesta autom[áa]tica|risposta automatica"
    r"|automatisch antwoord|autosvar|automaattinen vastaus|odpowied[źz] automatyczna)\s*:", re.IGNORECASE)
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
    if precedence in ("bulk", "junk", "list", "auto_reply"):
        return f"Precedence: {precedence}"
    # X-Auto-Response-Suppress (any value): Exchange and Outlook put it on their automatic replies (out of
    # office), often without Auto-Submitted or Precedence; X-MS-Exchange-Inbox-Rules-Loop on what an inbox rule
    # sent or forwarded.
    for name in ("List-Id", "List-Unsubscribe", "List-Post", "X-Autoreply", "X-Autorespond", "X-Auto-Response-Suppress",
                 "X-MS-Exchange-Inbox-Rules-Loop", "X-Pbem"):
        if _header(msg, name):
            return f"{name} header" if name != "X-Pbem" else "our own mail"
    found = _AUTO_SUBJECT.match(subject(msg))
    if found:  # a responder that marks itself in the subject alone ("Automatic reply: ...", "Out of Office: ...")
        return f"an automatic reply's subject ({found.group(0).strip()})"
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
