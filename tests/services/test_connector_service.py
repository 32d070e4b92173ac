"""Connector service end to end: fake Slack/Telegram servers -> real SDKs -> processor -> search."""

from __future__ import annotations

import asyncio
import os
import stat
import threading
import time

import discord.http
import pytest
import yarl
from apscheduler.schedulers.background import BackgroundScheduler
from discord.gateway import DiscordWebSocket

from app.core.domain import IngestResult, RawMessage, SearchFilters
from app.core.errors import Conflict, ConnectorAuthFailed, StorageError
from app.services.connector_service import ConnectorService
from connectors.ids import slack_message_id, telegram_message_id
from connectors.secrets import FileSecretStore, token_key
from connectors.sync import SyncRunner
from tests.connectors.fake_discord import FakeDiscord, FakeGateway, message_payload
from tests.connectors.fake_slack import TEAM, FakeSlack
from tests.connectors.fake_telegram import GROUP, FakeTelegram


@pytest.fixture
def slack():
    fake = FakeSlack()
    with fake.server:
        yield fake


@pytest.fixture
def connectors(services, clock, retry, tmp_path) -> ConnectorService:
    secrets = FileSecretStore(services.layout.secrets_file)
    return ConnectorService(
        services.db, services.memory, secrets, clock, user_id=services.settings.user_id, retry=retry
    )


def add_slack(connectors: ConnectorService, slack: FakeSlack) -> None:
    connectors.add("slack", slack.token, options={"base_url": slack.server.url + "/api/"})


def count(services) -> int:
    return services.memory.stats()["messages"]


def test_add_tests_token_and_keeps_it_out_of_settings_and_state(connectors, slack, services):
    state, identity = connectors.add("slack", slack.token, options={"base_url": slack.server.url + "/api/"})
    assert identity is not None and identity.workspace == "Acme"
    assert state.to_dict()["status"] == "never" and "token" not in str(state.to_dict())
    secrets_file = services.layout.secrets_file
    assert stat.S_IMODE(os.stat(secrets_file).st_mode) == 0o600
    assert slack.token in secrets_file.read_text()
    assert (
        not services.layout.settings_file.exists()
        or slack.token not in services.layout.settings_file.read_text()
    )
    with pytest.raises(Conflict):
        add_slack(connectors, slack)


def test_add_with_a_bad_token_saves_nothing(connectors, slack):
    with pytest.raises(ConnectorAuthFailed):
        connectors.add("slack", "xoxb-wrong", options={"base_url": slack.server.url + "/api/"})
    assert connectors.list_all() == []
    assert connectors.secrets.get(token_key("slack")) is None


def test_sync_stores_searchable_messages_and_records_state(connectors, slack, services):
    add_slack(connectors, slack)
    slack.post("C1", "1700000001.000100", "the launch date moved to friday")
    slack.post("C1", "1700000002.000100", "budget approved", user="U2")

    report = connectors.sync("slack")

    assert report.ok and report.imported == 2
    hits = services.memory.search("launch date", SearchFilters(platforms=("slack",)))
    assert hits[0].content == "the launch date moved to friday" and hits[0].person == "Alice"
    state = connectors.status("slack")
    assert state.status == "ok" and state.messages_total == 2 and state.last_run["imported"] == 2
    again = connectors.sync("slack")
    assert again.ok and again.fetched == 0 and count(services) == 2


