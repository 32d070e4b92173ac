"""A typed filter as the faiss leg applies it: rows kept, from LanceDB's columns at one table version.

Tier and archived change in place, so which rows a filter keeps is read from the table as it is
now, never from the index's build. Selective terms give the keys they keep (LanceDB's scalar
indexes; a channel ~1-2 ms at 1M); terms nearly every row meets (one user, "not archived":
`ann.BROAD_SHARE`) give the few keys they drop instead, so "not archived" never reads a million
keys. Both become one bitmap over the index's positions (a faiss `IDSelectorBitmap`: the filter
is applied inside the search) and key sets for the rows not in the index yet. Cached per filter
and table version by the leg.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

import numpy as np
import pyarrow as pa

from app.core.index.ann import BROAD_SHARE
from app.core.index.faiss_build import integer_keys
from app.core.index.filters import Filter, Term, to_lance


@dataclass(frozen=True, slots=True)
class RowFilter:
    kept: np.ndarray | None  # sorted keys the selective terms keep (None: no selective term)
    dropped: np.ndarray  # sorted keys the broad terms drop
    bits: np.ndarray | None  # packed bitmap over the index's positions (None: no filter at all)
    selector: Any  # faiss.IDSelectorBitmap over `bits` (kept alive with them)
    count: int  # positions of the index the filter keeps

    def keeps(self, keys: np.ndarray) -> np.ndarray:
        """Which of `keys` (rows not in the index yet) the filter keeps."""
        mask = np.ones(len(keys), dtype=bool)
        if self.kept is not None:
            mask &= np.isin(keys, self.kept)
        if len(self.dropped):
            mask &= ~np.isin(keys, self.dropped)
        return mask


def row_filter(
    where: Filter,
    table: Any,
    share: Callable[[Term], float],
    positions_of: Callable[[np.ndarray], np.ndarray],
    size: int,
    faiss: Any,
) -> RowFilter:
    """The filter's rows at the table's current version, over an index of `size` positions.

    `positions_of(keys)` gives each key's position in the index (-1: not in it)."""
    broad = tuple(t for t in where.terms if share(t) >= BROAD_SHARE)
    selective = Filter(tuple(t for t in where.terms if t not in broad))
    kept = _keys(table, to_lance(selective)) if selective.terms else None
    dropped = _keys(table, f"NOT ({to_lance(Filter(broad))})") if broad else np.empty(0, np.int64)
    if kept is None and not len(dropped):  # nothing to leave out (one user, nothing archived)
        return RowFilter(None, dropped, None, None, size)
    mask = np.zeros(size, dtype=bool)
    if kept is None:
        mask[:] = True
    else:
        at = positions_of(kept)
        mask[at[at >= 0]] = True
    if len(dropped):
        at = positions_of(dropped)
        mask[at[at >= 0]] = False
    bits = np.packbits(mask, bitorder="little")
    selector = faiss.IDSelectorBitmap(size, faiss.swig_ptr(bits))
    return RowFilter(kept, dropped, bits, selector, int(mask.sum()))


def _keys(table: Any, expression: str | None) -> np.ndarray:
    data = table.search().where(expression).select(["key"]).limit(None).to_arrow()
    return np.sort(
        integer_keys(data.column("key").combine_chunks() if len(data) else pa.array([], pa.string()))
    )
