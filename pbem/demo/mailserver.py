"""A local mail system for the demo: no root, no system packages, nothing left behind.

IMAP is pymap (pure Python, from PyPI) with its in-memory ``dict`` backend, run
in this process on an event loop of its own; SMTP is an aiosmtpd server whose
handler delivers each accepted message into the recipient's INBOX by IMAP
APPEND, logged in as that recipient. Both listen on 127.0.0.1 only, on free
ports (or on the ports asked for, when they are free).

Users log in with their full address (``ann@demo.test``). pymap's ``dict``
backend keeps one built-in user (``--demo-user``/``--demo-password``) and its
users in ``Login.users_dict``; this module adds one ``UserMetadata`` per
address there, the way the backend adds its demo user. Everything lives in
memory and is gone on ``stop()``.

    with DemoMailServer({"game@demo.test": "pw", "ann@demo.test": "pw2"}) as mail:
        mail.imap_port, mail.smtp_port
        client = mail.imap("ann@demo.test")   # a logged-in IMAPClient
"""

from __future__ import annotations

import asyncio
import logging
import secrets
import socket
import threading
from argparse import Namespace
from collections import Counter
from concurrent.futures import Future
from contextlib import AsyncExitStack
from datetime import datetime, timezone
from email.utils import format_datetime
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from imapclient import IMAPClient

HOST = "127.0.0.1"
SERVER_NAME = "mail.demo.test"


class MailServerError(RuntimeError):
    """The local mail servers could not start."""


def new_password() -> str:
    return secrets.token_urlsafe(9)


def _free_port(preferred: int = 0) -> int:
    """``preferred`` when nobody listens on it, else a free port chosen by the system."""
    for port in ([preferred] if preferred else []) + [0]:
        with socket.socket(socket.AF_INET, socket.SOCK_STREAM) as sock:
            sock.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)  # as the server will: TIME_WAIT is no owner
            try:
                sock.bind((HOST, port))
            except OSError:
                continue
            return sock.getsockname()[1]
    raise MailServerError("no free TCP port on 127.0.0.1")


def _listening_socket(preferred: int = 0) -> socket.socket:
    """A socket bound to 127.0.0.1 and listening: ``preferred`` if free, else any free port."""
    for port in ([preferred] if preferred else []) + [0]:
        # IPPROTO_TCP, not 0: asyncio sets TCP_NODELAY only on sockets that say they are TCP, and without
        # it every multi-line answer waits ~40 ms for the client's delayed ACK.
        sock = socket.socket(socket.AF_INET, socket.SOCK_STREAM, socket.IPPROTO_TCP)
        try:
            sock.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
            sock.bind((HOST, port))
            sock.listen(100)
            sock.setblocking(False)
            return sock
        except OSError:
            sock.close()
    raise MailServerError("no free TCP port on 127.0.0.1")


# --------------------------------------------------------------------------- IMAP: pymap in a thread


