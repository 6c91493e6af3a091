"""Preview pane: the exact tool result (guard and user input highlighted) or the tool definition."""
from __future__ import annotations

from html import escape

from PySide6.QtCore import Qt, Signal
from PySide6.QtWidgets import QComboBox, QHBoxLayout, QLabel, QPlainTextEdit, QVBoxLayout, QWidget

from kiraos_desktop.core.skill_draft import PreviewResult
from kiraos_desktop.core.tool_registry import refused_arguments_text

from .highlighters import PreviewHighlighter
from .preview_runner import RESULT
from .theme import code_font, colors_for


class PreviewPane(QWidget):
    """Shows what a host receives. `modeChanged(mode)`: "result", "openai", "anthropic" or "mcp"."""

    modeChanged = Signal(str)

    def __init__(self, parent: QWidget | None = None):
        super().__init__(parent)
        colors = colors_for(self.palette())
        self._colors = colors
        self.mode_combo = QComboBox(self)
        # Short names: the pane is narrow at 1024x700 ("Tool result (what the LLM re" was cut there).
        self.mode_combo.addItem(self.tr("Tool result"), RESULT)
        self.mode_combo.setItemData(0, self.tr("What the LLM receives when it calls the skill"),
                                    Qt.ItemDataRole.ToolTipRole)
        self.mode_combo.addItem(self.tr("Tool definition: OpenAI"), "openai")
        self.mode_combo.addItem(self.tr("Tool definition: Anthropic"), "anthropic")
        self.mode_combo.addItem(self.tr("Tool definition: MCP"), "mcp")
        self.mode_combo.setSizeAdjustPolicy(QComboBox.SizeAdjustPolicy.AdjustToMinimumContentsLengthWithIcon)
        self.mode_combo.setMinimumContentsLength(14)
        self.status = QLabel(self)
        self.status.setWordWrap(True)
        self.legend = QLabel(self)
        self.legend.setTextFormat(Qt.TextFormat.RichText)
        self.legend.setWordWrap(True)
        self._set_legend(colors)
        self.text_view = QPlainTextEdit(self)
        self.text_view.setReadOnly(True)
        self.text_view.setFont(code_font())
        self.text_view.setObjectName("skillPreview")
        self.highlighter = PreviewHighlighter(self.text_view.document(), colors)
        self._shown: tuple[str, list] = ("", [])
        self._status_error = False

        top = QHBoxLayout()
        top.addWidget(QLabel(self.tr("Show:"), self))
        top.addWidget(self.mode_combo, 1)
        layout = QVBoxLayout(self)
        layout.setContentsMargins(0, 0, 0, 0)
        layout.addLayout(top)
        layout.addWidget(self.legend)
        layout.addWidget(self.status)
        layout.addWidget(self.text_view, 1)
        self.mode_combo.currentIndexChanged.connect(self._on_mode_combo_current_index_changed)

    def _set_legend(self, colors) -> None:
        # Each sample in one piece: a narrow pane wraps the legend between samples, never inside one.
        swatch = '<span style="background:{0}; color:{1}">&nbsp;{2}&nbsp;</span>'
        # Colours of the scheme's own (not this widget's palette, which a scheme switch may reach later).
        self.legend.setText(self.tr("Legend:") + " " + " ".join((
            swatch.format(colors.guard_bg.name(), colors.guard_fg.name(), _unbroken(self.tr("exclude guard"))),
            swatch.format(colors.input_bg.name(), colors.input_fg.name(),
                          _unbroken(self.tr("<user_input> value"))),
            swatch.format(colors.context_bg.name(), colors.context_fg.name(), _unbroken(self.tr("<context> memory"))))))

    def set_colors(self, colors) -> None:
        self._colors = colors
        self._set_legend(colors)
        self.highlighter.set_colors(colors)
        self._set_status(self.status.text(), self._status_error)

    def mode(self) -> str:
        return self.mode_combo.currentData()

    def set_mode(self, mode: str) -> None:
        self.mode_combo.setCurrentIndex(max(0, self.mode_combo.findData(mode)))

    def text(self) -> str:
        return self.text_view.toPlainText()

    def show_result(self, result: PreviewResult, spans: list | None = None, problem_note: str = "") -> None:
        """Show a tool result with its highlight regions (draft.preview_spans); `problem_note`
        says when hosts cannot call the skill at all."""
        self.legend.setVisible(True)
        if result.refused:
            # A sentence of its own: the next one must not run on from the message.
            status = self.tr("A host's call with these arguments is refused: {0}: {1}.").format(
                result.field, result.message.rstrip(" ."))
            if result.text:
                status += " " + self.tr("Below, what it returns once they are given (missing ones marked).")
            self._set_status(status, error=True)
            # The pane starts with what the host is told, for every kind of bad argument; then, when the
            # only fault is missing values, what the call returns once they are given.
            refusal = refused_arguments_text(result.field, result.message)
            if not result.text:
                self._set_text(refusal, [])
                return
            shift = len(refusal) + 2
            self._set_text(f"{refusal}\n\n{result.text}", [(s + shift, e + shift, k) for s, e, k in spans or []])
            return
        if result.is_error:
            self._set_status(self.tr("The template fails; the host receives this error result."), error=True)
            self._set_text(result.text, [])
            return
        if problem_note:
            self._set_status(problem_note, error=True)
        else:
            self._set_status(self.tr("{0} characters; exactly what the tool call returns.").format(
                len(result.text)), error=False)
        self._set_text(result.text, spans or [])

    def show_definition(self, text: str, problem_note: str = "") -> None:
        self.legend.setVisible(False)
        if problem_note:
            self._set_status(problem_note, error=True)
        else:
            self._set_status(self.tr("This skill's entry in the host's tool list."), error=False)
        self._set_text(text, [])

    def show_failure(self, message: str) -> None:
        self._set_status(self.tr("The preview failed unexpectedly: {0}").format(message), error=True)
        self._set_text("", [])

    def _set_status(self, text: str, error: bool) -> None:
        self._status_error = error
        self.status.setText(text)
        color = self._colors.error_fg if error else self._colors.ok_fg
        self.status.setStyleSheet(f"color: {color.name()};")

    def _set_text(self, text: str, spans: list) -> None:
        if (text, spans) == self._shown:
            return
        self._shown = (text, list(spans))
        self.highlighter.set_spans(text, spans, rehighlight=False)
        if text != self.text_view.toPlainText():
            bar = self.text_view.verticalScrollBar()
            position = bar.value()
            self.text_view.setPlainText(text)  # highlights the new text with the new spans
            bar.setValue(position)
        else:
            self.highlighter.rehighlight()

    def _on_mode_combo_current_index_changed(self, _index: int) -> None:
        self.modeChanged.emit(self.mode())


def _unbroken(text: str) -> str:
    """`text` as HTML that no line break splits."""
    return escape(text).replace(" ", "&nbsp;")
