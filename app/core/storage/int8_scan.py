"""The projected scan's first pass on int8 codes, through ONNX Runtime's integer matrix product.

At 100k rows the product of every row's 128 float32 projections with the query's is 51 MB read
per search (~2.1 ms of CPU; the sentence keys' 70k rows another ~1.5 ms), the largest share of a
REST search after the query's embedding (docs/benchmarks.md, "REST: where the server's CPU
goes"). The same projections as int8 codes with one scale per row are a quarter of the bytes, and
ONNX Runtime's `MatMulInteger` (uint8 × int8, its MLAS kernels) reads them in ~0.9 ms. NumPy has
no such kernel (its int8 product is a Python-speed loop over BLAS-less code: ~5.6 ms).

The codes only *choose* rows: the `pool` best on the codes are scored again on their float32
projections, and the best of those on their full vectors, exactly as before (vector_cache.py).
So a search's answer changes only when a row among the best on the float projections falls out
of the codes' pool, which the quantization error (a few thousandths of a score) rarely allows.

The one-node model is written here field by field (a few hundred bytes of protobuf), so serving
does not need the `onnx` package, an optional extra.
"""

from __future__ import annotations

import threading
from typing import Any

import numpy as np

from app.core.storage.top_rows import top_rows

# The codes are uint8 with 128 standing for 0 (MLAS's fast u8 × s8 kernel wants unsigned rows).
ZERO = 128
# Rows kept from the codes' pass for each row finally wanted: every one of the best 400 on the
# float32 projections was among the 1,200 best on the codes, on the synthetic 100k archive
# (messages and sentence keys, 100 queries) and on the LoCoMo-grown 100k one (real MiniLM
# vectors, 300 questions); codes of only the first 64 axes missed 1.5 % there (docs/benchmarks.md).
POOL_PER_ROW = 3
# Elements of ONNX's TensorProto.DataType.
_UINT8, _INT8, _INT32 = 2, 3, 6

_session: Any = None
_session_lock = threading.Lock()


