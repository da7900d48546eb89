"""Replies as four mail clients write them, to a mail of ours: NeoMutt, Gmail, Outlook and a phone that sends HTML
only. What matters to pbem is what each keeps of the mail it answers: the subject under its client's prefix
(Re:, RE:, AW:), In-Reply-To (every one), References (NeoMutt and Gmail; Outlook and the phone here drop it), and
where the player's own lines stand against the quote (above it, in HTML for the last three)."""

from __future__ import annotations

import html
from email.message import EmailMessage
from email.utils import make_msgid

SHAPES = ("neomutt", "gmail", "outlook", "html-only")
WHEN = "Sun, 29 Nov 2026 at 10:00"


def _plain(original: EmailMessage) -> str:
    body = original.get_body(("plain",))
    return body.get_content().replace("\r\n", "\n") if body is not None else ""


def _html(original: EmailMessage) -> str:
    body = original.get_body(("html",))
    return body.get_content() if body is not None else f"<pre>{html.escape(_plain(original))}</pre>"


def _headers(reply: EmailMessage, original: EmailMessage, sender: str, prefix: str, *, references: bool) -> None:
    reply["From"] = sender
    reply["To"] = str(original["Reply-To"] or original["From"])
    reply["Subject"] = f"{prefix} {original['Subject']}"
    reply["Message-ID"] = make_msgid(domain=sender.rpartition("@")[2] or "client.test")
    reply["In-Reply-To"] = str(original["Message-ID"])
    if references:
        reply["References"] = f"{original.get('References', '')} {original['Message-ID']}".strip()


def shaped_reply(shape: str, original: EmailMessage, sender: str, text: str) -> EmailMessage:
    """A reply from ``sender`` to ``original`` in ``shape`` (one of SHAPES), with ``text`` (lines) above the quote."""
    reply = EmailMessage()
    who = str(original["From"])
    lines_html = "<br>".join(html.escape(line) for line in text.splitlines())
    if shape == "neomutt":
        _headers(reply, original, sender, "Re:", references=True)
        reply["User-Agent"] = "NeoMutt/20231103"
        quoted = "\n".join(f"> {line}".rstrip() for line in _plain(original).splitlines())
        reply.set_content(f"{text}\n\nOn {WHEN}, {who} wrote:\n{quoted}\n")
    elif shape == "gmail":
        _headers(reply, original, sender, "Re:", references=True)
        quoted = "\n".join(f"> {line}".rstrip() for line in _plain(original).splitlines())
        reply.set_content(f"{text}\n\nOn {WHEN} {who} wrote:\n\n{quoted}\n")
        reply.add_alternative(
            f'<div dir="ltr">{lines_html}</div><br><div class="gmail_quote"><div dir="ltr" class="gmail_attr">'
            f'On {WHEN} {html.escape(who)} wrote:<br></div><blockquote class="gmail_quote" style="margin:0px 0px '
            f'0px 0.8ex;border-left:1px solid rgb(204,204,204);padding-left:1ex">{_html(original)}</blockquote></div>',
            subtype="html")
    elif shape == "outlook":
        _headers(reply, original, sender, "RE:", references=False)
        reply["Thread-Index"] = "AQHbjB5Kx2k1m0fJQ0u7l2rQ9cW1NgABmZaQ"
        reply["X-Mailer"] = "Microsoft Outlook 16.0"
        block = f"From: {who}\nSent: Sunday, November 29, 2026 10:00\nTo: {sender}\nSubject: {original['Subject']}"
        reply.set_content(f"{text}\n\n{block}\n\n{_plain(original)}\n")
        reply.add_alternative(
            f'<html><body lang="EN-GB"><div class="WordSection1"><p class="MsoNormal">{lines_html}</p>'
            '<div style="border:none;border-top:solid #E1E1E1 1.0pt;padding:3.0pt 0cm 0cm 0cm">'
            f'<p class="MsoNormal"><b>From:</b> {html.escape(who)}<br><b>Sent:</b> Sunday, November 29, 2026 '
            f'10:00<br><b>Subject:</b> {html.escape(str(original["Subject"]))}</p></div>{_html(original)}'
            '</div></body></html>', subtype="html")
    elif shape == "html-only":
        _headers(reply, original, sender, "AW:", references=False)
        reply.set_content(
            f'<html><head></head><body dir="auto"><div>{lines_html}</div><div><br></div><div>Am 29.11.2026 um '
            f'10:00 schrieb {html.escape(who)}:<br><br></div><blockquote type="cite">{_html(original)}'
            '</blockquote></body></html>', subtype="html")
    else:
        raise ValueError(f"no such shape: {shape}")
    return reply


__all__ = ["SHAPES", "shaped_reply"]
