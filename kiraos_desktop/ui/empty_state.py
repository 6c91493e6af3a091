"""A centred hint shown inside an empty item view ("No users yet", "Nothing matches")."""
from __future__ import annotations

from PySide6.QtCore import Qt
from PySide6.QtGui import QPalette
from PySide6.QtWidgets import QAbstractItemView, QLabel, QVBoxLayout


class EmptyState(QLabel):
    """Covers the view's viewport while the model has no rows; the text says why and what to do.

    A layout on the viewport keeps it the viewport's size (no event filter: those cost a Python
    call for every event the viewport gets).
    """

    def __init__(self, view: QAbstractItemView) -> None:
        super().__init__()
        self.setObjectName("emptyState")
        self._view = view
        self.setAlignment(Qt.AlignmentFlag.AlignCenter)
        self.setWordWrap(True)
        self.setTextFormat(Qt.TextFormat.PlainText)
        self.setAttribute(Qt.WidgetAttribute.WA_TransparentForMouseEvents)
        self.setMargin(24)
        layout = QVBoxLayout(view.viewport())
        layout.setContentsMargins(0, 0, 0, 0)
        layout.addWidget(self)
        self.hide()

    def update_state(self, row_count: int, text: str) -> None:
        color = self._view.palette().color(QPalette.ColorRole.PlaceholderText)
        palette = self.palette()
        if palette.color(QPalette.ColorRole.WindowText) != color:  # a new palette re-polishes the label
            palette.setColor(QPalette.ColorRole.WindowText, color)
            self.setPalette(palette)
        if text != self.text():
            self.setText(text)
        self.setVisible(row_count == 0)
