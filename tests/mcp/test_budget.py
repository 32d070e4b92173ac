"""Token-budget paging of MCP results."""

from __future__ import annotations

from app.mcp.budget import clip, estimate_tokens, paginate


def _items(n: int, size: int = 400) -> list[dict]:
    return [{"id": i, "content": "w" * size} for i in range(n)]


def test_clip_cuts_at_a_word_and_marks_it():
    assert clip("short", 10) == "short"
    assert clip(None, 10) == ""
    text = "alpha beta gamma delta epsilon"
    assert clip(text, 18) == "alpha beta gamma…"


def test_budget_stops_early_and_points_at_the_next_offset():
    items = _items(10)
    per_item = estimate_tokens(items[0])
    page = paginate(items, offset=20, max_tokens=per_item * 3 + 1)
    assert [i["id"] for i in page.items] == [0, 1, 2]
    assert page.next_offset == 23 and page.truncated_by_budget
    assert "offset=23" in page.envelope("hits")["note"]


def test_first_item_is_always_returned_even_over_budget():
    page = paginate(_items(2, size=10_000), offset=0, max_tokens=10)
    assert len(page.items) == 1 and page.next_offset == 1


def test_no_next_offset_when_everything_fits_and_source_is_exhausted():
    page = paginate(_items(3, size=10), offset=0, max_tokens=10_000)
    assert page.next_offset is None and "note" not in page.envelope("hits")
    more = paginate(_items(3, size=10), offset=0, max_tokens=10_000, has_more=True)
    assert more.next_offset == 3 and not more.truncated_by_budget
