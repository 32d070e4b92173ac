"""Train the learned token scorer (`app/core/privacy/token_scorer.py`), evaluate it leaving one round out.

Run: .venv/bin/python tests/benchmarks/train_token_scorer.py [--write] [--loro] [--prefix]
- trains a logistic regression (NumPy, L2, class-weighted) on every labelled round's candidate
  tokens (positives: tokens inside a labelled secret; negatives: every other token of the
  secrets' texts, every look-alike token, the in-repo chat lines and `scorer_negatives.py`) at a
  fixed threshold (`--threshold`, 0.85: chosen on the leave-one-round-out runs below, where it kept
  nearly all the recall of 0.5 with a quarter of the false positives), and with `--write`
  regenerates `app/core/privacy/scorer_weights.py`;
- `--loro`: for each of rounds 5–12, trains without that round and reports, on it, the recall of
  the scorer alone and of today's rules with it, and the look-alikes changed;
- `--prefix`: the same for rounds 8–12 with each round's *pre-fix* rules (the detector the round
  was measured blind against): the honest "what if the scorer had existed" estimate.
LoCoMo's real chat (../shared/data) is never trained on: it measures false positives.
"""

from __future__ import annotations

import argparse
import importlib
import io
import json
import shutil
import subprocess
import sys
import tarfile
import tempfile
import time
from pathlib import Path

import numpy as np

ROOT = Path(__file__).resolve().parents[2]
sys.path.insert(0, str(ROOT))

from app.core.privacy.detector import _PUBLIC, Detector, Finding, _resolve, apply  # noqa: E402
from app.core.privacy.token_features import candidates, features  # noqa: E402
from app.core.privacy.token_scorer import find_scored  # noqa: E402

PII = {"email", "phone", "card", "iban"}
# Seed phrases are plain dictionary words by design; their own rule (seed_phrases.py) owns them.
# Vendor keys, private keys and JWTs are formats the format patterns own; learning "long and
# random is secret" from them would mask hashes and public keys (neither positive nor negative).
IGNORED = PII | {
    "seed-phrase",
    "vendor-key",
    "private-key",
    "jwt",
    "aws-key",
    "github-token",
    "google-key",
    "openai-key",
    "slack-token",
    "slack-webhook",
    "stripe-key",
    "telegram-bot-token",
    "bearer-token",
    "high-entropy",
}
# The detector each round was measured blind against, without its learned scorer (rounds 13-14 met
# the scorer; their rules were main's, 4c8676f).
PREFIX_COMMITS = {
    "8": "e1da45d",
    "9": "781c915",
    "10": "7b8ef90",
    "11": "c4671a2",
    "12": "32739dd",
    "13": "4c8676f",
    "14": "4c8676f",
}
Secrets = list[tuple[str, tuple[str, ...], str]]


def rounds() -> dict[str, tuple[Secrets, list[str]]]:
    from tests.core.privacy import corpus as c

    out = {
        "1": (c.SECRETS, c.LOOK_ALIKES),
        "2": (c.ROUND2_SECRETS, c.ROUND2_LOOK_ALIKES),
        "3": (c.ROUND3_SECRETS, c.ROUND3_LOOK_ALIKES),
        "4": (c.HELDOUT_SECRETS, c.HELDOUT_LOOK_ALIKES),
    }
    n = 5
    while (ROOT / "tests" / "core" / "privacy" / f"corpus_round{n}.py").exists():
        mod = importlib.import_module(f"tests.core.privacy.corpus_round{n}")
        out[str(n)] = (getattr(mod, f"ROUND{n}_SECRETS"), getattr(mod, f"ROUND{n}_LOOK_ALIKES"))
        n += 1
    return out


def chat_lines() -> list[str]:
    lines: list[str] = []
    for name in ("conversations.txt", "heldout.txt"):
        path = ROOT / "tests" / "insights" / "eval" / name
        lines += [x for x in path.read_text(encoding="utf-8").splitlines() if x.strip()]
    return lines


