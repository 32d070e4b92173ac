"""Extra key kinds measured for issue 12 (mh-fact): photo captions, stated facts, aggregates, tagged facts.

Evaluation only, never shipped: `bench_key_kinds.py` adds these texts as extra keys of a copied
LoCoMo data dir and measures recall through the product's own key leg. Each function takes
message rows (`id`, `person`, `content`, `attachments`) and returns `(message id, key text)`
pairs; an aggregate key pointing to several messages is returned once per message (the key leg
resolves one key to one message). Rules only, no model and no dataset-specific words.
"""

from __future__ import annotations

import re
from collections import defaultdict
from collections.abc import Iterable, Sequence
from typing import Any

from app.core.index.key_text import sentences, third_person

# Verbs of doing, going, making, liking, owning and planning (general English, any tense).
_VERBS = (
    "went go going gone visited visit visiting traveled travelled traveling travelling travel took take "
    "taking made make making painted paint painting built build building wrote write writing started start "
    "starting joined join adopted adopt got get getting bought buy have has had own owns love loves loved "
    "like likes liked enjoy enjoyed enjoys play played playing plays watched watch watching read reading "
    "learned learning learnt tried try trying finished won win ran run running volunteer volunteered "
    "volunteering signed sign plan planning planned want wanted explored explore exploring hiked hike hiking "
    "camped camping cooked cook cooking baked bake baking saw see seen met meet celebrated attended attend "
    "moved move moving was were been am 'm are 're do did doing collect collected collecting practice "
    "practiced practicing decided received created create creating designed opened launched found picked "
    "grew grow growing studied study studying work worked working teach taught teaching raise raised dance "
    "danced dancing sing sang singing swim swam swimming drove drive fly flew flying check checked checking"
)
_VERB = "(?:" + "|".join(_VERBS.split()) + ")"
_ADVERBS = (
    r"(?:(?:just|also|recently|really|finally|actually|still|even|always|usually|often|sometimes"
    r"|already|never|now|then)\s+)*"
)
_LEAD = (
    r"(?:(?:so|and|but|also|oh|well|yeah|yes|plus|actually|recently|yesterday|today|lately"
    r"|last\s+\w+|this\s+\w+),?\s+)*"
)
# The writer as subject: I, we, my kids, me and my husband, my son and I.
_SUBJECT = (
    r"(?:I|I['’]m|I['’]ve|I['’]ll|I['’]d|we|we['’]re|we['’]ve|my\s+\w+(?:\s+\w+)?"
    r"|me\s+and\s+(?:my\s+)?\w+|(?:my\s+)?\w+\s+and\s+I)"
)
_FIRST_PERSON_FACT = re.compile(rf"\b{_SUBJECT}\s+{_ADVERBS}{_VERB}\b", re.IGNORECASE)
# Chat drops the subject: "Took a short trip last week to Rome." (past tense only: a bare present
# verb is usually an imperative, "Take care of yourself").
_PAST = r"(?:went|took|made|built|wrote|got|bought|had|ran|saw|met|grew|drove|flew|won|read|been|found|\w+ed)"
_BARE_FACT = re.compile(rf"^{_LEAD}{_ADVERBS}{_PAST}\b", re.IGNORECASE)
_NOT_WRITER = re.compile(r"^(?:it|that|this|you|he|she|they)\b", re.IGNORECASE)
_CLAUSE_END = re.compile(r"\s*(?:[,;:]\s+|\s+[-–—]+\s+)")
_WE = re.compile(r"\b(?:we|us|our|ours)\b", re.IGNORECASE)
MAX_FACTS = 8

# Aggregate labels: a plain noun phrase a question would use, and the verbs whose facts it gathers.
_LABELS = tuple(
    (label, re.compile(rf"\b(?:{verbs})\b", re.IGNORECASE))
    for label, verbs in (
        (
            "trips and places visited",
            r"went|go|going|gone|visit\w*|travel\w*|trip|explor\w*|was in|were in|been to|moved|drove|flew",
        ),
        (
            "creations and things made",
            r"made|make|making|paint\w*|built|build\w*|wrote|writ\w*|creat\w*|design\w*|bak\w*|cook\w*",
        ),
        ("likes and favorites", r"loves?|loved|likes?|liked|enjoy\w*"),
        (
            "activities, hobbies and events",
            r"play\w*|start\w*|join\w*|practic\w*|learn\w*|tried|try\w*|volunteer\w*|signed up|"
            r"danc\w*|sing\w*|swim\w*|collect\w*|study\w*|studied|work\w*|teach\w*|taught|watch\w*|read\w*|won|win|ran|run\w*|"
            r"attend\w*|celebrat\w*|hik\w*|camp\w*",
        ),
        (
            "possessions, pets and things got",
            r"have|has|had|got|get|getting|bought|buy|adopt\w*|own\w*|received|found|picked",
        ),
        ("plans and goals", r"plan\w*|want\w*|going to|will|hop\w*"),
    )
)
AGGREGATE_ITEMS = 5


