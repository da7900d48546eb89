"""Real mail servers on the loopback interface: Dovecot (IMAP + LMTP) and an SMTP
server in front of it that delivers into Dovecot.

Used by the test suite (``tests/conftest.py``) and meant for ``pbem demo`` and the
bench scripts. Dovecot comes from the system (Debian: ``dovecot-imapd``,
``dovecot-lmtpd``, version 2.3; the config written here is 2.3 syntax).

    with Dovecot() as dovecot:
        dovecot.start({"game": "secret", "ann": "secret"})
        smtp = SmtpToLmtp(dovecot.host, dovecot.lmtp_port)
        smtp.start()
        ...  # send to ann@example.test via 127.0.0.1:smtp.port, read via IMAP
        smtp.stop()

Every instance lives in a fresh directory from ``tempfile.mkdtemp()`` (mode 0755:
when running as root Dovecot's helper users must reach the passwd file, which
pytest's 0700 ``tmp_path`` forbids) and removes it on ``stop()``.
"""

from __future__ import annotations

import asyncio
import atexit
import itertools
import logging
import os
import re
import shutil
import signal
import smtplib
import socket
import subprocess
import tempfile
import threading
import time
import weakref
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Any, Iterator

from .waiting import HANG, NeverHappened, wait_until

if TYPE_CHECKING:
    from imapclient import IMAPClient

log = logging.getLogger(__name__)

DEFAULT_DOMAIN = "example.test"
_instance_numbers = itertools.count(1)
_USER_NAME = re.compile(r"[a-z0-9][a-z0-9._-]*")


def dovecot_binary() -> str | None:
    """The ``dovecot`` executable: on PATH, else in the sbin directories (a normal
    user's PATH on Debian does not include /usr/sbin)."""
    return shutil.which("dovecot") or shutil.which("dovecot", path="/usr/sbin:/usr/local/sbin:/sbin")


def dovecot_available() -> bool:
    return dovecot_binary() is not None


def free_port(host: str = "127.0.0.1") -> int:
    """A TCP port nobody listens on right now (bind to port 0, ask, close)."""
    with socket.socket(socket.AF_INET, socket.SOCK_STREAM) as sock:
        sock.bind((host, 0))
        return sock.getsockname()[1]


def _tail(path: Path, lines: int = 30) -> str:
    try:
        text = path.read_text(errors="replace")
    except OSError:
        return ""
    return "\n".join(text.splitlines()[-lines:])


class DovecotError(RuntimeError):
    pass


_started: weakref.WeakSet[Dovecot] = weakref.WeakSet()


@atexit.register
def _stop_leftovers() -> None:
    """Dovecot runs in a session of its own: stop any instance the program forgot
    (a crashed test run, an exception before ``stop()``)."""
    for instance in list(_started):
        instance.stop()


