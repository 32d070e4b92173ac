"""Hybrid message search over the message corpus: both legs under one typed filter, one calibrated fusion."""

from __future__ import annotations

import json
from collections.abc import Callable, Mapping, Sequence
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass, field, replace
from itertools import zip_longest
from typing import Any

import numpy as np
from sqlalchemy.orm import Session

from app.core.access import AccessTracker
from app.core.clock import Clock
from app.core.domain import SearchFilters, SearchHit
from app.core.embeddings.base import Embedder
from app.core.index.corpus import Corpus
from app.core.index.filters import Eq, Filter, between, one_of
from app.core.index.legs import FusionParams, LegHit, Legs
from app.core.index.message_keys import resolve as resolve_keys
from app.core.search.answer_shape import answer_shaped
from app.core.search.categories import CategoryWords
from app.core.search.category_messages import kind_order, naming_kind, person_groups
from app.core.search.context import CandidateContext, ConversationWindows
from app.core.search.dates import parse_query_dates
from app.core.search.instances import INSTANCE_MIN, InstanceMatcher, instance_relevance
from app.core.search.key_query import asks_about_self, blend, key_query_vector, nameless_text
from app.core.search.people import Mentions, PeopleDirectory
from app.core.search.query_vectors import QueryVectors
from app.core.search.query_words import without_frame
from app.core.search.questions import asked_category, asks_for_list
from app.core.search.ranking import RankedMessages, rank_messages, without_names
from app.core.search.relevance import COSINE_SCALES
from app.core.search.stored_windows import StoredWindows
from app.core.search.understanding import ALL_PARTS, DATES, PEOPLE, DateUnderstood, SearchOutcome, Understood
from app.core.storage.db import Database
from app.core.storage.keyword_budget import DEFAULT_ROW_BUDGET
from app.core.storage.models import RawMessageRow


