"""The LLM key: environment over the secret store over keyless, read per call, never leaked."""

from __future__ import annotations

import json
import logging
import re
from collections.abc import Iterator

import pytest
from sqlalchemy import select

from app.bootstrap import Services, build_services
from app.core.embeddings.hashing import HashingEmbedder
from app.core.errors import InvalidInput
from app.core.secrets import FileSecretStore
from app.core.settings import LLMSettings, Settings
from app.core.storage.models import MemorySummaryRow
from app.services.llm import KEY_NAME, LLMKeys
from tests.conftest import make_message
from tests.forgetting.conftest import seed_group
from tests.forgetting.fake_openai import FakeOpenAI, completion, fake_openai

KEY = "sk-test-0123456789abcdefSECRET"
SUMMARY_TEXT = "The team planned the beta."


def summary_reply(body: dict) -> tuple[int, dict]:
    """A valid LLM summary citing the first message of the prompt."""
    first = re.search(r"^\[(\d+)\]", body["messages"][1]["content"], re.M)
    assert first is not None
    point = {"text": "Beta invites go out Monday.", "sourceRecordIds": [int(first.group(1))]}
    return completion(json.dumps({"summary": SUMMARY_TEXT, "keyPoints": [point], "keywords": ["beta"]}))


@pytest.fixture(autouse=True)
def _no_key_in_environment(monkeypatch: pytest.MonkeyPatch) -> None:
    for name in ("STRATA_LLM_API_KEY", "OPENAI_API_KEY"):
        monkeypatch.delenv(name, raising=False)


@pytest.fixture
def server() -> Iterator[FakeOpenAI]:
    with fake_openai() as fake:
        yield fake


@pytest.fixture
def llm(settings: Settings, clock, server: FakeOpenAI) -> Iterator[Services]:
    settings.llm = LLMSettings(enabled=True, base_url=server.url, model="fake-model", timeout_seconds=5)
    svc = build_services(settings, clock=clock, embedder=HashingEmbedder())
    yield svc
    svc.close()


def test_environment_overrides_the_store_which_overrides_keyless(tmp_path) -> None:
    store = FileSecretStore(tmp_path / "secrets.json")
    env: dict[str, str] = {}
    keys = LLMKeys(store, env)
    assert keys.resolve() is None and keys.status().source == "none"
    keys.set(f"  {KEY}\n")  # pasted with whitespace around it
    assert store.get(KEY_NAME) == KEY and keys.resolve() == KEY
    assert keys.status().to_dict() == {"stored": True, "source": "store", "backend": "file"}
    env["OPENAI_API_KEY"] = "sk-from-openai-env"
    assert keys.resolve() == "sk-from-openai-env" and keys.status().source == "env:OPENAI_API_KEY"
    env["STRATA_LLM_API_KEY"] = "sk-from-strata-env"
    assert keys.resolve() == "sk-from-strata-env" and keys.status().source == "env:STRATA_LLM_API_KEY"
    assert keys.clear() is True and keys.clear() is False
    assert store.get(KEY_NAME) is None
    assert KEY not in repr(keys)


@pytest.mark.parametrize("bad", ["", "   ", "sk-one sk-two", "sk-abc\nsk-def", "x" * 5000])
def test_a_bad_key_is_refused_without_echoing_it(tmp_path, bad: str) -> None:
    keys = LLMKeys(FileSecretStore(tmp_path / "secrets.json"), {})
    with pytest.raises(InvalidInput) as caught:
        keys.set(bad)
    assert bad.strip() == "" or bad not in str(caught.value)
    assert not (tmp_path / "secrets.json").exists()


def test_forgetting_summaries_send_the_stored_key(llm: Services, server: FakeOpenAI) -> None:
    seed_group(llm, day=10, texts=["Beta invites go out Monday.", "Priya sends them.", "Freeze Friday."])
    assert llm.llm_keys is not None
    llm.llm_keys.set(KEY)  # after start-up: the next call picks it up, no restart
    server.reply(summary_reply)
    report = llm.forgetting.run()
    assert report.status == "completed" and report.errors == ()
    assert [r["auth"] for r in server.requests] == [f"Bearer {KEY}"]
    with llm.db.read() as session:
        assert session.scalars(select(MemorySummaryRow)).one().summary_text.endswith(SUMMARY_TEXT)


def test_insight_extraction_sends_the_stored_key(llm: Services, server: FakeOpenAI) -> None:
    assert llm.llm_keys is not None
    llm.llm_keys.set(KEY)
    llm.memory.ingest(
        [
            make_message(1, person="dave", content="@anna can you send the deck by Friday?"),
            make_message(2, person="anna", content="sure, I will send it tomorrow"),
        ]
    )
    server.reply(completion(json.dumps({"insights": []})))
    llm.insights.generate()
    assert server.requests and {r["auth"] for r in server.requests} == {f"Bearer {KEY}"}


def test_the_environment_wins_and_keyless_servers_still_work(
    llm: Services, server: FakeOpenAI, monkeypatch: pytest.MonkeyPatch
) -> None:
    seed_group(llm, day=10, prefix="a")
    server.reply(summary_reply, summary_reply)
    llm.forgetting.run()  # nothing stored, nothing in the environment: the placeholder
    assert server.requests[-1]["auth"] == "Bearer not-needed"
    assert llm.llm_keys is not None
    llm.llm_keys.set(KEY)
    monkeypatch.setenv("STRATA_LLM_API_KEY", "sk-env-override")
    seed_group(llm, day=11, prefix="b")
    llm.forgetting.run()
    assert server.requests[-1]["auth"] == "Bearer sk-env-override"


def test_the_key_never_reaches_logs_reports_or_the_settings_file(
    llm: Services, server: FakeOpenAI, caplog: pytest.LogCaptureFixture
) -> None:
    def echo_the_header(_body: dict) -> tuple[int, dict]:
        # A careless server that puts the Authorization header in its error message.
        return 401, {"error": {"message": f"bad key {server.requests[-1]['auth']}", "type": "auth"}}

    assert llm.llm_keys is not None
    llm.llm_keys.set(KEY)
    seed_group(llm, day=10)
    llm.memory.ingest([make_message(1, content="@anna can you send the deck by Friday?")])
    server.reply(*[echo_the_header] * 10)
    with caplog.at_level(logging.DEBUG):
        report = llm.forgetting.run()
        llm.insights.generate()
    assert server.requests and all(r["auth"] == f"Bearer {KEY}" for r in server.requests)
    assert report.errors and report.errors[0]["kind"] == "summarizer_fallback"
    assert "bad key" in caplog.text and KEY not in caplog.text
    assert KEY not in json.dumps(report.to_dict())
    for path in llm.layout.root.rglob("*"):
        if path.is_file() and path.name != "secrets.json":
            assert KEY.encode() not in path.read_bytes(), path
