"""The lines a player wrote in a mail, without quotes, signatures or our board.

Players answer our mails from Gmail, Outlook, Apple Mail, Thunderbird and
phones. Their replies quote the whole mail we sent (top-posted, bottom-posted
or interleaved), carry signatures, come as HTML only and in any charset. This
module reads a raw mail (``read_message``), picks and decodes its body and
keeps only the player's own new lines (``extract_text``). It is pure: no
network, no database, and it never raises, whatever the bytes.

Why one module of some 900 lines: the rules below decide together which line
is the player's (a quote's attribution, Outlook's header block, our pasted
board and a signature are recognised in one pass, each rule knowing where the
others stop), and most of its length is the clients' phrasings in a dozen
languages, kept beside the code that matches them.

What is dropped (see ``reply_lines``):

- lines quoted with ``>`` (any depth);
- the attribution before a quote, also wrapped over up to four lines (a narrow phone's client):
  "On ... wrote:" and its German, French, Spanish, Italian, Dutch, Portuguese
  and Scandinavian forms; any line ending in a colon that holds a date or time
  and then an address in <> or () (Gmail's date-first forms: Norwegian,
  Polish, Finnish, Russian, Czech, Japanese, ...; Yahoo's "On Monday, ...,
  10:00:00 AM GMT, Ann <ann@example.org> wrote:"); Zoho's "---- On ... wrote
  ----"; a player's text after the attribution on the same line is kept;
- Outlook's "-----Original Message-----", its "From: / Sent: / To: /
  Subject:" block (in English, German, French, Spanish, Italian, Dutch,
  Polish, Finnish, Russian, Swedish, Danish and Norwegian) and the "____"
  separator before it, with everything below;
- an inline forwarded message ("---------- Forwarded message ---------",
  "Begin forwarded message:", ...) with everything below;
- the "-- " signature and a phone's "Sent from my iPhone" (or an app's: "Sent from TypeApp", "Get
  Outlook for Android") with what follows;
- a mailing list's footer with what follows: Google Groups' "You received this message because you are
  subscribed to ..." and Mailman's line of underscores above "... mailing list"; any rule of underscores ("__")
  or Groups.io's "-=-=-" above a line that says how to leave the list or where it lives;
- a mail server's warning paragraph that the mail came from outside ("CAUTION: This email originated from
  outside of the organization ...", "[EXTERNAL]"), and a company's disclaimer or a virus scanner's note with
  what follows;
- GMX's and web.de's header block, which begins with its date ("Gesendet: ...", then "Von:"), like Outlook's;
- the original under a dated attribution when no quote follows it (Yahoo puts it there without quote marks);
  an attribution broken by undecoded quoted-printable soft line breaks ('=' at a line's end) is joined first;
- the head of our own mail ("Done: ...", "Waiting: ...", "Since your last mail:") right above our board
  pasted back (docs/rules.md D49 names every shape);
- our own mail pasted back without quote marks, from its first line that we
  recognise (the board's header "Fifth Avenue -- 3 players", "It is your
  turn. You may send:", "Ann played: ...", the map's boxes ...) to the end;
- everything after a line ``end``.

A mail whose text is split by inline images (Apple Mail, iOS: text, image,
text) is read as one text, its parts joined in order. Up to MAX_READ_BYTES of
plain body (MAX_HTML_BYTES of HTML) are read, so a short answer above a long
quote is read; the player's own lines may hold at most MAX_TEXT_BYTES, in at
most MAX_TEXT_LINES lines. A larger mail is refused whole ("oversized"): what
one mail costs to read stays bounded.

No reply-parsing library is used. Tried on the corpus in tests/data/mail
(fed the text this module decodes; 40 mails): mail-parser-reply 1.36 got 20
right, email-reply-parser 0.5.12 got 25, quotequail 0.5.4 got 22.
mail-parser-reply returns the first fragment, so a bottom-posted or
interleaved reply comes back as the quote itself, and it missed "-- ",
"Ursprüngliche Nachricht" and the French and Spanish attributions with
no-break spaces; email-reply-parser knows English only; quotequail cuts at
the first reply header and loses every bottom-posted answer. None knows
``end`` or our board, so their rules would have to be rewritten here anyway.
HTML is read with the standard library's ``html.parser`` (html2text writes
Markdown, escapes command text and is GPL-licensed).
"""

from __future__ import annotations

import bisect
import codecs
from collections import Counter
from collections.abc import Callable
import re
from dataclasses import dataclass, field
from email import policy
from email.message import EmailMessage, Message
from email.parser import BytesParser
from html.parser import HTMLParser

# What one mail may cost to read is bounded by these (bench/hostile.py's worst cases: about a second each). A
# player's own text is commands, a few lines of talk (at most 4,000 characters are relayed) and some prose.
MAX_TEXT_BYTES = 1_000_000  # the player's own kept lines, summed; more is not a game mail
MAX_TEXT_LINES = 2_000  # ... in at most this many lines: a short line costs as much to read as a long one, which
# skips the patterns (MAX_PATTERN_LINE); 35,000 short lines took a second
MAX_READ_BYTES = 4_000_000  # the decoded plain body; a larger one is not read at all (a short answer above a long
# quote is read: a 4 MB quote is read in about 0.2 s)
MAX_HTML_BYTES = 1_000_000  # an HTML body (only read when a mail has no plain text): a dense one is read at ~1 MB/s
MAX_HTML_TAGS = 40_000  # tags of an HTML body parsed; the text after them is not read, and the player is told.
# Each tag costs about 12 microseconds of CPU: 1 MB of 124,000 tags cost 2.2 s to handle, over the second one mail
# may cost (issue 41); an HTML mail that quotes our board holds some 200 tags a board
MAX_PARTS = 500  # MIME parts looked at in one mail; the rest are ignored
MAX_DEPTH = 20  # nesting of multiparts followed
MAX_PATTERN_LINE = 1000  # longer lines are kept without looking for headers, signatures or our board in them

__all__ = [
    "MAX_HTML_BYTES", "MAX_HTML_TAGS", "MAX_TEXT_BYTES", "MAX_TEXT_LINES", "MAX_READ_BYTES", "MailText", "read_message", "extract_text", "reply_lines", "html_to_text",
    "decode_payload", "same_line_attribution",
]


