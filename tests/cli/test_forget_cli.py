"""`strata forget run|status|undo` end to end on a real data dir."""

from __future__ import annotations

import json
import time

from typer.testing import CliRunner

from app.bootstrap import build_services
from app.cli.main import cli
from app.core.clock import DAY_MS
from app.core.domain import RawMessage
from app.core.settings import load_settings

runner = CliRunner()


def _seed(cli_env: dict[str, str]) -> None:
    now = time.time_ns() // 1_000_000
    base = (now - 10 * DAY_MS) // DAY_MS * DAY_MS + 3_600_000
    svc = build_services(load_settings())
    try:
        svc.memory.ingest(
            RawMessage("slack", f"f{i}", "general", "anna", base + i * 60_000, f"budget review point {i}")
            for i in range(4)
        )
    finally:
        svc.close()


def test_run_status_undo(cli_env: dict[str, str]) -> None:
    _seed(cli_env)
    dry = runner.invoke(cli, ["forget", "run", "--dry-run", "--json"])
    assert dry.exit_code == 0, dry.output
    plan = json.loads(dry.stdout)
    assert plan["status"] == "dry_run" and plan["totals"]["archived"] == 4
    assert plan["groups"][0]["messageCount"] == 4

    human = runner.invoke(cli, ["forget", "run", "--user", "local"])
    assert human.exit_code == 0, human.output
    assert "status: completed" in human.stdout

    status = runner.invoke(cli, ["forget", "status", "--json"])
    data = json.loads(status.stdout)
    last = data["lastRun"]
    assert last["status"] == "completed" and last["totals"]["summarized"] == 1 and last["trigger"] == "cli"
    assert data["summaries"] == 1 and data["scheduler"]["active"] is False
    assert "last run:" in runner.invoke(cli, ["forget", "status"]).stdout

    undo = runner.invoke(cli, ["forget", "undo", last["runId"], "--json"])
    assert json.loads(undo.stdout)["status"] == "undone"
    again = runner.invoke(cli, ["forget", "run", "--json"])
    assert json.loads(again.stdout)["totals"]["archived"] == 0  # undone records are left alone
    asked = runner.invoke(cli, ["forget", "run", "--include-undone", "--json"])
    assert json.loads(asked.stdout)["totals"]["archived"] == 4


def test_undo_unknown_run_is_a_clear_error(cli_env: dict[str, str]) -> None:
    result = runner.invoke(cli, ["forget", "undo", "fr_missing"])
    assert result.exit_code == 1
    assert "no forgetting run" in result.output