def test_crash_between_fetch_and_store_never_skips_or_duplicates(connectors, slack, services, monkeypatch):
    add_slack(connectors, slack)
    monkeypatch.setattr("connectors.slack.BATCH_SIZE", 10)
    for i in range(35):
        slack.post("C1", f"17000000{i:02d}.000100", f"note {i}")
    calls = {"n": 0}

    def crashing_store(messages):
        calls["n"] += 1
        if calls["n"] == 2:
            raise StorageError("disk vanished mid-batch")  # the batch is not stored
        if calls["n"] == 3:
            services.memory.ingest(messages)
            raise StorageError("died after storing, before the cursor was saved")
        return services.memory.ingest(messages)

    runner = SyncRunner(connectors.states, crashing_store, connectors._delete, connectors.clock)
    first = runner.run(connectors._connector(connectors.status("slack")))
    assert first.error_code == "storage_error" and first.imported == 10
    assert connectors.status("slack").status == "error" and count(services) == 10

    second = runner.run(connectors._connector(connectors.status("slack")))
    assert second.error_code == "storage_error" and count(services) == 20  # stored, cursor not saved

    final = connectors.sync("slack")
    assert final.ok and final.duplicates == 10 and count(services) == 35
    stored = {r.message_id for r in services.memory.get_many(range(1, 100))}
    assert stored == {slack_message_id(TEAM, "C1", f"17000000{i:02d}.000100") for i in range(35)}


def test_rate_limit_and_revoked_token_are_recorded_and_cursor_kept(connectors, slack, services):
    add_slack(connectors, slack)
    slack.post("C1", "1700000001.000100", "one")
    connectors.sync("slack")
    cursor = connectors.status("slack").cursor
    slack.post("C1", "1700000002.000100", "two")
    slack.server.fail(
        "conversations.history", 429, {"ok": False, "error": "ratelimited"}, {"Retry-After": "900"}, times=1
    )
    limited = connectors.sync("slack")
    assert limited.error_code == "connector_rate_limited" and limited.retry_after == 900
    state = connectors.status("slack")
    assert state.status == "error" and state.cursor == cursor

    slack.token = "xoxb-revoked"
    revoked = connectors.sync("slack")
    assert revoked.error_code == "connector_auth_failed"
    assert connectors.status("slack").last_error_code == "connector_auth_failed"

    slack.token = connectors.secrets.get(token_key("slack"))
    assert connectors.sync("slack").imported == 1 and count(services) == 2


def test_live_sync_and_import_of_the_same_history_never_duplicate(connectors, slack, services):
    add_slack(connectors, slack)
    slack.post("C1", "1700000001.000100", "shipped the beta")
    slack.post("C1", "1700000002.000100", "thanks all")
    # What the Slack export importer yields for the same messages (connectors/ids.py contract).
    imported = [
        RawMessage("slack", slack_message_id(TEAM, "C1", ts), "general", "Alice", ms, text)
        for ts, ms, text in [
            ("1700000001.000100", 1700000001000, "shipped the beta"),
            ("1700000002.000100", 1700000002000, "thanks all"),
        ]
    ]
    assert services.memory.ingest(imported).imported == 2
    report = connectors.sync("slack")
    assert report.imported == 0 and report.duplicates == 2 and count(services) == 2


def test_telegram_sync_matches_desktop_export_ids(connectors, services):
    fake = FakeTelegram()
    with fake.server:
        connectors.add("telegram", fake.token, options={"base_url": fake.base_url})
        fake.add_message(7, "see you at the station")
        export_copy = RawMessage(
            "telegram",
            telegram_message_id(GROUP, 7),
            "Book club",
            "Dana Lee",
            1700000007000,
            "see you at the station",
        )
        services.memory.ingest([export_copy])
        report = connectors.sync("telegram")
    assert report.ok and report.duplicates == 1 and count(services) == 1


def test_platform_deletions_remove_the_stored_message(connectors, slack, services):
    add_slack(connectors, slack)
    slack.post("C1", "1700000001.000100", "oops, wrong channel")
    connectors.sync("slack")
    slack.post("C1", "1700000002.000100", "", subtype="message_deleted", deleted_ts="1700000001.000100")
    report = connectors.sync("slack")
    assert report.deleted == 1 and count(services) == 0


def test_a_second_concurrent_run_is_refused(connectors, slack):
    add_slack(connectors, slack)
    assert connectors.states.begin_run("slack", connectors.clock.now_ms())
    report = connectors.sync("slack")
    assert report.error_code == "sync_running"