@dataclass
class MailText:
    """What ``extract_text`` read. When ``oversized`` because the body is over MAX_READ_BYTES,
    ``body`` is the decoded text unread (for an HTML body its source: the size is measured
    before the HTML is converted)."""

    body: str  # the decoded body that was read (text/plain preferred, else HTML converted to text; "" if none)
    body_type: str  # "plain", "html" or "none"
    lines: list[str]  # the player's own new lines, in order, each stripped, blank lines dropped
    ignored: list[str] = field(default_factory=list)  # short descriptions of what was skipped
    unread: list[str] = field(default_factory=list)  # of those, what the player may have meant for us: a forwarded
    # mail, an attached file, text past the limits (quotes, signatures and our board are not: the reply is silent)
    oversized: bool = False  # body over MAX_READ_BYTES (HTML: MAX_HTML_BYTES), or own lines over MAX_TEXT_BYTES or
    # MAX_TEXT_LINES: lines is then []


# =========================================================================== reading


def read_message(raw: bytes) -> EmailMessage:
    """The mail parsed with the modern policy; an empty message if it cannot be parsed at all."""
    try:
        if isinstance(raw, str):
            raw = raw.encode("utf-8", "surrogateescape")
        elif not isinstance(raw, (bytes, bytearray, memoryview)):
            return EmailMessage()
        msg = BytesParser(policy=policy.default).parsebytes(bytes(raw))
        return msg if isinstance(msg, EmailMessage) else EmailMessage()
    except Exception:  # the parser is lenient; this is for what it still cannot take
        return EmailMessage()


Pasted = Callable[[list[str]], list[bool]]  # which of a reply's lines are pasted from our mails (mail.pasted)


def extract_text(msg: EmailMessage, pasted: Pasted | None = None) -> MailText:
    """The body of ``msg`` and the player's own lines in it. With ``pasted``, the lines it marks are dropped
    before anything else is read (they are ours, wherever they stand). Never raises."""
    try:
        return _extract(msg, pasted)
    except Exception as exc:  # pragma: no cover - a last resort; every known shape is handled below
        return MailText(body="", body_type="none", lines=[], ignored=[f"unreadable mail ({type(exc).__name__})"])


def _extract(msg: Message, pasted: Pasted | None) -> MailText:
    if not isinstance(msg, Message):
        return MailText(body="", body_type="none", lines=[], ignored=[f"not a mail ({type(msg).__name__})"])
    ignored: list[str] = []
    plain_parts, html_parts = _find_bodies(msg, ignored)
    plain = [_decoded(part) for part in plain_parts]
    html = [_decoded(part) for part in html_parts]
    if plain and ("".join(plain).strip() or not "".join(html).strip()):
        body_type, parts, texts = "plain", plain_parts, plain
        if html:
            ignored.append("HTML alternative (text/plain preferred)")
    elif html:
        body_type, parts, texts = "html", html_parts, html
    else:
        return MailText(body="", body_type="none", lines=[], ignored=ignored + ["no text body"])

    size = sum(_utf8_size(text) for text in texts)
    ceiling = MAX_HTML_BYTES if body_type == "html" else MAX_READ_BYTES
    if size > ceiling:
        ignored.append(f"oversized {body_type} body ({size} bytes, at most {ceiling})")
        return MailText(body="\n".join(texts), body_type=body_type, lines=[], ignored=ignored, oversized=True)

    body, text = _readable(body_type, parts, texts, ignored)
    lines, skipped = reply_lines(text, limit=MAX_TEXT_BYTES, pasted=pasted, max_lines=MAX_TEXT_LINES)
    ignored += skipped
    unread = [note for note in ignored if _UNREAD.match(note) and not _SIGNATURE_PART.search(note)]
    if sum(_utf8_size(line) for line in lines) > MAX_TEXT_BYTES:  # the quote may be long, the player's text not
        ignored.append(f"oversized: the player's own lines pass {MAX_TEXT_BYTES} bytes")
        return MailText(body=body, body_type=body_type, lines=[], ignored=ignored, oversized=True)
    if len(lines) > MAX_TEXT_LINES:
        ignored.append(f"oversized: the player's own lines are more than {MAX_TEXT_LINES}")
        return MailText(body=body, body_type=body_type, lines=[], ignored=ignored, oversized=True)
    return MailText(body=body, body_type=body_type, lines=lines, ignored=ignored, unread=unread)


# The notes of ``ignored`` a player is told of: parts of their mail that may hold what they meant for us.
_UNREAD = re.compile(r"forwarded|attachment (text|application)/|another text/|text after \d")  # not 'end': the
# player closed their text there
_SIGNATURE_PART = re.compile(r"/(pgp|pkcs7)-signature|/x-pkcs7-signature")


def _decoded(part: Message) -> str:
    # NUL and the like: no client sends them, and databases refuse NUL
    return _CONTROL.sub("", decode_payload(part))


def _utf8_size(text: str) -> int:
    return len(text.encode("utf-8", "surrogatepass"))


def _readable(body_type: str, parts: list[Message], texts: list[str], notes: list[str]) -> tuple[str, str]:
    """The body to keep and the text to read in it, from the chosen parts' decoded texts, in order.

    HTML parts are converted one by one (each is a document of its own);
    plain parts get unix line ends, and are unflowed each by its own format.
    """
    if body_type == "html":
        body = "\n".join(html_to_text(text, notes) for text in texts)
        return body, body
    bodies, readable = [], []
    for part, text in zip(parts, texts):
        text = text.replace("\r\n", "\n").replace("\r", "\n")
        bodies.append(text)
        if _param(part, "format").lower() == "flowed":
            text = unflow(text, delsp=_param(part, "delsp").lower() == "yes")
        readable.append(text)
    return "\n".join(bodies), "\n".join(readable)


def _param(part: Message | None, name: str) -> str:
    if part is None:
        return ""
    try:
        value = part.get_param(name)
    except Exception:
        return ""
    if isinstance(value, tuple):  # RFC 2231 (charset, language, value)
        value = value[-1]
    return str(value) if value else ""


