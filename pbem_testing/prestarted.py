"""A console script run many times without paying for its imports each time, for the tests.

Every ``pbem`` a test starts is a new Python that spends about a second importing pbem, SQLAlchemy, Alembic
and Pydantic before it reads its arguments. ``Prestarted`` keeps one process that has done those imports and
forks it for every run. The child takes the run's arguments, environment, working directory and standard
streams, then executes the installed script itself (``runpy.run_path``) and ends as the Python started for it
would: uncaught exceptions printed by ``sys.excepthook``, ``SystemExit`` turned into the exit code, threads
joined, ``atexit`` run, the streams flushed. The caller gets what ``subprocess.run(..., capture_output=True,
text=True)`` gives: the output, and the exit code or minus the signal that ended the run.

The prestarted process is started the way the command is: with the interpreter of the script's ``#!`` line,
or, when the command on PATH is a pyenv shim, through the shim of ``python`` beside it, so that it gets the
environment pyenv gives the command (its own bin folder first on PATH, PYENV_VERSION) and finds the same script.

What a fork cannot give is what a module reads of the environment when it is imported, since the imports were
done before. So a run whose environment or working directory differs from the prestarted process's in
anything but the names in ``per_run`` (names read when a command runs, never on import) is refused: ``run``
returns None and the caller starts a new process as before. So is every run when the prestarted process
cannot start (then its log says why).
"""

from __future__ import annotations

import json
import locale
import os
import selectors
import shutil
import signal
import socket
import subprocess
import sys
import tempfile
import time
from pathlib import Path
from typing import Iterable

from .waiting import HANG

_HARNESSES = str(Path(__file__).resolve().parents[1])  # the folder that holds pbem_testing/
_MESSAGE = 1 << 20  # room for one request (arguments and environment) in one datagram


def python_script(path: str) -> tuple[str, str] | None:
    """(interpreter, script) when ``path`` is a Python script with an absolute ``#!`` line, else None."""
    try:
        with open(path, "rb") as file:
            first = file.readline(4096)
    except OSError:
        return None
    if not first.startswith(b"#!/"):
        return None
    interpreter = first[2:].decode(errors="replace").strip()
    if " " in interpreter or "python" not in Path(interpreter).name or not os.access(interpreter, os.X_OK):
        return None
    return interpreter, path


def launcher(command: str) -> tuple[list[str], str] | None:
    """How to start a Python like the one ``command`` (a path) runs in, and what names the script to it: the
    script's interpreter and its path; for a pyenv shim, the ``python`` shim beside it and the command's name
    (looked up on the PATH the shim gives); None for anything else."""
    found = python_script(command)
    if found is not None:
        return [found[0]], found[1]
    try:
        text = Path(command).read_text(errors="replace")[:4096]
    except OSError:
        return None
    python = Path(command).with_name("python")
    if text.startswith("#!") and "pyenv" in text and " exec " in text and os.access(python, os.X_OK):
        return [str(python)], Path(command).name
    return None


