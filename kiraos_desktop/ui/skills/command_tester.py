"""Slash-command tester: type `/tarot 今天运势` and see which skill matches and the rewrite."""
from __future__ import annotations

from typing import Callable

from PySide6.QtCore import Qt
from PySide6.QtWidgets import QFormLayout, QLabel, QLineEdit, QVBoxLayout, QWidget

from kiraos_desktop.core.skills import CommandMatch

from .theme import colors_for


class CommandTester(QWidget):
    """`matcher(text)` decides (the page matches the edited skill's unsaved command first);
    `slash_enabled()` says whether hosts route commands at all (the enable_slash_commands setting)."""

    def __init__(self, matcher: Callable[[str], CommandMatch | None], slash_enabled: Callable[[], bool],
                 parent: QWidget | None = None):
        super().__init__(parent)
        self._matcher = matcher
        self._slash_enabled = slash_enabled
        self._colors = colors_for(self.palette())
        self.input = QLineEdit(self)
        self.input.setPlaceholderText(self.tr("Type a message such as /tarot 今天运势"))
        self.input.setClearButtonEnabled(True)
        self.verdict = QLabel(self)
        self.verdict.setWordWrap(True)
        self.skill_label = QLabel(self)
        self.args_label = QLabel(self)
        self.rewrite_label = QLabel(self)
        self.note = QLabel(self)
        self.note.setWordWrap(True)
        for label in (self.skill_label, self.args_label, self.rewrite_label):
            label.setTextInteractionFlags(Qt.TextInteractionFlag.TextSelectableByMouse)
            label.setWordWrap(True)
        details = QFormLayout()
        details.addRow(self.tr("Skill:"), self.skill_label)
        details.addRow(self.tr("Arguments text:"), self.args_label)
        details.addRow(self.tr("Rewritten message:"), self.rewrite_label)
        layout = QVBoxLayout(self)
        layout.setContentsMargins(0, 0, 0, 0)
        layout.addWidget(self.input)
        layout.addWidget(self.verdict)
        layout.addLayout(details)
        layout.addWidget(self.note)
        layout.addStretch(1)
        self.input.textChanged.connect(self._on_input_text_changed)
        self.refresh()

    def set_colors(self, colors) -> None:
        self._colors = colors
        self.refresh()

    def set_text(self, text: str) -> None:
        self.input.setText(text)

    def refresh(self) -> None:
        """Re-match (the edited skill or the settings may have changed)."""
        text = self.input.text()
        found = self._matcher(text) if text.strip() else None
        if not text.strip():
            self._show(self.tr("Type a slash command to see how a host routes it."), None, False)
        elif found is None:
            self._show(self.tr("No enabled skill has this command; the message reaches the LLM unchanged."),
                       None, True)
        else:
            self._show(self.tr("Matches skill {0} (command {1}).").format(found.skill, found.command),
                       found, False)
        if self._slash_enabled():
            self.note.clear()
        else:
            self.note.setText(self.tr("Note: slash commands are turned off in the settings "
                                      "(enable_slash_commands), so hosts do not route them yet."))
        self.note.setStyleSheet(f"color: {self._colors.warning_fg.name()};")

    def _show(self, verdict: str, found: CommandMatch | None, warn: bool) -> None:
        self.verdict.setText(verdict)
        color = self._colors.warning_fg if warn else self._colors.ok_fg if found else None
        self.verdict.setStyleSheet(f"color: {color.name()};" if color is not None else "")
        self.skill_label.setText(found.skill if found else "—")
        self.args_label.setText(found.args_text if found else "—")
        self.rewrite_label.setText(found.rewritten if found else "—")

    @property
    def result(self) -> tuple[str, str, str]:
        return self.skill_label.text(), self.args_label.text(), self.rewrite_label.text()

    def _on_input_text_changed(self, _text: str) -> None:
        self.refresh()
