"""The query without the names it names, blended into the vectors both vector legs search with.

Sentence keys tell each sentence about its writer by name ("Melanie's kids loved the park"), so
a query that names Melanie is near *every* key of hers for the name alone: the key leg lifted her
greetings and small talk into the top 10, above the one-line answers (often written by the other
person) that the query was about. That was the single-hop loss of sentence keys on LoCoMo
(0.867 → 0.824); keys searched with the query without the names gave it back (0.858) but lost
the multi-hop, temporal and open-domain gains, which come from that same name. Halfway between
the two vectors keeps most of both (docs/benchmarks.md, "Recall: … (issue 12, `mh-index`)").

Messages are the same: every message of a two-person chat is addressed to the other person
("Wow, Melanie! …"), so the name pulls the query towards greetings and away from what the named
person wrote about the rest of the question. The message leg and the candidates' cosines use
the same blend (`SearchConfig.message_nameless_mix`), from the same second embedding
(docs/benchmarks.md, "Recall: … (issue 12, `mh-rank`)"), unless the query speaks in the first
person ("did I pay Tom…"): its answer is the asker's own message, often addressed to that person.

A list question naming people ("Which cities has John been to?") keeps the query's own vector:
its answers are that person's messages, so the name's pull is what finds them (and the named
people's own nearest messages come in through their own pass, messages.py).
"""

from __future__ import annotations

import re
from collections.abc import Callable

import numpy as np

from app.core.search.people import Mentions
from app.core.search.questions import asks_for_list
from app.core.search.ranking import without_names


def nameless_text(text: str, mentions: Mentions) -> str | None:
    """The query without the names of the people it names, for a query naming people that is not a
    list question; None otherwise (nothing to take out, or a list question)."""
    if not mentions.persons or asks_for_list(text):
        return None
    nameless = without_names(text, mentions)
    return None if nameless == text else nameless


# "did I pay Tom…", "what did we tell Anna…": the person asking wrote the answer, often to the named
# person by name ("Sent you the money, Tom"), so the name is evidence (the precision set's "did I
# pay Tom for the hut" fell from 3rd to 4th with the message leg blended). Case-sensitive: "US".
_FIRST_PERSON = re.compile(r"\b(?:I|[Mm]e|[Mm]y|[Mm]ine|[Mm]yself|[Ww]e|[Oo]ur|[Oo]urs)\b")


def asks_about_self(text: str) -> bool:
    """Whether the query speaks in the first person (the asker's own messages are its answers)."""
    return _FIRST_PERSON.search(text) is not None


def blend(vector: np.ndarray, other: np.ndarray, mix: float) -> np.ndarray:
    """The normalized `(1 − mix) · vector + mix · other`."""
    blended = (1.0 - mix) * vector.astype(np.float32) + mix * other.astype(np.float32)
    norm = float(np.linalg.norm(blended))
    # Opposite vectors cannot come from one query and its own words; guard the division anyway.
    return blended / norm if norm > 0.0 else vector


def key_query_vector(
    vector: np.ndarray,
    text: str,
    mentions: Mentions,
    embed_query: Callable[[str], np.ndarray],
    mix: float,
) -> np.ndarray:
    """`vector` (the query's), or for a query naming people that is not a list question, the
    normalized blend `(1 − mix) · vector + mix · vector of the query without the names`."""
    nameless = nameless_text(text, mentions) if mix > 0.0 else None
    if nameless is None:
        return vector
    return blend(vector, embed_query(nameless), mix)
