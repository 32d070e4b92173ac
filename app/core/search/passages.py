"""Local evidence in a long text: a page is as relevant as its best passage, not its whole text.

A memory page lists dozens of facts about a person or a chat. Judged as one text, it held every
word of "who owns the status page" somewhere ("own" in one line, "status" in another, "page" in a
third: even inside "down" or "updated", as substrings), so pages reached relevance 1.0 and filled
6 of the first 15 rows of that search on the demo. Here a page is cut into passages (a paragraph,
or one item of a list) and each is read with the page's title and its section heading (a page
named "ben" answers "ben status page" from the line "own the status page update"), then scored
by the same relevance model as messages and documents; the page gets its best passage's score.
"""

from __future__ import annotations

import re
from collections.abc import Iterator
from dataclasses import dataclass

from app.core.search.relevance import Evidence, RelevanceModel

_HEADING = re.compile(r"^\s{0,3}#{1,6}\s+(.*)$")
_ITEM = re.compile(r"^\s*(?:[-*+]|\d+[.)])\s+")
_MARKER = re.compile(r"^\s*<!--.*-->\s*$")
# Links read as their label: "[[channels/slack-launch|#launch (slack)]]" -> "#launch (slack)",
# "[source](strata://message/4)" -> "source"; their targets' words are no evidence.
_WIKI_LINK = re.compile(r"\[\[(?:[^\]|]*\|)?([^\]]*)\]\]")
_LINK = re.compile(r"\[([^\]]*)\]\([^)]*\)")
# A page's passages have no BM25 of their own (pages are not in the keyword index): they count as
# a keyword hit of middling rarity, so a passage holding every word clears the floor (0.70 like
# any exact match) and one holding 2 of 3 words does (0.41), half of them does not (0.28).
PASSAGE_RARITY = 0.5


@dataclass(frozen=True, slots=True)
class Passage:
    line: int  # 1-based line number of its first line
    text: str  # the passage itself, without the title and heading it was scored with


def passages(text: str) -> Iterator[tuple[str, Passage]]:
    """(heading, passage) pairs of a markdown page: paragraphs and list items, front matter and
    HTML comments (strata's generated-block markers) left out."""
    lines = text.splitlines()
    start = 0
    if lines and lines[0].strip() == "---":  # YAML front matter
        for i in range(1, len(lines)):
            if lines[i].strip() == "---":
                start = i + 1
                break
    heading = ""
    block: list[str] = []
    first = 0

    def flush() -> Iterator[tuple[str, Passage]]:
        if block:
            joined = " ".join(s.strip() for s in block)
            yield heading, Passage(first + 1, _LINK.sub(r"\1", _WIKI_LINK.sub(r"\1", joined)))

    for number in range(start, len(lines)):
        line = lines[number]
        if not line.strip() or _MARKER.match(line):
            yield from flush()
            block = []
            continue
        found = _HEADING.match(line)
        if found:
            yield from flush()
            block, heading = [], found.group(1).strip()
            continue
        if _ITEM.match(line):  # each list item is a passage of its own
            yield from flush()
            block = []
        if not block:
            first = number
        block.append(line)
    yield from flush()


def best_passage(
    query: str, title: str, text: str, model: RelevanceModel | None = None
) -> tuple[float, Passage | None]:
    """The relevance of the page's best passage for `query` (read with the title and heading),
    and that passage; (0.0, None) when no passage holds a word of the query."""
    scorer = (model or RelevanceModel()).for_query(query, 1.0)
    best, found = 0.0, None
    for heading, passage in passages(text):
        context = f"{title} {heading} {passage.text}"
        if not scorer.present(context):
            continue  # most passages: one regex scan, no scoring
        value = scorer.relevance(Evidence(text=context, bm25=PASSAGE_RARITY))
        if value > best:
            best, found = value, passage
    return best, found
