"""Messages only their sentence keys find rank alike on the index path and in memory (real SQLite
and LanceDB in tmp_path; the hashing embedder: the model is not the subject)."""

from __future__ import annotations

from dataclasses import replace

from app.bootstrap import Services
from tests.conftest import make_message

QUERY = "rescue greyhound shelter"
# One sentence of a long message says what the query asks; the rest dilutes its own vector, and
# its length puts its BM25 under the short messages', so neither leg of its own finds it.
LONG = (
    "Rescue greyhound shelter today. "
    "The quarterly revenue numbers looked strong again across every region we track closely. "
    "Marketing hired two designers for the spring campaign and the autumn launch events. "
    "Finance closed the books early after the auditors signed off on the annual statements. "
    "Engineering moved the build servers into the new rack beside the storage cluster."
)


def _filler(n: int) -> str:
    """A short message holding every query word (so it outranks LONG in both legs), padded with
    words of its own so that its cosine stays under LONG's sentence key's."""
    words = " ".join(f"w{n}x{i}" for i in range(12))
    return f"rescue greyhound shelter {words}"


def _seed(services: Services) -> str:
    messages = [make_message(1, content=LONG), *(make_message(10 + n, content=_filler(n)) for n in range(40))]
    long_id = str(services.memory.ingest(messages).ids[0])
    assert services.memory.keys is not None
    services.memory.keys.wait()
    return long_id


def _hits(services: Services) -> list[tuple[str, float]]:
    return [(h.id, round(h.score, 5)) for h in services.memory.search(QUERY, limit=5)]


def test_a_message_only_its_key_finds_ranks_alike_on_the_index_path(services: Services) -> None:
    """Past the in-memory limit, a message found by its sentence key alone gets its cosine from its
    stored vector, as in memory. Before, the index path dropped it, so the ranking depended on
    which messages were keyed yet (a bulk-imported archive's keys take hours to build)."""
    long_id = _seed(services)
    searcher = services.memory.searcher
    in_memory = _hits(services)
    assert long_id in [k for k, _ in in_memory]  # lifted by its key above most short messages
    searcher.config = replace(searcher.config, sentence_keys=False)
    assert long_id not in [k for k, _ in _hits(services)]  # its key alone brings it in
    searcher.config = replace(searcher.config, sentence_keys=True)

    corpus = searcher.corpus
    corpus.max_cached_rows = 1  # as a collection past the limit: the index path serves
    corpus._caches.clear()
    assert corpus.matrix().view() is None
    assert _hits(services) == in_memory
