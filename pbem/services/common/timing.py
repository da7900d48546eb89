"""A game's timing: how long a decision and a bid may take, when to remind, what a deadline does.

Pure settings, read and written as the game row's JSON (``Game.timing``); the decision clocks that apply
them are in ``deadlines``.
"""

from __future__ import annotations

from dataclasses import asdict, dataclass, replace
from datetime import timedelta
from typing import Any

from ...timespans import TimingError, format_duration, parse_duration
from ...words import listing

ON_TIMEOUT = ("moderator", "auto", "robot")


@dataclass(frozen=True)
class Timing:
    deadline: int = 72 * 3600  # seconds for a decision
    bid_deadline: int = 24 * 3600  # seconds for an auction bid (or the winner's build decision)
    reminder: float = 0.75  # remind when this share of the time has passed
    on_timeout: str = "moderator"  # "moderator": mail the moderator; "auto": play the game's default;
    # "robot": a robot plays the seat until its player sends a command (services.table.robot_seats)

    SETTINGS = ("deadline", "bid-deadline", "reminder", "on-timeout")

    @classmethod
    def from_dict(cls, data: dict[str, Any] | None) -> "Timing":
        known = {k: v for k, v in (data or {}).items() if k in cls.__dataclass_fields__}
        return cls(**known)

    def to_dict(self) -> dict[str, Any]:
        return asdict(self)

    def changed(self, settings: dict[str, str]) -> "Timing":
        """This timing with ``settings`` ({"deadline": "72h", "reminder": "75%", ...}) applied."""
        values: dict[str, Any] = {}
        for name, text in settings.items():
            key = name.strip().lower().replace("_", "-")
            if key == "deadline":
                values["deadline"] = parse_duration(text, "deadline")
            elif key == "bid-deadline":
                values["bid_deadline"] = parse_duration(text, "bid-deadline")
            elif key == "reminder":
                values["reminder"] = _parse_share(text)
            elif key == "on-timeout":
                choice = str(text).strip().lower()
                if choice not in ON_TIMEOUT:
                    raise TimingError(f"on-timeout must be {listing(ON_TIMEOUT, conjunction='or')}, not {text!r}")
                values["on_timeout"] = choice
            else:
                raise TimingError(f"unknown setting {name!r}; the settings are {', '.join(self.SETTINGS)}")
        return replace(self, **values)

    def checked(self) -> "Timing":
        """This timing, if every value is one pbem can use (an imported file may hold anything)."""
        for name in ("deadline", "bid_deadline"):
            value = getattr(self, name)
            if isinstance(value, bool) or not isinstance(value, int) or value < 60:
                raise TimingError(f"{name} must be a whole number of seconds, at least 60, not {value!r}")
        if isinstance(self.reminder, bool) or not isinstance(self.reminder, (int, float)) or not 0 < self.reminder < 1:
            raise TimingError(f"reminder must be a share between 0 and 1, not {self.reminder!r}")
        if self.on_timeout not in ON_TIMEOUT:
            raise TimingError(f"on_timeout must be {listing(ON_TIMEOUT, conjunction='or')}, not {self.on_timeout!r}")
        return self

    def length(self, kind: str) -> timedelta:
        return timedelta(seconds=self.bid_deadline if kind == "bid" else self.deadline)

    def describe(self, auctions: bool = True) -> str:
        """The deadlines in words; without ``auctions`` (a game without bids, Manhattan) nothing of bids."""
        then = {"auto": "the game plays its default",
                "robot": "a robot plays for the player until they send a command"}.get(self.on_timeout,
                                                                                      "the moderator is told")
        if not auctions:
            return (f"{format_duration(self.deadline)} for a decision; a reminder after {round(self.reminder * 100)}% "
                    f"of it; at a deadline {then}")
        return (f"{format_duration(self.deadline)} for a decision, {format_duration(self.bid_deadline)} for a bid; "
                f"a reminder after {round(self.reminder * 100)}% of it; at a deadline a bid is passed, and "
                f"for anything else {then}")


def _parse_share(text: str) -> float:
    raw = str(text).strip()
    try:
        share = float(raw[:-1]) / 100 if raw.endswith("%") else float(raw)
    except ValueError:
        raise TimingError(f"reminder must be a share of the deadline such as 75%, not {text!r}") from None
    if not 0 < share < 1:
        raise TimingError(f"reminder must be between 0% and 100% of the deadline, not {text!r}")
    return share
