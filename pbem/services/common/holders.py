"""Who held each seat of a game, from which event to which: read from the game's events, never stored apart.

A seat changes hands in two ways, and each is an event with its number (``events.seq``) already:

- the moderator's ``pbem game replace-player`` (a ``replace_player`` event: the seat, who held it before and
  who holds it now, a person or a robot);
- a robot covering a late player (on-timeout=robot: a ``robot_cover`` event), until the player's own next
  command, which takes the seat back: the first command of that seat after it without a ``by`` (a robot's
  moves carry ``by="robot"``, the deadline's ``by="deadline"``, the moderator's ``by="moderator"``).

A robot seat given at the start (``--player Robo=robot``) and an absence (``away``, which moves deadlines) change
no hands. So the history is the record, and a table of holders would only repeat it (and could disagree with
it after an import, which brings the events). Pure: it reads rows already loaded.
"""

from __future__ import annotations

from dataclasses import dataclass, replace
from typing import Any, Iterable, Protocol

TALK = ("say", "tell", "to_moderator")  # table talk: not a step of the game's history
# A robot covering a late player plays under the player's name with this after it: the heuristic robot's
# words in services.table.robot_names (SHOWN), which the timekeeper puts on the seat.
COVERING_SUFFIX = " (robot)"
ROBOT_SUFFIXES = {" (robot)": "heuristic", " (strong robot)": "strong"}


class Row(Protocol):
    seq: int
    kind: str
    seat: int | None
    data: dict[str, Any]  # (an event's ``actor`` is read when it has one: a player who resigned is its address)


class Holder(Protocol):
    seat: int
    name: str
    email: str
    robot: str


@dataclass(frozen=True)
class Holding:
    """One person's (or robot's) time at a seat: from event ``first`` to event ``last`` (None: to now)."""

    seat: int
    name: str
    email: str  # "" for a robot covering a late player: it plays under the player's address
    robot: str  # "" for a person, else the robot's kind ("heuristic", "strong")
    first: int  # the first event they held the seat at (1: from the start)
    last: int | None = None
    moves: int = 0  # the commands they played at the seat (the deadline's and the moderator's for them included)
    covers: str = ""  # for a robot covering a late player: that player's name
    resigned: bool = False  # they gave the seat up themselves (``resign``: the replacement's actor is their address)

    @property
    def is_robot(self) -> bool:
        return bool(self.robot)


def robot_of(name: str, email: str = "") -> str:
    """The robot a holder named ``name`` is ("" for a person): robots' seats carry their kind after the name."""
    return next((kind for suffix, kind in ROBOT_SUFFIXES.items() if name.endswith(suffix)), "")


def covering_name(name: str) -> str:
    """The name a robot covering ``name``'s seat plays under: 'Bob (robot)'."""
    return name if robot_of(name) else name + COVERING_SUFFIX


def names_at(rows: Iterable[Row], names: dict[int, str], seq: int) -> dict[int, str]:
    """The seats' names at event ``seq``: ``names`` (the seats' names now) with every replacement after ``seq``
    among ``rows`` taken back. ``rows`` need hold only the events after ``seq`` (a mail's recent events do)."""
    at = dict(names)
    for row in sorted((r for r in rows if r.kind == "replace_player" and r.seq > seq), key=lambda r: -r.seq):
        data = row.data or {}
        seat = data.get("seat", row.seat)
        old = data.get("old") or {}
        if seat in at and old.get("name"):
            at[seat] = old["name"]
    return at


def played_by_robot(name: str, data: dict[str, Any]) -> str:
    """Who played a command of the seat named ``name`` then: a robot's move (``by="robot"``) at a person's seat
    is the robot's that covered for them ('Bob (robot)'), every other command the seat's holder's."""
    return covering_name(name) if (data or {}).get("by") == "robot" else name


