"""The message search's tuned parameters and switches (each measured in docs/benchmarks.md)."""

from __future__ import annotations

from dataclasses import dataclass, field

from app.core.index.legs import FusionParams
from app.core.storage.keyword_budget import DEFAULT_ROW_BUDGET


@dataclass(frozen=True, slots=True)
class SearchConfig:
    candidate_pool: int = 30
    # Kept for settings compatibility; ranking is score-level fusion now (fusion.py), not RRF.
    rrf_k: int = 10
    # A tie-breaker for recent memories, on the relevance scale.
    recency_weight: float = 0.002
    recency_half_life_days: float = 180.0
    # Relevance added for hits in a conversation of a person the query names, and for that
    # person's own messages (tuned on LoCoMo: docs/benchmarks.md, "Retrieval engine: ranking").
    mentioned_channel_bonus: float = 0.05
    mentioned_person_bonus: float = 0.15
    # Score each candidate with its conversation neighbours (context.py).
    windows: bool = True
    parse_dates: bool = True
    # How many of the best candidates bring their conversation neighbours in as candidates.
    neighbour_candidates: int = 10
    # Rows FTS5 may score per query (None = score every match); see keyword_budget.
    keyword_row_budget: int | None = DEFAULT_ROW_BUDGET
    # Above the in-memory limit windows are read from SQLite and LanceDB (stored_windows.py), at
    # ~0.1 ms of LanceDB lookup per vector: at most this many candidates of each pass get one
    # (ranking.WINDOWED = 40 on the in-memory path; docs/benchmarks.md, "Conversation windows on
    # the index path").
    stored_windowed: int = 40
    # List questions naming people ("which cities has John been to?", questions.py): this many
    # of the named people's messages nearest to the question without the names join the
    # candidates, and that order is fused into the ranking (ranking.py); 0 = off.
    # 80 rather than 50 since the message leg's nameless blend: +0.005 multi-hop R@10 on LoCoMo,
    # nothing else moved (docs/benchmarks.md, "… (issue 12, `mh-rank`)").
    list_pool: int = 80
    # A list question asking for a kind of thing ("which cities…", questions.asked_category):
    # this many of the named people's nearest messages are judged on their word closest to the
    # noun ("Chicago" ~ "city"), which lifts them over the relevance floor (instances.py); 0 = off.
    list_instances: int = 20
    # A query naming people that holds a word no candidate holds ("zzqxv Maria"): the floor judges
    # it without the names' pull on its vector too (one more embedding, in-memory path only), so
    # the name alone passes nothing (docs/benchmarks.md, "Recall: multi-hop misses, and the floor
    # for list questions and names").
    floor_nameless: bool = True
    # ... and without the question's frame words ("say", "got", query_words.py) as well.
    floor_frame: bool = True
    # ... and a partial word match with nothing of the query's meaning counts half for the floor
    # ("tax audit" in "projects can be so taxing"; RelevanceModel.partial_support). Only the floor:
    # ordering by it cost 0.003 LoCoMo R@10 (docs/benchmarks.md, "Trust: named nonsense, …").
    floor_partial_support: float = 0.05
    # Whether the floor counts a word found only in an attachment's name (a photo caption) when
    # the message does not hold every word of the query (attachment_words.py).
    floor_partial_captions: bool = True
    # Search the messages' sentence keys too (app/core/index/message_keys.py), when built.
    sentence_keys: bool = True
    # How much a message's best key cosine counts over its own (message_keys.resolve).
    key_weight: float = 0.5
    # Keys taken from the key leg per query (several keys of a message may be among them).
    key_pool: int = 30
    # Keys below this cosine neither lift nor add a message: one shared word is no evidence
    # ("penguin migration Antarctica" vs "The migration locked the table": 0.27 on MiniLM).
    key_min_cosine: float = 0.35
    # A query naming people (not a list question) searches the keys with a vector this far
    # towards the query without the names: keys carry their writer's name, which otherwise lifts
    # every message of the named person (key_query.py); 0 = the query's own vector.
    key_nameless_mix: float = 0.5
    # A list question's named order also embeds the statement its people would write ("What books
    # has Tim read?" -> "I have read books", answer_shape.py), blended with the question without
    # the names. Off: +0.001 multi-hop R@10 on LoCoMo for one more embedding; as the key leg's
    # nameless half it lost 0.003 (docs/benchmarks.md, "… (issue 12, `mh-rank`)").
    answer_shape: bool = False
    # The same for the message leg and every candidate's cosine (key_query.py; the second
    # embedding is the key leg's, so it costs nothing more); 0 = the query's own vector.
    message_nameless_mix: float = 0.5
    # A list question ("which cities…", questions.asks_for_list) takes this many candidates per
    # leg instead of `candidate_pool` (0 = the same pool for every query): +0.002 multi-hop R@10
    # on LoCoMo, so off (docs/benchmarks.md, "Recall: category questions (issue 12, `mh9`)").
    list_candidate_pool: int = 0
    # A list question asking for a kind of thing ("what activities does Melanie…"): up to this many
    # of the named people's messages naming a kind of it by WordNet ("swimming", categories.py,
    # the table in resources/wordnet) lead the named order, and are lifted over the floor like
    # instances; 0 = off. LoCoMo multi-hop R@10 0.537 -> 0.554 with the defaults below, R@10 and
    # R@5 held (docs/benchmarks.md, "Recall: category questions, shipped (issue 12, `mh10`)").
    category_words: int = 10
    # ... read from the named people's latest this many messages (mh9: 2000; 1000 moves no LoCoMo
    # question, where a person has at most 671, and halves the cost at 100k; 500 loses one),
    category_scan: int = 1000
    # ... among the user's latest this many (bounds the SQL's walk at any archive size).
    category_window: int = 20_000
    # ... counting only words held by at most this many of them (0 = any): a person names a
    # pastime once or twice ("swimming") but broad kinds often ("care", "support", "fun").
    category_max_df: int = 2
    # ... placed ahead of the named order (else taken in turns with it: +0.000).
    category_lead: bool = True
    # ... found by WordNet ("wordnet"), by the embedder's cosine of each message's word closest to
    # the noun ("model", instances.py: one embedding per new word, cached; −0.021), or WordNet's
    # first then the model's ("both"; −0.007).
    category_source: str = "wordnet"
    # ... the distinct words the model judges at most (the named people's latest messages first).
    category_vocabulary: int = 2000
    # ... which of a word's WordNet noun senses count: its "first", "any" (+0.003), or any for a
    # word in "-ing" ("gerund": "painting" is first a picture; −0.002) (CategoryWords.of_kind).
    category_senses: str = "first"
    # ... a word WordNet lacks counts by its last part when both parts are words ("kickboxing"):
    # +0.000, so off.
    category_compounds: bool = False
    # ... with two named people, each one's words counted for `category_max_df` apart: a city John
    # names once is rare though Tim names it too.
    category_per_person: bool = True
    # ... and for kinds of thing with titles (books, movies, songs), messages quoting a title
    # ("I just watched "Little Women"": +0.005).
    category_titles: bool = True

    fusion: FusionParams = field(default_factory=FusionParams)
