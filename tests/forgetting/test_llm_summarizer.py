"""LLM summarizer through the real openai SDK against a local fake server; falls back on any failure."""

from __future__ import annotations

import json

import pytest

from app.core.clock import DAY_MS, HOUR_MS
from forgetting.llm_summarizer import LLMSummarizer
from tests.core.llm.factory import guarded_llm, open_db
from tests.forgetting.fake_openai import completion, fake_openai

TEXTS = [
    "We decided to ship the billing migration on Tuesday.",
    "Carol owns the rollback plan for the billing migration.",
    "Dave found a rounding bug in the JPY invoice export.",
]


@pytest.fixture
def server(tmp_path, clock):
    with fake_openai() as fake:
        fake.db, fake.clock = open_db(tmp_path), clock
        yield fake


def _summarizer(server, **kw) -> LLMSummarizer:
    llm = guarded_llm(server.url, server.db, server.clock, timeout=kw.pop("timeout", 5))
    return LLMSummarizer(llm, **kw)


def _records(make_record):
    return tuple(make_record(age_ms=10 * DAY_MS - i * HOUR_MS, content=t) for i, t in enumerate(TEXTS))


def _answer(records, **override) -> str:
    a, b, d = (r.id for r in records)
    data = {
        "summary": f"The team scheduled the billing migration [{a}] and found an invoice bug [{d}].",
        "keyPoints": [
            {"text": "Billing migration ships Tuesday; Carol owns rollback.", "sourceRecordIds": [a, b]},
            {"text": "JPY invoice export rounds twice.", "sourceRecordIds": [d]},
        ],
        "keywords": ["billing migration", "Rollback", "invoice bug"],
    }
    data.update(override)
    return json.dumps(data)


def test_llm_summary_cites_sources(server, make_record) -> None:
    records = _records(make_record)
    server.reply(completion(_answer(records)))
    summarizer = _summarizer(server)
    draft = summarizer.summarize(records)
    assert draft.summarizer == "llm"
    assert draft.note is None
    assert draft.key_points[0].source_ids == (records[0].id, records[1].id)
    assert draft.keywords == ("billing migration", "rollback", "invoice bug")
    assert draft.summary_text.startswith("3 messages on slack #general")
    assert 0 < draft.quality_score <= 1
    assert summarizer.tokens_used == 42
    request = server.requests[0]
    assert request["path"] == "/v1/chat/completions"
    assert request["auth"] == "Bearer test-key"
    assert request["body"]["response_format"] == {"type": "json_object"}
    prompt = request["body"]["messages"][1]["content"]
    assert f"[{records[2].id}]" in prompt and "JPY" in prompt


def test_fenced_json_is_accepted(server, make_record) -> None:
    records = _records(make_record)
    server.reply(completion("```json\n" + _answer(records) + "\n```"))
    assert _summarizer(server).summarize(records).summarizer == "llm"


def _bad_replies(records):
    a = records[0].id
    return {
        "http 500": (500, {"error": {"message": "boom", "type": "server_error"}}),
        "not json": completion("Sure! Here is a summary: things happened."),
        "invented id": completion(_answer(records, keyPoints=[{"text": "x", "sourceRecordIds": [a, 99999]}])),
        "no citation": completion(_answer(records, keyPoints=[{"text": "x", "sourceRecordIds": []}])),
        "bad inline citation": completion(_answer(records, summary="Something [424242].")),
        "no summary": completion(_answer(records, summary="")),
        "no key points": completion(_answer(records, keyPoints=[])),
        "empty message": completion(""),
        "garbage body": (200, "<html>proxy error</html>"),
        "rate limited": (429, {"error": {"message": "slow down", "type": "rate_limit"}}),
    }


@pytest.mark.parametrize("case", list(_bad_replies((type("R", (), {"id": 1})(),) * 3)))
def test_any_failure_falls_back_to_rules(server, make_record, case: str) -> None:
    records = _records(make_record)
    server.reply(_bad_replies(records)[case])
    draft = _summarizer(server).summarize(records)
    assert draft.summarizer == "rules"
    assert draft.note and "rule-based" in draft.note
    assert draft.key_points  # the rule-based summary is complete


def test_timeout_falls_back(server, make_record) -> None:
    server.delay = 1.5
    server.reply(completion("{}"))
    draft = _summarizer(server, timeout=0.3).summarize(_records(make_record))
    assert draft.summarizer == "rules"
    assert "Timeout" in draft.note


def test_unreachable_server_falls_back(make_record, tmp_path, clock) -> None:
    llm = guarded_llm("http://127.0.0.1:9/v1", open_db(tmp_path), clock, timeout=2)
    draft = LLMSummarizer(llm).summarize(_records(make_record))
    assert draft.summarizer == "rules"
    assert "Connection" in draft.note


def test_missing_keywords_use_yake(server, make_record) -> None:
    records = _records(make_record)
    server.reply(completion(_answer(records, keywords=[])))
    draft = _summarizer(server).summarize(records)
    assert draft.summarizer == "llm"
    assert any("billing" in k for k in draft.keywords)
