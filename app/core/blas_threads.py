"""One BLAS thread for NumPy's products: OpenBLAS's own workers doubled the CPU of a search.

NumPy's OpenBLAS starts one worker per core and, after every matrix product, lets them spin
waiting for the next one. A search does a few products (the vector leg over the in-memory copy,
the conversation windows), each a few milliseconds, so the workers mostly spin: at 100k messages
a search cost 56 ms of process CPU with two BLAS threads and 24 ms with one, at the same answers
(`tests/benchmarks/bench_search_stages.py`; docs/benchmarks.md, "REST search CPU by stage").
Searches run side by side on the server's threads instead, which uses the cores for real work.
"""

from __future__ import annotations

import logging

log = logging.getLogger(__name__)

# Products in this app are matrix-vector (one query against many rows): memory-bound, not
# helped by a second thread, while two threads per product under concurrent searches thrash.
DEFAULT_BLAS_THREADS = 1


def limit_blas_threads(count: int = DEFAULT_BLAS_THREADS) -> int:
    """Cap every BLAS library loaded in this process at `count` threads; returns how many were capped.

    Process-wide and lasting (BLAS has one setting per library). Safe to call more than once."""
    if count < 1:
        raise ValueError("count must be at least 1")
    try:
        from threadpoolctl import threadpool_info, threadpool_limits
    except ImportError:  # a broken install: searches stay correct, only slower
        log.warning("threadpoolctl is missing; NumPy's BLAS keeps its default threads")
        return 0
    import numpy  # noqa: F401  (loads OpenBLAS, so there is a library to cap)

    pools = [p for p in threadpool_info() if p.get("user_api") == "blas"]
    if any(p.get("num_threads", 0) > count for p in pools):
        threadpool_limits(limits=count, user_api="blas")
    return len(pools)
