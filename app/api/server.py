"""Run the REST + MCP app under uvicorn; refuse a non-loopback bind unless remote access is explicit."""

from __future__ import annotations

import logging
import socket
import threading
import time
from types import TracebackType
from typing import Any

from app.api.security import is_loopback
from app.core.errors import ConfigError

log = logging.getLogger(__name__)

REMOTE_WARNING = (
    "Strata is listening on {host}, reachable from other machines. Anyone with the token can read "
    "and change your memory; prefer 127.0.0.1 and an SSH tunnel."
)


def check_bind_host(host: str, *, allow_remote: bool) -> str | None:
    """None for a loopback host; the warning to show for an allowed remote bind; else ConfigError."""
    if is_loopback(host):
        return None
    if not allow_remote:
        raise ConfigError(
            f"refusing to listen on non-loopback host {host!r}",
            hint="use --host 127.0.0.1, or pass --allow-remote if you really mean to expose your memory",
        )
    return REMOTE_WARNING.format(host=host)


def uvicorn_config(app: Any, host: str, port: int, *, log_level: str = "warning") -> Any:
    import uvicorn  # lazy: keeps `strata --help` fast

    return uvicorn.Config(
        app,
        host=host,
        port=port,
        log_level=log_level.lower(),
        # uvicorn's own handlers would write around Strata's (unmasked, no log file): its loggers
        # propagate to the root logger instead (app/core/logs/setup.py). No access log: a request
        # line carries the query string, i.e. what the user searched for.
        log_config=None,
        access_log=False,
        # Our guard checks Host/Origin; uvicorn's proxy-header trust would let a client spoof them.
        proxy_headers=False,
        server_header=False,
        timeout_graceful_shutdown=5,
    )


def serve(app: Any, host: str, port: int, *, allow_remote: bool = False, log_level: str = "warning") -> None:
    """Block serving `app` until interrupted."""
    import uvicorn

    warning = check_bind_host(host, allow_remote=allow_remote)
    if warning:
        log.warning(warning)
    uvicorn.Server(uvicorn_config(app, host, port, log_level=log_level)).run()


def free_port(host: str = "127.0.0.1") -> int:
    """An unused TCP port on `host` (for tests and benchmarks)."""
    with socket.socket(socket.AF_INET6 if ":" in host else socket.AF_INET) as sock:
        sock.bind((host, 0))
        return int(sock.getsockname()[1])


class BackgroundServer:
    """uvicorn in a daemon thread, for hosts that own the main thread (desktop app, tests, benchmarks)."""

    def __init__(
        self, app: Any, host: str = "127.0.0.1", port: int = 0, *, allow_remote: bool = False
    ) -> None:
        import uvicorn

        check_bind_host(host, allow_remote=allow_remote)
        self.host = host
        self.port = port or free_port(host)
        self.server = uvicorn.Server(uvicorn_config(app, self.host, self.port))
        self.thread = threading.Thread(target=self.server.run, name="strata-api", daemon=True)

    @property
    def url(self) -> str:
        return f"http://{self.host}:{self.port}"

    def start(self, timeout: float = 60.0) -> BackgroundServer:
        self.thread.start()
        deadline = time.monotonic() + timeout
        while not self.server.started:
            if not self.thread.is_alive() or time.monotonic() > deadline:
                raise ConfigError(f"the API server did not start on {self.url}", hint="is the port in use?")
            time.sleep(0.02)
        return self

    def stop(self, timeout: float = 10.0) -> None:
        self.server.should_exit = True
        self.thread.join(timeout)

    def __enter__(self) -> BackgroundServer:
        return self.start()

    def __exit__(
        self, exc_type: type[BaseException] | None, exc: BaseException | None, tb: TracebackType | None
    ) -> None:
        self.stop()
