"""The Overview page: counts, API state and a feed of the latest changes from the audit log."""
from __future__ import annotations

from html import escape

from PySide6.QtCore import QEvent, QModelIndex, QPersistentModelIndex, Qt, Signal
from PySide6.QtGui import QFont
from PySide6.QtWidgets import (
    QFormLayout,
    QFrame,
    QGridLayout,
    QGroupBox,
    QHeaderView,
    QLabel,
    QTableView,
    QVBoxLayout,
    QWidget,
)

from kiraos_desktop.core.memory.records import ChangeRecord
from kiraos_desktop.core.skills import SkillRouter
from kiraos_desktop.core.storage.protocol import MemoryReader
from kiraos_desktop.ui.empty_state import EmptyState
from kiraos_desktop.ui.views import setup_table
from kiraos_desktop.ui.keyed_model import KeyedTableModel
from kiraos_desktop.ui.tasks import TaskLane, plain
from kiraos_desktop.ui.users.history_model import ChangeField, action_label, change_text, change_tooltip

FEED_SIZE = 100  # writes shown
GROUP_READ_FACTOR = 5  # audit records read per write shown (a write of many records is one row)
GROUP_TOOLTIP_LINES = 12
USER_ID_ROLE = Qt.ItemDataRole.UserRole + 1


def group_changes(changes: list[ChangeRecord]) -> list[tuple[ChangeRecord, ...]]:
    """Consecutive audit records of one write (same time, actor and user) as one group, newest first.

    A write stamps all its records with one microsecond timestamp, so undoing the clear of a user
    with 40 entries is one group, not 40 rows.
    """
    groups: list[list[ChangeRecord]] = []
    for change in changes:
        head = groups[-1][0] if groups else None
        if head is not None and (head.at, head.actor, head.user_id) == (change.at, change.actor, change.user_id):
            groups[-1].append(change)
        else:
            groups.append([change])
    return [tuple(group) for group in groups]


def group_summary(group: tuple[ChangeRecord, ...]) -> str:
    """`set entry ×4 · add event ×2` (actions in the order the write made them)."""
    counts: dict[str, int] = {}
    for change in reversed(group):
        counts[change.action] = counts.get(change.action, 0) + 1
    return " · ".join(f"{action_label(action)} ×{count}" for action, count in counts.items())


class ChangeFeedModel(KeyedTableModel):
    """The newest writes of all users (one row per write, however many records it made): time, actor, user, what."""

    FIELDS = (ChangeField.TIME, ChangeField.ACTOR, ChangeField.USER, ChangeField.SUMMARY)

    def __init__(self, store: MemoryReader, parent=None) -> None:
        super().__init__(parent)
        self._store = store

    def row_key(self, row: tuple[ChangeRecord, ...]) -> int:
        return row[0].id

    def refresh(self) -> None:
        changes = self._store.list_changes(None, limit=FEED_SIZE * GROUP_READ_FACTOR)
        self.sync_rows(group_changes(changes)[:FEED_SIZE])

    def columnCount(self, parent: QModelIndex | QPersistentModelIndex = QModelIndex()) -> int:
        return 0 if parent.isValid() else 4

    def headerData(self, section: int, orientation: Qt.Orientation, role: int = Qt.ItemDataRole.DisplayRole):
        if orientation != Qt.Orientation.Horizontal or role != Qt.ItemDataRole.DisplayRole or not 0 <= section < 4:
            return None
        return (self.tr("Time"), self.tr("Actor"), self.tr("User"), self.tr("What"))[section]

    def flags(self, index: QModelIndex | QPersistentModelIndex) -> Qt.ItemFlag:
        if not index.isValid():
            return Qt.ItemFlag.NoItemFlags
        return Qt.ItemFlag.ItemIsEnabled | Qt.ItemFlag.ItemIsSelectable | Qt.ItemFlag.ItemNeverHasChildren

    def data(self, index: QModelIndex | QPersistentModelIndex, role: int = Qt.ItemDataRole.DisplayRole):
        if not index.isValid() or index.row() >= len(self._rows):
            return None
        group: tuple[ChangeRecord, ...] = self._rows[index.row()]
        change, field = group[0], self.FIELDS[index.column()]
        if len(group) > 1 and field is ChangeField.SUMMARY:
            if role == Qt.ItemDataRole.DisplayRole:
                return group_summary(group)
            if role == Qt.ItemDataRole.ToolTipRole:
                lines = [change_text(c, field) for c in list(reversed(group))[:GROUP_TOOLTIP_LINES]]
                more = len(group) - GROUP_TOOLTIP_LINES
                return "\n".join(lines + ([self.tr("… and %n more", "", more)] if more > 0 else []))
        if role == Qt.ItemDataRole.DisplayRole:
            return change_text(change, field)
        if role == Qt.ItemDataRole.ToolTipRole:
            return change_tooltip(change, field)
        if role == USER_ID_ROLE:
            return change.user_id
        return None


