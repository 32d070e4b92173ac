"""The rows holding the `n` largest of many scores, as a set, without partitioning every score.

`np.argpartition` over the 100k projected scores of a search cost ~0.5 ms of CPU (the messages'
scan) plus ~0.35 ms (the sentence keys'), ~3-4 % of a REST search (docs/benchmarks.md, "REST:
where the server's CPU goes"). Most scores are far below the n-th: a threshold read off a strided
sample keeps a few times n of them with one comparison pass, and only those are partitioned.

The answer is the same set of rows as `np.argpartition(-scores, n - 1)[:n]` whenever that set is
defined by the scores alone, i.e. when the n-th and (n+1)-th largest differ. On a tie there (rows
with the same projection: a repeated sentence; a third of the scans on the synthetic 100k archive)
argpartition keeps whichever tied rows its internals leave in front; this keeps the lowest rows,
the rule the copy already breaks ties of full scores by (`vector_cache._best`), so the choice no
longer depends on the partition's internals. Callers must not depend on the order of the
returned rows (the vector copy sorts its top rows by score and row afterwards).
"""

from __future__ import annotations

import numpy as np

# Below this many scores the full partition is already cheap.
MIN_SIZE = 8_192
# The sample's threshold aims at this many times n rows kept, so that a sample's bad luck
# rarely keeps fewer than n (which falls back to the full partition: slower, never wrong).
MARGIN = 3


def top_rows(scores: np.ndarray, n: int) -> np.ndarray:
    """Indices of the `n` largest `scores` (any order); the same set `np.argpartition(-scores,
    n - 1)[:n]` takes. `scores` is 1-D float, may hold -inf for rows masked out, `0 < n < len`."""
    size = len(scores)
    if size < MIN_SIZE or n * MARGIN * 8 > size:
        return _full(scores, n)
    step = max(1, size // (4 * MARGIN * n))  # a sample of ~4 x MARGIN x n scores
    sample = scores[::step]
    # The sample's share of the rows above the threshold matches the whole's, on average.
    wanted = max(1, (MARGIN * n) // step)
    if wanted >= len(sample):
        return _full(scores, n)
    threshold = np.partition(sample, len(sample) - wanted)[len(sample) - wanted]
    if not np.isfinite(threshold):
        return _full(scores, n)
    kept = np.flatnonzero(scores >= threshold)
    if len(kept) <= n:  # too few above it (n exactly would leave the tie check nothing to compare)
        return _full(scores, n)
    values = scores[kept]
    order = np.argpartition(-values, n)  # position n holds the (n+1)-th largest
    last = values[order[:n]].min()
    if values[order[n]] != last:
        return kept[order[:n]]
    # A tie at the n-th: the rows above it, then the lowest of the tied rows (`kept` ascends).
    above = np.flatnonzero(values > last)
    tied = np.flatnonzero(values == last)[: n - len(above)]
    return kept[np.concatenate([above, tied])]


def _full(scores: np.ndarray, n: int) -> np.ndarray:
    return np.argpartition(-scores, n - 1)[:n]
