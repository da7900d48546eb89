"""Where pbem keeps its data and how it reaches its servers: the configuration, checked before anything runs.

Every setting is a key of the config file and, for most, an environment variable ``PBEM_...`` that wins over
it. ``SETTINGS`` below declares them all (a new setting is one line there); docs/cli.md lists them for people.

The config file is ``--config FILE``, else ``PBEM_CONFIG``, else ``<user config dir>/pbem/config.toml``
(``~/.config/pbem/config.toml`` on Linux). Only that last one may be absent (pbem then runs on its defaults);
a file named by ``--config`` or ``PBEM_CONFIG`` must exist (``/dev/null`` names no file on purpose). A file
that exists is read whole before anything else happens, and refused with one message naming it when it is not
a regular file, not UTF-8, not TOML, or holds a section, a key or a value pbem does not know.

The database URL is taken from, in order: the ``--db`` option, ``PBEM_DATABASE_URL``, the config file's
``[database] url``, and finally a SQLite file in the user's data directory.

=============================  ===========================  ==================================================
config file                    environment                  value
=============================  ===========================  ==================================================
[database] url                 PBEM_DATABASE_URL            sqlite:///path/file.sqlite3 or postgresql://...
[mail] domain                  -                            a domain name (Message-IDs; default: [game]
                                                            address's)
[imap] host                    PBEM_IMAP_HOST               a host name or IP address
[imap] port                    PBEM_IMAP_PORT               1 to 65535 (default from security: 993, 143)
[imap] security                PBEM_IMAP_SECURITY           ssl (default), starttls, plain (loopback only)
[imap] user                    PBEM_IMAP_USER               text
[imap] password                PBEM_IMAP_PASSWORD           text (one line)
[imap] password_file           PBEM_IMAP_PASSWORD_FILE      a file holding only the password
[imap] mailbox                 PBEM_IMAP_MAILBOX            a folder name (INBOX)
[imap] processed_folder        -                            a folder name (pbem-processed)
[imap] rejected_folder         -                            a folder name (pbem-rejected)
[smtp] host, port, security,   PBEM_SMTP_HOST, ...          as [imap] (ports 465, 587, 25)
user, password, password_file
[game] address                 PBEM_GAME_ADDRESS            the game's email address
[game] moderator               PBEM_MODERATOR               an email address
[game] name                    PBEM_SENDER_NAME             the name mails come from, at most 60 characters
[worker] poll_interval         PBEM_POLL_INTERVAL           seconds, more than 0, at most 86400 (60)
[worker] outage_gap            PBEM_OUTAGE_GAP              a length (1h, 90m) or seconds, 1 minute to 365
                                                            days (1h)
[worker] log_format            PBEM_LOG_FORMAT              text or json (text): the worker's log lines
[worker] log_level             PBEM_LOG_LEVEL               debug, info, warning or error (info)
[archive] dir                  PBEM_ARCHIVE_DIR             a folder
[archive] url                  PBEM_ARCHIVE_URL             https://... or http://...
[signup] new                   -                            anyone, players or moderator (moderator): who
                                                            may open a table by mail (docs/signup.md)
[signup] approve               -                            yes or no, or true or false (no): the moderator
                                                            approves each table
[signup] open_per_address      -                            0 to 100 (2): open tables an address opened
[signup] new_per_day           -                            0 to 1000 (3): tables an address opens a day
[signup] new_per_day_all       -                            0 to 10000 (20): tables all open a day
[signup] watchers              -                            0 to 1000 (20): watchers a game may have
[signup] idle_days             -                            1 to 365 (7): days an open table waits for a new
                                                            player before it closes
[signup] stranger_mails_per_day -                           0 to 100000 (100): mails a day to addresses that
                                                            play in no game, all together
=============================  ===========================  ==================================================

Other variables pbem knows: ``PBEM_CONFIG`` (the config file), ``PBEM_CRASH_AT`` and ``PBEM_CRASH_LOG``
(``pbem.crashpoints``, refused outside the test suite), and the test suite's own (``PBEM_CHROMIUM``, ``PBEM_CHROMEDRIVER``,
``PBEM_SCREENSHOTS``, ``PBEM_UPDATE_GOLDEN``, every ``PBEM_TEST_...``) and the image's build arguments
(``PBEM_VERSION``, ``PBEM_REVISION``), which the command ignores. Any other
``PBEM_`` variable is refused, with the name it probably meant: ``PBEM_DATABSE_URL`` silently ignored would put
every game in the default database.

An empty variable hands the setting back to the config file, which then must have it (compose.yaml empties
``PBEM_DATABASE_URL`` so that a line of pbem.env cannot override the URL in its config secret); an empty
variable never leads to a default. In the config file no value may be empty: leave the key out instead.

A password file is read only by the commands that log in to a mail server (the worker, `pbem config check`,
a game change that sends its mail at once): ``MailConfig.with_secrets``. Every other command runs when it
cannot be read.

Why one module of some 770 lines: the settings as pbem uses them, the kinds of value, the schema and the
reading of file and environment are one job (a setting checked the same way wherever it comes from), and a
new setting touches all four; a tenth of it is this docstring's table, and the kinds are each a few lines.
"""

