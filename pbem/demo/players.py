"""Robot players that play by mail, the way a person with a mail client would.

A robot reads its own INBOX over IMAP (imapclient) and finds the newest mail of
its game (the subject's tag, "[Fifth Avenue #7]") that asks it for the current
decision: the ``X-Pbem-Decision: N`` header, N counting the commands applied so
far. The mail lists the commands the robot may send as shapes, one a line below
"Commands you may send now" (``listed_shapes``): ``B <boutique|gallery> 34W
<orange|gray>``, where a slot ``<a|b>`` takes one of its values; ``bid orange
<some of 4 5 5> [black <some of 4 6>], worth more than 9 in all``; ``choose
<1|2|3> <1|2|3|4> ... (no more of a size than you have left)``. With a seeded
random generator (``pick``) the robot chooses a kind of command first (its first
word), so robots also bid, pass, score and stop rather than only placing
businesses, then a shape of that kind, then a command of that shape: a value a
slot; a random bid worth more than the high bid (the biggest of the color after
a few misses, another shape such as ``pass`` if even that is not enough); parts
it has left (``command_of``). The same mails and the same seed give the same
commands. It answers over SMTP: "Re:" subject, In-Reply-To and References, its
command on top and the game's mail quoted below with "> ".
"""

from __future__ import annotations

import re
import smtplib
import time
from dataclasses import dataclass
from email import policy
from email.message import EmailMessage
from email.parser import BytesParser
from email.utils import format_datetime, formataddr, make_msgid, parseaddr
from datetime import datetime, timezone
from typing import TYPE_CHECKING, Protocol

from ..games.rng import Rng

if TYPE_CHECKING:
    from imapclient import IMAPClient

HEADING = "Commands you may send now"
SLOT = re.compile(r"<([^<>]*)>")
BID = re.compile(r"^bid (\S+) <some of ([\d ]+)>(?: \[black <some of ([\d ]+)>\])?(?:, worth more than (\d+) in all)?$")
CHOOSE_TAIL = " (no more of a size than you have left)"
LEFT_WORDS = re.compile(r"Your (?:(\w+) )?parts left in the box: ((?:\d+ of \d stor(?:y|ies)(?:, )?)+)")
SUPPLY_HEAD = re.compile(r"^\S.*\bcolor\b.*\b1s( \ds)+\b")  # the Manhattan board's PLAYERS table
BID_TRIES = 5  # random bids drawn before the biggest bid of the color is taken


class MailAccess(Protocol):
    """Where a robot's mailbox is: the demo's own servers, or any IMAP and SMTP server (the tests use Dovecot)."""

    host: str  # of the SMTP server
    smtp_port: int

    def imap(self, address: str) -> IMAPClient:
        """A new IMAP connection logged in as ``address``."""


class RobotError(RuntimeError):
    """A robot cannot answer (its request never came, or listed no command)."""


@dataclass
class Reply:
    decision: int
    command: str
    message_id: str


# --------------------------------------------------------------------------- reading a request


def listed_shapes(text: str) -> list[str]:
    """The command shapes a game mail offers, in its order: the lines indented by two spaces below "Commands
    you may send now", each joined with its continuation lines (indented by six)."""
    shapes: list[str] = []
    reading = False
    for line in text.replace("\r\n", "\n").split("\n"):
        if not reading:
            reading = line.startswith(HEADING)
        elif line.startswith("      ") and shapes:
            shapes[-1] += " " + line.strip()
        elif line.startswith("  ") and line.strip():
            shapes.append(line.strip())
        else:
            break
    return shapes


def parts_left(text: str) -> dict[str, list[int]]:
    """Manhattan: the parts left in the box by size, of every color the mail tells ({"blue": [11, 6, 4, 3]};
    "" for the reader's one color in a game of one color a player), {} when it tells none.

    A request to choose says it in words ("Your blue parts left in the box: 11 of 1 story, 6 of 2 stories,
    ..."); otherwise the board's PLAYERS table has a column per size ("1s 2s 3s 4s", numbers right-aligned
    under their heading)."""
    flat = " ".join(text.split())
    left: dict[str, list[int]] = {}
    for found in LEFT_WORDS.finditer(flat):
        counts = [0, 0, 0, 0]
        for n, size in re.findall(r"(\d+) of (\d) stor", found.group(2)):
            counts += [0] * (int(size) - len(counts))
            counts[int(size) - 1] = int(n)
        left[found.group(1) or ""] = counts
    return left or _table_of_parts(text)


