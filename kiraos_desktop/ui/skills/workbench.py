"""Right side of the Skills page: sample arguments, user picker, preview, problems, command tester."""
from __future__ import annotations

from PySide6.QtCore import Qt, QTimer
from PySide6.QtWidgets import (
    QFormLayout,
    QFrame,
    QGroupBox,
    QScrollArea,
    QSplitter,
    QTabWidget,
    QVBoxLayout,
    QWidget,
)

from .args_form import SampleArgumentsForm
from .command_tester import CommandTester
from .preview_pane import PreviewPane
from .problems_panel import ProblemsPanel
from .user_picker import UserPicker

PROBLEMS_TAB, COMMAND_TAB = 0, 1


class Workbench(QWidget):
    """Only layout: the page computes the preview and the problems and pushes them in."""

    def __init__(self, store, store_changed, matcher, slash_enabled, parent: QWidget | None = None):
        super().__init__(parent)
        self.args_form = SampleArgumentsForm(self)
        scroll = QScrollArea(self)
        scroll.setWidgetResizable(True)
        scroll.setFrameShape(QFrame.Shape.NoFrame)
        scroll.setWidget(self.args_form)
        self._scroll = scroll
        self._fit_timer = QTimer(self)
        self._fit_timer.setSingleShot(True)
        self._fit_timer.setInterval(0)
        self._fit_timer.timeout.connect(self._on_fit_timer_timeout)
        self.args_form.schemaChanged.connect(self._on_args_form_schema_changed)
        self.user_picker = UserPicker(store, store_changed, self)

        inputs = QGroupBox(self.tr("Sample call"), self)
        form = QFormLayout(inputs)
        form.setFieldGrowthPolicy(QFormLayout.FieldGrowthPolicy.AllNonFixedFieldsGrow)
        form.setRowWrapPolicy(QFormLayout.RowWrapPolicy.WrapLongRows)  # label above the field when narrow
        form.addRow(self.tr("Memory of:"), self.user_picker)
        form.addRow(scroll)

        self.preview = PreviewPane(self)
        self.problems = ProblemsPanel(self)
        self.tester = CommandTester(matcher, slash_enabled, self)
        self.tabs = QTabWidget(self)
        self.tabs.setDocumentMode(True)
        self.tabs.addTab(self.problems, self.tr("Problems"))
        # In a scroll area: the tester's fields need ~150 px, which would be taken from the preview
        # at 1024x700 even while the Problems tab is the one shown.
        tester_scroll = QScrollArea(self)
        tester_scroll.setWidgetResizable(True)
        tester_scroll.setFrameShape(QFrame.Shape.NoFrame)
        tester_scroll.setWidget(self.tester)
        self.tabs.addTab(tester_scroll, self.tr("Slash command"))

        top = QWidget(self)
        top_layout = QVBoxLayout(top)
        top_layout.setContentsMargins(0, 0, 0, 0)
        top_layout.addWidget(inputs)
        top_layout.addWidget(self.preview, 1)
        self.splitter = QSplitter(Qt.Orientation.Vertical, self)
        self.splitter.setChildrenCollapsible(False)
        self.splitter.addWidget(top)
        self.splitter.addWidget(self.tabs)
        self.splitter.setStretchFactor(0, 1)
        self.splitter.setStretchFactor(1, 0)
        self.splitter.setSizes([620, 100])  # the preview first: at 1024x700 it had some 200 px
        self.splitter.setObjectName("skillWorkbenchSplitter")
        layout = QVBoxLayout(self)
        layout.setContentsMargins(0, 0, 0, 0)
        layout.addWidget(self.splitter)

    def _on_args_form_schema_changed(self) -> None:
        # New field widgets become visible on the next event loop pass; measure them then.
        self._fit_timer.start()
        self._order_tabs()

    def _order_tabs(self) -> None:
        """Tab goes down the sample call as it is shown: the user, each argument, then the preview's
        mode. Fields made for a newly opened skill join the focus chain at the window's end
        otherwise, after the preview and the problems."""
        chain = [self.user_picker.combo, *(self.args_form.editor(name) for name in self.args_form.names()),
                 self.preview.mode_combo]
        for first, second in zip(chain, chain[1:]):
            QWidget.setTabOrder(first, second)

    def _on_fit_timer_timeout(self) -> None:
        # Fit the argument fields (up to a limit; more scroll) so the preview keeps the room.
        height = self.args_form.layout().sizeHint().height() + 2
        self._scroll.setFixedHeight(max(30, min(height, 170)))

    def set_problem_counts(self, errors: int, warnings: int) -> None:
        if errors or warnings:
            label = self.tr("Problems ({0})").format(errors + warnings)
        else:
            label = self.tr("Problems")
        self.tabs.setTabText(PROBLEMS_TAB, label)
