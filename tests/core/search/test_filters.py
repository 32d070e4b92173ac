"""Shell values → search filters and included sources: one reading for the CLI, REST and MCP."""

from __future__ import annotations

from app.core.search.filters import filters_from, sources_from


def test_switches_name_the_sources_in_one_order():
    assert sources_from() == ()
    assert sources_from(insights=True) == ("insights",)
    assert sources_from(documents=True, insights=True) == ("documents", "insights")


def test_filters_take_one_value_or_many_and_a_bare_until_date_ends_that_day():
    filters = filters_from({"platform": "slack", "person": ["ana", ""], "until": "2026-11-02"})
    assert filters.platforms == ("slack",) and filters.persons == ("ana",) and filters.channels == ()
    assert (
        filters_from({"until": "2026-11-02"}).until
        == filters_from({"until": "2026-11-03"}).until - 86_400_000
    )
    assert filters.until % 1000 == 999
