"""Import use case end to end: real SQLite + LanceDB, every format into search, no-op re-import."""

from __future__ import annotations

import json
import shutil
from pathlib import Path

import pytest

from app.bootstrap import Services
from app.core.domain import RawMessage, SearchFilters
from app.core.errors import InvalidInput
from app.services.import_service import ImportOptions
from connectors.ids import telegram_message_id
from tests.connectors.importers.builders import build_export

FIXTURES = Path(__file__).resolve().parents[1] / "connectors" / "importers" / "fixtures"
ANDROID = FIXTURES / "WhatsApp Chat with Trip to Lisbon.txt"


def count(services: Services) -> int:
    return int(services.memory.stats()["messages"])


@pytest.mark.parametrize(
    ("fmt", "path", "query", "platform", "channel", "person"),
    [
        (
            "telegram",
            FIXTURES / "telegram_single.json",
            "Left Hand of Darkness",
            "telegram",
            "Book Club",
            "Anna Petrova",
        ),
        ("discord", FIXTURES / "discord", "flaky test in CI", "discord", "general", "tomas"),
        ("whatsapp", ANDROID, "Flights are booked", "whatsapp", "Trip to Lisbon", "Anna"),
        (
            "email",
            FIXTURES / "inbox.mbox",
            "please send numbers by Wednesday",
            "email",
            "root-1@example.org",
            "Anna Pétrova",
        ),
    ],
)
def test_each_format_lands_in_search(
    services: Services, fmt: str, path: Path, query: str, platform: str, channel: str, person: str
) -> None:
    report = services.imports.run(fmt, path, ImportOptions(tz="UTC"))
    assert report.result is not None
    assert report.result.imported == report.preview.messages > 0
    assert not report.result.errors
    hits = services.memory.search(query, SearchFilters(platforms=(platform,)), 3)
    assert hits, f"{fmt}: nothing found for {query!r}"
    top = hits[0]
    assert (top.platform, top.channel, top.person) == (platform, channel, person)
    assert query.split()[-1].lower() in top.content.lower()


def test_slack_export_into_search_and_reimport_is_noop(services: Services, tmp_path: Path) -> None:
    path = build_export(tmp_path)
    first = services.imports.run("slack", path)
    assert first.result is not None and first.result.imported == 7
    hits = services.memory.search("has the notes", SearchFilters(channels=("general",)), 3)
    assert hits[0].person == "anna"
    assert "@Bob Stone" in hits[0].content
    services.processor.backlog.wait(timeout_s=30)  # the vectors come in the background
    before = services.memory.stats()
    again = services.imports.run("slack", path)
    assert again.result is not None
    assert (again.result.imported, again.result.updated, again.result.duplicates) == (0, 0, 7)
    assert services.memory.stats() == before


def test_detects_format_and_reports_progress(services: Services) -> None:
    seen: list[tuple[str, int, int | None]] = []
    report = services.imports.run(
        None, FIXTURES / "telegram_account.json", progress=lambda *a: seen.append(a)
    )
    assert report.format == "telegram"
    assert seen[0] == ("scan", 6, 6)
    assert seen[-1] == ("store", 6, 6)


def test_dry_run_stores_nothing(services: Services) -> None:
    report = services.imports.run("whatsapp", ANDROID, ImportOptions(tz="UTC"), dry_run=True)
    assert report.result is None
    assert report.preview.messages == 8
    assert dict(report.preview.channels) == {"Trip to Lisbon": 8}
    assert count(services) == 0
    data = report.to_dict()
    assert data["dry_run"] is True and "imported" not in data
    json.dumps(data)


def test_unrecognized_file_imports_nothing(services: Services, tmp_path: Path) -> None:
    chat = tmp_path / "notes.txt"
    chat.write_text("shopping list\nmilk\n", encoding="utf-8")
    with pytest.raises(InvalidInput, match=r"notes\.txt, line 1"):
        services.imports.run("whatsapp", chat, ImportOptions(tz="UTC"))
    assert count(services) == 0


def test_broken_slack_day_file_is_reported_and_the_rest_imports(services: Services, tmp_path: Path) -> None:
    path = build_export(tmp_path, extra={"random/2020-09-13.json": '[{"ts": "1.0", "text": oops}]'})
    report = services.imports.run("slack", path)
    assert report.result is not None and report.result.imported == 6  # 7 minus the broken day's one
    (error,) = report.result.errors
    assert "random/2020-09-13.json line 1: invalid JSON" in error.reason


