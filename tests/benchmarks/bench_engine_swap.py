"""What a faster vector engine would save a whole 1M search: today's LanceDB leg against faiss IVF.

A prototype measured in the app, not a feature: on a COPY of the 1M archive, the searcher's
approximate index (`AnnIndex.search` of the messages collection) is replaced for the run by a
faiss IVF1000,SQ8 index built by `bench_ann_engines.py` (its `--cache` dir: the dump's row order
is the faiss ids). The faiss leg applies the typed filter inside its search (an id selector over
the filter's rows, made once per filter, as an app would cache it), takes 2 × the rows asked
for, and re-scores them exactly from a memory-mapped float32 copy of the vectors (the dump,
standing for a derived file the index would keep beside it), or with `--take` from the stored
vectors the app reads by row id (`VectorCollection.vectors_of`, LanceDB's take). Each question
is searched with both legs in turn (alternating which goes first): process CPU per search of
each, their ratio, and how often both give the same top 10.

    python tests/benchmarks/bench_engine_swap.py --data-dir COPY --cache DIR [--queries 98] [--nprobe 40]
        [--exact] [--take] [--scale-probes]

`--exact` also searches each question with the leg answered exactly (NumPy over all 1M vectors,
not timed) and says how often each approximate leg's whole search gives the same top 10.
`--scale-probes` probes `nprobe / share` lists for a filter keeping `share` of the rows (all of
them for a narrow one), so a filtered search scans about as many of its rows as an unfiltered one.

Needs `faiss-cpu` (not a project dependency), the engines' cache dir and `../shared/data`.
"""

from __future__ import annotations

import argparse
import importlib.util
import math
import os
import statistics
import sys
import time
from pathlib import Path
from typing import Any

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parents[2]))

from app.bootstrap import build_services
from app.core.domain import SearchFilters
from app.core.embeddings.factory import build_embedder
from app.core.index.filters import Filter, to_mask
from app.core.settings import EmbeddingSettings, Settings
from app.core.storage.vectors import VectorHit
from tests.benchmarks import locomo_corpus

COLUMNS = ("user_id", "platform", "channel", "person", "tier", "timestamp", "archived")


class FaissLeg:
    """The approximate leg on faiss: filter inside the search, exact cosines from stored vectors."""

    def __init__(
        self, cache: Path, collection: Any, nprobe: int, take: bool, scale_probes: bool = False
    ) -> None:
        import faiss

        self.faiss = faiss
        faiss.omp_set_num_threads(1)
        self.index = faiss.read_index(str(cache / "faiss-IVF1000-SQ8.index"), faiss.IO_FLAG_MMAP)
        self.collection = collection
        self.nprobe = nprobe
        self.take = take
        self.scale_probes = scale_probes
        self.vectors = np.load(cache / "vectors.npy", mmap_mode="r")
        self.keys = np.load(cache / "keys.npy")
        data = collection.table.to_arrow().select(["key", *COLUMNS])
        position = {int(k): n for n, k in enumerate(self.keys)}
        order = np.asarray([position[int(k)] for k in data.column("key").to_pylist()])
        self.columns: dict[str, np.ndarray] = {}
        for column in COLUMNS:
            values = data.column(column).to_numpy(zero_copy_only=False)
            aligned = np.empty_like(values)
            aligned[order] = values
            self.columns[column] = aligned
        self._selectors: dict[Filter, tuple[np.ndarray, Any, float]] = {}

    def search(self, vector: np.ndarray, limit: int, where: Filter) -> list[VectorHit]:
        params = self.faiss.SearchParametersIVF(nprobe=self.nprobe)
        if where.terms:
            if where not in self._selectors:
                mask = to_mask(where, self.columns, len(self.keys))
                bits = np.packbits(mask, bitorder="little")  # kept alive beside the selector
                selector = self.faiss.IDSelectorBitmap(len(mask), self.faiss.swig_ptr(bits))
                self._selectors[where] = (bits, selector, float(mask.mean()))
            _, params.sel, share = self._selectors[where]
            if self.scale_probes:  # a filter keeping a share of the rows: as many of them probed
                params.nprobe = min(self.index.nlist, math.ceil(self.nprobe / max(share, 1e-6)))
        q = vector.astype(np.float32)
        _, ids = self.index.search(q[None, :], 2 * limit, params=params)
        found = np.sort(ids[0][ids[0] >= 0])
        if self.take:  # the stored vectors by row id, as the app reads them (LanceDB's take)
            stored = self.collection.vectors_of([str(self.keys[i]) for i in found])
            scored = sorted(((float(v @ q), k) for k, v in stored.items()), reverse=True)[:limit]
            return [VectorHit(k, s) for s, k in scored]
        # A derived float32 copy of the vectors beside the index, memory-mapped (here the dump).
        scores = self.vectors[found] @ q
        best = np.argsort(-scores)[:limit]
        return [VectorHit(str(self.keys[found[i]]), float(scores[i])) for i in best]


