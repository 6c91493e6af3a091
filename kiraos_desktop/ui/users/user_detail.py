"""One user's memory: a header with actions (export, clear) and the Profile/Events/Context/History tabs."""
from __future__ import annotations

from pathlib import Path

from PySide6.QtCore import Qt, Signal
from PySide6.QtGui import QFont
from PySide6.QtWidgets import QHBoxLayout, QLabel, QPushButton, QSizePolicy, QTabWidget, QVBoxLayout, QWidget

from kiraos_desktop.core.memory.records import StoreUnavailable
from kiraos_desktop.core.transfer import export_import as transfer
from kiraos_desktop.core.context.builder import ContextBuilder
from kiraos_desktop.core.storage.protocol import MemoryReader
from kiraos_desktop.ui.prompts import Prompts
from kiraos_desktop.ui.row_reads import RowReads
from kiraos_desktop.ui.undo import UndoableWriter
from kiraos_desktop.ui.users.context_tab import ContextTab
from kiraos_desktop.ui.users.events_tab import EventsTab
from kiraos_desktop.ui.users.expiry import format_timestamp
from kiraos_desktop.ui.users.history_tab import HistoryTab
from kiraos_desktop.ui.users.profile_tab import ProfileTab

TAB_PROFILE, TAB_EVENTS, TAB_CONTEXT, TAB_HISTORY = range(4)


