"""A tiny OpenAI-compatible chat-completions server on 127.0.0.1 for driving the real `openai` SDK."""

from __future__ import annotations

import json
import threading
import time
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any

# A reply is (status, body) where body is a dict (sent as JSON) or raw text; or a callable of the request.
Reply = tuple[int, Any]


def completion(content: str, *, tokens: int = 42) -> Reply:
    return 200, {
        "id": "chatcmpl-fake",
        "object": "chat.completion",
        "created": int(time.time()),
        "model": "fake-model",
        "choices": [
            {"index": 0, "message": {"role": "assistant", "content": content}, "finish_reason": "stop"}
        ],
        "usage": {"prompt_tokens": tokens - 2, "completion_tokens": 2, "total_tokens": tokens},
    }


class FakeOpenAI:
    def __init__(self) -> None:
        self.requests: list[dict[str, Any]] = []
        self.replies: list[Reply | Callable[[dict[str, Any]], Reply]] = []
        self.delay = 0.0
        self.url = ""

    def reply(self, *replies: Reply | Callable[[dict[str, Any]], Reply]) -> None:
        self.replies.extend(replies)


@contextmanager
def fake_openai() -> Iterator[FakeOpenAI]:
    state = FakeOpenAI()

    class Handler(BaseHTTPRequestHandler):
        def log_message(self, *args: Any) -> None:
            return

        def do_POST(self) -> None:
            body = json.loads(self.rfile.read(int(self.headers.get("content-length") or 0)) or b"{}")
            state.requests.append(
                {"path": self.path, "body": body, "auth": self.headers.get("authorization")}
            )
            if state.delay:
                time.sleep(state.delay)
            item = state.replies.pop(0) if state.replies else (500, {"error": {"message": "no reply queued"}})
            status, payload = item(body) if callable(item) else item
            data = payload.encode() if isinstance(payload, str) else json.dumps(payload).encode()
            self.send_response(status)
            self.send_header("content-type", "application/json")
            self.send_header("content-length", str(len(data)))
            self.end_headers()
            try:
                self.wfile.write(data)
            except (BrokenPipeError, ConnectionResetError):
                return

    server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
    server.daemon_threads = True
    state.url = f"http://127.0.0.1:{server.server_address[1]}/v1"
    thread = threading.Thread(target=server.serve_forever, kwargs={"poll_interval": 0.05}, daemon=True)
    thread.start()
    try:
        yield state
    finally:
        server.shutdown()
        server.server_close()
