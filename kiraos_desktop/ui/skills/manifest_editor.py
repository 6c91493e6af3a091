"""Manifest editor: the form and the raw JSON view of manifest.json, kept in sync both ways."""
from __future__ import annotations

import json

from PySide6.QtCore import Signal
from PySide6.QtWidgets import QLabel, QTabWidget, QVBoxLayout, QWidget

from .code_editor import CodeEditor
from .find_bar import FindBar
from kiraos_desktop.core.skills.manifest_fields import FormFields, FormUnavailable, apply_form, dump_manifest, form_from_manifest
from .manifest_form import ManifestForm
from .theme import colors_for

FORM_TAB, JSON_TAB = 0, 1


class ManifestEditor(QWidget):
    """The JSON text is the truth. A form edit rewrites the JSON; a JSON edit refreshes the form.
    While the JSON cannot be read the text stays as typed, the error line is marked and the form
    is disabled and marked stale (it keeps showing the last readable version)."""

    textChanged = Signal()  # the manifest text changed (from either view)
    manifestChanged = Signal()  # the readable manifest object changed

    def __init__(self, parent: QWidget | None = None):
        super().__init__(parent)
        self._data: dict = {}
        self._readable = True
        self._syncing = False
        self._error_line: int | None = None
        self._colors = colors_for(self.palette())

        self.form = ManifestForm(self)
        self.json_edit = CodeEditor(self)
        self.json_edit.setObjectName("manifestJson")
        self.json_find = FindBar(self.json_edit, self)
        self.json_status = QLabel(self)
        self.json_status.setWordWrap(True)
        json_page = QWidget(self)
        json_layout = QVBoxLayout(json_page)
        json_layout.setContentsMargins(0, 0, 0, 0)
        json_layout.addWidget(self.json_edit, 1)
        json_layout.addWidget(self.json_find)
        json_layout.addWidget(self.json_status)

        self.tabs = QTabWidget(self)
        self.tabs.setDocumentMode(True)
        self.tabs.addTab(self.form, self.tr("Form"))
        self.tabs.addTab(json_page, self.tr("JSON"))
        layout = QVBoxLayout(self)
        layout.setContentsMargins(0, 0, 0, 0)
        layout.addWidget(self.tabs)

        self.form.edited.connect(self._on_form_edited)
        self.json_edit.textChanged.connect(self._on_json_edit_text_changed)

    # ------------------------------------------------------------------ content

    def set_text(self, text: str) -> None:
        """Load manifest text (a skill was opened or reloaded); the undo history starts anew."""
        self._data = {}
        self.form.set_fields(FormFields())
        self._syncing = True
        try:
            self.json_edit.setPlainText(text)
        finally:
            self._syncing = False
        self._parse(force=True)
        if not self._readable:
            self.manifestChanged.emit()

    def clear(self) -> None:
        """No skill open: empty views and no verdict on the JSON (an empty manifest.json of a skill
        is an error; an empty editor with nothing open is not)."""
        self._data = {}
        self.form.set_fields(FormFields())
        self.form.set_stale(None)
        self._syncing = True
        try:
            self.json_edit.setPlainText("")
        finally:
            self._syncing = False
        self._readable = True
        self._error_line = None
        self.json_edit.mark_line(None)
        self.json_status.clear()
        self._style_status()
        self.manifestChanged.emit()

    def text(self) -> str:
        return self.json_edit.toPlainText()

    def manifest(self) -> dict:
        """The last readable manifest object (the current one when `readable`)."""
        return self._data

    @property
    def readable(self) -> bool:
        return self._readable

    @property
    def error_line(self) -> int | None:
        return self._error_line

    def set_colors(self, colors) -> None:
        self._colors = colors
        self.form.set_colors(colors)
        self.json_edit.set_colors(colors)
        self._style_status()

    def _style_status(self) -> None:
        color = self._colors.ok_fg if self._readable else self._colors.error_fg
        self.json_status.setStyleSheet(f"color: {color.name()};")

    # ------------------------------------------------------------------ navigation

    def show_json_line(self, line: int | None) -> None:
        self.tabs.setCurrentIndex(JSON_TAB)
        self.json_edit.goto_line(line or 1)

    def focus_field(self, field: str, line: int | None = None) -> None:
        """Jump to a problem: the form widget of `field` when the form is usable, else the JSON line."""
        if self._readable and not self.form.is_stale and self.form.focus_field(field):
            self.tabs.setCurrentIndex(FORM_TAB)
            self.form.focus_field(field)
            return
        self.show_json_line(line)

    def open_find(self) -> None:
        self.tabs.setCurrentIndex(JSON_TAB)
        self.json_find.open_bar()

    # ------------------------------------------------------------------ sync

    def _on_form_edited(self) -> None:
        if not self._readable:
            return
        data = apply_form(self._data, self.form.fields())
        self._syncing = True
        try:
            self.json_edit.replace_all_text(dump_manifest(data))
        finally:
            self._syncing = False
        changed = data != self._data
        self._data = data
        self.textChanged.emit()
        if changed:
            self.manifestChanged.emit()

    def _on_json_edit_text_changed(self) -> None:
        if self._syncing:
            return
        self._parse()
        self.textChanged.emit()

    def _parse(self, force: bool = False) -> None:
        text = self.text()
        try:
            data = json.loads(text[1:] if text.startswith("\ufeff") else text)
        except json.JSONDecodeError as exc:
            self._set_unreadable(exc.lineno, self.tr("Line {0}, column {1}: {2}").format(
                exc.lineno, exc.colno, exc.msg))
            return
        except RecursionError:
            self._set_unreadable(1, self.tr("The JSON is nested too deeply."))
            return
        if not isinstance(data, dict):
            self._set_unreadable(1, self.tr("The manifest must be a JSON object ({...})."))
            return
        self._readable = True
        self._error_line = None
        self.json_edit.mark_line(None)
        self.json_status.setText(self.tr("Valid JSON."))
        self._style_status()
        try:
            fields = form_from_manifest(data)
        except FormUnavailable as exc:
            self.form.set_stale(self.tr("The form cannot show this manifest ({0}); "
                                        "edit it in the JSON view.").format(exc))
        else:
            self.form.set_fields(fields)
            self.form.set_stale(None)
        if force or data != self._data:
            self._data = data
            self.manifestChanged.emit()

    def _set_unreadable(self, line: int, message: str) -> None:
        self._readable = False
        self._error_line = line
        self.json_edit.mark_line(line)
        self.json_status.setText(message)
        self._style_status()
        self.form.set_stale(self.tr("The JSON is not valid (line {0}). The form shows the last valid "
                                    "version and is disabled until the JSON is fixed; nothing you "
                                    "typed is lost.").format(line))
