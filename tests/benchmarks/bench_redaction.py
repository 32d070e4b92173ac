"""Redaction benchmark: precision/recall on the labelled corpus, false positives on real chat, speed.

Run: .venv/bin/python tests/benchmarks/bench_redaction.py [--compare ../main]
Goals (issue 14): recall >= 0.95 on secrets, <= 2 % of look-alikes changed. Real chat: the LoCoMo
development split (../shared/data, skipped when absent) and the in-repo insight-eval chats hold no
secrets, so every masked turn there is a false positive; the injection flag is measured there too.
"""

from __future__ import annotations

import os
import statistics
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
sys.path.insert(0, str(ROOT))

from app.core.privacy.detector import Detector  # noqa: E402
from app.core.privacy.injection import injection_signals  # noqa: E402
from tests.core.privacy.corpus import (  # noqa: E402
    HELDOUT_LOOK_ALIKES,
    HELDOUT_SECRETS,
    LOOK_ALIKES,
    ROUND2_LOOK_ALIKES,
    ROUND2_SECRETS,
    ROUND3_LOOK_ALIKES,
    ROUND3_SECRETS,
    SECRETS,
)
from tests.core.privacy.corpus_round5 import ROUND5_LOOK_ALIKES, ROUND5_SECRETS  # noqa: E402
from tests.core.privacy.corpus_round6 import ROUND6_LOOK_ALIKES, ROUND6_SECRETS  # noqa: E402
from tests.core.privacy.corpus_round7 import ROUND7_LOOK_ALIKES, ROUND7_SECRETS  # noqa: E402
from tests.core.privacy.corpus_round8 import ROUND8_LOOK_ALIKES, ROUND8_SECRETS  # noqa: E402
from tests.core.privacy.corpus_round9 import ROUND9_LOOK_ALIKES, ROUND9_SECRETS  # noqa: E402
from tests.core.privacy.corpus_round10 import ROUND10_LOOK_ALIKES, ROUND10_SECRETS  # noqa: E402
from tests.core.privacy.corpus_round11 import ROUND11_LOOK_ALIKES, ROUND11_SECRETS  # noqa: E402
from tests.core.privacy.corpus_round12 import ROUND12_LOOK_ALIKES, ROUND12_SECRETS  # noqa: E402
from tests.core.privacy.corpus_round13 import ROUND13_LOOK_ALIKES, ROUND13_SECRETS  # noqa: E402
from tests.core.privacy.corpus_round14 import ROUND14_LOOK_ALIKES, ROUND14_SECRETS  # noqa: E402
from tests.core.privacy.test_injection import INJECTIONS, ORDINARY  # noqa: E402

PII = {"email", "phone", "card", "iban"}


def corpus_scores(
    detector: Detector, label: str, secrets: list[tuple[str, tuple[str, ...], str]], look_alikes: list[str]
) -> None:
    print(f"-- {label}")
    by_group: dict[str, list[int]] = {"secrets": [0, 0], "pii": [0, 0]}
    tp = fp = 0
    for text, values, kind in secrets:
        group = "pii" if kind in PII else "secrets"
        masked = detector.mask(text)
        by_group[group][1] += 1
        if not any(v in masked for v in values):
            by_group[group][0] += 1
        else:
            print(f"  missed {kind}: {masked!r}")
        spans = [(text.find(v), text.find(v) + len(v)) for v in values]
        for f in detector.find(text):
            if any(f.start < e and s < f.end for s, e in spans):
                tp += 1
            else:
                fp += 1
                print(f"  extra finding {f.kind!r} in {text!r}")
    changed = [t for t in look_alikes if detector.mask(t) != t]
    fp += sum(len(detector.find(t)) for t in changed)
    for t in changed:
        print(f"  look-alike changed: {detector.mask(t)!r}")
    for group, (found, total) in by_group.items():
        print(f"recall {group:8s} {found}/{total} = {found / total:.3f}")
    print(f"precision (findings on labelled values) {tp}/{tp + fp} = {tp / (tp + fp):.3f}")
    print(f"look-alikes changed {len(changed)}/{len(look_alikes)} = {len(changed) / len(look_alikes):.3f}")


