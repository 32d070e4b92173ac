"""Slack connector through the real slack-sdk WebClient against a fake Slack API on 127.0.0.1."""

from __future__ import annotations

import json

import pytest

from app.core.errors import ConnectorAuthFailed, ConnectorNotFound, ConnectorRateLimited, ConnectorUnavailable
from connectors.base import ConnectorConfig
from connectors.slack import SlackConnector
from tests.connectors.fake_slack import TEAM, FakeSlack


@pytest.fixture
def slack():
    fake = FakeSlack()
    with fake.server:
        yield fake


def make(slack: FakeSlack, retry, **options) -> SlackConnector:
    opts = {"base_url": slack.server.url + "/api/", **options}
    return SlackConnector(ConnectorConfig("slack", "slack", slack.token, opts, retry))


def drain(connector, cursor=None, limit=None):
    batches = list(connector.fetch(cursor, limit=limit))
    messages = [m for b in batches for m in b.messages]
    return batches, messages


def test_backfill_reads_channels_threads_users_files_and_paginates(slack, retry):
    for i in range(450):  # more than two pages of 200
        slack.post("C1", f"1700000{i:03d}.000100", f"message {i} for <@U2>")
    slack.post("C1", "1700001000.000100", "thread parent", reply_count=2, thread_ts="1700001000.000100")
    slack.post("C1", "1700001001.000100", "reply one", user="U2", thread_ts="1700001000.000100")
    slack.post("C1", "1700001002.000100", "reply two", thread_ts="1700001000.000100")
    slack.post(
        "C1", "1700001003.000100", "", files=[{"name": "plan.pdf", "mimetype": "application/pdf", "size": 10}]
    )
    slack.post("C1", "1700001004.000100", "joined", subtype="channel_join")
    slack.post("C2", "1700000001.000100", "not a member here")
    slack.post("D1", "1700000002.000100", "a direct message", user="U2")

    batches, messages = drain(make(slack, retry))

    ids = [m.message_id for m in messages]
    assert len(ids) == len(set(ids)) == 450 + 4 + 1
    assert f"slack:{TEAM}:C1:1700000000.000100" in ids
    assert not any(":C2:" in i for i in ids)
    first = next(m for m in messages if m.message_id.endswith("1700000000.000100"))
    assert first.content == "message 0 for @Bob Stone"
    assert (first.platform, first.channel, first.person, first.timestamp) == (
        "slack",
        "general",
        "Alice",
        1700000000000,
    )
    assert first.metadata["email"] == "alice@example.com"
    reply = next(m for m in messages if m.content == "reply one")
    assert reply.person == "Bob Stone" and reply.metadata["thread_id"] == "1700001000.000100"
    files = next(m for m in messages if m.attachments)
    assert files.attachments[0].name == "plan.pdf" and files.attachments[0].content_type == "application/pdf"
    dm = next(m for m in messages if m.content == "a direct message")
    assert dm.channel == "dm:Bob Stone"
    c1 = [m.timestamp for m in messages if m.metadata["channel_id"] == "C1"]
    assert c1 == sorted(c1)
    assert len(slack.server.calls("conversations.history")) >= 3
    assert json.loads(batches[-1].cursor)["channels"] == {
        "C1": "1700001004.000100",
        "D1": "1700000002.000100",
    }


def test_incremental_sync_continues_from_cursor_and_sees_edits_and_deletions(slack, retry):
    slack.post("C1", "1700000001.000100", "one")
    batches, _ = drain(make(slack, retry))
    cursor = batches[-1].cursor
    slack.post("C1", "1700000002.000100", "two")
    slack.post(
        "C1",
        "1700000003.000100",
        "",
        subtype="message_changed",
        message={"ts": "1700000001.000100", "text": "one (edited)", "user": "U1", "edited": {"ts": "1"}},
    )
    slack.post("C1", "1700000004.000100", "", subtype="message_deleted", deleted_ts="1700000002.000050")

    batches, messages = drain(make(slack, retry), cursor)

    assert [m.content for m in messages] == ["one (edited)", "two"]
    assert messages[0].metadata["edited"] is True
    assert batches[0].deleted == (f"slack:{TEAM}:C1:1700000002.000050",)
    assert json.loads(batches[-1].cursor)["channels"]["C1"] == "1700000004.000100"
    _, again = drain(make(slack, retry), batches[-1].cursor)
    assert again == []


def test_first_backfill_honours_limit_with_newest_messages(slack, retry):
    for i in range(30):
        slack.post("C1", f"17000000{i:02d}.000100", f"m{i}")
    _, messages = drain(make(slack, retry, channels=["general"]), limit=10)
    assert [m.content for m in messages] == [f"m{i}" for i in range(20, 30)]


