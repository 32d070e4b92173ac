"""One record kind's index: FTS5 entries, vectors per model, and the typed two-leg search over them.

SQLite rows stay the source of truth and belong to the feature that owns the kind; the corpus
owns how they are indexed. Writes: keyword entries inside the caller's transaction (so a row
and its text commit together), vectors after the commit (they can always be rebuilt from
SQLite, never the other way round), prefilter columns updated in place. Reads: a vector leg
over the in-memory exact copy (LanceDB's approximate index above its size limit, `ann.py`)
and a BM25 leg, both under one typed filter, returned as ranked evidence for the one fusion function.
"""

from __future__ import annotations

import logging
import time
from collections.abc import Iterable, Mapping, Sequence
from contextlib import AbstractContextManager, nullcontext
from dataclasses import dataclass, field
from typing import Any

import numpy as np
from sqlalchemy import text as sql_text
from sqlalchemy.orm import Session

from app.core.embeddings.base import Embedder
from app.core.index.ann import AnnIndex
from app.core.index.faiss_build import FaissWork, maintain_faiss, remove_keys
from app.core.index.faiss_files import FaissFileError, FaissFiles
from app.core.index.faiss_leg import FaissLeg
from app.core.index.filters import Filter, to_mask, to_sql
from app.core.index.lease import WriterLeases
from app.core.index.legs import LegHit, ranked
from app.core.storage.keyword import MESSAGE_KIND, KeywordIndex
from app.core.storage.vector_cache import (
    DEFAULT_MAX_ROWS,
    PROJECT_MIN_ROWS,
    PROJECTED_DIMENSIONS,
    RESCORE_ROWS,
    VectorMatrixCache,
)
from app.core.storage.vectors import VectorCollection, VectorStore

log = logging.getLogger(__name__)


@dataclass(frozen=True, slots=True)
class KindSpec:
    """How one record kind is indexed."""

    kind: str  # keyword-index kind: "message", "summary", "insight", "chunk"
    collection: str  # vector-collection prefix (kept from before the corpus existed)
    columns: tuple[str, ...]  # prefilter columns stored with each vector
    # The keyword leg filters on the kind's own table through this join ("" = keyword_fts only);
    # `keyword_columns` maps each filter column it can apply to a SQL expression over the join.
    keyword_join: str = ""
    keyword_columns: Mapping[str, str] = field(default_factory=dict)
    # False for a vector-only kind (its words are already in another kind's keyword entries).
    keyword: bool = True


@dataclass(frozen=True, slots=True)
class IndexDoc:
    """A record as the index sees it: what to embed, its prefilter values, and its hashes."""

    key: str
    user_id: str
    document: str  # the text embedded (AAAK document for messages and summaries)
    keyword_text: str  # the text BM25 sees
    columns: Mapping[str, Any]
    content_hash: str = ""  # hash of `document` as it is now
    stamped_hash: str | None = None  # hash SQLite says the stored vector was made from


