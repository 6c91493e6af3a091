"""The Context tab: exactly the memory block the bot receives for this user, its length and what was dropped."""
from __future__ import annotations

from PySide6.QtCore import QStringListModel
from PySide6.QtGui import QFontDatabase
from PySide6.QtWidgets import QLabel, QListView, QPlainTextEdit, QVBoxLayout, QWidget

from kiraos_desktop.core.context import ContextBuilder, UserContext
from kiraos_desktop.core.store import MemoryStore


class ContextTab(QWidget):
    def __init__(self, context: ContextBuilder, store: MemoryStore, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self._context = context
        self._store = store
        self._user_id: str | None = None
        self.block: UserContext | None = None
        self.text_view = QPlainTextEdit()
        self.text_view.setObjectName("contextText")
        self.text_view.setReadOnly(True)
        self.text_view.setLineWrapMode(QPlainTextEdit.LineWrapMode.WidgetWidth)
        self.text_view.setFont(QFontDatabase.systemFont(QFontDatabase.SystemFont.FixedFont))
        self.length_label = QLabel()
        self.length_label.setObjectName("contextLength")
        self.dropped_label = QLabel()
        self.dropped_label.setWordWrap(True)
        self.dropped_model = QStringListModel(self)
        self.dropped_view = QListView()
        self.dropped_view.setObjectName("droppedView")
        self.dropped_view.setModel(self.dropped_model)
        self.dropped_view.setEditTriggers(QListView.EditTrigger.NoEditTriggers)
        self.dropped_view.setMaximumHeight(150)
        intro = QLabel(self.tr("What the bot receives before each reply (GET /v1/context):"))
        intro.setWordWrap(True)
        layout = QVBoxLayout(self)
        layout.addWidget(intro)
        layout.addWidget(self.text_view, 1)
        layout.addWidget(self.length_label)
        layout.addSpacing(4)
        layout.addWidget(self.dropped_label)
        layout.addWidget(self.dropped_view)

    def set_user(self, user_id: str | None) -> None:
        self._user_id = user_id
        self.refresh()

    def refresh(self) -> None:
        if not self._user_id:
            self.block = None
            self.text_view.setPlainText("")
            self.text_view.setPlaceholderText(self.tr("Select a user."))
            self.length_label.setText("")
            self.dropped_label.setText("")
            self.dropped_model.setStringList([])
            return
        block = self._context.user_block(self._user_id)
        self.block = block
        if self.text_view.toPlainText() != block.text:
            self.text_view.setPlainText(block.text)
        self.text_view.setPlaceholderText(self.tr("Empty: this user has no live memory, so the bot receives "
                                                  "nothing for them."))
        length = len(block.text)
        if block.budget:
            self.length_label.setText(self.tr("{n} of {max} characters (max_context_chars)").format(
                n=length, max=block.budget))
        else:
            self.length_label.setText(self.tr("{n} characters (max_context_chars = 0: no limit)").format(n=length))
        notes = []
        older = self._events_not_read(self._user_id)
        if older:
            notes.append(self.tr("%n older events are not in the block: it carries the newest {max} only "
                                 "(“Events in context” in Settings, max_events_per_user).", "", older).format(
                max=self._context.events_limit()))
        if block.dropped:
            notes.append(self.tr("Left out to stay within the budget (%n items):", "", len(block.dropped)))
        if notes:
            self.dropped_label.setText("\n".join(notes))
            self.dropped_label.setStyleSheet("color: #c77700; font-weight: bold;")
        else:
            self.dropped_label.setText(self.tr("Nothing was left out."))
            self.dropped_label.setStyleSheet("")
        self.dropped_model.setStringList([f"[{item.kind}] {item.label}" for item in block.dropped])
        self.dropped_view.setVisible(bool(block.dropped))

    def _events_not_read(self, user_id: str) -> int:
        """Events beyond `max_events_per_user`: never read into the block, whatever the budget."""
        summary = self._store.user_summary(user_id)
        limit = self._context.events_limit()
        return max(0, summary.event_count - limit) if summary is not None and limit > 0 else 0
