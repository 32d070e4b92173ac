"""After the LanceDB folder is lost, `strata doctor --repair` brings back every kind's vectors."""

from __future__ import annotations

import json
import shutil
from pathlib import Path

from typer.testing import CliRunner

from app.bootstrap import Services, build_services
from app.cli.main import cli
from app.core.clock import DAY_MS, FixedClock
from app.core.domain import RawMessage, SearchFilters
from app.core.embeddings.hashing import HashingEmbedder
from app.core.settings import EmbeddingSettings, InsightSettings, Settings

NOW = 1_772_409_600_000  # 2026-03-02, so ten-day-old messages are due for forgetting
runner = CliRunner()
POLICY = "Vacation policy: everyone gets thirty days of leave."


def seed_every_kind(settings: Settings) -> Services:
    """Messages, summaries (a forgetting run), insights (rule extraction) and a document."""
    svc = build_services(settings, clock=FixedClock(NOW), embedder=HashingEmbedder())
    messages = [
        RawMessage(
            platform="slack",
            message_id=f"d{day}-{i}",
            channel="general",
            person="alice",
            timestamp=NOW - day * DAY_MS - 12 * 3_600_000 + i * 60_000,
            content=f"note {i} about the heron project on day {day}",
        )
        for day in (10, 11, 12)
        for i in range(3)
    ]
    messages += [
        RawMessage(platform="slack", message_id="x1", channel="launch", person="bob",
                   timestamp=NOW - 3_600_000, content="We decided to ship the beta on Friday."),
        RawMessage(platform="slack", message_id="x2", channel="launch", person="bob",
                   timestamp=NOW - 3_500_000, content="@alex can you review the budget by Monday?"),
        RawMessage(platform="slack", message_id="x3", channel="launch", person="bob",
                   timestamp=NOW - 3_400_000,
                   content="The beta build passed every test. My demo for the board is ready."),
    ]  # fmt: skip
    svc.memory.ingest(messages)
    assert svc.memory.keys is not None
    svc.memory.keys.wait()  # sentence keys, built in the background
    assert svc.forgetting.run().summary_ids
    assert svc.insights.generate().created
    svc.knowledge.add_bytes(POLICY.encode(), "handbook.txt")
    return svc


def test_doctor_repair_rebuilds_every_kind_after_the_vectors_folder_is_lost(
    data_dir: Path, cli_env: dict[str, str]
) -> None:
    settings = Settings(
        data_dir=data_dir,
        embedding=EmbeddingSettings(provider="hashing"),
        insights=InsightSettings(identities=["alex"]),
    )
    svc = seed_every_kind(settings)
    before = {r.kind: (r.rows, r.vectors) for r in svc.index.verify()}
    assert all(rows > 0 and rows == vectors for rows, vectors in before.values()), before
    vectors_dir = settings.layout.vectors
    svc.close()
    shutil.rmtree(vectors_dir)

    lost = json.loads(runner.invoke(cli, ["kb", "search", POLICY, "--json"]).stdout)
    assert lost["hits"] and lost["hits"][0]["similarity"] is None  # found by its words only

    doctor = runner.invoke(cli, ["doctor", "--repair", "--json"])
    assert doctor.exit_code == 0, doctor.output
    report = json.loads(doctor.stdout)
    kinds = {k["kind"]: k for k in report["kinds"]}
    assert set(kinds) == {"message", "summary", "insight", "chunk", "message_key"}
    for kind, (rows, _) in before.items():
        assert kinds[kind]["reembedded"] == rows, kinds[kind]
        assert kinds[kind]["vectors"] == rows

    again = json.loads(runner.invoke(cli, ["doctor", "--json"]).stdout)
    assert all(k["reembedded"] == 0 and k["missing"] == 0 for k in again["kinds"])
    found = json.loads(runner.invoke(cli, ["kb", "search", POLICY, "--json"]).stdout)
    assert found["hits"][0]["similarity"] > 0.99

    svc = build_services(settings, clock=FixedClock(NOW), embedder=HashingEmbedder())
    try:
        assert svc.insights.search("ship the beta")
        assert svc.forgetting.summaries.search("local", "heron project", SearchFilters(), 5)
    finally:
        svc.close()


def test_doctor_prints_one_line_per_kind(cli_env: dict[str, str]) -> None:
    out = runner.invoke(cli, ["doctor"])
    assert out.exit_code == 0, out.output
    for name in ("messages", "summaries", "insights", "documents", "sentence keys"):
        assert f"index: {name}" in out.output


def test_doctor_says_whether_an_approximate_vector_index_serves_each_kind(cli_env: dict[str, str]) -> None:
    out = runner.invoke(cli, ["doctor"])
    assert out.exit_code == 0, out.output
    assert "vector index: messages: exact search, 0 vector(s) (index from " in out.output
    body = json.loads(runner.invoke(cli, ["doctor", "--json"]).stdout)
    kinds = {k["kind"]: k for k in body["kinds"]}
    assert set(kinds) == {"message", "summary", "insight", "chunk", "message_key"}
    for kind in kinds.values():
        ann = kind["vector_index"]
        assert ann["approximate"] is False and ann["index_type"] is None and ann["indexed_rows"] == 0
        assert "rows" in kind and "missing" in kind  # the existing fields stay as they were