class Prestarted:
    """One prestarted process for the console script ``command``, started on the first ``run``."""

    def __init__(self, command: str, *, preload: Iterable[str], per_run: Iterable[str] = (),
                 start_timeout: float = HANG, env: dict[str, str] | None = None, cwd: str | None = None) -> None:
        """``env`` and ``cwd``: what the process starts with (default: the first run's). Given, the runs forked
        are those made in them, whichever run comes first (a test's own environment must not decide for the
        rest of the session)."""
        self.command = command
        self.home = (env, cwd)
        self.script = ""  # the script the prestarted process runs, once it has started
        self.preload = tuple(preload)
        self.per_run = frozenset(per_run)
        self.start_timeout = start_timeout
        self.env: dict[str, str] | None = None
        self.cwd: str | None = None
        self.failed: str | None = None  # why it could not start; then every run is refused
        self.runs = 0  # runs forked so far
        self._process: subprocess.Popen[bytes] | None = None
        self._folder: str | None = None
        self._address = ""

    # -- life cycle ---------------------------------------------------------------------

    def _start(self, env: dict[str, str], cwd: str) -> bool:
        how = launcher(self.command)
        if how is None:
            self.failed = f"{self.command} is neither a Python script nor a pyenv shim"
            return False
        python, script = how
        self._folder = tempfile.mkdtemp(prefix="pbem-prestarted-")
        self._address = os.path.join(self._folder, "socket")
        log_path = os.path.join(self._folder, "log")
        own = {k: v for k, v in env.items() if k not in self.per_run}  # read by a run, not by an import
        with open(log_path, "wb") as log:
            self._process = subprocess.Popen(
                [*python, "-c", _BOOT, _HARNESSES, self._address, script, ",".join(sorted(self.per_run)),
                 *self.preload],
                env=own, cwd=cwd, stdin=subprocess.DEVNULL, stdout=subprocess.DEVNULL, stderr=log)
        self.env, self.cwd = own, cwd
        ready = Path(self._address + ".ready")
        deadline = time.monotonic() + self.start_timeout
        while time.monotonic() < deadline:
            if self._process.poll() is not None:
                break
            if ready.exists():
                self.script = ready.read_text()
                return True
            time.sleep(0.01)
        self.failed = f"the prestarted {self.command} did not start:\n{Path(log_path).read_text(errors='replace')}"
        self.stop()
        return False

    def stop(self) -> None:
        process, self._process = self._process, None
        if process is not None and process.poll() is None:
            try:
                with socket.socket(socket.AF_UNIX, socket.SOCK_SEQPACKET) as connection:
                    connection.connect(self._address)
                    connection.send(b'{"stop": true}')
                process.wait(timeout=10)
            except (OSError, subprocess.TimeoutExpired):
                process.kill()
                process.wait()
        folder, self._folder = self._folder, None
        if folder is not None:
            shutil.rmtree(folder, ignore_errors=True)

    # -- runs -----------------------------------------------------------------------------

    def _compatible(self, env: dict[str, str], cwd: str) -> bool:
        assert self.env is not None
        keep = self.per_run
        return cwd == self.cwd and ({k: v for k, v in env.items() if k not in keep}
                                    == {k: v for k, v in self.env.items() if k not in keep})

    def run(self, args: Iterable[str], *, env: dict[str, str], timeout: float | None = None,
            command: list[str] | None = None) -> subprocess.CompletedProcess[str] | None:
        """Run the script with ``args`` as ``subprocess.run(command + args, env=env, capture_output=True,
        text=True, timeout=timeout)`` would; None when this run must be a new process instead."""
        args = list(args)
        cwd = os.getcwd()
        if self.failed is not None:
            return None
        if self._process is None:
            home_env, home_cwd = self.home
            if not self._start(env if home_env is None else home_env, cwd if home_cwd is None else home_cwd):
                return None
        if not self._compatible(env, cwd) or self._process.poll() is not None:
            return None
        shown = [*(command or [self.command]), *args]
        out_r, out_w = os.pipe()
        err_r, err_w = os.pipe()
        stdin = _stdin()
        connection = socket.socket(socket.AF_UNIX, socket.SOCK_SEQPACKET)
        try:
            try:
                connection.connect(self._address)
                request = json.dumps({"args": args, "set": {k: v for k, v in env.items() if k in self.per_run},
                                      "cwd": cwd}).encode()
                socket.send_fds(connection, [request], [stdin, out_w, err_w])
            except OSError:
                return None  # nothing ran: a new process does it
            finally:
                os.close(out_w)
                os.close(err_w)
                if stdin != 0:
                    os.close(stdin)
            pid = self._answer(connection)["pid"]
            output, errors = _read_all({out_r: bytearray(), err_r: bytearray()}, timeout, pid, shown)
            returncode = self._answer(connection)["returncode"]
        finally:
            connection.close()
            os.close(out_r)
            os.close(err_r)
        self.runs += 1
        return subprocess.CompletedProcess(shown, returncode, _text(output), _text(errors))

    def _answer(self, connection: socket.socket) -> dict:
        message = connection.recv(_MESSAGE)
        if not message:  # the prestarted process is gone: say what it left in its log
            log = Path(self._folder or "", "log")
            raise RuntimeError(f"the prestarted {self.command} stopped during a run:\n"
                               f"{log.read_text(errors='replace') if log.is_file() else ''}")
        return json.loads(message)


def _stdin() -> int:
    """What a new process would inherit as its standard input: ours, or /dev/null when we have none."""
    try:
        os.fstat(0)
        return 0
    except OSError:
        return os.open(os.devnull, os.O_RDONLY)


def _read_all(buffers: dict[int, bytearray], timeout: float | None, pid: int, shown: list[str]) -> tuple[bytes, bytes]:
    """Both pipes to their end, as ``communicate`` reads them; past ``timeout`` the run is killed."""
    deadline = None if timeout is None else time.monotonic() + timeout
    out_fd, err_fd = buffers
    with selectors.DefaultSelector() as selector:
        for fd in buffers:
            selector.register(fd, selectors.EVENT_READ)
        while selector.get_map():
            left = None if deadline is None else deadline - time.monotonic()
            if left is not None and left <= 0:
                try:
                    os.kill(pid, signal.SIGKILL)
                except ProcessLookupError:
                    pass
                raise subprocess.TimeoutExpired(shown, timeout, output=bytes(buffers[out_fd]),
                                                stderr=bytes(buffers[err_fd]))
            for key, _ in selector.select(left):
                chunk = os.read(key.fd, 1 << 16)
                if chunk:
                    buffers[key.fd] += chunk
                else:
                    selector.unregister(key.fd)
    return bytes(buffers[out_fd]), bytes(buffers[err_fd])


