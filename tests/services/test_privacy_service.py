"""PrivacyService on real services: payload masking by key, reveal rules, display hits, scan limits."""

from __future__ import annotations

import pytest

from app.core.errors import InvalidInput
from tests.conftest import make_message

KEY = "AKIAIOSFODNN7EXAMPLE"


def test_mask_payload_masks_text_fields_at_any_depth_and_keeps_ids(services) -> None:
    payload = {
        "id": KEY,  # identifiers are never rewritten: an agent must be able to cite them
        "title": f"rotate {KEY}",
        "summary": {"summaryText": f"key {KEY}", "keyPoints": [f"uses {KEY}", "fine"]},
        "items": [{"description": "mail kim@example.com", "details": ["owner: kim", "pw: hunter2x"]}],
        "timeline": [{"event": f"said {KEY}", "messageId": "m1"}],
    }
    out = services.privacy.mask_payload(payload)
    assert out["id"] == KEY and out["title"] == "rotate [SECRET:aws-key]"
    assert out["summary"]["keyPoints"] == ["uses [SECRET:aws-key]", "fine"]
    assert out["items"][0]["description"] == "mail [EMAIL]"
    assert out["items"][0]["details"] == ["owner: kim", "pw: [SECRET:password]"]
    assert out["timeline"][0] == {"event": "said [SECRET:aws-key]", "messageId": "m1"}
    assert payload["title"] == f"rotate {KEY}"  # a copy: the caller's value is untouched


def test_reveal_needs_the_setting(services) -> None:
    with pytest.raises(InvalidInput, match="reveal=true is turned off"):
        services.privacy.mask_payload({"content": KEY}, reveal=True)
    services.privacy.settings.privacy.allow_reveal = True
    assert services.privacy.mask_payload({"content": KEY}, reveal=True) == {"content": KEY}


def test_display_hits_keep_the_verbatim_text_for_click_to_reveal(services) -> None:
    services.memory.ingest(
        [make_message(1, content=f"deploy key {KEY}"), make_message(2, content="deploy done")]
    )
    hits = services.privacy.for_display(services.memory.search("deploy", None, 5))
    leaky = next(h for h in hits if "verbatim" in h.extra)
    assert leaky.content == "deploy key [SECRET:aws-key]" and leaky.extra["verbatim"] == f"deploy key {KEY}"
    assert all("verbatim" not in h.extra for h in hits if h is not leaky)


def test_scan_stops_listing_at_the_limit_but_counts_everything(services) -> None:
    services.memory.ingest([make_message(i, content=f"key {i}: {KEY}") for i in range(5)])
    report = services.privacy.scan(limit=2)
    assert report.scanned_messages == 5 and len(report.items) == 2
