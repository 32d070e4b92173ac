"""top_rows: the same rows as a full argpartition, the lowest of tied rows, masked rows never."""

from __future__ import annotations

import numpy as np
import pytest

from app.core.storage.top_rows import top_rows


@pytest.mark.parametrize("seed", range(20))
def test_same_rows_as_a_full_partition(seed: int) -> None:
    rng = np.random.default_rng(seed)
    scores = rng.standard_normal(100_000).astype(np.float32)
    n = 400 if seed % 2 else 1_040
    assert set(top_rows(scores, n).tolist()) == set(np.argpartition(-scores, n - 1)[:n].tolist())


def test_ties_at_the_last_place_keep_the_lowest_rows() -> None:
    rng = np.random.default_rng(1)
    scores = (np.round(rng.standard_normal(50_000) * 10) / 10).astype(np.float32)  # many ties
    got = top_rows(scores, 400)
    assert len(set(got.tolist())) == 400
    best = np.sort(scores)[::-1][:400]
    assert np.array_equal(np.sort(scores[got])[::-1], best)
    last = best[-1]
    tied = np.sort(got[scores[got] == last])
    assert np.array_equal(tied, np.flatnonzero(scores == last)[: len(tied)])


def test_masked_rows_are_never_taken_while_enough_remain() -> None:
    rng = np.random.default_rng(2)
    scores = rng.standard_normal(60_000).astype(np.float32)
    scores[rng.random(60_000) < 0.9] = -np.inf
    got = top_rows(scores, 400)
    assert np.isfinite(scores[got]).all()
    assert set(got.tolist()) == set(np.argpartition(-scores, 399)[:400].tolist())


def test_small_inputs_take_the_full_partition() -> None:
    scores = np.arange(1_000, dtype=np.float32)
    assert set(top_rows(scores, 10).tolist()) == set(range(990, 1_000))