def injection_scores() -> None:
    hits = sum(bool(injection_signals(t)) for t in INJECTIONS)
    false = [t for t in ORDINARY if injection_signals(t)]
    print(
        f"injection flag: {hits}/{len(INJECTIONS)} flagged; ordinary look-alikes {len(false)}/{len(ORDINARY)}"
    )


def real_chat(detector: Detector) -> list[str]:
    texts: list[str] = []
    eval_dir = ROOT / "tests" / "insights" / "eval"
    for name in ("conversations.txt", "heldout.txt"):
        path = eval_dir / name
        if path.exists():
            texts += [line for line in path.read_text(encoding="utf-8").splitlines() if line.strip()]
    print(f"in-repo insight-eval chat lines: {len(texts)}")
    locomo = ROOT.parent / "shared" / "data" / "locomo" / "locomo-dev.json"
    if locomo.exists():
        from tests.benchmarks.locomo_data import load

        messages, _ = load(locomo)
        turns = [m.content for m in messages]
        print(f"LoCoMo dev turns: {len(turns)}")
        texts += turns
    else:
        print("LoCoMo data absent (../shared/data/locomo): real-chat figures cover the in-repo lines only")
    changed = [t for t in texts if detector.mask(t) != t]
    flagged = [t for t in texts if injection_signals(t)]
    print(f"real chat: {len(changed)}/{len(texts)} lines masked ({len(changed) / len(texts):.4f}), "
          f"{len(flagged)} flagged as injection")  # fmt: skip
    for t in changed[:10]:
        print(f"  masked: {detector.mask(t)[:140]!r}")
    for t in flagged[:5]:
        print(f"  flagged: {t[:140]!r}")
    return texts


def speed(texts: list[str]) -> None:
    sample = texts[:2000] or [t for t, _, _ in SECRETS] * 20
    cold = Detector()
    start = time.perf_counter()
    for t in sample:
        cold.mask(t)
    per_cold = (time.perf_counter() - start) / len(sample) * 1e6
    start = time.perf_counter()
    for t in sample:
        cold.mask(t)
    per_warm = (time.perf_counter() - start) / len(sample) * 1e6
    ten = [sample[i : i + 10] for i in range(0, min(len(sample), 1000), 10)]
    fresh = Detector()
    timings = []
    for page in ten:
        start = time.perf_counter()
        for t in page:
            fresh.mask(t)
        timings.append((time.perf_counter() - start) * 1000)
    print(f"mask: {per_cold:.0f} µs per message uncached, {per_warm:.1f} µs cached; "
          f"a page of 10 search hits: median {statistics.median(timings):.2f} ms, "
          f"max {max(timings):.2f} ms (uncached)")  # fmt: skip


def compare(other_root: Path, texts: list[str], rounds: int = 6) -> None:
    """Same process, alternating: a page of 10 uncached hits with another checkout's detector
    (e.g. main's) and this one's. The other package is copied under a new name so both load."""
    import shutil
    import tempfile

    tmp = Path(tempfile.mkdtemp(prefix="redaction-compare-"))
    shutil.copytree(other_root / "app" / "core" / "privacy", tmp / "other_privacy")
    for path in (tmp / "other_privacy").glob("*.py"):
        path.write_text(path.read_text(encoding="utf-8").replace("app.core.privacy.", "other_privacy."))
    sys.path.insert(0, str(tmp))
    from other_privacy.detector import Detector as Other  # type: ignore[import-not-found]

    pages = [texts[i : i + 10] for i in range(0, len(texts) - 10, 10)]
    Detector().mask("warm up")
    Other().mask("warm up")
    wall: dict[str, list[float]] = {"other": [], "this": []}
    cpu = {"other": 0.0, "this": 0.0}
    for r in range(rounds):
        order = [("other", Other), ("this", Detector)]
        for label, cls in order if r % 2 == 0 else order[::-1]:
            detector, started = cls(), time.process_time()
            for page in pages:
                t = time.perf_counter()
                for text in page:
                    detector.mask(text)
                wall[label].append((time.perf_counter() - t) * 1000)
            cpu[label] += time.process_time() - started
    for label, name in (("other", str(other_root)), ("this", "this checkout")):
        print(f"page of 10 ({name}): median {statistics.median(wall[label]):.3f} ms wall, "
              f"{cpu[label] / len(wall[label]) * 1000:.3f} ms CPU")  # fmt: skip
    shutil.rmtree(tmp, ignore_errors=True)


