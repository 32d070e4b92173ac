"""List questions' own evidence: does a message name a thing of the kind asked for ("cities" ~ "Chicago")?

"Which cities has John been to?" is answered by "Drove up to Chicago to see my cousin": the
message shares no word with the question and its whole-text cosine is low (MiniLM 0.2), so the
relevance floor hid it. A single word, though, is close to its category on the same model:
"city" ~ "Chicago" 0.66, "Seattle" 0.58, "Boston" 0.56, against 0.41 for "kitchen" and under 0.35
for most words; "pet" ~ "dog" 0.70, "instrument" ~ "violin" 0.63. So the words of a few candidate
messages are embedded one by one (cached) and compared with the asked-for noun. Abstract nouns
("activities", "events") have no such close instances and find nothing; search then works as before.
"""

from __future__ import annotations

import re
import threading
from collections import OrderedDict
from collections.abc import Iterable, Mapping

import numpy as np

from app.core.embeddings.base import Embedder
from app.core.search.relevance import RelevanceModel, stem
from app.core.storage.keyword import STOPWORDS

_WORD = re.compile(r"[^\W\d_][^\W_]{2,}", re.UNICODE)
# On the model's calibrated cosine scale (0 = no evidence, 1 = full): MiniLM 0.15–0.70, so 0.636
# is a raw cosine of 0.50, above "kitchen" ~ "city" (0.41) and below "Seattle" ~ "city" (0.58).
INSTANCE_MIN = 0.636
# Words embedded per question at most (about 1 ms of CPU each on MiniLM when not cached).
MAX_WORDS = 64
# Word vectors kept between searches (1.5 KB each on MiniLM: at most 6 MB); dropped when idle.
_CACHE_SIZE = 4096


def singular(noun: str) -> str:
    """ "cities" -> "city", "countries" -> "country", "dishes" -> "dish", "pets" -> "pet" (crude)."""
    if noun.endswith("ies") and len(noun) > 4:
        return noun[:-3] + "y"
    if noun.endswith(("ches", "shes", "sses", "xes")):
        return noun[:-2]
    return noun[:-1] if noun.endswith("s") and not noun.endswith("ss") else noun


class InstanceMatcher:
    """Word vectors of one embedder, cached; compares a message's words with a category noun."""

    def __init__(self, embedder: Embedder, *, cache_size: int = _CACHE_SIZE) -> None:
        self.embedder = embedder
        self._cache: OrderedDict[str, np.ndarray] = OrderedDict()
        self._cache_size = cache_size
        self._lock = threading.Lock()

    def release(self) -> None:
        """Forget the cached word vectors (idle release; the next list question embeds again)."""
        with self._lock:
            self._cache.clear()

    def _vectors(self, words: list[str]) -> dict[str, np.ndarray]:
        with self._lock:
            found = {w: v for w in words if (v := self._cache.get(w)) is not None}
            for w in found:
                self._cache.move_to_end(w)
        missing = [w for w in words if w not in found]
        if missing:
            vectors = np.asarray(self.embedder.embed_documents(missing), dtype=np.float32)
            with self._lock:
                for w, v in zip(missing, vectors, strict=True):
                    found[w] = self._cache[w] = v
                while len(self._cache) > self._cache_size:
                    self._cache.popitem(last=False)
        return found

    def closest(
        self, category: str, texts: Mapping[str, str], *, skip: Iterable[str] = (), max_words: int = MAX_WORDS
    ) -> dict[str, tuple[float, str]]:
        """For each text, its word closest to `category` (a plural noun) and that cosine.

        Words of the category itself ("city" in "I love this city") and the `skip` words (the
        people's names) are left out: neither names an instance. Texts are read in the order
        given until `max_words` distinct words are collected; later texts are not judged."""
        noun = singular(category)
        left_out = {stem(noun), stem(category), *(w.lower() for w in skip)}
        words_of: dict[str, list[str]] = {}
        wanted: dict[str, None] = {}
        for key, text in texts.items():
            # MiniLM is uncased; other models lose little by it, and the cache holds one entry.
            found = dict.fromkeys(w.lower() for w in _WORD.findall(text))
            words = [w for w in found if w not in STOPWORDS and stem(w) not in left_out]
            if len(wanted) + len(set(words) - set(wanted)) > max_words:
                break
            words_of[key] = words
            wanted.update(dict.fromkeys(words))
        if not wanted:
            return {}
        vectors = self._vectors([noun, *wanted])
        target = vectors[noun]
        best: dict[str, tuple[float, str]] = {}
        for key, words in words_of.items():
            scored = [(float(vectors[w] @ target), w) for w in words]
            if scored:
                best[key] = max(scored)
        return best


def instance_relevance(cosine: float, model: RelevanceModel) -> float:
    """The relevance a named instance lends its message: what a vector-only hit of the same
    calibrated closeness gets (QueryScorer.relevance), or 0 under `INSTANCE_MIN`."""
    span = model.cosine_high - model.cosine_low
    calibrated = min(1.0, max(0.0, (cosine - model.cosine_low) / span))
    return model.semantic_weight * calibrated if calibrated >= INSTANCE_MIN else 0.0
