"""Extra key kinds on LoCoMo (issue 12, mh-fact): captions, stated facts, per-person aggregates.

Each set of kinds (`key_kinds.py`) is added as extra keys to a fresh copy of an imported LoCoMo
data dir (ids `<message>:50+` in the sentence-key collection, so the product's key leg finds and
resolves them like sentence keys), then the questions are asked through the product's search
(`bench_locomo.report`). `--within` also orders each multi-hop question's named people's
messages (their conversation only) by own cosine lifted halfway to their best key of each kind,
for the question without the names: how far a key kind can separate the evidence from the
person's other messages, whatever the rest of the ranking does.

    python tests/benchmarks/bench_key_kinds.py --workdir DIR [--scratch DIR] [--within]
        [--sets none,captions,facts,aggregates,facts+aggregates+captions] [--variant FIELD=VALUE]...
"""

from __future__ import annotations

import argparse
import shutil
import sys
import tempfile
from collections import defaultdict
from pathlib import Path
from typing import Any

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parents[2]))

from sqlalchemy import select

from app.bootstrap import Services, build_services
from app.core.index.corpus import IndexDoc
from app.core.settings import Settings
from app.core.storage.models import RawMessageRow
from tests.benchmarks.bench_locomo import report, with_field
from tests.benchmarks.key_kinds import KINDS, sentence_keys_with_facts
from tests.benchmarks.locomo_data import DATA, load

# Extra keys are numbered past the sentence keys' (key_text.MAX_KEYS = 12), one range per kind.
OFFSETS = {"captions": 90, "facts": 50, "aggregates": 70, "tagged": 110}
_ROW_COLUMNS = (
    RawMessageRow.id,
    RawMessageRow.user_id,
    RawMessageRow.platform,
    RawMessageRow.channel,
    RawMessageRow.person,
    RawMessageRow.timestamp,
    RawMessageRow.content,
    RawMessageRow.attachments,
    RawMessageRow.message_id,
)


def add_keys(services: Services, rows: list[Any], kind: str) -> int:
    """Embed one kind's keys into the sentence-key collection; returns how many."""
    keys = services.memory.keys
    assert keys is not None, "sentence keys are off in this data dir's settings"
    by_id = {r.id: r for r in rows}
    counts: dict[int, int] = defaultdict(int)
    docs = []
    for message, text in KINDS[kind](rows):
        row = by_id[message]
        columns = {
            "platform": row.platform,
            "channel": row.channel,
            "person": row.person,
            "timestamp": row.timestamp,
        }
        docs.append(IndexDoc(f"{message}:{OFFSETS[kind] + counts[message]}", row.user_id, text, "", columns))
        counts[message] += 1
    with keys.corpus.writing():
        for start in range(0, len(docs), 256):
            keys.corpus.embed(docs[start : start + 256])
    print(f"  {kind}: {len(docs)} keys for {len(counts)} messages; e.g. {docs[0].document!r}" if docs else "")
    return len(docs)


def kind_of(n: int) -> str:
    return next((k for k, off in sorted(OFFSETS.items(), key=lambda kv: -kv[1]) if n >= off), "sentences")


