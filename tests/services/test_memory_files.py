"""Memory files generated from a real archive (demo chat + a Telegram DM + merged identities + insights)."""

from __future__ import annotations

import re
import time

import pytest
from apscheduler.schedulers.background import BackgroundScheduler

from app.core.domain import SearchFilters
from app.core.errors import Conflict, InvalidInput, NotFound
from app.core.memory_files.fences import BEGIN, END
from app.core.settings import ProjectSettings
from app.services.demo import load_demo
from app.services.memory_files.service import JOB_ID
from app.services.scheduling import register_jobs
from tests.conftest import NOW_MS, make_message

DAY = 86_400_000


@pytest.fixture
def svc(services):
    load_demo(services.memory)
    services.memory.ingest(
        [
            make_message(
                100 + i,
                platform="telegram",
                channel="Anna S",
                person=person,
                content=text,
                message_id=f"tg{i}",
                metadata={"chat_type": "personal_chat"},
                timestamp=NOW_MS - (5 - i) * DAY,
            )
            for i, (person, text) in enumerate(
                [
                    ("Anna S", "Are we still on for the Lisbon offsite planning call?"),
                    ("me", "Yes, Thursday works. I'll send the agenda."),
                    ("Anna S", "Perfect, the venue deposit is 2,000 EUR, due Friday."),
                ]
            )
        ]
    )
    services.connectors.identities.merge([("slack", "anna"), ("telegram", "Anna S")], "Anna Schmidt")
    services.insights.generate()
    services.insights.set_me(["me"])
    return services


def test_a_person_page_is_worth_reading(svc):
    report = svc.files.refresh()
    assert report.counts.get("created", 0) == report.pages > 10
    page = svc.files.read("people/anna-schmidt.md")
    text = page.text
    assert page.title == "Anna Schmidt" and not page.user_owned
    assert "anna (slack)" in text and "Anna S (telegram)" in text  # one person across platforms
    assert "first 2026-11-02" in text and "last 2026-11-" in text
    assert "[[channels/slack-launch|#launch (slack)]]" in text  # where you talk, as wiki links
    assert "[[chats/telegram-anna-s|Anna S (telegram)]]" in text
    assert "## Open loops" in text and "update the forecast sheet" in text
    assert "## Recent decisions" in text and "let's go with that" in text
    assert "venue deposit" in text  # recent history digest
    # Every quoted line links to its source message, and the ids are real.
    ids = [int(i) for i in re.findall(r"strata://message/(\d+)", text)]
    assert ids and all(svc.memory.get(i) for i in ids)
    assert "people/me.md" not in {f["path"] for f in svc.files.list_files()}  # "me" is the user


def test_channels_chats_and_notes_pages(svc):
    svc.files.refresh()
    listed = {f["path"] for f in svc.files.list_files()}
    assert {"channels/slack-launch.md", "channels/slack-engineering.md", "chats/telegram-anna-s.md"} <= listed
    assert "notes/remembered.md" in listed
    launch = svc.files.read("channels/slack-launch.md").text
    assert "[[people/anna-schmidt|Anna Schmidt]]" in launch and "[[people/ben|ben]]" in launch
    assert "## Open action items" in launch and "status page" in launch
    assert "**Talked about:** launch" in launch
    assert "weekly digest" in svc.files.read("notes/remembered.md").text


def test_user_edits_outside_the_fences_survive_refresh_byte_for_byte(svc):
    svc.files.refresh()
    path = svc.files.store.root / "people" / "ben.md"
    mine_top = "Ben: prefers async updates.\r\n\t(tab kept)  \n"
    original = path.read_bytes().decode()
    head, rest = original.split(BEGIN, 1)
    edited = head + mine_top + BEGIN + rest.replace(END, END + "\nmy line right after the fence") + "\nlast\n"
    path.write_bytes(edited.encode())
    svc.memory.ingest([make_message(900, channel="launch", person="ben", content="New: Ben books the venue")])
    report = svc.files.refresh("people/ben.md")
    assert report.changed == ("people/ben.md",)
    after = path.read_bytes().decode()
    assert after.split(BEGIN)[0] == head + mine_top
    assert after.split(END)[1] == edited.split(END)[1]
    assert "Ben books the venue" in after