class Dovecot:
    """A private Dovecot 2.3 instance: IMAP and LMTP on 127.0.0.1, passwd-file users,
    maildirs in its own temp directory. Users log in with their bare name (``ann``);
    LMTP and SMTP recipients are ``ann@<domain>`` (the domain is dropped)."""

    def __init__(self, host: str = "127.0.0.1", domain: str = DEFAULT_DOMAIN, start_timeout: float = HANG) -> None:
        self.host = host
        self.domain = domain
        self.start_timeout = start_timeout
        self.imap_port: int = 0
        self.lmtp_port: int = 0
        self.directory: Path | None = None
        self.users: dict[str, str] = {}
        self._process: subprocess.Popen[bytes] | None = None

    # -- life cycle ---------------------------------------------------------------

    def start(self, users: dict[str, str]) -> None:
        if self._process is not None:
            raise DovecotError("Dovecot is already running")
        binary = dovecot_binary()
        if binary is None:
            raise DovecotError("dovecot is not installed (Debian: apt-get install dovecot-imapd dovecot-lmtpd)")
        self.users = dict(users)
        self.directory = Path(tempfile.mkdtemp(prefix="pbem-dc-"))
        self.directory.chmod(0o755)
        _started.add(self)
        try:
            self._prepare()
            for attempt in range(3):
                self.imap_port, self.lmtp_port = free_port(self.host), free_port(self.host)
                while self.lmtp_port == self.imap_port:
                    self.lmtp_port = free_port(self.host)
                self._write_config()
                if self._launch(binary, last_attempt=attempt == 2):
                    return
        except BaseException:
            self.stop()
            raise

    def stop(self) -> None:
        _started.discard(self)
        process, self._process = self._process, None
        if process is not None and process.poll() is None:
            process.send_signal(signal.SIGTERM)
            try:
                process.wait(timeout=10)
            except subprocess.TimeoutExpired:
                process.kill()
                process.wait(timeout=5)
        directory, self.directory = self.directory, None
        if directory is not None:
            shutil.rmtree(directory, ignore_errors=True)

    def __enter__(self) -> Dovecot:
        return self

    def __exit__(self, *exc_info: object) -> None:
        self.stop()

    @property
    def running(self) -> bool:
        return self._process is not None and self._process.poll() is None

    # -- users ----------------------------------------------------------------------

    def address(self, user: str) -> str:
        return f"{user}@{self.domain}"

    def add_user(self, name: str, password: str) -> None:
        """Add a user, or change a user's password, while Dovecot runs (no restart).

        A new user can log in and receive mail at once. A changed password is noticed
        by Dovecot within about a second; this waits until the new one works."""
        existed = name in self.users
        self.users[name] = password
        if self.directory is None:
            return
        self._write_passwd(only=name)
        if existed and self.running:
            self._wait_for_login(name, password)

    def _wait_for_login(self, name: str, password: str) -> None:
        import imaplib

        def logs_in() -> bool:
            connection = imaplib.IMAP4(self.host, self.imap_port, timeout=HANG)
            try:
                connection.login(name, password)
            except imaplib.IMAP4.error:
                connection.shutdown()
                return False
            connection.logout()
            return True

        wait_until(logs_in, f"the new password of {name!r} works", every=0.1)

    # -- IMAP convenience -----------------------------------------------------------

    def imap(self, user: str, timeout: float = 60.0) -> IMAPClient:
        """A logged-in IMAP connection for ``user`` (plain, loopback). Close it with
        ``logout()`` or use it as a context manager."""
        from imapclient import IMAPClient, SocketTimeout

        client = IMAPClient(self.host, port=self.imap_port, ssl=False, timeout=SocketTimeout(connect=timeout, read=timeout))
        try:
            client.login(user, self.users[user])
        except BaseException:
            client.shutdown()
            raise
        return client

    def empty_mailboxes(self, users: list[str] | None = None) -> None:
        """Delete every message in every user's INBOX and every other folder."""
        for user in users if users is not None else list(self.users):
            client = self.imap(user)
            try:
                folders = [name for _flags, _delimiter, name in client.list_folders()]
                for name in sorted((f for f in folders if f.upper() != "INBOX"), key=len, reverse=True):
                    client.delete_folder(name)
                info = client.select_folder("INBOX")
                if info.get(b"EXISTS", 0):
                    client.set_flags("1:*", [b"\\Deleted"], silent=True)
                    client.expunge()
                client.close_folder()
            finally:
                client.logout()

    # -- internals ------------------------------------------------------------------

    def _ids(self) -> tuple[int, int, str, str, str]:
        """(mail uid, mail gid, login user, internal user, internal group)."""
        if os.geteuid() == 0:
            import grp
            import pwd

            return pwd.getpwnam("nobody").pw_uid, grp.getgrnam("nogroup").gr_gid, "dovenull", "dovecot", "dovecot"
        import grp
        import pwd

        user = pwd.getpwuid(os.geteuid()).pw_name
        group = grp.getgrgid(os.getegid()).gr_name
        return os.geteuid(), os.getegid(), user, user, group

    def _prepare(self) -> None:
        assert self.directory is not None
        uid, gid, *_ = self._ids()
        for sub in ("mail", "state"):
            (self.directory / sub).mkdir(mode=0o755)
        if os.geteuid() == 0:
            os.chown(self.directory / "mail", uid, gid)
        self._write_passwd()

    def _write_passwd(self, only: str | None = None) -> None:
        """One passwd-file per user (``users/<name>``, ``name:{PLAIN}password::::::``).

        Dovecot re-checks a passwd-file at most once a second, so with one shared file a
        user added right after another login stays unknown for up to a second; a file of
        its own is read at the user's first lookup."""
        assert self.directory is not None
        folder = self.directory / "users"
        folder.mkdir(mode=0o755, exist_ok=True)
        for name, password in self.users.items():
            if only is not None and name != only:
                continue
            if not _USER_NAME.fullmatch(name) or any(c in password for c in ":\n\r"):
                raise ValueError(f"unusable user name or password for a passwd-file: {name!r}")
            temporary = folder / f".{name}.tmp"
            temporary.write_text(f"{name}:{{PLAIN}}{password}::::::\n")
            temporary.chmod(0o644)
            os.replace(temporary, folder / name)

    def _write_config(self) -> None:
        assert self.directory is not None
        d = self.directory
        uid, gid, login_user, internal_user, internal_group = self._ids()
        instance = f"pbem-{os.getpid()}-{next(_instance_numbers)}-{d.name}"
        config = f"""\
# Written by pbem_testing.mailservers: a private Dovecot 2.3 instance.
instance_name = {instance}
base_dir = {d}/run
state_dir = {d}/state
log_path = {d}/dovecot.log
protocols = imap lmtp
listen = {self.host}
ssl = no
disable_plaintext_auth = no
auth_mechanisms = plain login
auth_username_format = %Ln
auth_failure_delay = 0 secs
mail_location = maildir:{d}/mail/%n
mail_fsync = never
mailbox_idle_check_interval = 1 secs
first_valid_uid = 0
first_valid_gid = 0
default_login_user = {login_user}
default_internal_user = {internal_user}
default_internal_group = {internal_group}
passdb {{
  driver = passwd-file
  args = {d}/users/%n
}}
userdb {{
  driver = static
  args = uid={uid} gid={gid} home={d}/mail/%n
}}
# Performance mode: login and imap processes serve one connection after another instead of being started
# for each (a login, select and logout take 6 ms instead of 25; every worker pass and mailbox read logs in).
# Safe here: every user has the same uid (the static userdb above).
service imap-login {{
  chroot =
  service_count = 0
  process_min_avail = 1
  inet_listener imap {{
    address = {self.host}
    port = {self.imap_port}
  }}
  inet_listener imaps {{
    port = 0
  }}
}}
service imap {{
  service_count = 0
  process_min_avail = 2
}}
service lmtp {{
  inet_listener lmtp {{
    address = {self.host}
    port = {self.lmtp_port}
  }}
}}
service anvil {{
  chroot =
  # no growing delays after failed logins (tests log in wrongly on purpose)
  unix_listener anvil-auth-penalty {{
    mode = 0
  }}
}}
service stats {{
  chroot =
}}
protocol imap {{
  mail_max_userip_connections = 100
}}
protocol lmtp {{
  postmaster_address = postmaster@localhost
}}
"""
        (d / "dovecot.conf").write_text(config)

    def _launch(self, binary: str, last_attempt: bool) -> bool:
        assert self.directory is not None
        d = self.directory
        output = open(d / "output.log", "ab")
        try:
            self._process = subprocess.Popen(
                [binary, "-F", "-c", str(d / "dovecot.conf")],
                stdin=subprocess.DEVNULL,
                stdout=output,
                stderr=subprocess.STDOUT,
                start_new_session=True,
            )
        finally:
            output.close()
        deadline = time.monotonic() + self.start_timeout
        while True:
            returncode = self._process.poll()
            if returncode is not None:
                logs = self._logs()
                self._process = None
                if "Address already in use" in logs and not last_attempt:
                    return False  # a port was taken between choosing and binding: retry
                raise DovecotError(f"dovecot exited at start with code {returncode}\n{logs}")
            if self._answers_imap() and self._answers(self.lmtp_port):
                return True
            if time.monotonic() > deadline:
                logs = self._logs()
                raise DovecotError(
                    f"dovecot did not answer IMAP on {self.host}:{self.imap_port} within {self.start_timeout} s\n{logs}"
                )
            time.sleep(0.02)

    def _logs(self) -> str:
        assert self.directory is not None
        parts = []
        for name in ("output.log", "dovecot.log"):
            text = _tail(self.directory / name)
            if text:
                parts.append(f"--- tail of {name} ---\n{text}")
        return "\n".join(parts) or "(no log output)"

    def _answers_imap(self) -> bool:
        try:
            with socket.create_connection((self.host, self.imap_port), timeout=1) as sock:
                return sock.recv(100).startswith(b"* OK")
        except OSError:
            return False

    def _answers(self, port: int) -> bool:
        try:
            with socket.create_connection((self.host, port), timeout=1):
                return True
        except OSError:
            return False


