"""Deadline settings as the moderator writes them, and lengths of time as players read them."""

from __future__ import annotations

from datetime import date

import pytest

from pbem.services.common.deadlines import MAX_PENDING_ABSENCES, check_absence
from pbem.services.common.timing import Timing
from pbem.timespans import TimingError, format_duration


def test_the_defaults_and_changing_them() -> None:
    timing = Timing()
    assert (timing.deadline, timing.bid_deadline, timing.reminder, timing.on_timeout) == (259200, 86400, 0.75, "moderator")
    changed = timing.changed({"deadline": "1d12h", "bid-deadline": "90m", "reminder": "50%", "on-timeout": "AUTO"})
    assert (changed.deadline, changed.bid_deadline, changed.reminder, changed.on_timeout) == (129600, 5400, 0.5, "auto")
    assert Timing.from_dict(changed.to_dict()) == changed and Timing.from_dict({}) == timing
    assert changed.describe() == ("1 day 12 hours for a decision, 1 hour for a bid; a reminder after 50% of it; at a "
                                  "deadline a bid is passed, and for anything else the game plays its default")


@pytest.mark.parametrize("settings, message", [
    ({"deadline": "soon"}, "deadline must be a length of time such as 72h"),
    ({"deadline": "30s"}, "at least a minute"),
    ({"reminder": "120%"}, "between 0% and 100%"),
    ({"reminder": "most"}, "a share of the deadline such as 75%"),
    ({"on-timeout": "ignore"}, "on-timeout must be moderator, auto or robot"),
    ({"colour": "red"}, "unknown setting 'colour'"),
])
def test_settings_that_cannot_be_read_say_what_is_expected(settings, message) -> None:
    with pytest.raises(TimingError, match=message):
        Timing().changed(settings)


@pytest.mark.parametrize("bad", [{"deadline": "72h"}, {"deadline": 10}, {"reminder": 1.5}, {"on_timeout": "x"}])
def test_an_imported_timing_is_checked(bad) -> None:
    with pytest.raises(TimingError):
        Timing.from_dict(bad).checked()


def test_lengths_in_words() -> None:
    assert [format_duration(s) for s in (30, 60, 5400, 86400, 129600, 3 * 86400 + 8 * 3600)] == [
        "1 minute", "1 minute", "1 hour", "1 day", "1 day 12 hours", "3 days 8 hours"]


def test_absences_are_capped() -> None:
    today = date(2026, 11, 23)
    check_absence(date(2026, 11, 23), date(2026, 12, 13), today, 0)  # 21 days
    for first, last, pending, message in [
        (date(2026, 11, 25), date(2026, 11, 24), 0, "end on or after"),
        (date(2026, 11, 1), date(2026, 11, 22), 0, "over already"),
        (date(2026, 11, 23), date(2026, 12, 14), 0, "at most 21 days"),
        (date(2026, 11, 23), date(2026, 11, 24), MAX_PENDING_ABSENCES, "the most there may be"),
    ]:
        with pytest.raises(TimingError, match=message):
            check_absence(first, last, today, pending)
