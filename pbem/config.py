"""Where pbem keeps its data and how it reaches its servers.

The database URL is taken from, in order: the ``--db`` option, the
``PBEM_DATABASE_URL`` environment variable, the config file's
``[database] url``, and finally a SQLite file in the user's data directory.
The config file is ``PBEM_CONFIG`` or ``<user config dir>/pbem/config.toml``.

Mail settings (all optional until the worker runs), each also from the
environment (``PBEM_IMAP_HOST``, ``PBEM_SMTP_PASSWORD``, ...)::

    [imap]
    host = "imap.example.org"
    port = 993
    security = "ssl"          # ssl, starttls, or plain (loopback only)
    user = "game@example.org"
    password_file = "~/.config/pbem/imap-password"
    mailbox = "INBOX"
    processed_folder = "pbem-processed"
    rejected_folder = "pbem-rejected"

    [smtp]
    host = "smtp.example.org"
    port = 465
    security = "ssl"
    user = "game@example.org"
    password_file = "~/.config/pbem/smtp-password"

    [game]
    address = "game@example.org"
    moderator = "moderator@example.org"

    [worker]
    poll_interval = 60
    outage_gap = "1h"         # longer without a look at the deadlines: they move instead of all firing
"""

from __future__ import annotations

import os
import tomllib
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import platformdirs

from .timespans import TimingError, parse_duration

APP = "pbem"


class ConfigError(Exception):
    """The configuration cannot be read or is incomplete."""


SECURITY = ("ssl", "starttls", "plain")
LOOPBACK = ("127.0.0.1", "localhost", "::1")


@dataclass(frozen=True)
class ServerConfig:
    """How to reach an IMAP or SMTP server."""

    host: str
    port: int
    security: str  # ssl (implicit TLS), starttls, or plain (loopback only)
    user: str = ""
    password: str = field(default="", repr=False)

    def problems(self, what: str) -> list[str]:
        found = []
        if self.security not in SECURITY:
            found.append(f"{what}.security must be one of {', '.join(SECURITY)}, not {self.security!r}")
        if self.security == "plain" and self.host not in LOOPBACK:
            found.append(f"{what}: plain (unencrypted) connections are only allowed to this machine, not {self.host}")
        return found


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


@dataclass(frozen=True)
class ArchiveConfig:
    """Where the worker keeps the archive's web site (``[archive] dir``) and where people find it (``url``)."""

    folder: Path | None = None  # None: the worker keeps no site (``pbem archive build`` still makes one)
    url: str = ""  # the site's address as players reach it; "" = mails carry no link

    def game_url(self, game_id: int) -> str:
        """The address of a game's page (``pbem.archive.site`` writes it as games/<id>.html), or ""."""
        return f"{self.url.rstrip('/')}/games/{game_id}.html" if self.url else ""


@dataclass(frozen=True)
class Config:
    database_url: str
    database_url_from: str  # option, environment, config file, default
    config_file: Path | None
    mail_domain: str = "pbem.invalid"  # the right-hand side of the Message-IDs we choose
    mail: MailConfig | None = None
    archive: ArchiveConfig = ArchiveConfig()


def default_config_file() -> Path:
    env = os.environ.get("PBEM_CONFIG")
    return Path(env) if env else Path(platformdirs.user_config_dir(APP)) / "config.toml"


def default_database_url() -> str:
    return f"sqlite:///{Path(platformdirs.user_data_dir(APP)) / 'pbem.sqlite3'}"


def _read_toml(path: Path) -> dict[str, Any]:
    try:
        with path.open("rb") as handle:
            return tomllib.load(handle)
    except FileNotFoundError:
        return {}
    except (OSError, tomllib.TOMLDecodeError) as exc:
        raise ConfigError(f"cannot read config file {path}: {exc}") from exc


def load_config(db: str | None = None, config_file: Path | None = None) -> Config:
    path = config_file or default_config_file()
    data = _read_toml(path)
    database = data.get("database", {})
    mail = data.get("mail", {})
    if db:
        url, origin = db, "option --db"
    elif os.environ.get("PBEM_DATABASE_URL"):
        url, origin = os.environ["PBEM_DATABASE_URL"], "environment PBEM_DATABASE_URL"
    elif database.get("url"):
        url, origin = str(database["url"]), f"config file {path}"
    else:
        url, origin = default_database_url(), "default"
    mail_config = _mail_config(data, path)
    domain = mail.get("domain") or (mail_config.game_address.split("@", 1)[1] if mail_config else "pbem.invalid")
    return Config(
        database_url=url,
        database_url_from=origin,
        config_file=path if path.exists() else None,
        mail_domain=str(domain),
        mail=mail_config,
        archive=_archive_config(data),
    )


