"""A plain-text code editor with line numbers, a current-line band and a marked (error) line."""
from __future__ import annotations

from PySide6.QtCore import QRect, QSize, Qt
from PySide6.QtGui import QPainter, QPaintEvent, QResizeEvent, QTextCursor, QTextFormat
from PySide6.QtWidgets import QPlainTextEdit, QTextEdit, QWidget

from .theme import code_font, colors_for


class _LineNumberArea(QWidget):
    def __init__(self, editor: "CodeEditor"):
        super().__init__(editor)
        self._editor = editor

    def sizeHint(self) -> QSize:  # noqa: N802 (Qt override)
        return QSize(self._editor.line_number_width(), 0)

    def paintEvent(self, event: QPaintEvent) -> None:  # noqa: N802 (Qt override)
        self._editor.paint_line_numbers(event)


class CodeEditor(QPlainTextEdit):
    """QPlainTextEdit with a line-number gutter; `mark_line(n)` tints line n (1-based)."""

    def __init__(self, parent: QWidget | None = None):
        super().__init__(parent)
        self.setFont(code_font())
        self.setTabStopDistance(self.fontMetrics().horizontalAdvance(" ") * 4)
        self._colors = colors_for(self.palette())
        self._marked_line: int | None = None
        self._gutter = _LineNumberArea(self)
        self.blockCountChanged.connect(self._on_document_block_count_changed)
        self.updateRequest.connect(self._on_viewport_update_requested)
        self.cursorPositionChanged.connect(self._on_cursor_position_changed)
        self._on_document_block_count_changed(0)
        self._refresh_selections()

    def set_colors(self, colors) -> None:
        self._colors = colors
        self._refresh_selections()
        self._gutter.update()

    # ------------------------------------------------------------------ line numbers

    def line_number_width(self) -> int:
        digits = max(3, len(str(max(1, self.blockCount()))))
        return 10 + self.fontMetrics().horizontalAdvance("9") * digits

    def _on_document_block_count_changed(self, _count: int) -> None:
        self.setViewportMargins(self.line_number_width(), 0, 0, 0)

    def _on_viewport_update_requested(self, rect: QRect, dy: int) -> None:
        if dy:
            self._gutter.scroll(0, dy)
        else:
            self._gutter.update(0, rect.y(), self._gutter.width(), rect.height())
        if rect.contains(self.viewport().rect()):
            self._on_document_block_count_changed(0)

    def resizeEvent(self, event: QResizeEvent) -> None:  # noqa: N802 (Qt override)
        super().resizeEvent(event)
        area = self.contentsRect()
        self._gutter.setGeometry(QRect(area.left(), area.top(), self.line_number_width(), area.height()))

    def paint_line_numbers(self, event: QPaintEvent) -> None:
        painter = QPainter(self._gutter)
        painter.fillRect(event.rect(), self._colors.line_number_bg)
        block = self.firstVisibleBlock()
        number = block.blockNumber()
        top = round(self.blockBoundingGeometry(block).translated(self.contentOffset()).top())
        bottom = top + round(self.blockBoundingRect(block).height())
        height = self.fontMetrics().height()
        current = self.textCursor().blockNumber()
        while block.isValid() and top <= event.rect().bottom():
            if block.isVisible() and bottom >= event.rect().top():
                color = self._colors.error_fg if number + 1 == self._marked_line else self._colors.line_number_fg
                painter.setPen(color)
                font = painter.font()
                font.setBold(number == current)
                painter.setFont(font)
                painter.drawText(0, top, self._gutter.width() - 5, height,
                                 Qt.AlignmentFlag.AlignRight, str(number + 1))
            block = block.next()
            top = bottom
            bottom = top + round(self.blockBoundingRect(block).height())
            number += 1
        painter.end()

    # ------------------------------------------------------------------ selections

    def _on_cursor_position_changed(self) -> None:
        self._refresh_selections()

    def mark_line(self, line: int | None) -> None:
        """Tint line `line` (1-based) as erroneous; None clears the mark."""
        if line == self._marked_line:
            return
        self._marked_line = line
        self._refresh_selections()
        self._gutter.update()

    @property
    def marked_line(self) -> int | None:
        return self._marked_line

    def _refresh_selections(self) -> None:
        selections = []
        if not self.isReadOnly():
            band = QTextEdit.ExtraSelection()
            band.format.setBackground(self._colors.current_line_bg)
            band.format.setProperty(QTextFormat.Property.FullWidthSelection, True)
            band.cursor = self.textCursor()
            band.cursor.clearSelection()
            selections.append(band)
        if self._marked_line is not None:
            block = self.document().findBlockByNumber(self._marked_line - 1)
            if block.isValid():
                mark = QTextEdit.ExtraSelection()
                mark.format.setBackground(self._colors.error_line_bg)
                mark.format.setProperty(QTextFormat.Property.FullWidthSelection, True)
                mark.cursor = QTextCursor(block)
                selections.append(mark)
        self.setExtraSelections(selections)

    # ------------------------------------------------------------------ navigation

    def goto_line(self, line: int, column: int = 1) -> None:
        """Put the cursor at `line`:`column` (1-based), show it and take the focus."""
        block = self.document().findBlockByNumber(max(0, line - 1))
        if not block.isValid():
            block = self.document().lastBlock()
        cursor = QTextCursor(block)
        cursor.movePosition(QTextCursor.MoveOperation.Right, QTextCursor.MoveMode.MoveAnchor,
                            min(max(0, column - 1), max(0, block.length() - 1)))
        self.setTextCursor(cursor)
        self.centerCursor()
        self.setFocus(Qt.FocusReason.OtherFocusReason)

    def replace_all_text(self, text: str) -> None:
        """Replace the whole text as one undoable step (unlike setPlainText, keeps the undo stack)."""
        if text == self.toPlainText():
            return
        cursor = QTextCursor(self.document())
        cursor.beginEditBlock()
        cursor.select(QTextCursor.SelectionType.Document)
        cursor.insertText(text)
        cursor.endEditBlock()
