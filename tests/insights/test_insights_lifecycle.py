"""Lifecycle set by the user (done, dismissed, snoozed until, reopen) and the user's own names, through
the service and the real CLI; the first-run question replaces editing settings.toml."""

from __future__ import annotations

import json
from collections.abc import Iterator

import pytest
from typer.testing import CliRunner

from app.bootstrap import Services, build_services
from app.cli.main import cli
from app.core.clock import DAY_MS, HOUR_MS, FixedClock
from app.core.domain import RawMessage
from app.core.embeddings.hashing import HashingEmbedder
from app.core.errors import ConfigError, InvalidInput
from app.core.settings import Settings

T0 = 1_774_915_200_000  # 2026-03-31T00:00:00Z
runner = CliRunner()
CHAT = [
    ("l1", "alex", 0, "@sam can you send me the Q4 invoices by Friday?"),
    ("l2", "sam", 60_000, "sure"),
    ("l3", "kim", HOUR_MS, "alex can you prepare the Q1 numbers for the sync?"),
    ("l4", "alex", HOUR_MS + 60_000, "yes"),
]


def _ingest(svc: Services) -> None:
    svc.memory.ingest(
        [RawMessage(platform="slack", message_id=i, channel="team", person=p, timestamp=T0 + at, content=c)
         for i, p, at, c in CHAT]
    )  # fmt: skip


@pytest.fixture
def svc(settings: Settings) -> Iterator[Services]:
    services = build_services(settings, clock=FixedClock(T0 + DAY_MS), embedder=HashingEmbedder())
    _ingest(services)
    services.insights.generate()
    yield services
    services.close()


def test_first_run_question_drives_open_loops(svc: Services) -> None:
    with pytest.raises(ConfigError) as err:
        svc.insights.brief()
    assert "strata insights me" in (err.value.hint or "")
    assert svc.insights.set_me(["alex", " Alex Kim ", "alex"]) == ("alex", "Alex Kim")
    loops = svc.insights.brief()
    assert [r.insight.draft.owner for r in loops.my_actions] == ["alex"]
    assert [r.insight.draft.owner for r in loops.waiting_on] == ["sam"]
    with pytest.raises(InvalidInput):
        svc.insights.set_me(["  "])


def test_done_dismissed_snoozed_leave_the_list_and_come_back(svc: Services) -> None:
    svc.insights.set_me(["alex"])
    mine = svc.insights.brief().my_actions[0].id
    waiting = svc.insights.brief().waiting_on[0].id
    svc.insights.set_lifecycle(mine, "done")
    svc.insights.set_lifecycle(waiting, "dismissed")
    assert {r.id for r in svc.insights.list_insights()} == set()
    assert svc.insights.brief().empty
    assert [r.id for r in svc.insights.list_insights(lifecycle_state="done")] == [mine]
    assert not svc.insights.list_insights(status="open")  # what the user closed is not open
    every_open = {r.id for r in svc.insights.list_insights(status="open", lifecycle_state="all")}
    assert every_open == {mine, waiting}  # the chat itself never closed them
    # Re-extraction never undoes what the user decided.
    svc.insights.generate(full=True)
    assert svc.insights.get(mine, count_view=False).insight.lifecycle == "done"

    clock = svc.clock
    assert isinstance(clock, FixedClock)
    with pytest.raises(InvalidInput):
        svc.insights.set_lifecycle(mine, "snoozed", clock.now_ms() - 1)
    snoozed = svc.insights.set_lifecycle(mine, "snoozed", clock.now_ms() + DAY_MS)
    assert snoozed.insight.lifecycle == "snoozed" and snoozed.insight.snoozed_until == clock.now_ms() + DAY_MS
    assert mine not in {r.id for r in svc.insights.list_insights()}
    clock.advance(DAY_MS + 1)  # the snooze runs out: open again, in the list and the brief
    assert mine in {r.id for r in svc.insights.list_insights()}
    assert svc.insights.brief().my_actions[0].id == mine
    assert svc.insights.set_lifecycle(waiting, "open").insight.lifecycle == "open"
    with pytest.raises(InvalidInput):
        svc.insights.set_lifecycle(mine, "finished")


def test_cli_me_done_dismiss_snooze_reopen(settings: Settings, cli_env: dict[str, str]) -> None:
    svc = build_services(settings, embedder=HashingEmbedder())
    _ingest(svc)
    svc.close()
    assert runner.invoke(cli, ["insights", "generate"]).exit_code == 0
    assert json.loads(runner.invoke(cli, ["insights", "me", "--json"]).output) == {"names": []}
    me = runner.invoke(cli, ["insights", "me", "alex", "Alex Kim"])
    assert me.exit_code == 0 and "alex, Alex Kim" in me.output
    loops = json.loads(runner.invoke(cli, ["insights", "brief", "--json"]).output)
    mine = loops["myActions"][0]["id"]
    done = runner.invoke(cli, ["insights", "done", mine[:8]])
    assert done.exit_code == 0 and done.output.startswith("done: alex: prepare the Q1 numbers")
    assert not json.loads(runner.invoke(cli, ["insights", "brief", "--json"]).output)["myActions"]
    listed = json.loads(runner.invoke(cli, ["insights", "list", "--lifecycle", "done", "--json"]).output)
    assert [i["id"] for i in listed] == [mine]
    snooze = json.loads(
        runner.invoke(cli, ["insights", "snooze", mine[:8], "--until", "2099-01-01", "--json"]).output
    )
    assert snooze["lifecycle"] == "snoozed" and snooze["snoozedUntil"].startswith("2099-01-01")
    bad = runner.invoke(cli, ["insights", "snooze", mine[:8], "--until", "someday"])
    assert bad.exit_code == 1 and "not a date" in bad.output
    assert runner.invoke(cli, ["insights", "reopen", mine[:8]]).output.startswith("open: ")
    waiting = loops["waitingOn"][0]["id"]
    assert runner.invoke(cli, ["insights", "dismiss", waiting]).output.startswith("dismissed: ")
    missing = runner.invoke(cli, ["insights", "done", "00000000-0000-0000-0000-000000000000"])
    assert missing.exit_code == 1 and "no insight" in missing.output
