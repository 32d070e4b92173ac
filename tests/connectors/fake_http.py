"""A tiny threaded HTTP server on 127.0.0.1 that fake platform APIs plug a handler into."""

from __future__ import annotations

import json
import threading
from collections.abc import Callable
from dataclasses import dataclass, field
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any
from urllib.parse import parse_qsl, urlsplit


@dataclass
class Request:
    method: str
    path: str
    params: dict[str, str]
    json: Any
    headers: dict[str, str]


@dataclass
class Response:
    status: int = 200
    body: Any = None
    headers: dict[str, str] = field(default_factory=dict)


Handler = Callable[[Request], Response]


@dataclass
class Fault:
    """A canned response served once (or `times` times) for requests whose path contains `path`."""

    path: str
    response: Response
    times: int = 1


class FakeServer:
    def __init__(self, handler: Handler) -> None:
        self.handler = handler
        self.faults: list[Fault] = []
        self.requests: list[Request] = []
        outer = self

        class _Handler(BaseHTTPRequestHandler):
            def log_message(self, *args: Any) -> None:
                return

            def _serve(self) -> None:
                split = urlsplit(self.path)
                params = dict(parse_qsl(split.query))
                length = int(self.headers.get("Content-Length") or 0)
                raw = self.rfile.read(length) if length else b""
                body: Any = None
                ctype = self.headers.get("Content-Type") or ""
                if raw and "json" in ctype:
                    body = json.loads(raw)
                elif raw:
                    params.update(dict(parse_qsl(raw.decode())))
                request = Request(self.command, split.path, params, body, dict(self.headers.items()))
                outer.requests.append(request)
                response = outer._fault_for(request) or outer.handler(request)
                payload = response.body
                data = payload if isinstance(payload, bytes) else json.dumps(payload).encode()
                self.send_response(response.status)
                headers = {"Content-Type": "application/json", **response.headers}
                for key, value in headers.items():
                    self.send_header(key, value)
                self.send_header("Content-Length", str(len(data)))
                self.end_headers()
                self.wfile.write(data)

            do_GET = do_POST = do_PUT = do_PATCH = do_DELETE = _serve

        self._server = ThreadingHTTPServer(("127.0.0.1", 0), _Handler)
        self._server.daemon_threads = True
        self.port = self._server.server_address[1]
        self.url = f"http://127.0.0.1:{self.port}"
        self._thread = threading.Thread(target=self._server.serve_forever, daemon=True)

    def _fault_for(self, request: Request) -> Response | None:
        for fault in self.faults:
            if fault.path in request.path and fault.times > 0:
                fault.times -= 1
                return fault.response
        return None

    def fail(
        self, path: str, status: int, body: Any = None, headers: dict[str, str] | None = None, times: int = 1
    ):
        self.faults.append(
            Fault(path, Response(status, body if body is not None else {}, headers or {}), times)
        )

    def calls(self, fragment: str) -> list[Request]:
        return [r for r in self.requests if fragment in r.path]

    def __enter__(self) -> FakeServer:
        self._thread.start()
        return self

    def __exit__(self, *exc: Any) -> None:
        self._server.shutdown()
        self._server.server_close()
