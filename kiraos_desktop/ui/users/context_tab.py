"""The Context tab: exactly the memory block the bot receives for this user (for a given current message
too, with the matched words highlighted and why each event is there), its length and what was dropped."""
from __future__ import annotations

from PySide6.QtCore import QStringListModel, QTimer, Slot
from PySide6.QtGui import QColor, QFontDatabase, QSyntaxHighlighter, QTextCharFormat
from PySide6.QtWidgets import QHBoxLayout, QLabel, QLineEdit, QListView, QPlainTextEdit, QVBoxLayout, QWidget

from kiraos_desktop.core.context.builder import ContextBuilder, UserContext
from kiraos_desktop.core.context.recall import RecallBlock
from kiraos_desktop.core.storage.protocol import MemoryReader
from kiraos_desktop.ui.row_reads import RowReads

# Typing in the message field waits this long for a pause before the block is made again.
MESSAGE_DEBOUNCE_MS = 250
# The lists under the block grow with their rows up to these many, then scroll: the reasons for a
# block of ten events (the default "Events in context") fit without scrolling.
REASON_ROWS_SHOWN = 10
DROPPED_ROWS_SHOWN = 6


class WordHighlighter(QSyntaxHighlighter):
    """Marks the words a message was matched on, in any case."""

    def __init__(self, document) -> None:
        super().__init__(document)
        self._words: tuple[str, ...] = ()
        self._format = QTextCharFormat()
        self._format.setBackground(QColor("#ffe680"))
        self._format.setForeground(QColor("#000000"))

    def set_words(self, words) -> None:
        words = tuple(w for w in words if w)
        if words != self._words:
            self._words = words
            self.rehighlight()

    def highlightBlock(self, text: str) -> None:  # noqa: N802 (Qt's name)
        folded = text.lower()
        for word in self._words:
            start = folded.find(word)
            while start >= 0:
                self.setFormat(start, len(word), self._format)
                start = folded.find(word, start + len(word))


def _fit_rows(view: QListView, rows: int, most: int) -> None:
    """Make a list as tall as its rows, up to `most` of them (then it scrolls)."""
    shown = max(1, min(rows, most))
    row = view.sizeHintForRow(0) if rows else view.fontMetrics().height()
    view.setFixedHeight(shown * max(row, view.fontMetrics().height()) + 2 * view.frameWidth() + 2)


