"""LLM extractor through the guarded seam and the real `openai` SDK against a local fake server."""

from __future__ import annotations

import json
import threading
from collections.abc import Iterator
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any

import pytest

from app.core.clock import DAY_MS, FixedClock
from app.core.llm.ledger import UsageLedger
from app.core.privacy.detector import Detector
from app.core.storage.db import Database
from insights.extractors.llm import LLMExtractor
from insights.extractors.rules import RuleExtractor
from insights.model import ChatMessage, Importance, InsightKind
from tests.core.llm.factory import guarded_llm, open_db

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


@pytest.fixture
def db(tmp_path) -> Database:
    return open_db(tmp_path)


def make(fake: FakeOpenAI, db: Database, cap: int = 100_000) -> LLMExtractor:
    llm = guarded_llm(fake.base_url, db, FixedClock(NOW + DAY_MS // 2), cap=cap)
    return LLMExtractor(llm, fallback=RuleExtractor())


def test_llm_answer_becomes_drafts_with_evidence_and_usage(fake: FakeOpenAI, db: Database) -> None:
    fake.reply_insights([ACTION, {**ACTION, "evidence": ["nope"]}])
    extractor = make(fake, db)
    drafts = extractor.extract(MESSAGES)
    assert extractor.last_source == "llm"
    (d,) = drafts  # the insight citing no real message is dropped
    assert d.kind is InsightKind.ACTION_ITEM and d.owner == "anna" and d.importance is Importance.HIGH
    assert d.evidence == ("m1", "m2") and d.dedupe_key == "slack:eng:action_item:m1:0"
    (line,) = UsageLedger(db).lines("local")
    assert (line.feature, line.prompt_tokens, line.completion_tokens) == ("insights", 120, 40)
    assert line.cost > 0
    sent = fake.requests[0]["body"]
    assert sent["response_format"]["type"] == "json_schema"
    assert sent["response_format"]["json_schema"]["strict"] is True


def test_secrets_never_reach_the_endpoint(fake: FakeOpenAI, db: Database) -> None:
    fake.reply_insights([])
    make(fake, db).extract(MESSAGES)
    transcript = fake.requests[0]["body"]["messages"][1]["content"]
    assert "hunter2" not in transcript and "sk-proj" not in transcript
    assert "[SECRET:password]" in transcript and "[SECRET:openai-key]" in transcript


def test_server_error_falls_back_to_rules(fake: FakeOpenAI, db: Database) -> None:
    fake.replies.append((503, {"error": {"message": "overloaded"}}))
    extractor = make(fake, db)
    drafts = extractor.extract(MESSAGES)
    assert extractor.last_source == "rules" and "InternalServerError" in (extractor.last_reason or "")
    assert any(d.kind is InsightKind.ACTION_ITEM and d.owner == "anna" for d in drafts)


def test_garbage_answer_falls_back_to_rules(fake: FakeOpenAI, db: Database) -> None:
    fake.reply_insights([{"kind": "prophecy"}])
    extractor = make(fake, db)
    extractor.extract(MESSAGES)
    assert extractor.last_source == "rules" and "unusable" in (extractor.last_reason or "")


def test_daily_cap_skips_the_call_and_says_so(fake: FakeOpenAI, db: Database) -> None:
    ledger = UsageLedger(db)
    ledger.record(user_id="local", at=NOW, feature="forgetting", model="m", outcome="ok", prompt_tokens=990)
    extractor = make(fake, db, cap=1000)
    extractor.extract(MESSAGES)
    assert extractor.last_source == "rules" and extractor.cap_reached
    assert "cap" in (extractor.last_reason or "")
    assert fake.requests == []


def test_yesterdays_use_does_not_count(fake: FakeOpenAI, db: Database) -> None:
    ledger = UsageLedger(db)
    ledger.record(
        user_id="local", at=NOW - DAY_MS, feature="insights", model="m", outcome="ok", prompt_tokens=990
    )
    fake.reply_insights([])
    extractor = make(fake, db, cap=3000)
    extractor.extract(MESSAGES)
    assert extractor.last_source == "llm" and extractor.cap_reached is None


def test_unreachable_endpoint_falls_back(db: Database) -> None:
    llm = guarded_llm("http://127.0.0.1:9/v1", db, FixedClock(NOW), timeout=2)
    extractor = LLMExtractor(llm, fallback=RuleExtractor())
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
    out = Detector().mask(f"here you go: {secret} thanks")
    assert "[" in out and "thanks" in out
    assert sensitive not in out
