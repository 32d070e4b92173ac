"""A list question's category evidence: the named people's messages naming a kind of the thing asked for.

"What activities does Melanie partake in?" is answered by "Melanie is off to go swimming with the
kids", 238th of her 425 sentence keys by cosine: MiniLM does not link "activities" to "swimming".
WordNet does (categories.py). The named people's latest messages are read (at most `scan`), and
those with a word whose usual meaning is a kind of the asked-for noun (or, for kinds with titles,
quoting a title) are returned, nearest to the question first, to join the named order
(messages.py, `SearchConfig.category_words`).
"""

from __future__ import annotations

import json
import re
from bisect import bisect_right
from collections import Counter
from collections.abc import Callable, Iterable, Mapping, Sequence
from itertools import accumulate

from sqlalchemy.orm import Session

from app.core.search.categories import CategoryWords
from app.core.search.instances import InstanceMatcher, singular
from app.core.storage.keyword import STOPWORDS

_WORD = re.compile(r"[^\W\d_][^\W_]{2,}", re.UNICODE)
# Kinds of thing that have titles: a message naming one quotes it ("I just watched "Little
# Women"", "This is 'Embracing Identity'") where WordNet knows no instance.
TITLED = frozenset(
    {"book", "novel", "movie", "film", "series", "show", "song", "album", "game", "screenplay", "script"}
    | {"play", "poem", "story", "podcast", "episode", "painting"}
)
# A quoted title: a capital first, at most eight words, no sentence inside (a quoted remark is no title).
_TITLE = re.compile(r"[\"“'‘]([A-Z0-9][^\"”’.!?\n]{1,60}?)[\"”'’](?!\w)")

# The named people's messages among the user's latest `window`, latest first; the other filters
# are applied by the ranking. No index leads with the person: the user's time index is walked and
# each row's person read, so the window bounds the walk (~8 ms for 20k rows) at any archive size.
_SQL = (
    "SELECT id, content, person FROM (SELECT id, content, person, archived_at, timestamp FROM raw_messages "
    "WHERE user_id = ? ORDER BY timestamp DESC LIMIT ?) "
    "WHERE archived_at IS NULL AND person IN (SELECT value FROM json_each(?)) ORDER BY timestamp DESC LIMIT ?"
)


def titled(category: str, texts: Mapping[str, str]) -> set[str]:
    """The keys of `texts` quoting a title, when `category` (a plural noun) is a kind with titles."""
    if TITLED.isdisjoint({category, category[:-1], singular(category)}):  # "movies": not "movy"
        return set()
    return {k for k, t in texts.items() if any(len(m.split()) <= 8 for m in _TITLE.findall(t))}


def naming_kind(
    lexicon: CategoryWords,
    category: str,
    texts: Mapping[str, str],
    skip: Iterable[str] = (),
    *,
    max_texts: int = 0,
    senses: str = "first",
    compounds: bool = False,
) -> set[str]:
    """The keys of `texts` holding a word that names a kind of `category` (a plural noun), other
    than the people's names (`skip`); with `max_texts`, only words named at most that many times
    in all the texts count (`senses`, `compounds`: CategoryWords.of_kind)."""
    noun = singular(category)
    keys = list(texts)
    lowered = [texts[k].lower() for k in keys]
    # One pass over all the texts, not one per text: at 100k a person's 2,000 latest messages
    # cost ~27 ms read text by text (a set and a count per text), a few ms read at once.
    joined = "\n".join(lowered)
    held = Counter(_WORD.findall(joined))
    left_out = STOPWORDS | {noun, category, *(w.lower() for w in skip)}
    pool = {w for w, n in held.items() if (not max_texts or n <= max_texts) and w not in left_out}
    found = lexicon.of_kind(noun, pool, senses=senses, compounds=compounds)
    if not found:
        return set()
    # The texts holding a found word: its whole-word matches in the joined texts, placed by offset.
    pattern = re.compile(
        rf"(?<![^\W_])(?:{'|'.join(map(re.escape, sorted(found, key=len, reverse=True)))})(?![^\W_])"
    )
    starts = list(accumulate((len(t) + 1 for t in lowered[:-1]), initial=0))
    return {keys[bisect_right(starts, m.start()) - 1] for m in pattern.finditer(joined)}


