"""Where the database URL comes from: --db, then PBEM_DATABASE_URL, then the config file, then the default."""

from __future__ import annotations

from pathlib import Path

import pytest

from pbem.config import ConfigError, load_config


@pytest.fixture(autouse=True)
def clean_env(monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> None:
    monkeypatch.delenv("PBEM_DATABASE_URL", raising=False)
    monkeypatch.delenv("PBEM_CONFIG", raising=False)
    monkeypatch.setenv("XDG_CONFIG_HOME", str(tmp_path / "config"))
    monkeypatch.setenv("XDG_DATA_HOME", str(tmp_path / "data"))


def write(path: Path, text: str) -> Path:
    path.write_text(text)
    return path


def test_default_is_a_sqlite_file_in_the_user_data_directory(tmp_path: Path) -> None:
    config = load_config()
    assert config.database_url == f"sqlite:///{tmp_path / 'data' / 'pbem' / 'pbem.sqlite3'}"
    assert config.database_url_from == "default" and config.config_file is None


def test_config_file_in_the_user_config_directory(tmp_path: Path) -> None:
    folder = tmp_path / "config" / "pbem"
    folder.mkdir(parents=True)
    write(folder / "config.toml", '[database]\nurl = "postgresql://127.0.0.1/games"\n[mail]\ndomain = "games.example.org"\n')
    config = load_config()
    assert config.database_url == "postgresql://127.0.0.1/games"
    assert config.database_url_from.startswith("config file")
    assert config.mail_domain == "games.example.org"


def test_precedence_option_then_environment_then_file(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    file = write(tmp_path / "pbem.toml", '[database]\nurl = "sqlite:///from-file.sqlite3"\n')
    monkeypatch.setenv("PBEM_CONFIG", str(file))
    assert load_config().database_url == "sqlite:///from-file.sqlite3"
    monkeypatch.setenv("PBEM_DATABASE_URL", "sqlite:///from-env.sqlite3")
    assert load_config().database_url == "sqlite:///from-env.sqlite3"
    assert load_config(db="sqlite:///from-option.sqlite3").database_url == "sqlite:///from-option.sqlite3"


def test_a_broken_config_file_is_reported(tmp_path: Path) -> None:
    file = write(tmp_path / "bad.toml", "[database\nurl=")
    with pytest.raises(ConfigError, match="cannot read config file"):
        load_config(config_file=file)


MAIL = """
[imap]
host = "{imap_host}"
security = "{security}"
user = "game@example.org"
password_file = "{secret}"
[smtp]
host = "smtp.example.org"
user = "game@example.org"
password = "smtp-secret"
[game]
address = "Game@Example.org"
"""


def test_mail_settings_with_defaults_and_a_password_file(tmp_path: Path) -> None:
    secret = write(tmp_path / "imap-password", "s3cret\n")
    file = write(tmp_path / "c.toml", MAIL.format(imap_host="imap.example.org", security="ssl", secret=secret))
    mail = load_config(config_file=file).mail
    assert mail is not None
    assert (mail.imap.host, mail.imap.port, mail.imap.security, mail.imap.password) == ("imap.example.org", 993, "ssl", "s3cret")
    assert (mail.smtp.port, mail.smtp.password) == (465, "smtp-secret")
    assert mail.game_address == "game@example.org" and mail.processed_folder == "pbem-processed"
    assert load_config(config_file=file).mail_domain == "example.org"
    assert "s3cret" not in repr(mail)  # passwords stay out of logs


def test_environment_overrides_mail_settings(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    secret = write(tmp_path / "pw", "x")
    file = write(tmp_path / "c.toml", MAIL.format(imap_host="imap.example.org", security="ssl", secret=secret))
    monkeypatch.setenv("PBEM_IMAP_HOST", "127.0.0.1")
    monkeypatch.setenv("PBEM_IMAP_SECURITY", "plain")
    monkeypatch.setenv("PBEM_IMAP_PORT", "10143")
    monkeypatch.setenv("PBEM_SMTP_PASSWORD", "from-env")
    mail = load_config(config_file=file).mail
    assert (mail.imap.host, mail.imap.port, mail.imap.security) == ("127.0.0.1", 10143, "plain")
    assert mail.smtp.password == "from-env"


@pytest.mark.parametrize(
    "imap_host,security,fragment",
    [
        ("imap.example.org", "plain", "only allowed to this machine"),
        ("imap.example.org", "tls13", "must be one of ssl, starttls, plain"),
    ],
)
def test_unsafe_or_wrong_mail_settings_are_refused(tmp_path: Path, imap_host: str, security: str, fragment: str) -> None:
    secret = write(tmp_path / "pw", "x")
    file = write(tmp_path / "c.toml", MAIL.format(imap_host=imap_host, security=security, secret=secret))
    with pytest.raises(ConfigError, match=fragment):
        load_config(config_file=file)


def test_a_missing_password_file_is_reported(tmp_path: Path) -> None:
    file = write(tmp_path / "c.toml", MAIL.format(imap_host="imap.example.org", security="ssl",
                                                 secret=tmp_path / "nope"))
    with pytest.raises(ConfigError, match="cannot read the password file"):
        load_config(config_file=file)


def test_the_archive_settings_from_the_file_or_the_environment(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    assert load_config(config_file=tmp_path / "none.toml").archive.folder is None
    assert load_config(config_file=tmp_path / "none.toml").archive.game_url(3) == ""  # no address: no links
    path = write(tmp_path / "c.toml", '[archive]\ndir = "~/site"\nurl = "https://games.example.org/archive/"\n')
    archive = load_config(config_file=path).archive
    assert archive.folder == Path("~/site").expanduser()
    assert archive.game_url(12) == "https://games.example.org/archive/games/12.html"
    monkeypatch.setenv("PBEM_ARCHIVE_DIR", str(tmp_path / "www"))
    monkeypatch.setenv("PBEM_ARCHIVE_URL", "http://127.0.0.1:8000")
    archive = load_config(config_file=path).archive
    assert archive.folder == tmp_path / "www" and archive.game_url(1) == "http://127.0.0.1:8000/games/1.html"
    monkeypatch.delenv("PBEM_ARCHIVE_URL")
    with pytest.raises(ConfigError, match="archive.url must be a web address"):
        load_config(config_file=write(tmp_path / "bad.toml", '[archive]\nurl = "games.example.org"\n'))