class UserDetail(QWidget):
    status_message = Signal(str)

    def __init__(self, store: MemoryReader, writer: UndoableWriter, context: ContextBuilder, prompts: Prompts,
                 parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self._store = store
        self._writer = writer
        self._prompts = prompts
        self._user_id: str | None = None
        self._stale: set[int] = set()
        self._loaded: dict[int, str | None] = {}  # tab index -> the user it shows
        self._header_reads = RowReads(store, "kiraos-user-header", self)
        self._header_reads.failed.connect(self._on_header_reads_failed)
        self.title_label = QLabel()
        self.title_label.setObjectName("userTitle")
        font = QFont(self.title_label.font())
        font.setPointSizeF(font.pointSizeF() * 1.35)
        font.setBold(True)
        self.title_label.setFont(font)
        self.title_label.setTextInteractionFlags(Qt.TextInteractionFlag.TextSelectableByMouse)
        # Long ids and summaries wrap or clip instead of widening the page past a small window.
        self.title_label.setSizePolicy(QSizePolicy.Policy.Ignored, QSizePolicy.Policy.Preferred)
        self.summary_label = QLabel()
        self.summary_label.setWordWrap(True)
        self.export_button = QPushButton(self.tr("Export this user…"))
        self.clear_button = QPushButton(self.tr("Clear memory…"))
        self.clear_button.setObjectName("dangerButton")
        header = QHBoxLayout()
        titles = QVBoxLayout()
        titles.addWidget(self.title_label)
        titles.addWidget(self.summary_label)
        header.addLayout(titles, 1)
        header.addWidget(self.export_button)
        header.addWidget(self.clear_button)
        self.profile_tab = ProfileTab(store, writer)
        self.events_tab = EventsTab(store, writer)
        self.context_tab = ContextTab(context, store)
        self.history_tab = HistoryTab(store, writer)
        self.tabs = QTabWidget()
        self.tabs.setObjectName("userTabs")
        self.tabs.addTab(self.profile_tab, self.tr("Profile"))
        self.tabs.addTab(self.events_tab, self.tr("Events"))
        self.tabs.addTab(self.context_tab, self.tr("Context"))
        self.tabs.addTab(self.history_tab, self.tr("History"))
        layout = QVBoxLayout(self)
        layout.setContentsMargins(0, 0, 0, 0)
        layout.addLayout(header)
        layout.addWidget(self.tabs, 1)
        self.tabs.currentChanged.connect(self._on_tabs_current_changed)
        self.export_button.clicked.connect(self._on_export_button_clicked)
        self.clear_button.clicked.connect(self._on_clear_button_clicked)
        for tab in (self.profile_tab, self.events_tab, self.history_tab):
            tab.status_message.connect(self.status_message)
        self.set_user(None)

    @property
    def user_id(self) -> str | None:
        return self._user_id

    def _tab_widgets(self) -> tuple:
        return (self.profile_tab, self.events_tab, self.context_tab, self.history_tab)

    def set_user(self, user_id: str | None) -> None:
        """Show another user: only the visible tab reads now; the others when they are opened."""
        self._user_id = user_id
        self._stale = set(range(4))
        self._load_tab(self.tabs.currentIndex())
        self._update_header()

    def refresh(self, changed_users: frozenset | None, origins: dict[str, str | None] | None = None) -> None:
        """A coalesced change: re-read what is visible if it concerns this user, unless the visible tab
        made every one of the user's changes itself (`origins`, ChangeCoalescer.last_origins) and shows
        them already: each edit is read back once."""
        if self._user_id is None or (changed_users is not None and self._user_id not in changed_users):
            return
        self._stale = set(range(4))
        current = self.tabs.currentIndex()
        tab = self._tab_widgets()[current]
        made_here = (origins or {}).get(self._user_id)
        if (made_here is not None and made_here == getattr(tab, "ORIGIN", None)
                and not getattr(tab, "refresh_pending", False)):  # a refresh an open editor put off still runs
            self._stale.discard(current)
        else:
            self._load_tab(current)
        self._update_header()

    def _load_tab(self, index: int) -> None:
        if index not in self._stale:
            return
        self._stale.discard(index)
        tab = self._tab_widgets()[index]
        if self._loaded.get(index, "") != self._user_id:
            self._loaded[index] = self._user_id
            tab.set_user(self._user_id)
        else:
            tab.refresh()

    def _on_tabs_current_changed(self, index: int) -> None:
        self._load_tab(index)

    def _update_header(self) -> None:
        user_id = self._user_id
        self.export_button.setEnabled(user_id is not None)
        self.clear_button.setEnabled(user_id is not None)
        if user_id is None:
            self.title_label.setText(self.tr("No user selected"))
            self.summary_label.setText(self.tr("Pick a user in the list on the left."))
            return
        self.title_label.setText(user_id)
        store = self._store
        self._header_reads.read(lambda: store.user_summary(user_id), self._show_summary)

    def _on_header_reads_failed(self, message: str) -> None:
        self.summary_label.setText(self.tr("Could not read this user's memory: {message}").format(message=message))

    def _show_summary(self, summary) -> None:
        if summary is None:
            self.summary_label.setText(self.tr("No memory stored for this user."))
            self.clear_button.setEnabled(False)
            return
        self.summary_label.setText(self.tr("{entries} · {events} · last activity {when}").format(
            entries=self.tr("%n profile entries", "", summary.profile_count),
            events=self.tr("%n events", "", summary.event_count),
            # A no-break space: a narrow window wraps before the date, never between it and the time.
            when=(format_timestamp(summary.last_activity) or "—").replace(" ", "\u00a0")))

    def _on_clear_button_clicked(self) -> None:
        user_id = self._user_id
        summary = self._store.user_summary(user_id) if user_id else None
        if user_id is None or summary is None:
            return
        question = self.tr("Delete everything KiraOS remembers about {user}: {entries} and {events}?\n\n"
                           "The bot will no longer receive any memory for this user. You can undo this with "
                           "Ctrl+Z while the window is open.").format(
            user=user_id, entries=self.tr("%n profile entries", "", summary.profile_count),
            events=self.tr("%n events", "", summary.event_count))
        if not self._prompts.confirm(self, self.tr("Clear memory"), question, self.tr("Clear memory")):
            return
        try:
            profiles, events = self._writer.write(self.tr("Clear memory of {user}").format(user=user_id),
                                                  lambda batch: batch.clear_user(user_id))
        except StoreUnavailable:  # the writer reported it
            return
        self.refresh(None)
        self.status_message.emit(self.tr("Cleared {user}: {entries} and {events} deleted.").format(
            user=user_id, entries=self.tr("%n profile entries", "", profiles), events=self.tr("%n events", "", events)))

    def _on_export_button_clicked(self) -> None:
        user_id = self._user_id
        if not user_id:
            return
        safe = "".join(c if c.isalnum() or c in "-_." else "_" for c in user_id)
        path = self._prompts.save_file(self, self.tr("Export {user}").format(user=user_id),
                                        str(Path.home() / f"kiraos-{safe}.json"), self.tr("JSON files (*.json)"))
        if not path:
            return
        try:
            transfer.export_file(self._store, Path(path), [user_id])
        except (OSError, transfer.StoreError) as exc:
            self._prompts.error(self, self.tr("Export failed"), str(exc))
            return
        self.status_message.emit(self.tr("Exported {user} to {path}").format(user=user_id, path=path))