def locomo_lines() -> list[str]:
    path = ROOT.parent / "shared" / "data" / "locomo" / "locomo-dev.json"
    if not path.exists():
        return []
    from tests.benchmarks.locomo_data import load

    return [m.content for m in load(path)[0]]


def _spans(text: str, values: tuple[str, ...]) -> list[tuple[int, int]]:
    out = []
    for v in values:
        pos = text.find(v)
        while pos >= 0:
            out.append((pos, pos + len(v)))
            pos = text.find(v, pos + 1)
    return out


def examples(secrets: Secrets, look_alikes: list[str], extra: list[str] = ()) -> list[tuple[list[str], int]]:
    out = []
    for text, values, kind in secrets:
        spans = _spans(text, values)
        toks, idx, found = candidates(text)
        for i in idx:
            t = toks[i]
            inside = any(t.start < e and s < t.end for s, e in spans)
            if inside and kind in IGNORED:
                continue
            out.append((features(text, toks, i, found), int(inside)))
    for text in [*look_alikes, *extra]:
        toks, idx, found = candidates(text)
        out += [(features(text, toks, i, found), 0) for i in idx]
    return out


def train(data: list[tuple[list[str], int]], l2: float = 0.3, steps: int = 400) -> dict[str, float]:
    vocab: dict[str, int] = {}
    rows, cols = [], []
    for r, (feats, _) in enumerate(data):
        for f in set(feats):
            rows.append(r)
            cols.append(vocab.setdefault(f, len(vocab)))
    rows_a, cols_a = np.array(rows), np.array(cols)
    y = np.array([label for _, label in data], dtype=np.float64)
    pos = y.sum()
    sample_w = np.where(y == 1, (len(y) - pos) / max(pos, 1) * 0.5, 1.0)
    w = np.zeros(len(vocab))
    m = np.zeros_like(w)
    v = np.zeros_like(w)
    lr, b1, b2 = 0.1, 0.9, 0.999
    for step in range(1, steps + 1):
        z = np.bincount(rows_a, weights=w[cols_a], minlength=len(y))
        p = 1 / (1 + np.exp(-np.clip(z, -30, 30)))
        g_row = (p - y) * sample_w / len(y)
        grad = np.bincount(cols_a, weights=g_row[rows_a], minlength=len(w)) + l2 * w / len(y)
        m = b1 * m + (1 - b1) * grad
        v = b2 * v + (1 - b2) * grad**2
        w -= lr * (m / (1 - b1**step)) / (np.sqrt(v / (1 - b2**step)) + 1e-8)
    return {f: float(w[i]) for f, i in vocab.items() if abs(w[i]) >= 0.01}


def masked_with(rule: Detector | None, weights: dict[str, float], threshold: float, text: str) -> str:
    found: list[Finding] = list(rule.find(text)) if rule is not None else []
    public = [m.span() for m in _PUBLIC.finditer(text)]
    found += [
        Finding(s.start, s.end, "password", "secrets")
        for s in find_scored(text, weights, threshold)
        if not any(a <= s.start and s.end <= b for a, b in public)
    ]
    return apply(text, _resolve(found))


def evaluate(rule, weights, threshold, secrets: Secrets, look_alikes: list[str]) -> tuple[int, int, int, int]:
    caught = total = 0
    for text, values, kind in secrets:
        if kind in PII:
            continue
        total += 1
        caught += not any(v in masked_with(rule, weights, threshold, text) for v in values)
    changed = sum(masked_with(rule, weights, threshold, t) != t for t in look_alikes)
    return caught, total, changed, len(look_alikes)


def pick_threshold(weights: dict[str, float], data: list[tuple[list[str], int]], fp_rate: float) -> float:
    """The lowest threshold whose false-positive rate on the training negatives is under fp_rate."""
    neg = sorted((sum(weights.get(f, 0.0) for f in feats) for feats, y in data if y == 0), reverse=True)
    cut = neg[int(len(neg) * fp_rate)] if neg else 0.0
    return float(1 / (1 + np.exp(-cut))) + 1e-6