from __future__ import annotations

import math
import os
import re
import stat
import tomllib
from dataclasses import dataclass, field, fields, replace
from pathlib import Path
from typing import Any, Callable, Mapping
from urllib.parse import urlsplit

from .logs import FORMATS, LEVELS, LogSettings
from .timespans import TimingError, parse_duration

APP = "pbem"
ENV_PREFIX = "PBEM_"
MAX_CONFIG_BYTES = 2**20  # a config file is a few hundred bytes; more is not one
MAX_SECRET_BYTES = 2**16
MAX_PATH = 4096  # PATH_MAX on Linux


class ConfigError(Exception):
    """The configuration cannot be read, is incomplete, or holds something pbem does not know."""


SECURITY = ("ssl", "starttls", "plain")
LOOPBACK = ("127.0.0.1", "localhost", "::1")
BACKENDS = ("sqlite", "postgresql")


# --------------------------------------------------------------------------- the settings as pbem uses them


@dataclass(frozen=True)
class ServerConfig:
    """How to reach an IMAP or SMTP server. ``password`` is the password itself, or "" until
    ``with_secret`` has read ``password_file``."""

    host: str
    port: int
    security: str  # ssl (implicit TLS), starttls, or plain (loopback only)
    user: str = ""
    password: str = field(default="", repr=False)
    password_file: Path | None = None
    password_file_from: str = field(default="", repr=False, compare=False)  # the setting that named it

    def problems(self, what: str) -> list[str]:
        found = []
        if self.security not in SECURITY:
            found.append(f"{what}.security must be one of {', '.join(SECURITY)}, not {self.security!r}")
        if self.security == "plain" and self.host not in LOOPBACK:
            found.append(f"{what}: plain (unencrypted) connections are only allowed to this machine, not {self.host}")
        return found

    def with_secret(self) -> ServerConfig:
        """This server with the password read from its file (ConfigError naming the file if it cannot be)."""
        if self.password_file is None:
            return self
        return replace(self, password=read_secret(self.password_file, self.password_file_from))


@dataclass(frozen=True)
class MailConfig:
    imap: ServerConfig
    smtp: ServerConfig
    game_address: str
    mailbox: str = "INBOX"
    processed_folder: str = "pbem-processed"
    rejected_folder: str = "pbem-rejected"
    poll_interval: float = 60.0
    moderator: str = ""  # receives timeouts, bounces, mails that could not be sent, digests of refused mail
    sender_name: str = ""  # the name every mail comes from; "" = the game's ("Fifth Avenue #12 (pbem)")
    outage_gap: float = 3600.0  # seconds

    def problems(self) -> list[str]:
        found = self.imap.problems("imap") + self.smtp.problems("smtp")
        if "@" not in self.game_address:
            found.append("game.address must be the game's email address (set [game] address or PBEM_GAME_ADDRESS)")
        return found

    def with_secrets(self) -> MailConfig:
        """The same settings with both password files read: for a command that logs in to a mail server."""
        return replace(self, imap=self.imap.with_secret(), smtp=self.smtp.with_secret())


@dataclass(frozen=True)
class ArchiveConfig:
    """Where the worker keeps the archive's web site (``[archive] dir``) and where people find it (``url``)."""

    folder: Path | None = None  # None: the worker keeps no site (``pbem archive build`` still makes one)
    url: str = ""  # the site's address as players reach it; "" = mails carry no link

    def game_url(self, game_id: int) -> str:
        """The address of a game's page (``pbem.archive.site`` writes it as games/<id>.html), or ""."""
        return f"{self.url.rstrip('/')}/games/{game_id}.html" if self.url else ""


OPENERS = ("anyone", "players", "moderator")  # who may open a table by mail ([signup] new)


@dataclass(frozen=True)
class SignupConfig:
    """How open the server is to tables players start by mail (``[signup]``, docs/signup.md). The defaults keep
    an installation that upgrades as closed as it was: only the moderator opens tables."""

    new: str = "moderator"  # anyone, players (addresses that play or played here), moderator (the CLI only)
    approve: bool = False  # a table opened by mail waits for ``pbem game approve``
    open_per_address: int = 2  # open (not started) tables one address has opened
    new_per_day: int = 3  # tables one address opens in 24 hours
    new_per_day_all: int = 20  # tables all addresses together open in 24 hours
    watchers: int = 20  # watchers one game may have
    idle_days: int = 7  # an open table with no new player for this long closes
    stranger_mails_per_day: int = 100  # mails (replies and codes) to addresses that play in no game, all together


@dataclass(frozen=True)
class Config:
    database_url: str
    database_url_from: str  # option --db, environment PBEM_DATABASE_URL, config file <path>, default
    config_file: Path | None  # the file read; None when there was none
    mail_domain: str = "pbem.invalid"  # the right-hand side of the Message-IDs we choose
    mail: MailConfig | None = None  # without its password files read: see MailConfig.with_secrets
    archive: ArchiveConfig = ArchiveConfig()
    signup: SignupConfig = SignupConfig()
    log: LogSettings = LogSettings()  # the worker's log lines ([worker] log_format, log_level; pbem.logs)