class _PymapServer:
    """pymap's IMAP service over the in-memory ``dict`` backend, on an event loop in a daemon thread."""

    def __init__(self, preferred_port: int = 0) -> None:
        self.preferred_port = preferred_port
        self.port = 0
        self.loop: asyncio.AbstractEventLoop | None = None
        self._thread: threading.Thread | None = None
        self._stop: asyncio.Event | None = None
        self._ready = threading.Event()
        self._error: BaseException | None = None
        self._login: Any = None
        self._config: Any = None

    def start(self, timeout: float = 15.0) -> None:
        self._thread = threading.Thread(target=self._run, name="pbem-demo-imap", daemon=True)
        self._thread.start()
        if not self._ready.wait(timeout):
            raise MailServerError(f"the IMAP server did not start within {timeout:.0f} s")
        if self._error is not None:
            raise MailServerError(f"the IMAP server did not start: {self._error}") from self._error

    def stop(self) -> None:
        loop, stop = self.loop, self._stop
        if loop is not None and stop is not None and not loop.is_closed():
            try:
                loop.call_soon_threadsafe(stop.set)
            except RuntimeError:  # the loop has just closed
                pass
        if self._thread is not None:
            self._thread.join(timeout=10)
            self._thread = None

    def add_user(self, name: str, password: str) -> None:
        assert self.loop is not None
        future: Future[None] = asyncio.run_coroutine_threadsafe(self._add_user(name, password), self.loop)
        future.result(timeout=30)

    # -- in the server's thread ------------------------------------------------------

    def _run(self) -> None:
        try:
            asyncio.run(self._serve())
        except BaseException as exc:  # noqa: BLE001 - reported to start()
            self._error = exc
            self._ready.set()

    async def _serve(self) -> None:
        from proxyprotocol.sock import SocketInfo
        from pysasl.hashing import BuiltinHash
        from pymap.backend.dict import Config, DictBackend, Login
        from pymap.imap import IMAPServer

        class DemoConfig(Config):
            @property
            def greeting(self) -> bytes:  # pymap asks DNS for the host's FQDN on every connection
                return b"pbem demo IMAP server ready"

        self.loop = asyncio.get_running_loop()
        self._stop = asyncio.Event()
        sock = _listening_socket(self.preferred_port)
        self.port = sock.getsockname()[1]
        # The attributes pymap's own command line would set (see ``pymap --help`` and ``pymap dict --help``).
        args = Namespace(host=HOST, port=self.port, debug=False, cert=None, key=None, tls=False, passlib_cfg=None,
                         proxy_protocol=None, inherited_sockets=None, demo_data=False,
                         demo_user="demouser", demo_password=new_password())
        # Passwords live only in this process's memory: a cheap hash keeps every login fast.
        config = DemoConfig.from_args(args, hash_context=BuiltinHash(rounds=1000), invalid_user_sleep=0.05)
        config.apply_context()
        login = Login(config)
        backend = DictBackend(login, config)
        self._login, self._config = login, config
        async with AsyncExitStack() as stack:
            await backend.start(stack)
            imap = IMAPServer(backend.login, config)
            connections: set[asyncio.Task[Any]] = set()

            # pymap's own command line wraps IMAPServer in proxy-protocol's reader, which starts each connection
            # as a task it keeps no reference to. Until Python 3.12, asyncio's stream protocol kept the
            # connection's StreamWriter, and through it the task, alive; from 3.13 on it does not, and the
            # garbage collector destroyed every connection waiting for its client (IDLE first: "Task was
            # destroyed but it is pending!", the client timed out). Here each connection runs in the task
            # asyncio starts for the callback, kept in `connections` as long as it runs. No PROXY header is
            # read: the demo's clients connect directly.
            async def connected(reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
                task = asyncio.current_task()
                assert task is not None
                connections.add(task)
                try:
                    await imap(reader, writer, SocketInfo.get(writer, None, unique_id=secrets.token_bytes(16)))
                finally:
                    connections.discard(task)

            server = await _start_server(connected, sock)
            await stack.enter_async_context(server)
            serving = asyncio.create_task(server.serve_forever())
            stack.callback(serving.cancel)
            self._ready.set()
            await self._stop.wait()

    async def _add_user(self, name: str, password: str) -> None:
        from pymap.backend.dict import Identity
        from pymap.user import Passwords, UserMetadata

        hashed = await Passwords(self._config).hash_password(password)
        identity = Identity(name, self._login, None, frozenset())
        await identity.set(UserMetadata(self._config, name, password=hashed))


class _QuickAckProtocol(asyncio.StreamReaderProtocol):
    """Acknowledges every piece of a command at once.

    Many IMAP clients (imapclient among them) write a command and its CRLF separately; with Nagle's
    algorithm on their side and delayed ACKs on ours, the CRLF then waits ~40 ms for our ACK, and so
    does every command. TCP_QUICKACK (Linux) sends the ACK now; the kernel clears it again when it
    likes, so it is set after every read."""

    _socket: socket.socket | None = None

    def connection_made(self, transport: asyncio.BaseTransport) -> None:
        self._socket = transport.get_extra_info("socket")
        super().connection_made(transport)

    def data_received(self, data: bytes) -> None:
        super().data_received(data)
        if self._socket is not None:
            try:
                self._socket.setsockopt(socket.IPPROTO_TCP, socket.TCP_QUICKACK, 1)
            except OSError:
                pass


async def _start_server(callback: Any, sock: socket.socket) -> asyncio.AbstractServer:
    """``asyncio.start_server(callback, sock=sock)``, acknowledging quickly where the system can."""
    if not hasattr(socket, "TCP_QUICKACK"):
        return await asyncio.start_server(callback, sock=sock)

    def factory() -> asyncio.Protocol:
        return _QuickAckProtocol(asyncio.StreamReader(limit=2**16), callback)

    return await asyncio.get_running_loop().create_server(factory, sock=sock)


# --------------------------------------------------------------------------- SMTP: aiosmtpd, delivering by APPEND


class _DeliveringHandler:
    """Accepts mail for the local users only and APPENDs it to each recipient's INBOX."""

    def __init__(self, owner: DemoMailServer) -> None:
        self.owner = owner

    async def handle_RCPT(self, server: Any, session: Any, envelope: Any, address: str, rcpt_options: list[str]) -> str:
        if address.strip().lower() not in self.owner.users:
            if (envelope.mail_from or "").strip().lower() in self.owner.defer_from:
                # Mail of the game's worker for somebody else (another game in the same database): a temporary
                # refusal keeps it queued for the real worker instead of marking it failed.
                return f"451 4.2.0 <{address}>: not a mailbox of this demo; try another server later"
            return f"550 5.1.1 <{address}>: no such user here (this server only holds the demo's mailboxes)"
        envelope.rcpt_tos.append(address)
        return "250 2.1.5 OK"

    async def handle_DATA(self, server: Any, session: Any, envelope: Any) -> str:
        data = envelope.original_content or envelope.content
        if isinstance(data, str):
            data = data.encode("utf-8")
        try:
            await asyncio.to_thread(self.owner._deliver, envelope.mail_from or "", list(envelope.rcpt_tos), bytes(data))
        except Exception as exc:  # noqa: BLE001 - the client is told to try again, as a real server would
            return f"451 4.3.0 delivery failed: {exc}"
        return "250 2.0.0 OK: delivered"


class DemoMailServer:
    """IMAP (pymap) and SMTP (aiosmtpd) on 127.0.0.1, with one mailbox per address in ``users``."""

    def __init__(self, users: dict[str, str] | None = None, *, imap_port: int = 0, smtp_port: int = 0,
                 defer_from: tuple[str, ...] = ()) -> None:
        self.host = HOST
        self.defer_from = {address.strip().lower() for address in defer_from}
        self.users: dict[str, str] = {}
        self._initial = dict(users or {})
        self._preferred = (imap_port, smtp_port)
        self._imap = _PymapServer(imap_port)
        self._smtp: Any = None
        self.smtp_port = 0
        self._delivery: dict[str, IMAPClient] = {}
        self._delivery_lock = threading.Lock()
        self.delivered = 0  # deliveries: a mail to two users counts twice
        self.received: Counter[str] = Counter()  # deliveries by recipient address
        self.receipts: Counter[str] = Counter()  # of those, the game's receipts without a board (X-Pbem-Receipt)

    @property
    def imap_port(self) -> int:
        return self._imap.port

    # -- life cycle ----------------------------------------------------------------

    def start(self) -> None:
        try:
            self._imap.start()
            for address, password in self._initial.items():
                self.add_user(address, password)
            self._start_smtp()
        except BaseException:
            self.stop()
            raise

    def _start_smtp(self) -> None:
        from aiosmtpd.controller import Controller

        # aiosmtpd itself sets its deprecated Session.login_data on every AUTH and logs a warning about it.
        logging.getLogger("mail.log").addFilter(_NOT_LOGIN_DATA)
        preferred = self._preferred[1]
        last: BaseException | None = None
        for _attempt in range(5):
            port = _free_port(preferred)
            preferred = 0
            controller = Controller(
                _DeliveringHandler(self), hostname=HOST, port=port, ready_timeout=10,
                server_hostname=SERVER_NAME, enable_SMTPUTF8=True,
                authenticator=self._authenticate, auth_required=False, auth_require_tls=False,
            )
            try:
                controller.start()
            except (OSError, RuntimeError, TimeoutError) as exc:  # the port was taken between choosing and binding
                last = exc
                continue
            self._smtp, self.smtp_port = controller, port
            return
        raise MailServerError(f"the SMTP server did not start: {last}")

    def stop(self) -> None:
        controller, self._smtp = self._smtp, None
        if controller is not None:
            try:
                controller.stop()
            except (RuntimeError, AssertionError):
                pass
        with self._delivery_lock:
            clients, self._delivery = list(self._delivery.values()), {}
        for client in clients:
            try:
                client.logout()
            except Exception:  # noqa: BLE001 - the server may be gone already
                pass
        self._imap.stop()

    def __enter__(self) -> DemoMailServer:
        self.start()
        return self

    def __exit__(self, *exc_info: object) -> None:
        self.stop()

    # -- users -----------------------------------------------------------------------

    def add_user(self, address: str, password: str | None = None) -> str:
        """Create the mailbox ``address`` (login name = the address); returns its password."""
        address = address.strip().lower()
        password = password or new_password()
        self._imap.add_user(address, password)
        self.users[address] = password
        return password

    def imap(self, address: str, timeout: float = 30.0) -> IMAPClient:
        """A new IMAP connection logged in as ``address``."""
        from imapclient import IMAPClient, SocketTimeout

        address = address.strip().lower()
        client = IMAPClient(self.host, port=self.imap_port, ssl=False,
                            timeout=SocketTimeout(connect=10, read=timeout))
        _no_delay(client)
        client.login(address, self.users[address])
        return client

    # -- SMTP authentication and delivery ----------------------------------------------------------

    def _authenticate(self, server: Any, session: Any, envelope: Any, mechanism: str, auth_data: Any) -> Any:
        from aiosmtpd.smtp import AuthResult, LoginPassword

        if isinstance(auth_data, LoginPassword):
            login = auth_data.login.decode(errors="replace").strip().lower()
            password = auth_data.password.decode(errors="replace")
            if login in self.users and secrets.compare_digest(self.users[login], password):
                return AuthResult(success=True)
        return AuthResult(success=False, handled=False)

    def _deliver(self, mail_from: str, rcpt_tos: list[str], data: bytes) -> None:
        """APPEND the message to each recipient's INBOX as that recipient (called in a worker thread)."""
        from imapclient.exceptions import IMAPClientError

        now = datetime.now(timezone.utc)
        trace = (f"Return-Path: <{mail_from}>\r\n"
                 f"Received: from localhost by {SERVER_NAME} (pbem demo); {format_datetime(now)}\r\n").encode()
        receipt = b"\nx-pbem-receipt:" in data.split(b"\r\n\r\n", 1)[0].replace(b"\r\n", b"\n").lower()
        with self._delivery_lock:
            for rcpt in dict.fromkeys(r.strip().lower() for r in rcpt_tos):
                for attempt in (1, 2):
                    client = self._delivery.get(rcpt)
                    try:
                        if client is None:
                            client = self._delivery[rcpt] = self.imap(rcpt)
                        client.append("INBOX", trace + data, msg_time=now)
                        self.delivered += 1
                        self.received[rcpt] += 1
                        self.receipts[rcpt] += receipt
                        break
                    except (IMAPClientError, OSError):
                        self._delivery.pop(rcpt, None)  # a stale connection: log in again once
                        if attempt == 2:
                            raise


class _NotLoginData(logging.Filter):
    def filter(self, record: logging.LogRecord) -> bool:
        return "login_data is deprecated" not in record.getMessage()


_NOT_LOGIN_DATA = _NotLoginData()


def _no_delay(client: IMAPClient) -> None:
    """Send small IMAP commands at once (without it every APPEND waits ~40 ms for a delayed ACK)."""
    try:
        client.socket().setsockopt(socket.IPPROTO_TCP, socket.TCP_NODELAY, 1)
    except (OSError, AttributeError):
        pass

