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


def test_backfill_reads_archived_threads_public_and_private_where_permitted(fake, retry):
    """Issue 20: archived threads (public; private with Manage Threads, else the joined ones)."""
    fake.archive_thread("30", "old-plan", "10", when="2023-06-01T00:00:00+00:00")
    fake.archive_thread("31", "older-plan", "10", when="2023-05-01T00:00:00+00:00")
    fake.archive_thread("32", "staff-only", "10", private=True, when="2023-06-02T00:00:00+00:00")
    fake.archive_thread("33", "joined-private", "10", private=True, when="2023-06-03T00:00:00+00:00")
    fake.joined.add("33")
    for tid, mid in (("30", 6000), ("31", 6001), ("32", 6002), ("33", 6003)):
        fake.post(tid, mid, f"archived talk {tid}")

    # Without Manage Threads: public archives and the private thread the bot joined.
    batches, messages = drain(make(fake, retry))
    by_channel = {m.metadata["channel_id"]: m for m in messages}
    assert {"30", "31", "33"} <= set(by_channel) and "32" not in by_channel
    assert by_channel["30"].channel == "old-plan" and by_channel["30"].metadata["parent_channel"] == "general"
    assert by_channel["30"].message_id == "discord:30:6000"
    assert fake.server.calls("/users/@me/threads/archived/private")

    # With Manage Threads every private archived thread is read; the others are not re-read.
    fake.manage_threads = True
    fake.server.requests.clear()
    _, more = drain(make(fake, retry), batches[-1].cursor)
    assert [m.message_id for m in more] == ["discord:32:6002"]
    history = {r.path.split("/")[4] for r in fake.server.calls("/messages")}
    assert "30" not in history and "31" not in history  # up to date: skipped without a call


def test_archive_listing_pages(fake, retry):
    for n in range(120):  # more than one page of 100
        tid = str(40000 + n)
        fake.archive_thread(tid, f"t{n}", "10", when=f"2023-01-01T00:{n // 60:02d}:{n % 60:02d}+00:00")
        fake.post(tid, 50000 + n, f"archived {n}")
    _, messages = drain(make(fake, retry))
    assert len({m.metadata["channel_id"] for m in messages if m.content.startswith("archived")}) == 120


def test_backfill_reads_dms_with_the_named_users(fake, retry):
    channel = fake.open_dm("501")
    fake.post(channel, 8000, "psst, a direct message", author="501")
    fake.post(channel, 8001, "bot reply", author="500")
    batches, messages = drain(make(fake, retry, dm_users=["501", "999"]))
    dms = [m for m in messages if m.metadata["channel_id"] == channel]
    assert [m.content for m in dms] == ["psst, a direct message", "bot reply"]
    assert {m.channel for m in dms} == {"dm:finn"}
    assert dms[0].message_id == f"discord:{channel}:8000" and "guild" not in dms[0].metadata
    assert any("DM with 999" in w for b in batches for w in b.warnings)


def test_gateway_delivers_direct_messages(fake, monkeypatch):
    received: list = []

    async def main() -> None:
        gateway = FakeGateway(fake)
        await gateway.start()
        monkeypatch.setattr(DiscordWebSocket, "DEFAULT_GATEWAY", yarl.URL(gateway.url))
        listener = DiscordLiveListener(fake.token, received.extend)
        task = asyncio.create_task(listener.run())
        try:
            await asyncio.wait_for(gateway.identified.wait(), 10)
            await gateway.dispatch("MESSAGE_CREATE", message_payload("7501", 8100, "dm live", author="501"))
            for _ in range(100):
                if received:
                    break
                await asyncio.sleep(0.05)
        finally:
            await listener.stop()
            await asyncio.wait_for(task, 10)
            await gateway.stop()

    asyncio.run(main())
    (message,) = received
    assert (message.channel, message.message_id, message.content) == (
        "dm:finn",
        "discord:7501:8100",
        "dm live",
    )
    assert listener_intents_include_dms()


def listener_intents_include_dms() -> bool:
    return DiscordLiveListener("t", lambda _m: None).client.intents.dm_messages