def within(services: Services, rows: list[Any], questions: list[Any], kinds: list[str]) -> None:
    """Multi-hop evidence in the top 10 of its named people's messages, per key signal."""
    keys = services.memory.keys
    assert keys is not None
    own_coll = services.memory.processor.corpus.collection
    key_coll = keys.corpus.collection
    own = own_coll.vectors_of([str(r.id) for r in rows])
    by_message: dict[str, dict[str, list[np.ndarray]]] = defaultdict(lambda: defaultdict(list))
    candidates = [
        f"{r.id}:{n}"
        for r in rows
        for n in (*range(12), *(o + i for o in OFFSETS.values() for i in range(12)))
    ]
    for key, vector in key_coll.vectors_of(candidates).items():
        message, n = key.split(":")
        by_message[message][kind_of(int(n))].append(vector)
    by_dia = {r.message_id: r for r in rows}
    people = {r.person for r in rows}
    signals = [("own", ()), ("own + sentence keys", ("sentences",))]
    signals += [(f"own + sentence keys + {k}", ("sentences", k)) for k in kinds]
    if len(kinds) > 1:
        signals.append(("own + every key", ("sentences", *kinds)))
    found: dict[str, list[float]] = defaultdict(list)
    for q in questions:
        if q.category != 1:
            continue
        named = sorted(p for p in people if p.lower() in q.text.lower())
        if not named:
            continue
        nameless = q.text
        for person in named:
            nameless = nameless.replace(f"{person}'s", "").replace(person, "")
        vector = services.embedder.embed_query(nameless)
        conversation = next(iter(q.evidence)).split(":")[0]
        pool = [str(r.id) for r in rows if r.person in named and r.channel == conversation]
        evidence = {str(by_dia[e].id) for e in q.evidence if e in by_dia}
        for label, using in signals:
            score = {}
            for m in pool:
                base = float(own[m] @ vector) if m in own else -1.0
                best = max((float(v @ vector) for k in using for v in by_message[m].get(k, [])), default=-1.0)
                score[m] = base + 0.5 * max(0.0, best - base)
            top = set(sorted(pool, key=lambda m: -score[m])[:10])
            found[label].append(len(evidence & top) / max(1, len(evidence)))
    print("  within the named people's messages (multi-hop, nameless question), evidence in the top 10:")
    for label, shares in found.items():
        print(f"    {label:<44}{sum(shares) / len(shares):.3f}  (n={len(shares)})")


def main() -> int:
    parser = argparse.ArgumentParser()
    parser.add_argument(
        "--workdir", type=Path, required=True, help="an imported LoCoMo data dir (copied, not changed)"
    )
    parser.add_argument("--sets", default="none,captions,facts,aggregates,facts+aggregates+captions")
    parser.add_argument(
        "--scratch", type=Path, default=None, help="where the copies go (default: a temp dir)"
    )
    parser.add_argument(
        "--variant", action="append", default=[], help="SearchConfig fields for one more pass"
    )
    parser.add_argument("--within", action="store_true", help="also the within-person screen (multi-hop)")
    args = parser.parse_args()
    if not DATA.exists():
        print(f"skipped: {DATA} not found (the dataset lives in ../shared/data, outside the repo)")
        return 0
    scratch = args.scratch or Path(tempfile.mkdtemp(prefix="strata-key-kinds-"))
    _, questions = load()
    for name in args.sets.split(","):
        # "facts-replace": fact keys instead of (not beside) the keys of the sentences they come from.
        replace_sentences = name == "facts-replace"
        kinds = ["facts"] if replace_sentences else [] if name == "none" else name.split("+")
        unknown = [k for k in kinds if k not in KINDS]
        if unknown:
            raise SystemExit(f"unknown key kind {unknown[0]!r}; one of {sorted(KINDS)} (or none)")
        copy = scratch / name
        shutil.rmtree(copy, ignore_errors=True)
        shutil.copytree(args.workdir, copy)
        services = build_services(Settings(data_dir=copy))
        with services.db.read() as session:
            rows = list(session.execute(select(*_ROW_COLUMNS)))
        print(f"\n== {name}")
        for kind in kinds:
            add_keys(services, rows, kind)
        if replace_sentences and services.memory.keys is not None:
            dropped = sentence_keys_with_facts(rows)
            services.memory.keys.corpus.remove_vectors(dropped)
            print(f"  {len(dropped)} sentence keys dropped (their sentence states a fact)")
        report(services, questions)
        searcher = services.memory.searcher
        default = searcher.config
        for variant in args.variant:
            searcher.config = with_field(default, variant)
            print(f"  -- {variant}")
            report(services, questions)
        searcher.config = default
        if args.within:
            within(services, rows, questions, kinds)
        services.close()
        shutil.rmtree(copy, ignore_errors=True)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
