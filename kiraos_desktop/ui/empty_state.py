"""A centred hint shown inside an empty item view ("No users yet", "Nothing matches")."""
from __future__ import annotations

from PySide6.QtCore import QEvent, QObject, Qt
from PySide6.QtGui import QPalette
from PySide6.QtWidgets import QAbstractItemView, QLabel


class EmptyState(QLabel):
    """Covers the view's viewport while the model has no rows; the text says why and what to do."""

    def __init__(self, view: QAbstractItemView) -> None:
        super().__init__(view.viewport())
        self.setObjectName("emptyState")
        self._view = view
        self.setAlignment(Qt.AlignmentFlag.AlignCenter)
        self.setWordWrap(True)
        self.setTextFormat(Qt.TextFormat.PlainText)
        self.setAttribute(Qt.WidgetAttribute.WA_TransparentForMouseEvents)
        self.setMargin(24)
        view.viewport().installEventFilter(self)
        self.hide()

    def update_state(self, row_count: int, text: str) -> None:
        palette = self.palette()
        palette.setColor(QPalette.ColorRole.WindowText, self._view.palette().color(QPalette.ColorRole.PlaceholderText))
        self.setPalette(palette)
        self.setText(text)
        self.setVisible(row_count == 0)
        self._fit()

    def _fit(self) -> None:
        self.setGeometry(self._view.viewport().rect())

    def eventFilter(self, watched: QObject, event: QEvent) -> bool:
        if event.type() == QEvent.Type.Resize:
            self._fit()
        return False
