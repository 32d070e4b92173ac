"""Insight settings normalize their input and render the memory.txt text."""

from __future__ import annotations

import pytest

from app.core.errors import InvalidInput
from knowledge_base.personalization import InsightSettings, render_memory_txt


def test_create_trims_dedupes_and_keeps_order():
    settings = InsightSettings.create(
        ["  Ada  Lovelace ", "ada lovelace", "", "Linus"],
        ["Rust", "rust ", "AI"],
        "  I run the infra team.  ",
    )
    assert settings.focus_people == ("Ada Lovelace", "Linus")
    assert settings.topics == ("Rust", "AI")
    assert settings.about_me == "I run the infra team."
    assert settings.to_dict() == {
        "focusPeople": ["Ada Lovelace", "Linus"],
        "topics": ["Rust", "AI"],
        "aboutMe": "I run the infra team.",
    }
    assert not settings.is_empty() and InsightSettings().is_empty()


def test_render_memory_txt():
    text = render_memory_txt(InsightSettings.create(["Ada"], ["Budget 2026"], "Engineer in Berlin."))
    assert text == (
        "Personal context for Strata (from insight settings).\n\n"
        "About me:\nEngineer in Berlin.\n\n"
        "People I focus on (important contacts):\n- Ada\n\n"
        "Topics I care about:\n- Budget 2026\n"
    )
    assert "About me" not in render_memory_txt(InsightSettings.create(topics=["x"]))


def test_limits():
    with pytest.raises(InvalidInput, match="about me"):
        InsightSettings.create(about_me="x" * 20_001)
    with pytest.raises(InvalidInput, match="topics entries, over the 200 limit"):
        InsightSettings.create(topics=[f"t{i}" for i in range(201)])
    with pytest.raises(InvalidInput, match="focus people entry is over"):
        InsightSettings.create(focus_people=["x" * 201])
