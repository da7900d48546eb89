"""Greetings, sign-offs and signatures among a player's own lines: what a reply passes over in silence.

Players write to people: "Hi all," above the command, "Cheers," and their name under it, a signature with a
title and a telephone number, in their own language. Those lines are theirs, but they say nothing to the game,
and an answer that lists them as ignored only buries the lines that matter: the player's prose to the game,
which may be a mistaken command ("Take care of the auction for me"). So a line is courtesy only when it is
nothing else: a greeting or a sign-off phrase with at most a few names or "all" around it, a name on its own at
the end or under a sign-off, a signature's lines under a sign-off, or what is left of an attribution ("pbem
<game@...> wrote:") whose quote was our mail pasted back. Pure: the lines alone, no game.
"""

from __future__ import annotations

import re

__all__ = ["courtesy_lines"]

# Lower case, without punctuation; a phrase is matched on whole words at the start of a line.
GREETINGS = (
    "hi", "hello", "hey", "hiya", "dear", "good morning", "good afternoon", "good evening", "morning", "evening",
    "greetings", "hallo", "moin", "servus", "grüß gott", "grüezi", "guten morgen", "guten tag", "guten abend",
    "liebe", "lieber", "bonjour", "bonsoir", "salut", "coucou", "hola", "buenos días", "buenas", "ciao", "salve",
    "buongiorno", "hoi", "goedemorgen", "goedendag", "hej", "hei", "god morgen", "olá", "oi", "bom dia", "cześć",
    "witam", "dzień dobry", "привет", "здравствуйте", "добрый день", "こんにちは",
)
SIGN_OFFS = (
    "cheers", "thanks", "thank you", "thanks a lot", "many thanks", "thx", "ta", "best", "best wishes",
    "best regards", "kind regards", "warm regards", "regards", "all the best", "take care", "see you", "see ya",
    "c u", "c u soon", "cu", "bye", "take it easy", "good luck", "have fun", "love", "yours", "sincerely", "yours sincerely",
    "gruß", "grüße", "viele grüße", "liebe grüße", "schöne grüße", "beste grüße", "herzliche grüße", "lg", "vg",
    "mfg", "mit freundlichen grüßen", "danke", "tschüss", "viel glück", "viel spaß", "bis bald",
    "merci", "cordialement", "bien à vous", "bises", "amitiés", "à bientôt", "a bientôt", "bonne journée",
    "bonne soirée", "bonne chance", "gracias", "saludos", "un saludo", "abrazos", "hasta pronto", "suerte",
    "grazie", "saluti", "cordiali saluti", "a presto", "buona giornata", "groetjes", "groeten",
    "met vriendelijke groet", "bedankt", "obrigado", "obrigada", "abraços", "atenciosamente", "hälsningar",
    "med vänlig hälsning", "mvh", "hilsen", "vennlig hilsen", "med venlig hilsen", "tack", "takk", "tak",
    "pozdrawiam", "pozdrowienia", "dzięki", "dziękuję", "спасибо", "с уважением", "всего доброго", "удачи",
    "よろしくお願いします", "よろしく", "ありがとう", "ありがとうございます",
)
# Words that may stand beside a greeting or sign-off without making it prose: whom it is for, "and", "from".
ADDRESSEES = frozenset({
    "all", "everyone", "everybody", "folks", "guys", "team", "there", "again", "and", "&", "to", "you", "y'all",
    "zusammen", "alle", "allen", "euch", "à", "tous", "a", "todos", "tutti", "allemaal", "iedereen", "wszystkim",
    "всем", "aus", "from", "de", "da", "z", "from", "so", "much", "very", "in", "advance", "again", "für", "for",
})
_EDGES = "\"'`()[]{}<>*_«»“”„‘’‚.,;:!?¡¿…-–—~ 。、！？"
# An address, found in time linear in the line: it starts only where a run of an address's characters starts
# (a lookbehind), and no part of it can take another part's characters back. '\S+@\S+\.\w+' tried every
# position of a run and every '@' in it: a line of 32,000 letters cost 3.4 s, 250 lines of 300 '@' 2.6 s (issue 41).
_ADDRESS = r"(?<![\w.+-])[\w.+-]++@[\w.-]*?\.\w"
MAX_LINE = 300  # characters; a longer line is prose, never a greeting, a name, a signature or a remnant
_WORD = re.compile(r"[^\W\d_][\w'’.-]*")
_NAME = re.compile(r"^[-–—~]?\s*[^\W\d_][\w'’.-]*(\s+[^\W\d_][\w'’.-]*){0,2}[.,!]?$")
_CONTACT = re.compile(rf"https?://|www\.|{_ADDRESS}|\+?\d[\d ()./-]{{6,}}\d")
_REMNANT = re.compile(rf"(<[^<>\s@]++@[^<>\s]++>|{_ADDRESS}\w*+).{{0,40}}\b(wrote|schrieb|[ée]crit|escribi[óo]|scritto|"
                      r"schreef|escreveu|skrev|napisał|kirjoitti|napsal|написал)\s*+[:：]?$|^<[^<>\s@]++@[^<>\s]++>$",
                      re.IGNORECASE)


