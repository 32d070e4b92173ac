"""Bulk-build a large message archive (1M messages in minutes) for the scale benchmarks.

Embedding a million messages takes hours on two cores, and going through the ingest path one
batch at a time costs a merge into LanceDB per batch. Here rows, keyword entries and vectors
are written in large batches straight into the stores the app uses, with the same row values,
keyword text, prefilter columns and content stamps the processor would write, so the result is
an ordinary data dir (`strata doctor` finds nothing to repair). Texts come from the LoCoMo
bigram model (`locomo_corpus`); vectors are real MiniLM vectors of a sample of those texts,
reused with small noise (as `bench_search.RecycledEmbedder` does).
"""

from __future__ import annotations

import collections
import random
import time
import zlib
from collections.abc import Callable, Iterator
from pathlib import Path
from types import SimpleNamespace

import numpy as np
import pyarrow as pa
from sqlalchemy import func, insert, select

from app.bootstrap import Services
from app.core import aaak
from app.core.embeddings.base import Embedder
from app.core.index.key_source import MessageKeyStampRow
from app.core.index.message_keys import key_docs, message_of
from app.core.index.message_kind import message_doc
from app.core.storage.models import RawMessageRow, User
from tests.benchmarks import locomo_corpus, locomo_data

POOL_SIZE = 3000
NOISE = 0.02
START_MS = 1_262_304_000_000  # 2010-01-01: ~15 years of history at 1M messages


def texts(seed: int) -> Iterator[tuple[str, str, str, str]]:
    """Endless (platform, channel, person, text) in LoCoMo's vocabulary."""
    real, _ = locomo_data.load()
    model = locomo_corpus.BigramChat([m.content for m in real], seed)
    people = sorted({m.person for m in real}) + [f"friend-{i}" for i in range(20)]
    channels = [f"{kind}-{i}" for kind in ("dm", "group", "team") for i in range(40)]
    rng = random.Random(seed)
    while True:
        yield (
            rng.choice(["slack", "discord", "telegram"]),
            rng.choice(channels),
            rng.choice(people),
            model.message(),
        )


def pool_vectors(real: Embedder, workdir: Path | None, seed: int = 11) -> np.ndarray:
    """Real vectors of `POOL_SIZE` corpus texts (cached in `workdir`: embedding them takes a minute)."""
    cache = workdir / f"pool-{real.model_id.replace('/', '_')}-{seed}.npy" if workdir else None
    if cache is not None and cache.exists():
        return np.load(cache)
    source = texts(seed)
    pool = real.embed_documents([next(source)[3] for _ in range(POOL_SIZE)])
    if cache is not None:
        cache.parent.mkdir(parents=True, exist_ok=True)
        np.save(cache, pool)
    return pool


def build(
    services: Services,
    size: int,
    pool: np.ndarray,
    *,
    seed: int = 11,
    batch: int = 25_000,
    progress: Callable[[str], None] = print,
) -> float:
    """Write `size` messages for user "local"; returns the seconds it took."""
    started = time.perf_counter()
    corpus = services.processor.corpus
    collection = corpus.collection
    model_id, dims = corpus.embedder.model_id, corpus.embedder.dimensions
    rng = np.random.default_rng(seed)
    source = texts(seed)
    now = int(time.time() * 1000)
    with services.db.write() as session:
        if session.get(User, "local") is None:
            session.add(User(id="local", display_name="local", created_at=now))
        next_id = int(session.execute(select(func.coalesce(func.max(RawMessageRow.id), 0))).scalar_one()) + 1
    ts = START_MS
    for start in range(0, size, batch):
        n = min(batch, size - start)
        rows: list[dict[str, object]] = []
        docs = []
        for i in range(n):
            platform, channel, person, content = next(source)
            ts += int(rng.integers(5_000, 900_000))
            values = {
                "id": next_id + start + i,
                "message_id": f"scale-{seed}-{start + i}",
                "platform": platform,
                "user_id": "local",
                "bot_id": None,
                "channel": channel,
                "person": person,
                "timestamp": ts,
                "created_at": now,
                "content": content,
                "attachments": [],
                "metadata_": {},
                "memory_stage": "short",
                "access_count": 0,
                "importance_score": None,
                "is_pinned": False,
                "text_hash": aaak.content_hash(content),
                "archived_at": None,
            }
            # A plain namespace reads like the ORM row to `message_doc`, at a fifth of the cost.
            doc = message_doc(SimpleNamespace(**values, embedding_content_hash=None))  # type: ignore[arg-type]
            values.update(
                embedding_model=model_id,
                embedding_content_hash=doc.content_hash,
                embedding_dimensions=dims,
                embedding_updated_at=now,
            )
            values["metadata"] = values.pop("metadata_")
            rows.append(values)
            docs.append(doc)
        with services.db.write() as session:
            session.connection().execute(insert(RawMessageRow.__table__), rows)
            corpus.index_text(session, "local", [(d.key, d.keyword_text) for d in docs])
        picks = np.array([zlib.crc32(str(r["content"]).encode()) % len(pool) for r in rows])
        vectors = pool[picks] + rng.normal(0, NOISE, (n, dims)).astype(np.float32)
        vectors /= np.linalg.norm(vectors, axis=1, keepdims=True)
        data: dict[str, object] = {"key": [d.key for d in docs]}
        for column in collection.columns:
            data[column] = [({"user_id": d.user_id, **d.columns})[column] for d in docs]
        data["vector"] = pa.FixedSizeListArray.from_arrays(pa.array(vectors.astype(np.float32).ravel()), dims)
        # One append per batch (the app's upsert merges on the key, which a fresh archive needs not).
        collection.table.add(pa.table(data, schema=collection.schema))
        progress(f"  {start + n:,} / {size:,} messages ({time.perf_counter() - started:.0f} s)")
    return time.perf_counter() - started


