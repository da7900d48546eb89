"""Where pbem keeps its data and how it reaches its servers.

The database URL is taken from, in order: the ``--db`` option, the
``PBEM_DATABASE_URL`` environment variable, the config file's
``[database] url``, and finally a SQLite file in the user's data directory.
The config file is ``PBEM_CONFIG`` or ``<user config dir>/pbem/config.toml``.
"""

from __future__ import annotations

import os
import tomllib
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import platformdirs

APP = "pbem"


class ConfigError(Exception):
    """The configuration cannot be read or is incomplete."""


@dataclass(frozen=True)
class Config:
    database_url: str
    database_url_from: str  # option, environment, config file, default
    config_file: Path | None
    mail_domain: str = "pbem.invalid"  # the right-hand side of the Message-IDs we choose


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
    return Config(
        database_url=url,
        database_url_from=origin,
        config_file=path if path.exists() else None,
        mail_domain=str(mail.get("domain", "pbem.invalid")),
    )
