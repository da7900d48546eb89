"""The worker's log: the logging module's records of the ``pbem`` loggers, one line each.

Debug and info go to stdout, warnings and errors to stderr. Three shapes of line:

- ``text`` on a stream the journal reads (systemd sets JOURNAL_STREAM to the device and inode of the stream it
  connected, systemd.exec(5)): the record's priority for journald first (sd-daemon(3): ``<3>`` error, ``<4>``
  warning, ``<6>`` info, ``<7>`` debug) and no time, which the journal adds itself; so
  ``journalctl -p err -u pbem-worker`` finds the errors. Every line of a record carries it (a traceback is one
  journal entry a line).
- ``text`` elsewhere: ``2026-11-29 10:00:00 INFO mail 3 from ann@example.org: applied``, the time in UTC.
- ``json``: one object a line, ``{"time": ..., "level": "info", "logger": "pbem.worker", "message": ..., ...}``
  with the record's extra fields (``uid``, ``sender``, ``outcome`` of a mail, for instance).

Until ``configure`` runs (the worker's command does), pbem's records go nowhere: a test or the demo that runs a
worker in its own process prints nothing it did not ask for.
"""

from __future__ import annotations

import json
import logging
import os
import sys
import time
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from typing import IO, Any, Callable

FORMATS = ("text", "json")
LEVELS = ("debug", "info", "warning", "error")
ROOT = "pbem"

_PRIORITY = {logging.DEBUG: 7, logging.INFO: 6, logging.WARNING: 4, logging.ERROR: 3, logging.CRITICAL: 2}
_STANDARD = set(vars(logging.makeLogRecord({}))) | {"message", "asctime", "taskName"}

logging.getLogger(ROOT).addHandler(logging.NullHandler())


class Say:
    """What a part of the worker says, with a level: ``say("line")`` is info, ``say.warning(...)``,
    ``say.error(...)``, ``say.debug(...)``; keyword arguments become the record's extra fields (the JSON lines show
    them). Each line goes to the logger ``name``, and to ``also`` when one is given (a test's or a benchmark's
    list of lines, as the worker's ``log=`` took before it had levels)."""

    def __init__(self, name: str, also: Callable[[str], None] | None = None) -> None:
        self.logger = logging.getLogger(name)
        self.also = also

    @classmethod
    def of(cls, name: str, log: Callable[[str], None] | None) -> "Say":
        """A ``Say`` for the logger ``name`` that also tells what ``log`` is told (``log`` may be another Say)."""
        return cls(name, log.also if isinstance(log, Say) else log)

    def __call__(self, line: str, **extra: Any) -> None:
        self.info(line, **extra)

    def debug(self, line: str, **extra: Any) -> None:
        self._say(logging.DEBUG, line, extra)

    def info(self, line: str, **extra: Any) -> None:
        self._say(logging.INFO, line, extra)

    def warning(self, line: str, **extra: Any) -> None:
        self._say(logging.WARNING, line, extra)

    def error(self, line: str, **extra: Any) -> None:
        self._say(logging.ERROR, line, extra)

    def _say(self, level: int, line: str, extra: dict[str, Any]) -> None:
        self.logger.log(level, line, extra=extra or None)
        if self.also is not None:
            self.also(line)


@dataclass(frozen=True)
class LogSettings:
    """How the worker logs (``--log-format``, ``--log-level``, ``[worker] log_format`` and ``log_level``)."""

    format: str = "text"
    level: str = "info"


def to_journal(stream: IO[str]) -> bool:
    """Whether ``stream`` is connected to the journal: JOURNAL_STREAM names its device and inode. Only then: a
    worker started by hand from a unit's shell inherits the variable, not the connection."""
    device, _, inode = os.environ.get("JOURNAL_STREAM", "").partition(":")
    if not (device.isdigit() and inode.isdigit()):
        return False
    try:
        found = os.fstat(stream.fileno())
    except (OSError, ValueError, AttributeError):  # closed, or not a file (a test's StringIO)
        return False
    return (found.st_dev, found.st_ino) == (int(device), int(inode))


def priority(levelno: int) -> int:
    """The syslog priority of a logging level (the nearest level at or below it)."""
    return next((_PRIORITY[level] for level in sorted(_PRIORITY, reverse=True) if levelno >= level), 7)


