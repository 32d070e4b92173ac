"""`strata messages show|delete` end to end on a real data dir (in-process runner)."""

from __future__ import annotations

import json
from pathlib import Path

from typer.testing import CliRunner

from app.cli.main import cli
from tests.cli.test_cli import msg, write_jsonl

runner = CliRunner()


def _import(tmp_path: Path, rows: list[dict[str, object]]) -> None:
    file = write_jsonl(tmp_path / "in.jsonl", rows)
    assert runner.invoke(cli, ["import", "jsonl", str(file), "--json"]).exit_code == 0


def test_show_prints_one_message_and_its_context(tmp_path: Path, cli_env: dict[str, str]) -> None:
    _import(tmp_path, [msg(i, content=f"use [bold] and [/a-z] item {i}") for i in range(3)])
    out = runner.invoke(cli, ["messages", "show", "2", "--context", "1"])
    assert out.exit_code == 0, out.output
    assert "use [bold] and [/a-z] item 1" in out.output and "item 0" in out.output
    data = json.loads(runner.invoke(cli, ["messages", "show", "2", "--json"]).stdout)
    assert data["content"] == "use [bold] and [/a-z] item 1" and data["id"] == 2
    missing = runner.invoke(cli, ["messages", "show", "99"])
    assert missing.exit_code == 1 and "no message with id 99" in missing.output


def test_delete_by_id_and_in_bulk_with_preview(tmp_path: Path, cli_env: dict[str, str]) -> None:
    _import(tmp_path, [msg(i) for i in range(6)] + [msg(9, channel="random")])
    dry = runner.invoke(
        cli, ["messages", "delete", "--channel", "general", "--before", "2026-11-13", "--dry-run"]
    )
    assert dry.exit_code == 0 and "3 message(s) match" in dry.output and "nothing deleted" in dry.output
    refused = runner.invoke(
        cli, ["messages", "delete", "--channel", "general", "--before", "2026-11-13"], input="n\n"
    )
    assert refused.exit_code == 1
    done = runner.invoke(
        cli, ["messages", "delete", "--channel", "general", "--before", "2026-11-13", "--yes", "--json"]
    )
    assert done.exit_code == 0, done.output
    assert json.loads(done.stdout)["deleted"] == 3
    one = runner.invoke(cli, ["messages", "delete", "7", "--yes"])
    assert one.exit_code == 0 and "deleted 1 message(s)" in one.output
    stats = json.loads(runner.invoke(cli, ["stats", "--json"]).stdout)
    assert stats["messages"] == 3
    both = runner.invoke(cli, ["messages", "delete", "4", "--channel", "x"])
    assert both.exit_code == 2 and "not both" in both.output