def quantize(rows: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """Each row as uint8 codes (`ZERO` + round(x / scale)) and its scale (max |x| / 127)."""
    rows = np.asarray(rows, dtype=np.float32)
    scales = (np.abs(rows).max(axis=1) / 127.0).astype(np.float32) if len(rows) else np.zeros(0, np.float32)
    safe = np.where(scales > 0, scales, 1.0).astype(np.float32)
    # One float temporary, rounded, clipped and offset in place (a reload after an idle release
    # quantizes every row of a copy: 76k rows, 5 temporaries of 39 MB before); the same codes.
    scaled = rows / safe[:, None]
    np.rint(scaled, out=scaled)
    np.clip(scaled, -127, 127, out=scaled)
    scaled += ZERO  # 1..255, exact in float32
    return scaled.astype(np.uint8), scales


def approximate_scores(codes: np.ndarray, scales: np.ndarray, projected_query: np.ndarray) -> np.ndarray:
    """Every row's projected score, approximately (float32, one per row of `codes`)."""
    q = np.asarray(projected_query, dtype=np.float32)
    q_scale = float(np.abs(q).max()) / 127.0
    if q_scale == 0.0 or len(codes) == 0:
        return np.zeros(len(codes), dtype=np.float32)
    q8 = np.rint(q / q_scale).clip(-127, 127).astype(np.int8)
    (product,) = _product_session().run(None, {"A": codes, "B": q8.reshape(-1, 1)})
    # (codes - ZERO) @ q8 = codes @ q8 - ZERO * sum(q8): the offset is taken out once, here.
    exact_ints = product[:, 0] - ZERO * int(q8.astype(np.int32).sum())
    return exact_ints.astype(np.float32) * (scales * np.float32(q_scale))


def best_projected_rows(
    rows: np.ndarray,
    codes: np.ndarray,
    scales: np.ndarray,
    projected_query: np.ndarray,
    keep: np.ndarray,
    n: int,
) -> np.ndarray | None:
    """The `n` kept rows best on their float32 projections `rows` (ties: the lowest rows), found
    by scoring the `POOL_PER_ROW * n` best on the codes again on `rows`; None when too few rows
    are kept for a pool (the caller then scans the float projections)."""
    pool_size = POOL_PER_ROW * n
    kept = int(np.count_nonzero(keep))
    if kept <= pool_size:
        return None
    coarse = approximate_scores(codes, scales, projected_query)
    if kept < len(keep):  # most searches filter nothing: no mask to apply
        coarse[~keep] = -np.inf
    pool = np.sort(top_rows(coarse, pool_size))
    fine = _float_scores(rows, pool, projected_query)
    best = np.lexsort((pool, -fine))[:n]
    return pool[best]


def _float_scores(rows: np.ndarray, pool: np.ndarray, projected_query: np.ndarray) -> np.ndarray:
    """`(rows @ projected_query)[pool]`, bit for bit: NumPy's one-thread BLAS scores rows in
    groups of four and the last `len(rows) % 4` in a loop of its own (other last bits), so the
    gather is padded to whole groups and the matrix's own last rows are scored on their own."""
    tail = len(rows) - len(rows) % 4
    body, end = pool[pool < tail], pool[pool >= tail]
    padded = np.concatenate([body, np.repeat(body[:1], -len(body) % 4)]) if len(body) else body
    scores = np.empty(len(pool), dtype=np.float32)
    scores[: len(body)] = (rows[padded] @ projected_query)[: len(body)]
    if len(end):
        scores[len(body) :] = (rows[tail:] @ projected_query)[end - tail]
    return scores


def _product_session() -> Any:
    global _session
    with _session_lock:
        if _session is None:
            import onnxruntime as ort  # lazy: only a copy large enough to project needs it

            options = ort.SessionOptions()
            # The search workers are the parallelism; one thread also keeps the CPU per search low.
            options.intra_op_num_threads = 1
            options.inter_op_num_threads = 1
            options.enable_cpu_mem_arena = False
            _session = ort.InferenceSession(_model_bytes(), options, providers=["CPUExecutionProvider"])
        return _session


# -- the model, as protobuf ---------------------------------------------------------------------
def _model_bytes() -> bytes:
    """ModelProto: Y (n × 1, int32) = MatMulInteger(A (n × d, uint8), B (d × 1, int8)), opset 13."""
    node = _field(1, b"A") + _field(1, b"B") + _field(2, b"Y") + _field(4, b"MatMulInteger")
    graph = (
        _field(1, node)
        + _field(2, b"int8_scan")
        + _field(11, _value_info(b"A", _UINT8, ("n", "d")))
        + _field(11, _value_info(b"B", _INT8, ("d", 1)))
        + _field(12, _value_info(b"Y", _INT32, ("n", 1)))
    )
    opset = _field(1, b"") + _varint_field(2, 13)
    return _varint_field(1, 8) + _field(7, graph) + _field(8, opset)


def _value_info(name: bytes, element: int, shape: tuple[str | int, ...]) -> bytes:
    dims = b"".join(
        _field(1, _varint_field(1, d) if isinstance(d, int) else _field(2, d.encode())) for d in shape
    )
    tensor = _varint_field(1, element) + _field(2, dims)
    return _field(1, name) + _field(2, _field(1, tensor))


def _field(number: int, payload: bytes) -> bytes:
    """A length-delimited field (wire type 2)."""
    return _varint(number << 3 | 2) + _varint(len(payload)) + payload


def _varint_field(number: int, value: int) -> bytes:
    return _varint(number << 3) + _varint(value)


def _varint(value: int) -> bytes:
    out = bytearray()
    while True:
        byte, value = value & 0x7F, value >> 7
        out.append(byte | (0x80 if value else 0))
        if not value:
            return bytes(out)
