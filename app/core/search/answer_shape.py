"""A question about a named person, rewritten as the statement that person would write in a chat.

"What activities does Melanie partake in?" is asked in the third person, while its answers are
Melanie's own first-person messages ("I signed up for a pottery class"). Embedded as asked, the
question sits near other questions and near messages *addressed* to Melanie ("Wow, Melanie! …");
rewritten in the writer's voice ("I partake in activities"), it sits nearer to what she wrote.
General English question forms only (wh-questions and yes/no questions with an auxiliary); any
other query (a keyword query, another language) is left alone (None), and search works as before.
No model: a few rules on the words, so it costs nothing beside the embedding it replaces.
"""

from __future__ import annotations

import re
from collections.abc import Collection

_TOKEN = re.compile(r"[\w'+/.-]+|[^\w\s]", re.UNICODE)
_WH = frozenset({"what", "which", "where", "when", "who", "whom", "whose", "why", "how"})
# "how many/much/long/often…" and "in what ways…": the words after the question word that belong to it.
_HOW_WORDS = frozenset({"many", "much", "long", "often", "far", "old"})
_AUX = frozenset(
    {
        "do", "does", "did", "has", "have", "had", "is", "are", "am", "was", "were",
        "will", "would", "can", "could", "should", "might", "may", "des",
    }
)  # fmt: skip
# The auxiliary as its first-person subject says it (singular "I" / plural "we"); "" = dropped.
_AUX_AS = {
    "do": ("", ""), "does": ("", ""), "des": ("", ""), "did": ("", ""),
    "has": ("have", "have"), "have": ("have", "have"), "had": ("had", "had"),
    "is": ("am", "are"), "are": ("am", "are"), "am": ("am", "are"),
    "was": ("was", "were"), "were": ("was", "were"),
}  # fmt: skip
# After "did" the verb is in its base form; the statement says it in the past.
_IRREGULAR_PAST = {
    "be": "was", "become": "became", "begin": "began", "bring": "brought", "build": "built",
    "buy": "bought", "catch": "caught", "choose": "chose", "come": "came", "do": "did",
    "draw": "drew", "drink": "drank", "drive": "drove", "eat": "ate", "fall": "fell",
    "feel": "felt", "find": "found", "fly": "flew", "get": "got", "give": "gave", "go": "went",
    "grow": "grew", "have": "had", "hear": "heard", "hold": "held", "keep": "kept",
    "know": "knew", "leave": "left", "lend": "lent", "lose": "lost", "make": "made",
    "meet": "met", "pay": "paid", "put": "put", "read": "read", "ride": "rode", "run": "ran",
    "say": "said", "see": "saw", "sell": "sold", "send": "sent", "sing": "sang", "sit": "sat",
    "speak": "spoke", "spend": "spent", "swim": "swam", "take": "took", "teach": "taught",
    "tell": "told", "think": "thought", "throw": "threw", "wear": "wore", "win": "won",
    "write": "wrote",
}  # fmt: skip
# Pronouns that, in a question naming one person, stand for that person.
_PRONOUN_AS = {
    "she": "I", "he": "I", "her": "my", "his": "my", "him": "me",
    "herself": "myself", "himself": "myself", "hers": "mine",
}  # fmt: skip
_PLURAL_PRONOUN_AS = {"they": "we", "their": "our", "them": "us", "themselves": "ourselves", "theirs": "ours"}
_VOWELS = frozenset("aeiou")
_BE = frozenset({"is", "are", "am", "was", "were"})
_ADVERBS = frozenset({"both", "ever", "also", "really", "actually", "still", "just", "never", "first", "all"})
# Before these words a name or pronoun is a subject ("when she has…", "what Jon thinks…").
_CLAUSE_START = frozenset(
    {*_WH, "that", "and", "if", "because", "while", "since", "after", "before", "until"}
)
# A verb after a first-person subject that replaced a third-person one.
_FIRST_PERSON_VERB = {
    "has": "have",
    "is": "am",
    "does": "do",
    "was": "was",
    "doesn't": "don't",
    "isn't": "am not",
}


