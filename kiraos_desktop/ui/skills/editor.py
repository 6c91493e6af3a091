"""Centre of the Skills page: the open skill's manifest editor and instruction editor."""
from __future__ import annotations

from pathlib import Path

from PySide6.QtCore import Qt, Signal
from PySide6.QtWidgets import (
    QHBoxLayout,
    QLabel,
    QPushButton,
    QSizePolicy,
    QSplitter,
    QVBoxLayout,
    QWidget,
)

from kiraos_desktop.core.skills import Problem
from kiraos_desktop.core.skills.agent_format import validate_agent_text
from kiraos_desktop.core.skills.manifest import declared_names
from kiraos_desktop.core.skills.problems import AGENT_SKILL_FILE
from kiraos_desktop.core.skills.render import template_kind

from .code_editor import CodeEditor
from .find_bar import FindBar
from .highlighters import InstructionHighlighter
from .manifest_editor import JSON_TAB, ManifestEditor
from .theme import colors_for


class SkillEditor(QWidget):
    """Holds the open skill's text and the version last loaded or saved (for dirty tracking).

    A KiraOS skill shows its manifest (form + JSON) and instruction.md; an Agent Skills skill
    shows its whole SKILL.md (front matter and body) in the instruction editor.

    `edited` on any text change; `manifestChanged` when the readable manifest changes;
    `saveRequested` / `revertRequested` from the buttons."""

    edited = Signal()
    manifestChanged = Signal()
    saveRequested = Signal()
    revertRequested = Signal()

    def __init__(self, parent: QWidget | None = None):
        super().__init__(parent)
        self._folder: Path | None = None
        self._saved = ("", "")
        self._loading = False
        self._agent = False
        self._agent_cache: tuple[str, dict] = ("", {})

        self.title = QLabel(self)
        font = self.title.font()
        font.setPointSizeF(font.pointSizeF() * 1.2)
        font.setBold(True)
        self.title.setFont(font)
        self.title.setSizePolicy(QSizePolicy.Policy.Ignored, QSizePolicy.Policy.Preferred)
        self.save_button = QPushButton(self.tr("Save"), self)
        self.revert_button = QPushButton(self.tr("Revert"), self)
        self.revert_button.setToolTip(self.tr("Drop the unsaved changes"))

        self.manifest_editor = ManifestEditor(self)
        self.instruction_edit = CodeEditor(self)
        self.instruction_edit.setObjectName("instructionEditor")
        self.instruction_edit.setLineWrapMode(CodeEditor.LineWrapMode.WidgetWidth)
        self.highlighter = InstructionHighlighter(self.instruction_edit.document(), colors_for(self.palette()))
        self.instruction_find = FindBar(self.instruction_edit, self)

        header = QHBoxLayout()
        header.addWidget(self.title, 1)
        header.addWidget(self.revert_button)
        header.addWidget(self.save_button)
        instruction_box = QWidget(self)
        box = QVBoxLayout(instruction_box)
        box.setContentsMargins(0, 0, 0, 0)
        self.instruction_label = QLabel(instruction_box)
        box.addWidget(self.instruction_label)
        box.addWidget(self.instruction_edit, 1)
        box.addWidget(self.instruction_find)
        self.splitter = QSplitter(Qt.Orientation.Vertical, self)
        self.splitter.setChildrenCollapsible(False)
        self.splitter.addWidget(self.manifest_editor)
        self.splitter.addWidget(instruction_box)
        self.splitter.setStretchFactor(0, 0)
        self.splitter.setStretchFactor(1, 1)
        self.splitter.setSizes([340, 360])
        self.splitter.setObjectName("skillEditorSplitter")
        layout = QVBoxLayout(self)
        layout.setContentsMargins(0, 0, 0, 0)
        layout.addLayout(header)
        layout.addWidget(self.splitter, 1)

        self._set_instruction_label()
        self.manifest_editor.textChanged.connect(self._on_text_changed)
        self.manifest_editor.manifestChanged.connect(self._on_manifest_editor_manifest_changed)
        self.instruction_edit.textChanged.connect(self._on_text_changed)
        self.save_button.clicked.connect(self.saveRequested)
        self.revert_button.clicked.connect(self.revertRequested)
        self.set_folder_title()

    # ------------------------------------------------------------------ content

    @property
    def folder(self) -> Path | None:
        return self._folder

    @property
    def is_agent(self) -> bool:
        """True when the open skill is an Agent Skills folder (its SKILL.md is edited)."""
        return self._agent

    def load(self, folder: Path | None, manifest_text: str, instruction_text: str, agent: bool = False) -> None:
        """Show a skill's files (None: no skill open) and remember them as the saved version.
        With `agent`, `instruction_text` is the whole SKILL.md and `manifest_text` is ""."""
        self._loading = True
        try:
            self._folder = Path(folder) if folder is not None else None
            self._agent = agent and folder is not None
            self.manifest_editor.setVisible(not self._agent)
            self._set_instruction_label()
            self._saved = (manifest_text, instruction_text)
            if folder is None:
                self.manifest_editor.clear()
            else:
                self.manifest_editor.set_text(manifest_text)
            self.instruction_edit.setPlainText(instruction_text)
        finally:
            self._loading = False
        self.setEnabled(folder is not None)
        self._sync_highlighter()
        self.set_folder_title()
        self.manifestChanged.emit()
        self.edited.emit()

    def mark_saved(self) -> None:
        self._saved = (self.manifest_text(), self.instruction_text())
        self.set_folder_title()

    def manifest_text(self) -> str:
        return self.manifest_editor.text()

    def instruction_text(self) -> str:
        return self.instruction_edit.toPlainText()

    def manifest(self) -> dict:
        if self._agent:
            return self._agent_manifest()
        return self.manifest_editor.manifest()

    def _agent_manifest(self) -> dict:
        text = self.instruction_text()
        if self._agent_cache[0] != text:
            manifest = validate_agent_text(text, self._folder.name if self._folder else None).manifest
            self._agent_cache = (text, manifest or {})
        return self._agent_cache[1]

    def _set_instruction_label(self) -> None:
        if self._agent:
            self.instruction_label.setText(self.tr("SKILL.md (Agent Skills: front matter and instructions):"))
            self.save_button.setToolTip(self.tr("Write SKILL.md and reload the skill (Ctrl+S)"))
        else:
            self.instruction_label.setText(self.tr("Instruction (instruction.md):"))
            self.save_button.setToolTip(self.tr("Write both files and reload the skill (Ctrl+S)"))

    def is_dirty(self) -> bool:
        return self._folder is not None and (self.manifest_text(), self.instruction_text()) != self._saved

    def set_folder_title(self) -> None:
        if self._folder is None:
            self.title.setText(self.tr("No skill open"))
        else:
            name = self.manifest().get("name") if isinstance(self.manifest().get("name"), str) else ""
            mark = " •" if self.is_dirty() else ""
            if name and name != self._folder.name:
                self.title.setText(self.tr("{0}{1}   (folder {2})").format(name, mark, self._folder.name))
            else:
                self.title.setText(f"{name or self._folder.name}{mark}")
            self.title.setToolTip(str(self._folder))
        self.save_button.setEnabled(self.is_dirty())
        self.revert_button.setEnabled(self.is_dirty())

    # ------------------------------------------------------------------ navigation

    def goto_problem(self, problem: Problem) -> None:
        """Jump to where a problem is: an instruction line, a form field or a JSON line."""
        if self._agent or problem.file == AGENT_SKILL_FILE:
            self.instruction_edit.goto_line(problem.line or 1)
        elif problem.field.startswith("instruction"):
            self.instruction_edit.goto_line(problem.line or 1)
        elif problem.field == "manifest":
            self.manifest_editor.show_json_line(problem.line)
        elif problem.field != "folder":
            self.manifest_editor.focus_field(problem.field, problem.line)

    def open_find(self) -> None:
        """Ctrl+F: find in the JSON view when it has the focus, else in the instruction."""
        if self.manifest_editor.tabs.currentIndex() == JSON_TAB and self.manifest_editor.json_edit.hasFocus():
            self.manifest_editor.open_find()
        else:
            self.instruction_find.open_bar()

    # ------------------------------------------------------------------ slots

    def _sync_highlighter(self) -> None:
        manifest = self.manifest()
        self.highlighter.set_declared(declared_names(manifest), template_kind(manifest))

    def _on_manifest_editor_manifest_changed(self) -> None:
        self._sync_highlighter()
        if not self._loading:
            self.manifestChanged.emit()

    def _on_text_changed(self) -> None:
        if self._loading:
            return
        if self._agent:
            before = self._agent_cache[1]
            if self._agent_manifest() != before:
                self._sync_highlighter()
                self.manifestChanged.emit()
        self.set_folder_title()
        self.edited.emit()