class StatCard(QFrame):
    """A big number with a caption."""

    def __init__(self, caption: str, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.setObjectName("statCard")
        self.setFrameShape(QFrame.Shape.StyledPanel)
        self.value_label = QLabel("—")
        self.value_label.setObjectName("statValue")
        font = QFont(self.value_label.font())
        font.setPointSizeF(font.pointSizeF() * 2.0)
        font.setBold(True)
        self.value_label.setFont(font)
        self.caption_label = QLabel(caption)
        self.caption_label.setObjectName("statCaption")
        self.detail_label = QLabel("")
        self.detail_label.setObjectName("statDetail")
        layout = QVBoxLayout(self)
        layout.addWidget(self.value_label)
        layout.addWidget(self.caption_label)
        layout.addWidget(self.detail_label)

    def set_value(self, value: int, detail: str = "") -> None:
        self.value_label.setText(f"{value:,}")
        self.detail_label.setText(detail)


class OverviewPage(QWidget):
    user_activated = Signal(str)  # a feed row was double-clicked: open that user
    guide_requested = Signal()  # the first-run hint's link: open Help > Guide

    def __init__(self, store: MemoryReader, skills: SkillRouter, parent: QWidget | None = None, *,
                 database_label: str = "") -> None:
        super().__init__(parent)
        self._store = store
        self._skills = skills
        self._stale = True
        # The counts scan user_summary (50-90 ms on 100k users): read off the GUI thread, the newest wins.
        self._stats_worker = TaskLane("kiraos-overview-stats", self)
        self._stats_worker.finished.connect(self._on_stats_worker_finished)
        self.first_run = QLabel()
        self.first_run.setObjectName("firstRunHint")
        self.first_run.setWordWrap(True)
        self.first_run.setTextFormat(Qt.TextFormat.RichText)
        self.first_run.setFrameShape(QFrame.Shape.StyledPanel)
        self.first_run.setMargin(10)
        self.first_run.linkActivated.connect(self._on_first_run_link_activated)
        self.first_run.hide()
        self.users_card = StatCard("")
        self.profiles_card = StatCard("")
        self.events_card = StatCard("")
        self.skills_card = StatCard("")
        cards = QGridLayout()
        for column, card in enumerate((self.users_card, self.profiles_card, self.events_card, self.skills_card)):
            cards.addWidget(card, 0, column)
        self.api_label = QLabel()
        self.api_label.setObjectName("overviewApiState")
        self.api_label.setWordWrap(True)
        self.api_label.setTextInteractionFlags(Qt.TextInteractionFlag.TextSelectableByMouse)
        self.db_label = QLabel(database_label or store.location)
        self.db_label.setObjectName("overviewDatabase")
        self.db_label.setWordWrap(True)
        self.db_label.setTextInteractionFlags(Qt.TextInteractionFlag.TextSelectableByMouse)
        self.status_box = QGroupBox()
        status = QFormLayout(self.status_box)
        self.api_caption = QLabel()
        self.db_caption = QLabel()
        status.addRow(self.api_caption, self.api_label)
        status.addRow(self.db_caption, self.db_label)
        self.feed_model = ChangeFeedModel(store, self)
        self.feed_view = QTableView()
        self.feed_view.setObjectName("feedView")
        self.feed_view.setModel(self.feed_model)
        setup_table(self.feed_view)
        header = self.feed_view.horizontalHeader()
        for column, width in ((0, 130), (1, 60), (2, 140)):
            header.resizeSection(column, width)
        header.setSectionResizeMode(3, QHeaderView.ResizeMode.Stretch)
        self.empty_state = EmptyState(self.feed_view)
        self.feed_title = QLabel()
        self.feed_title.setObjectName("sectionTitle")
        bold = QFont(self.feed_title.font())
        bold.setBold(True)
        self.feed_title.setFont(bold)
        layout = QVBoxLayout(self)
        layout.addWidget(self.first_run)
        layout.addLayout(cards)
        layout.addWidget(self.status_box)
        layout.addSpacing(4)
        layout.addWidget(self.feed_title)
        layout.addWidget(self.feed_view, 1)
        self.feed_view.doubleClicked.connect(self._on_feed_view_double_clicked)
        self._retranslate()
        self.set_api_state(self.tr("starting…"))

    def _retranslate(self) -> None:
        self.users_card.caption_label.setText(self.tr("Users"))
        self.profiles_card.caption_label.setText(self.tr("Profile entries"))
        self.events_card.caption_label.setText(self.tr("Events"))
        self.skills_card.caption_label.setText(self.tr("Skills"))
        self.status_box.setTitle(self.tr("Status"))
        self.api_caption.setText(self.tr("API:"))
        self.db_caption.setText(self.tr("Database:"))
        self.feed_title.setText(self.tr("Recent changes"))
        self.first_run.setText(self.tr(
            "<b>No user has any memory yet.</b> Connect a bot to the API (its address and token are on "
            "the API page): what it stores appears here and on the Users page. "
            "<a href=\"guide\">Read the guide</a> (F1) for what profile entries, categories, confidence "
            "and TTL mean, how skills use {name} and {{ name }}, and how a bot connects."))

    def changeEvent(self, event: QEvent) -> None:  # noqa: N802 (Qt override)
        if event.type() == QEvent.Type.LanguageChange:
            self._retranslate()
            self._stale = True
            self.refresh(None)  # texts made from counts
        super().changeEvent(event)

    def set_api_state(self, text: str, color: str = "") -> None:
        self.api_label.setText(f"<span style='color:{color}'>●</span> {escape(text)}" if color else escape(text))

    def _on_first_run_link_activated(self, _link: str) -> None:
        self.guide_requested.emit()

    def refresh(self, _changed_users: frozenset | None = None) -> None:
        """Counts and feed; deferred until the page is visible (one query set per coalesced burst)."""
        if not self.isVisible():
            self._stale = True
            return
        self._stale = False
        self._stats_worker.submit(plain(self._store.stats))
        skills = self._skills.skills()
        enabled = self._skills.enabled_skills()
        self.skills_card.set_value(len(skills), self.tr("{n} enabled").format(n=len(enabled)))
        self.feed_model.refresh()
        self.empty_state.update_state(self.feed_model.rowCount(), self.tr(
            "No changes recorded yet. Writes by the bot, the API and this window appear here."))

    def _on_stats_worker_finished(self, ticket: int, stats, error) -> None:
        if ticket != self._stats_worker.latest_ticket or error is not None:
            return  # a failed read leaves the counts as they were; the next change reads them again
        self.users_card.set_value(stats.total_users)
        self.first_run.setVisible(stats.total_users == 0)
        self.profiles_card.set_value(stats.total_profiles)
        self.events_card.set_value(stats.total_events)

    def shutdown(self) -> None:
        """Stop the counts' reader (nothing reads the store once the window is closing)."""
        self._stats_worker.stop()

    def showEvent(self, event) -> None:
        super().showEvent(event)
        if self._stale:
            self.refresh(None)

    def _on_feed_view_double_clicked(self, index) -> None:
        user_id = index.data(USER_ID_ROLE)
        if user_id:
            self.user_activated.emit(user_id)