# --------------------------------------------------------------------------- kinds of value


class Refused(ValueError):
    """A value that is not of its kind; the message is what it must be ("must be ..."), without the value."""


@dataclass(frozen=True)
class Kind:
    """A kind of value: ``what`` for people (docs/cli.md), ``parse(value, from_text)`` checks one and returns it as
    pbem uses it. ``from_text`` is true for an environment variable (always text), false for a TOML value,
    which must have the TOML type itself (``port = "993"`` is refused: TOML says it is text)."""

    what: str
    parse: Callable[[Any, bool], Any]
    quiet: bool = False  # the value is never shown after the message (a password; a URL shows itself without one)


_CONTROL = re.compile(r"[\x00-\x1f\x7f]")
_DECIMAL = re.compile(r"[0-9]{1,15}(?:\.[0-9]{1,9})?", re.ASCII)  # ASCII only: int("٣") is 3 to Python
_WHOLE = re.compile(r"[0-9]{1,15}", re.ASCII)
_HOST = re.compile(r"[A-Za-z0-9._:\[\]-]+", re.ASCII)
_LABEL = r"[A-Za-z0-9](?:[A-Za-z0-9-]{0,61}[A-Za-z0-9])?"
_DOMAIN = re.compile(rf"{_LABEL}(?:\.{_LABEL})*", re.ASCII)


def _text(value: Any, limit: int = 200, what: str = "text") -> str:
    """One line of text, stripped; never empty."""
    if not isinstance(value, str):
        raise Refused(f"must be {what}")
    text = value.strip()
    if not text:
        raise Refused(f"must be {what}, not empty (leave it out for the default)")
    if _CONTROL.search(text):
        raise Refused(f"must be {what} on one line, without control characters")
    if len(text) > limit:
        raise Refused(f"must be {what} of at most {limit} characters")
    return text


def _number(value: Any, from_text: bool, what: str, low: float, high: float, whole: bool) -> float:
    if from_text and isinstance(value, str):
        if not (_WHOLE if whole else _DECIMAL).fullmatch(value.strip()):
            raise Refused(f"must be {what}")
        value = int(value) if whole else float(value)
    if isinstance(value, bool) or not isinstance(value, (int, float)) or (whole and not isinstance(value, int)):
        raise Refused(f"must be {what}")
    if not math.isfinite(value) or not low <= value <= high:
        raise Refused(f"must be {what}")
    return value


def _port(value: Any, from_text: bool) -> int:
    return int(_number(value, from_text, "a whole number from 1 to 65535", 1, 65535, whole=True))


def _count(value: Any, from_text: bool) -> int:
    return int(_number(value, from_text, "a whole number from 0 to 1000000000", 0, 10**9, whole=True))


def _seconds(value: Any, from_text: bool) -> float:
    what = "a number of seconds, more than 0 and at most 86400"
    seconds = _number(value, from_text, what, 0, 86400, whole=False)
    if seconds <= 0:
        raise Refused(f"must be {what}")
    return float(seconds)


def _length(value: Any, from_text: bool) -> float:
    what = "a length of time such as 1h or 90m, or a number of seconds, from a minute to 365 days"
    if isinstance(value, str) and not _WHOLE.fullmatch(value.strip()):
        text = _text(value, 40, what)
        if not text.isascii():  # pytimeparse2 reads '٣h' as 3 hours
            raise Refused(f"must be {what}")
        try:
            seconds: float = parse_duration(text, "it")
        except TimingError as exc:
            raise Refused(f"must be {what}") from exc
    else:
        seconds = _number(value, True, what, 60, 365 * 86400, whole=False)
    if not 60 <= seconds <= 365 * 86400:
        raise Refused(f"must be {what}")
    return float(seconds)


def _security(value: Any, from_text: bool) -> str:
    what = f"one of {', '.join(SECURITY)}"
    if not isinstance(value, str) or value.strip().lower() not in SECURITY:
        raise Refused(f"must be {what}")
    return value.strip().lower()


def _word(*choices: str) -> Callable[[Any, bool], str]:
    """One of ``choices``, as written (any case)."""
    def parse(value: Any, from_text: bool) -> str:
        if not isinstance(value, str) or value.strip().lower() not in choices:
            raise Refused(f"must be one of {', '.join(choices)}")
        return value.strip().lower()
    return parse


def _yes_no(value: Any, from_text: bool) -> bool:
    if isinstance(value, bool):
        return value
    return _word("yes", "no")(value, from_text) == "yes"


def _from_one_to(high: int) -> Callable[[Any, bool], int]:
    def parse(value: Any, from_text: bool) -> int:
        return int(_number(value, from_text, f"a whole number from 1 to {high}", 1, high, whole=True))
    return parse


