"""Knowledge-base fixtures: services with custom `kb.*` settings on a temp data dir."""

from __future__ import annotations

from collections.abc import Callable, Iterator
from typing import Any

import pytest

from app.bootstrap import Services, build_services
from app.core.clock import FixedClock
from app.core.embeddings.hashing import HashingEmbedder
from app.core.settings import EmbeddingSettings, KnowledgeBaseSettings, Settings


@pytest.fixture
def make_services(data_dir, clock: FixedClock) -> Iterator[Callable[..., Services]]:
    built: list[Services] = []

    def make(embedder: Any = None, **kb: Any) -> Services:
        settings = Settings(
            data_dir=data_dir, embedding=EmbeddingSettings(provider="hashing"), kb=KnowledgeBaseSettings(**kb)
        )
        services = build_services(settings, clock=clock, embedder=embedder or HashingEmbedder())
        built.append(services)
        return services

    yield make
    for services in built:
        services.close()
