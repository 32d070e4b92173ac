"""Connectors screen: live Slack/Discord/Telegram accounts (add, test, sync, status) + export import."""

from __future__ import annotations

from typing import Any

from PySide6.QtWidgets import QGroupBox, QHBoxLayout, QMessageBox, QProgressBar, QPushButton, QVBoxLayout

from app.ui.context import UiContext
from app.ui.events import CONNECTORS, MESSAGES
from app.ui.models.rows import Column, RowsModel
from app.ui.ops import MutateOp
from app.ui.screens.base import Screen, unavailable
from app.ui.screens.connectors_add import AddConnectorDialog
from app.ui.screens.connectors_import import ImportWizard
from app.ui.when import exact, relative
from app.ui.widgets import make_table, muted
from connectors.retry import RetryPolicy

STATUS_COLOURS = {"ok": "#2f9e44", "error": "#c92a2a", "running": "#1971c2", "never": "#868e96"}
STATUS_WORDS = {"ok": "working", "error": "failing", "running": "syncing…", "never": "not synced yet"}
# The form's token check: two quick tries, then say "cannot reach" (a sync keeps the patient policy).
FORM_CHECK_RETRY = RetryPolicy(max_attempts=2, base_delay=0.5, max_delay=1.0)


ERROR_WORDS = {
    "connector_auth_failed": "token refused: remove the connector and add it with a new token",
    "connector_unavailable": "could not reach the platform: check the connection; it retries on schedule",
    "connector_rate_limited": "the platform asked to slow down: the next sync continues",
    "connector_not_found": "a channel or chat is gone or the bot is not in it",
}


def error_words(state: Any) -> str:
    """The last sync problem in words (the raw error is the tooltip)."""
    if not state.last_error:
        return ""
    return ERROR_WORDS.get(state.last_error_code or "", state.last_error)


class ConnectorsModel(RowsModel[Any]):
    """Rows are ConnectorState values (no tokens: those stay in the secret store)."""

    def __init__(self, now: Any, parent: object = None) -> None:
        super().__init__(
            [
                Column("Name", lambda s: s.id),
                Column("Platform", lambda s: s.kind.capitalize()),
                Column(
                    "Status",
                    lambda s: STATUS_WORDS.get(s.status, s.status),
                    colour=lambda s: STATUS_COLOURS.get(s.status),
                ),
                Column(
                    "Last sync",
                    lambda s: relative(s.last_sync_at, now()),
                    tooltip=lambda s: exact(s.last_sync_at),
                ),
                Column("Messages", lambda s: str(s.messages_total), align_right=True),
                Column("Every", lambda s: f"{s.interval_minutes} min"),
                Column("Last problem", error_words, tooltip=lambda s: s.last_error or ""),
            ],
            parent,
        )


