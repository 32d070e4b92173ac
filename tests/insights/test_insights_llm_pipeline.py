"""The LLM path goes through the same merge, owner and lifecycle logic as the rules: the real
LLMExtractor and `openai` SDK against the local fake server, the real pipeline on real SQLite."""

from __future__ import annotations

from datetime import UTC, datetime

from test_insights_llm import FakeOpenAI, fake  # noqa: F401  (the fake server and its fixture)

from app.bootstrap import build_services
from app.core.clock import DAY_MS, HOUR_MS, FixedClock, datetime_to_ms
from app.core.domain import RawMessage
from app.core.embeddings.hashing import HashingEmbedder
from app.core.settings import InsightSettings, LLMSettings, Settings
from app.services.insights_service import build_insights_service
from tests.core.llm.factory import guarded_llm

T0 = datetime_to_ms(datetime(2026, 2, 16, 9, 0, tzinfo=UTC))
DECISION = {
    "kind": "decision", "title": "Drop offline mode in v2", "description": "offline mode is cut from v2",
    "importance": "medium", "urgency": "low", "taskLabel": "decision", "owner": None, "due": None,
    "status": "open",
}  # fmt: skip
TASK = {
    "kind": "action_item", "title": "Ben reviews the security questionnaire",
    "description": "Ben will review the questionnaire", "importance": "high", "urgency": "medium",
    "taskLabel": "follow_up", "owner": "ben", "due": None, "status": "open",
}  # fmt: skip


def test_llm_drafts_are_merged_owned_and_closed(settings: Settings, fake: FakeOpenAI) -> None:  # noqa: F811
    settings = settings.model_copy(
        update={
            "llm": LLMSettings(enabled=True, model="gpt-test"),
            "insights": InsightSettings(identities=["alex"]),
        }
    )
    svc = build_services(settings, clock=FixedClock(T0 + 10 * DAY_MS), embedder=HashingEmbedder())
    try:
        insights = build_insights_service(
            settings, db=svc.db, vectors=svc.vectors, embedder=svc.embedder, keywords=svc.keywords,
            clock=svc.clock, llm=guarded_llm(fake.base_url, svc.db, svc.clock),
        )  # fmt: skip
        assert svc.connectors is not None
        svc.connectors.identities.merge([("slack", "ben"), ("email", "Ben Ortiz")], display_name="Ben Ortiz")
        svc.memory.ingest(
            [
                RawMessage(platform="email", message_id="e1", channel="inbox", person="Maria Lopez",
                           timestamp=T0, content="We are dropping offline mode from v2."),
                RawMessage(platform="slack", message_id="s1", channel="pm", person="maria",
                           timestamp=T0 + HOUR_MS, content="reminder: offline mode is dropped in v2"),
                RawMessage(platform="slack", message_id="s2", channel="pm", person="anna",
                           timestamp=T0 + 2 * HOUR_MS,
                           content="ben, please review the security questionnaire"),
                RawMessage(platform="slack", message_id="s3", channel="pm", person="ben",
                           timestamp=T0 + DAY_MS, content="security questionnaire reviewed, all done"),
            ]
        )  # fmt: skip
        # One answer per conversation, oldest conversation first (email, then slack).
        fake.reply_insights([{**DECISION, "evidence": ["e1"]}])
        fake.reply_insights([{**DECISION, "evidence": ["s1"]}, {**TASK, "evidence": ["s2"]}])
        report = insights.generate()
        assert report.extractors == {"llm": 2}
        items = insights.list_insights(limit=50, lifecycle_state="all")
        decisions = [r for r in items if r.insight.kind.value == "decision"]
        assert len(decisions) == 1 and set(decisions[0].insight.draft.evidence) == {"e1", "s1"}  # merged
        (task,) = [r for r in items if r.insight.kind.value == "action_item"]
        d = task.insight.draft
        assert d.owner == "Ben Ortiz"  # resolved through the identity directory
        assert task.insight.lifecycle == "done" and "s3" in d.evidence  # the LLM missed it; the pass did not
        assert not insights.brief(identities=["ben"]).my_actions
    finally:
        svc.close()