def _up_to(high: int) -> Callable[[Any, bool], int]:
    def parse(value: Any, from_text: bool) -> int:
        return int(_number(value, from_text, f"a whole number from 0 to {high}", 0, high, whole=True))
    return parse


def _host(value: Any, from_text: bool) -> str:
    what = "a host name or IP address (ASCII; an international name in its xn-- form)"
    host = _text(value, 253, what)
    if not _HOST.fullmatch(host) or host.startswith("-"):
        raise Refused(f"must be {what}")
    return host


def _domain(value: Any, from_text: bool) -> str:
    what = "a domain name such as example.org"
    domain = _text(value, 253, what)
    if not _DOMAIN.fullmatch(domain):
        raise Refused(f"must be {what}")
    return domain.lower()


def _address(value: Any, from_text: bool) -> str:
    from .mail.message import is_address  # the rule the worker reads a sender with

    what = "an email address such as game@example.org (plain ASCII)"
    address = _text(value, 254, what)
    if not is_address(address):
        raise Refused(f"must be {what}")
    return address.lower()


def _user(value: Any, from_text: bool) -> str:
    return _text(value, 320, "a user name")


def _secret(value: Any, from_text: bool) -> str:
    if not isinstance(value, str) or not value.strip() or len(value) > 1000 or _CONTROL.search(value):
        raise Refused("must be a password: one line of at most 1000 characters")
    return value


def _path(value: Any, from_text: bool) -> Path:
    return Path(_text(value, MAX_PATH, "a file or folder name")).expanduser()


def _folder(value: Any, from_text: bool) -> str:
    return _text(value, 200, "a mail folder name")


def _name(value: Any, from_text: bool) -> str:
    return " ".join(_text(value, 60, "a name").split())


def _web_url(value: Any, from_text: bool) -> str:
    what = "a web address (https://... or http://...)"
    url = _text(value, 2000, what)
    try:
        parts = urlsplit(url)
        parts.port  # noqa: B018 - it raises for a port that is no number
    except ValueError as exc:
        raise Refused(f"must be {what}") from exc
    if parts.scheme not in ("https", "http") or not parts.hostname or " " in url:
        raise Refused(f"must be {what}")
    return url


def _database_url(value: Any, from_text: bool) -> str:
    """Checked as far as no driver is needed (SQLAlchemy and the drivers load only when a command opens it)."""
    if not isinstance(value, str):
        raise Refused(f"is not a database URL: it must be text, not {shown(value)}")
    problem = database_url_problem(value)
    if problem:
        raise Refused(problem)
    return value


PORT = Kind("a whole number from 1 to 65535", _port)
COUNT = Kind("a whole number from 0 to 1000000000", _count)
SECONDS = Kind("seconds, more than 0 and at most 86400", _seconds)
LENGTH = Kind("a length of time (1h, 90m) or seconds, from a minute to 365 days", _length)
SECURITY_KIND = Kind("ssl, starttls or plain (plain only to 127.0.0.1, localhost, ::1)", _security)
HOST = Kind("a host name or IP address", _host)
DOMAIN = Kind("a domain name", _domain)
ADDRESS = Kind("an email address", _address)
USER = Kind("a user name", _user)
SECRET = Kind("a password (one line)", _secret, quiet=True)
PATH = Kind("a file or folder name", _path)
FOLDER = Kind("a mail folder name", _folder)
NAME = Kind("a name of at most 60 characters", _name)
WEB_URL = Kind("a web address (https://...)", _web_url)
OPENER = Kind("anyone, players or moderator", _word(*OPENERS))
LOG_FORMAT = Kind("text or json", _word(*FORMATS))
LOG_LEVEL = Kind("debug, info, warning or error", _word(*LEVELS))
YES_NO = Kind("yes or no", _yes_no)
DATABASE_URL = Kind("a database URL: sqlite:///path/to/file.sqlite3 or postgresql://user@host:5432/dbname",
                    _database_url, quiet=True)


# --------------------------------------------------------------------------- the schema


@dataclass(frozen=True)
class Setting:
    """One key of the config file (``[section] key``) and the environment variable that wins over it."""

    section: str
    key: str
    kind: Kind
    env: str | None = None  # None: the config file only

    @property
    def name(self) -> str:
        return f"[{self.section}] {self.key}"


def _server_settings(section: str) -> tuple[Setting, ...]:
    prefix = f"PBEM_{section.upper()}_"
    return (Setting(section, "host", HOST, prefix + "HOST"),
            Setting(section, "port", PORT, prefix + "PORT"),
            Setting(section, "security", SECURITY_KIND, prefix + "SECURITY"),
            Setting(section, "user", USER, prefix + "USER"),
            Setting(section, "password", SECRET, prefix + "PASSWORD"),
            Setting(section, "password_file", PATH, prefix + "PASSWORD_FILE"))


