"""LLM extractor through the real `openai` SDK against a local fake server on 127.0.0.1."""

from __future__ import annotations

import json
import threading
from collections.abc import Iterator
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any

import openai
import pytest

from app.core.clock import DAY_MS, FixedClock
from insights.extractors.llm import LLMExtractor, MemoryLedger
from insights.extractors.redaction import REDACTED, redact
from insights.extractors.rules import RuleExtractor
from insights.model import ChatMessage, Importance, InsightKind

NOW = 1_773_219_600_000  # 2026-03-11T09:00:00Z


class FakeOpenAI:
    """Speaks just enough of POST /v1/chat/completions; replies come from a queue."""

    def __init__(self) -> None:
        self.requests: list[dict[str, Any]] = []
        self.replies: list[tuple[int, dict[str, Any]]] = []
        fake = self

        class Handler(BaseHTTPRequestHandler):
            def do_POST(self) -> None:
                body = json.loads(self.rfile.read(int(self.headers["Content-Length"])))
                fake.requests.append(
                    {"path": self.path, "body": body, "auth": self.headers.get("Authorization")}
                )
                status, payload = (
                    fake.replies.pop(0) if fake.replies else (500, {"error": {"message": "empty"}})
                )
                data = json.dumps(payload).encode()
                self.send_response(status)
                self.send_header("Content-Type", "application/json")
                self.send_header("Content-Length", str(len(data)))
                self.end_headers()
                self.wfile.write(data)

            def log_message(self, *args: object) -> None:
                return

        self.server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        self.thread = threading.Thread(target=self.server.serve_forever, daemon=True)

    @property
    def base_url(self) -> str:
        return f"http://127.0.0.1:{self.server.server_address[1]}/v1"

    def reply_insights(self, insights: list[dict[str, Any]], prompt: int = 120, completion: int = 40) -> None:
        self.replies.append(
            (
                200,
                {
                    "id": "chatcmpl-1", "object": "chat.completion", "created": 1, "model": "gpt-test",
                    "choices": [{"index": 0, "finish_reason": "stop", "message": {
                        "role": "assistant", "content": json.dumps({"insights": insights})}}],
                    "usage": {"prompt_tokens": prompt, "completion_tokens": completion,
                              "total_tokens": prompt + completion},
                },
            )
        )  # fmt: skip


@pytest.fixture
def fake() -> Iterator[FakeOpenAI]:
    server = FakeOpenAI()
    server.thread.start()
    yield server
    server.server.shutdown()
    server.server.server_close()


MESSAGES = [
    ChatMessage(
        "m1",
        "dave",
        NOW,
        "@anna can you send the deck by Friday? staging pw is password: hunter2",
        "slack",
        "eng",
    ),
    ChatMessage(
        "m2", "anna", NOW + 60_000, "sure. btw the key is sk-proj-abcdefghijklmnopqrstuvwx", "slack", "eng"
    ),
]
ACTION = {
    "kind": "action_item", "title": "Anna sends the deck", "description": "Dave asked Anna for the deck",
    "importance": "high", "urgency": "medium", "taskLabel": "follow_up", "owner": "anna", "due": "2026-03-13",
    "status": "open", "evidence": ["m1", "m2", "m999"],
}  # fmt: skip