def _table_of_parts(text: str) -> dict[str, list[int]]:
    lines = text.replace("\r\n", "\n").split("\n")
    for at, head in enumerate(lines):
        if SUPPLY_HEAD.match(head):
            break
    else:
        return {}
    color_at = head.index("color")
    sizes = [(m.start(), m.end()) for m in re.finditer(r"\b\ds\b", head)]
    left: dict[str, list[int]] = {}
    for line in lines[at + 1:]:
        if not line.startswith("  ") or len(line) < sizes[-1][1]:
            break
        words = line[color_at:].split()
        counts = [line[a:b].strip() for a, b in sizes]
        if not words or not all(c.isdigit() for c in counts):
            break
        left[words[0]] = [int(c) for c in counts]
    return left


# --------------------------------------------------------------------------- from shapes to a command


def _values(words: str | None) -> list[int]:
    return [int(w) for w in words.split()] if words else []


def _some(values: list[int], rng: Rng) -> list[int]:
    """A random part of ``values`` (each card in or out), possibly empty."""
    return [v for v in values if rng.below(2)]


def _bid(shape: str, rng: Rng) -> str | None:
    """A random bid of a bid shape, worth more than its high bid; the biggest if a few tries do not beat it;
    None when even the biggest does not."""
    found = BID.match(shape)
    if found is None:
        return None
    color, colored, black, high = found.group(1), _values(found.group(2)), _values(found.group(3)), found.group(4)
    beat = int(high or 0)

    def spelled(cards: list[int], blacks: list[int]) -> str:
        words = ["bid", color, *map(str, sorted(cards))]
        return " ".join(words + (["black", *map(str, sorted(blacks))] if blacks else []))

    for _try in range(BID_TRIES):
        cards = _some(colored, rng) or [colored[rng.below(len(colored))]]
        blacks = _some(black, rng) if black and rng.below(2) else []
        if sum(cards) + sum(blacks) > beat:
            return spelled(cards, blacks)
    # Own cards already on the table count too, but the shape does not say how many: more than the high
    # bid with the new cards alone is always enough.
    return spelled(colored, black) if sum(colored) + sum(black) > beat else None


def _options(word: str) -> list[str]:
    slot = SLOT.fullmatch(word)
    return slot.group(1).split("|") if slot else [word]


def _choose(shape: str, rng: Rng | None, left: dict[str, list[int]]) -> str:
    """A choice of parts for a choose shape (``rng`` None: the first color and the smallest parts): a size a
    slot, ascending, no more of a size than the player has left.

    A slot lists every size that some legal choice has in its place, so the smallest values of the slots
    spell the smallest legal choice and the biggest values the biggest: the player has every size at least
    as many times as one of those two holds it, and once if any slot holds it. Any choice from those parts
    is legal. With two colors still to choose, the slots mix the colors' choices: then only the parts left
    that the mail tells (``left``, see ``parts_left``) say what the chosen color has.
    """
    words = shape[: -len(CHOOSE_TAIL)].split()[1:]
    colors = _options(words[0]) if words else []
    if colors and all(c.isdigit() for c in colors):
        colors = []
    else:
        words = words[1:]
    color = colors[rng.below(len(colors)) if rng else 0] if colors else None
    slots = [[int(v) for v in _options(word)] for word in words]
    bag: dict[int, int] = {}
    if len(colors) < 2:
        smallest, biggest = [min(s) for s in slots], [max(s) for s in slots]
        for size in {v for s in slots for v in s}:
            bag[size] = max(smallest.count(size), biggest.count(size), 1)
    for size, count in enumerate(left.get(color or "", []), start=1):
        bag[size] = max(bag.get(size, 0), min(count, len(slots)))
    parts = [size for size in sorted(bag) for _ in range(bag[size])]
    if len(parts) < len(slots):  # two colors and no table: the smallest sizes the slots allow, the best guess
        parts = sorted(min(s) for s in slots)
    elif rng is not None:
        rng.shuffle(parts)
    sizes = sorted(parts[: len(slots)])
    return " ".join(["choose", *([color] if color else []), *map(str, sizes)])