def _text(data: bytes) -> str:
    """As ``subprocess.run(..., text=True)`` decodes: the locale's encoding, universal newlines."""
    return data.decode(locale.getpreferredencoding(False)).replace("\r\n", "\n").replace("\r", "\n")


# -- the prestarted process ------------------------------------------------------------------

# Runs with ``python -c``: the environment is kept as it came (a shim may have changed it), the script found,
# and sys.path[0] made the script's folder, as when the script itself is started.
_BOOT = """\
import os, sys
if not sys.flags.safe_path:
    del sys.path[0]  # the working folder, which a started script does not have there
environment = dict(os.environ)
harnesses, address, script, per_run, *preload = sys.argv[1:]
sys.path.append(harnesses)  # pbem_testing/ is never installed; the runs must not see its folder on their path
from pbem_testing.prestarted import serve
sys.path.remove(harnesses)
serve(address, script, per_run.split(",") if per_run else [], preload, environment)
"""


def serve(address: str, script: str, per_run: list[str], preload: list[str], environment: dict[str, str]) -> None:
    import gc
    import importlib

    found = shutil.which(script) if os.sep not in script else script
    interpreter = python_script(found) if found else None
    if interpreter is None or os.path.realpath(interpreter[0]) != os.path.realpath(sys.executable):
        sys.exit(f"{script} ({found}) is not a script of this Python ({sys.executable}): {interpreter}")
    script = found
    if not sys.flags.safe_path:
        sys.path.insert(0, os.path.dirname(os.path.abspath(script)))
    for name in preload:
        importlib.import_module(name)
    listener = socket.socket(socket.AF_UNIX, socket.SOCK_SEQPACKET)
    listener.bind(address)
    listener.listen(16)
    gc.collect()
    gc.freeze()  # the children's copies of these pages stay shared
    Path(address + ".ready").write_text(script)
    while True:
        connection, _ = listener.accept()
        with connection:
            message, fds, _flags, _address = socket.recv_fds(connection, _MESSAGE, 3)
            request = json.loads(message)
            if request.get("stop"):
                for fd in fds:
                    os.close(fd)
                return
            env = {k: v for k, v in environment.items() if k not in per_run}
            env.update(request["set"])
            sys.stdout.flush()
            sys.stderr.flush()
            pid = os.fork()
            if pid == 0:
                listener.close()
                connection.close()
                _child(script, request["args"], env, request["cwd"], fds)  # never returns
            for fd in fds:
                os.close(fd)
            try:
                connection.send(json.dumps({"pid": pid}).encode())
            except OSError:
                pass
            _, status = os.waitpid(pid, 0)
            try:
                connection.send(json.dumps({"returncode": os.waitstatus_to_exitcode(status)}).encode())
            except OSError:
                pass


def _child(script: str, args: list[str], env: dict[str, str], cwd: str, fds: list[int]) -> None:
    code = 1
    try:
        for target, fd in enumerate(fds):
            os.dup2(fd, target)
        for fd in set(fds):
            if fd > 2:
                os.close(fd)
        os.environ.clear()
        os.environ.update(env)
        os.chdir(cwd)
        sys.argv = [script, *args]
        code = _run(script)
    finally:
        os._exit(code)


def _run(script: str) -> int:
    """The script as ``python script`` runs it, to the exit code Python would end with."""
    import atexit
    import runpy
    import threading

    try:
        runpy.run_path(script, run_name="__main__")
        code = 0
    except SystemExit as exc:
        code = _exit_code(exc.code)
    except BaseException:  # noqa: BLE001 - printed as Python prints what nothing caught
        sys.excepthook(*sys.exc_info())
        code = 1
    try:
        threading._shutdown()  # type: ignore[attr-defined]  # Python waits for non-daemon threads
    except BaseException:  # noqa: BLE001
        pass
    atexit._run_exitfuncs()
    for stream in (sys.stdout, sys.stderr):
        try:
            if stream is not None:
                stream.flush()
        except BaseException:  # noqa: BLE001 - Python ends with 120 when it cannot flush
            code = 120
    return code


def _exit_code(value: object) -> int:
    if value is None:
        return 0
    if isinstance(value, int):
        return value & 0xFF
    try:
        print(value, file=sys.stderr)
    except BaseException:  # noqa: BLE001
        pass
    return 1
