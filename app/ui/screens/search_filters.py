"""Search filter dialogs: pick a known person/conversation/platform, or type a date range.

Both check what was entered before it becomes a chip and say inline what is wrong, so a bad
value can never become a filter that breaks every later search.
"""

from __future__ import annotations

from collections.abc import Callable

from PySide6.QtCore import QDate, Qt
from PySide6.QtWidgets import (
    QComboBox,
    QCompleter,
    QDateEdit,
    QDialog,
    QDialogButtonBox,
    QFormLayout,
    QHBoxLayout,
    QLabel,
    QLineEdit,
    QVBoxLayout,
    QWidget,
)

from app.services.search_facets import Facets
from app.ui.formatting import platform_name, source_label
from app.ui.icons import avatar, platform_icon
from app.ui.search_state import DATE_HELP

ERROR_STYLE = "color:#b42318;"
Choice = tuple[str, str, int]  # (filter value, what the person sees, message count)


def person_choices(facets: Facets) -> list[Choice]:
    return [(name, name, n) for name, n in facets.people]


def channel_choices(facets: Facets) -> list[Choice]:
    # The filter matches a channel name on any platform; the label says where it lives.
    return [(channel, source_label(platform, channel), n) for platform, channel, n in facets.channels]


def platform_choices(facets: Facets) -> list[Choice]:
    return [(platform, platform_name(platform), n) for platform, n in facets.platforms]


class PickerDialog(QDialog):
    """An editable list of known values, completing as you type; only a known value is accepted."""

    def __init__(
        self, title: str, label: str, choices: list[Choice], kind: str, parent: QWidget | None = None
    ):
        super().__init__(parent)
        self.setWindowTitle(title)
        self.setMinimumWidth(380)
        self.known = {display.lower(): value for value, display, _ in choices}
        self.known.update({value.lower(): value for value, _, _ in choices})
        layout = QVBoxLayout(self)
        layout.addWidget(QLabel(label))
        self.combo = QComboBox()
        self.combo.setEditable(True)
        self.combo.setInsertPolicy(QComboBox.InsertPolicy.NoInsert)
        for value, display, count in choices:
            if kind == "person":
                self.combo.addItem(avatar(value, 20), display, value)
            else:
                self.combo.addItem(platform_icon(value if kind == "platform" else None), display, value)
            self.combo.setItemData(self.combo.count() - 1, f"{count} messages", Qt.ItemDataRole.ToolTipRole)
        completer = QCompleter(self.combo.model(), self.combo)
        completer.setCaseSensitivity(Qt.CaseSensitivity.CaseInsensitive)
        completer.setFilterMode(Qt.MatchFlag.MatchContains)
        self.combo.setCompleter(completer)
        self.combo.setCurrentIndex(-1)
        self.combo.lineEdit().setPlaceholderText("Start typing a name")
        layout.addWidget(self.combo)
        self.error = QLabel()
        self.error.setStyleSheet(ERROR_STYLE)
        self.error.setWordWrap(True)
        self.error.hide()
        layout.addWidget(self.error)
        if not choices:
            self.error.setText("Nothing stored yet to pick from: import or connect a source first.")
            self.error.show()
        buttons = QDialogButtonBox(
            QDialogButtonBox.StandardButton.Ok | QDialogButtonBox.StandardButton.Cancel
        )
        buttons.accepted.connect(self.accept)
        buttons.rejected.connect(self.reject)
        layout.addWidget(buttons)

    def value(self) -> str | None:
        """The filter value for what is typed or picked; None when it is not a known one."""
        text = self.combo.currentText().strip()
        index = self.combo.findText(text, Qt.MatchFlag.MatchFixedString)
        if index >= 0:
            return str(self.combo.itemData(index))
        return self.known.get(text.lower())

    def accept(self) -> None:
        if self.value() is None:
            typed = self.combo.currentText().strip()
            self.error.setText(
                f"No messages from \u201c{typed}\u201d. Pick one from the list."
                if typed
                else "Pick one from the list."
            )
            self.error.show()
            return
        super().accept()


class DateRangeDialog(QDialog):
    """From/To dates, or a typed period ("last month"); checked by `validate` before accepting."""

    def __init__(self, validate: Callable[[str], object], today: QDate, parent: QWidget | None = None):
        super().__init__(parent)
        self.setWindowTitle("Custom date range")
        self.setMinimumWidth(420)
        self.validate = validate
        layout = QVBoxLayout(self)
        form = QFormLayout()
        dates = QHBoxLayout()
        self.since = QDateEdit(today.addDays(-30))
        self.until = QDateEdit(today)
        for edit in (self.since, self.until):
            edit.setCalendarPopup(True)
            edit.setDisplayFormat("yyyy-MM-dd")
            edit.dateChanged.connect(self._dates_changed)
            dates.addWidget(edit)
        dates.insertWidget(1, QLabel("to"))
        form.addRow("Dates", dates)
        self.text = QLineEdit()
        self.text.setPlaceholderText("e.g. last month, in March, 2026-11-01..2026-11-15")
        self.text.textEdited.connect(lambda _t: self.error.hide())
        form.addRow("Or a period", self.text)
        layout.addLayout(form)
        self.error = QLabel()
        self.error.setStyleSheet(ERROR_STYLE)
        self.error.setWordWrap(True)
        self.error.hide()
        layout.addWidget(self.error)
        buttons = QDialogButtonBox(
            QDialogButtonBox.StandardButton.Ok | QDialogButtonBox.StandardButton.Cancel
        )
        buttons.accepted.connect(self.accept)
        buttons.rejected.connect(self.reject)
        layout.addWidget(buttons)
        self._dates_changed()

    def _dates_changed(self) -> None:
        self.text.setText(
            f"{self.since.date().toString('yyyy-MM-dd')}..{self.until.date().toString('yyyy-MM-dd')}"
        )
        self.error.hide()

    def value(self) -> str:
        return " ".join(self.text.text().split())

    def accept(self) -> None:
        if not self.value():
            self.error.setText(f"Type {DATE_HELP}.")
            self.error.show()
            return
        try:
            self.validate(self.value())
        except ValueError as exc:
            self.error.setText(str(exc))
            self.error.show()
            return
        super().accept()