@dataclass(frozen=True, slots=True)
class SearchConfig:
    candidate_pool: int = 30
    # Kept for settings compatibility; ranking is score-level fusion now (fusion.py), not RRF.
    rrf_k: int = 10
    # A tie-breaker for recent memories, on the relevance scale.
    recency_weight: float = 0.002
    recency_half_life_days: float = 180.0
    # Relevance added for hits in a conversation of a person the query names, and for that
    # person's own messages (tuned on LoCoMo: docs/benchmarks.md, "Retrieval engine: ranking").
    mentioned_channel_bonus: float = 0.05
    mentioned_person_bonus: float = 0.15
    # Score each candidate with its conversation neighbours (context.py).
    windows: bool = True
    parse_dates: bool = True
    # How many of the best candidates bring their conversation neighbours in as candidates.
    neighbour_candidates: int = 10
    # Rows FTS5 may score per query (None = score every match); see keyword_budget.
    keyword_row_budget: int | None = DEFAULT_ROW_BUDGET
    # Above the in-memory limit windows are read from SQLite and LanceDB (stored_windows.py), at
    # ~0.1 ms of LanceDB lookup per vector: at most this many candidates of each pass get one
    # (ranking.WINDOWED = 40 on the in-memory path; docs/benchmarks.md, "Conversation windows on
    # the index path").
    stored_windowed: int = 40
    # List questions naming people ("which cities has John been to?", questions.py): this many
    # of the named people's messages nearest to the question without the names join the
    # candidates, and that order is fused into the ranking (ranking.py); 0 = off.
    # 80 rather than 50 since the message leg's nameless blend: +0.005 multi-hop R@10 on LoCoMo,
    # nothing else moved (docs/benchmarks.md, "… (issue 12, `mh-rank`)").
    list_pool: int = 80
    # A list question asking for a kind of thing ("which cities…", questions.asked_category):
    # this many of the named people's nearest messages are judged on their word closest to the
    # noun ("Chicago" ~ "city"), which lifts them over the relevance floor (instances.py); 0 = off.
    list_instances: int = 20
    # A query naming people that holds a word no candidate holds ("zzqxv Maria"): the floor judges
    # it without the names' pull on its vector too (one more embedding, in-memory path only), so
    # the name alone passes nothing (docs/benchmarks.md, "Recall: multi-hop misses, and the floor
    # for list questions and names").
    floor_nameless: bool = True
    # ... and without the question's frame words ("say", "got", query_words.py) as well.
    floor_frame: bool = True
    # ... and a partial word match with nothing of the query's meaning counts half for the floor
    # ("tax audit" in "projects can be so taxing"; RelevanceModel.partial_support). Only the floor:
    # ordering by it cost 0.003 LoCoMo R@10 (docs/benchmarks.md, "Trust: named nonsense, …").
    floor_partial_support: float = 0.05
    # Whether the floor counts a word found only in an attachment's name (a photo caption) when
    # the message does not hold every word of the query (attachment_words.py).
    floor_partial_captions: bool = True
    # Search the messages' sentence keys too (app/core/index/message_keys.py), when built.
    sentence_keys: bool = True
    # How much a message's best key cosine counts over its own (message_keys.resolve).
    key_weight: float = 0.5
    # Keys taken from the key leg per query (several keys of a message may be among them).
    key_pool: int = 30
    # Keys below this cosine neither lift nor add a message: one shared word is no evidence
    # ("penguin migration Antarctica" vs "The migration locked the table": 0.27 on MiniLM).
    key_min_cosine: float = 0.35
    # A query naming people (not a list question) searches the keys with a vector this far
    # towards the query without the names: keys carry their writer's name, which otherwise lifts
    # every message of the named person (key_query.py); 0 = the query's own vector.
    key_nameless_mix: float = 0.5
    # A list question's named order also embeds the statement its people would write ("What books
    # has Tim read?" -> "I have read books", answer_shape.py), blended with the question without
    # the names. Off: +0.001 multi-hop R@10 on LoCoMo for one more embedding; as the key leg's
    # nameless half it lost 0.003 (docs/benchmarks.md, "… (issue 12, `mh-rank`)").
    answer_shape: bool = False
    # The same for the message leg and every candidate's cosine (key_query.py; the second
    # embedding is the key leg's, so it costs nothing more); 0 = the query's own vector.
    message_nameless_mix: float = 0.5
    # A list question ("which cities…", questions.asks_for_list) takes this many candidates per
    # leg instead of `candidate_pool` (0 = the same pool for every query): +0.002 multi-hop R@10
    # on LoCoMo, so off (docs/benchmarks.md, "Recall: category questions (issue 12, `mh9`)").
    list_candidate_pool: int = 0
    # A list question asking for a kind of thing ("what activities does Melanie…"): up to this many
    # of the named people's messages naming a kind of it by WordNet ("swimming", categories.py,
    # the table in resources/wordnet) lead the named order, and are lifted over the floor like
    # instances; 0 = off. LoCoMo multi-hop R@10 0.537 -> 0.554 with the defaults below, R@10 and
    # R@5 held (docs/benchmarks.md, "Recall: category questions, shipped (issue 12, `mh10`)").
    category_words: int = 10
    # ... read from the named people's latest this many messages (mh9: 2000; 1000 moves no LoCoMo
    # question, where a person has at most 671, and halves the cost at 100k; 500 loses one),
    category_scan: int = 1000
    # ... among the user's latest this many (bounds the SQL's walk at any archive size).
    category_window: int = 20_000
    # ... counting only words held by at most this many of them (0 = any): a person names a
    # pastime once or twice ("swimming") but broad kinds often ("care", "support", "fun").
    category_max_df: int = 2
    # ... placed ahead of the named order (else taken in turns with it: +0.000).
    category_lead: bool = True
    # ... found by WordNet ("wordnet"), by the embedder's cosine of each message's word closest to
    # the noun ("model", instances.py: one embedding per new word, cached; −0.021), or WordNet's
    # first then the model's ("both"; −0.007).
    category_source: str = "wordnet"
    # ... the distinct words the model judges at most (the named people's latest messages first).
    category_vocabulary: int = 2000
    # ... which of a word's WordNet noun senses count: its "first", "any" (+0.003), or any for a
    # word in "-ing" ("gerund": "painting" is first a picture; −0.002) (CategoryWords.of_kind).
    category_senses: str = "first"
    # ... a word WordNet lacks counts by its last part when both parts are words ("kickboxing"):
    # +0.000, so off.
    category_compounds: bool = False
    # ... with two named people, each one's words counted for `category_max_df` apart: a city John
    # names once is rare though Tim names it too.
    category_per_person: bool = True
    # ... and for kinds of thing with titles (books, movies, songs), messages quoting a title
    # ("I just watched "Little Women"": +0.005).
    category_titles: bool = True

    fusion: FusionParams = field(default_factory=FusionParams)


