"""`pbem archive serve` serves the site and nothing else (issue 32): a real `pbem archive serve` process on a free
port of 127.0.0.1, asked over HTTP.

The site is built by `pbem archive build` from a game made with `pbem game new`; beside it (outside the site)
lies a file no request may reach, and inside it links that lead out of the site, to the build's own state and
to a page of the site. Every path is sent as written (``http.client`` does not tidy paths up)."""

from __future__ import annotations

import http.client
import os
import re
import shutil
import signal
import socket
import subprocess
import sys
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path

import pytest

from pbem_testing.waiting import HANG, wait_until

COMMAND = [shutil.which("pbem") or sys.executable, *([] if shutil.which("pbem") else ["-m", "pbem"])]
SECRET = "the file beside the site that nobody may read"


@dataclass
class Served:
    folder: Path
    port: int

    def get(self, path: str, method: str = "GET") -> tuple[int, dict[str, str], bytes]:
        connection = http.client.HTTPConnection("127.0.0.1", self.port, timeout=10)
        try:
            connection.putrequest(method, path, skip_host=False, skip_accept_encoding=True)
            connection.endheaders()
            response = connection.getresponse()
            return response.status, {k.lower(): v for k, v in response.getheaders()}, response.read()
        finally:
            connection.close()


def run_pbem(url: str, *args: str) -> None:
    proc = subprocess.run([*COMMAND, *args], capture_output=True, text=True, timeout=120,
                          env=dict(os.environ, PBEM_DATABASE_URL=url, PBEM_CONFIG="/dev/null"))
    assert proc.returncode == 0, proc.stderr


@pytest.fixture(scope="module")
def served(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Served]:
    top = tmp_path_factory.mktemp("archive-serve")
    url = f"sqlite:///{top / 'games.sqlite3'}"
    run_pbem(url, "db", "upgrade")
    run_pbem(url, "game", "new", "fifth-avenue", "-p", "Ann=ann@example.org", "-p", "Bob=bob@example.org")
    site = top / "site"
    run_pbem(url, "archive", "build", str(site))
    (top / "secret.txt").write_text(SECRET)
    (site / ".hidden.html").write_text(SECRET)
    (site / "leak.html").symlink_to(top / "secret.txt")  # a file of the site that leads out of it
    (site / "outside").symlink_to(top, target_is_directory=True)  # a folder that does
    (site / "state.html").symlink_to(site / ".pbem-archive" / "state.json")  # into the build's own files
    (site / "home.html").symlink_to(site / "index.html")  # within the site: served
    process = subprocess.Popen([*COMMAND, "archive", "serve", str(site), "--port", "0"], stdout=subprocess.PIPE,
                               stderr=subprocess.PIPE, text=True, env=dict(os.environ, COLUMNS="200"))
    try:
        assert process.stdout is not None
        line = process.stdout.readline()
        found = re.search(r"at http://127\.0\.0\.1:(\d+)/", line)
        assert found, (line, process.stderr.read() if process.poll() is not None else "")
        yield Served(site, int(found.group(1)))
    finally:
        process.send_signal(signal.SIGINT)
        try:
            process.wait(timeout=10)
        except subprocess.TimeoutExpired:
            process.kill()
            process.wait()


def test_the_pages_of_the_site_are_served(served: Served) -> None:
    index = (served.folder / "index.html").read_bytes()
    for path in ("/", "/index.html", "/index.html?player=x", "/home.html"):
        status, headers, body = served.get(path)
        assert (status, body) == (200, index), path
        assert headers["content-type"] == "text/html; charset=utf-8"
    status, headers, body = served.get("/games/1.html")
    assert status == 200 and body == (served.folder / "games" / "1.html").read_bytes()
    status, headers, body = served.get("/style.css")
    assert status == 200 and headers["content-type"].startswith("text/css")
    players = sorted((served.folder / "players").glob("*.html"))
    assert players and served.get(f"/players/{players[0].name}")[0] == 200
    status, headers, body = served.get("/", method="HEAD")
    assert status == 200 and body == b"" and headers["content-length"] == str(len(index))


@pytest.mark.parametrize("path", [
    "/games/", "/players/", "/games", "/.pbem-archive/", "/.pbem-archive/state.json", "/.pbem-archive/mark.json",
    "/%2epbem-archive/state.json", "/games/../.pbem-archive/state.json", "/games/%2e%2e/.pbem-archive/state.json",
    "/.hidden.html", "/state.html", "/leak.html", "/outside/secret.txt", "/outside/site/.pbem-archive/state.json",
    "/../secret.txt", "/%2e%2e/secret.txt", "/%2e%2e%2fsecret.txt", "/..%2f..%2fsecret.txt",
    "/games/%2e%2e/%2e%2e/secret.txt",
    "//secret.txt", "/%252e%252e/secret.txt", "/index.html%00.css", "/%ff%fe", "/nothing.html",
])
def test_nothing_else_is_served(served: Served, path: str) -> None:
    status, headers, body = served.get(path)
    assert status == 404, (path, status, body[:200])
    assert SECRET.encode() not in body and b"<" not in body and b"Index of" not in body


def test_a_refusal_does_not_echo_the_request(served: Served) -> None:
    for path in ("/<script>alert(1)</script>", "/%3Cscript%3Ealert(1)%3C/script%3E", "/games/<script>.html"):
        status, headers, body = served.get(path)
        assert status == 404 and b"script" not in body.lower() and b"alert" not in body, (path, body)
        assert headers["content-type"].startswith("text/plain")
    status, headers, body = served.get("/index.html", method="POST")
    assert status == 501 and b"POST" not in body
    status, headers, body = served.get("/<script>", method="DELETE<script>")
    assert status in (400, 501) and b"script" not in body.lower(), body


def test_idle_connections_are_capped_and_dropped(served: Served) -> None:
    """Issue 42: every connection holds a thread, so at most MAX_CONNECTIONS are served at once (one more is told
    503 at once, without a thread) and one that sends nothing is closed after IDLE_SECONDS."""
    from pbem.archive.serve import MAX_CONNECTIONS

    idle = [socket.create_connection(("127.0.0.1", served.port), timeout=10) for _ in range(MAX_CONNECTIONS)]
    try:
        status, headers, body = served.get("/")
        assert status == 503 and body == b"503 Service Unavailable\n"
        first = idle[0]
        first.settimeout(HANG)  # the server closes it after IDLE_SECONDS; only a hang reaches the ceiling
        assert first.recv(100) == b""
    finally:
        for connection in idle:
            connection.close()
    # The closed connections' threads end as the server reads their end: then a page is served again.
    wait_until(lambda: served.get("/")[0] == 200, "a page served once the idle connections are gone")