def test_schedule_registers_one_coalescing_job_per_connector(connectors, slack, services):
    add_slack(connectors, slack)
    connectors.add(
        "slack",
        slack.token,
        connector_id="slack2",
        options={"base_url": slack.server.url + "/api/"},
        interval_minutes=5,
    )
    scheduler = BackgroundScheduler()
    assert connectors.schedule(scheduler) == ["connector-sync:slack", "connector-sync:slack2"]
    job = scheduler.get_job("connector-sync:slack2")
    assert job.trigger.interval.total_seconds() == 300 and job.max_instances == 1 and job.coalesce
    slack.post("C1", "1700000001.000100", "scheduled hello")
    job.func(*job.args)
    assert count(services) == 1


def test_merged_identity_widens_person_search(connectors, services):
    services.memory.ingest(
        [
            RawMessage(
                "slack",
                "s1",
                "general",
                "Bob Stone",
                1700000000000,
                "deploy notes for the api",
                metadata={"email": "bob@example.com"},
            ),
            RawMessage("discord", "d1", "dev", "bobstone", 1700000001000, "api deploy went fine"),
            RawMessage("telegram", "t1", "family", "Bob", 1700000002000, "dinner at eight"),
        ]
    )
    suggestions = connectors.identities.suggestions()
    assert [(s.reason, {i.person for i in s.identities}) for s in suggestions] == [
        ("same name", {"Bob Stone", "bobstone"})
    ]
    before = services.memory.search("api deploy", SearchFilters(persons=("Bob Stone",)))
    assert {h.platform for h in before} == {"slack"}
    contact = connectors.identities.merge(
        [("slack", "Bob Stone"), ("discord", "bobstone"), ("telegram", "Bob")]
    )
    assert contact.display_name == "Bob Stone" and len(contact.identities) == 3
    hits = services.memory.search("api deploy", SearchFilters(persons=("Bob Stone",)))
    assert {"slack", "discord"} <= {h.platform for h in hits}
    assert connectors.identities.suggestions() == []


def test_scheduled_job_survives_a_failing_run(connectors, slack):
    add_slack(connectors, slack)
    slack.token = "xoxb-revoked"
    connectors._scheduled_sync("slack")
    assert connectors.status("slack").status == "error"


def test_store_result_type(connectors):
    assert isinstance(connectors._store([]), IngestResult)


def test_discord_gateway_messages_land_in_memory_while_live(connectors, services, monkeypatch):
    fake = FakeDiscord()
    loop = asyncio.new_event_loop()
    loop_thread = threading.Thread(target=loop.run_forever, daemon=True)
    loop_thread.start()
    with fake.server:
        monkeypatch.setattr(discord.http.Route, "BASE", fake.api_base)
        gateway = FakeGateway(fake)
        asyncio.run_coroutine_threadsafe(gateway.start(), loop).result(10)
        monkeypatch.setattr(DiscordWebSocket, "DEFAULT_GATEWAY", yarl.URL(gateway.url))
        connectors.add("discord", fake.token, test=False)
        (listener,) = connectors.start_live()
        try:
            assert listener.ready.wait(20)
            payload = message_payload("10", 7000, "live from the gateway", guild_id="1")
            asyncio.run_coroutine_threadsafe(gateway.dispatch("MESSAGE_CREATE", payload), loop).result(10)
            for _ in range(200):
                if count(services):
                    break
                time.sleep(0.05)
        finally:
            connectors.stop_live()
            asyncio.run_coroutine_threadsafe(gateway.stop(), loop).result(10)
            loop.call_soon_threadsafe(loop.stop)
    assert not listener._thread.is_alive()
    hits = services.memory.search("live gateway", SearchFilters(platforms=("discord",)))
    assert hits[0].content == "live from the gateway" and hits[0].channel == "general"
    # A later REST backfill of the same message is a duplicate, not a second copy.
    fake.messages["10"].append(payload)
    with fake.server.__class__(fake.handle) as rest:
        monkeypatch.setattr(discord.http.Route, "BASE", rest.url + "/api/v10")
        report = connectors.sync("discord")
    assert report.duplicates == 1 and count(services) == 1
