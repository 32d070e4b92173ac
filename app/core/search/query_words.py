"""Which of a query's words are evidence: the question's frame ("what did … say about") is not.

The keyword index drops only true stopwords ("the", "did", "about"), which is right for BM25: a
message that holds "say" is a slightly better match for "what did Anna say about the forecast"
than one that does not. The relevance floor needs more: it asks whether a hit holds what the
person is looking for, and the verbs and quantifiers that frame an English question ("say",
"got", "many", "ever mention") are in a tenth of all chat lines. Counted as content, they made
"What did Caroline say about zzqxv?" pass the floor on "Just wanted to say hi!" (0.43).

Why a list and not the keyword index's IDF: in a chat archive these words are not rare enough
to be discounted by it ("say" is in 21 of LoCoMo's 2,760 turns, "mention" in 8: IDF rates both
as informative as a topic word), while in a small archive nearly every word is rare. The list
is the question frame of English, the language the local model reads; other languages' words are
never dropped. docs/benchmarks.md ("Trust: floor words, …") has what each choice measured.
"""

from __future__ import annotations

# Verbs that carry "what was communicated / owned" in a question ("has she got", not "get":
# "when did John get his dog", "getting into running" are answered by "got/get" lines), the
# quantifier and frequency words of "how many", "ever", "kind of", and polite request words.
# Not "like", "feel", "think", "want" or "type": in chat questions they are usually the thing
# asked about ("what does Jon like", "how did Gina feel about the launch") and answers repeat
# them (each measured on LoCoMo dev, docs/benchmarks.md "Trust").
FRAME_WORDS = frozenset(
    """
    say says said saying tell tells told telling talk talks talked talking mention mentions
    mentioned mentioning share shares shared got gotten
    ever many much kind kinds sort ones thing things anything something
    know knows knew please remind
    """.split()  # noqa: SIM905 - a word list reads better as text
)


def informative(words: list[str]) -> list[str]:
    """`words` (a query's content words, lower case) without its frame words, or all of them when
    nothing else is left ("what did she say?" still searches for "say")."""
    kept = [w for w in words if w not in FRAME_WORDS]
    return kept or words


def without_frame(query: str) -> str:
    """The query's text without its frame words ("Which blorfs has she got?" -> "Which blorfs has she"),
    or the query itself when nothing else would be left. Embedded for the floor's judgement when a
    word of the query is in no candidate (ranking._unheld_word): "got" alone pulled the vector of
    "Which blorfs has Caroline got?" towards every "get" and "got" of the archive (cosine 0.40)."""
    words = query.split()
    kept = [w for w in words if w.lower().strip(".,;:!?\"'()") not in FRAME_WORDS]
    return " ".join(kept) if kept and any(c.isalnum() for c in "".join(kept)) else query
