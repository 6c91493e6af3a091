"""The manifest form: name, command, template engine, description, trigger, exclude, parameters."""
from __future__ import annotations

from PySide6.QtCore import QModelIndex, Qt, Signal
from PySide6.QtWidgets import (
    QAbstractItemView,
    QComboBox,
    QFormLayout,
    QHBoxLayout,
    QHeaderView,
    QLabel,
    QLineEdit,
    QPlainTextEdit,
    QPushButton,
    QTableView,
    QVBoxLayout,
    QWidget,
)

from kiraos_desktop.core.skills.manifest_fields import FormFields
from .params_model import DESCRIPTION, ENUM, NAME, REQUIRED, TYPE, ParametersModel, TypeDelegate
from .theme import colors_for


class _ShortText(QPlainTextEdit):
    """A few lines of wrapped plain text that behaves like a form field (Tab moves on)."""

    def __init__(self, lines: int, parent: QWidget | None = None):
        super().__init__(parent)
        self.setTabChangesFocus(True)
        margins = self.contentsMargins()
        height = self.fontMetrics().lineSpacing() * lines + 2 * self.document().documentMargin() \
            + margins.top() + margins.bottom() + 2
        self.setFixedHeight(int(height))


class ManifestForm(QWidget):
    """Edits the manifest fields; emits `edited` on every user change (not on set_fields)."""

    edited = Signal()

    def __init__(self, parent: QWidget | None = None):
        super().__init__(parent)
        self._loading = False
        self._stale = QLabel(self)
        self._stale.setWordWrap(True)
        self.set_colors(colors_for(self.palette()))
        self._stale.hide()

        self.name_edit = QLineEdit(self)
        self.name_edit.setPlaceholderText(self.tr("letters, digits, _ or -"))
        self.command_edit = QLineEdit(self)
        self.command_edit.setPlaceholderText(self.tr("/command (optional)"))
        self.template_combo = QComboBox(self)
        self.template_combo.addItem(self.tr("Plain"), "plain")
        self.template_combo.addItem(self.tr("Jinja2"), "jinja2")
        self.template_combo.setItemData(0, self.tr("{name} placeholders replaced in one pass"),
                                        Qt.ItemDataRole.ToolTipRole)
        self.template_combo.setItemData(1, self.tr("A sandboxed Jinja2 template: {{ name }}, {% if name %}"),
                                        Qt.ItemDataRole.ToolTipRole)
        self.template_combo.setToolTip(self.tr("Template engine of the instruction"))
        self.command_edit.setMinimumWidth(90)
        self.description_edit = QLineEdit(self)
        self.trigger_edit = _ShortText(2, self)
        self.trigger_edit.setPlaceholderText(self.tr("When should the LLM call this skill? (the tool description)"))
        self.exclude_edit = _ShortText(2, self)
        self.exclude_edit.setPlaceholderText(self.tr("When must it not be used? (prepended as a guard)"))

        self.params_model = ParametersModel(self)
        self.params_view = QTableView(self)
        self.params_view.setModel(self.params_model)
        self.params_view.setItemDelegateForColumn(TYPE, TypeDelegate(self.params_view))
        self.params_view.setSelectionBehavior(QAbstractItemView.SelectionBehavior.SelectRows)
        self.params_view.setSelectionMode(QAbstractItemView.SelectionMode.SingleSelection)
        self.params_view.setTabKeyNavigation(False)
        self.params_view.verticalHeader().hide()
        self.params_view.setWordWrap(False)
        header = self.params_view.horizontalHeader()
        header.setSectionResizeMode(NAME, QHeaderView.ResizeMode.Interactive)
        header.setSectionResizeMode(TYPE, QHeaderView.ResizeMode.ResizeToContents)
        header.setSectionResizeMode(DESCRIPTION, QHeaderView.ResizeMode.Stretch)
        header.setSectionResizeMode(REQUIRED, QHeaderView.ResizeMode.ResizeToContents)
        header.setSectionResizeMode(ENUM, QHeaderView.ResizeMode.Interactive)
        header.resizeSection(NAME, 90)
        header.resizeSection(ENUM, 90)
        self.params_view.setMinimumHeight(90)

        self.add_button = QPushButton(self.tr("Add parameter"), self)
        self.remove_button = QPushButton(self.tr("Remove"), self)
        self.up_button = QPushButton(self.tr("Up"), self)
        self.down_button = QPushButton(self.tr("Down"), self)

        second = QHBoxLayout()
        second.addWidget(self.command_edit, 1)
        second.addWidget(QLabel(self.tr("Template:"), self))
        second.addWidget(self.template_combo)
        buttons = QHBoxLayout()
        for button in (self.add_button, self.remove_button, self.up_button, self.down_button):
            buttons.addWidget(button)
        buttons.addStretch(1)

        form = QFormLayout()
        form.setFieldGrowthPolicy(QFormLayout.FieldGrowthPolicy.AllNonFixedFieldsGrow)
        form.addRow(self.tr("Name:"), self.name_edit)
        form.addRow(self.tr("Command:"), second)
        form.addRow(self.tr("Description:"), self.description_edit)
        form.addRow(self.tr("Trigger:"), self.trigger_edit)
        form.addRow(self.tr("Exclude:"), self.exclude_edit)
        self._fields_box = QWidget(self)
        params_box = QVBoxLayout()
        params_box.setContentsMargins(0, 0, 0, 0)
        params_box.addWidget(self.params_view, 1)
        params_box.addLayout(buttons)
        outer = QVBoxLayout(self._fields_box)
        outer.setContentsMargins(0, 0, 0, 0)
        outer.addLayout(form)
        outer.addWidget(QLabel(self.tr("Parameters:"), self))
        outer.addLayout(params_box, 1)
        layout = QVBoxLayout(self)
        layout.setContentsMargins(4, 4, 4, 4)
        layout.addWidget(self._stale)
        layout.addWidget(self._fields_box, 1)

        for line in (self.name_edit, self.command_edit, self.description_edit):
            line.textEdited.connect(self._on_field_edited)
        self.trigger_edit.textChanged.connect(self._on_field_edited)
        self.exclude_edit.textChanged.connect(self._on_field_edited)
        self.template_combo.currentIndexChanged.connect(self._on_field_edited)
        self.params_model.dataChanged.connect(self._on_field_edited)
        self.params_model.rowsInserted.connect(self._on_field_edited)
        self.params_model.rowsRemoved.connect(self._on_field_edited)
        self.params_model.rowsMoved.connect(self._on_field_edited)
        self.add_button.clicked.connect(self._on_add_button_clicked)
        self.remove_button.clicked.connect(self._on_remove_button_clicked)
        self.up_button.clicked.connect(self._on_up_button_clicked)
        self.down_button.clicked.connect(self._on_down_button_clicked)

    def set_colors(self, colors) -> None:
        self._stale.setStyleSheet(f"color: {colors.error_fg.name()}; font-weight: bold;")

    # ------------------------------------------------------------------ content

    def set_fields(self, fields: FormFields) -> None:
        """Show these values without emitting `edited`."""
        self._loading = True
        try:
            for widget, value in ((self.name_edit, fields.name), (self.command_edit, fields.command),
                                  (self.description_edit, fields.description)):
                if widget.text() != value:
                    widget.setText(value)
            for widget, value in ((self.trigger_edit, fields.trigger), (self.exclude_edit, fields.exclude)):
                if widget.toPlainText() != value:
                    widget.setPlainText(value)
            self.template_combo.setCurrentIndex(max(0, self.template_combo.findData(fields.template)))
            if self.params_model.rows() != fields.params:
                self.params_model.set_rows(fields.params)
        finally:
            self._loading = False

    def fields(self) -> FormFields:
        return FormFields(
            name=self.name_edit.text(), description=self.description_edit.text(),
            trigger=self.trigger_edit.toPlainText(), exclude=self.exclude_edit.toPlainText(),
            command=self.command_edit.text(), template=self.template_combo.currentData() or "plain",
            params=self.params_model.rows())

    def set_stale(self, reason: str | None) -> None:
        """Disable the form (its values are out of date) and say why; None enables it again."""
        self._stale.setText(reason or "")
        self._stale.setVisible(bool(reason))
        self._fields_box.setEnabled(not reason)

    @property
    def is_stale(self) -> bool:
        return not self._fields_box.isEnabled()

    @property
    def stale_reason(self) -> str:
        return self._stale.text()

    def focus_field(self, field: str) -> bool:
        """Put the focus on the widget of a problem's field; False when the form has none."""
        widgets = {"name": self.name_edit, "command": self.command_edit, "template": self.template_combo,
                   "description": self.description_edit, "trigger": self.trigger_edit,
                   "exclude": self.exclude_edit}
        if field in widgets:
            widgets[field].setFocus(Qt.FocusReason.OtherFocusReason)
            return True
        if field.startswith("parameters"):
            parts = field.split(".")
            row = self.params_model.row_of(parts[2]) if len(parts) > 2 and parts[1] == "properties" else -1
            if row >= 0:
                self.params_view.selectRow(row)
            self.params_view.setFocus(Qt.FocusReason.OtherFocusReason)
            return True
        return False

    # ------------------------------------------------------------------ slots

    def _on_field_edited(self, *_args) -> None:
        if not self._loading:
            self.edited.emit()

    def _on_add_button_clicked(self) -> None:
        row = self.params_model.add_parameter()
        index = self.params_model.index(row, NAME)
        self.params_view.setCurrentIndex(index)
        self.params_view.edit(index)

    def _on_remove_button_clicked(self) -> None:
        index = self.params_view.currentIndex()
        if index.isValid():
            self.params_model.remove_parameter(index.row())

    def _on_up_button_clicked(self) -> None:
        self._move_selected(-1)

    def _on_down_button_clicked(self) -> None:
        self._move_selected(1)

    def _move_selected(self, delta: int) -> None:
        index: QModelIndex = self.params_view.currentIndex()
        if index.isValid() and self.params_model.move_parameter(index.row(), delta):
            self.params_view.selectRow(index.row() + delta)
