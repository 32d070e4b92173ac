"""How far the approximate index probes for a narrow prefilter: scaled by the rows it keeps.

A prefilter keeping few rows leaves few of them in the partitions nearest to the query, so the
search must probe further. Unbounded probing (LanceDB's `maximum_nprobes(0)`) scans every
partition: at 1M rows (1,000 partitions) one channel of 8,400 rows cost 42 ms of CPU a query
and a 16,800-row filter 45 ms, against 16-21 ms when the probes grow with 1 / the rows kept,
at Recall@10 0.994-1.000 (docs/benchmarks.md, "1M: concurrent legs and filters"). Below a few
thousand rows the scaled probes reach every partition anyway: those searches stay unbounded
(the same answers as before).
"""

from __future__ import annotations

import math


def narrow_probes(kept_rows: float, partitions: int, *, probes: int, narrow_max_rows: int) -> int:
    """Partitions to probe for a prefilter keeping `kept_rows` (0 = all of them, unbounded).

    `probes` is what an unfiltered search probes; a filter keeping `narrow_max_rows` rows probes
    as many, one keeping half of that twice as many, and so on: about the same number of the
    filter's rows is seen whatever its size."""
    if kept_rows <= 0:
        return 0
    wanted = math.ceil(probes * max(1.0, narrow_max_rows / kept_rows))
    return 0 if wanted >= partitions else wanted