def courtesy_lines(lines: list[str]) -> set[int]:
    """The indexes of ``lines`` (a player's own lines, in order) that are greetings, sign-offs, signatures or
    attribution remnants; every other line is the player's to the game."""
    found: set[int] = set()
    signing = False  # under a sign-off: a name and a signature's lines follow
    for i, line in enumerate(lines):
        if len(line) > MAX_LINE:
            signing = False
            continue
        words = _words(line)
        if _is_phrase(words, line):
            found.add(i)
            signing = _starts_with(words, _SIGN_OFF_TABLE) is not None
        elif _REMNANT.search(line):
            found.add(i)
        elif _is_name(line) and (signing or i == len(lines) - 1):
            found.add(i)
        elif signing and _is_signature(line):
            found.add(i)
        else:
            signing = False
    return found


def _words(line: str) -> list[str]:
    return [word for word in (token.strip(_EDGES).lower() for token in line.split()) if word]


def _by_first_word(phrases: tuple[str, ...]) -> dict[str, list[list[str]]]:
    """Each phrase's words, under its first word, the longest phrase first."""
    table: dict[str, list[list[str]]] = {}
    for phrase in sorted(phrases, key=len, reverse=True):
        parts = phrase.split()
        table.setdefault(parts[0], []).append(parts)
    return table


_SIGN_OFF_TABLE = _by_first_word(SIGN_OFFS)
_PHRASE_TABLE = _by_first_word(tuple(dict.fromkeys((*GREETINGS, *SIGN_OFFS))))


def _starts_with(words: list[str], table: dict[str, list[list[str]]], at: int = 0) -> int | None:
    """How many of ``words`` from ``at`` the longest phrase of ``table`` takes; None if none. Only the words the
    phrase needs are compared (a slice of all the rest, at each word, cost the square of the words)."""
    if at >= len(words):
        return None
    for parts in table.get(words[at], ()):
        if words[at:at + len(parts)] == parts:
            return len(parts)
    return None


def _is_phrase(words: list[str], line: str) -> bool:
    """A greeting or sign-off, with only names, addressees and more such phrases beside it: 'Hi all,', 'Cheers,
    Ann', 'Viele Grüße aus Köln', '„Viel Glück“ allen – Grüße'; not 'Take care of the auction for me'."""
    if not words:
        return False
    if "?" in line:
        return False  # a question is prose: 'Hi, can I bid twice?'
    names = {token.strip(_EDGES).lower() for token in line.split() if token.strip(_EDGES)[:1].isupper()}
    taken = 0
    rest = 0
    i = 0
    while i < len(words):
        step = _starts_with(words, _PHRASE_TABLE, i)
        if step is not None:
            taken += 1
            i += step
        elif words[i] in ADDRESSEES or (words[i] in names and rest < 3):
            rest += 1
            i += 1
        else:
            return False
    return taken > 0 and rest <= 4


def _is_name(line: str) -> bool:
    """A name or initials on their own: 'Ann', '-Ann', 'B.', 'Jan Novak', 'Дмитрий'."""
    words = _WORD.findall(line)
    return bool(_NAME.match(line)) and all(word[:1].isupper() for word in words)


def _is_signature(line: str) -> bool:
    """A line of a signature under a sign-off: a name, a title, an address, a telephone number, a web page."""
    if "?" in line or len(line.split()) > 8:
        return False
    if _CONTACT.search(line):
        return True
    words = _WORD.findall(line)
    small = {"of", "and", "at", "de", "the", "for", "und", "et", "y", "e", "van", "von", "&"}
    return bool(words) and all(word[:1].isupper() or word.lower() in small for word in words)