# Every key of the config file, in the order docs/cli.md lists them. A new setting is a line here, a line in
# docs/cli.md (a test checks) and its use in load_config.
SETTINGS: tuple[Setting, ...] = (
    Setting("database", "url", DATABASE_URL, "PBEM_DATABASE_URL"),
    Setting("mail", "domain", DOMAIN),
    *_server_settings("imap"),
    Setting("imap", "mailbox", FOLDER, "PBEM_IMAP_MAILBOX"),
    Setting("imap", "processed_folder", FOLDER),
    Setting("imap", "rejected_folder", FOLDER),
    *_server_settings("smtp"),
    Setting("game", "address", ADDRESS, "PBEM_GAME_ADDRESS"),
    Setting("game", "moderator", ADDRESS, "PBEM_MODERATOR"),
    Setting("game", "name", NAME, "PBEM_SENDER_NAME"),
    Setting("worker", "poll_interval", SECONDS, "PBEM_POLL_INTERVAL"),
    Setting("worker", "outage_gap", LENGTH, "PBEM_OUTAGE_GAP"),
    Setting("worker", "log_format", LOG_FORMAT, "PBEM_LOG_FORMAT"),
    Setting("worker", "log_level", LOG_LEVEL, "PBEM_LOG_LEVEL"),
    Setting("archive", "dir", PATH, "PBEM_ARCHIVE_DIR"),
    Setting("archive", "url", WEB_URL, "PBEM_ARCHIVE_URL"),
    Setting("signup", "new", OPENER),
    Setting("signup", "approve", YES_NO),
    Setting("signup", "open_per_address", Kind("a whole number from 0 to 100", _up_to(100))),
    Setting("signup", "new_per_day", Kind("a whole number from 0 to 1000", _up_to(1000))),
    Setting("signup", "new_per_day_all", Kind("a whole number from 0 to 10000", _up_to(10000))),
    Setting("signup", "watchers", Kind("a whole number from 0 to 1000", _up_to(1000))),
    Setting("signup", "idle_days", Kind("a whole number of days from 1 to 365", _from_one_to(365))),
    Setting("signup", "stranger_mails_per_day", Kind("a whole number from 0 to 100000", _up_to(100000))),
)

# PBEM_ variables that are no key of the config file: checked when a kind is given; None = read by the test
# suite only, never by the pbem command, which takes them as they are.
VARIABLES: dict[str, Kind | None] = {
    "PBEM_CONFIG": PATH,
    "PBEM_CRASH_AT": COUNT,  # pbem.crashpoints: the worker kills itself at the N-th crash point
    "PBEM_CRASH_LOG": PATH,  # pbem.crashpoints: every crash point reached is appended here
    "PBEM_CHROMIUM": None,  # pbem_testing.browser
    "PBEM_CHROMEDRIVER": None,
    "PBEM_SCREENSHOTS": None,
    "PBEM_UPDATE_GOLDEN": None,  # tests/integration: rewrite the golden files
    # The image's build arguments (deploy/Dockerfile, compose.yaml), exported in the shell that builds it, where the
    # moderator may run pbem as well: the version and commit the image says it is.
    "PBEM_VERSION": None,
    "PBEM_REVISION": None,
}
TEST_PREFIX = "PBEM_TEST_"  # tests/conftest.py and tests/e2e/conftest.py: the suite's own settings

SECTIONS: dict[str, dict[str, Setting]] = {}
for _setting in SETTINGS:
    SECTIONS.setdefault(_setting.section, {})[_setting.key] = _setting
ENVIRONMENT: dict[str, Setting] = {s.env: s for s in SETTINGS if s.env}


def known_variables() -> list[str]:
    """Every PBEM_ variable pbem knows (besides PBEM_TEST_...)."""
    return sorted([*ENVIRONMENT, *VARIABLES])


# --------------------------------------------------------------------------- reading it


def default_config_file() -> Path:
    """The user's config file: ``<user config dir>/pbem/config.toml``."""
    import platformdirs  # (here: a command given its config file and its database URL never needs it)

    return Path(platformdirs.user_config_dir(APP)) / "config.toml"


def default_database_url() -> str:
    import platformdirs

    return f"sqlite:///{Path(platformdirs.user_data_dir(APP)) / 'pbem.sqlite3'}"


def shown(value: Any) -> str:
    """A value for a message: text quoted, cut to 60 characters; anything else by its TOML type."""
    if isinstance(value, str):
        return repr(value if len(value) <= 60 else value[:57] + "...")
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, (int, float)):
        text = repr(value)
        return text if len(text) <= 30 else text[:27] + "..."
    if isinstance(value, dict):
        return "a table"
    if isinstance(value, list):
        return "a list"
    return f"a {type(value).__name__}"


def shown_path(path: Path | str) -> str:
    text = str(path)
    return repr(text) if _CONTROL.search(text) or len(text) > 300 else text


def _is_devnull(info: os.stat_result) -> bool:
    try:
        null = os.stat(os.devnull)
    except OSError:
        return False
    return stat.S_ISCHR(info.st_mode) and (info.st_rdev, info.st_dev) == (null.st_rdev, null.st_dev)