def test_user_owned_pages_are_never_regenerated(svc):
    svc.files.refresh()
    path = svc.files.store.root / "people" / "ben.md"
    owned = path.read_text().replace("user_owned: false", "user_owned: true")
    path.write_text(owned)
    svc.memory.ingest([make_message(901, channel="launch", person="ben", content="something new")])
    report = svc.files.refresh()
    assert ("people/ben.md", "user_owned") in report.left_alone
    assert path.read_text() == owned


def test_one_page_refresh_matches_the_full_refresh(svc):
    svc.files.refresh()
    for name in ("people/anna-schmidt.md", "channels/slack-launch.md", "chats/telegram-anna-s.md"):
        assert svc.files.refresh(name).counts == {"unchanged": 1}
    with pytest.raises(NotFound):
        svc.files.refresh("notes/mine.md")
    with pytest.raises(InvalidInput):
        svc.files.refresh("../people/x.md")


def test_projects_from_settings_and_from_a_files_front_matter(svc):
    svc.files.settings.projects.append(
        ProjectSettings(title="Aurora launch", channels=["slack/launch", "nope"])
    )
    svc.files.write(
        "projects/offsite.md", "---\ntitle: Lisbon offsite\nkeywords: offsite, venue\n---\nMy plan.\n"
    )
    report = svc.files.refresh()
    assert any("nope" in n for n in report.notes)
    aurora = svc.files.read("projects/aurora-launch.md").text
    assert "[[people/ben|ben]]" in aurora and "App Store review" in aurora
    offsite = svc.files.read("projects/offsite.md").text
    assert offsite.startswith("---\ntitle: Lisbon offsite\nkeywords: offsite, venue\n---\nMy plan.\n")
    assert "venue deposit" in offsite and BEGIN in offsite


def test_writes_edit_outside_the_block_only_and_keep_concurrent_edits(svc):
    svc.files.refresh()
    page = svc.files.read("people/ben.md")
    inside = page.text.replace("## Where you talk", "## Where I say we talk")
    with pytest.raises(InvalidInput, match="markers"):
        svc.files.write("people/ben.md", inside)
    ok = svc.files.write("people/ben.md", page.text + "my note\n", expected_version=page.version)
    with pytest.raises(Conflict):
        svc.files.write("people/ben.md", page.text + "stale\n", expected_version=page.version)
    assert svc.files.read("people/ben.md").text == ok.text
    created, first = svc.files.write_note("Offsite plan", "Book flights")
    again, second = svc.files.write_note("Offsite plan", "Ask Anna about the deposit")
    assert first and not second and created.path == again.path == "notes/offsite-plan.md"
    assert again.text.index("Book flights") < again.text.index("Ask Anna about the deposit")


def test_files_are_a_unified_search_source_and_see_edits(svc):
    svc.files.refresh()
    svc.files.write("strategy/q1.md", "# Q1\nFocus on the Zanzibar partnership.\n")
    hits = svc.memory.search("zanzibar", include=["files"])
    pages = [h for h in hits if h.kind == "memory_file"]
    assert [h.id for h in pages] == ["file:strategy/q1.md"] and pages[0].extra["path"] == "strategy/q1.md"
    # Every word of the query in one passage: an exact match (0.70 and up), ranked a little lower.
    assert pages[0].relevance >= 0.70 and pages[0].score < pages[0].relevance
    (svc.files.store.root / "strategy" / "q1.md").write_text("# Q1\nFocus on Madagascar.\n")
    assert [h.path for h in svc.files.search("madagascar")] == ["strategy/q1.md"]
    assert svc.files.search("zanzibar") == []


def test_a_page_ranks_on_its_best_passage_not_on_words_scattered_over_it(svc):
    """Issue 12: pages holding the query's words in different lines (or inside other words:
    "own" in "down", "date" in "updated") filled the first rows of unified search."""
    svc.files.refresh()
    svc.files.write(
        "strategy/scattered.md",
        "# Ops\n\n- We own the build servers.\n- The status meeting moved.\n- New page for hires.\n"
        "- The deploy was updated when the site was down.\n",
    )
    svc.files.write("strategy/owner.md", "# Ops owners\n\n- Ben will own the status page from May.\n")
    hits = svc.memory.search("who owns the status page", include=["files"], limit=20)
    pages = {h.extra["path"]: h for h in hits if h.kind == "memory_file"}
    assert "strategy/scattered.md" not in pages  # 1 of 3 words in its best passage: under the floor
    owner = pages["strategy/owner.md"]
    assert owner.relevance >= 0.70 and "Ben will own the status page" in owner.content
    loose = svc.memory.search("who owns the status page", include=["files"], limit=50, loose=True)
    scattered = next(h for h in loose if h.id == "file:strategy/scattered.md")
    assert scattered.relevance < 0.30
    dated = svc.memory.search("launch date", include=["files"])
    assert [h.extra["path"] for h in dated if h.kind == "memory_file"] == []


