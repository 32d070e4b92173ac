"""One app per data dir: the first `strata ui` listens on a local socket, later ones signal it.

`strata quick` and a second `strata ui` send one JSON line ("quick" or "show") over a
QLocalSocket named from the user and the data dir (two data dirs never collide; two users never
share one), and get "ok" back. The server socket is created user-only (UserAccessOption), and the
peer must echo a per-run token stored in the data dir (a folder only the user can read), so
another local account cannot drive the window.
"""

from __future__ import annotations

import contextlib
import getpass
import hashlib
import json
import os
import secrets
from collections.abc import Callable
from pathlib import Path

from PySide6.QtCore import QObject
from PySide6.QtNetwork import QLocalServer, QLocalSocket

COMMANDS = ("show", "quick")
TOKEN_FILE = "ui-instance.token"
CONNECT_MS = 800
REPLY_MS = 3000


def socket_name(data_dir: Path) -> str:
    """A short, stable name: the resolved data dir and the user, hashed (socket paths are short)."""
    key = f"{_user()}\0{Path(data_dir).expanduser().resolve()}"
    return "strata-ui-" + hashlib.sha256(key.encode("utf-8")).hexdigest()[:20]


def _user() -> str:
    getuid = getattr(os, "getuid", None)
    if getuid is not None:
        return str(getuid())
    with contextlib.suppress(Exception):
        return getpass.getuser()
    return "user"


def send(data_dir: Path, command: str, *, text: str = "", timeout_ms: int = CONNECT_MS) -> bool:
    """Ask the app running on `data_dir` to `command`; False when none answers (start one then)."""
    if command not in COMMANDS:
        raise ValueError(f"unknown command {command!r}; one of {COMMANDS}")
    token_path = Path(data_dir) / TOKEN_FILE
    try:
        token = token_path.read_text(encoding="utf-8").strip()
    except OSError:
        return False  # no app has listened on this data dir since its last clean exit
    sock = QLocalSocket()
    sock.connectToServer(socket_name(data_dir))
    if not sock.waitForConnected(timeout_ms):
        return False
    line = json.dumps({"command": command, "text": text, "token": token}) + "\n"
    sock.write(line.encode("utf-8"))
    # waitForBytesWritten is False once everything went out, so it cannot gate the reply.
    sock.waitForBytesWritten(REPLY_MS)
    ok = False
    if sock.waitForReadyRead(REPLY_MS):
        ok = bytes(sock.readLine().data()).strip() == b"ok"
    sock.disconnectFromServer()
    return ok


class InstanceServer(QObject):
    """Listens for commands from later `strata` processes; calls `handler(command, text)`."""

    def __init__(
        self, data_dir: Path, handler: Callable[[str, str], None], parent: QObject | None = None
    ) -> None:
        super().__init__(parent)
        self.data_dir = Path(data_dir)
        self.handler = handler
        self.name = socket_name(self.data_dir)
        self.server = QLocalServer(self)
        self.server.setSocketOptions(QLocalServer.SocketOption.UserAccessOption)
        self.server.newConnection.connect(self._accept)
        self.token = secrets.token_urlsafe(24)
        self.received: list[tuple[str, str]] = []
        self._peers: set[QLocalSocket] = set()  # held here so no wrapper outlives its socket

    def listen(self) -> bool:
        """Start listening; a socket left by a crashed app (nobody answers on it) is replaced."""
        if not self.server.listen(self.name):
            # listen() fails on a stale socket file; only remove it when no live app owns it.
            if _alive(self.name):
                return False
            QLocalServer.removeServer(self.name)
            if not self.server.listen(self.name):
                return False
        path = self.data_dir / TOKEN_FILE
        self.data_dir.mkdir(parents=True, exist_ok=True)
        fd = os.open(path, os.O_WRONLY | os.O_CREAT | os.O_TRUNC, 0o600)
        with os.fdopen(fd, "w", encoding="utf-8") as handle:
            handle.write(self.token)
        return True

    def close(self) -> None:
        for sock in list(self._peers):
            sock.abort()
        self._peers.clear()
        self.server.close()
        path = self.data_dir / TOKEN_FILE
        with contextlib.suppress(OSError):
            if path.read_text(encoding="utf-8").strip() == self.token:
                path.unlink()

    def _accept(self) -> None:
        while self.server.hasPendingConnections():
            sock = self.server.nextPendingConnection()
            self._peers.add(sock)
            sock.readyRead.connect(lambda s=sock: self._read(s))
            sock.disconnected.connect(lambda s=sock: self._peers.discard(s))

    def _read(self, sock: QLocalSocket) -> None:
        if not sock.canReadLine():
            return  # wait for the whole line
        raw = bytes(sock.readLine().data())
        try:
            message = json.loads(raw.decode("utf-8"))
            command, text, token = message["command"], str(message.get("text", "")), message["token"]
        except (ValueError, KeyError, TypeError):
            sock.write(b"error: expected one JSON line with command and token\n")
            sock.flush()
            return
        if not secrets.compare_digest(str(token), self.token) or command not in COMMANDS:
            sock.write(b"error: refused\n")
            sock.flush()
            return
        sock.write(b"ok\n")
        sock.flush()
        self.received.append((command, text))
        self.handler(command, text)


def _alive(name: str) -> bool:
    probe = QLocalSocket()
    probe.connectToServer(name)
    alive = probe.waitForConnected(300)
    probe.abort()
    return alive