def command_of(shape: str, rng: Rng, *, left: dict[str, list[int]] | None = None) -> str | None:
    """One concrete command of ``shape``: a value of every ``<a|b>`` slot, a bid worth more than the high
    bid, a choice of parts the player has; None for a bid shape whose cards cannot beat the high bid."""
    if shape.startswith("bid ") and "<some of " in shape:
        return _bid(shape, rng)
    if shape.startswith("choose ") and shape.endswith(CHOOSE_TAIL):
        return _choose(shape, rng, left or {})
    words = []
    for word in shape.split():
        choices = _options(word)
        words.append(choices[rng.below(len(choices))])
    return " ".join(words)


def pick(shapes: list[str], rng: Rng, *, left: dict[str, list[int]] | None = None) -> str:
    """A kind of command first (its first word: place, A, B, C, D, cards, move, bid, pass, build, stop, choose,
    play), then a shape of that kind, then a command of that shape (``command_of``); a bid shape that cannot
    beat the high bid gives way to another shape (pass). A listed command is a shape without slots."""
    shapes = list(shapes)
    while shapes:
        kinds: dict[str, list[str]] = {}
        for shape in shapes:
            kinds.setdefault(shape.split()[0].lower(), []).append(shape)
        group = kinds[sorted(kinds)[rng.below(len(kinds))]]
        shape = group[rng.below(len(group))]
        command = command_of(shape, rng, left=left)
        if command is not None:
            return command
        shapes.remove(shape)
    raise RobotError("no shape of the mail gives a command to send")


def choose_command(text: str, rng: Rng) -> str:
    """The command a robot sends for a game mail's ``text``: ``pick`` among the shapes it lists, with the
    parts left it tells. Raises RobotError for a mail that lists no shape."""
    shapes = listed_shapes(text)
    if not shapes:
        raise RobotError("the mail lists no command")
    return pick(shapes, rng, left=parts_left(text))


def listed_commands(text: str) -> list[str]:
    """One command for every shape a game mail offers, in its order (the first value of every slot, the
    biggest bid, the smallest parts): for scripts and tests that want any command the mail allows."""
    left = parts_left(text)
    commands = []
    for shape in listed_shapes(text):
        if shape.startswith("bid ") and "<some of " in shape:
            found = BID.match(shape)
            if found is not None:
                commands.append(" ".join(["bid", found.group(1), *found.group(2).split()]
                                         + (["black", *found.group(3).split()] if found.group(3) else [])))
        elif shape.startswith("choose ") and shape.endswith(CHOOSE_TAIL):
            commands.append(_choose(shape, None, left))
        else:
            commands.append(" ".join(_options(word)[0] for word in shape.split()))
    return commands


def text_of(message: EmailMessage) -> str:
    part = message.get_body(("plain",))
    return part.get_content().replace("\r\n", "\n") if part is not None else ""


def reply_like_a_client(original: EmailMessage, sender: str, text: str, *, now: datetime | None = None) -> EmailMessage:
    """A reply as mail clients write it: the answer on top, the original quoted below."""
    now = now or datetime.now(timezone.utc)
    subject = str(original["Subject"] or "")
    reply = EmailMessage()
    reply["From"] = sender
    reply["To"] = str(original["Reply-To"] or original["From"])
    reply["Subject"] = subject if subject.lower().startswith("re:") else f"Re: {subject}"
    reply["Date"] = format_datetime(now)
    reply["Message-ID"] = make_msgid(domain=parseaddr(sender)[1].rpartition("@")[2] or "demo.test")
    if original["Message-ID"]:
        reply["In-Reply-To"] = str(original["Message-ID"])
        reply["References"] = f"{original.get('References', '')} {original['Message-ID']}".strip()
    quoted = "\n".join(("> " + line).rstrip() for line in text_of(original).splitlines())
    written = original["Date"] or format_datetime(now)
    reply.set_content(f"{text}\n\nOn {written}, {original['From']} wrote:\n{quoted}\n")
    return reply


