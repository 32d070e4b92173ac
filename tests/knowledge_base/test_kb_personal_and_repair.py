"""Insight settings stored and mirrored as memory.txt; repair of orphans and model changes."""

from __future__ import annotations

from kbstate import footprint

from app.core.embeddings.hashing import HashingEmbedder
from app.core.events import Change
from knowledge_base.maintenance import repair


def test_insight_settings_become_memory_txt(services):
    kb = services.knowledge
    changes: list[Change] = []
    services.events.subscribe(changes.append)
    doc = kb.set_insight_settings(["Ada Lovelace"], ["pelican budget"], "I lead the hangar team.")
    assert doc is not None and doc.file_name == "memory.txt" and doc.metadata["source"] == "insight-settings"
    settings, doc_id = kb.insight_settings()
    assert doc_id == doc.id
    assert settings.focus_people == ("Ada Lovelace",) and settings.topics == ("pelican budget",)
    assert "I lead the hangar team." in kb.get(doc.id).content
    assert kb.search("pelican budget")[0].document_id == doc.id
    assert changes[-1] == Change("document", "created", (doc.id,))

    # Saving the same settings keeps the document; changing them replaces it.
    assert (
        kb.set_insight_settings(["Ada Lovelace"], ["pelican budget"], "I lead the hangar team.").id == doc.id
    )
    new = kb.set_insight_settings(["Grace Hopper"], [], "")
    assert new is not None and new.id != doc.id
    assert [d.id for d in kb.list_documents()] == [new.id]
    assert "Grace Hopper" in kb.get(new.id).content and "Ada" not in kb.get(new.id).content

    # Clearing everything removes memory.txt.
    assert kb.set_insight_settings() is None
    assert footprint(services).empty
    assert kb.insight_settings() == (kb.insight_settings()[0], None)


def test_memory_txt_removed_by_hand_is_recreated(services):
    kb = services.knowledge
    doc = kb.set_insight_settings(topics=["gannets"])
    kb.remove(doc.id)
    settings, doc_id = kb.insight_settings()
    assert settings.topics == ("gannets",) and doc_id is None
    again = kb.set_insight_settings(topics=["gannets"])
    assert again is not None and kb.get(again.id).content.count("gannets") == 1


def test_settings_survive_a_restart(make_services):
    first = make_services()
    doc = first.knowledge.set_insight_settings(["Linus"], ["kernels"], "about me text")
    first.close()
    second = make_services()
    settings, doc_id = second.knowledge.insight_settings()
    assert settings.about_me == "about me text" and doc_id == doc.id


def test_repair_removes_orphan_vectors_and_files(services):
    kb = services.knowledge
    kept = kb.add_bytes(b"kept document", "kept.txt")
    collection = kb.kb.collection
    collection.upsert(
        ["ghost:0"], services.embedder.embed_documents(["x"]), [{"user_id": "local", "document_id": "g"}]
    )
    (services.layout.documents / "ghost.pdf").write_bytes(b"%PDF-")
    report = kb.repair()
    assert (report.orphan_vectors, report.orphan_files, report.reembedded_documents) == (1, 1, 0)
    fp = footprint(services)
    assert (fp.documents, fp.vectors, fp.files) == (1, 1, 1)
    assert kb.get(kept.id)
    assert kb.repair() == type(report)()


def test_model_change_is_a_planned_reembed_that_switches_when_complete(make_services):
    old = make_services(embedder=HashingEmbedder(64))
    info = old.knowledge.add_bytes(b"the cormorant manifest", "c.txt")
    old.close()
    new = make_services(embedder=HashingEmbedder(32))
    # Until the new set is complete, search (and repair) keep the old model's vectors.
    assert new.embedder.dimensions == 64 and repair(new.knowledge.kb).reembedded_documents == 0
    assert new.knowledge.search("the cormorant manifest")[0].similarity is not None
    plan = new.reembed.plan()
    assert plan.switch and plan.todo == 1
    result = new.reembed.apply(plan)
    assert result.switched and new.embedder.dimensions == 32
    assert new.knowledge.kb.collection.count() == 1
    assert "chunk__hashing_bow_64__64" not in new.vectors.connection.list_tables().tables
    hit = new.knowledge.search("the cormorant manifest")[0]
    assert hit.document_id == info.id and hit.similarity is not None
    # Deleting after the switch removes the new model's vectors.
    new.knowledge.remove(info.id)
    assert footprint(new).empty