class ConnectorsScreen(Screen):
    title = "Connectors"
    watches = frozenset({CONNECTORS})

    def __init__(self, ctx: UiContext) -> None:
        super().__init__(ctx)
        self.connectors = ctx.service("connectors")
        self.imports = ctx.service("imports")
        if self.connectors is None and self.imports is None:
            unavailable(self, "Connectors and importers")
            return
        live = QGroupBox("Live connectors")
        live_layout = QVBoxLayout(live)
        self.model = ConnectorsModel(ctx.clock.now_ms)
        self.table = make_table(self.model)
        live_layout.addWidget(self.table, 1)
        self.empty = muted(
            "No live connectors yet. Add… connects a Slack workspace, a Discord bot or a Telegram bot "
            "with a token; new messages then arrive on a schedule."
        )
        self.empty.hide()
        live_layout.addWidget(self.empty)
        self.progress = QProgressBar()
        self.progress.setRange(0, 0)  # syncs report when done; show activity meanwhile
        self.progress.hide()
        live_layout.addWidget(self.progress)
        row = QHBoxLayout()
        self.add_button = QPushButton("Add…")
        self.test_button = QPushButton("Test connection")
        self.sync_button = QPushButton("Sync now")
        self.remove_button = QPushButton("Remove")
        for b in (self.add_button, self.test_button, self.sync_button, self.remove_button):
            row.addWidget(b)
        row.addStretch(1)
        live_layout.addLayout(row)
        live_layout.addWidget(
            muted("Tokens are kept in the system keyring (or a private file when none exists).")
        )
        self.outer.addWidget(live, 2)
        if self.connectors is None:
            live.setEnabled(False)
        self.table.selectionModel().selectionChanged.connect(lambda *_: self._update_buttons())
        self._syncing = False
        self._update_buttons()
        self.add_button.clicked.connect(self.add_dialog)
        self.test_button.clicked.connect(self.test_selected)
        self.sync_button.clicked.connect(self.sync_selected)
        self.remove_button.clicked.connect(self.remove_selected)

        imports = QGroupBox("Import an export file")
        imports_layout = QHBoxLayout(imports)
        imports_layout.addWidget(
            muted(
                "Slack or Discord export, Telegram JSON, WhatsApp chat, mbox e-mail or Strata JSONL: "
                "preview first (nothing stored), then import."
            )
        )
        self.import_button = QPushButton("Import…")
        self.import_button.clicked.connect(self.open_import_wizard)
        self.import_button.setEnabled(self.imports is not None)
        imports_layout.setStretch(0, 1)
        imports_layout.addWidget(self.import_button)
        self.outer.addWidget(imports)

    # --- list ----------------------------------------------------------------------------------
    def reload(self) -> None:
        if self.connectors is None:
            return
        self.query(self.connectors.list_all, self._show_list)

    def _show_list(self, states: list[Any]) -> None:
        # Keep the user's selection across reloads (a sync or test reloads the list).
        current = self.model.row_at(self.table.currentIndex().row())
        self.model.set_rows(states)
        self.empty.setVisible(not states)
        for row, state in enumerate(states):
            if current is not None and state.id == current.id:
                self.table.selectRow(row)
        self._update_buttons()

    def _update_buttons(self) -> None:
        """Test, Sync and Remove act on the selected connector: off while none is selected."""
        chosen = self.table.selectionModel().hasSelection()
        self.test_button.setEnabled(chosen)
        self.sync_button.setEnabled(chosen and not self._syncing)
        self.remove_button.setEnabled(chosen)
        tip = "" if chosen else "Select a connector in the list first"
        for b in (self.test_button, self.sync_button, self.remove_button):
            b.setToolTip(tip)

    def selected(self) -> Any | None:
        state = self.model.row_at(self.table.currentIndex().row())
        if state is None:
            self.banner.show_message("Select a connector first.", "info")
        return state

    # --- actions -------------------------------------------------------------------------------
    def add_dialog(self) -> None:
        svc = self.connectors
        self.query(svc.kinds, self._show_add_dialog)

    def _show_add_dialog(self, kinds: list[dict[str, Any]]) -> AddConnectorDialog:
        """The dialog checks the token itself and stays open (token kept) until it works."""
        dialog = AddConnectorDialog(kinds, self, check=self.check_and_add)
        dialog.accepted.connect(lambda: self._added(dialog.result))
        dialog.open()
        self.add_dialog_open = dialog
        return dialog

    def check_and_add(self, values: dict[str, Any], success: Any, failure: Any) -> None:
        """Test the token and save (off the GUI thread) for the Add dialog; it shows the outcome."""
        svc = self.connectors
        MutateOp(
            parent=self,
            op=lambda: svc.add(**values, test_retry=FORM_CHECK_RETRY),
            changes=[CONNECTORS],
            events=self.ctx.events,
            success=success,
        ).failure(failure).run_in_background()

    def _added(self, result: Any) -> None:
        if result is None:
            return
        state, identity = result
        who = f" as {identity.account}" if identity is not None else ""
        self.banner.show_message(f"Connected {state.id}{who}. Press Sync now to fetch messages.", "ok")

    def add(self, **values: Any) -> None:
        """Test the token and save the connector (token → secret store); nothing saved on failure."""
        svc = self.connectors
        if not values.get("token"):
            self.banner.show_message("A token is needed to add a connector.", "error")
            return

        def done(result: tuple[Any, Any]) -> None:
            state, identity = result
            who = f" as {identity.account}" if identity is not None else ""
            self.banner.show_message(f"Connected {state.id}{who}. Press Sync now to fetch messages.", "ok")

        self.banner.show_message("Checking the token with the platform…")
        self.mutate(lambda: svc.add(**values), [CONNECTORS], done)

    def test_selected(self) -> None:
        state = self.selected()
        if state is None:
            return
        svc = self.connectors

        def done(identity: Any) -> None:
            where = f" in {identity.workspace}" if identity.workspace else ""
            self.banner.show_message(
                f"{state.id}: token works, signed in as {identity.account}{where}.", "ok"
            )

        self.query(lambda: svc.test(state.id), done)

    def sync_selected(self) -> None:
        state = self.selected()
        if state is None:
            return
        svc = self.connectors
        notices = getattr(self.ctx, "notices", None)
        if notices is not None:
            notices.expect(CONNECTORS)  # the result is shown here: no notice for this sync
        self.progress.show()
        self._syncing = True
        self._update_buttons()

        def finish() -> None:
            self.progress.hide()
            self._syncing = False
            self._update_buttons()
            if notices is not None:
                notices.acknowledge(CONNECTORS)

        def done(report: Any) -> None:
            finish()
            counts = f"{report.imported} new, {report.updated} updated, {report.deleted} deleted"
            if report.error:
                self.banner.show_message(
                    f"{state.id} stopped early: {report.error} ({counts} before that)", "error"
                )
            else:
                self.banner.show_message(f"{state.id} synced: {counts}.", "ok")

        def failed(exc: BaseException) -> None:
            finish()
            self.banner.show_error(exc)

        self.mutate(lambda: svc.sync(state.id), [CONNECTORS, MESSAGES], done, failure=failed)

    def remove_selected(self) -> None:
        state = self.selected()
        if state is None or not self.confirm(state.id):
            return
        svc = self.connectors
        self.mutate(
            lambda: svc.remove(state.id),
            [CONNECTORS],
            lambda _: self.banner.show_message(f"Removed {state.id}; its messages stay in memory.", "ok"),
        )

    def confirm(self, name: str) -> bool:
        text = f"Remove connector {name} and its token? Messages already imported stay."
        return QMessageBox.question(self, "Remove connector", text) == QMessageBox.StandardButton.Yes

    def open_import_wizard(self) -> ImportWizard:
        wizard = ImportWizard(self)
        wizard.show()
        return wizard