def answer_shaped(query: str, names: Collection[str]) -> str | None:
    """`query` as a statement in the named people's voice, without their names; None when the query
    is not an English question about them (`names`: the lower-cased words of the people it names)."""
    names = {n.lower() for n in names}
    if not names:
        return None
    tokens = [t for t in _TOKEN.findall(query) if t not in {"?", "!"}]
    if len(tokens) < 2:
        return None
    words = [t.lower() for t in tokens]
    named = [_is_name(w, names) for w in words]
    if not any(named):
        return None
    # Where the question's frame ends: the question word (and its noun phrase), then an auxiliary.
    head: list[str] = []
    i = 0
    if words[0] == "in" and len(words) > 2 and words[1] == "what":  # "in what ways is …"
        head, i = tokens[2:3], 3
        wh = "what"
    elif words[0] in _WH:
        wh, i = words[0], 1
        if wh == "how" and i < len(words) and words[i] in _HOW_WORDS:
            i += 1
        # "what activities", "which European cities", "what kind of art": up to the auxiliary.
        start = i
        while i < len(words) and words[i] not in _AUX and not named[i] and i - start < 5:
            i += 1
        if i >= len(words) or words[i] not in _AUX:
            return _plain_statement(tokens, words, named, names)
        head = [
            t for t in tokens[start:i] if t.lower() not in {"kind", "kinds", "type", "types", "of", "sort"}
        ]
    elif words[0] in _AUX:
        wh = ""
    else:
        return None
    if i >= len(words) or words[i] not in _AUX:
        return None
    aux = words[i]
    rest_tokens, rest_named = tokens[i + 1 :], named[i + 1 :]
    if rest_tokens and rest_tokens[0].lower() == "both":  # "have both Jon and Gina …"
        rest_tokens, rest_named = rest_tokens[1:], rest_named[1:]
    subject, j, plural = _subject(rest_tokens, rest_named)
    if subject is None:
        # "Who supports Caroline when…" (the person is not the subject); a question starting
        # with an auxiliary and no named subject is not one we can read ("Was hat Melanie…").
        return _plain_statement(tokens, words, named, names) if wh else None
    verb_tokens = _voiced(rest_tokens[j:], rest_named[j:], subject == "we")
    if subject.startswith("my ") and aux in _BE:
        # "What is Caroline's relationship status?": the whole rest is what is asked about.
        return _join([subject, *verb_tokens, aux, *head])
    said_aux = aux if subject.startswith("my ") else _AUX_AS.get(aux, (aux, aux))[1 if plural else 0]
    if aux == "did":
        # The verb (after "both", "ever"…) said in the past: "did Gina promote" -> "I promoted".
        at = next((k for k, t in enumerate(verb_tokens) if t.lower() not in _ADVERBS), None)
        if at is not None:
            verb_tokens = [*verb_tokens[:at], _past(verb_tokens[at]), *verb_tokens[at + 1 :]]
    return _join([subject, said_aux, *verb_tokens, *head])


def _is_name(word: str, names: Collection[str]) -> bool:
    return word.removesuffix("'s").removesuffix("’s") in names


def _subject(tokens: list[str], named: list[bool]) -> tuple[str | None, int, bool]:
    """The statement's subject for the words after the auxiliary: "I", "we" (two people named),
    "my kids" ("Melanie's kids"); how many words it took; whether it is plural."""
    if not tokens or not named[0]:
        return None, 0, False
    first = tokens[0].lower()
    # "Jon and Gina", "Melanie and her kids": the people together.
    if len(tokens) > 2 and tokens[1].lower() == "and":
        k = 2
        if tokens[k].lower() in _PRONOUN_AS and k + 1 < len(tokens):
            k += 1  # "her kids"
        return "we", k + 1, True
    if first.endswith(("'s", "’s")):
        # "Melanie's kids like": "my kids like"; the possessed noun phrase is one word here.
        if len(tokens) > 1:
            noun = tokens[1]
            return f"my {noun}", 2, noun.lower().endswith("s") and not noun.lower().endswith("ss")
        return None, 0, False
    return "I", 1, False


def _voiced(tokens: list[str], named: list[bool], plural: bool) -> list[str]:
    """The rest of the question in the writer's voice: named people and their pronouns become
    "you" (the other person of a chat is addressed) or the writer's own words."""
    pronouns = _PLURAL_PRONOUN_AS if plural else _PRONOUN_AS
    out: list[str] = []
    for token, is_name in zip(tokens, named, strict=True):
        low = token.lower()
        if is_name:
            out.append("your" if low.endswith(("'s", "’s")) else "you")
        elif low in pronouns:
            out.append(pronouns[low])
        else:
            out.append(token)
    return out


def _plain_statement(
    tokens: list[str], words: list[str], named: list[bool], names: Collection[str]
) -> str | None:
    """A question whose named person is not its subject ("Who supports Caroline when she…"): the
    person becomes "me"/"my"/"I" in place, the question word stays (it is not what the answer says)."""
    out: list[str] = []
    subject = False  # the last word was a subject turned into "I"
    for k, (token, low, is_name) in enumerate(zip(tokens, words, named, strict=True)):
        before = words[k - 1] if k else ""
        after = words[k + 1] if k + 1 < len(words) else ""
        if is_name or low in _PRONOUN_AS:
            if low.endswith(("'s", "’s")) or low in {"her", "his", "hers"}:
                word = "my" if low != "hers" else "mine"
            elif low in {"she", "he"} or (
                (not k or before in _CLAUSE_START) and (after in _AUX or after.endswith("s"))
            ):
                word = "I"
            elif low in _PRONOUN_AS:
                word = _PRONOUN_AS[low]
            else:
                word = "me"
            out.append(word)
            subject = word == "I"
            continue
        if subject:
            token = _FIRST_PERSON_VERB.get(
                low, token[:-1] if low.endswith("s") and not low.endswith("ss") else token
            )
        subject = False
        out.append(token)
    return _join(out) if out else None


def _past(verb: str) -> str:
    """A base-form verb in the simple past ("go" -> "went", "paint" -> "painted")."""
    low = verb.lower()
    if low in _IRREGULAR_PAST:
        return _IRREGULAR_PAST[low]
    if not low.isalpha():
        return verb
    if low.endswith("e"):
        return verb + "d"
    if low.endswith("y") and len(low) > 1 and low[-2] not in _VOWELS:
        return verb[:-1] + "ied"
    return verb + "ed"


def _join(tokens: list[str]) -> str | None:
    text = " ".join(t for t in tokens if t)
    text = re.sub(r"\s+([,.;:])", r"\1", text).strip()
    return text or None
