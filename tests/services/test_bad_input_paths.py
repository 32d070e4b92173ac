"""The ingest rule on the remaining paths: a live Slack sync (fake Slack API on 127.0.0.1) and a
Telegram export import fuzzed with unstorable text (lone surrogates, control characters)."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from app.core.domain import SearchFilters
from app.services.connector_service import ConnectorService
from connectors.secrets import FileSecretStore
from tests.connectors.fake_slack import FakeSlack

NASTY = ["\ud800", "\udfff", "\ud83d", "\x00", "\x1b", "\u200b", "[bold]", "[/a-z]", "<b>", "&amp;"]


@pytest.fixture
def slack():
    fake = FakeSlack()
    with fake.server:
        yield fake


def test_live_sync_with_broken_text_stores_every_message(services, clock, retry, slack) -> None:
    connectors = ConnectorService(
        services.db,
        services.memory,
        FileSecretStore(services.layout.secrets_file),
        clock,
        user_id=services.settings.user_id,
        retry=retry,
    )
    connectors.add("slack", token=slack.token, options={"base_url": slack.server.url + "/api/"})
    slack.post("C1", "1700000001.000100", "release \ud800 notes \x00 are [bold] ready")
    slack.post("C1", "1700000002.000100", "half an emoji \ud83d at the end")
    slack.post("C1", "1700000003.000100", "plain message")
    report = connectors.sync("slack")
    assert report.ok and report.imported == 3, report
    hits = services.memory.search("release notes", SearchFilters(platforms=("slack",)))
    assert hits[0].content == "release \ufffd notes  are [bold] ready"


texts = st.lists(st.one_of(st.text(max_size=12), st.sampled_from(NASTY)), min_size=1, max_size=5).map("".join)


@settings(max_examples=25, deadline=None, suppress_health_check=list(HealthCheck))
@given(batch=st.lists(texts, min_size=1, max_size=8))
def test_fuzz_telegram_import_never_crashes_or_half_stores(services, tmp_path_factory, batch) -> None:
    folder = tmp_path_factory.mktemp("tg")
    chat = {
        "name": "fuzz",
        "type": "private_supergroup",
        "id": 7,
        "messages": [
            {"id": n, "type": "message", "date_unixtime": str(1_704_103_200 + n), "from": "x", "text": t}
            for n, t in enumerate(batch, 1)
        ],
    }
    path = Path(folder) / "result.json"
    path.write_text(json.dumps(chat), encoding="utf-8")  # ASCII escapes carry the lone surrogates
    report = services.imports.run("telegram", path)
    result = report.result
    assert result is not None
    # Every message is stored, a duplicate of an earlier example, or reported (empty after cleaning).
    handled = result.imported + result.duplicates + result.updated + len(result.errors)
    assert handled == report.preview.messages
    for error in result.errors:
        assert "empty" in error.reason