def extra_fields(record: logging.LogRecord) -> dict[str, Any]:
    """What the record carries beyond the logging module's own attributes: ``extra=`` of the call."""
    return {key: value for key, value in vars(record).items() if key not in _STANDARD and not key.startswith("_")}


class TextFormatter(logging.Formatter):
    def __init__(self, journal: bool) -> None:
        super().__init__()
        self.journal = journal

    def format(self, record: logging.LogRecord) -> str:
        message = record.getMessage()
        if record.exc_info:
            message += "\n" + self.formatException(record.exc_info)
        if self.journal:
            prefix = f"<{priority(record.levelno)}>"
            return "\n".join(prefix + line for line in message.split("\n"))
        stamp = time.strftime("%Y-%m-%d %H:%M:%S", time.gmtime(record.created))
        return f"{stamp} {record.levelname} {message}"


class JsonFormatter(logging.Formatter):
    def format(self, record: logging.LogRecord) -> str:
        stamp = time.strftime("%Y-%m-%dT%H:%M:%S", time.gmtime(record.created))
        line: dict[str, Any] = {"time": f"{stamp}.{int(record.msecs):03d}Z", "level": record.levelname.lower(),
                                "logger": record.name, "message": record.getMessage()}
        if record.exc_info:
            line["traceback"] = self.formatException(record.exc_info)
        for key, value in extra_fields(record).items():
            line.setdefault(key, value)
        return json.dumps(line, ensure_ascii=False, default=str)


class _Below(logging.Filter):
    def __init__(self, level: int) -> None:
        super().__init__()
        self.level = level

    def filter(self, record: logging.LogRecord) -> bool:
        return record.levelno < self.level


class _Handler(logging.StreamHandler):  # type: ignore[type-arg]
    """Ours: ``configure`` replaces these and leaves any other handler alone."""


def configure(settings: LogSettings = LogSettings(), *, stdout: IO[str] | None = None,
              stderr: IO[str] | None = None) -> None:
    """Send pbem's records at ``settings.level`` and above to stdout (below warning) and stderr (the rest), in
    ``settings.format``. Called again, it replaces what it set up before."""
    logger = logging.getLogger(ROOT)
    for handler in [h for h in logger.handlers if isinstance(h, _Handler)]:
        logger.removeHandler(handler)
    # A library's logging.config (dictConfig, fileConfig) disables the loggers that exist when it runs: pbem's
    # would then say nothing, errors included, and nobody would know.
    for name, existing in logging.root.manager.loggerDict.items():
        if isinstance(existing, logging.Logger) and (name == ROOT or name.startswith(ROOT + ".")):
            existing.disabled = False
    out, err = stdout or sys.stdout, stderr or sys.stderr
    for stream, low in ((out, None), (err, logging.WARNING)):
        handler = _Handler(stream)
        handler.setFormatter(JsonFormatter() if settings.format == "json" else TextFormatter(to_journal(stream)))
        if low is None:
            handler.addFilter(_Below(logging.WARNING))
        else:
            handler.setLevel(low)
        logger.addHandler(handler)
    logger.setLevel(settings.level.upper())
    logger.propagate = False  # one line a record, whatever the root logger has
    global _active
    _active = settings


_active: LogSettings | None = None


@contextmanager
def configured(settings: LogSettings) -> Iterator[None]:
    """``configure(settings)`` for the block; afterwards pbem's logger is as it was (a command run inside a test's
    process leaves no handler on streams that are closed by then)."""
    global _active
    logger = logging.getLogger(ROOT)
    before = (logger.level, logger.propagate, _active, list(logger.handlers))
    configure(settings)
    try:
        yield
    finally:
        for handler in [h for h in logger.handlers if isinstance(h, _Handler)]:
            logger.removeHandler(handler)
        for handler in before[3]:
            if handler not in logger.handlers:
                logger.addHandler(handler)
        logger.setLevel(before[0])
        logger.propagate, _active = before[1], before[2]


def active() -> LogSettings | None:
    """What ``configure`` set up in this process (None: nothing), for a process this one starts (the outbox
    process, started by spawn, configures its own the same)."""
    return _active