@dataclass(frozen=True)
class ReceivedMail:
    """One message the SMTP server accepted (answered 250 to DATA)."""

    mail_from: str
    rcpt_tos: tuple[str, ...]
    data: bytes
    accepted_at: float = 0.0  # time.monotonic() when the server answered 250 to DATA


class _ForwardingHandler:
    """aiosmtpd handler: checks each recipient with Dovecot's LMTP and forwards the
    message there after DATA."""

    def __init__(self, owner: SmtpToLmtp) -> None:
        self.owner = owner

    def _refusal(self) -> str | None:
        code = self.owner.refusing_with
        if code is None:
            return None
        return f"{code} {code // 100}.3.0 Simulated failure (refuse_with({code}))"

    async def handle_RCPT(self, server: Any, session: Any, envelope: Any, address: str, rcpt_options: list[str]) -> str:
        refusal = self._refusal()
        if refusal is not None:
            return refusal
        code, message = await asyncio.to_thread(self.owner._lmtp_check_recipient, address)
        if code != 250:
            return f"{code} {message}"
        envelope.rcpt_tos.append(address)
        return "250 2.1.5 OK"

    async def handle_DATA(self, server: Any, session: Any, envelope: Any) -> str:
        refusal = self._refusal()
        if refusal is not None:
            return refusal
        data = envelope.original_content or envelope.content
        if isinstance(data, str):
            data = data.encode("utf-8")
        mail_from = envelope.mail_from or ""
        results = await asyncio.to_thread(self.owner._lmtp_deliver, mail_from, list(envelope.rcpt_tos), data)
        delivered = [rcpt for rcpt, (code, _message) in results.items() if code == 250]
        failed = {rcpt: result for rcpt, result in results.items() if result[0] != 250}
        if not delivered:
            code, message = next(iter(failed.values()))
            return f"{code} {message}"
        if failed:
            log.warning("LMTP refused some recipients after DATA (a real MTA would bounce): %s", failed)
        self.owner.messages.append(ReceivedMail(mail_from, tuple(delivered), bytes(data), time.monotonic()))
        return "250 2.0.0 OK: delivered"