def test_429_honours_retry_after_then_succeeds(slack, retry, sleeps):
    slack.post("C1", "1700000001.000100", "one")
    slack.server.fail(
        "conversations.history", 429, {"ok": False, "error": "ratelimited"}, {"Retry-After": "3"}
    )
    _, messages = drain(make(slack, retry))
    assert [m.content for m in messages] == ["one"]
    assert len(sleeps.waits) == 1 and 3 <= sleeps.waits[0] < 4


def test_persistent_429_raises_rate_limited_with_retry_after(slack, retry, sleeps):
    slack.server.fail("auth.test", 429, {"ok": False, "error": "ratelimited"}, {"Retry-After": "2"}, times=10)
    with pytest.raises(ConnectorRateLimited) as info:
        make(slack, retry).validate()
    assert info.value.retry_after == 2.0
    assert len(sleeps.waits) == retry.max_attempts - 1


def test_5xx_backs_off_exponentially_then_reports_unavailable(slack, retry, sleeps):
    slack.server.fail("auth.test", 503, b"upstream down", times=10)
    with pytest.raises(ConnectorUnavailable):
        make(slack, retry).validate()
    assert len(sleeps.waits) == 3
    assert 0.25 <= sleeps.waits[0] <= 0.5 and 0.5 <= sleeps.waits[1] <= 1 and 1 <= sleeps.waits[2] <= 2


def test_revoked_token_is_auth_failed_without_retries(slack, retry, sleeps):
    connector = make(slack, retry)
    slack.token = "xoxb-rotated-elsewhere"
    with pytest.raises(ConnectorAuthFailed) as info:
        connector.validate()
    assert "token_revoked" in str(info.value) and sleeps.waits == []
    assert "xoxb-test-token-1234" not in str(info.value)


def test_channel_gone_is_not_found(slack, retry):
    slack.channels.append({"id": "C9", "name": "gone", "is_channel": True, "is_member": True})
    with pytest.raises(ConnectorNotFound):
        drain(make(slack, retry))


def test_unreachable_server_is_unavailable(retry):
    config = ConnectorConfig("slack", "slack", "xoxb-x", {"base_url": "http://127.0.0.1:9/api/"}, retry)
    with pytest.raises(ConnectorUnavailable):
        SlackConnector(config).validate()


def test_replies_to_threads_older_than_the_cursor_are_fetched(slack, retry):
    """Issue 20: a reply posted later to a thread whose parent is older than the cursor."""
    slack.post("C1", "1690000000.000100", "ancient, beyond the look-back")
    slack.post("C1", "1700800000.000100", "old thread parent")
    slack.reply("C1", "1700800000.000100", "1700800001.000100", "first reply", user="U2")
    slack.post("C1", "1700800100.000100", "old plain message")
    slack.post("C1", "1700800200.000100", "quiet thread parent")
    slack.reply("C1", "1700800200.000100", "1700800201.000100", "old quiet reply")
    slack.post("C1", "1700800300.000100", "newest at first sync")
    connector = make(slack, retry)
    batches, first = drain(connector)
    assert len(first) == 7
    cursor = batches[-1].cursor

    slack.reply("C1", "1700800000.000100", "1700900000.000100", "late reply to the old thread", user="U2")
    slack.reply("C1", "1700800100.000100", "1700900001.000100", "a thread starts on an old message")
    slack.reply("C1", "1690000000.000100", "1700900002.000100", "reply beyond the look-back")
    slack.post("C1", "1700900003.000100", "new top-level message")
    slack.server.requests.clear()
    batches, messages = drain(make(slack, retry), cursor)

    assert sorted(m.content for m in messages) == [
        "a thread starts on an old message",
        "late reply to the old thread",
        "new top-level message",
    ]
    late = next(m for m in messages if m.content.startswith("late reply"))
    assert late.message_id == f"slack:{TEAM}:C1:1700900000.000100"
    assert late.metadata["thread_id"] == "1700800000.000100" and late.person == "Bob Stone"
    # Only the two threads with new replies were opened; the quiet one was not.
    opened = sorted(r.params["ts"] for r in slack.server.calls("conversations.replies"))
    assert opened == ["1700800000.000100", "1700800100.000100"]
    assert json.loads(batches[-1].cursor)["channels"]["C1"] == "1700900003.000100"
    # A third sync with nothing new fetches nothing and opens no thread.
    slack.server.requests.clear()
    _, again = drain(make(slack, retry), batches[-1].cursor)
    assert again == [] and not slack.server.calls("conversations.replies")


def test_thread_look_back_can_be_turned_off(slack, retry):
    slack.post("C1", "1700800000.000100", "old thread parent")
    batches, _ = drain(make(slack, retry))
    slack.reply("C1", "1700800000.000100", "1700900000.000100", "late reply")
    _, messages = drain(make(slack, retry, thread_lookback_days=0), batches[-1].cursor)
    assert messages == []