def person_texts(
    session: Session, *, user_id: str, persons: Sequence[str], scan: int, window: int = 20_000
) -> dict[str, str]:
    """The named people's latest `scan` messages' texts among the user's latest `window`, by key.
    Not their attachments' names: with LoCoMo's photo captions multi-hop R@10 fell 0.544 -> 0.539
    (captions name common things)."""
    return {
        k: t
        for group in person_groups(session, user_id=user_id, persons=persons, scan=scan, window=window)
        for k, t in group.items()
    }


def person_groups(
    session: Session, *, user_id: str, persons: Sequence[str], scan: int, window: int = 20_000
) -> list[dict[str, str]]:
    """`person_texts`, one mapping per person (in `persons`' order), from one query."""
    args = (user_id, window, json.dumps(list(persons)), scan)
    rows = session.connection().exec_driver_sql(_SQL, args).fetchall()
    groups: dict[str, dict[str, str]] = {p: {} for p in persons}
    for r in rows:
        groups.setdefault(r.person, {})[str(r.id)] = r.content or ""
    return list(groups.values())


def by_kind(
    lexicon: CategoryWords,
    groups: Sequence[Mapping[str, str]],
    *,
    category: str,
    names: Sequence[str],
    max_texts: int,
    cosines: Callable[[list[str]], Mapping[str, float]],
    senses: str = "first",
    compounds: bool = False,
    titles: bool = False,
) -> list[str]:
    """Keys of the texts naming a kind of `category` by WordNet (or quoting a title, `titles`),
    highest message cosine first.

    Each group's words are counted apart for `max_texts` (one group per named person: a city
    John names once is no less rare because Tim names it too)."""
    keys: list[str] = []
    for texts in groups:
        keys.extend(
            naming_kind(
                lexicon, category, texts, skip=names, max_texts=max_texts, senses=senses, compounds=compounds
            )
        )
        if titles:
            keys.extend(titled(category, texts))
    if not keys:
        return []
    score = cosines(list(dict.fromkeys(keys)))
    return sorted((k for k in dict.fromkeys(keys) if k in score), key=lambda k: -score[k])


def kind_order(
    lexicon: CategoryWords,
    instances: InstanceMatcher,
    groups: list[dict[str, str]],
    *,
    category: str,
    names: Sequence[str],
    cosines: Callable[[list[str]], Mapping[str, float]],
    limit: int,
    max_df: int,
    per_person: bool,
    source: str,
    senses: str,
    compounds: bool,
    titles: bool,
    vocabulary: int,
) -> list[str]:
    """The named people's messages (`groups`, one per person) naming a kind of `category`, nearest
    first, at most `limit`; the SearchConfig.category_* switches say how (messages.py)."""
    if not per_person:
        groups = [{k: t for g in groups for k, t in g.items()}]
    found: list[str] = []
    if source in ("wordnet", "both"):
        found = by_kind(
            lexicon,
            groups,
            category=category,
            names=names,
            max_texts=max_df,
            cosines=cosines,
            senses=senses,
            compounds=compounds,
            titles=titles,
        )
    if source in ("model", "both"):
        # Each message's word closest to the noun on the model ("Chicago" ~ "city"), best first.
        texts = {k: t for g in groups for k, t in g.items()}
        closest = instances.closest(category, texts, skip=names, max_words=vocabulary)
        ranked = sorted(closest, key=lambda k: -closest[k][0])
        found = list(dict.fromkeys([*found, *ranked]))
    return found[:limit]