def build_keys(
    services: Services,
    share: float,
    pool: np.ndarray,
    *,
    seed: int = 12,
    batch: int = 20_000,
    progress: Callable[[str], None] = print,
) -> tuple[int, int, float]:
    """Sentence keys for the first `share` of the messages by id (the order the repair job builds
    them in) that have none yet, with the same recycled vectors as the messages (a key's vector is
    a pool vector picked by its text, plus noise), appended and stamped as the key backlog would.
    Real keys take hours at 1M (~150 messages a second); this takes minutes. Returns (messages
    keyed, keys written, seconds)."""
    keys = services.memory.keys
    if keys is None:
        raise ValueError("sentence keys are off (search.sentence_keys)")
    started = time.perf_counter()
    collection = keys.corpus.collection
    model_id, dims = keys.corpus.embedder.model_id, keys.corpus.embedder.dimensions
    rng = np.random.default_rng(seed)
    stamp = MessageKeyStampRow
    with services.db.read() as session:
        total = int(session.execute(select(func.count()).select_from(RawMessageRow)).scalar_one())
        cutoff = session.execute(
            select(RawMessageRow.id)
            .order_by(RawMessageRow.id)
            .offset(max(0, round(total * share) - 1))
            .limit(1)
        ).scalar()
    if cutoff is None or share <= 0:
        return 0, 0, 0.0
    columns = (
        RawMessageRow.id,
        RawMessageRow.user_id,
        RawMessageRow.platform,
        RawMessageRow.channel,
        RawMessageRow.person,
        RawMessageRow.timestamp,
        RawMessageRow.content,
        RawMessageRow.text_hash,
    )
    messages = written = 0
    after = 0
    now = int(time.time() * 1000)
    while True:
        with services.db.read() as session:
            rows = session.execute(
                select(*columns)
                .outerjoin(stamp, stamp.message_id == RawMessageRow.id)
                .where(RawMessageRow.id > after, RawMessageRow.id <= cutoff, stamp.message_id.is_(None))
                .order_by(RawMessageRow.id)
                .limit(batch)
            ).all()
        if not rows:
            break
        after = rows[-1].id
        docs = [d for row in rows for d in key_docs(row)]
        if docs:
            picks = np.array([zlib.crc32(d.document.encode()) % len(pool) for d in docs])
            vectors = pool[picks] + rng.normal(0, NOISE, (len(docs), dims)).astype(np.float32)
            vectors /= np.linalg.norm(vectors, axis=1, keepdims=True)
            data: dict[str, object] = {"key": [d.key for d in docs]}
            for column in collection.columns:
                data[column] = [({"user_id": d.user_id, **d.columns})[column] for d in docs]
            flat = pa.array(vectors.astype(np.float32).ravel())
            data["vector"] = pa.FixedSizeListArray.from_arrays(flat, dims)
            collection.table.add(pa.table(data, schema=collection.schema))
        counts = collections.Counter(message_of(d.key) for d in docs)
        stamps = [
            {
                "message_id": row.id,
                "key_count": counts.get(str(row.id), 0),
                "text_hash": row.text_hash,
                "embedding_model": model_id,
                "embedding_dimensions": dims,
                "updated_at": now,
            }
            for row in rows
        ]
        with services.db.write() as session:
            session.connection().execute(insert(stamp.__table__), stamps)
        messages, written = messages + len(rows), written + len(docs)
        progress(f"  keys of {messages:,} messages: {written:,} keys ({time.perf_counter() - started:.0f} s)")
    return messages, written, time.perf_counter() - started
