"""`strata insights …` end to end through the real CLI on a temp data dir."""

from __future__ import annotations

import json
from pathlib import Path

from insights_eval_loader import load_harness
from typer.testing import CliRunner

from app.cli.main import cli

runner = CliRunner()
harness = load_harness()


def _import(tmp_path: Path) -> None:
    rows = [
        {"platform": m.platform, "message_id": m.message_id, "channel": m.channel, "person": m.person,
         "timestamp": m.timestamp, "content": m.content}
        for c in harness.load() for m in c.messages
    ]  # fmt: skip
    path = tmp_path / "chats.jsonl"
    path.write_text("\n".join(json.dumps(r) for r in rows) + "\n", encoding="utf-8")
    result = runner.invoke(cli, ["import", "jsonl", str(path), "--json"])
    assert result.exit_code == 0, result.output


def test_generate_list_show_favorite_brief(tmp_path: Path, cli_env: dict[str, str]) -> None:
    _import(tmp_path)
    gen = runner.invoke(cli, ["insights", "generate", "--json"])
    assert gen.exit_code == 0, gen.output
    report = json.loads(gen.stdout)
    assert report["created"] > 40 and report["extractors"] == {"rules": 14}

    listed = json.loads(runner.invoke(cli, ["insights", "list", "--json", "--kind", "decision"]).stdout)
    assert listed and all(i["kind"] == "decision" for i in listed)
    first = listed[0]["id"]

    shown = runner.invoke(cli, ["insights", "show", first[:8], "--json"])
    assert shown.exit_code == 0, shown.output
    detail = json.loads(shown.stdout)
    assert detail["evidence"] and detail["timeline"] and detail["insightWeights"]["accessCount7d"] == 1

    fav = json.loads(runner.invoke(cli, ["insights", "favorite", first, "--json"]).stdout)
    assert fav["favorite"] is True

    brief = runner.invoke(cli, ["insights", "brief", "--me", "alex", "--json"])
    assert brief.exit_code == 0, brief.output
    loops = json.loads(brief.stdout)
    assert [i["title"] for i in loops["myActions"]] == [
        "alex: approve the vendor invoice in Ramp by Wednesday"
    ]

    table = runner.invoke(cli, ["insights", "list", "--sort", "due"])
    assert table.exit_code == 0 and "rank" in table.output


def test_errors_are_readable(cli_env: dict[str, str]) -> None:
    bad = runner.invoke(cli, ["insights", "list", "--sort", "loudest"])
    assert bad.exit_code == 1 and "unknown sort" in bad.output
    missing = runner.invoke(cli, ["insights", "show", "00000000-0000-0000-0000-000000000000"])
    assert missing.exit_code == 1 and "no insight" in missing.output
    brief = runner.invoke(cli, ["insights", "brief"])
    assert brief.exit_code == 1 and "identities" in brief.output
