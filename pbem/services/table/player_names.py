"""The names players take by mail (``join N as NAME``, ``new ... as NAME``, or the first letters of their address):
none may pass for somebody else's.

A name is kept as NFKC makes it (a fullwidth 'Ａnn' is 'Ann'), in one script (Latin, Cyrillic, Greek, ...: no
Cyrillic 'А' among Latin letters), and never is or holds "moderator", "pbem" or "robot", nor begins a word with
"Robo" as pbem's robots' names do (Robo1, Robo2): the moderator's words and pbem's robots must not be imitated
at the table. Two names clash when their skeletons are equal: NFKC, case folded, each letter or digit that
Unicode lists as confusable with a Latin one taken as that Latin letter ('0' as 'o', Greek 'Ο' as 'o', Cyrillic
'с' as 'c'). The confusables and the scripts are Unicode's (UTS #39), from confusable_homoglyphs. Pure.
"""

from __future__ import annotations

import functools
import re
import unicodedata

RESERVED = ("moderator", "pbem", "robot")  # no name is or holds one of these, however written
ROBOT_PREFIX = "robo"  # pbem's robots are Robo1, Robo2, ...: no word of a name begins so


def shown(name: str) -> str:
    """``name`` as pbem keeps and shows it: NFKC (fullwidth and compatibility forms as their plain letters),
    spaces collapsed."""
    return " ".join(unicodedata.normalize("NFKC", name).split())


@functools.lru_cache(maxsize=4096)
def _latin(char: str) -> str:
    """The Latin letter (case folded) that ``char`` may be taken for, or ``char`` itself."""
    if char.isascii() and char.isalpha():
        return char
    from confusable_homoglyphs import confusables

    found = confusables.is_confusable(char, greedy=True, preferred_aliases=["latin"]) or []
    lookalikes = [glyph["c"].casefold() for entry in found for glyph in entry["homoglyphs"]
                  if len(glyph["c"]) == 1 and glyph["c"].isascii() and glyph["c"].isalpha()]
    return min(lookalikes) if lookalikes else char


def skeleton(name: str) -> str:
    """What ``name`` looks like, for telling names apart: words of Latin look-alikes, case folded, one space
    between them ('Ａnn' and 'ANN' and 'Аnn' with a Cyrillic А are all 'ann')."""
    folded = unicodedata.normalize("NFKC", name).casefold()
    return " ".join("".join(_latin(char) for char in word) for word in re.findall(r"\w+", folded))


def why_not(name: str) -> str:
    """Why ``name`` may not be a player's ("" when it may)."""
    from confusable_homoglyphs import confusables

    kept = shown(name)
    if confusables.is_mixed_script(kept):
        return "it mixes letters of several scripts (Latin and Cyrillic, say): one script per name"
    looks = skeleton(kept)
    joined = looks.replace(" ", "")
    for word in RESERVED:
        if word in joined:
            return f"it is or holds '{word}', which is pbem's own"
    if any(word.startswith(ROBOT_PREFIX) for word in looks.split()):
        return "a word of it begins with 'Robo', as pbem's robots are named"
    return ""


def same_name(one: str, other: str) -> bool:
    """Whether the two names would be taken for each other."""
    return skeleton(one) == skeleton(other)


__all__ = ["RESERVED", "same_name", "shown", "skeleton", "why_not"]
