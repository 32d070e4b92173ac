"""Search state → filters, and term highlighting (pure logic)."""

from __future__ import annotations

from datetime import datetime

import pytest

from app.ui.highlight import highlight_html, query_terms, snippet
from app.ui.search_state import ARCHIVED_INCLUDED, SearchState, date_bounds

NOW = int(datetime(2024, 5, 20, 15, 30).timestamp() * 1000)


def test_chips_become_filters():
    state = SearchState("budget").add_chip("platform", "slack").add_chip("person", "Ana")
    state = state.add_chip("channel", "general").add_chip("platform", "slack")
    f = state.filters(NOW)
    assert f.platforms == ("slack",) and f.persons == ("Ana",) and f.channels == ("general",)
    assert state.remove_chip("platform", "slack").filters(NOW).platforms == ()


def test_archived_chip_includes_archived_messages():
    assert SearchState("x").filters(NOW).include_archived is False
    state = SearchState("x").add_chip("archived", ARCHIVED_INCLUDED)
    assert state.filters(NOW).include_archived is True
    assert state.remove_chip("archived", ARCHIVED_INCLUDED).filters(NOW).include_archived is False


def test_one_date_chip_at_a_time_and_bounds():
    state = SearchState("x").add_chip("date", "last 7 days").add_chip("date", "2024-03-01..2024-03-31")
    assert state.values("date") == ("2024-03-01..2024-03-31",)
    since, until = state.filters(NOW).since, state.filters(NOW).until
    assert since == int(datetime(2024, 3, 1).timestamp() * 1000)
    assert until == int(datetime(2024, 4, 1).timestamp() * 1000) - 1
    since, until = date_bounds("last 7 days", NOW)
    assert since == int(datetime(2024, 5, 13).timestamp() * 1000) and until is None


def test_bad_date_and_unknown_key_are_clear_errors():
    with pytest.raises(ValueError, match="not a date"):
        SearchState("x").add_chip("date", "2024-13-01..").filters(NOW)
    with pytest.raises(ValueError, match="unknown filter"):
        SearchState().add_chip("colour", "red")


def test_highlight_escapes_and_marks_terms_case_insensitively():
    terms = query_terms('The Budget "<b>" 预算')
    assert "the" not in terms and "budget" in terms and "预算" in terms
    out = highlight_html("Q3 budget <draft> BUDGET 预算表", terms, "#ff0")
    assert out.count('<span style="background:#ff0;color:#1b1b1f;">') == 3
    assert "&lt;draft&gt;" in out


def test_snippet_centres_on_first_hit():
    text = "filler " * 100 + "the deadline is friday " + "tail " * 50
    cut = snippet(text, ["deadline"], width=80)
    assert "deadline" in cut and cut.startswith("…") and len(cut) <= 82


def test_snippet_never_cuts_a_word_in_half():
    text = "preamble " * 40 + "the results were evaluated against the deadline target " + "appendix " * 40
    cut = snippet(text, ["deadline"], width=70)
    words = set(text.split())
    assert all(w in words for w in cut.strip("…").split()), cut


def test_custom_date_values():
    from app.ui.search_state import date_bounds

    now = 1_795_000_000_000  # late November 2026
    since, until = date_bounds("last month", now)
    assert since < until < now
    assert date_bounds("2026-11-01..", now)[1] is None
    for bad, why in [("last mnth", "not a period"), ("..", "has no dates"), ("2026-13-01..", "not a date")]:
        with pytest.raises(ValueError, match=why):
            date_bounds(bad, now)


def test_highlight_paints_words_not_fragments_and_skips_the_date_phrase():
    terms = query_terms("when did Caroline go to the support group last year", skip="last year")
    assert set(terms) == {"caroline", "go", "support", "group"}
    out = highlight_html("I got support groups, go now", ["go", "support", "group"], "#ff0")
    assert "I got " in out  # "go" is not painted inside "got"
    assert out.count("<span") == 3  # support, group(s), go


def test_result_count_wording():
    from app.ui.screens.search_summary import count_text

    assert count_text(1, 0, False) == "1 result"
    assert count_text(12, 3, False) == "12 results \u00b7 3 weaker matches hidden"
    assert count_text(12, 3, True) == "12 results"
    assert count_text(50, 0, False, limit=50) == "Top 50 results"
    assert count_text(0, 4, False) == "No close match" and count_text(0, 0, False) == "No results"
