"""Export round-trips into an empty data dir; a backup taken during an import restores consistently."""

from __future__ import annotations

import json
import os
import sqlite3
import subprocess
import sys
import time
from pathlib import Path

import pytest
from sqlalchemy import update
from typer.testing import CliRunner

from app.bootstrap import build_services
from app.cli.main import cli
from app.core.clock import SystemClock
from app.core.embeddings.hashing import HashingEmbedder
from app.core.jsonl import parse_jsonl
from app.core.paths import resource_path
from app.core.settings import EmbeddingSettings, Settings
from app.core.storage.models import RawMessageRow
from forgetting import schedule
from tests.conftest import PROJECT_ROOT

runner = CliRunner()
QUERIES = ("launch date", "press kit legal review", "status page", "budget", "family dinner", "deploy")


def _open(data_dir: Path, clock):
    settings = Settings(data_dir=data_dir, embedding=EmbeddingSettings(provider="hashing"))
    return build_services(settings, clock=clock, embedder=HashingEmbedder())


def _messages(svc) -> list[tuple]:
    with svc.db.read() as session:
        rows = session.query(RawMessageRow).order_by(RawMessageRow.id).all()
        return [
            (
                r.id,
                r.platform,
                r.message_id,
                r.channel,
                r.person,
                r.timestamp,
                r.content,
                r.attachments,
                r.bot_id,
            )
            for r in rows
        ]


def _results(svc) -> list[list[tuple[str, str]]]:
    return [[(h.platform, h.message_id or "") for h in svc.memory.search(q, limit=8)] for q in QUERIES]


def test_export_reimports_to_the_same_messages_and_search_results(tmp_path, clock, cli_env) -> None:
    source = _open(tmp_path / "a", clock)
    try:
        demo = resource_path("demo", "conversation.jsonl").read_text(encoding="utf-8").splitlines()
        source.memory.ingest(parse_jsonl(demo))
        doc = tmp_path / "notes.md"
        doc.write_text("# Notes\n\nThe offsite is in Porto.\n", encoding="utf-8")
        source.knowledge.add_file(doc)
        source.insights.generate()
        source.memory.keys.wait()  # sentence keys (background): the copy's import waits for them too
        report = source.exports.export(tmp_path / "export")
        expected_messages, expected_results = _messages(source), _results(source)
    finally:
        source.close()
    assert report.counts["messages"] == 24 and report.counts["documents"] == 1
    folder = tmp_path / "export"
    assert (
        folder
        / "knowledge_base"
        / json.loads((folder / "knowledge_base/documents.jsonl").read_text())["file"]
    ).read_bytes() == doc.read_bytes()
    settings = json.loads((folder / "settings.json").read_text())
    assert "embedding" in settings and not any("key" in k.lower() for k in settings.get("llm", {}))
    assert report.counts["insights"] == len((folder / "insights.jsonl").read_text().splitlines()) > 0

    target = tmp_path / "b"
    out = runner.invoke(
        cli, ["--data-dir", str(target), "import", "jsonl", str(folder / "messages.jsonl"), "--json"]
    )
    assert out.exit_code == 0, out.output
    assert json.loads(out.stdout)["imported"] == 24
    copy = _open(target, clock)
    try:
        assert _messages(copy) == expected_messages
        assert _results(copy) == expected_results
    finally:
        copy.close()


def test_export_keeps_archived_text_and_refuses_to_overwrite(services, tmp_path) -> None:
    services.memory.ingest(
        parse_jsonl(
            [
                '{"platform":"note","message_id":"n1","timestamp":"2024-01-01T00:00:00Z",'
                '"content":"old secret plan"}'
            ]
        )
    )
    with services.db.write() as session:
        session.execute(update(RawMessageRow).values(archived_at=2))
    services.exports.export(tmp_path / "out")
    [line] = (tmp_path / "out" / "messages.jsonl").read_text().splitlines()
    assert json.loads(line)["content"] == "old secret plan"
    with pytest.raises(Exception, match="not an empty folder"):
        services.exports.export(tmp_path / "out")


IMPORT_LINES = 3000


