"""Attachment names as floor evidence: a caption or file name counts when it completes the match.

A message's lexical text holds its attachments' names (ranking.message_text): "the forecast deck"
finds the message that shared `Quarterly-forecast-deck.pdf`. Photo captions are machine-written
descriptions ("a photo of a cinema ticket on a chair"), so one word of a query in one is a weak
coincidence: "What did Maria say about opera tickets?" passed the relevance floor on "Always good
to hear! See you later!" through its caption's "ticket". For the floor, a name's words count only
when the message with its names holds every word the query is judged on; order and recall keep
them (docs/benchmarks.md, "Trust: named nonsense, reindex progress").
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from typing import Any

from app.core.search.relevance import QueryScorer


def floor_texts(
    texts: Mapping[str, str],
    rows: Mapping[str, Any],
    scorer: QueryScorer,
    names_of: Callable[[Any], str],
) -> dict[str, str]:
    """`texts` with each message's attachment names left out where they add words to a partial match."""
    judged: dict[str, str] = dict(texts)
    if not scorer.terms:
        return judged
    for key, text in texts.items():
        row = rows.get(key)
        if row is None or not names_of(getattr(row, "attachments", None)):
            continue  # most messages: nothing to judge
        held = scorer.present(text)
        if len(held) >= len(scorer.terms):
            continue  # the names complete the match: real evidence
        own = f"{row.content or ''} {row.person or ''}"
        if scorer.present(own) != held:
            judged[key] = own
    return judged
