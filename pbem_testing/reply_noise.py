"""What pbem's answers to the reply corpus (tests/data/replies) list that is not the player's (issue 41, point 4).

Each reply of the corpus is handled as Ann's mail in a game (``MailCommands.handle``, a dry run: nothing is
applied or sent), and the "Ignored:" part of the answer is read back. An entry that is not one of the player's own
lines (the sidecar's ``own``) is noise; a command of the sidecar's ``commands`` that was not read as one is missed.
tests/integration/test_reply_corpus.py asserts on it, bench/reply_noise.py prints it.
"""

from __future__ import annotations

import json
from dataclasses import dataclass, field
from email.message import EmailMessage
from pathlib import Path

from pbem.mail.text import read_message
from pbem.services.mail_in.mail_commands import MailCommands
from pbem.words import cut

CORPUS = Path(__file__).resolve().parents[1] / "tests" / "data" / "replies"


@dataclass
class Noise:
    replies: int = 0
    noisy: dict[str, list[str]] = field(default_factory=dict)  # reply -> the entries that are not the player's
    missed: dict[str, list[str]] = field(default_factory=dict)  # reply -> its commands not read as commands

    @property
    def share(self) -> float:
        return len(self.noisy) / self.replies if self.replies else 0.0


def listed_as_ignored(reply: str) -> list[str]:
    """The entries of an answer's 'Ignored:' part, each unwrapped."""
    entries: list[str] = []
    lines = reply.splitlines()
    if "Ignored:" not in lines:
        return entries
    for line in lines[lines.index("Ignored:") + 1:]:
        if line.startswith("    ") and entries:
            entries[-1] += " " + line.strip()
        elif line.startswith("  ") and not line.startswith("  ... and "):
            entries.append(line.strip())
        else:
            break
    return entries


def as_reply_of(eml: Path, sender: str, subject: str) -> bytes:
    """The reply as ``sender``'s in the game of ``subject``, its client's shape untouched."""
    msg: EmailMessage = read_message(eml.read_bytes())
    for header in ("From", "Subject", "In-Reply-To", "References"):
        del msg[header]
    msg["From"], msg["Subject"] = sender, subject
    return msg.as_bytes()


def measure(processor: MailCommands, sender: str, subject: str, corpus: Path = CORPUS) -> Noise:
    found = Noise()
    for eml in sorted(corpus.glob("*.eml")):
        want = json.loads(eml.with_suffix(".json").read_text(encoding="utf-8"))
        report = processor.handle(as_reply_of(eml, sender, subject), dry_run=True)
        own = {cut(line) for line in want["own"]}  # a line is quoted back by its first characters (issue 42)
        extra = [entry for entry in listed_as_ignored(report.reply_body or "") if entry not in own]
        read = {r.line for r in report.lines if r.status in ("done", "not done")} | {r.read_from for r in report.lines}
        missed = [command for command in want["commands"]  # 'A; cards orange gray' is read as two commands
                  if command not in read and not all(part.strip() in read for part in command.split(";"))]
        found.replies += 1
        if extra:
            found.noisy[eml.stem] = extra
        if missed:
            found.missed[eml.stem] = missed
    return found


__all__ = ["CORPUS", "Noise", "as_reply_of", "listed_as_ignored", "measure"]