def read_config_file(path: Path, named_by: str | None) -> dict[str, Any] | None:
    """The TOML document at ``path``; None when the default file is absent (or ``path`` is /dev/null).
    ``named_by`` is the option or variable that named it (None for the default location, which may be absent)."""
    where = f"config file {shown_path(path)}" + (f" ({named_by})" if named_by else "")
    try:
        info = path.stat()
    except (FileNotFoundError, NotADirectoryError):
        if named_by is None:
            return None
        raise ConfigError(f"the {where} does not exist (pbem never falls back to its defaults for a file it "
                          f"was given; --config /dev/null runs without one)") from None
    except (OSError, ValueError) as exc:
        raise ConfigError(f"cannot read {where}: {_why(exc)}") from exc
    if _is_devnull(info):
        return None
    if not stat.S_ISREG(info.st_mode):
        raise ConfigError(f"the {where} is not a regular file")
    if info.st_size > MAX_CONFIG_BYTES:
        raise ConfigError(f"the {where} is larger than {MAX_CONFIG_BYTES // 2**20} MB: not a config file")
    try:
        with path.open("rb") as handle:
            raw = handle.read(MAX_CONFIG_BYTES + 1)
    except (OSError, ValueError) as exc:
        raise ConfigError(f"cannot read {where}: {_why(exc)}") from exc
    try:
        text = raw.decode("utf-8")
    except UnicodeDecodeError as exc:
        raise ConfigError(f"cannot read {where}: it is not UTF-8 text (byte {raw[exc.start]:#04x} at offset "
                          f"{exc.start}); is it the right file?") from exc
    try:
        return tomllib.loads(text)
    except tomllib.TOMLDecodeError as exc:
        raise ConfigError(f"cannot read {where}: it is not TOML: {exc}") from exc
    except ValueError as exc:  # an integer of more than 4300 digits, which Python will not convert
        raise ConfigError(f"cannot read {where}: it is not a config file pbem can read: "
                          f"{str(exc).split(':')[0]}") from exc
    except RecursionError as exc:
        raise ConfigError(f"cannot read {where}: it is not TOML: nested too deeply") from exc


def _why(exc: BaseException) -> str:
    if isinstance(exc, OSError) and exc.strerror:
        return exc.strerror
    return str(exc) or type(exc).__name__


def _suggestion(word: str, choices: list[str]) -> str:
    import difflib  # (here: only a mistake asks for it)

    close = difflib.get_close_matches(word, choices, n=1, cutoff=0.6)
    return f"; did you mean {close[0]}?" if close else ""


def _key(name: str) -> str:
    """A section or key name as the file wrote it, for a message (TOML lets a quoted key hold anything)."""
    return repr(name) if _CONTROL.search(name) or not name.isprintable() or len(name) > 60 or not name else name


def check_file(data: Mapping[str, Any], path: Path) -> None:
    """Every section and key of ``data`` is one pbem knows, in its place."""
    where = f"the config file {shown_path(path)}"
    sections = sorted(SECTIONS)
    for section, table in data.items():
        if section not in SECTIONS:
            homes = [s.name for s in SETTINGS if s.key == section]
            if not isinstance(table, dict):
                hint = f"; did you mean {homes[0]}?" if homes else ""
                raise ConfigError(f"unknown key {_key(section)} at the top of {where}, outside any section{hint} "
                                  f"(the sections: {', '.join(f'[{s}]' for s in sections)})")
            hint = _suggestion(f"[{section}]", [f"[{s}]" for s in sections]) or \
                f" (the sections: {', '.join(f'[{s}]' for s in sections)})"
            raise ConfigError(f"unknown section [{_key(section)}] in {where}{hint}")
        if not isinstance(table, dict):
            raise ConfigError(f"[{section}] in {where} must be a section (a table), not {shown(table)}")
        keys = SECTIONS[section]
        for key in table:
            if key in keys:
                continue
            homes = [s.name for s in SETTINGS if s.key == key]
            hint = (f"; did you mean {homes[0]}?" if homes
                    else _suggestion(key, sorted(keys)) or f" (its keys: {', '.join(keys)})")
            raise ConfigError(f"unknown key {_key(key)} in [{section}] of {where}{hint}")


def check_environment(environ: Mapping[str, str]) -> None:
    """Every PBEM_ variable is one pbem knows: a misspelt one must not leave its setting to a default."""
    known = known_variables()
    for name in sorted(environ):
        if not name.startswith(ENV_PREFIX) or name in ENVIRONMENT or name in VARIABLES or \
                name.startswith(TEST_PREFIX):
            continue
        hint = _suggestion(name.upper(), known)
        from .resources import doc_page  # (only for this message)

        raise ConfigError(f"unknown environment variable {name}{hint} (pbem refuses PBEM_ variables it "
                          f"does not know; {doc_page('cli.md')} lists them)")
    for name, kind in VARIABLES.items():
        value = environ.get(name)
        if kind is None or value is None or (name == "PBEM_CONFIG" and not value):  # (config_file_choice says it)
            continue
        if value == "":  # pbem.crashpoints would take it for unset; a test that meant a number must not pass
            raise ConfigError(f"{name} is empty: give it a value, or unset it")
        _parsed(kind, value, name, from_text=True)
    from .crashpoints import asked_outside_tests

    if asked_outside_tests(environ):
        raise ConfigError("PBEM_CRASH_AT and PBEM_CRASH_LOG are hooks of pbem's test suite (the worker kills itself "
                          "at a step); pbem refuses them outside its tests: unset them")