@dataclass(frozen=True, slots=True)
class MessageQuery:
    text: str
    filters: SearchFilters
    limit: int
    user_id: str
    # Show the nearest hits even below the relevance floor.
    loose: bool = False
    # Which parts of query understanding to apply (the UI's chips can take each back).
    understand: frozenset[str] = ALL_PARTS


class MessageSearcher:
    def __init__(
        self,
        db: Database,
        corpus: Corpus,
        embedder: Embedder,
        clock: Clock,
        *,
        access: AccessTracker | None = None,
        config: SearchConfig | None = None,
        people: PeopleDirectory | None = None,
        keys: Corpus | None = None,
    ) -> None:
        self.db = db
        self.corpus = corpus
        self.embedder = embedder
        self.clock = clock
        self.access = access
        self.config = config or SearchConfig()
        self.people = people or PeopleDirectory(db)
        # The messages' sentence keys (a vector-only kind whose hits resolve to messages).
        self.keys = keys
        self.windows = ConversationWindows()
        self.instances = InstanceMatcher(embedder)
        self.categories = CategoryWords()
        # BM25 runs beside the query embedding and vector scan: SQLite, ONNX Runtime and NumPy
        # all release the GIL, so on two cores the keyword leg costs almost no wall time.
        self._keyword_pool = ThreadPoolExecutor(max_workers=4, thread_name_prefix="strata-bm25")

    def close(self) -> None:
        self._keyword_pool.shutdown(wait=True)

    def search(self, query: MessageQuery) -> list[SearchHit]:
        return self.search_understood(query).hits

    def search_understood(self, query: MessageQuery) -> SearchOutcome:
        """Hits above the relevance floor (all nearest ones when `loose`), with what was understood."""
        filters, text = query.filters, query.text.strip()
        if not text:
            return SearchOutcome(hits=[], loose=query.loose)
        mentions = (
            self.people.mentions(query.user_id, text) if PEOPLE in query.understand else Mentions.none()
        )
        people = Understood(people=tuple(sorted(mentions.persons)), channels=tuple(sorted(mentions.channels)))
        dates = self.config.parse_dates and DATES in query.understand
        if dates and filters.since is None and filters.until is None:
            parsed = parse_query_dates(text, self.clock.now_ms())
            if parsed.range is not None:
                dated = replace(filters, since=parsed.range.since, until=parsed.range.until)
                found = self._search(replace(query, text=parsed.text, filters=dated), mentions)
                date = DateUnderstood(parsed.range.phrase, parsed.range.since, parsed.range.until)
                if found.hits:
                    return self._outcome(query, found, replace(people, date=date))
                # Nothing in the range: say so, and offer the undated result instead, for the rest
                # of the query (the date words are not what the person is looking for); if that
                # finds nothing either, the phrase may not have meant a date ("may day"): all words.
                found = self._search(replace(query, text=parsed.text), mentions)
                if not found.hits and parsed.text.strip() != text:
                    found = self._search(replace(query, text=text), mentions)
                return self._outcome(query, found, replace(people, date=replace(date, applied=False)))
        return self._outcome(query, self._search(replace(query, text=text), mentions), people)

    def _outcome(self, query: MessageQuery, found: RankedMessages, understood: Understood) -> SearchOutcome:
        if self.access is not None and found.hits:
            self.access.record(int(h.id) for h in found.hits)
        return SearchOutcome(hits=found.hits, understood=understood, loose=query.loose, hidden=found.hidden)

    def _search(self, query: MessageQuery, mentions: Mentions) -> RankedMessages:
        pool = max(self.config.candidate_pool, query.limit * 3)
        if self.config.list_candidate_pool and asks_for_list(query.text):
            pool = max(pool, self.config.list_candidate_pool)
        where = message_filter(query)
        # No in-memory copy (served by the approximate index): the candidates' rows, turns and
        # vectors are read from SQLite and LanceDB, once per query (stored_windows.py).
        store = (
            StoredWindows(_HIT_FIELDS, self.corpus.collection.vectors_of)
            if self.corpus.matrix().view() is None
            else None
        )
        keyword_future = self._keyword_pool.submit(self._keyword_and_vectors, query, where, pool, store)
        # A list question's second embedding and scan run beside the first (both release the GIL).
        named_future = (
            self._keyword_pool.submit(self._named_nearest, query, mentions, where)
            if self._wants_named(query, mentions)
            else None
        )
        # A query naming people (not a list question) is embedded without the names too: both
        # vector legs search partly without the names (key_query.py).
        bare = self._nameless(query.text, mentions)
        nameless = without_names(query.text, mentions)
        # The floor judges a query naming people without the names and without its question
        # frame (query_words.without_frame: "got" alone is close to every "get" of the archive).
        floor_text = without_frame(nameless) if self.config.floor_frame else nameless
        # On the index path the floor asks for it in about two of three searches naming people
        # (LoCoMo questions): embedded with the query, it is ready when the ranking asks instead
        # of costing an embedding then, on the search thread. When it is the text both vector
        # legs blend in, that embedding serves.
        floor_early = (
            store is not None and self.config.floor_nameless and nameless != query.text and floor_text != bare
        )
        # One model call for all of them where the embedder batches (query_vectors.py).
        embedded = QueryVectors(
            self.embedder,
            [query.text, *([bare] if bare else []), *([floor_text] if floor_early else [])],
            self._keyword_pool,
        )
        query_vector = embedded[query.text]
        nameless_vector = embedded[bare] if bare else None
        vector = query_vector
        if (
            nameless_vector is not None
            and self.config.message_nameless_mix > 0
            and not asks_about_self(query.text)
        ):
            vector = blend(query_vector, nameless_vector, self.config.message_nameless_mix)
        key_future = None
        with_keys = self.keys is not None and self.config.sentence_keys and self.keys.collection.exists
        # An empty key collection (keys not built yet) finds nothing: its leg, and the second
        # query embedding it makes for a query naming people, are skipped (same result).
        if with_keys and self.keys is not None and not self.keys.matrix().holds_nothing():
            # Beside the messages' own scan (NumPy releases the GIL). Keys carry the messages'
            # fixed columns only: archived rows are dropped after hydration like any candidate.
            key_where = where.without("archived", "tier")
            key_future = self._keyword_pool.submit(
                self._key_leg, self.keys, query.text, mentions, query_vector, nameless_vector, key_where
            )
        vector_hits = self.corpus.vector_leg(vector, pool, where)
        named = named_future.result() if named_future is not None else ()
        if named:
            seen = {h.key for h in vector_hits}
            new = [k for k in named if k not in seen]
            # Scored like every other candidate: on their cosine with the query itself.
            own = self.windows.around(self.corpus.matrix(), vector, new, windows=False)
            if own is None and new:
                # No in-memory copy (a large archive): their cosines from their stored vectors,
                # so both paths take the same candidates (the exact path differed without them).
                q = vector.astype(np.float32)
                read = store.vectors if store is not None else self.corpus.collection.vectors_of
                stored_new = read(new)
                own = CandidateContext({k: float(v @ q) for k, v in stored_new.items()}, {}, {})
            if own is not None:
                vector_hits = (*vector_hits, *(LegHit(k, 0, own.cosines[k]) for k in new if k in own.cosines))

        def own_cosines(keys: list[str]) -> dict[str, float]:
            context = self.windows.around(self.corpus.matrix(), vector, keys, windows=False)
            return context.cosines if context is not None else {}

        if with_keys:
            weight, least = self.config.key_weight, self.config.key_min_cosine
            key_hits = key_future.result() if key_future is not None else ()
            vector_hits = resolve_keys(vector_hits, key_hits, own_cosines, weight, least)
        keyword_hits, keyword_vectors = keyword_future.result()
        legs = Legs(vector=vector_hits, keyword=keyword_hits)
        keys = legs.keys
        if not keys:
            return RankedMessages([], 0)
        if store is not None and self._stored_windows():
            # The keyword candidates were read on the worker; the vector candidates' rows and
            # turns are read half here, half on a worker (SQLite releases the GIL: the two
            # halves take the time of one on two cores). Their vectors wait for the ranking to
            # pick the best of them (`windows_for`): reading every vector candidate's window
            # vectors in the halves instead cost ~10 ms more CPU a search at 1M (one more
            # lookup, 11 % more vectors) for no wall-clock gain under load (docs/benchmarks.md,
            # "1M: wall-clock critical path").
            todo = store.unread(keys)
            half = self._keyword_pool.submit(self._read_rows, store, todo[: len(todo) // 2])
            self._read_rows(store, todo[len(todo) // 2 :])
            half.result()
            rows = {k: store.rows[k] for k in keys if k in store.rows}
        else:
            candidates = [int(k) for k in keys]
            with self.db.read() as session:
                rows = hit_rows(session, candidates)
        matrix = self.corpus.matrix()
        # Keyword-only candidates get their cosine too (from the in-memory copy).
        own = self.windows.around(matrix, vector, keys, windows=False)
        if own is None and keyword_vectors:
            # No in-memory copy (a large archive): keyword candidates' cosines from their vectors.
            q = vector.astype(np.float32)
            own = CandidateContext({k: float(v @ q) for k, v in keyword_vectors.items()}, {}, {})

        fetched: dict[str, Any] = {}  # neighbours' rows, read once per query
        calls = 0

        def windows_for(best: Sequence[str]) -> tuple[CandidateContext | None, dict[str, Any]]:
            nonlocal store, calls
            calls += 1
            context = self.windows.around(matrix, vector, best)
            if context is None:
                # No in-memory copy (served by the approximate index): the same windows, from the
                # candidates' conversations in SQLite and their stored vectors. The first call
                # gets the best candidates, best first; the turns beside the best few join as
                # candidates (ranking.py), so their windows' vectors come in the same lookup.
                store = store or StoredWindows(_HIT_FIELDS, self.corpus.collection.vectors_of)
                ahead = best[: self.config.neighbour_candidates] if calls == 1 else ()
                return store.windows(self.db.read, vector, best[: self.config.stored_windowed], ahead=ahead)
            around = {n for near in context.neighbours.values() for n in near}
            missing = [int(n) for n in around if n not in fetched and n not in rows]
            if missing:
                with self.db.read() as session:
                    # Full hit columns: the best candidates' neighbours may become candidates too.
                    fetched.update(hit_rows(session, missing))
            return context, {n: fetched[n] for n in around if n in fetched}

        nameless_context = None
        if self.config.floor_nameless and nameless != query.text:

            def nameless_context(keys: Sequence[str]) -> CandidateContext | None:
                # Used only when the floor asks (ranking._unheld_word).
                if nameless_vector is not None and floor_text == bare:
                    floor_vector = nameless_vector
                elif floor_early:
                    floor_vector = embedded[floor_text]
                else:
                    floor_vector = self.embedder.embed_query(floor_text)
                if matrix.view() is None and store is not None:
                    # No in-memory copy: the same cosines and windows from the stored vectors
                    # (read once per query). Without them the index path skipped this judgement
                    # and agreed with the exact path on 0.78 of the top 10 instead of 0.98
                    # (docs/benchmarks.md, "1M: wall-clock critical path").
                    return store.windows(self.db.read, floor_vector, keys)[0]
                return self.windows.around(matrix, floor_vector, keys)

        return rank_messages(
            nameless_context=nameless_context,
            query_text=query.text,
            vector=legs.vector,
            keyword=legs.keyword,
            rows=rows,
            cosines=own.cosines if own is not None else None,
            windows_for=windows_for if self.config.windows else None,
            passes=lambda row: self._passes(row, query),
            mentions=mentions,
            named=named,
            instances=self._instance_evidence(query, mentions) if named else None,
            now_ms=self.clock.now_ms(),
            config=self.config,
            limit=query.limit,
            loose=query.loose,
            to_hit=_hit,
        )

    def _key_leg(
        self,
        keys: Corpus,
        text: str,
        mentions: Mentions,
        vector: np.ndarray,
        nameless: np.ndarray | None,
        where: Filter,
    ) -> tuple[LegHit, ...]:
        """The sentence keys nearest to the query (for a query naming people, partly without the
        names, `nameless`: key_query.py)."""

        def embed(text: str) -> np.ndarray:
            return nameless if nameless is not None else self.embedder.embed_query(text)

        key_vector = key_query_vector(vector, text, mentions, embed, self.config.key_nameless_mix)
        return keys.vector_leg(key_vector, self.config.key_pool, where)

    def _nameless(self, text: str, mentions: Mentions) -> str | None:
        """The query without its names when a vector leg blends it in (key_query.py), else None."""
        config = self.config
        # An empty key collection (keys not built yet) skips its leg, so its blend is not wanted.
        keys = self.keys
        wanted = (config.message_nameless_mix > 0 and not asks_about_self(text)) or (
            config.key_nameless_mix > 0
            and config.sentence_keys
            and keys is not None
            and keys.collection.exists
            and not keys.matrix().holds_nothing()
        )
        return nameless_text(text, mentions) if wanted else None

    def _shaped(self, text: str, mentions: Mentions) -> np.ndarray | None:
        """The embedded answer-shaped statement of a question about named people (or None)."""
        names = [w for person in mentions.persons for w in person.lower().split()]
        shaped = answer_shaped(text, names)
        return self.embedder.embed_query(shaped) if shaped else None

    def _instance_evidence(
        self, query: MessageQuery, mentions: Mentions
    ) -> Callable[[Mapping[str, str]], dict[str, float]] | None:
        """For a list question asking for a kind of thing, the relevance each text earns by naming
        one (instances.py); None when the question names no kind or the model's cosines are not
        calibrated (the threshold is on the calibrated scale; a remote model would also be paid
        for every word)."""
        category = asked_category(query.text)
        if category is None or not self.config.list_instances:
            return None
        if self.embedder.model_id not in COSINE_SCALES:
            return None
        model = self.config.fusion.config.relevance
        names = [w for person in mentions.persons for w in person.split()]
        # A message naming a kind of the thing by WordNet gets the least relevance an instance gets.
        kind_relevance = model.semantic_weight * INSTANCE_MIN if self.config.category_words else 0.0

        def evidence(texts: Mapping[str, str]) -> dict[str, float]:
            closest = self.instances.closest(category, texts, skip=names)
            found = {
                k: r for k, (cosine, _) in closest.items() if (r := instance_relevance(cosine, model)) > 0
            }
            if kind_relevance:
                kinds = naming_kind(
                    self.categories,
                    category,
                    texts,
                    skip=names,
                    senses=self.config.category_senses,
                    compounds=self.config.category_compounds,
                )
                for k in kinds:
                    found[k] = max(found.get(k, 0.0), kind_relevance)
            return found

        return evidence

    def _wants_named(self, query: MessageQuery, mentions: Mentions) -> bool:
        """A list question naming people, with no person filter of its own (`_named_nearest`)."""
        return (
            bool(self.config.list_pool and mentions.persons)
            and not query.filters.persons
            and asks_for_list(query.text)
        )

    def _named_nearest(self, query: MessageQuery, mentions: Mentions, where: Filter) -> tuple[str, ...]:
        """For a list question naming people, their messages nearest to the question without the
        names, nearest first (else nothing).

        The answers to "which cities has John been to?" are John's messages naming cities, spread
        over months and sharing none of the question's words, so neither leg ranks them well.
        Every message of a conversation is addressed to its other person ("Wow, John! …"), so the
        name pulls the query's vector towards greetings; without it, John's own messages about
        places come first (on LoCoMo multi-hop questions this order alone beat the whole ranking
        within the person's messages, docs/benchmarks.md "Recall: list questions")."""
        nameless = without_names(query.text, mentions)
        if nameless == query.text:
            return ()
        vector = self.embedder.embed_query(nameless)
        if self.config.answer_shape:
            shaped = self._shaped(query.text, mentions)
            vector = blend(vector, shaped, 0.5) if shaped is not None else vector
        # One order per person, taken in turns: "what do Jon and Gina both like?" needs both
        # people's answers, and one person's messages can be nearer to the question throughout.
        orders = [
            [
                h.key
                for h in self.corpus.vector_leg(vector, self.config.list_pool, where.and_(Eq("person", p)))
            ]
            for p in sorted(mentions.persons)
        ]
        nearest = [k for turn in zip_longest(*orders) for k in turn if k is not None]
        kinds = self._category_order(query, mentions, vector)
        if kinds and self.config.category_lead:
            nearest = [*kinds, *nearest]
        elif kinds:
            # Taken in turns: the kind's messages are evidence the vector misses, the nearest
            # ones what it finds.
            nearest = [k for turn in zip_longest(kinds, nearest) for k in turn if k is not None]
        return tuple(dict.fromkeys(nearest))

    def _category_order(self, query: MessageQuery, mentions: Mentions, vector: np.ndarray) -> list[str]:
        """The named people's messages naming a kind of what a list question asks for, nearest
        first, at most `category_words` (category_messages.py); empty when off or not asked."""
        category = asked_category(query.text) if self.config.category_words else None
        if category is None:
            return []

        def cosines(keys: list[str]) -> Mapping[str, float]:
            context = self.windows.around(self.corpus.matrix(), vector, keys, windows=False)
            if context is not None:
                return context.cosines
            q = vector.astype(np.float32)
            return {k: float(v @ q) for k, v in self.corpus.collection.vectors_of(keys).items()}

        config = self.config
        with self.db.read() as session:
            groups = person_groups(
                session,
                user_id=query.user_id,
                persons=sorted(mentions.persons),
                scan=config.category_scan,
                window=config.category_window,
            )
        return kind_order(
            self.categories,
            self.instances,
            groups,
            category=category,
            names=[w for p in mentions.persons for w in p.split()],
            cosines=cosines,
            limit=config.category_words,
            max_df=config.category_max_df,
            per_person=config.category_per_person,
            source=config.category_source,
            senses=config.category_senses,
            compounds=config.category_compounds,
            titles=config.category_titles,
            vocabulary=config.category_vocabulary,
        )

    def _keyword_and_vectors(
        self, query: MessageQuery, where: Filter, pool: int, store: StoredWindows | None
    ) -> tuple[tuple[LegHit, ...], dict[str, np.ndarray] | None]:
        """The keyword leg and, on archives too large for the in-memory copy (`store`), the stored
        vectors of its hits (keyword-only candidates get a cosine either way) and, with windows
        on, their rows, turns and window vectors: all on this worker while the query is embedded
        and the vector leg runs."""
        hits = self._keyword_candidates(query, where, pool)
        if not hits or store is None:
            return hits, None
        keys = [h.key for h in hits]
        if self._stored_windows():
            with self.db.read() as session:
                store.prefetch(session, keys)
        return hits, store.vectors(keys)

    def _read_rows(self, store: StoredWindows, keys: Sequence[str]) -> None:
        if keys:
            with self.db.read() as session:
                store.read(session, keys)

    def _stored_windows(self) -> bool:
        """Whether candidates get windows on the index path."""
        return self.config.windows and self.config.stored_windowed > 0

    def _keyword_candidates(self, query: MessageQuery, where: Filter, pool: int) -> tuple[LegHit, ...]:
        with self.db.read() as session:
            # One user and no filters: skip the join; rows of other users cannot exist, and
            # archived rows are dropped after hydration.
            plain = not where.without("user_id", "archived").terms and not self.corpus.several_users(session)
            return self.corpus.keyword_leg(
                session,
                query.user_id,
                query.text,
                pool,
                None if plain else where,
                row_budget=self.config.keyword_row_budget,
            )

    @staticmethod
    def _passes(row: Any, query: MessageQuery) -> bool:
        f = query.filters
        if row.user_id != query.user_id:
            return False
        if row.archived_at is not None and not f.include_archived:
            return False
        if f.platforms and row.platform not in f.platforms:
            return False
        if f.channels and row.channel not in f.channels:
            return False
        if f.persons and row.person not in f.persons:
            return False
        if f.since is not None and row.timestamp < f.since:
            return False
        return not (f.until is not None and row.timestamp > f.until)


_HIT_COLUMNS = (
    RawMessageRow.id,
    RawMessageRow.user_id,
    RawMessageRow.archived_at,
    RawMessageRow.platform,
    RawMessageRow.channel,
    RawMessageRow.person,
    RawMessageRow.timestamp,
    RawMessageRow.content,
    RawMessageRow.attachments,  # their names are words of the message (ranking.message_text)
    RawMessageRow.memory_stage,
    RawMessageRow.message_id,
    RawMessageRow.summary_ref_id,
    RawMessageRow.is_pinned,
)


# One statement with one bound value (the ids as a JSON array): an expanding `IN (…)` was
# compiled for every list length, and the ORM's result handling cost more than SQLite's reads
# (0.6 against 1.0-1.1 ms a call, 2-3 calls a search; docs/benchmarks.md, "REST search in
# worker processes"). The rows are the same values (`is_pinned` is 0/1, read as a truth value).
_HIT_SQL = (
    f"SELECT {', '.join(c.name for c in _HIT_COLUMNS)} FROM {RawMessageRow.__tablename__} "
    "WHERE id IN (SELECT value FROM json_each(?))"
)


def hit_rows(session: Session, ids: Sequence[int]) -> dict[str, Any]:
    """Rows of `ids` with the columns a hit needs (plain tuples, not ORM objects), by key."""
    # fetchall: one call into sqlite3 for every row, not a fetchone per row (0.79 against 0.91 ms
    # a call of ~140 rows, three calls a search; docs/benchmarks.md, "REST: CPU per search").
    found = session.connection().exec_driver_sql(_HIT_SQL, (json.dumps(list(ids)),)).fetchall()
    return {str(r.id): r for r in found}


_HIT_FIELDS = tuple(c.key for c in _HIT_COLUMNS)


def _hit(row: Any, score: float, relevance: float) -> SearchHit:
    extra: dict[str, Any] = {}
    if row.is_pinned:
        extra["is_pinned"] = True
    if row.archived_at is not None:  # only with include_archived: replaced by summary_id
        extra["archived_at"] = row.archived_at
    return SearchHit(
        id=str(row.id),
        kind="message",
        content=row.content,
        score=score,
        platform=row.platform,
        channel=row.channel,
        person=row.person,
        timestamp=row.timestamp,
        tier=row.memory_stage,
        message_id=row.message_id,
        summary_id=row.summary_ref_id,
        extra=extra,
        relevance=relevance,
    )


def message_filter(query: MessageQuery) -> Filter:
    """The query's filters as typed terms over the message corpus's columns."""
    f = query.filters
    return Filter(
        tuple(
            t
            for t in (
                Eq("user_id", query.user_id),
                None if f.include_archived else Eq("archived", False),
                one_of("platform", f.platforms),
                one_of("channel", f.channels),
                one_of("person", f.persons),
                between("timestamp", f.since, f.until),
            )
            if t is not None
        )
    )
