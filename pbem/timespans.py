"""Lengths of time and moments as people write and read them: '72h', '3 days', 'Sunday 29 November, 14:00 UTC'.

pytimeparse2 reads the lengths ('72h', '3d', '1d12h', '90m', '2 days'); moments
are shown in UTC, because the players of one game live in many time zones.
"""

from __future__ import annotations

from datetime import datetime, timezone


class TimingError(ValueError):
    """A deadline setting that cannot be read; the message says what is expected."""


def parse_duration(text: str, what: str) -> int:
    """'72h', '3d', '1d12h', '90m' -> seconds (pytimeparse2 reads them); at least a minute."""
    from pytimeparse2 import parse as parse_seconds  # (and dateutil): only a command given a length needs them

    seconds = parse_seconds(str(text).strip())
    if seconds is None:
        raise TimingError(f"{what} must be a length of time such as 72h, 3d or 90m, not {text!r}")
    if seconds < 60:
        raise TimingError(f"{what} must be at least a minute, not {text!r}")
    return int(seconds)


def format_duration(seconds: float) -> str:
    """A length of time in words, to the hour: '3 days', '1 day 12 hours', '45 minutes'."""
    seconds = int(seconds)
    days, rest = divmod(seconds, 86400)
    hours, rest = divmod(rest, 3600)
    parts = [f"{n} {unit}{'s' if n != 1 else ''}" for n, unit in ((days, "day"), (hours, "hour")) if n]
    if not parts:
        minutes = max(1, rest // 60)
        return f"{minutes} minute{'s' if minutes != 1 else ''}"
    return " ".join(parts)


def format_moment(moment: datetime) -> str:
    """'Sunday 29 November 2026, 14:00 UTC'."""
    return moment.astimezone(timezone.utc).strftime("%A %-d %B %Y, %H:%M UTC")


def aware(moment: datetime) -> datetime:
    """SQLite gives back naive datetimes; every moment here is UTC."""
    return moment if moment.tzinfo else moment.replace(tzinfo=timezone.utc)
