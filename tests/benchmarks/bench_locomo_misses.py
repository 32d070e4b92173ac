"""Where LoCoMo's evidence turns rank, and why they miss the top 10 (a diagnostic for issue 12).

For every question of a category (multi-hop by default), each evidence turn lands in one bucket:
found in the strict top 10; hidden by the relevance floor (in the loose top 10); ranked 11–30 or
31–100 in a loose search of 100; or no candidate at all. Each miss is also told apart by who wrote
it (a person the question names or not), whether the question is a list question, and how close
the turn is to the question without the names among its writer's messages. The strict top 10 of
the misses is described too: near neighbours of an evidence turn, the other speaker's turns.

    python tests/benchmarks/bench_locomo_misses.py --workdir DIR [--category multi-hop]
        [--variant FIELD=VALUE[,FIELD=VALUE]] [--show N]
"""

from __future__ import annotations

import argparse
import sys
from collections import Counter
from dataclasses import replace
from pathlib import Path

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parents[2]))

from sqlalchemy import select

from app.bootstrap import build_services
from app.core.search.questions import asks_for_list
from app.core.search.ranking import without_names
from app.core.settings import EmbeddingSettings, Settings
from app.core.storage.models import RawMessageRow
from tests.benchmarks.bench_locomo import parse_variant
from tests.benchmarks.locomo_data import CATEGORIES, DATA, load


def main() -> int:
    parser = argparse.ArgumentParser()
    parser.add_argument("--workdir", type=Path, required=True, help="an imported LoCoMo data dir")
    parser.add_argument("--category", choices=sorted(CATEGORIES.values()), default="multi-hop")
    parser.add_argument("--variant", default="", help="SearchConfig fields, e.g. list_pool=0")
    parser.add_argument("--show", type=int, default=0, help="print this many missed questions")
    args = parser.parse_args()
    if not DATA.exists():
        print(f"skipped: {DATA} not found (the dataset lives in ../shared/data, outside the repo)")
        return 0
    services = build_services(Settings(data_dir=args.workdir, embedding=EmbeddingSettings(provider="local")))
    messages, questions = load()
    services.memory.ingest(messages)
    if services.memory.keys is not None:
        services.memory.keys.backlog.drain()
    searcher = services.memory.searcher
    if args.variant:
        searcher.config = replace(searcher.config, **parse_variant(searcher.config, args.variant))
    wanted = {v: k for k, v in CATEGORIES.items()}[args.category]
    questions = [q for q in questions if q.category == wanted]
    with services.db.read() as session:
        rows = session.execute(
            select(RawMessageRow.id, RawMessageRow.message_id, RawMessageRow.person, RawMessageRow.content)
        ).all()
    by_message = {r.message_id: r for r in rows}
    services.memory.search(questions[0].text)  # loads the in-memory copy
    view = searcher.corpus.matrix().view()
    assert view is not None, "the diagnostic reads the in-memory copy"
    row_of = {str(k): i for i, k in enumerate(view.keys)}
    buckets: Counter[str] = Counter()
    crowd: Counter[str] = Counter()
    shown = 0
    for q in questions:
        strict = [h.message_id for h in services.memory.search(q.text, limit=10)]
        loose = [h.message_id for h in services.memory.search(q.text, limit=100, loose=True)]
        mentions = searcher.people.mentions(services.memory.user_id, q.text)
        listq = asks_for_list(q.text)
        nameless = searcher.embedder.embed_query(without_names(q.text, mentions))
        misses = []
        for e in sorted(q.evidence):
            row = by_message[e]
            named = row.person in mentions.persons
            tags = f"{'list' if listq else 'other'}/{'named' if named else 'unnamed'}"
            if e in strict:
                where = "top10"
            elif e in loose[:10]:
                where = "floor"
            elif e in loose[:30]:
                where = "11-30"
            elif e in loose:
                where = "31-100"
            else:
                where = "none"
            buckets[where] += 1
            buckets[f"{where} {tags}"] += 1
            if where != "top10":
                # The turn's place among its writer's messages, nearest to the nameless question.
                mine = [by_message[m] for m in by_message if by_message[m].person == row.person]
                idx = np.array([row_of[str(m.id)] for m in mine if str(m.id) in row_of])
                cos = view.matrix[idx] @ nameless
                own = float(view.matrix[row_of[str(row.id)]] @ nameless)
                place = int((cos > own).sum()) + 1
                bucket = "≤10" if place <= 10 else "≤50" if place <= 50 else ">50"
                buckets[f"{where} writer-rank {bucket}"] += 1
                misses.append((e, where, place, own))
        if misses:
            conv = {e.rsplit(":", 1)[0] for e in q.evidence}
            for m in strict:
                row = by_message[m]
                if m in q.evidence:
                    continue
                near = any(_near(m, e) for e in q.evidence)
                crowd["near an evidence turn (±2)" if near else "elsewhere"] += 1
                crowd["named writer" if row.person in mentions.persons else "other writer"] += 1
                crowd["same conversation" if m.rsplit(":", 1)[0] in conv else "other conversation"] += 1
        if misses and shown < args.show:
            shown += 1
            print(f"\n{'L' if listq else ' '} {q.text}  (named: {', '.join(sorted(mentions.persons))})")
            for e, where, place, own in misses:
                row = by_message[e]
                print(f"   {where:>6} w#{place:<4} cos {own:.2f} {row.person}: {row.content[:90]}")
    total = sum(buckets[b] for b in ("top10", "floor", "11-30", "31-100", "none"))
    print(f"\n{args.category}: {len(questions)} questions, {total} evidence turns")
    for key in sorted(buckets):
        print(f"  {key:<40}{buckets[key]:>5}  {buckets[key] / total:.3f}")
    print("strict top-10 hits that are not evidence, for questions with a miss:")
    for key, n in crowd.most_common():
        print(f"  {key:<40}{n:>5}")
    services.close()
    return 0


def _near(a: str, b: str) -> bool:
    """Same session, at most two turns apart (message ids are conversation:D<session>:<turn>)."""
    conv_a, dia_a = a.rsplit(":", 2)[0], a.split(":")[-2:]
    conv_b, dia_b = b.rsplit(":", 2)[0], b.split(":")[-2:]
    return conv_a == conv_b and dia_a[0] == dia_b[0] and abs(int(dia_a[1]) - int(dia_b[1])) <= 2


if __name__ == "__main__":
    raise SystemExit(main())