def _find_bodies(msg: Message, ignored: list[str]) -> tuple[list[Message], list[Message]]:
    """The text/plain and the text/html parts that are the mail's own text, each kind in order.

    Usually one of each, or one alone. Apple Mail and iOS split the text
    around an inline image (text, image, text in a multipart/mixed): every
    such part is the mail's text. Inside a multipart/alternative only the first
    part giving a kind counts, as the others say the same again. Attachments
    (a Content-Disposition of attachment, or a file name), parts that are not
    text, and forwarded messages (message/rfc822) are skipped and noted in
    ``ignored``.
    """
    seen = 0

    def visit(part: Message, depth: int) -> dict[str, list[Message]]:
        nonlocal seen
        seen += 1
        found: dict[str, list[Message]] = {"plain": [], "html": []}
        if seen > MAX_PARTS or depth > MAX_DEPTH:
            return found
        ctype = _content_type(part)
        maintype = ctype.split("/", 1)[0]
        if maintype == "multipart":
            payload = part.get_payload()
            if not isinstance(payload, list):
                ignored.append(f"{ctype} without parts (no boundary?)")
                return found
            for child in payload:
                if not isinstance(child, Message):
                    continue
                for kind, parts in visit(child, depth + 1).items():
                    if parts and found[kind] and ctype == "multipart/alternative":
                        ignored.append(f"another text/{kind} alternative")
                    else:
                        found[kind] += parts
            return found
        if maintype == "message":
            ignored.append(f"forwarded or attached mail ({ctype})")
            return found
        name = _filename(part)
        if _disposition(part) == "attachment" or name:
            ignored.append(f"attachment {ctype}" + (f" ({name})" if name else ""))
        elif ctype in ("text/plain", "text/html"):
            found[ctype.split("/")[1]].append(part)
        else:
            ignored.append(f"{ctype} part")
        return found

    found = visit(msg, 0)
    return found["plain"], found["html"]


def _content_type(part: Message) -> str:
    try:
        return part.get_content_type().lower()
    except Exception:
        return "text/plain"


def _disposition(part: Message) -> str:
    try:
        return (part.get_content_disposition() or "").lower()
    except Exception:
        return ""


def _filename(part: Message) -> str:
    try:
        return str(part.get_filename() or "")
    except Exception:
        return ""


# Declared charsets read as what the senders mean: mail that says ISO-8859-1 or
# ASCII is often Windows-1252 (curly quotes, euro sign), as browsers assume too.
_CHARSET_ALIASES = {
    "iso-8859-1": "cp1252",
    "iso8859-1": "cp1252",
    "latin1": "cp1252",
    "latin-1": "cp1252",
    "l1": "cp1252",
    "us-ascii": "cp1252",
    "ascii": "cp1252",
    "ansi_x3.4-1968": "cp1252",
    "x-user-defined": "cp1252",
    "unicode-1-1-utf-7": "utf-7",
    "utf8": "utf-8",
}


def decode_payload(part: Message | None) -> str:
    """The text of a part: transfer encoding undone, then decoded by its charset.

    The declared charset first; if it is unknown or the bytes do not fit it,
    UTF-8; if that fails too, the declared charset with replacement characters,
    else Windows-1252 (which takes every byte but five) and finally Latin-1,
    which takes any byte.
    """
    if part is None:
        return ""
    try:
        data = part.get_payload(decode=True)
    except Exception:
        data = None
    if data is None:
        try:
            payload = part.get_payload()
        except Exception:
            payload = ""
        if isinstance(payload, str):
            data = payload.encode("utf-8", "surrogateescape")
        else:
            return ""
    if isinstance(data, str):  # pragma: no cover - decode=True gives bytes
        return data
    charset = ""
    try:
        charset = (part.get_content_charset() or "").strip().strip('"').lower()
    except Exception:
        charset = ""
    return decode_bytes(bytes(data), charset)


def decode_bytes(data: bytes, charset: str = "") -> str:
    charset = _CHARSET_ALIASES.get(charset, charset)
    codec = None
    if charset:
        try:
            codec = codecs.lookup(charset).name
        except (LookupError, ValueError):
            codec = None
    if codec and codec != "utf-8":
        try:
            if codec == "cp1252" and _is_utf8(data):
                return data.decode("utf-8")  # declared ASCII or Latin-1, written in UTF-8
            return data.decode(codec)
        except (UnicodeDecodeError, LookupError, ValueError):
            pass
    try:
        return data.decode("utf-8")
    except UnicodeDecodeError:
        pass
    if codec and codec != "utf-8":
        try:
            return data.decode(codec, errors="replace")
        except (LookupError, ValueError):  # pragma: no cover - a codec that failed above would fail here
            pass
    try:
        return data.decode("cp1252")
    except UnicodeDecodeError:
        return data.decode("latin-1")


def _is_utf8(data: bytes) -> bool:
    if data.isascii():
        return False  # the same either way
    try:
        data.decode("utf-8")
    except UnicodeDecodeError:
        return False
    return True


def unflow(text: str, delsp: bool = False) -> str:
    """Undo format=flowed (RFC 3676): a line ending in a space goes on in the next line.

    Quote marks stay (as ``> `` per level); the "-- " signature line is never
    joined.
    """
    out: list[str] = []
    buffer: str | None = None
    buffer_depth = 0

    def emit(depth: int, content: str) -> None:
        out.append((">" * depth + " " if depth else "") + content)

    for line in text.split("\n"):
        depth = len(line) - len(line.lstrip(">"))
        content = line[depth:]
        if content.startswith(" "):  # space-stuffing
            content = content[1:]
        soft = content.endswith(" ") and content != "-- "
        if soft and delsp:
            content = content[:-1]
        if buffer is not None and depth != buffer_depth:
            emit(buffer_depth, buffer)
            buffer = None
        buffer = content if buffer is None else buffer + content
        buffer_depth = depth
        if not soft:
            emit(depth, buffer)
            buffer = None
    if buffer is not None:
        emit(buffer_depth, buffer)
    return "\n".join(out)


# =========================================================================== HTML


_BLOCK_TAGS = frozenset(
    "address article aside blockquote body caption center dd details dialog div dl dt fieldset figcaption figure "
    "footer form h1 h2 h3 h4 h5 h6 header hr html li main nav ol p pre section summary table tbody thead tfoot "
    "tr ul".split()
)
_SKIP_TAGS = frozenset("head script style title template noscript xml object applet iframe svg math".split())
_VOID_TAGS = frozenset("area base br col embed hr img input link meta param source track wbr".split())
_QUOTE_CLASSES = ("yahoo_quoted",)  # quotes marked by a div instead of a blockquote
_SIGNATURE_MARKS = ("gmail_signature", "moz-signature")
_SIGNATURE_IDS = ("signature", "applemailsignature")
OUTLOOK_SEPARATOR = "_" * 32


class _TooManyTags(Exception):
    """An HTML body holds more than MAX_HTML_TAGS tags: what follows is not read."""


