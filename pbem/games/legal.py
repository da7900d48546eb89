"""Legal commands in compact form, for people: a few shapes instead of a long list.

``compact`` writes a list of commands as shapes whose slots list their choices:
``B <boutique|jeweler> 34W <orange|gray>`` stands for exactly the four
commands it spells, never for one that is not in the list. Commands are
grouped by their first word and their length, and within a group the choices
of a slot are merged only where they allow the same rest of the command, so the
shapes are exact. Pure: it only reads strings.
"""

from __future__ import annotations

from collections.abc import Sequence


def compact(commands: Sequence[str]) -> list[str]:
    """``commands`` as shapes, in the order their first commands came."""
    groups: dict[tuple[str, int], list[tuple[str, ...]]] = {}
    for command in commands:
        words = tuple(command.split())
        if words:
            groups.setdefault((words[0], len(words)), []).append(words[1:])
    return [" ".join((first, *shape)) for (first, _), rests in groups.items() for shape in _factor(rests)]


def _factor(rows: list[tuple[str, ...]]) -> list[list[str]]:
    """Shapes for rows of equal length: the first slot's values that allow the same rests share one slot."""
    if not rows or not rows[0]:
        return [[]]
    rests_of: dict[str, list[tuple[str, ...]]] = {}
    for row in rows:
        rests = rests_of.setdefault(row[0], [])
        if row[1:] not in rests:
            rests.append(row[1:])
    classes: dict[frozenset[tuple[str, ...]], tuple[list[str], list[tuple[str, ...]]]] = {}
    for value, rests in rests_of.items():
        classes.setdefault(frozenset(rests), ([], rests))[0].append(value)
    shapes = []
    for values, rests in classes.values():
        slot = values[0] if len(values) == 1 else "<" + "|".join(values) + ">"
        shapes += [[slot, *rest] for rest in _factor(rests)]
    return shapes


def spelled(shape: str) -> list[str]:
    """The commands a shape stands for (the inverse of ``compact``, for checks)."""
    commands = [""]
    for word in shape.split():
        choices = word[1:-1].split("|") if word.startswith("<") and word.endswith(">") else [word]
        commands = [f"{c} {choice}".strip() for c in commands for choice in choices]
    return commands
