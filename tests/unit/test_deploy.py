"""deploy/: the example settings are what pbem reads, and the systemd units are valid."""

from __future__ import annotations

import os
import shutil
import subprocess
from pathlib import Path

import pytest

from pbem.config import load_config

DEPLOY = Path(__file__).resolve().parents[2] / "deploy"


def _secrets(tmp_path: Path, text: str) -> str:
    """The example with its password files in tmp_path (the real paths are the server's)."""
    for name in ("imap-password", "smtp-password"):
        (tmp_path / name).write_text(f"{name}-value\n")
        text = text.replace(f"/etc/pbem/{name}", str(tmp_path / name))
    return text


def test_the_two_example_settings_say_the_same_and_pbem_reads_them(tmp_path: Path, monkeypatch) -> None:
    for name in list(os.environ):
        if name.startswith("PBEM_"):
            monkeypatch.delenv(name)
    toml = tmp_path / "config.toml"
    toml.write_text(_secrets(tmp_path, (DEPLOY / "config.toml.example").read_text()))
    from_file = load_config(config_file=toml)

    settings = {}
    for line in _secrets(tmp_path, (DEPLOY / "pbem.env.example").read_text()).splitlines():
        if line and not line.startswith("#"):
            name, _, value = line.partition("=")
            settings[name] = value
    assert settings.pop("PBEM_CONFIG") == "/etc/pbem/config.toml"
    for name, value in settings.items():
        monkeypatch.setenv(name, value)
    from_environment = load_config(config_file=tmp_path / "missing.toml")

    assert from_environment.database_url == from_file.database_url == "sqlite:////var/lib/pbem/pbem.sqlite3"
    assert from_environment.mail == from_file.mail
    mail = from_file.mail
    assert mail is not None and mail.game_address == "game@example.org" and mail.poll_interval == 60
    assert mail.moderator == "moderator@example.org" and mail.outage_gap == 3600
    assert (mail.imap.host, mail.imap.port, mail.imap.security, mail.imap.password) == (
        "imap.example.org", 993, "ssl", "imap-password-value")
    assert (mail.smtp.host, mail.smtp.port, mail.smtp.security, mail.smtp.password) == (
        "smtp.example.org", 465, "ssl", "smtp-password-value")


@pytest.mark.skipif(shutil.which("systemd-analyze") is None, reason="systemd-analyze is not installed")
def test_the_systemd_units_are_valid(tmp_path: Path) -> None:
    pbem = shutil.which("pbem")
    assert pbem, "pbem is not installed"
    for unit in (DEPLOY / "systemd").iterdir():
        # The units name the server's virtualenv; check them against this machine's pbem.
        (tmp_path / unit.name).write_text(unit.read_text().replace("/opt/pbem/venv/bin/pbem", pbem))
    units = sorted(str(path) for path in tmp_path.iterdir())
    checked = subprocess.run(["systemd-analyze", "verify", "--man=no", *units], capture_output=True, text=True,
                             timeout=60)
    problems = [line for line in (checked.stdout + checked.stderr).splitlines() if line.strip()]
    assert checked.returncode == 0 and not problems, problems