class Corpus:
    def __init__(
        self,
        spec: KindSpec,
        vectors: VectorStore,
        embedder: Embedder,
        keywords: KeywordIndex,
        *,
        leases: WriterLeases | None = None,
        max_cached_rows: int = DEFAULT_MAX_ROWS,
    ) -> None:
        self.spec = spec
        self.vectors = vectors
        self.embedder = embedder
        self.keywords = keywords
        self.leases = leases
        self.max_cached_rows = max_cached_rows  # rows above which LanceDB's index serves
        self._rescore_rows = RESCORE_ROWS
        # The copies' projection (vector_cache.py); read when a copy is made (tests lower them).
        self.project_min_rows = PROJECT_MIN_ROWS
        self.projected_dimensions = PROJECTED_DIMENSIONS
        self.background_load_rows = 0  # a copy this large loads in the background (vector_cache.py)
        # From this many rows the index job keeps a memory-mapped file of the vectors
        # (vector_file.py); 0 = never (kinds whose keys are not message ids).
        self.vector_file_min_rows = 0
        self._caches: dict[str, VectorMatrixCache] = {}
        self._indexes: dict[str, AnnIndex] = {}
        # "faiss": past the copy's limit a faiss IVF-SQ8 index answers the vector leg where it is
        # built and usable, LanceDB's otherwise (search.vector_engine; faiss_leg.py).
        self.vector_engine = "lancedb"
        self._faiss: dict[str, FaissLeg] = {}

    @property
    def kind(self) -> str:
        return self.spec.kind

    # -- collections --------------------------------------------------------------------------
    @property
    def collection(self) -> VectorCollection:
        return self.collection_for(self.embedder.model_id, self.embedder.dimensions)

    def collection_for(self, model_id: str, dimensions: int) -> VectorCollection:
        return self.vectors.collection(self.spec.collection, model_id, dimensions, self.spec.columns)

    @property
    def rescore_rows(self) -> int:
        """Rows of a projected copy scored in full (`search.vector_rescore_rows`; 0 = exact bound)."""
        return self._rescore_rows

    @rescore_rows.setter
    def rescore_rows(self, rows: int) -> None:
        self._rescore_rows = rows
        for cache in list(self._caches.values()):
            cache.rescore_rows = rows

    def matrix(self, collection: VectorCollection | None = None) -> VectorMatrixCache:
        collection = collection or self.collection
        cache = self._caches.get(collection.name)
        if cache is None:
            cache = VectorMatrixCache(
                collection,
                max_rows=self.max_cached_rows,
                project_min_rows=self.project_min_rows,
                projected_dimensions=self.projected_dimensions,
                rescore_rows=self.rescore_rows,
            )
            cache.background_load_rows = self.background_load_rows
            self._caches[collection.name] = cache
        return cache

    def prefetch(self) -> None:
        """Start loading the in-memory copy now if it is not held (vector_cache.py, `prefetch`)."""
        self.matrix().prefetch()

    def release_idle(self, idle_seconds: float, now: float | None = None) -> int:
        """Drop in-memory vector copies no search used for `idle_seconds`, and unmap the faiss
        indexes; bytes they held (the mapped codes are file pages, not counted)."""
        now = time.monotonic() if now is None else now
        held = sum(cache.release_if_idle(idle_seconds, now) for cache in list(self._caches.values()))
        for leg in list(self._faiss.values()):
            if now - leg.used_at >= idle_seconds:
                held += leg.release()
        return held

    def searched_at(self) -> float | None:
        """`time.monotonic()` of this kind's last vector search in this process (None: never)."""
        used = [cache.used_at for cache in list(self._caches.values())]
        return max(used + [leg.used_at for leg in list(self._faiss.values())], default=None)

    def ann(self, collection: VectorCollection | None = None) -> AnnIndex:
        """The approximate index of a collection (built by a background job past its size)."""
        collection = collection or self.collection
        index = self._indexes.get(collection.name)
        if index is None:
            index = AnnIndex(collection)
            self._indexes[collection.name] = index
        return index

    def faiss(self, collection: VectorCollection | None = None) -> FaissLeg:
        """The faiss leg of a collection (its files under `vectors.ivf/` beside LanceDB's)."""
        collection = collection or self.collection
        leg = self._faiss.get(collection.name)
        if leg is None:
            files = FaissFiles(self.vectors.path.parent / "vectors.ivf" / collection.name)
            leg = FaissLeg(collection, files, self.ann(collection).share)
            self._faiss[collection.name] = leg
        return leg

    def maintain_faiss(self, *, repair: bool = False) -> FaissWork:
        """Build, extend or retrain the faiss index when `search.vector_engine` is "faiss" (the
        background index job; `repair`: doctor --repair, which also rebuilds an unusable one)."""
        if self.vector_engine != "faiss":
            return FaissWork("none")
        leg = self.faiss()
        work = maintain_faiss(
            leg.collection, leg.files, min_rows=self.ann(leg.collection).min_rows, repair=repair
        )
        if work.action != "none":
            leg.reopen()
        return work

    def faiss_status(self) -> dict[str, Any] | None:
        """The faiss index as `GET /api/index` and doctor show it (None: not the engine, or
        never built)."""
        if self.vector_engine != "faiss":
            return None
        leg = self.faiss()
        try:
            meta = leg.files.current()
        except FaissFileError as exc:
            return {"rows": 0, "partitions": 0, "disk_bytes": leg.files.disk_bytes(), "unusable": str(exc)}
        if meta is None:
            return None
        return {
            "rows": meta.rows,
            "partitions": meta.partitions,
            "disk_bytes": leg.files.disk_bytes(),
            "unusable": leg.broken,
        }

    def forget_faiss(self, keys: Sequence[str]) -> int:
        """Remove deleted rows' codes from the faiss index files at once (privacy: they must not
        outlive LanceDB's purge of the rows); the count removed. Searches never return them
        anyway (re-scoring drops rows without a vector). If another process holds the index
        lease (a build under way), its next run removes them instead."""
        if self.vector_engine != "faiss" or not keys:
            return 0
        leg = self.faiss()
        lease = f"vector-index:{self.kind}"
        if self.leases is not None and self.leases.live(lease):
            log.info("faiss index busy in another process: deleted rows' codes go at its next run")
            return 0
        try:
            with self.leases.hold(lease) if self.leases is not None else nullcontext():
                removed = remove_keys(leg.files, np.asarray([int(k) for k in keys], dtype=np.int64))
        except FaissFileError as exc:  # an unusable index is rebuilt from LanceDB, without them
            log.warning("faiss index of %s unusable (%s); the index job rebuilds it", self.kind, exc)
            return 0
        if removed:
            leg.reopen()
        return removed

    # -- writes -------------------------------------------------------------------------------
    def writing(self) -> AbstractContextManager[None]:
        """Declare a write in flight (writer lease) so no other process repairs under it."""
        return self.leases.hold(self.kind) if self.leases is not None else nullcontext()

    def index_text(self, session: Session, user_id: str, items: Iterable[tuple[str, str]]) -> None:
        """Keyword entries `(key, text)`, inside the caller's write transaction."""
        self.keywords.upsert(session, self.kind, user_id, items)

    def unindex_text(self, session: Session, keys: Sequence[str]) -> None:
        self.keywords.delete(session, self.kind, keys)

    def embed(self, docs: Sequence[IndexDoc], collection: VectorCollection | None = None) -> None:
        """Embed `docs` and upsert their vectors (after the rows committed)."""
        if not docs:
            return
        vectors = self.embedder.embed_documents([d.document for d in docs])
        self.put_vectors(docs, vectors, collection)

    def put_vectors(
        self, docs: Sequence[IndexDoc], vectors: np.ndarray, collection: VectorCollection | None = None
    ) -> None:
        collection = collection or self.collection
        rows = [{"user_id": d.user_id, **d.columns} for d in docs]
        collection.upsert([d.key for d in docs], vectors, rows)

    def remove_vectors(self, keys: Sequence[str], collection: VectorCollection | None = None) -> None:
        if keys:
            (collection or self.collection).delete(list(keys))

    def set_columns(self, keys: Sequence[str], values: dict[str, Any]) -> None:
        """Change prefilter columns (tier, archived, pinned …) in place, without re-embedding."""
        if keys:
            self.collection.update_columns(list(keys), values)

    # -- search -------------------------------------------------------------------------------
    def vector_leg(self, vector: np.ndarray, pool: int, where: Filter) -> tuple[LegHit, ...]:
        """Top `pool` keys by cosine similarity among the rows `where` keeps."""
        matrix = self.matrix()
        hits = matrix.search(
            vector, pool, lambda columns: to_mask(where, columns, len(matrix_keys(columns))), mask_key=where
        )
        if hits is None and self.vector_engine == "faiss":  # past the limit: faiss, if built
            hits = self.faiss(matrix.collection).search(vector, pool, where)
        if hits is None:  # too many rows to hold in memory: LanceDB's approximate index answers
            hits = self.ann(matrix.collection).search(vector, pool, where)
        return ranked([(h.key, h.similarity) for h in hits])

    def keyword_leg(
        self,
        session: Session,
        user_id: str,
        query: str,
        pool: int,
        where: Filter | None = None,
        *,
        row_budget: int | None = None,
    ) -> tuple[LegHit, ...]:
        """Top `pool` keys by BM25 (positive, higher is better) among the rows `where` keeps.

        `where = None` skips the join to the kind's table (on large archives the join costs as
        much as the match); the caller then drops what it should not show after hydration.
        Terms the kind's table cannot express are left to that post-filter as well."""
        clauses: list[str] = []
        params: dict[str, object] = {}
        join = ""
        if where is not None:
            usable = where.only(set(self.spec.keyword_columns))
            if usable.terms:
                clauses, params = to_sql(usable, self.spec.keyword_columns, prefix="kf")
                join = self.spec.keyword_join
        where_sql = "".join(f" AND {c}" for c in clauses)
        if self.kind == MESSAGE_KIND:
            hits = self.keywords.search_messages(
                session, query, pool, join_sql=join, where_sql=where_sql, params=params, row_budget=row_budget
            )
        else:
            hits = self.keywords.search(
                session, self.kind, user_id, query, pool, join_sql=join, where_sql=where_sql, params=params
            )
        return ranked([(h.ref, h.score) for h in hits])

    def several_users(self, session: Session) -> bool:
        return bool(session.execute(sql_text("SELECT count(*) > 1 FROM users")).scalar_one())


def matrix_keys(columns: Mapping[str, np.ndarray]) -> np.ndarray:
    """Any column of the in-memory copy (they all have one entry per row)."""
    return next(iter(columns.values()))
