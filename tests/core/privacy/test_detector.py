"""The redactor on a labelled corpus: every secret masked with a readable placeholder, look-alikes kept."""

from __future__ import annotations

import pytest

from app.core.privacy.detector import ALL_CLASSES, Detector
from tests.core.privacy import corpus
from tests.core.privacy.corpus_round5 import ROUND5_LOOK_ALIKES, ROUND5_SECRETS
from tests.core.privacy.corpus_round6 import ROUND6_LOOK_ALIKES, ROUND6_SECRETS
from tests.core.privacy.corpus_round7 import ROUND7_LOOK_ALIKES, ROUND7_SECRETS
from tests.core.privacy.corpus_round8 import ROUND8_LOOK_ALIKES, ROUND8_SECRETS
from tests.core.privacy.corpus_round9 import ROUND9_LOOK_ALIKES, ROUND9_SECRETS
from tests.core.privacy.corpus_round10 import ROUND10_LOOK_ALIKES, ROUND10_SECRETS
from tests.core.privacy.corpus_round11 import ROUND11_LOOK_ALIKES, ROUND11_SECRETS
from tests.core.privacy.corpus_round12 import ROUND12_LOOK_ALIKES, ROUND12_SECRETS

SECRETS = corpus.SECRETS + corpus.ROUND2_SECRETS + corpus.ROUND3_SECRETS
LOOK_ALIKES = corpus.LOOK_ALIKES + corpus.ROUND2_LOOK_ALIKES + corpus.ROUND3_LOOK_ALIKES
PII = {"email", "phone", "card", "iban"}
# Rounds 5 to 12 were measured blind (docs/benchmarks.md) and tuned on after: they hold the goals
# as a whole (recall >= 0.95 on secrets, <= 2 % of look-alikes changed), not example by example,
# so the few known misses stay visible in the benchmark instead of being forced.
TUNED_ROUNDS = {
    "round5": (ROUND5_SECRETS, ROUND5_LOOK_ALIKES),
    "round6": (ROUND6_SECRETS, ROUND6_LOOK_ALIKES),
    "round7": (ROUND7_SECRETS, ROUND7_LOOK_ALIKES),
    # Written by another helper who never saw the detector (session 5).
    "round8": (ROUND8_SECRETS, ROUND8_LOOK_ALIKES),
    "round9": (ROUND9_SECRETS, ROUND9_LOOK_ALIKES),
    "round10": (ROUND10_SECRETS, ROUND10_LOOK_ALIKES),
    # Written by a new blind author (blind2, session 6).
    "round11": (ROUND11_SECRETS, ROUND11_LOOK_ALIKES),
    "round12": (ROUND12_SECRETS, ROUND12_LOOK_ALIKES),
}

DETECTOR = Detector()


@pytest.mark.parametrize(
    ("text", "values", "kind"), SECRETS, ids=[f"{k}-{i}" for i, (_, _, k) in enumerate(SECRETS)]
)
def test_every_secret_in_the_corpus_is_masked_with_its_placeholder(
    text: str, values: tuple[str, ...], kind: str
) -> None:
    masked = DETECTOR.mask(text)
    for value in values:
        assert value not in masked
    # Personal data gets its own placeholder; a secret may be named by a more specific pattern.
    placeholder = {"card": "[CARD]", "iban": "[IBAN]", "email": "[EMAIL]", "phone": "[PHONE]"}.get(
        kind, "[SECRET:"
    )
    assert placeholder in masked


def test_look_alikes_are_left_alone_within_two_percent() -> None:
    changed = [t for t in LOOK_ALIKES if DETECTOR.mask(t) != t]
    assert len(changed) / len(LOOK_ALIKES) <= 0.02, changed


def test_placeholders_keep_the_sentence_readable() -> None:
    text = "Server password is hunter2. Mail jane@example.com or call +1 415 555 0132, thanks!"
    assert (
        DETECTOR.mask(text) == "Server password is [SECRET:password]. Mail [EMAIL] or call [PHONE], thanks!"
    )


def test_classes_are_configurable() -> None:
    text = "mail jane@example.com, key AKIAIOSFODNN7EXAMPLE"
    assert Detector(["secrets"]).mask(text) == "mail jane@example.com, key [SECRET:aws-key]"
    assert Detector(["emails"]).mask(text) == "mail [EMAIL], key AKIAIOSFODNN7EXAMPLE"
    with pytest.raises(ValueError, match="unknown redaction classes"):
        Detector(["secrets", "passports"])
    assert set(ALL_CLASSES) == {"secrets", "cards", "ibans", "emails", "phones"}


def test_phone_regions_decide_national_formats() -> None:
    uk_national = "ring 020 7946 0958 tomorrow"
    assert "[PHONE]" not in Detector(phone_regions=["US"]).mask(uk_national)
    assert "[PHONE]" in Detector(phone_regions=["US", "GB"]).mask(uk_national)


def test_an_unterminated_private_key_is_masked_to_the_end() -> None:
    text = "oops -----BEGIN PRIVATE KEY-----\nMIIEvQIBADANBgkqhkiG9w0BAQEFAASC"
    assert DETECTOR.mask(text) == "oops [SECRET:private-key]"


def test_results_are_cached_per_text() -> None:
    detector = Detector()
    first = detector.find("key AKIAIOSFODNN7EXAMPLE")
    assert detector.find("key AKIAIOSFODNN7EXAMPLE") is first


@pytest.mark.parametrize(("text", "values", "kind"), SECRETS[:12] + SECRETS[-8:])
def test_masking_is_idempotent(text: str, values: tuple[str, ...], kind: str) -> None:
    # Results nest masked text (a record and its neighbours), so masking twice must change nothing.
    once = DETECTOR.mask(text)
    assert DETECTOR.mask(once) == once


@pytest.mark.parametrize("name", sorted(TUNED_ROUNDS))
def test_later_rounds_meet_the_recall_and_false_positive_goals(name: str) -> None:
    secrets, look_alikes = TUNED_ROUNDS[name]
    kept = [(t, vs) for t, vs, kind in secrets if kind not in PII]
    missed = [t for t, vs in kept if any(v in DETECTOR.mask(t) for v in vs)]
    assert 1 - len(missed) / len(kept) >= 0.95, missed
    changed = [t for t in look_alikes if DETECTOR.mask(t) != t]
    assert len(changed) / len(look_alikes) <= 0.02, changed


@pytest.mark.parametrize(
    ("text", "masked"),
    [
        ("my pin for the door is 482913", "my pin for the door is [SECRET:pin]"),
        ("der Code für die Haustür ist 2905", "der Code für die Haustür ist [SECRET:pin]"),
        ("Kahoot game PIN 4829103, join now!", "Kahoot game PIN 4829103, join now!"),
        ("use promo code WELCOME10 for 10% off", "use promo code WELCOME10 for 10% off"),
        ("ssh-ed25519 AAAAC3NzaC1lZDI1NTE5AAAAIOMqqnkVzrm0SdG6UOoqKLsabgH5C9okWi0dh2l9GKJl a@b", None),
    ],
)
def test_phrasings_and_their_look_alikes(text: str, masked: str | None) -> None:
    assert DETECTOR.mask(text) == (masked if masked is not None else text)
