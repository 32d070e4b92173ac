"""Precision / recall of the rule extractor on the labelled chat sets (tests/insights/eval)."""

from __future__ import annotations

from insights_eval_loader import load_harness

from insights.extractors.rules import RuleExtractor

harness = load_harness()
HELDOUT = harness.EVAL_FILE.with_name("heldout.txt")


def _convs():  # type: ignore[no-untyped-def]
    return harness.load() + harness.load(HELDOUT)


def test_eval_set_is_big_enough_and_well_formed() -> None:
    convs = _convs()
    assert harness.message_count(convs) >= 150
    ids = [m.message_id for c in convs for m in c.messages]
    assert len(ids) == len(set(ids))
    for c in convs:
        known = {m.message_id for m in c.messages}
        for e in c.expected:
            assert set(e.anchors) <= known, e


def test_rule_extractor_precision_on_actions_and_decisions() -> None:
    scores = harness.evaluate(RuleExtractor(known_names=harness.ME).extract, _convs())
    for kind in ("action_item", "decision"):
        assert scores[kind].precision >= 0.8, (kind, scores[kind].false)
        assert scores[kind].recall >= 0.6, (kind, scores[kind].misses)
    actions = scores["action_item"]
    assert actions.owner_ok / actions.owner_n >= 0.8
    assert actions.due_ok / actions.due_n >= 0.7
    total = harness.overall(scores)
    assert total.precision >= 0.8