def attachment_names(row: Any) -> list[str]:
    return [
        str(a.get("name") or "").strip()
        for a in row.attachments or []
        if isinstance(a, dict) and str(a.get("name") or "").strip()
    ]


def captions(rows: Iterable[Any]) -> list[tuple[int, str]]:
    """One key per attachment name, in the writer's voice ("Melanie shared a photo of three turtles")."""
    return [(row.id, f"{row.person} shared {name}") for row in rows for name in attachment_names(row)]


def facts_of(person: str, content: str | None) -> list[str]:
    """Clauses stating what the writer did, made, likes, owns or plans, told in the third person
    ("I was in Chicago, it was awesome!" → "John was in Chicago"); questions are skipped."""
    found: list[str] = []
    for sentence in sentences(content or ""):
        if sentence.rstrip(" \"'”’)").endswith("?"):
            continue
        for clause in _CLAUSE_END.split(sentence):
            clause = clause.strip(" .!?\"'")
            match = _FIRST_PERSON_FACT.search(clause)
            if match:
                fact = clause[match.start() :]
            elif _BARE_FACT.match(clause) and not _NOT_WRITER.match(clause):
                fact = f"{person} {clause[0].lower()}{clause[1:]}"
            else:
                continue
            if len(fact.split()) < 3:
                continue
            fact = third_person(re.sub(r"\bI['’]d been\b", "I had been", fact), person)
            fact = _WE.sub(lambda m: person if m.group(0).lower() in ("we", "us") else f"{person}'s", fact)
            found.append(fact[:200])
    return list(dict.fromkeys(found))[:MAX_FACTS]


def facts(rows: Iterable[Any]) -> list[tuple[int, str]]:
    return [(row.id, fact) for row in rows for fact in facts_of(row.person, row.content)]


def aggregate_groups(
    rows: Sequence[Any], photos: bool = True, size: int = AGGREGATE_ITEMS
) -> list[tuple[list[int], str]]:
    """Per person and label, up to AGGREGATE_ITEMS stated facts (and photo captions) in one key
    ("Melanie's activities, hobbies and events: went camping with …; …"), with their messages."""
    items: dict[tuple[str, str], list[tuple[int, str]]] = defaultdict(list)
    for row in rows:
        for fact in facts_of(row.person, row.content):
            body = re.sub(rf"^{re.escape(row.person)}\s+", "", fact)
            label = next((label for label, verbs in _LABELS if verbs.search(body)), None)
            if label is not None:
                items[(row.person, label)].append((row.id, " ".join(body.split()[:9])))
        if photos:
            for name in attachment_names(row):
                items[(row.person, "photos")].append((row.id, re.sub(r"^a photo(?:graphy)? of ", "", name)))
    groups: list[tuple[list[int], str]] = []
    for (person, label), found in items.items():
        for start in range(0, len(found), size):
            part = found[start : start + size]
            groups.append(([m for m, _ in part], f"{person}'s {label}: " + "; ".join(t for _, t in part)))
    return groups


def aggregates(rows: Sequence[Any]) -> list[tuple[int, str]]:
    return [(m, text) for ids, text in aggregate_groups(rows) for m in dict.fromkeys(ids)]


def tagged(rows: Sequence[Any]) -> list[tuple[int, str]]:
    """Each fact (and caption) alone under its kind's label, the word a question would use
    ("Melanie's activities, hobbies and events: went swimming with the kids")."""
    return [(ids[0], text) for ids, text in aggregate_groups(rows, size=1)]


KINDS = {"captions": captions, "facts": facts, "aggregates": aggregates, "tagged": tagged}


def sentence_keys_with_facts(rows: Iterable[Any]) -> list[str]:
    """The sentence keys (`<message>:<n>`) whose sentence states a fact: the `facts-replace` set
    drops them, so a fact key replaces its sentence's key instead of adding to it."""
    from app.core.index.key_text import message_keys

    dropped: list[str] = []
    for row in rows:
        keys = message_keys(row.person, row.content)
        told = {third_person(s, row.person or ""): s for s in sentences(row.content or "")}
        for n, key in enumerate(keys):
            sentence = told.get(key)
            if sentence is not None and facts_of(row.person, sentence):
                dropped.append(f"{row.id}:{n}")
    return dropped
