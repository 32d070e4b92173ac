"""Discord connector through the real discord.py HTTP client and gateway against local fakes."""

from __future__ import annotations

import asyncio
import json

import discord.http
import pytest
import yarl
from discord.gateway import DiscordWebSocket

from app.core.errors import ConnectorAuthFailed, ConnectorRateLimited, ConnectorUnavailable
from connectors.base import ConnectorConfig
from connectors.discord import DiscordConnector
from connectors.discord_live import DiscordLiveListener
from tests.connectors.fake_discord import FakeDiscord, FakeGateway, message_payload


@pytest.fixture
def fake(monkeypatch):
    fake = FakeDiscord()
    with fake.server:
        # discord.py builds every REST URL from Route.BASE: the documented way to point it elsewhere.
        monkeypatch.setattr(discord.http.Route, "BASE", fake.api_base)
        yield fake


def make(fake: FakeDiscord, retry, token: str | None = None, **options) -> DiscordConnector:
    return DiscordConnector(ConnectorConfig("discord", "discord", token or fake.token, options, retry))


def drain(connector, cursor=None, limit=None):
    batches = list(connector.fetch(cursor, limit=limit))
    return batches, [m for b in batches for m in b.messages]


def test_validate_lists_guilds(fake, retry):
    identity = make(fake, retry).validate()
    assert identity.account == "strata-bot" and identity.details["guilds"] == ["Home"]


def test_backfill_pages_channels_and_threads_and_skips_forbidden(fake, retry):
    for i in range(1, 251):
        fake.post("10", 1000 + i, f"general {i}")
    fake.post("10", 2000, "hi <@501>", mentions=[{"id": "501", "username": "finn"}])
    fake.post(
        "10",
        2001,
        "",
        attachments=[
            {"id": "1", "filename": "a.png", "url": "http://x/a.png", "size": 5, "content_type": "image/png"}
        ],
    )
    fake.post("10", 2002, "Finn joined", type=7)
    fake.post("20", 3000, "thread talk", author="501", message_reference={"message_id": "2000"})
    fake.post("12", 4000, "hidden")

    batches, messages = drain(make(fake, retry))

    ids = [m.message_id for m in messages]
    assert len(ids) == len(set(ids)) == 250 + 2 + 1
    assert ids[0] == "discord:10:1001"
    first = messages[0]
    assert (first.platform, first.channel, first.person) == ("discord", "general", "Erin")
    assert first.metadata["guild"] == "Home"
    assert next(m for m in messages if m.message_id == "discord:10:2000").content == "hi @finn"
    assert next(m for m in messages if m.attachments).attachments[0].name == "a.png"
    thread = next(m for m in messages if m.channel == "planning")
    assert thread.metadata["parent_channel"] == "general" and thread.metadata["thread_id"] == "20"
    assert thread.metadata["reply_to"] == "discord:20:2000" and thread.person == "finn"
    assert any("#secret" in w for b in batches for w in b.warnings)
    assert json.loads(batches[-1].cursor)["channels"] == {"10": "2002", "20": "3000"}


def test_incremental_continues_after_cursor(fake, retry):
    fake.post("10", 1001, "one")
    batches, _ = drain(make(fake, retry))
    fake.post("10", 1002, "two")
    fake.post("10", 1001, "one, edited", edited_timestamp="2024-01-02T00:00:00+00:00")  # not re-fetched by id
    _, messages = drain(make(fake, retry), batches[-1].cursor)
    assert [m.content for m in messages] == ["two"]


def test_first_backfill_with_limit_takes_newest(fake, retry):
    for i in range(1, 151):
        fake.post("10", 1000 + i, f"m{i}")
    _, messages = drain(make(fake, retry), limit=120)
    assert [m.content for m in messages if m.channel == "general"] == [f"m{i}" for i in range(31, 151)]


def test_long_429_goes_to_retry_policy_then_succeeds(fake, retry, sleeps):
    fake.post("10", 1001, "one")
    body = {"message": "You are being rate limited.", "retry_after": 120.0, "global": False}
    fake.server.fail("/channels/10/messages", 429, body, {"Via": "1.1 google", "Retry-After": "120"})
    _, messages = drain(make(fake, retry))
    assert [m.content for m in messages] == ["one"]
    assert len(sleeps.waits) == 1 and 120 <= sleeps.waits[0] < 121


def test_persistent_429_raises_rate_limited(fake, retry):
    body = {"message": "You are being rate limited.", "retry_after": 120.0, "global": False}
    fake.server.fail("/users/@me/guilds", 429, body, {"Via": "1.1 google"}, times=20)
    with pytest.raises(ConnectorRateLimited) as info:
        make(fake, retry).validate()
    assert info.value.retry_after == 120.0


def test_503_is_unavailable_after_backoff(fake, retry, sleeps):
    fake.server.fail("/users/@me", 503, {"message": "upstream"}, times=20)
    with pytest.raises(ConnectorUnavailable):
        make(fake, retry).validate()
    assert len(sleeps.waits) == 3


def test_revoked_token_is_auth_failed(fake, retry, sleeps):
    with pytest.raises(ConnectorAuthFailed) as info:
        make(fake, retry, token="revoked-token").validate()
    assert sleeps.waits == [] and "revoked-token" not in str(info.value)


def test_gateway_delivers_live_messages_edits_and_deletions_like_rest(fake, monkeypatch):
    received: list = []
    deleted: list = []

    async def main() -> None:
        gateway = FakeGateway(fake)
        await gateway.start()
        monkeypatch.setattr(DiscordWebSocket, "DEFAULT_GATEWAY", yarl.URL(gateway.url))
        listener = DiscordLiveListener(fake.token, received.extend, deleted.extend)
        task = asyncio.create_task(listener.run())
        try:
            await asyncio.wait_for(gateway.identified.wait(), 10)
            for _ in range(100):
                if listener.client.get_channel(20) is not None:
                    break
                await asyncio.sleep(0.05)
            await gateway.dispatch("MESSAGE_CREATE", message_payload("10", 5000, "live hello", guild_id="1"))
            await gateway.dispatch("MESSAGE_CREATE", message_payload("20", 5001, "in thread", guild_id="1"))
            edited = message_payload("10", 5000, "live hello!", edited_timestamp="2024-01-01T01:00:00+00:00")
            await gateway.dispatch("MESSAGE_UPDATE", edited)
            await gateway.dispatch("MESSAGE_DELETE", {"id": "5001", "channel_id": "20", "guild_id": "1"})
            for _ in range(100):
                if len(received) >= 3 and deleted:
                    break
                await asyncio.sleep(0.05)
        finally:
            await listener.stop()
            await asyncio.wait_for(task, 10)
            await gateway.stop()

    asyncio.run(main())

    assert [m.content for m in received] == ["live hello", "in thread", "live hello!"]
    assert received[0].message_id == "discord:10:5000" and received[0].channel == "general"
    assert received[0].metadata["guild"] == "Home"
    assert received[1].metadata["parent_channel"] == "general"
    assert received[2].metadata["edited"] is True
    assert deleted == ["discord:20:5001"]
    # The same message over REST converts to the identical RawMessage: live + backfill never duplicate.
    fake.messages["10"].append(message_payload("10", 5000, "live hello"))
    rest = DiscordConnector(ConnectorConfig("discord", "discord", fake.token, {}))
    _, messages = drain(rest)
    assert received[0] in messages
