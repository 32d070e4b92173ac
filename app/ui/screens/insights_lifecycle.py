"""Insights screen parts for closing loops: Done / Dismiss / Snooze / Reopen buttons for the open
insight, and the first-run "Who are you in these chats?" box that feeds the open-loops brief."""

from __future__ import annotations

from collections.abc import Callable

from PySide6.QtWidgets import QHBoxLayout, QLabel, QLineEdit, QPushButton, QVBoxLayout, QWidget

SNOOZE_DAYS = 1
# (state shown to the service, button text, tooltip)
ACTIONS = (
    ("done", "Done", "It happened: leaves the list and the open loops"),
    ("dismissed", "Dismiss", "Not worth acting on: leaves the list"),
    ("snoozed", f"Snooze {SNOOZE_DAYS} day", "Hide it until tomorrow; it comes back by itself"),
    ("open", "Reopen", "Put it back on the list"),
)
LIFECYCLE_FILTERS = (
    ("Open", "open"),
    ("Done", "done"),
    ("Dismissed", "dismissed"),
    ("Snoozed", "snoozed"),
    ("All states", "all"),
)


class LifecycleBar(QWidget):
    """One button per lifecycle state; `on_choose(state)` acts on the insight shown in the detail."""

    def __init__(self, on_choose: Callable[[str], None]) -> None:
        super().__init__()
        row = QHBoxLayout(self)
        row.setContentsMargins(0, 0, 0, 0)
        self.buttons: dict[str, QPushButton] = {}
        for state, text, tip in ACTIONS:
            button = QPushButton(text)
            button.setToolTip(tip)
            button.clicked.connect(lambda _=False, s=state: on_choose(s))
            row.addWidget(button)
            self.buttons[state] = button
        row.addStretch(1)
        self.show_state(None)

    def show_state(self, lifecycle: str | None) -> None:
        """Nothing selected: all off; otherwise Reopen only for closed items, the rest only for open."""
        for state, button in self.buttons.items():
            if lifecycle is None:
                button.setEnabled(False)
            else:
                button.setEnabled((state == "open") == (lifecycle != "open"))


class WhoAreYou(QWidget):
    """The first-run question: the names the user goes by, comma separated; `on_save(names)`."""

    def __init__(self, on_save: Callable[[list[str]], None]) -> None:
        super().__init__()
        layout = QVBoxLayout(self)
        layout.setContentsMargins(0, 0, 0, 0)
        self.question = QLabel(
            "Who are you in these chats? Give the names and handles you use (comma separated), so "
            "Strata can tell your commitments and the questions waiting on you."
        )
        self.question.setWordWrap(True)
        row = QHBoxLayout()
        self.names = QLineEdit()
        self.names.setPlaceholderText("alex, Alex Kim, alex@example.com")
        self.save = QPushButton("Save")
        self.save.clicked.connect(lambda: on_save(self.entered()))
        self.names.returnPressed.connect(lambda: on_save(self.entered()))
        row.addWidget(self.names, 1)
        row.addWidget(self.save)
        layout.addWidget(self.question)
        layout.addLayout(row)
        self.problem = QLabel()
        self.problem.setWordWrap(True)
        self.problem.setStyleSheet("color:#c92a2a;")
        self.problem.hide()
        layout.addWidget(self.problem)

    def show_problem(self, text: str) -> None:
        """Say what is wrong next to the box; what was typed stays for the user to fix."""
        self.problem.setText(text)
        self.problem.show()

    def show_error(self, exc: BaseException) -> None:
        hint = getattr(exc, "hint", None)
        self.show_problem(str(getattr(exc, "message", exc)) + (f" ({hint})" if hint else ""))

    def entered(self) -> list[str]:
        return [n.strip() for n in self.names.text().split(",") if n.strip()]