def test_backup_during_an_import_restores_to_a_consistent_store(tmp_path, clock, cli_env) -> None:
    source_dir, backup_dir, restored_dir = tmp_path / "live", tmp_path / "snap", tmp_path / "restored"
    feed = tmp_path / "feed.jsonl"
    with feed.open("w", encoding="utf-8") as handle:
        for i in range(IMPORT_LINES):
            line = {
                "platform": "slack",
                "message_id": f"b{i}",
                "channel": f"c{i % 7}",
                "person": f"p{i % 5}",
                "timestamp": 1_700_000_000_000 + i * 1000,
                "content": f"backup probe message {i} about topic {i % 13}",
            }
            handle.write(json.dumps(line) + "\n")
    _open(source_dir, clock).close()  # create and migrate the store first
    env = {**os.environ, "STRATA_DATA_DIR": str(source_dir), "STRATA_EMBEDDING__PROVIDER": "hashing"}
    importer = subprocess.Popen(
        [sys.executable, "-m", "app", "import", "jsonl", str(feed), "--json"],
        cwd=PROJECT_ROOT,
        env=env,
        stdout=subprocess.PIPE,
        stderr=subprocess.DEVNULL,
    )
    try:
        deadline = time.monotonic() + 60
        while _count(source_dir / "strata.sqlite3") == 0 and time.monotonic() < deadline:
            time.sleep(0.05)
        live = _open(source_dir, clock)
        try:
            report = live.exports.backup(backup_dir)
        finally:
            live.close()
        assert importer.wait(timeout=120) == 0
    finally:
        if importer.poll() is None:
            importer.kill()
    assert 0 < report.messages <= IMPORT_LINES
    out = runner.invoke(cli, ["--data-dir", str(restored_dir), "restore", str(backup_dir), "--json"])
    assert out.exit_code == 0, out.output
    restored = json.loads(out.stdout)
    assert restored["messages"] == report.messages == restored["vectors"]
    svc = _open(restored_dir, clock)
    try:
        with svc.db.read() as session:
            conn = session.connection()
            assert conn.exec_driver_sql("PRAGMA integrity_check").scalar() == "ok"
            ids = [r[0] for r in conn.exec_driver_sql("SELECT id FROM raw_messages ORDER BY id")]
            fts = conn.exec_driver_sql("SELECT count(*) FROM messages_fts").scalar()
        # Batches are atomic: the snapshot holds whole batches, numbered without gaps, all indexed.
        assert ids == list(range(1, len(ids) + 1)) and fts == len(ids)
        assert len(ids) % 256 == 0 or len(ids) == IMPORT_LINES
        assert svc.processor.repair(full=True).reembedded == 0
        hits = svc.memory.search("backup probe message 1", limit=3)
        assert hits and all(h.platform == "slack" for h in hits)
    finally:
        svc.close()


def test_restore_refuses_a_non_empty_data_dir_without_force(services, tmp_path, cli_env) -> None:
    services.exports.backup(tmp_path / "snap")
    busy = tmp_path / "busy"
    busy.mkdir()
    (busy / "strata.sqlite3").write_bytes(b"mine")
    refused = runner.invoke(cli, ["--data-dir", str(busy), "restore", str(tmp_path / "snap")])
    said = " ".join(refused.output.split())
    assert refused.exit_code == 1 and "is not empty" in said and "--force" in said
    assert (busy / "strata.sqlite3").read_bytes() == b"mine"
    forced = runner.invoke(
        cli, ["--data-dir", str(busy), "restore", str(tmp_path / "snap"), "--force", "--json"]
    )
    assert forced.exit_code == 0, forced.output
    moved = Path(json.loads(forced.stdout)["previousDataMovedTo"])
    assert (moved / "strata.sqlite3").read_bytes() == b"mine"  # nothing lost
    not_a_backup = runner.invoke(cli, ["--data-dir", str(tmp_path / "new"), "restore", str(busy)])
    assert not_a_backup.exit_code == 1 and "not a Strata backup" in " ".join(not_a_backup.output.split())


def _count(database: Path) -> int:
    try:
        conn = sqlite3.connect(f"file:{database}?mode=ro", uri=True, timeout=5)
        try:
            return int(conn.execute("SELECT count(*) FROM raw_messages").fetchone()[0])
        finally:
            conn.close()
    except sqlite3.Error:
        return 0


def test_restore_refuses_while_strata_runs_on_the_data_dir(services, tmp_path, cli_env) -> None:
    services.exports.backup(tmp_path / "snap")
    # This process registers as the scheduler host, as the app or `strata serve` does.
    schedule.record(services.db, SystemClock(), interval_minutes=60, next_run_at=SystemClock().now_ms() + 1)
    root = services.layout.root
    refused = runner.invoke(cli, ["--data-dir", str(root), "restore", str(tmp_path / "snap"), "--force"])
    said = " ".join(refused.output.split())
    assert refused.exit_code == 1 and "Strata is running on" in said and "then restore" in said
    assert (root / "strata.sqlite3").exists() and not list(tmp_path.glob("data.before-restore-*"))