def old_detector(commit: str) -> Detector:
    tmp = Path(tempfile.mkdtemp(prefix="prefix-detector-"))
    name = f"prefix_{commit}"
    data = subprocess.run(
        ["git", "-C", str(ROOT), "archive", commit, "app/core/privacy"], capture_output=True, check=True
    ).stdout
    with tarfile.open(fileobj=io.BytesIO(data)) as archive:
        archive.extractall(tmp, filter="data")
    shutil.move(tmp / "app" / "core" / "privacy", tmp / name)
    for p in (tmp / name).glob("*.py"):
        p.write_text(p.read_text(encoding="utf-8").replace("app.core.privacy.", f"{name}."), encoding="utf-8")
    sys.path.insert(0, str(tmp))
    return importlib.import_module(f"{name}.detector").Detector()


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--write", action="store_true")
    ap.add_argument("--loro", action="store_true")
    ap.add_argument("--prefix", action="store_true")
    ap.add_argument("--threshold", type=float, default=0.85)
    ap.add_argument("--l2", type=float, default=0.3)
    args = ap.parse_args()
    all_rounds = rounds()
    from tests.benchmarks.scorer_negatives import NEGATIVES

    chat = chat_lines() + NEGATIVES
    cache = {r: examples(s, la) for r, (s, la) in all_rounds.items()}
    chat_data = examples([], [], chat)
    locomo = locomo_lines()
    today = Detector()

    def fit(skip: str | None) -> tuple[dict[str, float], float]:
        data = [x for r, ex in cache.items() if r != skip for x in ex] + chat_data
        weights = train(data, l2=args.l2)
        return weights, args.threshold

    if args.loro or args.prefix:
        print("round | scorer alone | rules today + scorer | pre-fix rules | pre-fix rules + scorer")
        for r, (secrets, look) in all_rounds.items():
            if int(r) < 5 or (args.prefix and r not in PREFIX_COMMITS):
                continue
            weights, thr = fit(r)
            alone = evaluate(None, weights, thr, secrets, look)
            both = evaluate(today, weights, thr, secrets, look)
            line = (
                f"{r} | {alone[0]}/{alone[1]} ({alone[2]} la) | {both[0]}/{both[1]} ({both[2]}/{both[3]} la)"
            )
            if args.prefix and r in PREFIX_COMMITS:
                old = old_detector(PREFIX_COMMITS[r])
                before = evaluate(old, {}, 2.0, secrets, look)
                after = evaluate(old, weights, thr, secrets, look)
                line += f" | {before[0]}/{before[1]} ({before[2]} la) | {after[0]}/{after[1]} ({after[2]} la)"
            print(line + f" | thr {thr:.3f}", flush=True)
    weights, thr = fit(None)
    print(f"full model: {len(weights)} features, threshold {thr:.3f}")
    changed = [t for t in locomo if masked_with(None, weights, thr, t) != t]
    print(f"LoCoMo real chat (never trained on): scorer alone changes {len(changed)}/{len(locomo)} lines")
    for t in changed[:12]:
        print("   ", masked_with(None, weights, thr, t)[:160])
    if args.write:
        write(weights, thr)


def write(weights: dict[str, float], threshold: float) -> None:
    lines = [
        '"""Learned token scorer weights; made by tests/benchmarks/train_token_scorer.py --write."""',
        "",
        "# fmt: off",
        f"# Trained {time.strftime('%Y-%m-%d')}; {len(weights)} features (|w| >= 0.01).",
        f"THRESHOLD = {threshold:.4f}",
        "WEIGHTS: dict[str, float] = {",
    ]
    lines += [f"    {json.dumps(f, ensure_ascii=False)}: {w:.3f}," for f, w in sorted(weights.items())]
    lines += ["}", ""]
    (ROOT / "app" / "core" / "privacy" / "scorer_weights.py").write_text("\n".join(lines), encoding="utf-8")
    print("wrote app/core/privacy/scorer_weights.py")


if __name__ == "__main__":
    main()
