"""deploy/pbem-admin: pbem with the settings of the systemd units' EnvironmentFile, read by systemd's rules."""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

ADMIN = Path(__file__).resolve().parents[2] / "deploy" / "pbem-admin"

# Each line as systemd reads it (systemd.exec(5), EnvironmentFile=), and what the variable then holds.
ENV_FILE = (
    "# pbem's settings: a comment line, with PBEM_COMMENTED=1 in it\n"
    "\t; another comment, after a tab\n"
    "PLAIN=pa$word with  spaces   \n"
    "  INDENTED = value\n"
    "SINGLE='$HOME \"quoted\" # no comment \\n'\n"
    'DOUBLE="say \\"hi\\" \\$5 \\\\ back\\slash # kept"\n'
    "TRAILING=value # part of it\n"
    "JOINED='single' \"double\"bare\n"
    "INNER=it's \"fine\"\n"
    "ESCAPED=a\\ b\\\\c\\$d\n"
    "CONTINUED=one\\\ntwo\n"
    'MULTI="line one\nline two"\n'
    "EMPTY=\n"
    "export EXPORTED=x\n"
    "2DIGIT=x\n"
    "NO_EQUALS_SIGN\n"
    "DUP=first\n"
    "DUP=second\n"
    "CRLF=value\r\n"
    "LAST='no newline at the end'"
)
EXPECTED = {
    "PLAIN": "pa$word with  spaces",
    "INDENTED": "value",
    "SINGLE": '$HOME "quoted" # no comment \\n',
    "DOUBLE": 'say "hi" $5 \\ back\\slash # kept',
    "TRAILING": "value # part of it",
    "JOINED": "singledoublebare",
    "INNER": 'it\'s "fine"',
    "ESCAPED": "a b\\c$d",
    "CONTINUED": "onetwo",
    "MULTI": "line one\nline two",
    "EMPTY": "",
    "DUP": "second",
    "CRLF": "value",
    "LAST": "no newline at the end",
}


def admin(tmp_path: Path, env_file: bytes | None, *args: str, pbem: str | None = None,
          **env: str) -> subprocess.CompletedProcess[str]:
    """pbem-admin ARGS with ``env_file`` as its environment file; by default the pbem it runs prints the
    arguments and the environment it was given, as JSON."""
    path = tmp_path / "pbem.env"
    if env_file is not None:
        path.write_bytes(env_file)
    if pbem is None:
        pbem = str(tmp_path / "show-env")
        Path(pbem).write_text(f"#!{sys.executable}\nimport json, os, sys\n"
                              "print(json.dumps({'argv': sys.argv[1:], 'env': dict(os.environ)}))\n")
        Path(pbem).chmod(0o755)
    return subprocess.run([sys.executable, str(ADMIN), *args], capture_output=True, text=True, timeout=60,
                          env=dict(os.environ, PBEM_ADMIN_ENV_FILE=str(path), PBEM_ADMIN_PBEM=pbem, **env))


def test_the_env_file_is_read_as_systemd_reads_it(tmp_path: Path) -> None:
    done = admin(tmp_path, ENV_FILE.encode(), "game", "play", "1", "--as", "ann@example.org", "place 34W orange",
                 PBEM_DATABASE_URL="sqlite:////elsewhere.sqlite3", PBEM_ADMIN_SEEN="no")
    assert done.returncode == 0, done.stderr
    shown = json.loads(done.stdout)
    assert shown["argv"] == ["game", "play", "1", "--as", "ann@example.org", "place 34W orange"]
    env = shown["env"]
    assert {name: env.get(name) for name in EXPECTED} == EXPECTED
    for left_out in ("EXPORTED", "export EXPORTED", "2DIGIT", "NO_EQUALS_SIGN", "PBEM_COMMENTED"):
        assert left_out not in env
    assert done.stderr.splitlines() == [
        f"pbem-admin: {tmp_path / 'pbem.env'}: left out 'export EXPORTED', which is not a variable name (systemd "
        "leaves it out too)",
        f"pbem-admin: {tmp_path / 'pbem.env'}: left out '2DIGIT', which is not a variable name (systemd leaves it "
        "out too)"]
    # The service's settings only: none of the caller's PBEM_ variables, the units' default config file.
    assert "PBEM_DATABASE_URL" not in env and "PBEM_ADMIN_ENV_FILE" not in env and "PBEM_ADMIN_PBEM" not in env
    assert env["PBEM_CONFIG"] == "/etc/pbem/config.toml" and env["PATH"] == os.environ["PATH"]
    assert json.loads(admin(tmp_path, b"PBEM_CONFIG=/dev/null\n").stdout)["env"]["PBEM_CONFIG"] == "/dev/null"


def test_pbem_gets_a_database_path_with_dollars_and_spaces_as_written(tmp_path: Path) -> None:
    folder = tmp_path / "games $HOME and 'more'"
    folder.mkdir()
    url = f"sqlite:///{folder}/pbem.sqlite3"
    env_file = f'PBEM_CONFIG=/dev/null\nPBEM_DATABASE_URL="{url}"\n'.encode()
    pbem = shutil.which("pbem")
    assert pbem, "pbem is not installed"
    upgraded = admin(tmp_path, env_file, "db", "upgrade", pbem=pbem)
    assert upgraded.returncode == 0 and "Upgraded the database from empty" in upgraded.stdout, upgraded.stderr
    assert [path.name for path in folder.iterdir()] == ["pbem.sqlite3"]  # where the file said, as it said it


@pytest.mark.parametrize("env_file, pbem, message", [
    (None, None, "cannot read the environment file {folder}/pbem.env: No such file or directory"),
    (b"PBEM_IMAP_PASSWORD=caf\xe9\n", None,
     "the environment file {folder}/pbem.env is not UTF-8 text at 'PBEM_IMAP_PASSWORD' (systemd would refuse it too)"),
    (b"PBEM_CONFIG=/dev/null\n", "/no/such/pbem", "cannot run /no/such/pbem: No such file or directory"),
])
def test_what_stops_it_is_one_line(tmp_path: Path, env_file: bytes | None, pbem: str | None, message: str) -> None:
    done = admin(tmp_path, env_file, "game", "list", pbem=pbem)
    assert (done.returncode, done.stdout, done.stderr) == (1, "", f"error: {message.format(folder=tmp_path)}\n")


def test_latin1_in_a_comment_is_fine_as_for_systemd(tmp_path: Path) -> None:
    done = admin(tmp_path, b"# caf\xe9\nPBEM_CONFIG=/dev/null\n")
    assert done.returncode == 0 and json.loads(done.stdout)["env"]["PBEM_CONFIG"] == "/dev/null", done.stderr
