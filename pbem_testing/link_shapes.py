"""Mails sent from a game mail's answer links (issue 44), as three clients write them.

``read_mailto`` decodes a ``mailto:`` URL as RFC 6068 says (an independent reader, over urllib.parse: the
address, then ``?`` and ``name=value`` fields split at ``&``, each percent-decoded as UTF-8, ``+`` a plus).
``links`` finds the links of a mail's HTML part. ``link_mail`` builds the new mail a client sends when the link
is tapped and Send pressed: the subject as given, the body as given with the client's signature below it, and
no In-Reply-To or References (it is a new message, not a Reply):

- ``gmail``: multipart/alternative, the text and an HTML part of ``<div dir="ltr">`` lines and a signature;
- ``apple``: text/plain, quoted-printable, "Sent from my iPhone" under the body;
- ``outlook``: HTML only, each line in a ``<div>``, "Get Outlook for iOS" under it.
"""

from __future__ import annotations

import html
import re
from email.message import EmailMessage
from email.utils import make_msgid
from urllib.parse import unquote

LINK_SHAPES = ("gmail", "apple", "outlook")
_LINK = re.compile(r'<a href="(mailto:[^"]*)">([^<]*)</a>')


def read_mailto(url: str) -> tuple[str, dict[str, str]]:
    """(the address, {field name in lower case: value}) of a ``mailto:`` URL, per RFC 6068."""
    if not url.startswith("mailto:"):
        raise ValueError(f"not a mailto URL: {url[:40]!r}")
    to, _, query = url[len("mailto:"):].partition("?")
    fields: dict[str, str] = {}
    for pair in query.split("&") if query else []:
        name, _, value = pair.partition("=")
        fields[unquote(name, errors="strict").lower()] = unquote(value, encoding="utf-8", errors="strict")
    return unquote(to, errors="strict"), fields


def links(html_part: str) -> dict[str, str]:
    """{the command written on the link: its URL} of the answer links of a mail's HTML part."""
    start = html_part.find('<div class="taps">')
    if start < 0:
        return {}
    block = html_part[start:html_part.find("</div>", start)]
    return {html.unescape(text): html.unescape(url) for url, text in _LINK.findall(block)}


def link_mail(shape: str, url: str, sender: str) -> EmailMessage:
    """The mail ``sender``'s client in ``shape`` (one of LINK_SHAPES) sends from the link ``url``."""
    to, fields = read_mailto(url)
    body = fields.get("body", "").replace("\r\n", "\n")
    mail = EmailMessage()
    mail["From"] = sender
    mail["To"] = to
    mail["Subject"] = fields.get("subject", "")
    mail["Message-ID"] = make_msgid(domain=sender.rpartition("@")[2] or "client.test")
    lines = body.split("\n")
    if shape == "gmail":
        mail.set_content(f"{body}\n\n-- \nAnn Example\n")
        divs = "<br>".join(html.escape(line) for line in lines)
        mail.add_alternative(
            f'<div dir="ltr">{divs}</div><br clear="all"><div><br></div><span class="gmail_signature_prefix">-- '
            '</span><br><div dir="ltr" class="gmail_signature" data-smartmail="gmail_signature"><div dir="ltr">'
            'Ann Example</div></div>\n', subtype="html")
    elif shape == "apple":
        mail["X-Mailer"] = "iPhone Mail (22B91)"
        mail.set_content(f"{body}\n\nSent from my iPhone\n", cte="quoted-printable")
    elif shape == "outlook":
        mail["X-Mailer"] = "Microsoft Outlook for iOS"
        divs = "".join(f"<div>{html.escape(line) or '<br>'}</div>" for line in lines)
        mail.set_content(
            '<html><head><meta http-equiv="Content-Type" content="text/html; charset=utf-8"></head><body>'
            f'<div dir="ltr">{divs}</div><div dir="ltr"><br></div><div id="ms-outlook-mobile-signature">'
            '<div dir="ltr">Get <a href="https://aka.ms/o0ukef">Outlook for iOS</a></div></div></body></html>',
            subtype="html")
    else:
        raise ValueError(f"no such shape: {shape}")
    return mail


__all__ = ["LINK_SHAPES", "link_mail", "links", "read_mailto"]
