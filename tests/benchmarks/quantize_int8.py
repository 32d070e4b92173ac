"""Benchmark helper: dynamic int8 quantization of the MiniLM activations, from the pinned weights.

Measured, not adopted yet (docs/benchmarks.md, "Searchable before embedded"): it passes the
LoCoMo quality gate, but shipping it needs `onnx` as a dependency and a new model id.

The shipped model stores int8 weights that ONNX Runtime turns back into float32 matrices at load
time, so every MatMul runs in float32. Dynamic quantization rewrites those MatMuls as
`MatMulInteger` over activations quantized per batch. Needs the optional `onnx` package (the
quantization tooling of onnxruntime imports it); without it, ImportError.
"""

from __future__ import annotations

from pathlib import Path

import onnxruntime as ort


def dynamic_int8_model(source: Path, out_dir: Path) -> Path:
    """Write `<out_dir>/model-dynamic-int8.onnx` from the verified `source`; returns its path."""
    from onnxruntime.quantization import QuantType, quantize_dynamic  # imports `onnx`

    out_dir.mkdir(parents=True, exist_ok=True)
    folded = out_dir / "model-folded.onnx"
    # Basic optimizations fold the int8 → float32 weight casts into plain float32 initializers,
    # which is what quantize_dynamic recognizes as MatMul weights.
    options = ort.SessionOptions()
    options.graph_optimization_level = ort.GraphOptimizationLevel.ORT_ENABLE_BASIC
    options.optimized_model_filepath = str(folded)
    ort.InferenceSession(str(source), sess_options=options, providers=["CPUExecutionProvider"])
    target = out_dir / "model-dynamic-int8.onnx"
    # Per-channel weight scales: per-tensor ones put the mean cosine with the shipped model at
    # 0.955 (top-10 overlap 0.78); per channel 0.993 / 0.88 (bench_embed_options.py).
    quantize_dynamic(
        folded, target, weight_type=QuantType.QInt8, per_channel=True, op_types_to_quantize=["MatMul"]
    )
    folded.unlink(missing_ok=True)
    return target
