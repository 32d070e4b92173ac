"""`strata connectors ...` end to end against a fake Slack API on 127.0.0.1."""

from __future__ import annotations

import json

import keyring
import pytest
from keyring.backends.fail import Keyring as FailKeyring
from typer.testing import CliRunner

from app.cli.main import cli
from app.core.domain import RawMessage
from tests.connectors.fake_slack import FakeSlack

runner = CliRunner()


@pytest.fixture
def slack(cli_env):
    # As on a headless machine with no OS keyring: the fallback (0600 secrets.json) is used.
    previous = keyring.get_keyring()
    keyring.set_keyring(FailKeyring())
    fake = FakeSlack()
    try:
        with fake.server:
            yield fake
    finally:
        keyring.set_keyring(previous)


def invoke(*args: str):
    return runner.invoke(cli, ["connectors", *args])


def test_add_list_sync_test_remove(slack, data_dir):
    base = f"base_url={slack.server.url}/api/"
    added = invoke("add", "slack", "--token", slack.token, "-o", base, "-o", "channels=general", "--json")
    assert added.exit_code == 0, added.output
    assert json.loads(added.stdout)["account"] == "strata"
    assert slack.token not in added.output

    slack.post("C1", "1700000001.000100", "ship it on monday")
    synced = invoke("sync", "--json")
    assert synced.exit_code == 0, synced.output
    report = json.loads(synced.stdout)["reports"][0]
    assert report["connector"] == "slack" and report["imported"] == 1 and report["ok"] is True

    listed = json.loads(invoke("list", "--json").stdout)
    (state,) = listed["connectors"]
    assert (
        state["status"] == "ok"
        and state["messages_total"] == 1
        and state["options"] == {"channels": ["general"]}
    )
    assert {k["kind"] for k in listed["kinds"]} == {"slack", "discord", "telegram"}
    assert slack.token not in json.dumps(listed)

    found = runner.invoke(cli, ["search", "ship it", "--json"])
    assert "ship it on monday" in found.stdout

    tested = invoke("test", "slack", "--json")
    assert tested.exit_code == 0 and json.loads(tested.stdout)["workspace"] == "Acme"

    removed = invoke("remove", "slack", "--json")
    assert json.loads(removed.stdout) == {"removed": True, "id": "slack"}
    assert slack.token not in (data_dir / "secrets.json").read_text()
    assert invoke("remove", "slack").exit_code == 1


def test_sync_failure_exits_nonzero_with_a_clear_message(slack):
    invoke("add", "slack", "--token", slack.token, "-o", f"base_url={slack.server.url}/api/")
    slack.token = "xoxb-revoked"
    result = invoke("sync", "slack")
    assert result.exit_code == 1 and "connector_auth_failed" in result.output


def test_bad_input_is_a_clear_error(slack):
    assert "unknown connector kind" in invoke("add", "matrix", "--token", "x").output
    assert "not KEY=VALUE" in invoke("add", "slack", "--token", "x", "-o", "oops").output
    assert "no connector named" in invoke("test", "nope").output


def test_identity_commands(slack, services):
    result = services.memory.ingest(
        [
            RawMessage("slack", "s1", "general", "Ana Lima", 1700000000000, "hello"),
            RawMessage("discord", "d1", "dev", "ana.lima", 1700000001000, "hi"),
        ]
    )
    assert result.imported == 2
    services.close()
    suggested = json.loads(invoke("suggest", "--json").stdout)["suggestions"]
    assert {i["person"] for i in suggested[0]["identities"]} == {"Ana Lima", "ana.lima"}
    merged = invoke("merge", "slack:Ana Lima", "discord:ana.lima", "--name", "Ana", "--json")
    assert json.loads(merged.stdout)["contact"]["display_name"] == "Ana"
    contacts = json.loads(invoke("contacts", "--json").stdout)["contacts"]
    assert len(contacts[0]["identities"]) == 2
    assert invoke("unmerge", str(contacts[0]["id"])).exit_code == 0
