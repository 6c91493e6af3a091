"""Sample-arguments form generated from a skill's parameter schema (string, number, integer,
boolean, enum; other types as JSON)."""
from __future__ import annotations

import json
from typing import Any

from PySide6.QtCore import QEvent, QRegularExpression, Signal
from PySide6.QtGui import QRegularExpressionValidator
from PySide6.QtWidgets import QComboBox, QFormLayout, QLabel, QLineEdit, QWidget

from kiraos_desktop.core.skills.arguments import value_as

_INTEGER = QRegularExpression(r"^-?\d*$")
_NUMBER = QRegularExpression(r"^-?\d*(\.\d*)?([eE][-+]?\d*)?$")


def _kind(prop: dict) -> str:
    kind = prop.get("type")
    if isinstance(kind, list):
        simple = [k for k in kind if k != "null"]
        kind = simple[0] if len(simple) == 1 else None
    return kind if isinstance(kind, str) else ""


def _convert(kind: str, text: str) -> Any:
    """The typed value of a field's text; the text itself when it does not convert (so that the
    schema check reports it exactly as a host call would)."""
    if not kind:
        return text
    try:
        return value_as(kind, text)
    except ValueError:
        return text


class SampleArgumentsForm(QWidget):
    """One field per declared parameter. An empty field (or "not set") means the argument is not
    provided, so optional parameters render empty and missing required ones are reported."""

    argumentsChanged = Signal()
    schemaChanged = Signal()

    def __init__(self, parent: QWidget | None = None):
        super().__init__(parent)
        self._schema: dict | None = None
        self._editors: dict[str, tuple[str, QWidget]] = {}
        self._layout = QFormLayout(self)
        self._layout.setContentsMargins(0, 0, 0, 0)
        self._layout.setFieldGrowthPolicy(QFormLayout.FieldGrowthPolicy.AllNonFixedFieldsGrow)
        self._empty = QLabel(self.tr("This skill declares no parameters."), self)
        self._layout.addRow(self._empty)

    # ------------------------------------------------------------------ schema

    def set_schema(self, schema: dict) -> None:
        """Rebuild the fields when the schema changed, keeping the values of unchanged names."""
        if schema == self._schema:
            return
        kept = {name: self._raw(name) for name in self._editors}
        self._schema = json.loads(json.dumps(schema)) if isinstance(schema, dict) else {}
        while self._layout.rowCount():
            self._layout.removeRow(0)
        self._editors.clear()
        props = self._schema.get("properties") if isinstance(self._schema.get("properties"), dict) else {}
        required = self._schema.get("required") if isinstance(self._schema.get("required"), list) else []
        if not props:
            self._empty = QLabel(self.tr("This skill declares no parameters."), self)
            self._layout.addRow(self._empty)
        for name, prop in props.items():
            prop = prop if isinstance(prop, dict) else {}
            kind, editor = self._make_editor(prop)
            label = QLabel(f"{name}{' *' if name in required else ''}", self)
            description = prop.get("description") if isinstance(prop.get("description"), str) else ""
            tip = self.tr("{0} ({1}, required)").format(description, kind or self.tr("any")) \
                if name in required else self.tr("{0} ({1}, optional)").format(description, kind or self.tr("any"))
            label.setToolTip(tip)
            editor.setToolTip(tip)
            self._layout.addRow(label, editor)
            # Shown now, not on a later pass of the event loop: until then the layout counts them as
            # empty, and the workbench fits the fields' box to a form of no height (after a language
            # switch the fit ran first, leaving one field cut off in a 30-pixel box).
            label.show()
            editor.show()
            self._editors[name] = (kind, editor)
            if name in kept:
                self._set_raw(name, kept[name])
        self._layout.activate()
        self.schemaChanged.emit()
        self.argumentsChanged.emit()

    def changeEvent(self, event: QEvent) -> None:  # noqa: N802 (Qt override)
        """A language switch: tooltips and "(not set)" items are made from translated words; rebuild them."""
        if event.type() == QEvent.Type.LanguageChange and self._schema is not None:
            schema, self._schema = self._schema, None
            self.set_schema(schema)  # keeps the values typed so far
        super().changeEvent(event)

    def _make_editor(self, prop: dict) -> tuple[str, QWidget]:
        enum = prop.get("enum")
        kind = _kind(prop)
        if isinstance(enum, list) and enum:
            combo = QComboBox(self)
            combo.addItem(self.tr("(not set)"), None)
            for value in enum:
                combo.addItem(value if isinstance(value, str) else json.dumps(value, ensure_ascii=False),
                              json.dumps(value))
            combo.currentIndexChanged.connect(self._on_editor_changed)
            return "enum", combo
        if kind == "boolean":
            combo = QComboBox(self)
            combo.addItem(self.tr("(not set)"), None)
            combo.addItem("true", "true")
            combo.addItem("false", "false")
            combo.currentIndexChanged.connect(self._on_editor_changed)
            return kind, combo
        line = QLineEdit(self)
        if kind == "integer":
            line.setValidator(QRegularExpressionValidator(_INTEGER, line))
        elif kind == "number":
            line.setValidator(QRegularExpressionValidator(_NUMBER, line))
        elif kind in ("object", "array"):
            line.setPlaceholderText(self.tr("JSON {0}").format(kind))
        description = prop.get("description")
        if kind == "string" and isinstance(description, str):
            line.setPlaceholderText(description)
        line.textChanged.connect(self._on_editor_changed)
        return kind, line

    # ------------------------------------------------------------------ values

    def names(self) -> list[str]:
        return list(self._editors)

    def editor(self, name: str) -> QWidget:
        return self._editors[name][1]

    def arguments(self) -> dict:
        """The provided arguments, typed by the schema."""
        result: dict[str, Any] = {}
        for name, (kind, editor) in self._editors.items():
            if isinstance(editor, QComboBox):
                data = editor.currentData()
                if data is not None:
                    result[name] = json.loads(data)
            elif editor.text() != "":
                result[name] = _convert(kind, editor.text())
        return result

    def set_values(self, values: dict) -> None:
        """Fill fields from typed values (unknown names are ignored)."""
        for name, value in values.items():
            if name not in self._editors:
                continue
            _kind_, editor = self._editors[name]
            if isinstance(editor, QComboBox):
                index = editor.findData(json.dumps(value)) if value is not None else 0
                editor.setCurrentIndex(max(0, index))
            else:
                editor.setText(value if isinstance(value, str) else json.dumps(value, ensure_ascii=False))

    def _raw(self, name: str) -> Any:
        editor = self._editors[name][1]
        return ("combo", editor.currentData()) if isinstance(editor, QComboBox) else ("text", editor.text())

    def _set_raw(self, name: str, raw: tuple[str, Any]) -> None:
        editor = self._editors[name][1]
        kind, value = raw
        if isinstance(editor, QComboBox) and kind == "combo":
            editor.setCurrentIndex(max(0, editor.findData(value)) if value is not None else 0)
        elif isinstance(editor, QLineEdit) and kind == "text":
            editor.setText(value)

    def _on_editor_changed(self, *_args) -> None:
        self.argumentsChanged.emit()