def _heads(header_block: bytes) -> tuple[str, int | None]:
    """The Subject of a fetched header block, decoded, and the decision its X-Pbem-Decision header names."""
    message = BytesParser(policy=policy.default).parsebytes(header_block, headersonly=True)
    number = str(message["X-Pbem-Decision"] or "").strip()
    return str(message["Subject"] or ""), int(number) if number.isdigit() else None


class Robot:
    """One seat played by a program through its own mailbox."""

    def __init__(self, mail: MailAccess, name: str, address: str, seed: int, *, subject_tag: str) -> None:
        self.mail = mail
        self.name = name
        self.address = address.strip().lower()
        self.subject_tag = subject_tag  # "[Fifth Avenue #7]": mail of other games is left alone
        self.rng = Rng(seed)
        self.requests: dict[int, tuple[int, EmailMessage]] = {}  # decision -> (uid, the newest mail asking it)
        self.last_uid = 0
        self.sent = 0
        self._client: IMAPClient | None = None

    # -- the mailbox -----------------------------------------------------------------

    def _imap(self) -> IMAPClient:
        if self._client is None:
            self._client = self.mail.imap(self.address)
            self._client.select_folder("INBOX")
        return self._client

    def close(self) -> None:
        client, self._client = self._client, None
        if client is not None:
            try:
                client.logout()
            except Exception:  # noqa: BLE001 - the server may be gone already
                pass

    def check_mail(self) -> int:
        """Read the mails that arrived since the last look; returns how many."""
        from imapclient.exceptions import IMAPClientError

        try:
            client = self._imap()
            client.noop()
            uids = sorted(uid for uid in client.search(["UID", f"{self.last_uid + 1}:*"]) if uid > self.last_uid)
        except (IMAPClientError, OSError):
            self.close()  # log in again next time
            raise
        if not uids:
            return 0
        # Two headers first (cheap); the whole mail only for the newest request of each decision.
        heads = client.fetch(uids, ["BODY.PEEK[HEADER.FIELDS (SUBJECT X-PBEM-DECISION)]"])
        wanted: dict[int, int] = {}
        for uid in uids:
            subject, decision = _heads(next((v for k, v in heads.get(uid, {}).items()
                                             if k.startswith(b"BODY[HEADER")), b""))
            if decision is not None and self.subject_tag in subject:
                wanted[decision] = uid
        if wanted:
            bodies = client.fetch(sorted(wanted.values()), ["BODY.PEEK[]"])
            for decision, uid in wanted.items():
                raw = bodies.get(uid, {}).get(b"BODY[]")
                if raw is not None:
                    self.requests[decision] = (uid, BytesParser(policy=policy.default).parsebytes(raw))
        self.last_uid = uids[-1]
        return len(uids)

    def request(self, decision: int, timeout: float = 60.0) -> EmailMessage:
        """The newest mail asking for ``decision``, waiting for it up to ``timeout`` seconds."""
        deadline = time.monotonic() + timeout
        while True:
            self.check_mail()
            if decision in self.requests:
                for older in [d for d in self.requests if d < decision]:
                    del self.requests[older]  # answered long ago
                return self.requests[decision][1]
            if time.monotonic() > deadline:
                raise RobotError(f"{self.name} <{self.address}> got no mail asking for decision {decision} "
                                 f"within {timeout:.0f} s")
            time.sleep(0.05)

    # -- answering -------------------------------------------------------------------

    def answer(self, decision: int, game_address: str, *, timeout: float = 60.0, command: str | None = None) -> Reply:
        """Read the request for ``decision`` and mail the game ``command`` in reply to it; without one, a command
        chosen at random from those the request lists."""
        request = self.request(decision, timeout)
        try:
            command = command or choose_command(text_of(request), self.rng)
        except RobotError as exc:
            raise RobotError(f"the mail asking {self.name} for decision {decision}: {exc}") from None
        reply = reply_like_a_client(request, formataddr((self.name, self.address)), command)
        self.send(reply, game_address)
        return Reply(decision, command, str(reply["Message-ID"]))

    def send(self, message: EmailMessage, to: str) -> None:
        with smtplib.SMTP(self.mail.host, self.mail.smtp_port, timeout=30) as smtp:
            smtp.send_message(message, from_addr=self.address, to_addrs=[to])
        self.sent += 1
