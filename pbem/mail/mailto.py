"""Answers as links: the ``mailto:`` URL of a ready answer (RFC 6068), and the line that ties such an answer to
the mail whose link it came from.

A game mail's HTML part shows the likely answers to its decision as links (``services.mail_out.taps``); a tap
opens the player's mail app with a new mail to the game's address, the game's tag for its subject and the
command in the body, then one line ``ref <token>``: the random part of the game mail's own Message-ID in
base64url. A mail opened from a link is a new message, without In-Reply-To, and clients add signatures or send
HTML only, but they keep the body they were given as the player's own first lines: the ``ref`` line stands for
the In-Reply-To a Reply would carry. It names exactly one mail of ours, seen by one address, so the mail
answers that mail's decision and no later one, and proves its seat as a Reply does; from any other address it
is refused as a forged mail is (``services.mail_in.finding``). A link made without a token (a mail whose
Message-ID is not ours) names its decision in the subject instead, ``(decision N)`` (``message.decision``).

Pure functions: no I/O.
"""

from __future__ import annotations

import base64
import re
from urllib.parse import quote

# RFC 6068 (section 2): a header field's value is qchars: unreserved characters (quote leaves them), percent-encoded
# octets and "some-delims". '+' is one of them, but form decoders (and some clients) read it as a space: encoded.
_SOME_DELIMS = "!$'()*,;:@"
REF_WORD = "ref"
# The game's address in a link where the mail is made; the sender, who knows the address, writes it there
# (``with_address``, called by ``adapters.outbox_sender``).
ADDRESS_HERE = "game@pbem.invalid"
_OUR_ID = re.compile(r"<([0-9a-f]{32})@([^<>@\s]+)>")
# The token: the 128 random bits of the Message-ID in base64url, 22 characters (32 in hex: 10 bytes more in
# each link, issue 44, point 5). Clients keep a body they were given as it is, case included.
_REF_LINE = re.compile(rf"(?i:{REF_WORD}):?\s+([A-Za-z0-9_-]{{21}}[AQgw])\.?")


def encoded(text: str) -> str:
    """``text`` as an RFC 6068 header value: UTF-8, percent-encoded but for unreserved characters and
    some-delims; every line break as %0D%0A (the RFC's line break in a body)."""
    text = re.sub(r"\r\n|\r|\n", "\r\n", text)
    return quote(text.encode("utf-8"), safe=_SOME_DELIMS)


def mailto(address: str, subject: str, body: str) -> str:
    """``mailto:address?subject=...&body=...``: a new mail to ``address`` with this subject and body."""
    return f"mailto:{encoded(address)}?subject={encoded(subject)}&body={encoded(body)}"


def with_address(html: str, address: str) -> str:
    """``html`` with the game's ``address`` in its links' ``mailto:ADDRESS_HERE?``."""
    return html.replace(f"mailto:{ADDRESS_HERE}?", f"mailto:{encoded(address)}?")


def ref_token(message_id: str | None) -> str:
    """The token of one of our Message-IDs (``message.new_message_id``: 32 hex digits at our domain), its 16
    bytes in base64url; "" for a Message-ID of another shape, which a link cannot name."""
    match = _OUR_ID.fullmatch(message_id or "")
    return base64.urlsafe_b64encode(bytes.fromhex(match.group(1))).decode().rstrip("=") if match else ""


def ref_line(token: str) -> str:
    return f"{REF_WORD} {token}"


def message_id_of(token: str, domain: str) -> str:
    """The Message-ID that ``token`` (of a ``ref`` line, at our ``domain``) stands for."""
    return f"<{base64.urlsafe_b64decode(token + '==').hex()}@{domain}>"


MAX_REFS = 20  # tokens of one mail looked up, as MAX_REFERENCES Message-IDs of its headers: the rest are dropped


def split_ref_lines(lines: list[str]) -> tuple[list[str], list[str]]:
    """``lines`` without their ``ref <token>`` lines, and the first MAX_REFS tokens those gave, in order."""
    rest, tokens = [], []
    for line in lines:
        found = _REF_LINE.fullmatch(line.strip())
        if found:
            token = found.group(1)  # the pattern admits only tokens that decode to 16 bytes
            if token not in tokens and len(tokens) < MAX_REFS:
                tokens.append(token)
        else:
            rest.append(line)
    return rest, tokens


__all__ = ["ADDRESS_HERE", "MAX_REFS", "REF_WORD", "encoded", "mailto", "message_id_of", "ref_line", "ref_token", "split_ref_lines", "with_address"]
