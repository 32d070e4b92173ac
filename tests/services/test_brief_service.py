"""The wake-up brief on the demo chat: sections, ids to fetch, the size budget, `since`, CLI and REST."""

from __future__ import annotations

import json

import httpx
from typer.testing import CliRunner

from app.api.app import create_app
from app.bootstrap import Services
from app.cli.main import cli
from app.core.clock import DAY_MS, iso
from app.core.jsonl import parse_jsonl
from app.core.paths import resource_path
from tests.conftest import NOW_MS


def _demo(services: Services) -> Services:
    services.memory.ingest(
        parse_jsonl(resource_path("demo", "conversation.jsonl").read_text("utf-8").splitlines())
    )
    services.insights.generate()
    return services


def test_the_brief_names_open_loops_decisions_and_activity_with_ids(services: Services) -> None:
    services.insights.set_me(["me", "ben"])
    body = _demo(services).brief.brief(since=NOW_MS - 30 * DAY_MS, max_tokens=5000).to_dict()
    assert body["you"]["identities"] == ["me", "ben"]
    commitments = [line["title"] for line in body["myCommitments"]]
    assert any("status page" in t.lower() for t in commitments), commitments
    assert any("40k" in d["title"] for d in body["recentDecisions"])
    ids = [line["id"] for name in ("myCommitments", "recentDecisions") for line in body[name]]
    assert ids and all(i.startswith("insight:") for i in ids)
    assert all(services.insights.get(i.removeprefix("insight:"), count_view=False) for i in ids)
    # Demo times are before the fixed "now" minus a week, so nothing counts as this week's activity,
    # but all of it is new since the `since` a month ago.
    assert {c["what"] for c in body["changes"]} >= {"messages", "insight"}
    assert body["omitted"] == {}


def test_the_brief_stays_within_its_budget_and_says_what_it_left_out(services: Services) -> None:
    services.insights.set_me(["me", "ben"])
    brief = _demo(services).brief.brief(since=NOW_MS - 30 * DAY_MS, max_tokens=200)
    body = brief.to_dict()
    assert body["approxTokens"] <= 200
    assert body["omitted"], "something had to be left out at 200 tokens"
    assert "left out to fit" in brief.to_markdown()


def test_without_identities_the_brief_still_works_and_says_how_to_fix_it(services: Services) -> None:
    body = _demo(services).brief.brief().to_dict()
    assert "strata insights me" in body["you"]["hint"]
    assert body["myCommitments"] == [] and body["waitingOn"]


def test_the_brief_is_deterministic(services: Services) -> None:
    _demo(services)
    assert services.brief.brief().to_dict() == services.brief.brief().to_dict()


def test_cli_and_rest_give_the_same_brief(services: Services, cli_env: dict[str, str]) -> None:
    _demo(services)
    since = iso(NOW_MS - 30 * DAY_MS)
    result = CliRunner().invoke(cli, ["brief", "--since", since, "--json"], env=cli_env)
    assert result.exit_code == 0, result.output
    from_cli = json.loads(result.stdout)
    text = CliRunner().invoke(cli, ["brief", "--since", since], env=cli_env)
    assert text.exit_code == 0 and "# Brief" in text.stdout
    token = "k" * 43
    transport = httpx.ASGITransport(app=create_app(services, token=token))

    async def fetch() -> dict:
        async with httpx.AsyncClient(transport=transport, base_url="http://127.0.0.1:3415") as http:
            r = await http.get(
                "/api/brief", params={"since": since}, headers={"Authorization": f"Bearer {token}"}
            )
            assert r.status_code == 200, r.text
            return r.json()

    import anyio

    from_rest = anyio.run(fetch)
    for name in ("recentDecisions", "changes"):
        assert [line.get("id") for line in from_cli[name]] == [line.get("id") for line in from_rest[name]]


def test_a_since_outside_the_calendar_is_a_clear_error(services: Services) -> None:
    import pytest

    from app.core.errors import InvalidInput

    with pytest.raises(InvalidInput, match="outside the years"):
        services.brief.brief(since=-200_000_000_000_000)
