"""A Slack message synced live and the same message imported from an export store the same text,
so alternating sync and import is never counted as an edit (fake Slack API on 127.0.0.1)."""

from __future__ import annotations

import json
import zipfile
from pathlib import Path

from connectors.base import ConnectorConfig
from connectors.slack import SlackConnector
from tests.connectors.fake_slack import TEAM, FakeSlack

TEXTS = [
    "see <https://x.example/doc|the draft> and <https://x.example/raw>",
    "ping <@U2> in <#C1|general> &amp; <!here>, mail <mailto:a@example.org|a@example.org>",
    "5 &lt; 6 &gt; 4",
]


def test_live_sync_then_export_import_is_all_duplicates(services, retry, tmp_path: Path) -> None:
    slack = FakeSlack()
    with slack.server:
        for i, text in enumerate(TEXTS):
            slack.post("C1", f"170000000{i}.000100", text)
        connector = SlackConnector(
            ConnectorConfig("slack", "slack", slack.token, {"base_url": slack.server.url + "/api/"}, retry)
        )
        live = [m for batch in connector.fetch(None) for m in batch.messages if ":C1:" in m.message_id]
    assert services.memory.ingest(live).imported == len(TEXTS)
    assert live[0].content == "see the draft (https://x.example/doc) and https://x.example/raw"

    users = [{**u, "team_id": TEAM} for u in slack.users]
    export = tmp_path / "export.zip"
    with zipfile.ZipFile(export, "w") as archive:
        archive.writestr("users.json", json.dumps(users))
        archive.writestr("channels.json", json.dumps([{"id": "C1", "name": "general"}]))
        archive.writestr("general/2023-11-14.json", json.dumps(slack.messages["C1"]))
    report = services.imports.run("slack", export)
    assert report.result is not None
    assert (report.result.imported, report.result.updated, report.result.duplicates) == (0, 0, len(TEXTS))
