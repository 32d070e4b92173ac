"""The query that documents, summaries, insights and pages see in unified search: as messages saw it.

Messages are searched without the query's date words and inside the date range they name; the
other kinds got the raw text and no range, so "launch plan last week" listed a plan uploaded
months ago under a "last week" chip, and the words "last week" counted as words to find.
"""

from __future__ import annotations

import re
from dataclasses import replace

from app.core.search.message_query import MessageQuery
from app.core.search.people import Mentions
from app.core.search.ranking import without_names
from app.core.search.understanding import Understood


def as_understood(query: MessageQuery, understood: Understood) -> MessageQuery:
    """`query` without the understood date phrase, narrowed to its range when the range was applied
    (when nothing matched inside it, every kind is searched at any time, as the note says)."""
    date = understood.date
    if date is None:
        return query
    at = query.text.lower().find(date.phrase)
    text = query.text
    if at >= 0:
        text = re.sub(r"\s{2,}", " ", text[:at] + text[at + len(date.phrase) :]).strip() or query.text
    if not date.applied:
        return replace(query, text=text)
    return replace(query, text=text, filters=replace(query.filters, since=date.since, until=date.until))


def without_people(query: MessageQuery, understood: Understood) -> MessageQuery:
    """`query` without the words of the people it was read as naming, for kinds that have no
    author (documents): the name said *whose messages*, so a page that merely mentions the
    person ("Owner: Anna Keller") is no answer to "what did Anna say about lithium mining?"."""
    if not understood.people:
        return query
    mentions = Mentions(frozenset(understood.people), frozenset())
    return replace(query, text=without_names(query.text, mentions))