class _HtmlText(HTMLParser):
    """Text of an HTML mail: a line per block or <br>, quotes as "> " lines."""

    def __init__(self) -> None:
        super().__init__(convert_charrefs=True)
        self.tags = 0
        self.lines: list[str] = []
        self.current: list[str] = []
        self.current_depth = 0
        self.depth = 0  # blockquote level
        self.skip = 0  # inside script, style, head ...
        self.pre = 0
        self.stack: list[tuple[str, bool]] = []  # open tags, and whether each opened a quote level
        # How many of each tag the stack holds, and whether the current line has text yet: kept as they change,
        # since looking again at every tag made a mail of many tags cost the square of its size (a 1 MB one, 46 s).
        self.open_tags: Counter[str] = Counter()
        self.current_has_text = False

    def push(self, tag: str, quote: bool) -> None:
        self.stack.append((tag, quote))
        self.open_tags[tag] += 1

    def pop(self) -> tuple[str, bool]:
        tag, quote = self.stack.pop()
        self.open_tags[tag] -= 1
        return tag, quote

    def newline(self) -> None:
        text = "".join(self.current).replace("\xa0", " ")
        if not self.pre:
            text = re.sub(r"[ \t\r\n\f]+", " ", text)
        text = text.strip(" ")
        if text:
            self.lines.append(("> " * self.current_depth) + text)
        self.current = []
        self.current_has_text = False
        self.current_depth = self.depth

    def add(self, text: str) -> None:
        if not self.current_has_text:
            self.current_depth = self.depth
            self.current_has_text = bool(text.strip())
        self.current.append(text)

    def _count_tag(self) -> None:
        self.tags += 1
        if self.tags > MAX_HTML_TAGS:
            raise _TooManyTags

    def handle_starttag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        self._count_tag()
        tag = tag.lower()
        if tag in _SKIP_TAGS:
            if tag not in _VOID_TAGS:
                self.skip += 1
                self.push(tag, False)
            return
        if tag == "body":
            self.skip = 0  # a head never closed ends here
        values = {k.lower(): (v or "") for k, v in attrs}
        classes = values.get("class", "").lower().split()
        element_id = values.get("id", "").lower()
        quote = tag == "blockquote" or any(c in classes for c in _QUOTE_CLASSES)
        if tag in _BLOCK_TAGS or tag == "br" or quote:
            self.newline()
        if tag == "br":
            return
        if tag == "hr":
            self.lines.append(("> " * self.depth) + OUTLOOK_SEPARATOR)
            return
        if tag == "td" or tag == "th":
            self.add(" ")
        if tag in _VOID_TAGS:
            return
        if any(c in classes for c in _SIGNATURE_MARKS) or element_id in _SIGNATURE_IDS:
            self.newline()
            self.lines.append(("> " * self.depth) + "-- ")
        if tag == "pre":
            self.pre += 1
        if quote:
            self.depth += 1
            self.current_depth = self.depth
        self.push(tag, quote)

    def handle_startendtag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        tag = tag.lower()
        if tag in _VOID_TAGS or tag in _SKIP_TAGS:
            self.handle_starttag(tag, attrs)
            if tag in _SKIP_TAGS and tag not in _VOID_TAGS:
                self.handle_endtag(tag)
        elif tag in _BLOCK_TAGS:
            self.newline()

    def handle_endtag(self, tag: str) -> None:
        self._count_tag()
        tag = tag.lower()
        if not self.open_tags[tag]:
            if tag in _BLOCK_TAGS or tag == "br":
                self.newline()
            return
        while self.stack:
            open_tag, quote = self.pop()
            if open_tag in _SKIP_TAGS:
                self.skip = max(0, self.skip - 1)
                if open_tag == tag:
                    return
                continue
            if open_tag in _BLOCK_TAGS or quote:
                self.newline()
            if open_tag == "pre":
                self.pre = max(0, self.pre - 1)
            if quote:
                self.depth = max(0, self.depth - 1)
                self.current_depth = self.depth
            if open_tag == tag:
                return

    def handle_data(self, data: str) -> None:
        if self.skip:
            return
        if self.pre:
            parts = data.split("\n")
            for i, piece in enumerate(parts):
                if i:
                    self.newline()
                self.add(piece)
        else:
            self.add(data)

    def close(self) -> None:
        super().close()
        self.newline()


def html_to_text(html: str, notes: list[str] | None = None) -> str:
    """An HTML mail as plain text: blocks and <br> as line breaks, entities decoded,
    scripts and styles left out, and each level of <blockquote> as a "> " quote mark.
    Only the text before the MAX_HTML_TAGS-th tag is read; ``notes`` is told when there is more."""
    parser = _HtmlText()
    try:
        parser.feed(html)
        parser.close()
    except _TooManyTags:
        parser.newline()
        if notes is not None:
            notes.append(f"text after {MAX_HTML_TAGS} HTML tags (not read)")
    except Exception:  # pragma: no cover - html.parser is lenient; keep what was read
        parser.newline()
    return "\n".join(parser.lines)


# =========================================================================== the player's lines


_CONTROL = re.compile("[\x00-\x08\x0b\x0c\x0e-\x1f\x7f-\x9f]")  # all but tab, line feed, carriage return
# Regular expressions rather than str.translate tables: on a long quote the regex finds nothing
# quickly, where translate looks up every character (4 s of the 4.3 s a 19 MB quote took).
_INVISIBLE = re.compile("[\u200b\u200c\u200d\u2060\ufeff\u00ad]")
_SPACES = re.compile("[\u00a0\u2007\u202f\u2009\u3000]")