class ContextTab(QWidget):
    def __init__(self, context: ContextBuilder, store: MemoryReader, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self._context = context
        self._store = store
        self._user_id: str | None = None
        self.block: UserContext | None = None
        self.reads = RowReads(store, "kiraos-context-block", self)  # the block, read off the GUI thread on a server
        self.reads.failed.connect(self._on_reads_failed)
        self.recalled: RecallBlock | None = None  # the RecallBlock shown while a message is typed
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
        self.highlighter = WordHighlighter(self.text_view.document())
        self.message_edit = QLineEdit()
        self.message_edit.setObjectName("currentMessage")
        self.message_edit.setClearButtonEnabled(True)
        self.message_edit.setPlaceholderText(self.tr("Type what the user says to see the block for that "
                                                     "message (query=)"))
        self._message_timer = QTimer(self)
        self._message_timer.setSingleShot(True)
        self._message_timer.setInterval(MESSAGE_DEBOUNCE_MS)
        self._message_timer.timeout.connect(self.refresh)
        self.message_edit.textChanged.connect(self._on_message_edit_text_changed)
        self.reasons_label = QLabel()
        self.reasons_label.setObjectName("recallReasons")
        self.reasons_label.setWordWrap(True)
        self.reasons_model = QStringListModel(self)
        self.reasons_view = QListView()
        self.reasons_view.setObjectName("reasonsView")
        self.reasons_view.setModel(self.reasons_model)
        self.reasons_view.setEditTriggers(QListView.EditTrigger.NoEditTriggers)
        intro = QLabel(self.tr("What the bot receives before each reply (GET /v1/context):"))
        intro.setWordWrap(True)
        message_row = QHBoxLayout()
        message_label = QLabel(self.tr("Current &message:"))
        message_label.setBuddy(self.message_edit)
        message_row.addWidget(message_label)
        message_row.addWidget(self.message_edit, 1)
        layout = QVBoxLayout(self)
        layout.addWidget(intro)
        layout.addLayout(message_row)
        layout.addWidget(self.text_view, 1)
        layout.addWidget(self.reasons_label)
        layout.addWidget(self.reasons_view)
        layout.addWidget(self.length_label)
        layout.addSpacing(4)
        layout.addWidget(self.dropped_label)
        layout.addWidget(self.dropped_view)

    def set_user(self, user_id: str | None) -> None:
        self._user_id = user_id
        self.refresh()

    @Slot(str)
    def _on_message_edit_text_changed(self, _text: str) -> None:
        self._message_timer.start()

    def _show_reasons(self, recalled) -> None:
        """Why each event is in the block made for the message (nothing without a message)."""
        if recalled is None:
            self.reasons_label.setText("")
            self.reasons_model.setStringList([])
        elif not recalled.matched:
            self.reasons_label.setText(self.tr("No event matches this message: the bot gets the usual block."))
            self.reasons_model.setStringList([])
        else:
            self.reasons_label.setText(self.tr("Why each event is in the block (relevant to the message, or "
                                               "recent to fill the rest):"))
            lines = []
            for item in recalled.shown:
                event = item.event
                text = f"{(event.created_at or '')[:10]} {event.summary}"
                if item.relevant:
                    lines.append(self.tr("relevant ({words}): {event}").format(
                        words=", ".join(item.matched), event=text))
                else:
                    lines.append(self.tr("recent: {event}").format(event=text))
            self.reasons_model.setStringList(lines)
            _fit_rows(self.reasons_view, len(lines), REASON_ROWS_SHOWN)
        self.reasons_label.setVisible(recalled is not None)
        self.reasons_view.setVisible(bool(self.reasons_model.rowCount()))

    def refresh(self) -> None:
        self._message_timer.stop()
        if not self._user_id:
            self.block = None
            self.text_view.setPlainText("")
            self.text_view.setPlaceholderText(self.tr("Select a user."))
            self.length_label.setText("")
            self.dropped_label.setText("")
            self.dropped_model.setStringList([])
            self.highlighter.set_words(())
            self._show_reasons(None)
            return
        user_id, message, context, store = self._user_id, self.message_edit.text(), self._context, self._store

        def read():
            recalled = context.recall_block(user_id, message) if message.strip() else None
            block = recalled.block if recalled is not None else context.user_block(user_id)
            return recalled, block, store.user_summary(user_id)

        self.reads.read(read, self._show_block)

    def _on_reads_failed(self, message: str) -> None:
        self.text_view.setPlainText("")
        self.text_view.setPlaceholderText(self.tr("Could not read this user's memory: {message}").format(message=message))

    def _show_block(self, found) -> None:
        recalled, block, summary = found
        self.block = block
        self.recalled = recalled
        self.highlighter.set_words(recalled.words if recalled is not None and recalled.matched else ())
        self._show_reasons(recalled)
        if self.text_view.toPlainText() != block.text:
            self.text_view.setPlainText(block.text)
        self.text_view.setPlaceholderText(self.tr("Empty: this user has no live memory, so the bot receives "
                                                  "nothing for them."))
        length = len(block.text)
        if block.budget:
            self.length_label.setText(self.tr("{n} of {max} characters (max_context_chars)").format(
                n=length, max=block.budget))
        else:
            self.length_label.setText(self.tr("%n characters (max_context_chars = 0: no limit)", "", length))
        notes = []
        older = self._events_not_read(summary)
        if older and recalled is not None and recalled.matched:
            notes.append(self.tr("%n other events are not in the block: it carries {max}, those about the message "
                                 "first, then the newest (“Events in context” in Settings, max_events_per_user).",
                                 "", older).format(max=self._context.events_limit()))
        elif older:
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
        _fit_rows(self.dropped_view, len(block.dropped), DROPPED_ROWS_SHOWN)
        self.dropped_view.setVisible(bool(block.dropped))

    def _events_not_read(self, summary) -> int:
        """Events beyond `max_events_per_user`: never read into the block, whatever the budget."""
        limit = self._context.events_limit()
        return max(0, summary.event_count - limit) if summary is not None and limit > 0 else 0