class SmtpToLmtp:
    """An SMTP server (aiosmtpd) on ``host:port`` that delivers every accepted message
    into Dovecot over LMTP: real SMTP in, real mailbox out.

    Recipients Dovecot does not know are refused at RCPT with Dovecot's answer
    (550 5.1.1). ``refuse_with(451)`` / ``refuse_with(550)`` makes every RCPT and DATA
    fail with that code until ``refuse_with(None)``; ``down()`` stops listening and
    ``up()`` listens again on the same port. ``messages`` lists what was accepted.
    """

    def __init__(self, lmtp_host: str, lmtp_port: int, host: str = "127.0.0.1", port: int = 0) -> None:
        self.lmtp_host = lmtp_host
        self.lmtp_port = lmtp_port
        self.host = host
        self.port = port
        self.messages: list[ReceivedMail] = []
        self.refusing_with: int | None = None
        self._controller: Any = None
        self._lock = threading.Lock()

    def start(self) -> None:
        if not self.port:
            self.port = free_port(self.host)  # Controller(port=0) does not work
        self.up()

    def stop(self) -> None:
        self.down()

    def __enter__(self) -> SmtpToLmtp:
        self.start()
        return self

    def __exit__(self, *exc_info: object) -> None:
        self.stop()

    @property
    def listening(self) -> bool:
        return self._controller is not None

    def up(self) -> None:
        """Listen (again) on the same port."""
        from aiosmtpd.controller import Controller

        with self._lock:
            if self._controller is not None:
                return
            if not self.port:
                raise RuntimeError("call start() first")
            controller = Controller(
                _ForwardingHandler(self),
                hostname=self.host,
                port=self.port,
                ready_timeout=HANG,
                server_hostname="smtp.pbem.test",
                enable_SMTPUTF8=True,
            )
            controller.start()
            self._controller = controller

    def down(self) -> None:
        """Stop listening: connections are refused until ``up()``."""
        with self._lock:
            controller, self._controller = self._controller, None
            if controller is not None:
                controller.stop()

    def refuse_with(self, code: int | None) -> None:
        """Answer every RCPT and DATA with ``code`` (4xx temporary, 5xx permanent);
        ``None`` restores normal delivery."""
        if code is not None and not 400 <= code <= 599:
            raise ValueError(f"refusal code must be 4xx or 5xx, not {code}")
        self.refusing_with = code

    def reset(self) -> None:
        """Back to a fresh state: listening, not refusing, no recorded messages."""
        self.refuse_with(None)
        self.up()
        self.messages.clear()

    # called in worker threads -------------------------------------------------------

    def _lmtp_check_recipient(self, address: str) -> tuple[int, str]:
        try:
            with smtplib.LMTP(self.lmtp_host, self.lmtp_port, timeout=60) as lmtp:
                lmtp.ehlo_or_helo_if_needed()
                code, message = lmtp.mail("")
                if code != 250:
                    return code, message.decode(errors="replace")
                code, message = lmtp.rcpt(address)
                return code, message.decode(errors="replace")
        except (OSError, smtplib.SMTPException) as exc:
            log.warning("LMTP check of %s failed: %s", address, exc)
            return 451, "4.4.0 Mailbox server unavailable"

    def _lmtp_deliver(self, mail_from: str, rcpt_tos: list[str], data: bytes) -> dict[str, tuple[int, str]]:
        """Deliver to each recipient separately (smtplib reads one reply per DATA, LMTP
        gives one per recipient); returns each recipient's (code, message)."""
        results: dict[str, tuple[int, str]] = {}
        try:
            with smtplib.LMTP(self.lmtp_host, self.lmtp_port, timeout=60) as lmtp:
                for rcpt in rcpt_tos:
                    try:
                        lmtp.sendmail(mail_from, [rcpt], data)
                        results[rcpt] = (250, "2.0.0 OK")
                    except smtplib.SMTPRecipientsRefused as exc:
                        code, message = exc.recipients[rcpt]
                        results[rcpt] = (code, message.decode(errors="replace"))
                    except smtplib.SMTPResponseException as exc:
                        results[rcpt] = (exc.smtp_code, exc.smtp_error.decode(errors="replace"))
                        lmtp.rset()
        except (OSError, smtplib.SMTPException) as exc:
            log.warning("LMTP delivery failed: %s", exc)
            for rcpt in rcpt_tos:
                results.setdefault(rcpt, (451, "4.4.0 Mailbox server unavailable"))
        return results


