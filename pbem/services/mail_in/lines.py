"""Reading a player's lines: which are questions, absences, settings, talk, secret words, a game's number and
the game's commands, and which are prose. Nothing here looks at a game or the database."""

from __future__ import annotations

import re
from dataclasses import dataclass, field, replace
from datetime import date
from email.message import EmailMessage

from ...games import get_game
from ...games.vocabulary import Vocabulary
from ...mail.commands import LineReading, own_subject, read_line
from ...mail.courtesy import courtesy_lines
from ...mail.pasted import SentText
from ...mail.text import TALK_WORDS, MailText, end_lines, extract_text, next_end
from ..mail_out.delivery import checked_mode as delivery_mode
from ..mail_out.delivery import checked_pictures
from ..mail_out.taps import CHOICES_WORD
from .report import SUBJECT

INFO_WORDS = ("help", "board", "hand", "legal", "history")
AWAY = re.compile(r"^away\s+(?:from\s+)?(\d{4}-\d{1,2}-\d{1,2})\s*(?:to|until|-|–)\s*(\d{4}-\d{1,2}-\d{1,2})\.?$", re.I)
# Words of a mail read for commands; the lines after them are listed as prose, unread. A command is read word by
# word against the game's words, some microseconds a word: one line of 330,000 'A,' (1 MB) cost 1.5 s of CPU, more
# than the second one mail may cost (issue 41). 2,000 lines of commands and talk hold some 50,000 words.
MAX_WORDS_READ = 100_000
# A player's settings by mail, each with what it may be set to.
SETTINGS = {
    "mail": "'mail turns' (a mail when you must decide, the default), 'mail all' or 'mail digest'",
    "pictures": "'pictures on' (a picture of the board in every game mail, the default) or 'pictures off'",
}


def parse_away(line: str) -> tuple[date, date]:
    """'away 2026-12-24 to 2027-01-02' -> the first and the last day away."""
    found = AWAY.match(line.strip())
    if not found:
        raise ValueError(f"'{line.strip()}' is not an absence.")
    try:
        first, last = (date.fromisoformat("-".join(f"{int(x):02d}" if len(x) < 3 else x for x in d.split("-")))
                       for d in found.groups())
    except ValueError as exc:
        raise ValueError(f"'{line.strip()}' has a date that does not exist ({exc}).") from exc
    return first, last


def talk_blocks(lines: list[str]) -> tuple[list[str], list[tuple[str, str]]]:
    """The lines without the 'say' and 'moderator' texts, and those texts as (word, text): the rest of the
    word's line and, when a line 'end' follows, every line up to it."""
    rest: list[str] = []
    talks: list[tuple[str, str]] = []
    ends = end_lines([line.strip() for line in lines])
    i = 0
    while i < len(lines):
        word, _, text = lines[i].partition(" ")
        word = word.lower().rstrip(":,")
        if word not in TALK_WORDS:
            rest.append(lines[i])
            i += 1
            continue
        end = next_end(ends, i)
        block = [text.strip(), *lines[i + 1:end]] if end >= 0 else [text.strip()]
        talks.append((word, "\n".join(line for line in block if line)))
        i = end + 1 if end >= 0 else i + 1
    return rest, talks


def setting(line: str) -> tuple[str, str]:
    """('mail', mode) or ('pictures', 'on'/'off') of a setting line, or ValueError saying what is wrong."""
    name, value = line.split()[0].lower(), line.split()[1].rstrip(".")
    return name, (delivery_mode(value) if name == "mail" else checked_pictures(value))


def split_secret_lines(lines: list[str]) -> tuple[list[str], list[str]]:
    """The lines without the 'secret <word>' ones, and the words those gave."""
    rest, words = [], []
    for line in lines:
        parts = line.split()
        if parts[0].lower().rstrip(":") == "secret":
            words.append(" ".join(parts[1:]))
        else:
            rest.append(line)
    return rest, words


def game_lines(lines: list[str]) -> tuple[int | None, list[str]]:
    """The game a line 'game 12' names (the last such line), and the other lines that are not empty."""
    named, rest = None, []
    for line in lines:
        words = line.split()
        if not words:
            continue
        number = re.fullmatch(r"#?([0-9]{1,30})", words[1]) if len(words) == 2 else None
        if number and words[0].lower() == "game":
            named = int(number.group(1))
        else:
            rest.append(line)
    return named, rest


