"""One app per data dir: `strata quick` and a second `strata ui` signal the running app (real processes)."""

from __future__ import annotations

import json
import os
import subprocess
import sys
import threading
import time

from PySide6.QtNetwork import QLocalSocket

from app.ui.single_instance import TOKEN_FILE, InstanceServer, send, socket_name
from tests.conftest import PROJECT_ROOT


def _env(tmp_path, **extra: str) -> dict[str, str]:
    return {
        **os.environ,
        "QT_QPA_PLATFORM": "offscreen",
        "XDG_CONFIG_HOME": str(tmp_path / "config"),
        "STRATA_EMBEDDING__PROVIDER": "hashing",
        "STRATA_API__ENABLED_IN_APP": "false",
        **extra,
    }


def _flat(text: str) -> str:
    return " ".join(text.split())  # the console wraps long lines


def _strata(tmp_path, data_dir, *args: str) -> subprocess.Popen[str]:
    return subprocess.Popen(
        [sys.executable, "-m", "app", "--data-dir", str(data_dir), *args],
        cwd=PROJECT_ROOT,
        env=_env(tmp_path),
        stdin=subprocess.DEVNULL,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
    )


def test_socket_names_differ_per_data_dir_and_are_stable(tmp_path):
    a, b = socket_name(tmp_path / "a"), socket_name(tmp_path / "b")
    assert a != b and a == socket_name(tmp_path / "a" / ".." / "a")
    assert len(a) < 40  # unix socket paths are short


def test_strata_quick_signals_the_running_app(qtbot, tmp_path):
    data = tmp_path / "data"
    got: list[tuple[str, str]] = []
    server = InstanceServer(data, lambda command, text: got.append((command, text)))
    assert server.listen()
    assert (data / TOKEN_FILE).stat().st_mode & 0o077 == 0  # the token is the user's alone
    try:
        proc = _strata(tmp_path, data, "quick", "budget")
        qtbot.waitUntil(lambda: proc.poll() is not None, timeout=60_000)
        _out, err = proc.communicate()
        assert proc.returncode == 0, err
        assert got == [("quick", "budget")]
        assert "already running" in _flat(err) and "quick search" in _flat(err)
    finally:
        server.close()
    assert not (data / TOKEN_FILE).exists()


def test_a_wrong_token_is_refused(qtbot, tmp_path):
    got: list[tuple[str, str]] = []
    server = InstanceServer(tmp_path, lambda command, text: got.append((command, text)))
    assert server.listen()
    sock = QLocalSocket()
    sock.connectToServer(server.name)
    assert sock.waitForConnected(1000)
    sock.write(json.dumps({"command": "quick", "text": "", "token": "guess"}).encode() + b"\n")
    sock.flush()
    qtbot.waitUntil(lambda: sock.bytesAvailable() > 0 or sock.waitForReadyRead(10), timeout=3000)
    assert bytes(sock.readLine().data()).startswith(b"error")
    assert got == []
    sock.abort()
    server.close()


def test_no_running_app_means_send_says_so_quickly(tmp_path):
    (tmp_path / TOKEN_FILE).write_text("left-by-a-crash", encoding="utf-8")
    started = time.monotonic()
    assert send(tmp_path, "show") is False
    assert time.monotonic() - started < 2


def test_quick_starts_the_app_then_later_commands_signal_it(tmp_path):
    """Real `strata` processes on one data dir: `quick` with no app starts one on its popup; a
    second `ui` raises it and a later `quick` opens its popup, each exiting at once."""
    data = tmp_path / "data"
    env = _env(tmp_path, STRATA_UI_TRACE="1")
    first = subprocess.Popen(
        [sys.executable, "-m", "app", "--data-dir", str(data), "quick"],
        cwd=PROJECT_ROOT,
        env=env,
        stdin=subprocess.DEVNULL,
        stdout=subprocess.DEVNULL,
        stderr=subprocess.PIPE,
        text=True,
    )
    events: list[str] = []
    seen = threading.Condition()

    def read() -> None:
        assert first.stderr is not None
        for line in first.stderr:
            with seen:
                events.append(line.strip())
                seen.notify_all()

    reader = threading.Thread(target=read, daemon=True)
    reader.start()

    def wait_for(event: str, detail: str = "", timeout: float = 120) -> None:
        # Trace lines read "strata-ui-trace <event> <monotonic time> [detail]".
        def happened() -> bool:
            return any(e.split(" ")[1:2] == [event] and e.endswith(detail) for e in events)

        with seen:
            assert seen.wait_for(happened, timeout), events[-20:]

    try:
        wait_for("popup")
        wait_for("services")
        second = _strata(tmp_path, data, "ui")
        _out, err = second.communicate(timeout=60)
        assert second.returncode == 0, err
        assert "brought its window to the front" in _flat(err)
        wait_for("command", "show")
        quick = _strata(tmp_path, data, "quick")
        _out, err = quick.communicate(timeout=60)
        assert quick.returncode == 0 and "quick search" in _flat(err), err
        wait_for("command", "quick")
        wait_for("welcome")  # the empty data dir opened on the welcome page
    finally:
        first.terminate()
        first.wait(30)
        reader.join(5)
    assert not (data / TOKEN_FILE).exists()  # a clean quit leaves no token behind
