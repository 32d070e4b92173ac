"""Real processes: `strata serve` and `strata mcp` log through Strata's set-up, masked, into the
data dir's log file, although both build the MCP SDK's server (which sets up logging of its own)."""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
import time
from pathlib import Path

import httpx
import pytest
from mcp_types import LATEST_PROTOCOL_VERSION

from app.api.server import free_port
from app.core.index.state import ActiveModel, write_active
from app.core.logs.setup import log_file
from tests.conftest import PROJECT_ROOT

pytestmark = pytest.mark.slow

# Under 50 characters, so pydantic quotes it whole in its error.
SECRET = "xoxb-1234567890-0987654321-AbCdEfGhIjKlMnOpQr"


@pytest.fixture
def failing_start(services) -> Path:
    """A data dir whose recorded previous embedding model cannot be built: every start logs a
    warning with the traceback of a pydantic error that quotes the bad value, here a token."""
    with services.db.write() as session:
        write_active(session, ActiveModel("retired-model", 7, {"provider": SECRET}), 0)
    return services.settings.data_dir


def _env() -> dict[str, str]:
    env = {k: v for k, v in os.environ.items() if not k.startswith("STRATA_")}
    return {**env, "STRATA_EMBEDDING__PROVIDER": "hashing", "STRATA_API__SEARCH_WORKERS": "0"}


def _strata(data_dir: Path, *args: str, **kwargs) -> subprocess.Popen:
    command = [sys.executable, "-m", "app.cli.main", "--data-dir", str(data_dir), *args]
    return subprocess.Popen(command, cwd=PROJECT_ROOT, env=_env(), text=True, **kwargs)


def _assert_masked_traceback(text: str) -> None:
    assert SECRET not in text
    assert "cannot build the previous embedding model retired-model" in text
    assert "Traceback (most recent call last):" in text
    # Full width: each frame on one line (Rich wrapped them at 40 columns in a pipe) and no boxes.
    assert any(
        line.endswith("in _active_embedder") and 'app/bootstrap.py", line' in line
        for line in text.splitlines()
    )
    assert "input_value='[SECRET:" in text
    assert "╭" not in text and "│" not in text


def test_serve_writes_the_log_file_masked_and_full_width(failing_start, tmp_path):
    port = free_port()
    stderr = (tmp_path / "stderr.txt").open("w")
    process = _strata(failing_start, "serve", "--port", str(port), stdout=subprocess.DEVNULL, stderr=stderr)
    path = log_file(failing_start / "logs")
    try:
        deadline = time.monotonic() + 120
        while "Uvicorn running on" not in (path.read_text() if path.exists() else ""):
            assert process.poll() is None, (tmp_path / "stderr.txt").read_text()
            assert time.monotonic() < deadline, "serve did not start"
            time.sleep(0.2)
        assert httpx.get(f"http://127.0.0.1:{port}/api/health", timeout=30).status_code == 200
    finally:
        process.send_signal(signal.SIGINT)
        process.wait(30)
        stderr.close()
    written = path.read_text()
    _assert_masked_traceback(written)
    # uvicorn logs after the MCP server object is built: still our handlers, our line format.
    assert f"INFO [{process.pid}] uvicorn.error: Uvicorn running on http://127.0.0.1:{port}" in written
    _assert_masked_traceback((tmp_path / "stderr.txt").read_text())


def test_mcp_stdio_keeps_stdout_to_the_protocol_and_logs_to_stderr_and_the_file(failing_start):
    # Raw JSON-RPC lines rather than the SDK client: the client skips a line it cannot parse,
    # so only reading stdout ourselves proves nothing else is written there.
    requests = [
        {
            "jsonrpc": "2.0",
            "id": 1,
            "method": "initialize",
            "params": {
                "protocolVersion": LATEST_PROTOCOL_VERSION,
                "capabilities": {},
                "clientInfo": {"name": "test", "version": "1"},
            },
        },
        {"jsonrpc": "2.0", "method": "notifications/initialized"},
        {"jsonrpc": "2.0", "id": 2, "method": "tools/list"},
    ]
    process = _strata(
        failing_start, "mcp", stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=subprocess.PIPE
    )
    assert process.stdin is not None and process.stdout is not None
    for request in requests:
        process.stdin.write(json.dumps(request) + "\n")
    process.stdin.flush()
    lines = []
    while not any(msg.get("id") == 2 for msg in lines):
        line = process.stdout.readline()
        assert line, "the server closed stdout before answering tools/list"
        lines.append(json.loads(line))  # every line on stdout is a protocol message
    out, err = process.communicate(timeout=60)  # closes stdin: the server ends
    assert all(json.loads(line) for line in out.splitlines())
    assert [t["name"] for t in lines[-1]["result"]["tools"]][:2] == ["search", "fetch"]
    _assert_masked_traceback(err)
    _assert_masked_traceback(log_file(failing_start / "logs").read_text())
