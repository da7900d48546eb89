"""pbem.logs: the worker's log lines, with levels, for a terminal, for journald and as JSON."""

from __future__ import annotations

import io
import json
import logging
import logging.config
import os
from collections.abc import Iterator
from pathlib import Path

import pytest

from pbem.logs import LogSettings, Say, configure, priority


@pytest.fixture(autouse=True)
def unconfigured() -> Iterator[None]:
    """Each test configures pbem's logger for itself; afterwards it is as before (no handler of ours)."""
    yield
    logger = logging.getLogger("pbem")
    for handler in [h for h in logger.handlers if not isinstance(h, logging.NullHandler)]:
        logger.removeHandler(handler)
    logger.setLevel(logging.NOTSET)
    logger.propagate = True


def test_info_goes_to_stdout_and_warnings_and_errors_to_stderr_with_the_time_and_level() -> None:
    out, err = io.StringIO(), io.StringIO()
    configure(LogSettings(), stdout=out, stderr=err)
    say = Say("pbem.worker")
    say("mail 3 from ann@example.org: applied")
    say.debug("not at the default level")
    say.warning("mail server connection lost")
    say.error("mail 4 from bob@example.org: set aside")
    assert [line.split(" ", 2)[2] for line in out.getvalue().splitlines()] == [
        "INFO mail 3 from ann@example.org: applied"]
    assert [line.split(" ", 2)[2] for line in err.getvalue().splitlines()] == [
        "WARNING mail server connection lost", "ERROR mail 4 from bob@example.org: set aside"]
    day, time_of_day = out.getvalue().split(" ")[:2]
    assert len(day) == 10 and day[4] == "-" and len(time_of_day) == 8 and time_of_day[2] == ":"


def test_on_the_journal_stream_each_line_begins_with_its_priority_and_has_no_time(tmp_path: Path,
                                                                                  monkeypatch) -> None:
    """systemd names the stream it connected in JOURNAL_STREAM (device:inode): `journalctl -p err` then finds
    the errors. Every line of a record carries it: the journal keeps each line as an entry."""
    with (tmp_path / "journal").open("w+") as journal:
        found = os.fstat(journal.fileno())
        monkeypatch.setenv("JOURNAL_STREAM", f"{found.st_dev}:{found.st_ino}")
        configure(LogSettings(level="debug"), stdout=journal, stderr=journal)
        say = Say("pbem.worker")
        say.error("mail 4 from bob@example.org: set aside: Traceback (most recent call last):\n  File x\nValueError")
        say.warning("mail server connection lost")
        say("mail 3 from ann@example.org: applied")
        say.debug("a detail")
        journal.seek(0)
        lines = journal.read().splitlines()
    assert lines == ["<3>mail 4 from bob@example.org: set aside: Traceback (most recent call last):", "<3>  File x",
                     "<3>ValueError", "<4>mail server connection lost", "<6>mail 3 from ann@example.org: applied",
                     "<7>a detail"]


def test_journal_stream_naming_another_file_changes_nothing(tmp_path: Path, monkeypatch) -> None:
    """A worker started by hand from a unit's shell inherits JOURNAL_STREAM, not the journal: time and level."""
    other = os.stat(tmp_path)
    monkeypatch.setenv("JOURNAL_STREAM", f"{other.st_dev}:{other.st_ino}")
    err = io.StringIO()
    configure(LogSettings(), stdout=io.StringIO(), stderr=err)
    Say("pbem.worker").error("the database failed")
    assert err.getvalue().split(" ", 2)[2] == "ERROR the database failed\n"


def test_json_lines_parse_and_carry_the_extra_fields() -> None:
    out, err = io.StringIO(), io.StringIO()
    configure(LogSettings(format="json"), stdout=out, stderr=err)
    say = Say("pbem.worker")
    say("mail 3 from ann@example.org: applied", uid=3, sender="ann@example.org", outcome="applied")
    say.error("a line\nand another")
    line = json.loads(out.getvalue())
    assert set(line) == {"time", "level", "logger", "message", "uid", "sender", "outcome"}
    assert (line["level"], line["logger"], line["message"], line["uid"]) == (
        "info", "pbem.worker", "mail 3 from ann@example.org: applied", 3)
    assert line["time"].endswith("Z") and "T" in line["time"]
    error, = [json.loads(text) for text in err.getvalue().splitlines()]
    assert error["level"] == "error" and error["message"] == "a line\nand another"


def test_the_level_leaves_out_what_is_below_it_and_a_second_configure_replaces_the_first() -> None:
    first = io.StringIO()
    configure(LogSettings(), stdout=first, stderr=first)
    out, err = io.StringIO(), io.StringIO()
    configure(LogSettings(level="warning"), stdout=out, stderr=err)
    say = Say("pbem.services.clock.timekeeper")
    say("game 1: deadline passed; the moderator is told")
    say.warning("the worker was away 2 hours; 3 deadlines moved")
    assert first.getvalue() == "" and out.getvalue() == ""
    assert err.getvalue().split(" ", 2)[2] == "WARNING the worker was away 2 hours; 3 deadlines moved\n"


def test_a_say_also_tells_a_tests_list_and_hands_it_on() -> None:
    said: list[str] = []
    say = Say.of("pbem.worker", said.append)
    say.warning("first")
    Say.of("pbem.services.operations.heartbeat", say)("second")
    assert said == ["first", "second"]


def test_priorities_follow_sd_daemon() -> None:
    assert [priority(level) for level in (logging.DEBUG, logging.INFO, logging.WARNING, logging.ERROR,
                                         logging.CRITICAL, 25)] == [7, 6, 4, 3, 2, 6]


def test_a_library_that_disabled_the_existing_loggers_does_not_silence_pbem() -> None:
    """import-linter's command and alembic's fileConfig disable every logger that exists when they run."""
    say = Say("pbem.worker")
    logging.config.dictConfig({"version": 1})  # disable_existing_loggers: True, as those libraries leave it
    assert say.logger.disabled
    out, err = io.StringIO(), io.StringIO()
    configure(LogSettings(), stdout=out, stderr=err)
    say.error("the database failed")
    assert err.getvalue().split(" ", 2)[2] == "ERROR the database failed\n"
