"""Pages and chunks of a longer text: a secret cut by the edge is masked whole, never in halves."""

from __future__ import annotations

from app.core.privacy.detector import Detector
from app.core.privacy.windows import masked_excerpt, masked_page

DETECTOR = Detector()
KEY = "AKIAIOSFODNN7EXAMPLE"
PEM = (
    "-----BEGIN RSA PRIVATE KEY-----\n"
    + "MIIEpAIBAAKCAQEA3Tz2mr7SZiAMfQyuvBjM2Adq\n" * 40
    + "-----END RSA PRIVATE KEY-----"
)


def _fragments(secret: str, size: int = 6) -> list[str]:
    return [secret[i : i + size] for i in range(len(secret) - size + 1)]


def test_a_page_end_never_cuts_a_secret() -> None:
    text = "a" * 95 + " " + KEY + " and more words after it"
    first, end = masked_page(DETECTOR, text, 0, 100)  # the edge falls inside the key
    assert end == 96 and first == "a" * 95 + " "
    second, end2 = masked_page(DETECTOR, text, end, 100)
    assert second.startswith("[SECRET:aws-key]") and end2 == len(text)
    assert not any(f in first + second for f in _fragments(KEY))


def test_a_page_that_starts_inside_a_secret_masks_its_tail() -> None:
    text = "intro " + KEY + " outro"
    page, _ = masked_page(DETECTOR, text, 6 + 7, 100)  # a client-chosen offset in the key
    assert page == "[SECRET:aws-key] outro"


def test_the_middle_of_a_private_key_is_masked_on_a_later_page() -> None:
    text = "notes\n" + "x " * 3000 + PEM + "\nend of notes"
    begin = text.index("-----BEGIN")
    # A page starting in the key's base64 lines, thousands of characters after its BEGIN line.
    page, _ = masked_page(DETECTOR, text, begin + 1500, 500)
    assert "MIIEpAIBAAKCAQEA" not in page and page.startswith("[SECRET:private-key]")


def test_a_chunk_is_masked_as_it_reads_in_its_document() -> None:
    document = "The staging password: zq8#lm2.wx99 is for the deploy bot only."
    chunk = document[: document.index("wx99")]  # a chunk cut in the middle of the value
    assert masked_excerpt(DETECTOR, chunk, document) == "The staging password: [SECRET:password]"
    tail = document[document.index("lm2.") :]
    assert "lm2.wx99" in DETECTOR.mask(tail)  # on its own, the cut-off value is not recognizable
    assert masked_excerpt(DETECTOR, tail, document).startswith("[SECRET:password] is for")
    # A chunk not found in the document (edited since) is masked on its own.
    assert masked_excerpt(DETECTOR, "key " + KEY, "something else") == "key [SECRET:aws-key]"
