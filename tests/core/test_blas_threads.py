"""NumPy's BLAS runs one thread once services are built (its spinning workers doubled a search's CPU)."""

from __future__ import annotations

import numpy as np
import pytest
from threadpoolctl import threadpool_info

from app.bootstrap import Services
from app.core.blas_threads import limit_blas_threads


def blas_threads() -> list[int]:
    return [p["num_threads"] for p in threadpool_info() if p["user_api"] == "blas"]


def test_services_leave_numpy_with_one_blas_thread(services: Services) -> None:
    assert blas_threads() and set(blas_threads()) == {1}
    # Products still work (and give the same numbers: each row's dot product is one thread's).
    matrix = np.arange(12, dtype=np.float32).reshape(4, 3)
    np.testing.assert_array_equal(matrix @ np.ones(3, dtype=np.float32), [3, 12, 21, 30])


def test_limit_is_idempotent_and_rejects_nonsense() -> None:
    assert limit_blas_threads(1) >= 1
    assert limit_blas_threads(1) >= 1
    assert set(blas_threads()) == {1}
    with pytest.raises(ValueError, match="at least 1"):
        limit_blas_threads(0)