def seat_holders(rows: Iterable[Row], seats: Iterable[Holder]) -> dict[int, list[Holding]]:
    """Every seat's holders, oldest first, from all the game's events (in any order) and its seats now."""
    ordered = sorted(rows, key=lambda r: r.seq)
    now = {seat.seat: seat for seat in seats}
    first_old: dict[int, dict[str, Any]] = {}
    for row in ordered:
        data = row.data or {}
        if row.kind == "replace_player" and data.get("seat") in now and data.get("seat") not in first_old:
            first_old[data["seat"]] = data.get("old") or {}
    current: dict[int, Holding] = {}
    for number, seat in now.items():
        old = first_old.get(number)
        current[number] = (Holding(number, seat.name, seat.email, seat.robot, 1) if old is None else
                           Holding(number, old.get("name", ""), old.get("email", ""),
                                   robot_of(old.get("name", "")), 1))
    done: dict[int, list[Holding]] = {number: [] for number in now}
    person: dict[int, Holding] = {}  # the player a covering robot stands in for

    def hand_over(seat: int, to: Holding, resigned: bool = False) -> None:
        held = replace(current[seat], resigned=True) if resigned else current[seat]
        if held.first < to.first or held.moves:
            done[seat].append(replace(held, last=to.first - 1))
        current[seat] = to

    for row in ordered:
        data = row.data or {}
        seat = data.get("seat", row.seat) if row.kind == "replace_player" else row.seat
        if seat not in current:
            continue
        if row.kind == "replace_player":
            new = data.get("new") or {}
            name = new.get("name", "")
            robot = now[seat].robot if _last_change(ordered, seat, row.seq) else robot_of(name)
            old_email = (data.get("old") or {}).get("email")
            hand_over(seat, Holding(seat, name, new.get("email", ""), robot, row.seq),
                      resigned=bool(old_email) and getattr(row, "actor", None) == old_email)
            person.pop(seat, None)
        elif row.kind == "robot_cover" and not current[seat].robot:
            person[seat] = current[seat]
            hand_over(seat, Holding(seat, covering_name(current[seat].name), "", "heuristic", row.seq,
                                    covers=current[seat].name))
        elif row.kind == "command":
            if seat in person and not data.get("by"):  # the player's own command takes the seat back
                hand_over(seat, replace(person.pop(seat), first=row.seq, last=None, moves=0))
            current[seat] = replace(current[seat], moves=current[seat].moves + 1)
    for seat, held in current.items():
        done[seat].append(held)
    return done


def _last_change(rows: list[Row], seat: int, seq: int) -> bool:
    """Whether the replacement at ``seq`` is the seat's last (its new holder is the seat as it is now)."""
    return not any(r.kind == "replace_player" and (r.data or {}).get("seat") == seat and r.seq > seq for r in rows)


def is_step(kind: str, data: dict[str, Any] | None) -> bool:
    """Whether an event after the first is a step of the game's history (the archive's page numbers them): one
    everybody may read that is not table talk."""
    return (data or {}).get("readers") is None and kind not in TALK


def step_numbers(rows: Iterable[Row]) -> dict[int, int]:
    """Each event's step (``rows``: all the game's events): the number of steps up to it, as the archive's game
    page counts them, so a mail's "from step 50" is the step the page shows."""
    steps, step = {}, 0
    for row in sorted(rows, key=lambda r: r.seq):
        step += row.seq > 1 and is_step(row.kind, row.data)
        steps[row.seq] = step
    return steps


def credit(labels: Iterable[tuple[str, int]]) -> str:
    """Who played a seat, in words, from its holders' labels and the step each took it at, oldest first:
    "Zoë, then robot (from step 50)". Every place that credits a seat says it so (mails, the archive, the CLI)."""
    return ", then ".join(label if not n else f"{label} (from step {step})"
                          for n, (label, step) in enumerate(labels))


def credited(held: list[Holding], steps: dict[int, int]) -> str:
    """``credit`` for a seat's holdings (``seat_holders``) and the game's ``step_numbers``: a robot that took the
    seat over from a person is "robot" after the person's name."""
    labels = []
    for before, holding in zip((None, *held), held):
        took_over = holding.robot and before is not None and not before.robot
        labels.append(("robot" if took_over else holding.name, steps.get(holding.first, 0)))
    return credit(labels)


def step_holder(holdings: list[Holding], seq: int) -> Holding:
    """Who held the seat at event ``seq``."""
    return next((h for h in reversed(holdings) if h.first <= seq), holdings[0])


__all__ = ["COVERING_SUFFIX", "TALK", "Holding", "covering_name", "credit", "credited", "is_step", "step_numbers", "names_at", "played_by_robot", "robot_of", "seat_holders",
           "step_holder"]
