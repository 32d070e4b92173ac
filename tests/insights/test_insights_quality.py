"""The issue-18 quality goals hold on both labelled sets (tests/benchmarks/insights_quality), through
the whole path a user runs: ingest → generate → list. Figures: bench_insights_quality.py."""

from __future__ import annotations

from pathlib import Path

import pytest

from tests.benchmarks.bench_insights_quality import build, run
from tests.benchmarks.insights_quality import harness


@pytest.mark.parametrize("path", [harness.SET_FILE, harness.HELDOUT_FILE], ids=["tuning", "heldout"])
def test_quality_goals(tmp_path: Path, path: Path) -> None:
    scenarios = harness.load(path)
    assert len(scenarios) >= (40 if path == harness.SET_FILE else 15)
    services = build(tmp_path / "data", model=False)
    try:
        report = harness.score(scenarios, run(services, scenarios))
    finally:
        services.close()
    assert report.precision >= 0.85, [k.false for k in report.kinds.values()]
    for kind in ("decision", "commitment"):
        assert report.kinds[kind].recall >= 0.70, report.kinds[kind].misses
    assert report.owner_ok / report.owner_n >= 0.9, report.owner_wrong
    assert report.per_item <= 1.1, report.duplicates
    assert report.closed_ok / report.closed_n >= 0.8, report.not_closed


def test_the_set_is_well_formed() -> None:
    for path in (harness.SET_FILE, harness.HELDOUT_FILE):
        scenarios = harness.load(path)
        ids = [m.message_id for s in scenarios for m in s.messages]
        assert len(ids) == len(set(ids))
        platforms = {m.platform for s in scenarios for m in s.messages}
        assert {
            "slack",
            "discord",
            "telegram",
            "whatsapp",
            "email",
        } <= platforms or path == harness.HELDOUT_FILE
        for s in scenarios:
            known = {m.message_id for m in s.messages}
            for item in s.items:
                assert item.anchors <= known, (s.id, item)
