"""The configuration fails closed: where each setting comes from, and every file, key, variable or value pbem does
not know refused with one message that names it (pbem.config)."""

from __future__ import annotations

import os
import re
from pathlib import Path

import pytest

import pbem.config
from pbem.config import SETTINGS, VARIABLES, ConfigError, load_config

ROOT = Path(__file__).resolve().parents[2]


@pytest.fixture(autouse=True)
def clean_env(monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> None:
    for name in list(os.environ):
        if name.startswith("PBEM_") and not name.startswith("PBEM_TEST_"):
            monkeypatch.delenv(name)
    monkeypatch.setenv("XDG_CONFIG_HOME", str(tmp_path / "config"))
    monkeypatch.setenv("XDG_DATA_HOME", str(tmp_path / "data"))


def write(path: Path, text: str) -> Path:
    path.write_text(text)
    return path


def refused(fragment: str, **kwargs) -> str:
    """The message load_config refuses with; it must hold ``fragment`` and be one line."""
    with pytest.raises(ConfigError) as caught:
        load_config(**kwargs)
    message = str(caught.value)
    assert fragment in message, message
    assert "\n" not in message
    return message


# --------------------------------------------------------------------------- where the database comes from


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
    assert config.config_file == folder / "config.toml"


def test_precedence_option_then_environment_then_file(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    file = write(tmp_path / "pbem.toml", '[database]\nurl = "sqlite:///from-file.sqlite3"\n')
    monkeypatch.setenv("PBEM_CONFIG", str(file))
    assert load_config().database_url == "sqlite:///from-file.sqlite3"
    monkeypatch.setenv("PBEM_DATABASE_URL", "sqlite:///from-env.sqlite3")
    assert load_config().database_url == "sqlite:///from-env.sqlite3"
    assert load_config(db="sqlite:///from-option.sqlite3").database_url == "sqlite:///from-option.sqlite3"
    # --config wins over PBEM_CONFIG
    other = write(tmp_path / "other.toml", '[mail]\ndomain = "other.example.org"\n')
    assert load_config(config_file=other).mail_domain == "other.example.org"


def test_an_empty_variable_hands_its_setting_to_the_config_file_and_never_to_a_default(tmp_path: Path) -> None:
    file = write(tmp_path / "c.toml", '[database]\nurl = "sqlite:///from-file.sqlite3"\n')
    config = load_config(config_file=file, environ={"PBEM_DATABASE_URL": ""})  # what compose.yaml does
    assert config.database_url == "sqlite:///from-file.sqlite3"
    refused("PBEM_DATABASE_URL is empty and the config file has no [database] url",
            config_file=Path(os.devnull), environ={"PBEM_DATABASE_URL": ""})
    refused("PBEM_CONFIG is empty", environ={"PBEM_CONFIG": ""})
    refused("PBEM_IMAP_PORT is empty", environ={"PBEM_IMAP_PORT": ""})
    refused("PBEM_CRASH_AT is empty", environ={"PBEM_CRASH_AT": ""})
    refused("PBEM_DATABASE_URL is not a database URL: it is empty", environ={"PBEM_DATABASE_URL": "   "})
    refused("--db is not a database URL: it is empty", db="")


# --------------------------------------------------------------------------- the config file itself


def test_a_named_config_file_must_exist_but_the_default_may_be_absent(tmp_path: Path) -> None:
    missing = tmp_path / "typo.toml"
    refused(f"the config file {missing} (option --config) does not exist", config_file=missing)
    refused(f"the config file {missing} (PBEM_CONFIG) does not exist", environ={"PBEM_CONFIG": str(missing)})
    assert load_config().config_file is None  # <user config dir>/pbem/config.toml is absent: the defaults
    assert load_config(config_file=Path(os.devnull)).config_file is None  # no file, on purpose
    assert load_config(environ={"PBEM_CONFIG": os.devnull}).database_url_from == "default"


def test_the_default_config_file_is_checked_as_strictly_when_it_exists(tmp_path: Path) -> None:
    folder = tmp_path / "config" / "pbem"
    folder.mkdir(parents=True)
    write(folder / "config.toml", "[database]\nulr = 'sqlite:///x.sqlite3'\n")
    refused("unknown key ulr in [database]", )
    (folder / "config.toml").unlink()
    (folder / "config.toml").mkdir()
    refused("is not a regular file")


@pytest.mark.parametrize("content,fragment", [
    (b"[database\nurl=", "it is not TOML"),
    (b"\x89PNG\r\n\x1a\n" + bytes(range(256)), "it is not UTF-8 text (byte 0x89 at offset 0)"),
    ("[database]\nurl = 'caf\u00e9'\n".encode("latin-1"), "it is not UTF-8 text"),
    (b"\x00\x01\x02\x03", "it is not TOML"),
    (b"\xef\xbb\xbf[database]\n", "it is not TOML"),  # a byte order mark is no TOML either
    (b"a = " + b"[" * 5000 + b"]" * 5000, "it is not TOML"),
    (b"a = " + b"{b = " * 3000 + b"1" + b"}" * 3000, "nested too deeply"),
    (b"[imap]\nport = " + b"9" * 5000, "Exceeds the limit (4300 digits)"),
    (b"# " + b"x" * (2**20 + 10), "larger than 1 MB"),
])
def test_a_file_that_is_not_a_toml_config_is_refused(tmp_path: Path, content: bytes, fragment: str) -> None:
    (tmp_path / "c.toml").write_bytes(content)
    message = refused(fragment, config_file=tmp_path / "c.toml")
    assert str(tmp_path / "c.toml") in message


@pytest.mark.parametrize("path,fragment", [("folder", "is not a regular file"), ("/dev/zero", "is not a regular file"),
                                           ("a\x00b", "cannot read config file"),
                                           ("x" * 5000, "cannot read config file")])
def test_what_is_no_file_to_read_is_refused(tmp_path: Path, path: str, fragment: str) -> None:
    (tmp_path / "folder").mkdir()
    refused(fragment, config_file=tmp_path / path)


@pytest.mark.skipif(os.geteuid() == 0, reason="root reads every file")
def test_a_config_file_without_permission_is_refused(tmp_path: Path) -> None:
    file = write(tmp_path / "c.toml", "")
    file.chmod(0)
    refused("Permission denied", config_file=file)


# --------------------------------------------------------------------------- sections, keys and variables


@pytest.mark.parametrize("text,fragment", [
    ("[databse]\nurl = 'sqlite:///x'\n", "unknown section [databse] in the config file {file}; did you mean [database]?"),
    ("[imap]\nhots = 'x'\n", "unknown key hots in [imap] of the config file {file}; did you mean host?"),
    ("[database]\nurl = 'sqlite:///x'\nulr = 'sqlite:///y'\n", "unknown key ulr in [database]"),
    ("[imap]\npoll_interval = 60\n", "unknown key poll_interval in [imap] of the config file {file}; did you mean "
                                     "[worker] poll_interval?"),
    ("poll_interval = 60\n", "unknown key poll_interval at the top of the config file {file}, outside any section; "
                             "did you mean [worker] poll_interval?"),
    ("[zzz]\n", "unknown section [zzz] in the config file {file} (the sections: [archive], [database]"),
    ("[imap]\nzzz = 1\n", "unknown key zzz in [imap] of the config file {file} (its keys: host, port"),
    ("imap = 'imap.example.org'\n", "[imap] in the config file {file} must be a section (a table), not 'imap.exa"),
    ("[[imap]]\nhost = 'x'\n", "[imap] in the config file {file} must be a section (a table), not a list"),
    ("[imap.tls]\nverify = true\n", "unknown key tls in [imap]"),
    ("[imap]\n\"ho\\u0000st\" = 'x'\n", "unknown key 'ho\\x00st' in [imap]"),
])
def test_an_unknown_section_or_key_is_refused_with_the_name_it_probably_meant(tmp_path: Path, text: str,
                                                                              fragment: str) -> None:
    file = write(tmp_path / "c.toml", text)
    refused(fragment.format(file=file), config_file=file)


def test_an_unknown_pbem_variable_is_refused_with_the_name_it_probably_meant() -> None:
    refused("unknown environment variable PBEM_DATABSE_URL; did you mean PBEM_DATABASE_URL?",
            environ={"PBEM_DATABSE_URL": "sqlite:///x.sqlite3"})
    refused("unknown environment variable PBEM_IMAP_PASSWORDFILE; did you mean PBEM_IMAP_PASSWORD_FILE?",
            environ={"PBEM_IMAP_PASSWORDFILE": "/x"})
    refused("unknown environment variable PBEM_database_url; did you mean PBEM_DATABASE_URL?",
            environ={"PBEM_database_url": "x"})
    refused("unknown environment variable PBEM_;", environ={"PBEM_": "x"})
    # What pbem itself and its test suite read is known; other programs' variables are none of pbem's business.
    known = {"PBEM_CRASH_AT": "3", "PBEM_CRASH_LOG": "/tmp/points", "PBEM_CHROMIUM": "", "PBEM_SCREENSHOTS": "x",
             "PBEM_UPDATE_GOLDEN": "1", "PBEM_TEST_TMPDIR": "", "PBEM_TEST_ANYTHING_NEW": "x", "PBEMX": "1",
             "pbem_database_url": "x", "DATABASE_URL": "mysql://x", "PYTEST_CURRENT_TEST": "t.py::test (call)"}
    assert load_config(environ=known).database_url_from == "default"


def test_the_crash_points_are_refused_outside_the_tests() -> None:
    """PBEM_CRASH_AT makes the worker kill itself: a line of an env file must not do that to a production worker."""
    message = ("PBEM_CRASH_AT and PBEM_CRASH_LOG are hooks of pbem's test suite (the worker kills itself at a step); "
               "pbem refuses them outside its tests: unset them")
    refused(message, environ={"PBEM_CRASH_AT": "3"})
    refused(message, environ={"PBEM_CRASH_LOG": "/tmp/points"})
    refused(message, environ={"PBEM_CRASH_AT": "3", "PYTEST_CURRENT_TEST": ""})
    assert load_config(environ={"PBEM_CRASH_AT": "0"}).database_url_from == "default"  # 0 arms nothing
    assert load_config(environ={"PBEM_CRASH_AT": "3", "PYTEST_CURRENT_TEST": "t.py::test (call)"})


def test_the_variables_of_the_test_suite_are_all_known() -> None:
    """Every PBEM_ name in pbem/, pbem_testing/, tests/ and bench/ is a setting, a variable pbem.config knows, or
    the suite's own PBEM_TEST_...: otherwise the harness would set one that every command refuses."""
    names: set[str] = set()
    # Their misspelt names; and test_pbem_admin.py's env-file lines and pbem-admin's own PBEM_ADMIN_ variables,
    # which pbem-admin takes out of the environment before pbem starts.
    on_purpose = {"test_config.py", "test_cli_bad_input.py", "test_cli_config.py", "test_pbem_admin.py"}
    for folder in ("pbem", "pbem_testing", "tests", "bench"):
        for path in (ROOT / folder).rglob("*.py"):
            if path.name in on_purpose:
                continue
            text = path.read_text(encoding="utf-8")  # a name in quotes, or set as NAME=value
            names.update(re.findall(r"[\"']PBEM_[A-Z][A-Z0-9_]*[A-Z0-9][\"']", text))
            names.update(re.findall(r"\bPBEM_[A-Z][A-Z0-9_]*[A-Z0-9](?==)", text))
    names = {name.strip("\"'") for name in names}
    names -= {"PBEM_GAME", "PBEM_IMAP", "PBEM_SMTP"}  # prefixes a test strips from its environment
    known = set(pbem.config.known_variables())
    assert {n for n in names if n not in known and not n.startswith("PBEM_TEST_")} == set()


# --------------------------------------------------------------------------- values


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


def mail_file(tmp_path: Path, secret: Path | str = "", imap_host: str = "imap.example.org",
              security: str = "ssl") -> Path:
    return write(tmp_path / "c.toml", MAIL.format(imap_host=imap_host, security=security,
                                                  secret=secret or tmp_path / "imap-password"))


def test_mail_settings_with_defaults_and_a_password_file(tmp_path: Path) -> None:
    write(tmp_path / "imap-password", "s3cret\n")
    file = mail_file(tmp_path)
    mail = load_config(config_file=file).mail
    assert mail is not None
    assert mail.imap.password == "" and mail.imap.password_file == tmp_path / "imap-password"  # not read yet
    mail = mail.with_secrets()
    assert (mail.imap.host, mail.imap.port, mail.imap.security, mail.imap.password) == ("imap.example.org", 993, "ssl", "s3cret")
    assert (mail.smtp.port, mail.smtp.password) == (465, "smtp-secret")
    assert mail.game_address == "game@example.org" and mail.processed_folder == "pbem-processed"
    assert load_config(config_file=file).mail_domain == "example.org"
    assert "s3cret" not in repr(mail)  # passwords stay out of logs


def test_environment_overrides_mail_settings(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    file = mail_file(tmp_path, write(tmp_path / "pw", "x"))
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
        ("imap.example.org", "tls13", "[imap] security in {file} must be one of ssl, starttls, plain, not 'tls13'"),
    ],
)
def test_unsafe_or_wrong_mail_settings_are_refused(tmp_path: Path, imap_host: str, security: str, fragment: str) -> None:
    file = mail_file(tmp_path, write(tmp_path / "pw", "x"), imap_host, security)
    refused(fragment.format(file=file), config_file=file)


def test_one_mail_server_without_the_other_is_refused(tmp_path: Path) -> None:
    refused("mail needs both [imap] and [smtp] host settings; smtp is missing",
            environ={"PBEM_IMAP_HOST": "imap.example.org"})
    refused("game.address must be the game's email address",
            environ={"PBEM_IMAP_HOST": "imap.example.org", "PBEM_SMTP_HOST": "smtp.example.org"})


HOSTILE_VALUES = [  # (section, key, TOML value, what the message says)
    ("imap", "port", '"imap"', "[imap] port in {file} must be a whole number from 1 to 65535, not 'imap'"),
    ("imap", "port", '"993"', "must be a whole number from 1 to 65535, not '993'"),  # TOML says text
    ("imap", "port", "true", "must be a whole number from 1 to 65535, not true"),
    ("imap", "port", "0", "must be a whole number from 1 to 65535, not 0"),
    ("imap", "port", "-993", "must be a whole number from 1 to 65535, not -993"),
    ("imap", "port", "65536", "must be a whole number from 1 to 65535"),
    ("imap", "port", "99999999999999999999999", "must be a whole number from 1 to 65535"),
    ("imap", "port", "993.0", "must be a whole number"),
    ("imap", "port", "[993]", "not a list"),
    ("imap", "port", "{a = 1}", "not a table"),
    ("imap", "port", "1979-05-27", "not a date"),
    ("smtp", "host", '["smtp.example.org"]', "[smtp] host in {file} must be a host name or IP address"),
    ("smtp", "host", '""', "not empty (leave it out for the default)"),
    ("smtp", "host", '"smtp example org"', "must be a host name"),
    ("smtp", "host", '"m\u00e4il.example.org"', "xn-- form"),
    ("smtp", "host", '"a\\u0000b"', "without control characters, not 'a\\x00b'"),
    ("smtp", "host", '"' + "h" * 300 + '"', "of at most 253 characters"),
    ("smtp", "security", "1", "must be one of ssl, starttls, plain, not 1"),
    ("imap", "security", '"SSL3"', "[imap] security in {file} must be one of ssl, starttls, plain, not 'SSL3'"),
    ("imap", "host", "{host = 'x'}", "[imap] host in {file} must be a host name or IP address"),
    ("smtp", "port", "-1", "[smtp] port in {file} must be a whole number from 1 to 65535, not -1"),
    ("smtp", "user", '""', "[smtp] user in {file} must be a user name, not empty"),
    ("smtp", "password", '""', "[smtp] password in {file} must be a password"),
    ("smtp", "password_file", '"a\\u0000b"', "[smtp] password_file in {file} must be a file or folder name on one"),
    ("imap", "user", "{user = 'x'}", "must be a user name, not a table"),
    ("imap", "user", '"game\\r\\nBcc: x"', "on one line"),
    ("imap", "password", "12345", "[imap] password in {file} must be a password"),
    ("imap", "password", '"two\\nlines"', "must be a password: one line"),
    ("imap", "password_file", '""', "must be a file or folder name, not empty"),
    ("imap", "password_file", "[]", "must be a file or folder name, not a list"),
    ("imap", "mailbox", "5", "must be a mail folder name, not 5"),
    ("imap", "processed_folder", '"a\\tb"', "on one line"),
    ("imap", "rejected_folder", '"' + "r" * 201 + '"', "of at most 200 characters"),
    ("worker", "poll_interval", "true", "[worker] poll_interval in {file} must be a number of seconds, more than 0"),
    ("worker", "poll_interval", "0", "more than 0"),
    ("worker", "poll_interval", "-60", "more than 0"),
    ("worker", "poll_interval", "nan", "not nan"),
    ("worker", "poll_interval", "inf", "not inf"),
    ("worker", "poll_interval", "86401", "at most 86400"),
    ("worker", "poll_interval", '"60"', "not '60'"),
    ("worker", "poll_interval", "[60]", "not a list"),
    ("worker", "outage_gap", '"\u00b2"', "must be a length of time such as 1h or 90m"),
    ("worker", "outage_gap", '"\u0663h"', "not '\u0663h'"),  # an Arabic-Indic 3
    ("worker", "outage_gap", '"-5h"', "from a minute to 365 days"),
    ("worker", "outage_gap", '"30s"', "from a minute to 365 days"),
    ("worker", "outage_gap", "30", "from a minute to 365 days"),
    ("worker", "outage_gap", '"400d"', "from a minute to 365 days"),
    ("worker", "outage_gap", '"' + "9" * 5000 + '"', "from a minute to 365 days"),
    ("worker", "outage_gap", '"soon"', "not 'soon'"),
    ("worker", "outage_gap", "false", "not false"),
    ("worker", "log_format", '"syslog"', "[worker] log_format in {file} must be one of text, json, not 'syslog'"),
    ("worker", "log_format", "1", "must be one of text, json"),
    ("worker", "log_level", '"loud"', "[worker] log_level in {file} must be one of debug, info, warning, error"),
    ("worker", "log_level", '"err"', "not 'err'"),
    ("worker", "log_level", "[]", "must be one of debug, info, warning, error"),
    ("game", "address", '"game"', "[game] address in {file} must be an email address"),
    ("game", "address", '"g\u00e4me@example.org"', "must be an email address"),
    ("game", "moderator", '"mod@example.org\\r\\nBcc: eve@example.org"', "on one line"),
    ("game", "moderator", "[]", "must be an email address"),
    ("game", "name", '"' + "N" * 61 + '"', "[game] name in {file} must be a name of at most 60 characters"),
    ("mail", "domain", '"example.org/x"', "[mail] domain in {file} must be a domain name"),
    ("mail", "domain", '"-example.org"', "must be a domain name"),
    ("database", "url", '"mysql://ann:secret@db/pbem"', "names a database pbem cannot use (mysql://ann:***@db/pbem)"),
    ("database", "url", '"postgresql://x:secret@[::1"', "is not a database URL (postgresql://x:***@[::1): its host"),
    ("database", "url", '"postgresql://h:notaport/db"', "its port must be a number from 1 to 65535"),
    ("database", "url", '"postgresql://h:99999/db"', "its port must be a number from 1 to 65535"),
    ("database", "url", '"/var/lib/pbem/pbem.sqlite3"', "is not a database URL (/var/lib/pbem/pbem.sqlite3)"),
    ("database", "url", "5432", "is not a database URL: it must be text, not 5432"),
    ("database", "url", '"sqlite:///a\\u0000b"', "control characters"),
    ("database", "url", '""', "it is empty"),
    ("archive", "url", '"ftp://games.example.org"', "[archive] url in {file} must be a web address"),
    ("archive", "url", '"games.example.org"', "must be a web address"),
    ("archive", "url", '"https://"', "must be a web address"),
    ("archive", "url", '"https://games.example.org:http/"', "must be a web address"),
    ("archive", "dir", "7", "[archive] dir in {file} must be a file or folder name, not 7"),
    ("archive", "dir", '"' + "d" * 5000 + '"', "of at most 4096 characters"),
    ("signup", "new", '"everybody"', "[signup] new in {file} must be one of anyone, players, moderator, not 'everybody'"),
    ("signup", "new", "true", "must be one of anyone, players, moderator"),
    ("signup", "approve", '"maybe"', "[signup] approve in {file} must be one of yes, no"),
    ("signup", "approve", "1", "must be one of yes, no"),
    ("signup", "open_per_address", "101", "[signup] open_per_address in {file} must be a whole number from 0 to 100"),
    ("signup", "open_per_address", '"2"', "must be a whole number from 0 to 100, not '2'"),
    ("signup", "new_per_day", "-1", "[signup] new_per_day in {file} must be a whole number from 0 to 1000"),
    ("signup", "new_per_day", "2.5", "must be a whole number from 0 to 1000"),
    ("signup", "new_per_day_all", "10001", "[signup] new_per_day_all in {file} must be a whole number from 0 to 10000"),
    ("signup", "watchers", "false", "[signup] watchers in {file} must be a whole number from 0 to 1000"),
    ("signup", "idle_days", "0", "[signup] idle_days in {file} must be a whole number from 1 to 365, not 0"),
    ("signup", "stranger_mails_per_day", "-1", "[signup] stranger_mails_per_day in {file} must be a whole number"),
]


@pytest.mark.parametrize("section,key,value,fragment", HOSTILE_VALUES,
                         ids=[f"{s}.{k}={v[:20]}" for s, k, v, _ in HOSTILE_VALUES])
def test_a_value_of_the_wrong_kind_in_the_file_is_refused(tmp_path: Path, section: str, key: str, value: str,
                                                          fragment: str) -> None:
    # Mail settings are checked whether or not mail is configured: a wrong one fails every command.
    file = write(tmp_path / "c.toml", f"[{section}]\n{key} = {value}\n")
    message = refused(fragment.format(file=file), config_file=file)
    assert "secret" not in message


def test_every_setting_has_a_hostile_value_in_the_file_and_in_the_environment() -> None:
    """A setting added to pbem.config.SETTINGS needs a line in HOSTILE_VALUES, and its variable one in
    HOSTILE_ENVIRONMENT (tests/e2e/test_cli_bad_input.py tries more values of every kind by itself)."""
    in_file = {(s, k) for s, k, _, _ in HOSTILE_VALUES}
    assert {(s.section, s.key) for s in SETTINGS} - in_file == set(), "add a wrong value of each to HOSTILE_VALUES"
    assert in_file <= {(s.section, s.key) for s in SETTINGS}
    variables = {s.env for s in SETTINGS if s.env} | {name for name, kind in VARIABLES.items() if kind is not None}
    assert variables == {name for name, _, _ in HOSTILE_ENVIRONMENT}, "add a wrong value to HOSTILE_ENVIRONMENT"


HOSTILE_ENVIRONMENT = [  # (variable, value, what the message says)
    ("PBEM_DATABASE_URL", "postgresql://x:secret@[::1", "PBEM_DATABASE_URL is not a database URL (postgresql://x:***@[::1)"),
    ("PBEM_IMAP_HOST", "imap example.org", "PBEM_IMAP_HOST must be a host name"),
    ("PBEM_IMAP_PORT", "\u0661\u0664\u0663", "PBEM_IMAP_PORT must be a whole number from 1 to 65535, not '\u0661\u0664\u0663'"),
    ("PBEM_IMAP_SECURITY", "TLS", "PBEM_IMAP_SECURITY must be one of ssl, starttls, plain, not 'TLS'"),
    ("PBEM_IMAP_USER", "a\x01b", "PBEM_IMAP_USER must be a user name on one line"),
    ("PBEM_IMAP_PASSWORD", "x" * 1001, "PBEM_IMAP_PASSWORD must be a password"),
    ("PBEM_IMAP_PASSWORD_FILE", " ", "PBEM_IMAP_PASSWORD_FILE must be a file or folder name, not empty"),
    ("PBEM_IMAP_MAILBOX", "x" * 300, "PBEM_IMAP_MAILBOX must be a mail folder name of at most 200 characters"),
    ("PBEM_SMTP_HOST", "-smtp", "PBEM_SMTP_HOST must be a host name"),
    ("PBEM_SMTP_PORT", "-465", "PBEM_SMTP_PORT must be a whole number from 1 to 65535, not '-465'"),
    ("PBEM_SMTP_SECURITY", "none", "PBEM_SMTP_SECURITY must be one of"),
    ("PBEM_SMTP_USER", "u" * 400, "PBEM_SMTP_USER must be a user name of at most 320 characters"),
    ("PBEM_SMTP_PASSWORD", "a\rb", "PBEM_SMTP_PASSWORD must be a password"),
    ("PBEM_SMTP_PASSWORD_FILE", "/x/\x7f", "PBEM_SMTP_PASSWORD_FILE must be a file or folder name on one line"),
    ("PBEM_GAME_ADDRESS", "game@", "PBEM_GAME_ADDRESS must be an email address"),
    ("PBEM_MODERATOR", "\u212aim@example.org", "PBEM_MODERATOR must be an email address"),
    ("PBEM_SENDER_NAME", "Name\nBcc: x", "PBEM_SENDER_NAME must be a name on one line"),
    ("PBEM_POLL_INTERVAL", "1e3", "PBEM_POLL_INTERVAL must be a number of seconds"),
    ("PBEM_OUTAGE_GAP", "\u00b2", "PBEM_OUTAGE_GAP must be a length of time such as 1h or 90m, or a number of seconds"),
    ("PBEM_LOG_FORMAT", "JSON lines", "PBEM_LOG_FORMAT must be one of text, json, not 'JSON lines'"),
    ("PBEM_LOG_LEVEL", "5", "PBEM_LOG_LEVEL must be one of debug, info, warning, error, not '5'"),
    ("PBEM_ARCHIVE_DIR", "\x1b[31m", "PBEM_ARCHIVE_DIR must be a file or folder name on one line"),
    ("PBEM_ARCHIVE_URL", "javascript:alert(1)", "PBEM_ARCHIVE_URL must be a web address"),
    ("PBEM_CONFIG", "\x1b", "PBEM_CONFIG must be a file or folder name on one line"),
    ("PBEM_CRASH_AT", "\u00b2", "PBEM_CRASH_AT must be a whole number from 0 to 1000000000, not '\u00b2'"),
    ("PBEM_CRASH_LOG", " \x07 ", "PBEM_CRASH_LOG must be a file or folder name on one line"),
]


@pytest.mark.parametrize("name,value,fragment", HOSTILE_ENVIRONMENT, ids=[n for n, _, _ in HOSTILE_ENVIRONMENT])
def test_a_variable_of_the_wrong_kind_is_refused(name: str, value: str, fragment: str) -> None:
    message = refused(fragment, config_file=Path(os.devnull), environ={name: value})
    assert "secret" not in message and (value not in message or not name.endswith("_PASSWORD"))


@pytest.mark.parametrize("value", ["0", "-1", "1e2", "12a", "\u0661", "９９３", "9" * 5000, "993 993", "0x3e1"])
def test_numbers_in_the_environment_are_plain_ascii_digits(value: str) -> None:
    refused("PBEM_IMAP_PORT must be a whole number from 1 to 65535", config_file=Path(os.devnull),
            environ={"PBEM_IMAP_PORT": value})


def test_good_values_are_read_as_their_kind(tmp_path: Path) -> None:
    environ = {"PBEM_IMAP_HOST": "::1", "PBEM_IMAP_SECURITY": "PLAIN", "PBEM_SMTP_HOST": "smtp.example.org",
               "PBEM_SMTP_SECURITY": "starttls", "PBEM_GAME_ADDRESS": " Game@Example.org ",
               "PBEM_POLL_INTERVAL": "0.5", "PBEM_OUTAGE_GAP": "90m", "PBEM_SENDER_NAME": "Fifth  Avenue  club",
               "PBEM_ARCHIVE_DIR": "~/site", "PBEM_CRASH_AT": "0"}
    config = load_config(config_file=Path(os.devnull), environ=environ)
    mail = config.mail
    assert (mail.imap.host, mail.imap.port, mail.imap.security) == ("::1", 143, "plain")
    assert (mail.smtp.port, mail.game_address, mail.poll_interval) == (587, "game@example.org", 0.5)
    assert (mail.outage_gap, mail.sender_name, config.mail_domain) == (5400, "Fifth Avenue club", "example.org")
    assert config.archive.folder == Path("~/site").expanduser()
    file = write(tmp_path / "c.toml", "[worker]\noutage_gap = 7200\npoll_interval = 2.5\n")
    config = load_config(config_file=file, environ={k: v for k, v in environ.items()
                                                    if k not in ("PBEM_OUTAGE_GAP", "PBEM_POLL_INTERVAL")})
    assert (config.mail.outage_gap, config.mail.poll_interval) == (7200, 2.5)


def test_a_value_in_the_file_is_checked_even_when_the_environment_wins_over_it(tmp_path: Path) -> None:
    file = write(tmp_path / "c.toml", "[imap]\nport = 'nine nine three'\n")
    refused("[imap] port in", config_file=file, environ={"PBEM_IMAP_PORT": "993"})


# --------------------------------------------------------------------------- passwords


def test_a_password_file_is_read_only_when_asked_for(tmp_path: Path) -> None:
    file = mail_file(tmp_path, tmp_path / "nope")
    mail = load_config(config_file=file).mail  # what `pbem game list` and `pbem status` need: no password
    assert mail is not None and mail.imap.password_file == tmp_path / "nope"
    with pytest.raises(ConfigError, match=re.escape(f"cannot read the password file {tmp_path / 'nope'} "
                                                    f"([imap] password_file in {file}): No such file")):
        mail.with_secrets()


@pytest.mark.parametrize("content,fragment", [
    (None, "it is not a regular file"),
    (b"", "is empty"),
    (b"  \n", "is empty"),
    (b"one\ntwo\n", "holds more than one line"),
    (b"\xff\xfe", "it is not UTF-8 text"),
    (b"x" * (2**16 + 1), "it is larger than 64 KB"),
])
def test_a_password_file_that_holds_no_password_is_refused(tmp_path: Path, content: bytes | None,
                                                            fragment: str) -> None:
    secret = tmp_path / "pw"
    if content is None:
        secret.mkdir()
    else:
        secret.write_bytes(content)
    mail = load_config(config_file=Path(os.devnull), environ={
        "PBEM_IMAP_HOST": "imap.example.org", "PBEM_SMTP_HOST": "smtp.example.org",
        "PBEM_GAME_ADDRESS": "game@example.org", "PBEM_SMTP_PASSWORD_FILE": str(secret)}).mail
    with pytest.raises(ConfigError) as caught:
        mail.with_secrets()
    assert fragment in str(caught.value) and f"{secret} (PBEM_SMTP_PASSWORD_FILE)" in str(caught.value)
    assert "xxxx" not in str(caught.value)


def test_one_place_gives_the_password_one_way(tmp_path: Path) -> None:
    write(tmp_path / "pw", "from-file")
    file = write(tmp_path / "c.toml", f"[imap]\nhost = 'imap.example.org'\npassword = 'a'\npassword_file = "
                                      f"'{tmp_path / 'pw'}'\n[smtp]\nhost = 'smtp.example.org'\n[game]\naddress = "
                                      "'game@example.org'\n")
    refused("[imap] password in", config_file=file)
    assert "both set: keep one" in refused("[imap] password_file in", config_file=file)
    # The environment's password (either form) wins over the file's.
    mail = load_config(config_file=file, environ={"PBEM_IMAP_PASSWORD_FILE": str(tmp_path / "pw")}).mail
    assert mail.with_secrets().imap.password == "from-file"
    refused("PBEM_IMAP_PASSWORD and PBEM_IMAP_PASSWORD_FILE are both set", config_file=file,
            environ={"PBEM_IMAP_PASSWORD_FILE": str(tmp_path / "pw"), "PBEM_IMAP_PASSWORD": "b"})


# --------------------------------------------------------------------------- the archive


def test_the_archive_settings_from_the_file_or_the_environment(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    assert load_config(config_file=Path(os.devnull)).archive.folder is None
    assert load_config(config_file=Path(os.devnull)).archive.game_url(3) == ""  # no address: no links
    path = write(tmp_path / "c.toml", '[archive]\ndir = "~/site"\nurl = "https://games.example.org/archive/"\n')
    archive = load_config(config_file=path).archive
    assert archive.folder == Path("~/site").expanduser()
    assert archive.game_url(12) == "https://games.example.org/archive/games/12.html"
    monkeypatch.setenv("PBEM_ARCHIVE_DIR", str(tmp_path / "www"))
    monkeypatch.setenv("PBEM_ARCHIVE_URL", "http://127.0.0.1:8000")
    archive = load_config(config_file=path).archive
    assert archive.folder == tmp_path / "www" and archive.game_url(1) == "http://127.0.0.1:8000/games/1.html"
    monkeypatch.delenv("PBEM_ARCHIVE_URL")
    with pytest.raises(ConfigError, match="url in .* must be a web address"):
        load_config(config_file=write(tmp_path / "bad.toml", '[archive]\nurl = "games.example.org"\n'))


# --------------------------------------------------------------------------- written down


def test_every_setting_and_variable_is_written_down() -> None:
    """docs/cli.md and pbem/config.py's docstring name every key and variable of the schema, so that a setting
    added to SETTINGS is documented."""
    docs = (ROOT / "docs" / "cli.md").read_text()
    docstring = pbem.config.__doc__ or ""
    for setting in SETTINGS:
        assert f"`{setting.name}`" in docs, setting.name
        assert f"[{setting.section}]" in docstring and setting.key in docstring, setting.name
        if setting.env:
            assert f"`{setting.env}`" in docs, setting.env
            assert setting.env in docstring or setting.env.startswith("PBEM_SMTP_"), setting.env
    for name in VARIABLES:
        assert f"`{name}`" in docs and name in docstring, name


def test_signup_settings_are_read_and_default_to_a_closed_server(tmp_path: Path) -> None:
    """[signup] (docs/signup.md): without it only the moderator opens tables and nothing waits for approval; each
    key is read as written (any case for the words, TOML's booleans for approve too); a misspelt key is refused
    with the key it probably meant."""
    from pbem.config import SignupConfig

    assert load_config(config_file=write(tmp_path / "none.toml", "")).signup == SignupConfig(
        new="moderator", approve=False, open_per_address=2, new_per_day=3, new_per_day_all=20, watchers=20)
    file = write(tmp_path / "c.toml", '[signup]\nnew = "Anyone"\napprove = "yes"\nopen_per_address = 1\n'
                 "new_per_day = 0\nnew_per_day_all = 5\nwatchers = 2\n")
    assert load_config(config_file=file).signup == SignupConfig("anyone", True, 1, 0, 5, 2)
    assert load_config(config_file=write(tmp_path / "b.toml", "[signup]\napprove = true\n")).signup.approve
    assert "did you mean approve?" in refused("unknown key aprove in [signup] of the config file", config_file=write(tmp_path / "typo.toml", '[signup]\naprove = "yes"\n'))
