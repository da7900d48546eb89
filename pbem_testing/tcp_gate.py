"""A gate in front of a TCP server (PostgreSQL, for the tests): open, it passes connections through; shut, it cuts
the ones it carries and hangs up on new ones at once, as a server that restarts does. A test decides when the
server is away and when it is back, so what pbem does then is tested on the event, not on a race with a
process that terminates connections at random moments (issue 40).

    with TcpGate(5432) as gate:   # connect to 127.0.0.1:gate.port
        gate.shut()               # every connection through it is cut, new ones are hung up on
        gate.open()               # connections pass again
"""

from __future__ import annotations

import socket
import threading

from .mailservers import free_port


class TcpGate:
    def __init__(self, target_port: int, target_host: str = "127.0.0.1", host: str = "127.0.0.1") -> None:
        self.target = (target_host, target_port)
        self.host = host
        self.port = free_port(host)
        self.hung_up = 0  # connections refused while shut
        self._open = threading.Event()
        self._open.set()
        self._lock = threading.Lock()
        self._carried: set[socket.socket] = set()
        self._listener: socket.socket | None = None

    def __enter__(self) -> TcpGate:
        listener = socket.create_server((self.host, self.port))
        self._listener = listener
        threading.Thread(target=self._accept, args=(listener,), name="tcp-gate", daemon=True).start()
        return self

    def __exit__(self, *exc_info: object) -> None:
        listener, self._listener = self._listener, None
        if listener is not None:
            listener.close()
        self._cut_all()

    def shut(self) -> None:
        """Cut every connection carried now, and hang up on new ones until ``open()``."""
        self._open.clear()
        self._cut_all()

    def open(self) -> None:
        self._open.set()

    def _cut_all(self) -> None:
        with self._lock:
            carried, self._carried = self._carried, set()
        for sock in carried:
            try:
                sock.shutdown(socket.SHUT_RDWR)
            except OSError:
                pass
            sock.close()

    def _accept(self, listener: socket.socket) -> None:
        while True:
            try:
                client, _ = listener.accept()
            except OSError:
                return  # the gate was taken down
            if not self._open.is_set():
                self.hung_up += 1
                client.close()
                continue
            try:
                server = socket.create_connection(self.target, timeout=30)
            except OSError:
                client.close()
                continue
            server.settimeout(None)
            with self._lock:
                self._carried.update((client, server))
            for source, sink in ((client, server), (server, client)):
                threading.Thread(target=self._pipe, args=(source, sink), daemon=True).start()

    def _pipe(self, source: socket.socket, sink: socket.socket) -> None:
        try:
            while data := source.recv(65536):
                sink.sendall(data)
        except OSError:
            pass
        for sock in (source, sink):
            try:
                sock.shutdown(socket.SHUT_RDWR)
            except OSError:
                pass
        with self._lock:
            self._carried.discard(source)
        source.close()  # each socket is the source of one pipe: closed by it, once