# "On <date>, <name> wrote:" and its translations; matched on the line, or on
# two or three lines joined (Gmail wraps long ones).
_ATTRIBUTIONS = [
    re.compile(p, re.IGNORECASE)
    for p in (
        r"^On\s.+\swrote\s*:$",  # Gmail, Apple Mail, Thunderbird
        r"^Am\s.+\sschrieb\b.*:$",  # German
        r"^Le\s.+\sa\s+[ée]crit\s*:$",  # French
        r"^El\s.+\sescribi[óo]\s*:$",  # Spanish
        r"^Il\s.+\sha\s+scritto\s*:$",  # Italian
        r"^Op\s.+\sschreef\b.*:$",  # Dutch
        r"^Em\s.+\sescreveu\s*:$",  # Portuguese
        r"^Den\s.+\sskrev\b.*:$",  # Swedish, Danish, Norwegian
    )
]
# Gmail in most other languages puts the date first and has no "On": "man. 23. nov. 2026 kl. 10:00
# skrev Ann <ann@example.org>:", "2026年11月23日(月) 10:00 Ann <ann@example.org>:". What they share:
# a date or time, then an address in <> or (), then at most a word or two and the colon at the end.
_DATE_OR_TIME = re.compile(r"(?<!\d)(\d{1,2}[:.]\d{2}|(19|20)\d{2})(?!\d)")  # 10:00, 10.00, 23.11, 2026
_ADDRESS_AT_END = re.compile(r"[<(]\s*[^\s<>()@]+@[^\s<>()]+\s*[>)][^:：<>@]{0,40}[:：]$")
# Their only other colons are a time's (10:00:00 +00:00); "At 10:00: bid ..." is a player's line.
_COLON_BEFORE_TEXT = re.compile(r"[:：](?!\d)")
_ATTRIBUTION_ENDS = (":", "：", "-")  # the last character of each form above, and of Zoho's (below)
_ATTRIBUTION_MAX = 300  # characters; no attribution, wrapped or not, is longer
_ATTRIBUTION_LINES = 4  # ... nor wrapped over more lines ('On <date>,' / 'pbem' / '<game@...>' / 'wrote:')
_ATTRIBUTION_COLONS = 5  # colons looked at for an attribution with text after it: 10:00:00 +00:00 wrote:
_COLON = re.compile("[:：]")
# Mutt's: "* Fifth Avenue <game@pbem.example> [2026-11-03 10:02]:", an attribution when a quote follows.
_MUTT = re.compile(r"^\* [^<>\n]{0,80}<[^\s<>@]++@[^\s<>]++> \[[\d: +-]{8,30}\]:$")
# "Ann <ann@example.org> wrote:" and the like (or just "Ann <ann@example.org>:"): an attribution only
# when a quote follows.
_WROTE = re.compile(
    r"\b(wrote|schrieb|[ée]crit|escribi[óo]|scritto|schreef|escreveu|skrev|napisał|kirjoitti|napsal|написал)\b"
    r"[^:]{0,80}:$",
    re.IGNORECASE,
)

_ORIGINAL_MESSAGE = re.compile(
    r"^-{2,}\s*(Original Message|Ursprüngliche Nachricht|Originalnachricht|Message d'origine|Mensaje original"
    r"|Messaggio originale|Oorspronkelijk bericht|Mensagem original|Wiadomość oryginalna|Alkuperäinen viesti"
    r"|Исходное сообщение|Ursprungligt meddelande|Oprindelig meddelelse|Opprinnelig melding)\s*-{2,}$",
    re.IGNORECASE,
)
_FORWARDED = re.compile(
    r"^(-{2,}\s*(Forwarded message|Weitergeleitete Nachricht|Message transféré|Mensaje reenviado"
    r"|Messaggio inoltrato|Doorgestuurd bericht|Mensagem encaminhada)\s*-{2,}"
    r"|(Begin forwarded message|Anfang der weitergeleiteten (E-Mail|Nachricht)|Début du message réexpédié"
    r"|Inicio del mensaje reenviado|Inizio messaggio inoltrato)\s*:)$",
    re.IGNORECASE,
)
_UNDERSCORES = re.compile(r"^_{10,}$")
# A mailing list's footer: Google Groups' first line, and the list's name that Mailman puts under its underscores.
_LIST_FOOTER = re.compile(r"^You received this (message|topic) because you are subscribed to\b", re.IGNORECASE)
_LIST_NAME = re.compile(r"^\S.{0,60} mailing list$", re.IGNORECASE)
# ... and any other list's rule ('__', '-=-=-=-', a line of underscores) above a line that says how to leave the
# list or where it lives: "To unsubscribe ...", "Groups.io Links:", "... mailing list", a listinfo page.
_LIST_RULE = re.compile(r"^(_{2,}|(-=){3,}-?)$")
_LIST_WORDS = re.compile(
    r"\b(unsubscribe|mailing list|listinfo|list archive|groups\.io|list-?serv|abbestellen|abmelden|d[ée]sabonner"
    r"|d[ée]sinscri|darse de baja|annullare l'iscrizione|afmelden)\b",
    re.IGNORECASE,
)
# A mail server's warning above the text that the mail came from outside the organisation ("CAUTION: This email
# originated from outside of the organization. Do not click links ..."): a paragraph whose first word is such a
# warning and which speaks of outside and of links, attachments or the sender. A player's 'Caution: bid 5' is not.
_BANNER_START = re.compile(
    r"^(\[?\*{0,2}(caution|warning|attention|achtung|vorsicht|attention|avertissement|precauci[óo]n|attenzione"
    r"|external( e-?mail| sender| message)?|extern(e|al)? (e-?mail|absender|nachricht)|\[external\])\*{0,2}\]?"
    r"\s*[:!\-–]|\[external\])",
    re.IGNORECASE,
)
_BANNER_OUTSIDE = re.compile(r"outside|external|externe[nrm]?|extern\b|hors de|fuera de|esterno|au?ßerhalb",
                             re.IGNORECASE)
_BANNER_WHAT = re.compile(
    r"click|links?\b|attachments?|sender|organi[sz]ation|source|anh[äa]ng|absender|organisation|pi[èe]ces? jointes?"
    r"|exp[ée]diteur|remitente|adjuntos|mittente|allegati",
    re.IGNORECASE,
)
_BANNER_LINES = 6  # a warning wrapped over more lines is not one
# A company's disclaimer or a virus scanner's note under the text: it and everything after it are not the player's.
_DISCLAIMER = re.compile(
    r"^(\**(disclaimer|confidentiality notice|confidential(ity)?|legal notice|haftungsausschluss|avis de confidentialit[ée])"
    r"\**\s*[:.\-–]"
    r"|(this|the) (e-?mail|message|communication|transmission)( \(including any attachments\))?( and|, including)"
    r" (any|all) (attachments?|files)\b"
    r"|(this|the) (e-?mail|message|communication|transmission) (is|may be|contains?) (confidential|privileged|"
    r"intended (only|solely))\b"
    r"|the information (contained )?in this (e-?mail|message|communication)\b"
    r"|if you (have received|received|are not the intended recipient)\b.{0,40}\b(error|recipient)"
    r"|this (e-?mail|message) has been (scanned|checked)( for viruses)?\b"
    r"|diese (e-?mail|nachricht) (enth[äa]lt|kann) vertrauliche"
    r"|dieses? e-?mail (enth[äa]lt|ist) vertraulich"
    r"|ce (message|courriel)( et (toutes )?les pi[èe]ces jointes)? (est|sont) confidentiel"
    r"|please consider the environment before printing\b)",
    re.IGNORECASE,
)
# The head of our own mails (pbem/services/mail_out/notices.py): right above our board pasted back, ours too.
_OUR_HEAD = re.compile(
    r"^(Done|Waiting|Turn|Game over|Your turn|Bid or pass|Commands now|Since your last mail)\b.{0,200}$"
    r"|^\* You played: |^- \S.{0,80}$|^(Mon|Tue|Wed|Thu|Fri|Sat|Sun)\w* \d.{0,60} UTC\b|^\S.{0,120} UTC$"
)
_OUR_HEAD_WORD = re.compile(r"^(Done|Waiting|Turn|Game over|Your turn|Bid or pass|Commands now|Since your last mail)"
                            r"\b")