def test_bad_line_of_a_recognized_file_is_reported_and_the_rest_imports(
    services: Services, tmp_path: Path
) -> None:
    chat = tmp_path / "chat.txt"
    lines = ANDROID.read_text(encoding="utf-8").splitlines()
    chat.write_text("\n".join([*lines, "30/02/2023, 10:00 - Anna: impossible day"]) + "\n", encoding="utf-8")
    preview = services.imports.preview("whatsapp", chat, ImportOptions(tz="UTC"))
    assert preview.messages == 8
    (skipped,) = preview.to_dict()["errors"]
    assert skipped["line"] == 13 and skipped["reason"].startswith("chat.txt, line 13: impossible date")
    report = services.imports.run("whatsapp", chat, ImportOptions(tz="UTC"))
    assert report.result is not None and report.result.imported == 8
    assert [e.line for e in report.result.errors] == [13]
    assert count(services) == 8


def test_telegram_export_without_ids_reimports_as_a_noop(services: Services, tmp_path: Path) -> None:
    chat = {
        "name": "Family",
        "type": "private_group",
        "messages": [
            {"date_unixtime": str(1677664800 + n // 2), "from": "Mum", "text": f"line {n // 2}"}
            for n in range(6)  # every message twice: identical repeats must both land
        ],
    }
    path = tmp_path / "result.json"
    path.write_text(json.dumps({"chats": {"list": [chat]}}))
    first = services.imports.run("telegram", path)
    assert first.result is not None and first.result.imported == 6
    assert "derived" in dict(first.preview.details)["message ids"]
    again = services.imports.run("telegram", path)
    assert again.result is not None
    assert (again.result.imported, again.result.updated, again.result.duplicates) == (0, 0, 6)
    assert count(services) == 6


def test_telegram_export_and_live_ids_never_duplicate(services: Services) -> None:
    # What the live bot connector stores for the same supergroup: Bot API chat id -100<id>.
    live = [
        RawMessage(
            platform="telegram",
            message_id=telegram_message_id(-1001554871234, n),
            channel="Book Club",
            person=person,
            timestamp=ts,
            content=text,
        )
        for n, person, ts, text in [
            (2, "Anna Petrova", 1677665100_000, "Next book: The Left Hand of Darkness"),
            (5, "Deleted Account", 1677781860_000, "Meeting schedule attached\n[file: schedule.pdf]"),
            (8, "Boris", 1677900000_000, "a newer message the export does not have"),
        ]
    ]
    assert services.memory.ingest(live).imported == 3
    report = services.imports.run("telegram", FIXTURES / "telegram_single.json")
    assert report.result is not None
    assert report.result.imported == 4  # 6 in the export, 2 already there from the live sync
    assert report.result.duplicates + report.result.updated == 2
    assert count(services) == 7
    hits = services.memory.search("Left Hand of Darkness", None, 10)
    assert len([h for h in hits if "Left Hand" in h.content and h.platform == "telegram"]) == 1


def test_unknown_zone_is_rejected(services: Services) -> None:
    with pytest.raises(InvalidInput, match="unknown time zone"):
        services.imports.run("whatsapp", ANDROID, ImportOptions(tz="Mars/Olympus"))


def test_messages_belong_to_the_configured_user(services: Services, tmp_path: Path) -> None:
    folder = tmp_path / "export"
    folder.mkdir()
    shutil.copy(FIXTURES / "single.eml", folder / "a.eml")
    services.imports.run("email", folder)
    assert services.memory.stats()["by_platform"] == {"email": 1}
    hit = services.memory.search("concert tickets", None, 1)[0]
    assert services.memory.get(int(hit.id)).user_id == services.settings.user_id


def test_jsonl_goes_through_the_import_path_deferred_and_owned(services: Services, tmp_path: Path) -> None:
    lines = [
        json.dumps({"platform": "slack", "message_id": "j1", "channel": "ops", "person": "ana",
                    "timestamp": 1700000000000, "content": "the gazebo permit arrived"}),
        "{broken",
        json.dumps({"platform": "slack", "message_id": "j2", "channel": "ops", "person": "ben",
                    "user_id": "someone-else", "timestamp": 1700000001000, "content": "gazebo paint"}),
    ]  # fmt: skip
    path = tmp_path / "archive.jsonl"
    path.write_text("\n".join(lines) + "\n", encoding="utf-8")
    services.processor.backlog.autostart = False
    report = services.imports.run("jsonl", path)
    assert report.preview.messages == 2 and report.result is not None and report.result.imported == 2
    assert [e.reason.split(":")[0] for e in report.result.errors] == ["archive.jsonl, line 2"]
    assert services.memory.embedding_backlog()["pending"] == 2  # vectors left to the backlog
    # The line naming another user is stored as the app's user's: the desktop app shows it.
    assert {h.person for h in services.memory.search("gazebo", limit=5)} == {"ana", "ben"}
    again = services.imports.run("jsonl", path)
    assert again.result is not None and (again.result.imported, again.result.duplicates) == (0, 2)
