"""Hybrid message search over the message corpus: both legs under one typed filter, one calibrated fusion."""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from concurrent.futures import Future, ThreadPoolExecutor
from dataclasses import replace
from itertools import zip_longest
from typing import Any

import numpy as np

from app.core.access import AccessTracker
from app.core.clock import Clock
from app.core.domain import SearchHit
from app.core.embeddings.base import Embedder
from app.core.index.corpus import Corpus
from app.core.index.filters import Eq, Filter
from app.core.index.legs import LegHit, Legs
from app.core.index.message_keys import resolve as resolve_keys
from app.core.search.answer_shape import answer_shaped
from app.core.search.categories import CategoryWords
from app.core.search.category_messages import kind_order, naming_kind, person_groups
from app.core.search.context import CandidateContext, ConversationWindows
from app.core.search.dates import parse_query_dates
from app.core.search.hit_rows import HIT_FIELDS, hit_rows, to_hit
from app.core.search.instances import INSTANCE_MIN, InstanceMatcher, instance_relevance
from app.core.search.key_query import asks_about_self, blend, key_query_vector, nameless_text
from app.core.search.message_query import MessageQuery, message_filter
from app.core.search.people import Mentions, PeopleDirectory
from app.core.search.query_vectors import QueryVectors
from app.core.search.query_words import without_frame
from app.core.search.questions import asked_category, asks_for_list
from app.core.search.ranking import RankedMessages, rank_messages, without_names
from app.core.search.relevance import COSINE_SCALES
from app.core.search.search_config import SearchConfig
from app.core.search.stored_windows import StoredWindows
from app.core.search.understanding import DATES, PEOPLE, DateUnderstood, SearchOutcome, Understood
from app.core.storage.db import Database


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
        # A list question's category evidence (SQLite and regular expressions) is read beside its
        # named leg's embedding and scan. Its own pool: its task waits only for the named leg's
        # vector, which the waiting named task sets first, so no wait can close a cycle.
        self._category_pool = ThreadPoolExecutor(max_workers=2, thread_name_prefix="strata-kinds")

    def close(self) -> None:
        self._keyword_pool.shutdown(wait=True)
        self._category_pool.shutdown(wait=True)

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
        # Copies not held (the first search, or the first after an idle release) start loading now,
        # beside the query's embedding; their legs wait for that load (same rows, same answers).
        self.corpus.prefetch()
        if self.keys is not None and self.config.sentence_keys:
            self.keys.prefetch()
        pool = max(self.config.candidate_pool, query.limit * 3)
        if self.config.list_candidate_pool and asks_for_list(query.text):
            pool = max(pool, self.config.list_candidate_pool)
        where = message_filter(query)
        # No in-memory copy (served by the approximate index): the candidates' rows, turns and
        # vectors are read from SQLite and LanceDB, once per query (stored_windows.py).
        store = (
            StoredWindows(HIT_FIELDS, self.corpus.collection.vectors_of)
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
        stored_windows = self._stored_windows()
        if store is not None and stored_windows:
            # The vector candidates' rows and turns at once, while the keyword worker may still be
            # reading its own (SQLite releases the GIL): read after waiting for that worker, they
            # came after the slower leg. What the other legs add is read below.
            self._read_halves(store, store.unread([h.key for h in vector_hits]))
        named = named_future.result() if named_future is not None else ()
        named_only: set[str] = set()
        if named:
            seen = {h.key for h in vector_hits}
            new = [k for k in named if k not in seen]
            named_only = set(new)
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
            if context is not None:
                return context.cosines
            # No in-memory copy (a large archive): the messages only their sentence keys found
            # get their cosines from their stored vectors, as on the exact path. Without them the
            # index path dropped every such message, so its ranking followed which messages
            # happened to be keyed (docs/benchmarks.md, "keys12").
            q = vector.astype(np.float32)
            stored = store.vectors(keys) if store is not None else self.corpus.collection.vectors_of(keys)
            return {k: float(v @ q) for k, v in stored.items()}

        if with_keys:
            weight, least = self.config.key_weight, self.config.key_min_cosine
            key_hits = key_future.result() if key_future is not None else ()
            found = {h.key for h in vector_hits}
            vector_hits = resolve_keys(vector_hits, key_hits, own_cosines, weight, least)
            # Messages only their keys found: like a list question's named candidates, most never
            # reach the windowed best (below).
            side_only = named_only | {h.key for h in vector_hits if h.key not in found}
        else:
            side_only = named_only
        keyword_hits, keyword_vectors = keyword_future.result()
        legs = Legs(vector=vector_hits, keyword=keyword_hits)
        keys = legs.keys
        if not keys:
            return RankedMessages([], 0)
        if store is not None and stored_windows:
            # The keyword candidates were read on the worker, the vector candidates above; the
            # rest (the key leg's messages, a list question's named candidates) here. Their
            # vectors wait for the ranking to pick the best of them (`windows_for`): reading
            # every vector candidate's window vectors with their rows instead cost ~10 ms more
            # CPU a search at 1M (one more lookup, 11 % more vectors) for no wall-clock gain
            # under load (docs/benchmarks.md, "1M: wall-clock critical path").
            todo = store.unread(keys)
            # A list question's named candidates (~80 a person) and the messages only their
            # sentence keys found (up to `key_pool`) mostly never reach the windowed best: their
            # rows only, in one plain statement; `windows` reads the turns of those that do. Same
            # hits; CPU p95 of a 1M search -6 % for the named (docs/benchmarks.md, "Lead, session
            # 10"), CPU mean 64 -> 61 ms on a partly keyed 1M archive ("keys12").
            light = [k for k in todo if k in side_only]
            if light:
                todo = [k for k in todo if k not in side_only]
                with self.db.read() as session:
                    store.add_rows(hit_rows(session, [int(k) for k in light]))
            self._read_halves(store, todo)
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
                store = store or StoredWindows(HIT_FIELDS, self.corpus.collection.vectors_of)
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
            to_hit=to_hit,
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

    def _nameless(self, text: str, mentions: Mentions, *, keys_held: bool | None = None) -> str | None:
        """The query without its names when a vector leg blends it in (key_query.py), else None.
        `keys_held`: whether the key leg runs (None: ask the key collection's copy)."""
        config = self.config
        # An empty key collection (keys not built yet) skips its leg, so its blend is not wanted.
        keys = self.keys
        if keys_held is None:
            keys_held = keys is not None and keys.collection.exists and not keys.matrix().holds_nothing()
        wanted = (config.message_nameless_mix > 0 and not asks_about_self(text)) or (
            config.key_nameless_mix > 0 and config.sentence_keys and keys is not None and keys_held
        )
        return nameless_text(text, mentions) if wanted else None

    def texts_to_embed(self, text: str, user_id: str, *, dated: bool) -> tuple[str, ...] | None:
        """The texts a search for `text` embeds before its first ranking (the query less a date
        phrase it turns into a range, and that without the people it names where a vector leg
        blends it in), for a host that embeds waiting searches' texts together and hands each
        search its vectors (app/api/query_batch.py). `dated`: the request brings its own range,
        so the text keeps its date words. None while the people directory was never read (it is
        not read here: the REST server asks on its event loop); () for an empty text.

        It reads no vector copy (a host's copies stay as its own searches left them): the key
        leg is taken to run, so a query naming people whose archive has no sentence keys yet
        gets one vector nobody asks for. The floor's own text (asked for later, if at all) is
        not among them."""
        text = text.strip()
        if not text:
            return ()
        mentions = self.people.mentions_if_read(user_id, text)
        if mentions is None:
            return None
        if self.config.parse_dates and not dated:
            parsed = parse_query_dates(text, self.clock.now_ms())
            text = parsed.text if parsed.range is not None else text
        bare = self._nameless(text, mentions, keys_held=self.config.sentence_keys)
        return (text, bare) if bare else (text,)

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
        vector_ready: Future[np.ndarray] = Future()
        category = asked_category(query.text) if self.config.category_words else None
        kinds_future = (
            self._category_pool.submit(self._category_order, query, mentions, category, vector_ready)
            if category is not None
            else None
        )
        try:
            vector = self.embedder.embed_query(nameless)
            if self.config.answer_shape:
                shaped = self._shaped(query.text, mentions)
                vector = blend(vector, shaped, 0.5) if shaped is not None else vector
        except BaseException as exc:
            vector_ready.set_exception(exc)
            raise
        vector_ready.set_result(vector)
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
        kinds = kinds_future.result() if kinds_future is not None else []
        if kinds and self.config.category_lead:
            nearest = [*kinds, *nearest]
        elif kinds:
            # Taken in turns: the kind's messages are evidence the vector misses, the nearest
            # ones what it finds.
            nearest = [k for turn in zip_longest(kinds, nearest) for k in turn if k is not None]
        return tuple(dict.fromkeys(nearest))

    def _category_order(
        self, query: MessageQuery, mentions: Mentions, category: str, vector_ready: Future[np.ndarray]
    ) -> list[str]:
        """The named people's messages naming a kind of `category` (what a list question asks
        for), nearest to the named leg's vector first (it is awaited only to order them), at most
        `category_words` (category_messages.py)."""

        def cosines(keys: list[str]) -> Mapping[str, float]:
            vector = vector_ready.result()
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

    def _read_halves(self, store: StoredWindows, keys: Sequence[str]) -> None:
        """Rows and turns of `keys`, half here and half on a worker (SQLite releases the GIL: the
        two halves take the time of one on two cores)."""
        if len(keys) < 2:
            self._read_rows(store, keys)
            return
        half = self._keyword_pool.submit(self._read_rows, store, keys[: len(keys) // 2])
        self._read_rows(store, keys[len(keys) // 2 :])
        half.result()

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