def _parsed(kind: Kind, value: Any, place: str, from_text: bool) -> Any:
    try:
        return kind.parse(value, from_text)
    except Refused as exc:
        if kind.quiet:
            raise ConfigError(f"{place} {exc}") from None
        raise ConfigError(f"{place} {exc}, not {shown(value)}") from None


@dataclass(frozen=True)
class Found:
    value: Any
    place: str  # for messages: "PBEM_IMAP_PORT" or "[imap] port in /etc/pbem/config.toml"
    level: int  # 2 environment, 1 config file


class Values:
    """The settings that were given, each checked: from the environment where its variable is set (and not
    empty), else from the config file. A value in the file is checked even when the environment wins over it."""

    def __init__(self, data: Mapping[str, Any], path: Path | None, environ: Mapping[str, str]) -> None:
        self.found: dict[tuple[str, str], Found] = {}
        for setting in SETTINGS:
            table = data.get(setting.section, {})
            in_file = setting.key in table
            place = f"{setting.name} in {shown_path(path)}" if path else setting.name
            from_file = Found(_parsed(setting.kind, table[setting.key], place, False), place, 1) if in_file else None
            text = environ.get(setting.env) if setting.env else None
            if text:
                self.found[setting.section, setting.key] = Found(
                    _parsed(setting.kind, text, setting.env, True), setting.env, 2)  # type: ignore[arg-type]
            elif text == "" and from_file is None:
                raise ConfigError(f"{setting.env} is empty and the config file has no {setting.name}: give it a "
                                  "value, or unset it (an empty variable hands its setting to the config file)")
            elif from_file is not None:
                self.found[setting.section, setting.key] = from_file

    def get(self, section: str, key: str, default: Any = None) -> Any:
        found = self.found.get((section, key))
        return found.value if found else default

    def place(self, section: str, key: str) -> str:
        return self.found[section, key].place

    def given(self, section: str, key: str) -> Found | None:
        return self.found.get((section, key))


def config_file_choice(config_file: Path | None, environ: Mapping[str, str]) -> tuple[Path, str | None]:
    """The config file and what named it (None: the default location)."""
    if config_file is not None:
        return config_file, "option --config"
    named = environ.get("PBEM_CONFIG")
    if named is not None:
        if not named.strip():
            raise ConfigError("PBEM_CONFIG is empty: name a config file, or unset it for the default "
                              f"({shown_path(default_config_file())})")
        return _parsed(PATH, named, "PBEM_CONFIG", True), "PBEM_CONFIG"
    return default_config_file(), None


def load_config(db: str | None = None, config_file: Path | None = None,
                environ: Mapping[str, str] | None = None) -> Config:
    """The configuration, every part of it checked (ConfigError with one line saying what is wrong and where).
    Password files are not read here: see ``MailConfig.with_secrets``."""
    environ = os.environ if environ is None else environ
    check_environment(environ)
    path, named_by = config_file_choice(config_file, environ)
    data = read_config_file(path, named_by)
    if data is not None:
        check_file(data, path)
    values = Values(data or {}, path if data is not None else None, environ)
    if db is not None:
        url, origin = _parsed(DATABASE_URL, db, "--db", True), "option --db"
    elif (found := values.given("database", "url")) is not None:
        url = found.value
        origin = "environment PBEM_DATABASE_URL" if found.level == 2 else f"config file {shown_path(path)}"
    else:
        url, origin = default_database_url(), "default"
    mail = _mail_config(values)
    domain = values.get("mail", "domain") or (mail.game_address.split("@", 1)[1] if mail else "pbem.invalid")
    folder = values.get("archive", "dir")
    return Config(
        database_url=url,
        database_url_from=origin,
        config_file=path if data is not None else None,
        mail_domain=domain,
        mail=mail,
        archive=ArchiveConfig(folder=folder, url=values.get("archive", "url", "")),
        signup=_signup_config(values),
        log=LogSettings(format=values.get("worker", "log_format", "text"),
                        level=values.get("worker", "log_level", "info")),
    )


def _signup_config(values: Values) -> SignupConfig:
    return SignupConfig(**{f.name: values.get("signup", f.name, f.default) for f in fields(SignupConfig)})


DEFAULT_PORTS = {"imap": {"ssl": 993, "starttls": 143, "plain": 143}, "smtp": {"ssl": 465, "starttls": 587, "plain": 25}}