class ExactLeg:
    """The same leg answered exactly (NumPy over every vector of the float32 copy), for agreement."""

    def __init__(self, faiss_leg: FaissLeg) -> None:
        self.leg = faiss_leg
        self._masks: dict[Filter, np.ndarray] = {}

    def search(self, vector: np.ndarray, limit: int, where: Filter) -> list[VectorHit]:
        q = vector.astype(np.float32)
        scores = self.leg.vectors @ q
        if where.terms:
            if where not in self._masks:
                self._masks[where] = to_mask(where, self.leg.columns, len(self.leg.keys))
            scores[~self._masks[where]] = -np.inf
        top = np.argpartition(-scores, limit)[:limit]
        top = top[np.argsort(-scores[top])]
        return [VectorHit(str(self.leg.keys[i]), float(scores[i])) for i in top if np.isfinite(scores[i])]


def main() -> int:
    parser = argparse.ArgumentParser()
    parser.add_argument("--data-dir", type=Path, required=True, help="a COPY of the 1M archive")
    parser.add_argument("--cache", type=Path, required=True, help="bench_ann_engines.py's --cache dir")
    parser.add_argument("--queries", type=int, default=98)
    parser.add_argument("--nprobe", type=int, default=40)
    parser.add_argument("--scale-probes", action="store_true", help="a filter: probes / its share")
    parser.add_argument("--exact", action="store_true", help="also compare both with the exact leg")
    parser.add_argument("--take", action="store_true", help="re-score from LanceDB instead of the dump")
    args = parser.parse_args()
    if not locomo_corpus.available() or importlib.util.find_spec("faiss") is None:
        print("skipped: needs ../shared/data and faiss-cpu (pip install faiss-cpu)")
        return 0
    settings = Settings(data_dir=args.data_dir, embedding=EmbeddingSettings(provider="local"))
    services = build_services(settings, embedder=build_embedder(settings.embedding))
    searcher = services.memory.searcher
    ann = searcher.corpus.ann()
    lance_search = ann.search
    leg = FaissLeg(args.cache, searcher.corpus.collection, args.nprobe, args.take, args.scale_probes)
    exact = ExactLeg(leg)
    queries = locomo_corpus.queries(98)[: args.queries]
    filters = [
        SearchFilters(platforms=("slack",)),
        SearchFilters(channels=("group-3", "team-7")),
        SearchFilters(persons=("Caroline",)),
    ]
    for q in queries[:8]:  # warm both
        for engine in (lance_search, leg.search):
            ann.search = engine  # type: ignore[method-assign]
            services.memory.search(q + " warmup", limit=10)
    print(f"load average {os.getloadavg()[0]:.1f}", flush=True)
    for label, chosen in (("no filter", [SearchFilters()]), ("filters", filters)):
        cpu: dict[str, list[float]] = {"lance": [], "faiss": []}
        same = first = 0
        agree = {"lance": [0, 0.0], "faiss": [0, 0.0]}  # identical top 10s, top-10 overlap
        for n, q in enumerate(queries):
            tops: dict[str, list[int]] = {}
            order = (("lance", lance_search), ("faiss", leg.search))
            for name, engine in order if n % 2 == 0 else order[::-1]:
                ann.search = engine  # type: ignore[method-assign]
                searcher.embedder.clear_cache() if hasattr(searcher.embedder, "clear_cache") else None
                started = time.process_time()
                hits = services.memory.search(q, chosen[n % len(chosen)], limit=10)
                cpu[name].append((time.process_time() - started) * 1000)
                tops[name] = [h.id for h in hits]
            same += tops["lance"] == tops["faiss"]
            first += tops["lance"][:1] == tops["faiss"][:1]
            if args.exact:  # the whole search with the exact leg: which approximate one is closer
                ann.search = exact.search  # type: ignore[method-assign]
                want = [h.id for h in services.memory.search(q, chosen[n % len(chosen)], limit=10)]
                for name in ("lance", "faiss"):
                    agree[name][0] += tops[name] == want
                    agree[name][1] += len(set(tops[name]) & set(want)) / max(1, len(want))
        ratio = statistics.median(cpu["faiss"]) / statistics.median(cpu["lance"])
        print(
            f"[{label}] {len(queries)} searches: CPU p50 LanceDB {statistics.median(cpu['lance']):.1f} ms, "
            f"faiss {statistics.median(cpu['faiss']):.1f} ms ({ratio:.2f}x); p95 "
            f"{sorted(cpu['lance'])[int(0.95 * (len(queries) - 1))]:.1f} / "
            f"{sorted(cpu['faiss'])[int(0.95 * (len(queries) - 1))]:.1f} ms; "
            f"identical top 10 {same}/{len(queries)}, "
            f"same first hit {first}/{len(queries)} (load {os.getloadavg()[0]:.1f})",
            flush=True,
        )
        if args.exact:
            print(
                f"[{label}] against the exact leg: identical top 10 "
                f"LanceDB {agree['lance'][0]}/{len(queries)}, faiss {agree['faiss'][0]}/{len(queries)}; "
                "top-10 overlap LanceDB "
                f"{agree['lance'][1] / len(queries):.3f}, faiss {agree['faiss'][1] / len(queries):.3f}",
                flush=True,
            )
    ann.search = lance_search  # type: ignore[method-assign]
    services.close()
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
