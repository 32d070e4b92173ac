"""The Memory screen's words: totals that add up, engine status, the run preview, undo results."""

from __future__ import annotations

import html
from typing import Any

from app.ui.formatting import shorten
from app.ui.when import exact, parse_iso, relative

TIERS = ("short", "mid", "long")
TIER_NAMES = {"short": "short term", "mid": "mid term", "long": "long term"}
STATUS_WORDS = {
    "completed": "finished",
    "completed_with_errors": "finished with errors",
    "skipped_locked": "skipped (another run was working)",
    "lock_lost": "stopped (lost its lock)",
    "failed": "failed",
    "interrupted": "interrupted",
    "running": "running",
    "dry_run": "previewed",
    "disabled": "off",
    "awaiting_confirmation": "waiting for you",
    "dismissed": "postponed",
    "snoozed": "postponed",
}
PLAN_GROUPS_SHOWN = 30
SUMMARY_CHARS = 200


def totals_html(totals: Any, *, pinned: int, summaries: int) -> str:
    """ "1,200 messages: 694 in full (short 600 · mid 90 · long 4) + 506 archived into 31 summaries"."""
    kept = sum(totals.kept.values())
    archived = sum(totals.archived.values())
    tiers = " · ".join(f"{TIER_NAMES[t]} {totals.kept.get(t, 0):,}" for t in TIERS)
    return (
        f"<b>{totals.total:,}</b> messages stored: <b>{kept:,}</b> kept in full ({tiers}) + "
        f"<b>{archived:,}</b> archived into <b>{summaries:,}</b> summaries · "
        f"<b>{pinned:,}</b> pinned (never archived)"
    )


def status_text(status: dict[str, Any], now_ms: int) -> tuple[str, str]:
    """The engine's state in words with relative times; the tooltip has the exact times."""
    last = status.get("lastRun") or {}
    last_at, next_at = parse_iso(last.get("startedAt")), parse_iso(status.get("nextRun"))
    if not status.get("enabled"):
        schedule = "scheduled runs are off (Settings)"
    else:
        schedule = f"runs every {_every(status.get('intervalMinutes'))}"
        schedule += f", next {relative(next_at, now_ms)}" if next_at else ", none scheduled in this app"
    if last_at is None:
        previous = "never run yet"
    else:
        words = STATUS_WORDS.get(last.get("status", ""), str(last.get("status", "")).replace("_", " "))
        previous = f"last run {relative(last_at, now_ms)} ({words})"
    parts = [schedule, previous]
    lock = status.get("lock")
    if lock and lock.get("active"):
        parts.append("a run is in progress")
    tip = f"Last run: {exact(last_at) or 'never'}\nNext run: {exact(next_at) or 'not scheduled'}"
    return " · ".join(parts).capitalize(), tip


def _every(minutes: Any) -> str:
    m = int(minutes or 0)
    if m and m % (24 * 60) == 0:
        days = m // (24 * 60)
        return "day" if days == 1 else f"{days} days"
    if m and m % 60 == 0:
        return "hour" if m == 60 else f"{m // 60} hours"
    return f"{m} min"


def undo_text(report: Any) -> tuple[str, str]:
    """(banner text, banner kind) for an UndoReport: what came back, in words."""
    if report.status == "undone":
        return (
            f"Run undone: {report.unarchived} messages back in full, {report.restored} moved back to "
            f"their tier, {report.summaries_removed} summaries removed.",
            "ok",
        )
    if report.status == "already_undone":
        return "That run was already undone; nothing changed.", "info"
    return f"Could not undo yet: {report.message or 'another run is working'}. Try again in a moment.", "info"


def plan_html(plan: Any) -> str:
    if plan.is_empty:
        return "<p>Nothing to forget right now: no group of old messages is large enough.</p>"
    heads = ("Tier", "Checked", "Kept longer", "Archived", "Summaries")
    head = "<tr>" + "".join(f"<th align=left nowrap>{h}</th>" for h in heads) + "</tr>"
    rows = "".join(
        f"<tr><td nowrap>{TIER_NAMES.get(t.tier.value, t.tier.value)}</td><td>{t.evaluated}</td>"
        f"<td>{t.promoted}</td><td>{t.archived}</td><td>{t.summarized}</td></tr>"
        for t in plan.tiers
    )
    groups = []
    for g in plan.groups[:PLAN_GROUPS_SHOWN]:
        where = " · ".join(f"{v}" for v in g.dimensions.values() if v)
        groups.append(
            f"<li><b>{html.escape(where)}</b> — {len(g.decisions)} messages from "
            f"{exact(g.start_timestamp)}: {html.escape(shorten(g.draft.summary_text, SUMMARY_CHARS))}</li>"
        )
    more = len(plan.groups) - PLAN_GROUPS_SHOWN
    tail = f"<p>…and {more} more groups</p>" if more > 0 else ""
    return f"<h4>Next run would</h4><table cellspacing=6>{head}{rows}</table><ul>{''.join(groups)}</ul>{tail}"
