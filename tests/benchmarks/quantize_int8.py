"""Benchmark helper: the int8-activation MiniLM (dynamic quantization) from the pinned weights.

The app's own quantizer (`app/core/embeddings/int8_queries.py`, which serves queries with it when
`embedding.query_activations = "int8"`) writes it; here the benchmarks also embed documents with
it (`bench_locomo.py --activations int8`, `bench_embed_options.py`). Needs the `onnx` package.
"""

from __future__ import annotations

from pathlib import Path

from app.core.embeddings.int8_queries import INT8_FILE, build_int8_model


def dynamic_int8_model(source: Path, out_dir: Path) -> Path:
    """Write `<out_dir>/model-int8-activations.onnx` from the verified `source`; returns its path."""
    return build_int8_model(source, out_dir / INT8_FILE)