def main() -> None:
    print(f"load average {os.getloadavg()[0]:.2f} {os.getloadavg()[1]:.2f} {os.getloadavg()[2]:.2f}")
    detector = Detector()
    dev_secrets = SECRETS + ROUND2_SECRETS + ROUND3_SECRETS
    dev_look_alikes = LOOK_ALIKES + ROUND2_LOOK_ALIKES + ROUND3_LOOK_ALIKES
    corpus_scores(detector, "development corpus (rounds 1-3, tuned on)", dev_secrets, dev_look_alikes)
    label = "held-out corpus (round 4; measured blind: secrets 11/14, then two gaps fixed)"
    corpus_scores(detector, label, HELDOUT_SECRETS, HELDOUT_LOOK_ALIKES)
    label = "round 5 (measured blind: secrets 61/184, PII 13/16, look-alikes 9/170 changed; then fixed)"
    corpus_scores(detector, label, ROUND5_SECRETS, ROUND5_LOOK_ALIKES)
    label = "round 6 (measured blind after the round-5 fixes: secrets 104/168, PII 14/14, look-alikes 7/180)"
    corpus_scores(detector, label, ROUND6_SECRETS, ROUND6_LOOK_ALIKES)
    label = "round 7 (measured blind after the round-6 fixes: secrets 125/144, PII 10/10, look-alikes 1/156)"
    corpus_scores(detector, label, ROUND7_SECRETS, ROUND7_LOOK_ALIKES)
    label = "round 8 (another author; measured blind: secrets 167/182, PII 15/18, look-alikes 6/191)"
    corpus_scores(detector, label, ROUND8_SECRETS, ROUND8_LOOK_ALIKES)
    label = (
        "round 9 (another author; blind after the round-8 fixes: "
        "secrets 181/209, PII 19/20, look-alikes 2/189)"
    )
    corpus_scores(detector, label, ROUND9_SECRETS, ROUND9_LOOK_ALIKES)
    label = (
        "round 10 (another author; blind after the round-9 fixes, the honest figure: "
        "secrets 192/214, PII 16/22, look-alikes 2/184)"
    )
    corpus_scores(detector, label, ROUND10_SECRETS, ROUND10_LOOK_ALIKES)
    label = (
        "round 11 (a new author, blind2; blind after the round-10 fixes, the honest figure: "
        "secrets 181/200, PII 16/19, look-alikes 1/184)"
    )
    corpus_scores(detector, label, ROUND11_SECRETS, ROUND11_LOOK_ALIKES)
    label = (
        "round 12 (blind2; blind after the round-11 fixes, the honest figure: "
        "secrets 181/203, PII 16/20, look-alikes 0/175)"
    )
    corpus_scores(detector, label, ROUND12_SECRETS, ROUND12_LOOK_ALIKES)
    label = (
        "round 13 (blind3, a new author; blind after the learned scorer, the honest figure: "
        "secrets 258/261, PII 31/35, look-alikes 3/213)"
    )
    corpus_scores(detector, label, ROUND13_SECRETS, ROUND13_LOOK_ALIKES)
    label = (
        "round 14 (blind4, a new author; blind after the learned scorer, the honest figure: "
        "secrets 244/249, PII 30/31, look-alikes 5/224)"
    )
    corpus_scores(detector, label, ROUND14_SECRETS, ROUND14_LOOK_ALIKES)
    label = "rounds 13 + 14 pooled"
    corpus_scores(
        detector, label, ROUND13_SECRETS + ROUND14_SECRETS, ROUND13_LOOK_ALIKES + ROUND14_LOOK_ALIKES
    )
    injection_scores()
    texts = real_chat(detector)
    speed(texts)
    if "--compare" in sys.argv:  # --compare ../main: the cost against another checkout's detector
        compare(Path(sys.argv[sys.argv.index("--compare") + 1]).resolve(), texts)


if __name__ == "__main__":
    main()