def make(fake: FakeOpenAI, ledger: MemoryLedger | None = None, cap: int = 100_000) -> LLMExtractor:
    client = openai.OpenAI(api_key="test-key", base_url=fake.base_url, max_retries=0, timeout=5)
    return LLMExtractor(
        client, model="gpt-test", fallback=RuleExtractor(), ledger=ledger or MemoryLedger(),
        clock=FixedClock(NOW + DAY_MS // 2), daily_token_cap=cap,
    )  # fmt: skip


def test_llm_answer_becomes_drafts_with_evidence_and_usage(fake: FakeOpenAI) -> None:
    fake.reply_insights([ACTION, {**ACTION, "evidence": ["nope"]}])
    ledger = MemoryLedger()
    extractor = make(fake, ledger)
    drafts = extractor.extract(MESSAGES)
    assert extractor.last_source == "llm"
    (d,) = drafts  # the insight citing no real message is dropped
    assert d.kind is InsightKind.ACTION_ITEM and d.owner == "anna" and d.importance is Importance.HIGH
    assert d.evidence == ("m1", "m2") and d.dedupe_key == "slack:eng:action_item:m1:0"
    assert ledger.rows[0][2:4] == (120, 40) and ledger.rows[0][4] > 0
    sent = fake.requests[0]["body"]
    assert sent["response_format"]["type"] == "json_schema"
    assert sent["response_format"]["json_schema"]["strict"] is True


def test_secrets_never_reach_the_endpoint(fake: FakeOpenAI) -> None:
    fake.reply_insights([])
    make(fake).extract(MESSAGES)
    transcript = fake.requests[0]["body"]["messages"][1]["content"]
    assert "hunter2" not in transcript and "sk-proj" not in transcript
    assert transcript.count(REDACTED) == 2


def test_server_error_falls_back_to_rules(fake: FakeOpenAI) -> None:
    fake.replies.append((503, {"error": {"message": "overloaded"}}))
    extractor = make(fake)
    drafts = extractor.extract(MESSAGES)
    assert extractor.last_source == "rules" and "InternalServerError" in (extractor.last_reason or "")
    assert any(d.kind is InsightKind.ACTION_ITEM and d.owner == "anna" for d in drafts)


def test_garbage_answer_falls_back_to_rules(fake: FakeOpenAI) -> None:
    fake.reply_insights([{"kind": "prophecy"}])
    extractor = make(fake)
    extractor.extract(MESSAGES)
    assert extractor.last_source == "rules" and "unusable" in (extractor.last_reason or "")


def test_daily_cap_skips_the_call(fake: FakeOpenAI) -> None:
    ledger = MemoryLedger()
    ledger.record(at=NOW, model="gpt-test", prompt_tokens=990, completion_tokens=0, cost=0.0)
    extractor = make(fake, ledger, cap=1000)
    extractor.extract(MESSAGES)
    assert extractor.last_source == "rules" and extractor.last_reason == "daily token cap reached"
    assert fake.requests == []
    # Yesterday's use does not count against today's cap.
    fresh = MemoryLedger()
    fresh.record(at=NOW - DAY_MS, model="gpt-test", prompt_tokens=990, completion_tokens=0, cost=0.0)
    fake.reply_insights([])
    extractor = make(fake, fresh, cap=2000)
    extractor.extract(MESSAGES)
    assert extractor.last_source == "llm"


def test_unreachable_endpoint_falls_back() -> None:
    client = openai.OpenAI(api_key="k", base_url="http://127.0.0.1:9/v1", max_retries=0, timeout=2)
    extractor = LLMExtractor(
        client, model="m", fallback=RuleExtractor(), ledger=MemoryLedger(), clock=FixedClock(NOW),
        daily_token_cap=10_000,
    )  # fmt: skip
    assert extractor.extract(MESSAGES) and extractor.last_source == "rules"


@pytest.mark.parametrize(
    ("secret", "sensitive"),
    [
        ("xoxb-1234567890-abcdefghijkl", "abcdefghijkl"),
        ("ghp_abcdefghijklmnopqrstuvwxyz0123", "xyz0123"),
        ("AKIAABCDEFGHIJKLMNOP", "IJKLMNOP"),
        ("Bearer abcdefghijklmnop1234", "mnop1234"),
        ("postgres://admin:s3cret@db.internal/prod", "s3cret"),
        ("4111 1111 1111 1111", "4111"),
        ("123456789:AAHfiqksKZ8WmR2zSjiQ7_v4TMAKdiHm9T0", "TMAKdiHm9T0"),
        (
            "eyJhbGciOiJIUzI1NiJ9.eyJzdWIiOiIxMjM0NTY3ODkwIn0.dozjgNryP4J3jVmNHl0w5N_XgL0n3I9PlFUP0THsR8U",
            "THsR8U",
        ),
    ],
)
def test_redaction_patterns(secret: str, sensitive: str) -> None:
    out = redact(f"here you go: {secret} thanks")
    assert REDACTED in out and "thanks" in out
    assert sensitive not in out