def _archive_config(data: dict[str, Any]) -> ArchiveConfig:
    section = data.get("archive", {})
    folder = str(_setting(section, "dir", "PBEM_ARCHIVE_DIR", "")).strip()
    url = str(_setting(section, "url", "PBEM_ARCHIVE_URL", "")).strip()
    if url and not url.startswith(("https://", "http://")):
        raise ConfigError(f"archive.url must be a web address (https://...), not {url!r}")
    return ArchiveConfig(folder=Path(folder).expanduser() if folder else None, url=url)


def _setting(section: dict[str, Any], key: str, env: str, default: Any = None) -> Any:
    return os.environ.get(env) or section.get(key, default)


def _password(section: dict[str, Any], prefix: str, path: Path) -> str:
    if os.environ.get(f"{prefix}_PASSWORD"):
        return os.environ[f"{prefix}_PASSWORD"]
    secret_file = os.environ.get(f"{prefix}_PASSWORD_FILE") or section.get("password_file")
    if secret_file:
        try:
            return Path(secret_file).expanduser().read_text().strip()
        except OSError as exc:
            raise ConfigError(f"cannot read the password file {secret_file}: {exc.strerror}") from exc
    return str(section.get("password", ""))


def _server(data: dict[str, Any], name: str, default_ports: dict[str, int], path: Path) -> ServerConfig | None:
    section = data.get(name, {})
    prefix = f"PBEM_{name.upper()}"
    host = _setting(section, "host", f"{prefix}_HOST")
    if not host:
        return None
    security = str(_setting(section, "security", f"{prefix}_SECURITY", "ssl")).lower()
    port = _setting(section, "port", f"{prefix}_PORT") or default_ports.get(security, 0)
    try:
        port = int(port)
    except ValueError as exc:
        raise ConfigError(f"{name}.port must be a number, not {port!r}") from exc
    return ServerConfig(host=str(host), port=port, security=security,
                        user=str(_setting(section, "user", f"{prefix}_USER", "")),
                        password=_password(section, prefix, path))


def _mail_config(data: dict[str, Any], path: Path) -> MailConfig | None:
    imap = _server(data, "imap", {"ssl": 993, "starttls": 143, "plain": 143}, path)
    smtp = _server(data, "smtp", {"ssl": 465, "starttls": 587, "plain": 25}, path)
    if imap is None and smtp is None:
        return None
    if imap is None or smtp is None:
        raise ConfigError(f"mail needs both [imap] and [smtp] host settings; {'imap' if imap is None else 'smtp'} is missing")
    game = data.get("game", {})
    imap_section = data.get("imap", {})
    worker = data.get("worker", {})
    try:
        poll = float(_setting(worker, "poll_interval", "PBEM_POLL_INTERVAL", 60))
    except ValueError as exc:
        raise ConfigError("worker.poll_interval must be a number of seconds") from exc
    gap = _setting(worker, "outage_gap", "PBEM_OUTAGE_GAP", 3600)
    try:
        outage_gap = float(gap) if isinstance(gap, (int, float)) or str(gap).strip().isdigit() else float(
            parse_duration(str(gap), "worker.outage_gap"))
    except TimingError as exc:
        raise ConfigError(str(exc)) from exc
    config = MailConfig(
        imap=imap,
        smtp=smtp,
        game_address=str(_setting(game, "address", "PBEM_GAME_ADDRESS", "")).strip().lower(),
        mailbox=str(_setting(imap_section, "mailbox", "PBEM_IMAP_MAILBOX", "INBOX")),
        processed_folder=str(imap_section.get("processed_folder", "pbem-processed")),
        rejected_folder=str(imap_section.get("rejected_folder", "pbem-rejected")),
        poll_interval=poll,
        outage_gap=outage_gap,
        moderator=str(_setting(game, "moderator", "PBEM_MODERATOR", "")).strip().lower(),
        sender_name=" ".join(str(_setting(game, "name", "PBEM_SENDER_NAME", "")).split())[:60],
    )
    problems = config.problems()
    if problems:
        raise ConfigError("; ".join(problems))
    return config
