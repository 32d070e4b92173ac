"""`strata import slack|telegram|discord|whatsapp|email PATH [--dry-run] [--json]` end to end."""

from __future__ import annotations

import json
from pathlib import Path

from typer.testing import CliRunner

from app.cli.main import cli
from tests.connectors.importers.builders import build_export

runner = CliRunner()
FIXTURES = Path(__file__).resolve().parents[1] / "connectors" / "importers" / "fixtures"
ANDROID = FIXTURES / "WhatsApp Chat with Trip to Lisbon.txt"


def invoke(*args: str) -> tuple[int, str, str]:
    result = runner.invoke(cli, list(args))
    return result.exit_code, result.stdout, result.stderr


def stats() -> dict[str, object]:
    return json.loads(invoke("stats", "--json")[1])


def test_dry_run_json_previews_and_stores_nothing(cli_env: dict[str, str]) -> None:
    code, out, _ = invoke("import", "whatsapp", str(ANDROID), "--dry-run", "--json", "--tz", "UTC")
    assert code == 0
    data = json.loads(out)
    assert data["dry_run"] is True
    preview = data["preview"]
    assert preview["messages"] == 8
    assert preview["channels"] == {"Trip to Lisbon": 8}
    assert preview["persons"]["Anna"] == 1
    assert (preview["first"], preview["last"]) == ("2022-12-31T23:58:00Z", "2023-01-13T09:20:00Z")
    assert preview["details"]["date order"] == "DMY"
    assert preview["skipped"] == {"deleted message": 1}
    assert len(preview["sample"]) == 5
    assert stats()["messages"] == 0


def test_dry_run_human_preview(cli_env: dict[str, str], tmp_path: Path) -> None:
    code, _, err = invoke("import", "slack", str(build_export(tmp_path)), "--dry-run")
    assert code == 0
    assert "7 messages" in err
    assert "general 6" in err and "team: T0TEAM" in err
    assert "dry run: nothing was stored" in err


def test_import_then_search_then_reimport(cli_env: dict[str, str]) -> None:
    code, out, _ = invoke("import", "telegram", str(FIXTURES / "telegram_account.json"), "--json")
    assert code == 0
    data = json.loads(out)
    assert (data["imported"], data["duplicates"], data["errors"]) == (6, 0, [])
    hits = json.loads(invoke("search", "ramen place", "--json")[1])["hits"]
    assert hits[0]["platform"] == "telegram"
    assert hits[0]["channel"] == "dm:Boris"
    assert hits[0]["message_id"] == "telegram:222:11"
    again = json.loads(invoke("import", "telegram", str(FIXTURES / "telegram_account.json"), "--json")[1])
    assert (again["imported"], again["duplicates"]) == (0, 6)
    assert stats()["messages"] == 6


def test_every_format_command(cli_env: dict[str, str]) -> None:
    for fmt, path in [
        ("discord", FIXTURES / "discord"),
        ("email", FIXTURES / "inbox.mbox"),
        ("whatsapp", ANDROID),
    ]:
        code, out, err = invoke("import", fmt, str(path), "--json")
        assert code == 0, err
        assert json.loads(out)["imported"] > 0
    assert set(stats()["by_platform"]) == {"discord", "email", "whatsapp"}  # type: ignore[arg-type]


def test_human_import_output(cli_env: dict[str, str]) -> None:
    code, _, err = invoke("import", "email", str(FIXTURES / "single.eml"))
    assert code == 0
    assert "single.eml (email): 1 messages" in err
    assert "imported 1" in err


def test_malformed_file_is_a_clear_error(cli_env: dict[str, str], tmp_path: Path) -> None:
    bad = tmp_path / "result.json"
    head = '{"name": "X", "type": "personal_chat", "id": 1, "messages": [\n'
    bad.write_text(head + '{"id": 1, "date_unixtime": "1", "text": "hi"},\n')
    code, _, err = invoke("import", "telegram", str(bad))
    assert code == 1
    assert "result.json, line 3" in err and "truncated" in err
    assert "nothing was imported" in err
    assert stats()["messages"] == 0


def test_bad_options(cli_env: dict[str, str]) -> None:
    code, _, err = invoke("import", "whatsapp", str(ANDROID), "--date-order", "XYZ")
    assert code == 1 and "--date-order" in err
    code, _, err = invoke("import", "whatsapp", str(ANDROID), "--tz", "Nowhere/Land")
    assert code == 1 and "unknown time zone" in err
    code, _, _ = invoke("import", "slack", "/no/such/file.zip")
    assert code == 2  # typer refuses a missing path before anything runs


def test_twelve_hour_whatsapp_with_midnight_and_a_bad_line(cli_env: dict[str, str], tmp_path: Path) -> None:
    """Issue 20's report: `00:08 a. m.` parses, an impossible line is listed, the rest imports."""
    chat = tmp_path / "WhatsApp Chat with Familia.txt"
    chat.write_text(
        "28/3/2025, 11:58\u202fp.\u00a0m. - Ana: ¿Seguís despiertos?\n"
        "29/3/2025, 00:08 a.\u00a0m. - Luis: Sí [bold]acá[/bold]\n"
        "29/3/2025, 13:10 a. m. - Ana: hora imposible\n"
        "29/3/2025, 1:23 a. m. - Ana: Me voy a dormir\n",
        encoding="utf-8",
    )
    code, _, err = invoke("import", "whatsapp", str(chat), "--dry-run", "--tz", "UTC")
    assert code == 0, err
    assert "3 messages" in err
    assert "skipped WhatsApp Chat with Familia.txt, line 3: hour 13 is impossible with AM" in err
    code, out, _ = invoke("import", "whatsapp", str(chat), "--json", "--tz", "UTC")
    data = json.loads(out)
    assert data["imported"] == 3 and [e["line"] for e in data["errors"]] == [3]
    assert data["preview"]["errors"][0]["reason"].endswith("the message was skipped")
    hits = json.loads(invoke("search", "acá", "--json")[1])["hits"]
    assert hits[0]["timestamp"] == 1743206880000  # 2025-03-29T00:08:00Z
