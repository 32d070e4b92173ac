"""A long page's relevance is its best passage's (a list item or a paragraph, with title and heading)."""

from __future__ import annotations

from app.core.search.passages import best_passage, passages

PAGE = """---
title: "ben"
type: person
---
# ben

<!-- strata:begin generated -->
- **On:** slack

## Open loops
- [ ] 2026-11-02 · ben: own the status page update · [[channels/slack-launch|#launch (slack)]] ([source](strata://message/4))

## Recent messages
- 2026-11-10 · Noted, I'll reschedule the announcement for the 25th.
<!-- strata:end generated -->

## My notes
A paragraph of my own
over two lines about the budget.
"""


def test_passages_are_items_and_paragraphs_under_their_heading_without_front_matter_or_links() -> None:
    found = list(passages(PAGE))
    assert [h for h, _ in found] == ["ben", "Open loops", "Recent messages", "My notes"]
    loop = found[1][1]
    assert loop.line == 11 and "#launch (slack)" in loop.text and "strata://" not in loop.text
    assert found[3][1].text == "A paragraph of my own over two lines about the budget."
    assert not any("title:" in p.text or "strata:begin" in p.text for _, p in found)


def test_the_page_gets_its_best_passage_score() -> None:
    value, passage = best_passage("who owns the status page", "ben", PAGE)
    assert value >= 0.70 and passage is not None and "own the status page" in passage.text
    # The title counts with every passage: a page named after the person answers "ben status page".
    assert best_passage("ben status page", "ben", PAGE)[0] >= 0.70


def test_words_scattered_over_passages_are_weak_evidence() -> None:
    page = "# Ops\n\n- We own the build servers.\n- The status meeting moved.\n- A new page for hires.\n"
    value, _ = best_passage("who owns the status page", "Ops", page)
    assert value < 0.30  # under the relevance floor
    # Substrings are not words: "date" in "updated", "own" in "down".
    assert best_passage("launch date", "Ops", "- The launch site was updated.\n- It was down.\n")[0] < 0.30
    assert best_passage("zzqxv", "Ops", page) == (0.0, None)
