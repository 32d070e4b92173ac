"""`strata files` end to end on a real data dir: refresh, list, show, search, edit, and path escapes."""

from __future__ import annotations

import json
import sys
from pathlib import Path

import pytest
from typer.testing import CliRunner

from app.cli.main import cli
from app.core.paths import resource_path
from tests.conftest import PROJECT_ROOT

runner = CliRunner()


def run(*args: str) -> object:
    result = runner.invoke(cli, list(args))
    return result


@pytest.fixture
def archive(cli_env, data_dir):
    demo = resource_path("demo", "conversation.jsonl")
    assert run("import", "jsonl", str(demo)).exit_code == 0
    result = run("files", "refresh")
    assert result.exit_code == 0, result.output
    return data_dir / "memory"


def test_refresh_list_show_and_search(archive):
    listed = json.loads(run("files", "list", "--dir", "people", "--json").stdout)
    paths = [f["path"] for f in listed["files"]]
    assert "people/anna.md" in paths and all(p.startswith("people/") for p in paths)
    shown = run("files", "show", "people/anna")
    assert shown.exit_code == 0 and "# anna" in shown.stdout and "[[channels/slack-launch" in shown.stdout
    found = json.loads(run("files", "search", "FORECAST sheet", "--json").stdout)
    assert "people/anna.md" in [h["path"] for h in found["hits"]]
    assert found["hits"][0]["snippets"]


def test_an_edit_outside_the_fences_survives_refresh(archive):
    page = archive / "people" / "anna.md"
    page.write_text(page.read_text() + "Anna prefers calls before 11.\n")
    result = run("files", "refresh", "people/anna.md", "--json")
    assert result.exit_code == 0, result.output
    assert page.read_text().endswith("Anna prefers calls before 11.\n")
    assert "people/anna.md" in [
        h["path"] for h in json.loads(run("files", "search", "before 11", "--json").stdout)["hits"]
    ]


def test_edit_opens_the_editor_on_the_confined_file(archive, tmp_path, monkeypatch):
    script = tmp_path / "editor.py"
    script.write_text("import sys\nopen(sys.argv[1], 'a').write('written in the editor\\n')\n")
    monkeypatch.setenv("EDITOR", f"{sys.executable} {script}")
    monkeypatch.delenv("VISUAL", raising=False)
    result = run("files", "edit", "strategy/2027.md")
    assert result.exit_code == 0, result.output
    assert (archive / "strategy" / "2027.md").read_text() == "# 2027\n\nwritten in the editor\n"
    missing = run("files", "edit", "people/nobody.md")
    assert missing.exit_code == 1 and "refresh" in missing.output


@pytest.mark.parametrize(
    "path",
    ["../strata.sqlite3", "/etc/passwd", "people/../../api-token", "..\\api-token", "notes/.hidden.md"],
)
def test_path_escapes_fail_with_a_clear_error(archive, path):
    for command in (["files", "show", path], ["files", "refresh", path], ["files", "edit", path]):
        result = run(*command)
        assert result.exit_code == 1, (command, result.output)
        assert "error:" in result.output and "Traceback" not in result.output


def test_a_symlink_out_of_the_folder_is_not_followed(archive, data_dir):
    (archive / "notes" / "token.md").symlink_to(data_dir / "api-token")
    assert "token.md" not in run("files", "list", "--json").stdout
    result = run("files", "show", "notes/token.md")
    assert result.exit_code == 1 and "outside" in result.output


def test_list_before_any_refresh_says_what_to_do(cli_env, data_dir: Path):
    result = run("files", "list")
    assert result.exit_code == 0 and "strata files refresh" in result.output


def test_after_importing_a_chat_export_a_person_page_is_readable(cli_env, data_dir):
    export = PROJECT_ROOT / "tests/connectors/importers/fixtures/WhatsApp Chat with Trip to Lisbon.txt"
    assert run("import", "whatsapp", str(export)).exit_code == 0
    assert run("files", "refresh").exit_code == 0
    page = run("files", "show", "people/ben.md")
    assert page.exit_code == 0, page.output
    text = page.stdout
    assert "# Ben" in text and "[[channels/whatsapp-trip-to-lisbon|Trip to Lisbon (whatsapp)]]" in text
    assert "Fireworks from the roof" in text and "strata://message/" in text
    listed = [f["path"] for f in json.loads(run("files", "list", "--json").stdout)["files"]]
    assert "people/whatsapp.md" not in listed  # the export's own notices are nobody's page