@dataclass
class SortedLines:
    """A mail's lines by what they ask for, each in the mail's order."""

    readings: list[LineReading] = field(default_factory=list)  # the game's commands
    asked: list[str] = field(default_factory=list)  # help, board, ...: each once
    ignored: list[str] = field(default_factory=list)  # prose to the game: listed in the reply, it may be a mistake
    courtesy: list[str] = field(default_factory=list)  # greetings, sign-offs, signatures: passed over in silence
    away: list[str] = field(default_factory=list)
    settings: list[str] = field(default_factory=list)
    talks: list[tuple[str, str]] = field(default_factory=list)  # (say or moderator, the text)
    choices: list[str] = field(default_factory=list)  # 'choices <words>': a list of commands asked (issue 44)


def sort_lines(lines: list[str], vocabulary: Vocabulary, most: int | None = None) -> SortedLines:
    """Each line of a player's own text (secret words taken out) sorted by what it asks for. With ``most``, no
    more commands than that are read (the rest of their line is left unread): a mail of more is refused anyway."""
    rest, talks = talk_blocks(lines)
    commands = 0
    found = SortedLines(talks=talks)
    courtesy = courtesy_lines(rest)
    words = 0
    for at, line in enumerate(rest):
        split = line.split()
        words += len(split)
        first = split[0].lower().rstrip(":,.")
        if words > MAX_WORDS_READ:
            found.ignored.append(line)  # not read: too many words before it, or in it
        elif first in INFO_WORDS and len(split) == 1:
            if first not in found.asked:  # answered once, however often it is asked: no reply grows with the mail
                found.asked.append(first)
        elif first == CHOICES_WORD:
            found.choices.append(" ".join(split))
        elif first == "away":
            found.away.append(line)
        elif first in SETTINGS and len(split) == 2:
            found.settings.append(line)
        elif first == "orders" and len(split) == 2 and split[1].lower().rstrip(".!") in ("on", "off"):
            # 'orders on|off' (Fifth Avenue, D48): a game's command on a line of its own, like a setting; read by
            # the line, not by the command words, so that 'Orders: 42W: up to 12' stays the order it is
            found.readings.append(LineReading(line.strip(), [f"orders {split[1].lower().rstrip('.!')}"], []))
            commands += 1
        elif (reading := read_line(line, vocabulary, None if most is None else max(most - commands, 0))).commands:
            found.readings.append(reading)
            commands += len(reading.commands)
        elif at in courtesy:
            found.courtesy.append(line)  # 'Hi all,', 'Cheers,', 'Ann'
        else:
            found.ignored.append(line)  # prose: 'Take care of the auction for me', 'Pass my regards to Bob'
    return found


def subject_commands(subject: str, vocabulary: Vocabulary, ours: list[str]) -> list[LineReading]:
    """The commands of a mail whose body has none, read from its subject: 'Re: [Manhattan #2] your turn ...
    play 5 cairo 1', or a new mail '[Fifth Avenue #3] pass'. A reply whose answered subject we do not know
    is not read: its words may be ours."""
    reading = read_line(own_subject(subject, ours), vocabulary)
    return [replace(reading, line=f"{SUBJECT} '{subject}'", left=[subject])] if reading.commands else []


def without_our_text(msg: EmailMessage, read: MailText, kind: str, sent: list[tuple[str, str]]) -> MailText | None:
    """The player's text (``read``) read again without what they pasted back of our mails (``sent``: the mail
    answered and the recent mails to them), wherever it stands; None when nothing of ours was pasted."""
    ours = SentText(text for _, text in sent)
    if not ours or not any(ours.pasted(read.body.splitlines())):
        return None  # most mails: nothing of ours unquoted, and the lines read already stand
    vocabulary = get_game(kind).VOCABULARY

    def sent_by_players(line: str) -> bool:  # a line a player sends as it is in our mails: an order
        words = line.lower().split()
        return (len(words) == 1 and words[0] in INFO_WORDS) or words[0] in ("game", "away", "secret") or \
            read_line(line, vocabulary).whole

    return extract_text(msg, pasted=lambda lines: ours.pasted(lines, sent_by_players))


__all__ = ["AWAY", "INFO_WORDS", "MAX_WORDS_READ", "SETTINGS", "SortedLines", "game_lines", "parse_away", "setting", "sort_lines",
           "split_secret_lines", "subject_commands", "talk_blocks", "without_our_text"]