_HEADER = re.compile(r"^\*{0,2}([^\W\d_][\w\- ]{0,14}?)\s*\*{0,2}\s*:\s*\*{0,2}(.*)$")
# The first key of an Outlook header block ("From:"), in each language; a block needs one.
_FROM_KEYS = frozenset({"from", "von", "de", "da", "van", "fra", "från", "od", "lähettäjä", "от"})
_HEADER_KEYS = frozenset(
    {
        "sent", "date", "to", "cc", "bcc", "subject", "reply-to",
        "gesendet", "datum", "an", "betreff", "kopie",
        "envoyé", "à", "objet", "cci",
        "enviado", "enviado el", "fecha", "para", "asunto", "cco",
        "inviato", "data", "a", "oggetto",
        "verzonden", "aan", "onderwerp",
        "enviada", "assunto",
        "wysłano", "do", "temat", "dw", "udw",  # Polish
        "lähetetty", "vastaanottaja", "aihe", "kopio", "päivämäärä",  # Finnish
        "отправлено", "кому", "тема", "копия", "дата",  # Russian
        "skickat", "till", "ämne", "kopia",  # Swedish
        "sendt", "til", "emne", "dato",  # Danish, Norwegian
    }
)

# The keys of a header block's date line, which GMX and web.de put first.
_SENT_KEYS = frozenset({"sent", "date", "gesendet", "datum", "envoyé", "enviado", "enviado el", "fecha", "inviato",
                        "verzonden", "enviada", "wysłano", "lähetetty", "отправлено", "skickat", "sendt", "dato"})

# A phone's or app's signature line, matched against the whole (stripped) line.
_PHONE_SIGNATURE = re.compile(
    r"^("
    r"Sent from my \S.{0,60}"
    r"|Sent from (Mail|Outlook|Yahoo Mail|Proton ?Mail|Samsung|Gmail|AOL)\b.{0,50}"
    r"|Sent from [A-Z][\w.]{1,20}( [A-Z][\w.]{1,20})?( (for|on) \w+( \w+)?)?"  # an app: 'Sent from TypeApp'
    r"|Get [A-Z][\w.]{1,20}( [A-Z][\w.]{1,20})? for (Android|iOS|iPhone|iPad|Windows|Mac)"
    r"|Sent (with|via) .{1,40}"
    r"|Get Outlook for .{1,60}"
    r"|Von meinem .{1,50} gesendet\.?"
    r"|Gesendet (von|mit) .{1,50}"
    r"|Envoy[ée] (de|depuis|à partir de) .{1,50}"
    r"|Enviado (desde|con|do|de) .{1,50}"
    r"|Inviato da .{1,50}"
    r"|Verzonden (vanaf|met|van) .{1,50}"
    r")$",
    re.IGNORECASE,
)

# Lines of our own mails (pbem/services/mail_out/notices.py) and boards (templates/*/board.txt.j2):
# when one turns up unquoted, the player pasted our mail back; from there on it is ours.
_OURS = [
    re.compile(p)
    for p in (
        r"^\S.* -- \d+ players\b",  # the board's header: "Fifth Avenue -- 3 players, front side ..."
        r"^It is your turn\. You may send:",
        r"^Decision \d+: reply to this mail with your commands\.$",
        r"^[^:>]{1,80}\splayed: \S",  # "Ann played: cards orange green"
        r"^\+-{5,}",  # box lines of the map
        r"^\|[0-9A-Z]{2,3}\s",  # "|34W 34th Street West |", "|CH City Hall"
        r"^Board for .+ \((player|seat) \d+\)(\.|, seen from )",
        r"^THE CITIES: in each site\b",  # Manhattan's board (templates/manhattan/board.txt.j2)
        r"^PLAYERS\s+color\s+score\b",
        r"^\|[1-9] (\S+ \d+|  -)\s*\|",  # a row of a Manhattan city: "|1 blue 3  |2   -     |"
        r"^Moderator's board: every hand is shown\.$",
        r"^THE CITY: commissioners walk\b",
        r"^SUPPLY ROW: action B\b",
        r"^CARD STACKS: top card\b",
        r"^PLAYERS\s+score\s+supply\b",
        r"^Waiting for: player \d",
        r"^Waiting for: \S.{0,80}? (chooses|takes|moves|places|bids or passes|won)\b",  # "Waiting for: Bob bids ..."
        r"^Public board\.$",
        r"^The game is over\.$",
        r"^Building stops: ",
        r"^AUCTIONS: .+ brought the .+ back to City Hall$",
        r"^AUCTION FOR ",
        r"^BUILDING$",
        r"^HANDS$",
        r"^Your hand: ",
        r"^FINAL SCORING: the game ended\b",
        r"^Only you see this:$",
        r"^A game of .+ begins: ",
        r"^The moderator changed the game: ",
        r"^Since your last mail:$",
        r"^Bid or pass: the auction for ",
        r"^Your turn: .{1,80}, answer by\b",
        r"^Commands now: \S",
        r"^Commands you may send now \(",
        r"^Reply to this mail with your commands, one per line\b",
        r"^You may send at any time: help, board\b",
        r"^Waiting: \S.{0,80}? (chooses|takes|moves|places|bids or passes|won|decides|plays)\b",
    )
]
_OURS_ANY = re.compile("|".join(f"(?:{p.pattern})" for p in _OURS))  # one pass over a line, not 29


def _clean(text: str) -> str:
    return _CONTROL.sub("", _SPACES.sub(" ", _INVISIBLE.sub("", text)))


def _is_quoted(stripped: str) -> bool:
    return stripped.startswith(">")


def _plural(n: int, word: str) -> str:
    return f"{n} {word}{'' if n == 1 else 's'}"


