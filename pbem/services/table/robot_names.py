"""Who a robot seat is: the robots moderators may name, the address a robot seat is kept under, the name every
mail shows. Apart from ``robot_seats`` (their moves) because the game service, which those moves go through,
needs these words when it makes a seat.
"""

from __future__ import annotations

from ..common.errors import BadRequest

ROBOT_DOMAIN = "robots.invalid"
KINDS = {"robot": "heuristic", "robot:heuristic": "heuristic", "robot:strong": "strong"}  # as moderators write them
SHOWN = {"heuristic": "robot", "strong": "strong robot"}  # after the seat's name: "Robo (robot)"


def robot_kind(text: str) -> str | None:
    """The robot ``text`` names in place of an address ("robot", "robot:strong"), or None for an address."""
    return KINDS.get(text.strip().lower())


def robot_address(seat: int) -> str:
    """The address a robot seat is kept under: the seat's own, so every seat of a game has a different one."""
    return f"robot-{seat + 1}@{ROBOT_DOMAIN}"


def is_robot_address(address: str) -> bool:
    return address.strip().lower().endswith("@" + ROBOT_DOMAIN)


def robot_name(name: str, kind: str) -> str:
    """A robot seat's name as every mail and page shows it: 'Robo (robot)', so nobody takes it for a person."""
    suffix = f" ({SHOWN[kind]})"
    return name if name.endswith(suffix) else name + suffix


def checked_robot_kind(text: str) -> str:
    kind = robot_kind(text)
    if kind is None:
        raise BadRequest(f"'{text}' is not a robot; use {', '.join(sorted(KINDS))}")
    return kind


__all__ = ["KINDS", "ROBOT_DOMAIN", "SHOWN", "checked_robot_kind", "is_robot_address", "robot_address", "robot_kind",
           "robot_name"]
