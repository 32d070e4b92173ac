"""Rule-based summaries: informative key points, no redundancy, real keywords, quality in 0–1."""

from __future__ import annotations

from app.core.clock import DAY_MS, HOUR_MS
from forgetting.summarizer import RuleBasedSummarizer, extract_keywords, quality, select_key_points

CHATTER = ["ok", "thanks!", "lol", "sounds good", "👍"]
FACTS = [
    "We decided to move the billing database migration to next Tuesday because the vendor slipped.",
    "The deadline for the billing migration is Tuesday; Carol owns the rollback plan and the runbook.",
    "Dave found a bug in the invoice export: totals are rounded twice when the currency is JPY.",
    "The billing migration will move the billing database to next Tuesday after the vendor slipped.",
    "Marketing wants the launch email scheduled for Thursday morning in every European timezone.",
]


def _records(make_record, texts: list[str]):
    return tuple(make_record(age_ms=10 * DAY_MS - i * HOUR_MS, content=t) for i, t in enumerate(texts))


def test_key_points_prefer_information_over_position(make_record) -> None:
    records = _records(make_record, CHATTER + FACTS)
    points = select_key_points(records, 5)
    texts = [p.text for p in points]
    assert not set(texts) & set(CHATTER)
    assert any("JPY" in t for t in texts)
    assert any("launch email" in t for t in texts)
    for point in points:
        assert len(point.source_ids) >= 1
        assert {r.id for r in records} >= set(point.source_ids)


def test_near_duplicates_are_not_both_chosen(make_record) -> None:
    records = _records(make_record, FACTS)
    texts = [p.text for p in select_key_points(records, 5)]
    assert not (FACTS[0] in texts and FACTS[3] in texts)


def test_identical_sentences_merge_with_all_sources(make_record) -> None:
    same = "The release is blocked by the flaky payment integration test."
    records = _records(make_record, [same, same, "Unrelated note about the office coffee machine today."])
    points = select_key_points(records, 5)
    merged = next(p for p in points if p.text == same)
    assert merged.source_ids == (records[0].id, records[1].id)


def test_keywords_come_from_yake(make_record) -> None:
    keywords = extract_keywords(FACTS, 8)
    assert any("billing" in k for k in keywords)
    assert len(keywords) == len(set(keywords)) <= 8
    cjk = extract_keywords(["我们决定周五发布版本。数据库迁移的截止日期是下周。数据库迁移很重要。"], 5)
    assert "数据" in cjk


def test_summary_draft_shape_and_quality(make_record) -> None:
    informative = RuleBasedSummarizer().summarize(_records(make_record, FACTS))
    chatter = RuleBasedSummarizer().summarize(_records(make_record, CHATTER))
    assert informative.summary_text.startswith("5 messages on slack #general with alice")
    assert "Key points:" in informative.summary_text
    assert informative.keywords_text == " ".join(informative.keywords)
    assert 0.0 <= chatter.quality_score < informative.quality_score <= 1.0
    assert informative.summarizer == "rules"


def test_empty_and_archived_content(make_record) -> None:
    records = _records(make_record, ["", "   ", ""])
    draft = RuleBasedSummarizer().summarize(records)
    assert draft.key_points == ()
    assert draft.quality_score == 0.0
    assert draft.summary_text.startswith("3 messages")
    assert quality((), (), records) == 0.0


def test_long_sentences_are_clipped(make_record) -> None:
    long = "word " * 200 + "end."
    draft = RuleBasedSummarizer().summarize(
        _records(make_record, [long, long + " extra", "another topic entirely here"])
    )
    assert all(len(p.text) <= 280 for p in draft.key_points)
    assert len(draft.summary_text) <= 1200
