"""The strata CLI end to end (in-process runner, real data dir)."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

from typer.testing import CliRunner

from app.cli.main import cli
from tests.conftest import PROJECT_ROOT

runner = CliRunner()


def write_jsonl(path: Path, rows: list[object]) -> Path:
    path.write_text(
        "\n".join(r if isinstance(r, str) else json.dumps(r) for r in rows) + "\n", encoding="utf-8"
    )
    return path


def msg(i: int, **kw: object) -> dict[str, object]:
    return {
        "platform": "slack",
        "message_id": f"x{i}",
        "channel": "general",
        "person": "anna",
        "timestamp": f"2026-11-{10 + i % 10:02d}T10:00:00Z",
        "content": f"release checklist item {i}",
        **kw,
    }


def test_import_jsonl_reports_counts_and_bad_lines(tmp_path: Path, cli_env: dict[str, str]) -> None:
    file = write_jsonl(tmp_path / "in.jsonl", [msg(1), msg(2), "{broken", msg(3, content=""), msg(1)])
    result = runner.invoke(cli, ["import", "jsonl", str(file), "--json"])
    assert result.exit_code == 0, result.output
    data = json.loads(result.stdout)
    assert (data["imported"], data["duplicates"]) == (2, 1)
    assert sorted(e["line"] for e in data["errors"]) == [3, 4]
    assert "content" in data["errors"][1]["reason"]
    again = json.loads(runner.invoke(cli, ["import", "jsonl", str(file), "--json"]).stdout)
    assert again["imported"] == 0 and again["duplicates"] == 3


def test_search_json_and_filters(tmp_path: Path, cli_env: dict[str, str]) -> None:
    file = write_jsonl(tmp_path / "in.jsonl", [msg(i) for i in range(5)] + [msg(9, platform="discord")])
    runner.invoke(cli, ["import", "jsonl", str(file)])
    out = runner.invoke(cli, ["search", "release checklist", "--json", "--limit", "3"])
    hits = json.loads(out.stdout)["hits"]
    assert len(hits) == 3
    assert set(hits[0]) >= {"id", "content", "score", "platform", "channel", "person", "timestamp", "tier"}
    only = json.loads(runner.invoke(cli, ["search", "release", "--platform", "discord", "--json"]).stdout)[
        "hits"
    ]
    assert [h["platform"] for h in only] == ["discord"]
    dated = runner.invoke(
        cli, ["search", "release", "--since", "2026-11-12", "--until", "2026-11-12", "--json"]
    )
    assert {h["content"] for h in json.loads(dated.stdout)["hits"]} == {"release checklist item 2"}


def test_search_batch(tmp_path: Path, cli_env: dict[str, str]) -> None:
    runner.invoke(
        cli, ["import", "jsonl", str(write_jsonl(tmp_path / "in.jsonl", [msg(i) for i in range(3)]))]
    )
    stdin = "\n".join(
        [
            json.dumps({"id": "q1", "query": "checklist item 1", "limit": 2}),
            "not json",
            json.dumps({"id": "q3", "query": "item", "platform": "nope"}),
        ]
    )
    out = runner.invoke(cli, ["search", "--batch"], input=stdin)
    lines = [json.loads(line) for line in out.stdout.splitlines()]
    assert [line["id"] for line in lines] == ["q1", 2, "q3"]
    assert len(lines[0]["hits"]) == 2 and "error" in lines[1] and lines[2]["hits"] == []


def test_stats_and_doctor(tmp_path: Path, cli_env: dict[str, str]) -> None:
    runner.invoke(cli, ["import", "jsonl", str(write_jsonl(tmp_path / "in.jsonl", [msg(1)]))])
    stats = json.loads(runner.invoke(cli, ["stats", "--json"]).stdout)
    assert stats["messages"] == 1 and stats["vectors"] == 1
    doctor = runner.invoke(cli, ["doctor", "--repair"])
    assert doctor.exit_code == 0, doctor.output
    assert "FAIL" not in doctor.output


def test_missing_file_is_a_clear_error(cli_env: dict[str, str]) -> None:
    result = runner.invoke(cli, ["import", "jsonl", "/nonexistent.jsonl"])
    assert result.exit_code != 0 and "does not exist" in result.output


def test_demo_loads_once_and_answers(cli_env: dict[str, str]) -> None:
    first = runner.invoke(cli, [])
    assert first.exit_code == 0, first.output
    assert "24 new" in first.output and "launch" in first.output
    assert "0 new, 24 already there" in runner.invoke(cli, ["demo"]).output


def test_two_writer_processes_lose_nothing(tmp_path: Path, cli_env: dict[str, str]) -> None:
    files = [
        write_jsonl(tmp_path / f"w{w}.jsonl", [msg(i, message_id=f"w{w}-{i}") for i in range(300)])
        for w in range(2)
    ]
    procs = [
        subprocess.Popen(
            [sys.executable, "-m", "app", "import", "jsonl", str(f), "--json"],
            cwd=PROJECT_ROOT,
            env={**os.environ, **cli_env},
            stdout=subprocess.PIPE,
            stderr=subprocess.PIPE,
        )
        for f in files
    ]
    outputs = [p.communicate(timeout=240) for p in procs]
    # Whole stderr on failure: pytest's repr of the byte tuples cut the one line that mattered.
    assert all(p.returncode == 0 for p in procs), "\n".join(o[1].decode() for o in outputs)
    assert sum(json.loads(o[0])["imported"] for o in outputs) == 600
    stats = json.loads(runner.invoke(cli, ["stats", "--json"]).stdout)
    assert stats["messages"] == 600 and stats["vectors"] == 600


def test_search_says_no_close_match_and_loose_shows_the_nearest(
    tmp_path: Path, cli_env: dict[str, str]
) -> None:
    file = write_jsonl(tmp_path / "in.jsonl", [msg(i) for i in range(5)])
    runner.invoke(cli, ["import", "jsonl", str(file)])
    strict = json.loads(runner.invoke(cli, ["search", "xylophone quantum zebra", "--json"]).stdout)
    assert strict["hits"] == [] and strict["no_close_match"] is True
    assert strict["understood"] == {"date": None, "people": [], "channels": []}
    loose = json.loads(runner.invoke(cli, ["search", "xylophone quantum zebra", "--json", "--loose"]).stdout)
    assert loose["hits"] and loose["loose"] is True and "no_close_match" not in loose
    table = runner.invoke(cli, ["search", "zzqxv"])
    assert "no close match" in table.output and "--loose" in table.output
    found = json.loads(runner.invoke(cli, ["search", "release checklist", "--json"]).stdout)
    assert all(0 < h["relevance"] <= 1 for h in found["hits"])