def _server(values: Values, name: str) -> ServerConfig | None:
    host = values.get(name, "host")
    if host is None:
        return None
    security = values.get(name, "security", "ssl")
    # The password: the environment's (either form) wins over the file's; one place may not give both forms.
    password, password_file, file_from = "", None, ""
    given = {key: values.given(name, key) for key in ("password", "password_file")}
    level = max((found.level for found in given.values() if found), default=0)
    here = {key: found for key, found in given.items() if found and found.level == level}
    if len(here) == 2:
        raise ConfigError(f"{here['password'].place} and {here['password_file'].place} are both set: keep one")
    if "password" in here:
        password = here["password"].value
    elif "password_file" in here:
        password_file, file_from = here["password_file"].value, here["password_file"].place
    return ServerConfig(host=host, port=values.get(name, "port") or DEFAULT_PORTS[name][security],
                        security=security, user=values.get(name, "user", ""), password=password,
                        password_file=password_file, password_file_from=file_from)


def _mail_config(values: Values) -> MailConfig | None:
    imap = _server(values, "imap")
    smtp = _server(values, "smtp")
    if imap is None and smtp is None:
        return None
    if imap is None or smtp is None:
        raise ConfigError(f"mail needs both [imap] and [smtp] host settings; {'imap' if imap is None else 'smtp'} "
                          f"is missing (PBEM_{'IMAP' if imap is None else 'SMTP'}_HOST or its [section] host)")
    config = MailConfig(
        imap=imap,
        smtp=smtp,
        game_address=values.get("game", "address", ""),
        mailbox=values.get("imap", "mailbox", "INBOX"),
        processed_folder=values.get("imap", "processed_folder", "pbem-processed"),
        rejected_folder=values.get("imap", "rejected_folder", "pbem-rejected"),
        poll_interval=values.get("worker", "poll_interval", 60.0),
        outage_gap=values.get("worker", "outage_gap", 3600.0),
        moderator=values.get("game", "moderator", ""),
        sender_name=values.get("game", "name", ""),
    )
    problems = config.problems()
    if problems:
        raise ConfigError("; ".join(problems))
    return config


def read_secret(path: Path, named_by: str) -> str:
    """The password held by the file ``path`` (its one line; a trailing newline is fine)."""
    where = f"the password file {shown_path(path)}" + (f" ({named_by})" if named_by else "")
    try:
        info = path.stat()
        if not stat.S_ISREG(info.st_mode):
            raise ConfigError(f"cannot read {where}: it is not a regular file")
        if info.st_size > MAX_SECRET_BYTES:
            raise ConfigError(f"cannot read {where}: it is larger than {MAX_SECRET_BYTES // 1024} KB")
        with path.open("rb") as handle:
            raw = handle.read(MAX_SECRET_BYTES + 1)
    except (OSError, ValueError) as exc:
        raise ConfigError(f"cannot read {where}: {_why(exc)}") from exc
    try:
        secret = raw.decode("utf-8").strip()
    except UnicodeDecodeError:
        raise ConfigError(f"cannot read {where}: it is not UTF-8 text") from None
    if not secret:
        raise ConfigError(f"{where} is empty")
    if _CONTROL.search(secret):
        raise ConfigError(f"{where} holds more than one line or a control character: it must hold only the "
                          "password")
    return secret


# --------------------------------------------------------------------------- database URLs


def shown_database_url(url: str) -> str:
    """A database URL as it may be printed, without its password, also when it is malformed (no SQLAlchemy)."""
    scheme, separator, rest = url.partition("://")
    if not separator:
        return shown(url)[1:-1] if _CONTROL.search(url) else url
    userinfo, at, host = rest.rpartition("@")
    if at and ":" in userinfo.split("/", 1)[0]:
        rest = f"{userinfo.split(':', 1)[0]}:***@{host}"
    text = f"{scheme}://{rest}"
    return repr(text)[1:-1] if _CONTROL.search(text) else text


def database_url_problem(url: str) -> str:
    """What is wrong with a database URL, to follow the name of where it was given ("" when nothing is found
    before a driver opens it). The URL is shown without its password."""
    hint = "use sqlite:///path/to/file.sqlite3 or postgresql://user@host:5432/dbname"
    if not url.strip():
        return f"is not a database URL: it is empty; {hint}"
    if len(url) > MAX_PATH:
        return f"is not a database URL: it is longer than {MAX_PATH} characters; {hint}"
    shown_url = shown_database_url(url)
    if _CONTROL.search(url) or url != url.strip():
        return f"is not a database URL ({shown_url}): it holds spaces around it or control characters; {hint}"
    match = re.match(r"([A-Za-z][A-Za-z0-9+.-]*)://", url)
    if not match:
        return f"is not a database URL ({shown_url}); {hint}"
    backend = match.group(1).split("+", 1)[0].lower()
    if backend not in BACKENDS:
        return (f"names a database pbem cannot use ({shown_url}): pbem works with {' and '.join(BACKENDS)} URLs, "
                f"not {backend}")
    if backend == "postgresql":
        try:
            urlsplit(url).port  # noqa: B018 - it raises for a malformed host or port
        except ValueError as exc:
            why = "its port must be a number from 1 to 65535" if "port" in str(exc).lower() \
                else f"its host is malformed ({exc})"
            return f"is not a database URL ({shown_url}): {why}; {hint}"
    return ""