class Mailboxes:
    """Test-side view of a Dovecot's users: addresses, IMAP logins, waiting for mail."""

    def __init__(self, dovecot: Dovecot) -> None:
        self.dovecot = dovecot

    def address(self, user: str) -> str:
        return self.dovecot.address(user)

    @contextmanager
    def login(self, user: str) -> Iterator[IMAPClient]:
        client = self.dovecot.imap(user)
        try:
            yield client
        finally:
            try:
                client.logout()
            except Exception:  # noqa: BLE001 - the test may have broken the connection on purpose
                client.shutdown()

    def messages(self, user: str, folder: str = "INBOX") -> list[bytes]:
        """Every message in ``folder``, oldest first, without setting \\Seen."""
        with self.login(user) as client:
            client.select_folder(folder, readonly=True)
            uids = sorted(client.search("ALL"))
            if not uids:
                return []
            fetched = client.fetch(uids, [b"BODY.PEEK[]"])
            return [fetched[uid][b"BODY[]"] for uid in uids]

    def wait_for(self, user: str, count: int = 1, folder: str = "INBOX", timeout: float = HANG) -> list[bytes]:
        """Poll until ``folder`` holds at least ``count`` messages; return them all."""
        found: list[bytes] = []

        def arrived() -> bool:
            found[:] = self.messages(user, folder)
            return len(found) >= count

        try:
            wait_until(arrived, f"{user}'s {folder} to hold {count} messages", timeout=timeout)
        except NeverHappened as exc:
            raise NeverHappened(f"{exc} (it holds {len(found)})") from None
        return found

    def empty(self) -> None:
        self.dovecot.empty_mailboxes()
