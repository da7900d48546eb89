"""The words of a game's commands, and small typos of them: 'brwn' is brown, 'care' is nothing.

The mail reader (``pbem.mail.commands``) tells a command from prose by these
words. One typo measure serves the whole project, so that a word the mail reader takes for a
misspelt game word (``pbem.mail.commands``) is the word the command parser
then suggests ("did you mean brown?"). Players misspell inside a word, rarely
its first letter; and a short word is too easily one letter away from another
word to be called a typo of it (docs/rules.md D42).

The distance is the optimal string alignment distance (insertions, deletions,
substitutions and swaps of neighbours) from rapidfuzz.
"""

from __future__ import annotations

import functools
import re
from collections.abc import Iterable
from dataclasses import dataclass


@dataclass(frozen=True)
class Vocabulary:
    """What may stand in a game's commands: the words that start one, the words with a meaning after it (colors,
    places, businesses ... and their aliases; numbers are always meant), and filler words a command may hold
    but that alone do not make a line a command ('the', 'in'; 'building' in 'stop building'). Only the command
    words that are a command by themselves may stand alone in a line ('pass'; 'B.' under a mail is Bob)."""

    commands: frozenset[str]
    words: frozenset[str]
    fillers: frozenset[str] = frozenset()
    alone: frozenset[str] = frozenset()  # command words that are a whole command by themselves: 'pass', 'A'
    # Names that start a command when a colon follows them (lower case, words separated by one space): the
    # auction an order is for ('42W: up to 12 gray', 'Times Square: pass'); the command word after the colon
    # belongs to that command.
    labels: frozenset[str] = frozenset()

    def mistyped_command(self, token: str) -> str | None:
        """The command word ``token`` (lower case) is a small typo of ('plcae' -> place), or None."""
        return None if token in self.commands else _near_command_again(token, self.commands)

    def means(self, token: str) -> bool:
        """Whether ``token`` (lower case, without punctuation) is a game word: a number, a word, a typo of one."""
        return bool(_NUMBER.fullmatch(token)) or token in self.words or near(token, self.words) is not None


_NUMBER = re.compile(r"\d+(?:[x×*]\d+)?")  # '4', and '2x1' (two 1-story parts in Manhattan)
SHORTEST = 4  # words of fewer letters are never typos: 'my' is not 'ny', 'fast' is nearly 'east'
SHORTEST_COMMAND = 3  # ... but a command word of three letters may be ('pas', 'bdi'): it must start the command


def allowed_distance(word: str) -> int:
    return 0 if len(word) < SHORTEST else 1 if len(word) <= 6 else 2


def near(token: str, words: Iterable[str]) -> str | None:
    """The game word ``token`` is a small typo of, the closest (then the first in ``words``); None if none.

    A word is a typo of another when both start with the same letter, neither is a number, and they differ
    by one edit (two from 7 letters on). ``token`` itself being a game word is not a typo."""
    token = token.lower()
    limit = allowed_distance(token)
    if not limit or token.isdigit():
        return None
    # Here, not at the top: a command that loads an engine only to replay a game (pbem game list) reads no typo,
    # and rapidfuzz takes a third of the engine's import.
    from rapidfuzz.distance import OSA

    best, best_distance = None, limit + 1
    for word in words:
        if word == token:
            return None
        if word[:1] != token[:1] or len(word) < SHORTEST or word.isdigit():
            continue
        distance = OSA.distance(token, word, score_cutoff=limit)
        if distance < best_distance:
            best, best_distance = word, distance
    return best


@functools.lru_cache(maxsize=16)
def _by_letter(commands: frozenset[str]) -> dict[str, list[str]]:
    """The command words of three letters or more under their first letter, each list in order."""
    table: dict[str, list[str]] = {}
    for word in sorted(commands):
        if len(word) >= SHORTEST_COMMAND:
            table.setdefault(word[:1], []).append(word)
    return table


def near_command(token: str, commands: Iterable[str]) -> str | None:
    """The command word ``token`` is a small typo of: as ``near``, but from three letters on ('bdi' -> bid, 'pas'
    -> pass), as a command word starts a line and is one of a few; the one-letter actions are never typos."""
    token = token.lower()
    if len(token) < SHORTEST_COMMAND or not token.isalpha():
        return None
    limit = 1 if len(token) < 7 else 2
    # Only words of the same first letter and nearly the same length can be this close: a line of 250,000 words
    # reads each word, and most have no such command word at all.
    candidates = [word for word in _by_letter(frozenset(commands)).get(token[0], ())
                  if abs(len(word) - len(token)) <= limit]
    if token in candidates:
        return None
    if not candidates:
        return None
    from rapidfuzz.distance import OSA

    best, best_distance = None, limit + 1
    for word in candidates:
        distance = OSA.distance(token, word, score_cutoff=limit)
        if distance < best_distance:
            best, best_distance = word, distance
    return best


@functools.lru_cache(maxsize=4096)
def _near_command_again(token: str, commands: frozenset[str]) -> str | None:
    """``near_command``, remembered: a long line repeats its words ('Ann, Ann, ...': 247,000 of them cost 1.4 s
    of CPU to read, each word looked at anew; issue 41)."""
    return near_command(token, commands)


def did_you_mean_command(token: str, commands: Iterable[str]) -> str:
    """' (did you mean place?)' when ``token`` is a typo of one of the command words ``commands``, else ''."""
    found = near_command(token, commands)
    return f" (did you mean {found}?)" if found else ""


def did_you_mean(token: str, words: Iterable[str], spell=str) -> str:
    """' (did you mean brown?)' when ``token`` is a typo of one of ``words``, else ''. ``spell`` writes the word
    found as the player should read it (an alias as its full name)."""
    found = near(token, words)
    return f" (did you mean {spell(found)}?)" if found else ""


__all__ = ["SHORTEST", "SHORTEST_COMMAND", "Vocabulary", "allowed_distance", "did_you_mean", "did_you_mean_command",
           "near", "near_command"]