TALK_WORDS = ("say", "moderator")  # a text of several lines follows, up to a line 'end'


def end_lines(lines: list[str]) -> list[int]:
    """The indexes of the lines 'end' (any case, already stripped), in order."""
    return [j for j, line in enumerate(lines) if line.lower() == "end"]


def next_end(ends: list[int], i: int) -> int:
    """The first of ``ends`` after line ``i``, or -1. A bisection, not a scan: a mail of thousands of talk lines
    without an 'end' would otherwise cost the square of its lines."""
    at = bisect.bisect_right(ends, i)
    return ends[at] if at < len(ends) else -1


def reply_lines(text: str, limit: int | None = None, pasted: Pasted | None = None,
                max_lines: int | None = None) -> tuple[list[str], list[str]]:
    """The player's own lines in a reply's text, and what was skipped.

    Each kept line is stripped; blank lines are dropped. The rules are in the
    module's docstring; they work on the lines alone, so the text of an HTML
    mail goes through ``html_to_text`` first. With a ``limit``, reading stops
    as soon as the kept lines pass that many bytes (UTF-8): they are then too
    many to be used, and reading on would only cost time. The lines ``pasted``
    marks are dropped first, whatever their place or form.
    """
    stripped = [line.strip() for line in _clean(text).replace("\r\n", "\n").replace("\r", "\n").split("\n")]
    kept: list[str] = []
    kept_bytes = 0
    ignored: list[str] = []
    if pasted is not None:
        ours = [i for i, hit in enumerate(pasted(stripped)) if hit and stripped[i]]
        for i in ours:
            stripped[i] = ""
        if ours:
            ignored.append(f"{_plural(len(ours), 'line')} of our own mail pasted back")
    quoted = 0
    attributions = 0
    stop: str | None = None
    talk_ends = -1  # the 'end' line that closes a 'say' or 'moderator' text: it ends that text, not the mail
    ends = end_lines(stripped)
    i = 0
    while i < len(stripped):
        s = stripped[i]
        if not s:
            i += 1
            continue
        if i > talk_ends and s.split(maxsplit=1)[0].lower().rstrip(":,") in TALK_WORDS:
            talk_ends = next_end(ends, i)
        if i == talk_ends:
            kept.append(s)
            i += 1
            continue
        if _is_quoted(s):
            quoted += 1
            i += 1
            continue
        if len(s) <= MAX_PATTERN_LINE:  # no attribution, header, signature or board line is longer
            span = _attribution(stripped, i)
            if span:
                attributions += 1
                i += span
                j = _next_nonblank(stripped, i)
                if j is not None and not _is_quoted(stripped[j]) and _unquoted_original(stripped, j):
                    # Yahoo and Outlook put the original under the attribution without quote marks
                    stop = f"original below an attribution, unquoted ({_plural(_count(stripped, j), 'line')})"
                    break
                continue
            banner = _banner(stripped, i)
            if banner:
                ignored.append(f"warning that the mail came from outside ({_plural(banner, 'line')})")
                i += banner
                continue
            after = _after_attribution(s)
            if after:
                ignored.append(same_line_attribution(after))
                stripped[i] = after  # and read on as a line of its own: it may be a command, 'end', a quote ...
                continue
            stop = _stop(stripped, i)
            if stop is not None:
                if stop.startswith("our board"):
                    head = _our_head_above(kept)
                    if head:
                        del kept[-head:]
                        ignored.append(f"{_plural(head, 'line')} of our mail's head above our board")
                break
        kept.append(s)
        kept_bytes += _utf8_size(s)
        i += 1
        if limit is not None and kept_bytes > limit:
            stop = f"text after {limit} bytes of own lines ({_plural(_count(stripped, i), 'line')})"
            break
        if max_lines is not None and len(kept) > max_lines:
            stop = f"text after {max_lines} own lines ({_plural(_count(stripped, i), 'line')})"
            break

    if quoted:
        ignored.insert(0, _plural(quoted, "quoted line"))
    if attributions:
        ignored.append(_plural(attributions, "attribution line") + " ('On ... wrote:')")
    if stop:
        ignored.append(stop)
    return kept, ignored


def same_line_attribution(after: str) -> str:
    """How ``ignored`` notes an 'On ... wrote:' that has the text ``after`` on its line (read as a line)."""
    return f"attribution before '{after[:40]}' on the same line"


def _count(stripped: list[str], start: int) -> int:
    """The non-blank lines from ``start`` on."""
    return sum(1 for s in stripped[start:] if s)


def _next_nonblank(stripped: list[str], start: int) -> int | None:
    return next((j for j in range(start, len(stripped)) if stripped[j]), None)


def _stop(stripped: list[str], i: int) -> str | None:
    """Why the player's text ends at line ``i`` ('' when it just ends there), or None if it goes on."""
    s = stripped[i]
    if s.lower() == "end":
        return f"text after 'end' ({_plural(_count(stripped, i + 1), 'line')})" if _count(stripped, i + 1) else ""
    if s == "--":  # the "-- " delimiter, its trailing space often lost on the way
        return f"signature ({_plural(_count(stripped, i), 'line')})"
    if len(s) <= 80 and _PHONE_SIGNATURE.match(s):
        return f"phone signature '{s[:40]}' ({_plural(_count(stripped, i), 'line')})"
    if _ORIGINAL_MESSAGE.match(s) or _header_block(stripped, i) or (
        _UNDERSCORES.match(s) and (j := _next_nonblank(stripped, i + 1)) is not None and _header_block(stripped, j)
    ):
        return f"original message below a reply header ({_plural(_count(stripped, i), 'line')})"
    if _LIST_FOOTER.match(s) or (
        _UNDERSCORES.match(s) and (j := _next_nonblank(stripped, i + 1)) is not None and _LIST_NAME.match(stripped[j])
    ) or (_LIST_RULE.match(s) and _list_words_below(stripped, i)):
        return f"mailing list footer ({_plural(_count(stripped, i), 'line')})"
    if _DISCLAIMER.match(s):
        return f"disclaimer ({_plural(_count(stripped, i), 'line')})"
    if _FORWARDED.match(s):
        return f"forwarded message ({_plural(_count(stripped, i), 'line')})"
    if _OURS_ANY.match(s):
        return f"our board pasted back ({_plural(_count(stripped, i), 'line')})"
    return None


