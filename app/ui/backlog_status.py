"""The status-bar line saying how many stored messages still wait for their vectors, and how far
the background keyword reindex has come."""

from __future__ import annotations

import math
from typing import Any

from PySide6.QtWidgets import QLabel, QWidget


def backlog_text(status: dict[str, Any] | None) -> str:
    """ "Embedding N messages · about M min left" while rows wait, then the keyword reindex's
    progress while it runs; "" when neither has work.

    `status` is `services.memory.embedding_backlog()`, with the keyword reindex's status under
    `keyword_reindex` (notices._backlog). Before a drain has a rate there is no estimate, and a
    failed drain says why (the rows stay keyword-searchable meanwhile)."""
    lines = [embedding_text(status), reindex_text((status or {}).get("keyword_reindex"))]
    return "  ·  ".join(line for line in lines if line)


def reindex_text(status: dict[str, Any] | None) -> str:
    """ "Updating keyword index: N of M messages" while the background keyword reindex has work
    (`ReindexStatus.to_dict()`); "" when it has none."""
    if not status or not status.get("pending"):
        return ""
    done, total = int(status.get("done") or 0), int(status.get("total") or 0)
    return f"Updating keyword index: {done:,} of {total:,} messages"


def embedding_text(status: dict[str, Any] | None) -> str:
    """The embedding backlog's part of the line."""
    pending = int((status or {}).get("pending") or 0)
    if pending <= 0:
        return ""
    line = f"Embedding {pending:,} message{'s' if pending != 1 else ''}"
    error = status.get("error") if status else None
    if error:
        return f"{line} · paused: {error}"
    eta = status.get("eta_seconds") if status else None
    if eta:
        return f"{line} · about {max(1, math.ceil(float(eta) / 60))} min left"
    return line


class BacklogLabel(QLabel):
    """Shown only while the backlog is not empty; fed by the change watcher's off-thread poll."""

    def __init__(self, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.setObjectName("backlog")
        self.setToolTip(
            "New messages are searchable by keyword now; meaning search covers them once embedded. "
            "Older messages keep their keyword entries while the keyword index is updated."
        )
        self.hide()

    def update_status(self, status: dict[str, Any] | None) -> None:
        text = backlog_text(status)
        self.setText(text)
        self.setVisible(bool(text))
