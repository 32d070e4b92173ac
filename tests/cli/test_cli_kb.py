"""`strata kb …` end to end (in-process runner, real data dir, real files)."""

from __future__ import annotations

import json
import sys
from pathlib import Path

from typer.testing import CliRunner

from app.cli.main import cli

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "knowledge_base"))
import kbfiles

runner = CliRunner()


def test_add_list_search_show_remove(tmp_path: Path, cli_env: dict[str, str]) -> None:
    good = kbfiles.write(
        tmp_path, "plan.docx", kbfiles.docx_bytes([("h1", "Plan"), ("p", "The narwhal budget")])
    )
    deck = kbfiles.write(tmp_path, "deck.pptx", kbfiles.pptx_bytes([("Narwhal", ["tusks"], "notes")]))
    bad = kbfiles.write(tmp_path, "scan.pdf", kbfiles.image_only_pdf_bytes())
    result = runner.invoke(cli, ["kb", "add", str(good), str(deck), str(bad)])
    assert result.exit_code == 1, result.output
    assert "✓ plan.docx →" in result.output and "✓ deck.pptx →" in result.output
    assert "✗ scan.pdf: no extractable text" in result.output
    assert "2 added, 1 failed" in result.output

    listed = json.loads(runner.invoke(cli, ["kb", "list", "--json"]).stdout)
    assert {d["fileName"] for d in listed} == {"plan.docx", "deck.pptx"}
    table = runner.invoke(cli, ["kb", "list"])
    assert table.exit_code == 0 and "plan.docx" in table.output

    found = json.loads(runner.invoke(cli, ["kb", "search", "narwhal", "--json"]).stdout)
    assert found["query"] == "narwhal" and {h["fileName"] for h in found["hits"]} == {
        "plan.docx",
        "deck.pptx",
    }
    plan_id = next(d["id"] for d in listed if d["fileName"] == "plan.docx")
    only = json.loads(runner.invoke(cli, ["kb", "search", "narwhal", "-d", plan_id, "--json"]).stdout)
    assert [h["documentId"] for h in only["hits"]] == [plan_id]
    assert "narwhal" in runner.invoke(cli, ["kb", "search", "narwhal"]).output.lower()

    shown = runner.invoke(cli, ["kb", "show", plan_id])
    assert shown.exit_code == 0 and "The narwhal budget" in shown.stdout
    shown_json = json.loads(runner.invoke(cli, ["kb", "show", plan_id, "--json"]).stdout)
    assert shown_json["content"].startswith("Plan")

    removed = runner.invoke(cli, ["kb", "remove", plan_id])
    assert removed.exit_code == 0 and "removed plan.docx" in removed.output
    missing = runner.invoke(cli, ["kb", "show", plan_id])
    assert missing.exit_code == 1 and "no knowledge-base document" in missing.output


def test_add_json_and_duplicates(tmp_path: Path, cli_env: dict[str, str]) -> None:
    note = kbfiles.write(tmp_path, "n.txt", b"a note about puffins")
    first = json.loads(runner.invoke(cli, ["kb", "add", str(note), "--json"]).stdout)
    assert first[0]["ok"] and first[0]["document"]["fileName"] == "n.txt"
    again = runner.invoke(cli, ["kb", "add", str(note), "--json"])
    assert again.exit_code == 1
    assert json.loads(again.stdout)[0]["error"] == "conflict"


def test_personalize(tmp_path: Path, cli_env: dict[str, str]) -> None:
    result = runner.invoke(cli, ["kb", "personalize", "-p", "Ada", "-t", "gliders", "--about", "pilot"])
    assert result.exit_code == 0 and "memory.txt is" in result.output
    shown = json.loads(runner.invoke(cli, ["kb", "personalize", "--show"]).stdout)
    assert shown["focusPeople"] == ["Ada"] and shown["aboutMe"] == "pilot" and shown["documentId"]
    listed = json.loads(runner.invoke(cli, ["kb", "list", "--json"]).stdout)
    assert [d["fileName"] for d in listed] == ["memory.txt"]
    cleared = runner.invoke(cli, ["kb", "personalize", "--about", ""])
    assert "memory.txt removed" in cleared.output


def test_unified_search_flag(tmp_path: Path, cli_env: dict[str, str]) -> None:
    runner.invoke(cli, ["kb", "add", str(kbfiles.write(tmp_path, "k.txt", b"kestrel migration routes"))])
    result = runner.invoke(cli, ["search", "kestrel migration", "--documents", "--json"])
    assert result.exit_code == 0, result.output
    data = json.loads(result.stdout)
    hits = data["hits"] if isinstance(data, dict) else data
    assert any(h["kind"] == "chunk" and h["channel"] == "k.txt" for h in hits)