def _unquoted_original(stripped: list[str], j: int) -> bool:
    """Whether the text from ``j`` on, right under an attribution, is the original mail without quote marks
    rather than the player's answer: it is, unless the player's text goes on to a quote further down (an
    interleaved answer, 'On ... wrote:' / the player's lines / '> ...')."""
    return not any(_is_quoted(stripped[k]) for k in range(j, min(len(stripped), j + 200)) if stripped[k])


def _our_head_above(kept: list[str]) -> int:
    """How many of the last ``kept`` lines are the head of our mail ('Done: ...', 'Waiting: ...', a deadline's
    date) that stands right above our board pasted back: they are ours too."""
    n = 0
    while n < len(kept) and n < 12 and _OUR_HEAD.match(kept[-1 - n][:MAX_PATTERN_LINE]):
        n += 1
    while n and not _OUR_HEAD_WORD.match(kept[-n]):
        n -= 1  # the run starts with one of our heading words: a player's '- pass' or '... UTC' above it stays
    return n


def _list_words_below(stripped: list[str], i: int) -> bool:
    """Whether one of the three lines under the rule at ``i`` says how to leave a mailing list or where it lives."""
    seen = 0
    for j in range(i + 1, min(len(stripped), i + 8)):
        if not stripped[j]:
            continue
        if _LIST_WORDS.search(stripped[j][:MAX_PATTERN_LINE]):
            return True
        seen += 1
        if seen == 3:
            break
    return False


def _banner(stripped: list[str], i: int) -> int:
    """How many lines from ``i`` are a mail server's warning that the mail came from outside; 0 if none. The
    warning is a paragraph (up to a blank line, at most _BANNER_LINES lines) that starts as one
    ('CAUTION:', 'EXTERNAL EMAIL:', '[EXTERNAL]') and speaks of outside and of links, attachments or the sender;
    '[EXTERNAL]' alone on its line is one too."""
    if not _BANNER_START.match(stripped[i]):
        return 0
    if stripped[i].strip("*[] ").lower() == "external":
        return 1
    end = i
    while end < len(stripped) and stripped[end] and end - i < _BANNER_LINES:
        end += 1
    if end < len(stripped) and stripped[end]:
        return 0  # longer than a warning: the player's
    paragraph = " ".join(stripped[i:end])
    if len(paragraph) > _ATTRIBUTION_MAX * 3:
        return 0
    return end - i if _BANNER_OUTSIDE.search(paragraph) and _BANNER_WHAT.search(paragraph) else 0


def _joined(lines: list[str]) -> str:
    """Lines of a wrapped attribution as one: by a space, or by nothing after a quoted-printable soft line break
    left undecoded ('<ann@x=' / '.test> wrote:', a client that sent quoted-printable as 8bit)."""
    text = lines[0] if lines else ""
    for line in lines[1:]:
        text = text[:-1] + line if text.endswith("=") else text + " " + line
    return text


def _attribution(stripped: list[str], i: int) -> int:
    """How many lines from ``i`` make an attribution ("On ... wrote:"); 0 if none.

    Clients wrap a long one over two to four lines. A span only counts when
    the lines after its first are no attribution by themselves, so a player's
    line just above an attribution is not taken into it.
    """
    for end in range(i, min(len(stripped), i + _ATTRIBUTION_LINES)):
        last = stripped[end]
        if not last or _is_quoted(last):
            break
        if not last.endswith(_ATTRIBUTION_ENDS):
            continue
        joined = _joined(stripped[i : end + 1])
        if len(joined) > _ATTRIBUTION_MAX:
            break
        if _is_attribution(joined) and not any(
            _is_attribution(_joined(stripped[j : end + 1])) for j in range(i + 1, end + 1)
        ):
            return end - i + 1
    s = stripped[i]
    if len(s) <= 200 and s.endswith((":", "：")) and (_WROTE.search(s) or _ADDRESS_AT_END.search(s) or _MUTT.match(s)):
        # "Ann <ann@example.org> wrote:", with no date: an attribution only when a quote follows
        j = _next_nonblank(stripped, i + 1)
        return 1 if j is not None and _is_quoted(stripped[j]) else 0
    return 0


def _is_attribution(text: str) -> bool:
    """Whether ``text`` (a line, or lines joined by spaces) is an attribution, whole."""
    if text.startswith("--") and text.endswith("--"):
        # Zoho frames it in dashes instead of ending it with a colon: "---- On ... wrote ----"; the
        # date tells it from "-----Original Message-----". (A regex for the frame backtracks badly.)
        inner = text.strip("-").strip()
        if _DATE_OR_TIME.search(inner):
            text = inner + ":"
    if any(p.match(text) for p in _ATTRIBUTIONS):
        return True
    address = _ADDRESS_AT_END.search(text)
    return (
        address is not None
        and _DATE_OR_TIME.search(text, 0, address.start()) is not None
        and _COLON_BEFORE_TEXT.search(text, 0, len(text) - 1) is None
    )


def _after_attribution(line: str) -> str:
    """The player's text after an attribution on the same line ("On ... wrote: bid brown 4 6"); "" if none.

    The attribution must hold a date or time, so that a player's own "On
    Monday I wrote: pass" stays whole.
    """
    for number, colon in enumerate(_COLON.finditer(line, 0, _ATTRIBUTION_MAX)):
        if number == _ATTRIBUTION_COLONS:
            break
        head, tail = line[: colon.end()], line[colon.end() :].strip()
        if tail and _DATE_OR_TIME.search(head) and _is_attribution(head):
            return tail
    return ""


def _header_key(line: str) -> str | None:
    match = _HEADER.match(line)
    return match.group(1).strip().lower() if match else None


def _header_block(stripped: list[str], i: int) -> bool:
    """Whether line ``i`` starts a quoted mail's header block ("From: ... / Sent: ... / To: ..."). GMX and web.de
    put the date first ("Gesendet: Montag, 03. November 2026 um 10:02 Uhr" / "Von: ..."): a date line right above
    a block starts it."""
    key = _header_key(stripped[i])
    if key in _SENT_KEYS and _DATE_OR_TIME.search(stripped[i]):
        j = _next_nonblank(stripped, i + 1)
        return j is not None and j <= i + 2 and _header_key(stripped[j]) in _FROM_KEYS and _header_block(stripped, j)
    if key not in _FROM_KEYS:
        return False
    seen = 0
    for j in range(i + 1, min(len(stripped), i + 8)):
        if not stripped[j]:
            continue
        seen += 1
        if _header_key(stripped[j]) in _HEADER_KEYS:
            return True
        if seen >= 3:
            break
    return False