def test_search_filters_narrow_pages_to_their_subject_and_last_change(svc):
    svc.files.refresh()
    svc.files.write("strategy/launch.md", "# Launch\nMy own launch notes.\n")

    def pages(**filters: object) -> list[str]:
        hits = svc.memory.search("launch", SearchFilters(**filters), limit=30, include=["files"])
        return sorted(h.extra["path"] for h in hits if h.kind == "memory_file")

    assert {"people/ben.md", "channels/slack-launch.md", "strategy/launch.md"} <= set(pages())
    assert pages(persons=("ben",)) == ["people/ben.md"]  # a person: that person's page only
    assert pages(channels=("launch",)) == ["channels/slack-launch.md"]  # a channel: its page
    assert pages(platforms=("telegram",)) == ["people/anna-schmidt.md"]  # merged across platforms
    assert pages(persons=("ben",), channels=("launch",)) == []  # no page is both
    # Dates apply to the page's last change, the time the hit shows.
    now_ms = time.time_ns() // 1_000_000
    assert pages(since=now_ms - DAY) == pages()
    assert pages(since=now_ms + DAY) == pages(until=now_ms - DAY) == []


def test_forgetting_summaries_appear_by_period(services):
    old = NOW_MS - 20 * DAY
    services.memory.ingest(
        [
            make_message(
                i, channel="ops", person="omar", content=f"routine backup log {i}", timestamp=old + i
            )
            for i in range(5)
        ]
    )
    services.forgetting.run()
    services.files.refresh()
    text = services.files.read("channels/slack-ops.md").text
    assert "## Summaries by period" in text and "### 2026-11 · 5 messages" in text


def test_the_scheduler_host_refreshes_the_pages(services):
    scheduler = BackgroundScheduler()
    assert JOB_ID in register_jobs(scheduler, services)
    job = scheduler.get_job(JOB_ID)
    assert job.max_instances == 1 and job.coalesce
    load_demo(services.memory)
    report = services.files.run_scheduled()
    assert report is not None and "people/anna.md" in report.changed


def test_secrets_in_quoted_messages_are_masked_in_pages(services):
    token = "ghp_" + "a1B2c3D4e5F6g7H8i9J0" * 2
    services.memory.ingest([make_message(1, person="dev", content=f"the deploy token is {token} ok")])
    services.files.refresh()
    text = services.files.read("people/dev.md").text
    assert "the deploy token is" in text and token not in text
    assert token in services.memory.get(services.memory.search("deploy token", limit=1)[0].id).content


def test_deleting_a_message_rewrites_the_pages_that_quoted_it(services):
    services.memory.ingest(
        [
            make_message(1, person="dev", content="the launch code word is pineapple"),
            make_message(2, person="ana", content="lunch at noon"),
            make_message(3, person="ana", content="see you there"),
        ]
    )
    services.files.refresh()
    assert "pineapple" in services.files.read("people/dev.md").text
    assert "pineapple" in services.files.read("channels/slack-general.md").text
    record = next(r for r in services.memory.find("slack", ["m1"]))
    services.memory.delete(record.id)
    for path in ("people/dev.md", "channels/slack-general.md"):
        assert "pineapple" not in services.files.read(path).text, path
    assert services.files.search("pineapple") == []


def test_dismissed_insights_leave_the_pages(svc):
    svc.files.refresh()
    assert "update the forecast sheet" in svc.files.read("people/anna-schmidt.md").text
    item = next(r for r in svc.insights.list_insights(limit=500) if "forecast sheet" in r.insight.draft.title)
    svc.insights.set_lifecycle(item.id, "dismissed")
    svc.files.refresh("people/anna-schmidt.md")
    assert (
        "update the forecast sheet" not in svc.files.read("people/anna-schmidt.md").text.split("## Recent")[0]
    )
