"""The archive's web site over HTTP, for a look in a browser (``pbem archive serve``): its pages and nothing else.

Python's own file server (``http.server.SimpleHTTPRequestHandler``) serves a whole folder: it lists folders,
serves the build's own files (``.pbem-archive/``), follows symbolic links wherever they lead and echoes the
requested path in its error pages. This one answers GET and HEAD with a regular file of the site only:

- no name in the path (as asked, or as the file system resolves it) may start with a dot, so neither
  ``.pbem-archive/`` nor a temporary file of a build nor ``..`` is ever reached;
- the file, with every symbolic link resolved, must lie inside the site's folder;
- a folder is its ``index.html`` when it has one (``/`` is the index), never a listing;
- every refusal is the same short page that repeats nothing of the request;
- a connection that sends nothing for ``IDLE_SECONDS`` is closed, and at most ``MAX_CONNECTIONS`` are served at
  once (a thread each): one more is answered 503 at once, without a thread, and closed.
"""

from __future__ import annotations

import mimetypes
import os
import shutil
import threading
from functools import partial
from http import HTTPStatus
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path
from typing import Any, Callable
from urllib.parse import unquote, urlsplit

IDLE_SECONDS = 10  # a connection that sends nothing this long is closed (its thread freed)
MAX_CONNECTIONS = 32  # connections served at once, a thread each
BUSY = b"HTTP/1.0 503 Service Unavailable\r\nContent-Type: text/plain; charset=utf-8\r\nContent-Length: 24\r\n" \
    b"Connection: close\r\n\r\n503 Service Unavailable\n"
TEXT_TYPES = {".html": "text/html; charset=utf-8", ".css": "text/css; charset=utf-8",
              ".js": "text/javascript; charset=utf-8", ".svg": "image/svg+xml"}


def site_file(root: Path, target: str) -> Path | None:
    """The file of the site in ``root`` (already resolved) that the request target ``target`` asks for, or None
    when it asks for anything else. A folder (``/``, ``/games/``) is its index.html."""
    path = unquote(urlsplit(target).path, errors="strict")
    parts = [part for part in path.split("/") if part]
    if any(part.startswith(".") or "\x00" in part or "\\" in part for part in parts):
        return None
    try:
        wanted = root.joinpath(*parts)
        if wanted.is_dir():
            if parts and not path.endswith("/"):
                return None  # "/games" is not "/games/": relative links would go wrong; the site never uses it
            wanted = wanted / "index.html"
        real = wanted.resolve(strict=True)
        inside = real.relative_to(root)
    except (OSError, ValueError, RuntimeError):  # missing, outside the site, a loop of links, a bad name
        return None
    if any(part.startswith(".") for part in inside.parts) or not real.is_file():
        return None
    return real


class SiteHandler(BaseHTTPRequestHandler):
    """Serves the files of one site (see the module doc)."""

    server_version = "pbem-archive"
    sys_version = ""
    timeout = IDLE_SECONDS  # socketserver sets it on the connection: a silent client is dropped, not waited for

    def __init__(self, *args: Any, root: Path, log: Callable[[str], None], **kwargs: Any) -> None:
        self.root = root
        self.log = log
        super().__init__(*args, **kwargs)

    def do_GET(self) -> None:  # noqa: N802 - the name http.server calls
        self._answer(with_body=True)

    def do_HEAD(self) -> None:  # noqa: N802
        self._answer(with_body=False)

    def _answer(self, with_body: bool) -> None:
        try:
            found = site_file(self.root, self.path)
        except UnicodeDecodeError:
            found = None
        if found is None:
            self.send_error(HTTPStatus.NOT_FOUND)
            return
        try:
            file = open(found, "rb")
        except OSError:
            self.send_error(HTTPStatus.NOT_FOUND)
            return
        with file:
            size = os.fstat(file.fileno()).st_size
            self.send_response(HTTPStatus.OK)
            self.send_header("Content-Type", TEXT_TYPES.get(found.suffix) or mimetypes.guess_type(found.name)[0]
                             or "application/octet-stream")
            self.send_header("Content-Length", str(size))
            self.send_header("Cache-Control", "no-cache")  # the worker rewrites pages after every pass
            self.send_header("X-Content-Type-Options", "nosniff")
            self.end_headers()
            if with_body:
                shutil.copyfileobj(file, self.wfile)

    def send_error(self, code: int, message: str | None = None, explain: str | None = None) -> None:
        """Every refusal (a missing page, a bad request, another method) says its status and nothing of what
        was asked."""
        status = HTTPStatus(code)
        body = f"{status.value} {status.phrase}\n".encode()
        self.close_connection = True
        self.send_response(status.value, status.phrase)
        self.send_header("Content-Type", "text/plain; charset=utf-8")
        self.send_header("Content-Length", str(len(body)))
        self.send_header("Connection", "close")
        self.end_headers()
        if self.command != "HEAD" and code >= 200 and code not in (HTTPStatus.NO_CONTENT, HTTPStatus.NOT_MODIFIED):
            self.wfile.write(body)

    def log_message(self, format: str, *args: object) -> None:
        # A request line is the client's text: shown without control characters, so it cannot rewrite the log.
        line = f"{self.address_string()} {format % args}"
        self.log("".join(c if c.isprintable() else f"\\x{ord(c):02x}" for c in line))


class CappedServer(ThreadingHTTPServer):
    """A thread a connection, at most ``MAX_CONNECTIONS`` of them: one more is told 503 and closed by the
    accepting thread, so idle or slow clients cannot make the server start threads without end."""

    daemon_threads = True

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        self.slots = threading.BoundedSemaphore(MAX_CONNECTIONS)

    def process_request(self, request: Any, client_address: Any) -> None:
        if not self.slots.acquire(blocking=False):
            try:
                request.settimeout(1)
                request.sendall(BUSY)
            except OSError:
                pass
            self.shutdown_request(request)
            return
        try:
            super().process_request(request, client_address)
        except BaseException:
            self.slots.release()
            raise

    def process_request_thread(self, request: Any, client_address: Any) -> None:
        try:
            super().process_request_thread(request, client_address)
        finally:
            self.slots.release()


def site_server(folder: Path, host: str, port: int, log: Callable[[str], None]) -> ThreadingHTTPServer:
    """A server of the site in ``folder`` on ``host``:``port`` (0: a free port), not yet serving."""
    handler = partial(SiteHandler, root=folder.resolve(), log=log)
    return CappedServer((host, port), handler)


__all__ = ["CappedServer", "IDLE_SECONDS", "MAX_CONNECTIONS", "SiteHandler", "site_file", "site_server"]
