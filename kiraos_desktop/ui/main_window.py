"""The main window: sidebar pages, menus, status bar, undo stack and live updates wiring."""
from __future__ import annotations

import logging
from typing import Callable

from PySide6.QtCore import QEvent, QSettings, QSize, Qt, QTimer, Signal
from PySide6.QtGui import QAction, QCloseEvent, QKeySequence, QUndoStack
from PySide6.QtWidgets import (
    QApplication,
    QHBoxLayout,
    QLabel,
    QListWidget,
    QListWidgetItem,
    QMainWindow,
    QScrollArea,
    QSplitter,
    QStackedWidget,
    QVBoxLayout,
    QWidget,
)

from kiraos_desktop.core.storage.errors import BUSY, CONFLICT, DISK_FULL, PERMISSION
from kiraos_desktop.ui import file_actions
from kiraos_desktop.ui.window_size import place_window, remember_window
from kiraos_desktop.ui.i18n import apply_language
from kiraos_desktop.ui.db_state import DatabaseOutageLabel
from kiraos_desktop.ui.overview_page import OverviewPage
from kiraos_desktop.ui.prompts import Prompts, prompts as default_prompts
from kiraos_desktop.ui.retranslate import refresh_item_views
from kiraos_desktop.ui.recall_build import RecallBuildIndicator
from kiraos_desktop.ui.server_state import ServerStateRelay, run_server_operation
from kiraos_desktop.ui.store_signals import ChangeCoalescer, StoreSignals
from kiraos_desktop.ui.theme import app_icon, apply_theme, set_scheme_preference, themed_icon
from kiraos_desktop.ui.undo import UndoableWriter
from kiraos_desktop.ui.undo_focus import UndoShortcutRouter
from kiraos_desktop.ui.users.users_page import UsersPage

log = logging.getLogger(__name__)
PAGE_OVERVIEW, PAGE_USERS, PAGE_SKILLS, PAGE_API = range(4)
DEFAULT_SIZE = QSize(1180, 760)  # on a screen that has room for it and no size remembered for it
STATE_COLORS = {"starting": "#c98a00", "running": "#1e8e3e", "stopped": "#80868b", "error": "#d93025"}


def placeholder_page(title: str, text: str) -> QWidget:
    """Shown where a page could not be built (its module is missing or failed to load)."""
    page = QWidget()
    page.setObjectName("placeholderPage")
    layout = QVBoxLayout(page)
    heading = QLabel(title)
    heading.setStyleSheet("font-size: 16pt; font-weight: bold;")
    body = QLabel(text)
    body.setWordWrap(True)
    layout.addWidget(heading)
    layout.addWidget(body)
    layout.addStretch(1)
    return page


class MainWindow(QMainWindow):
    reopen_requested = Signal(dict)  # {"data_dir": D} or {"kira_data": D}
    hidden_to_tray = Signal()  # closed while the tray keeps the API serving
    closed = Signal()  # closed for real (the app may quit)
    retranslated = Signal()  # after a language switch, once this window has re-set its texts
    # The engine's settings listeners run on the thread that changed them: the watcher's, when
    # settings.json was changed on disk. Queued to the GUI thread from there, direct on it.
    _settingsChanged = Signal(object, object)

    def __init__(self, engine, server, ui_settings: QSettings | None = None, prompts: Prompts | None = None,
                 parent: QWidget | None = None, *, server_error: str = "") -> None:
        """`server` may be None when it could not be created; `server_error` then says why."""
        super().__init__(parent)
        self._engine = engine
        self._server = server
        self._ui_settings = ui_settings if ui_settings is not None else QSettings()
        self._prompts = prompts or default_prompts
        # Set by the running app (not screenshots, the self-test or most tests): where a tray keeps
        # the API serving, closing hides the window; elsewhere closing asks while the API serves.
        self.keeps_serving_in_tray: Callable[[], bool] = lambda: False
        self.ask_before_stopping_api = False
        self._quitting = False
        self._guide = None
        self.setWindowTitle(self._title())
        self.setWindowIcon(app_icon())
        self.undo_stack = QUndoStack(self)
        self.writer = UndoableWriter(engine.store, self.undo_stack, self)
        # Ctrl+Z reaches the stack from any widget, a text field's own typing aside (undo_focus.py).
        self._undo_router = UndoShortcutRouter(self.undo_stack, self)
        QApplication.instance().installEventFilter(self._undo_router)
        self.store_signals = StoreSignals(engine.store.changes, self)
        self.coalescer = ChangeCoalescer(self.store_signals, parent=self)
        self.server_state = ServerStateRelay(server, self)
        if server is None:
            self.server_state.report("error", server_error or self.tr("the API server was not set up"))

        self.overview_page = OverviewPage(engine.store, engine.skills, database_label=engine.database_label)
        self.users_page = UsersPage(engine.store, self.writer, engine.context, self._prompts)
        self.skills_page = self._build_skills_page()
        self.api_page = self._build_api_page()
        self.stack = QStackedWidget()
        self.sidebar = QListWidget()
        self.sidebar.setObjectName("sidebar")
        self.sidebar.setIconSize(QSize(20, 20))
        self.sidebar.setFixedWidth(136)
        self.sidebar.setFrameShape(QListWidget.Shape.NoFrame)
        self.sidebar.setHorizontalScrollBarPolicy(Qt.ScrollBarPolicy.ScrollBarAlwaysOff)
        for page, (name, icon) in zip((self.overview_page, self.users_page, self.skills_page, self.api_page),
                                      zip(self._page_titles(), ("overview", "users", "skills", "api"))):
            item = QListWidgetItem(themed_icon(icon), name)
            item.setData(Qt.ItemDataRole.UserRole, icon)
            item.setSizeHint(QSize(120, 38))
            self.sidebar.addItem(item)
            self.stack.addWidget(_scrollable(page))
        central = QWidget()
        row = QHBoxLayout(central)
        row.setContentsMargins(0, 0, 0, 0)
        row.setSpacing(0)
        row.addWidget(self.sidebar)
        row.addWidget(self.stack, 1)
        self.setCentralWidget(central)
        self._build_menus()
        self._title_sidebar()
        self._build_status_bar()

        self.sidebar.currentRowChanged.connect(self._on_sidebar_current_row_changed)
        self.coalescer.triggered.connect(self._on_coalescer_triggered)
        self.server_state.state_changed.connect(self._on_server_state_changed)
        self.writer.failed.connect(self._on_writer_failed)
        self.writer.refused.connect(self._on_writer_refused)
        self.users_page.status_message.connect(self._on_page_status_message)
        self.overview_page.user_activated.connect(self._on_overview_user_activated)
        self.overview_page.guide_requested.connect(self.show_guide)
        self._settingsChanged.connect(self._on_engine_settings_changed)  # auto: queued from other threads
        self._unsubscribe_settings = engine.on_settings_changed(self._on_engine_settings_event)
        self._on_server_state_changed(self.server_state.state, self.server_state.detail)
        self._restore_state()
        self.sidebar.setCurrentRow(PAGE_OVERVIEW)

    # ---- construction --------------------------------------------------------------------

    def _page_titles(self) -> list[str]:
        return [self.tr("Overview"), self.tr("Users"), self.tr("Skills"), self.tr("API")]

    def _title(self) -> str:
        paths = self._engine.paths
        mode = self.tr(" — companion mode") if paths.companion else ""
        return self.tr("KiraOS Desktop") + mode

    def _build_skills_page(self) -> QWidget:
        try:
            from kiraos_desktop.ui.skills.page import SkillsPage
        except ImportError:
            return placeholder_page(self.tr("Skills"), self.tr("The skill workbench is not part of this build."))
        engine = self._engine
        return SkillsPage(engine.skills, engine.store, self.coalescer.triggered, engine.context, engine)

    def _build_api_page(self) -> QWidget:
        if self._server is None:
            return placeholder_page(self.tr("API"), self.tr("The API server could not be set up: {detail}").format(
                detail=self.server_state.detail))
        try:
            from kiraos_desktop.ui.api_page import ApiPage
        except ImportError:
            return placeholder_page(self.tr("API"), self.server_state.text())
        return ApiPage(self._server, self._engine)

    def _build_menus(self) -> None:
        """Menus and actions; their texts are set by _retranslate_menus (again after a language switch)."""
        self.file_menu = self.menuBar().addMenu("")
        self.open_data_action = self.file_menu.addAction("")
        self.open_kira_action = self.file_menu.addAction("")
        self.file_menu.addSeparator()
        self.backup_action = self.file_menu.addAction("")
        self.export_action = self.file_menu.addAction("")
        self.import_action = self.file_menu.addAction("")
        self.purge_action = self.file_menu.addAction("")
        self.migrate_action = self.file_menu.addAction("")
        # Both copy the database file: with the memory on a server they have nothing to copy.
        local_file = self._engine.store.local_file is not None
        self.backup_action.setEnabled(local_file)
        self.migrate_action.setEnabled(local_file)
        self.file_menu.addSeparator()
        self.quit_action = self.file_menu.addAction("")
        self.quit_action.setShortcut(QKeySequence(QKeySequence.StandardKey.Quit))
        self.quit_action.setMenuRole(QAction.MenuRole.QuitRole)
        self.edit_menu = self.menuBar().addMenu("")
        self.undo_action = self.redo_action = None
        self._undo_separator = self.edit_menu.addSeparator()
        self._make_undo_actions(self._undo_separator)
        self.settings_action = self.edit_menu.addAction("")
        keys = [QKeySequence(QKeySequence.StandardKey.Preferences), QKeySequence("Ctrl+,")]  # the first is
        self.settings_action.setShortcuts([k for i, k in enumerate(keys)  # empty on some desktops
                                           if not k.isEmpty() and k not in keys[:i]])
        self.settings_action.setMenuRole(QAction.MenuRole.PreferencesRole)
        self.help_menu = self.menuBar().addMenu("")
        self.guide_action = self.help_menu.addAction("")
        self.guide_action.setShortcut(QKeySequence(QKeySequence.StandardKey.HelpContents))
        self.help_menu.addSeparator()
        self.about_action = self.help_menu.addAction("")
        self.about_action.setMenuRole(QAction.MenuRole.AboutRole)
        self.page_actions = []
        for page in range(self.sidebar.count()):  # Ctrl+1..4: the pages, as in the sidebar
            action = QAction(self)
            action.setShortcut(QKeySequence(f"Ctrl+{page + 1}"))
            action.triggered.connect(lambda _checked=False, page=page: self.show_page(page))
            self.addAction(action)
            self.page_actions.append(action)
        self._retranslate_menus()
        self.open_data_action.triggered.connect(self._on_open_data_action_triggered)
        self.open_kira_action.triggered.connect(self._on_open_kira_action_triggered)
        self.backup_action.triggered.connect(self._on_backup_action_triggered)
        self.export_action.triggered.connect(self._on_export_action_triggered)
        self.import_action.triggered.connect(self._on_import_action_triggered)
        self.purge_action.triggered.connect(self._on_purge_action_triggered)
        self.migrate_action.triggered.connect(self._on_migrate_action_triggered)
        self.quit_action.triggered.connect(self.quit)
        self.settings_action.triggered.connect(self._on_settings_action_triggered)
        self.guide_action.triggered.connect(self.show_guide)
        self.about_action.triggered.connect(self._on_about_action_triggered)

    def _retranslate_menus(self) -> None:
        self.file_menu.setTitle(self.tr("&File"))
        self.open_data_action.setText(self.tr("Open data folder…"))
        self.open_kira_action.setText(self.tr("Open KiraOS data folder…"))
        self.backup_action.setText(self.tr("Back up…"))
        self.export_action.setText(self.tr("Export…"))
        self.import_action.setText(self.tr("Import…"))
        self.purge_action.setText(self.tr("Remove expired entries…"))
        self.migrate_action.setText(self.tr("Copy memory to PostgreSQL…"))
        self.quit_action.setText(self.tr("Quit"))
        self.edit_menu.setTitle(self.tr("&Edit"))
        self.settings_action.setText(self.tr("Settings…"))
        self.help_menu.setTitle(self.tr("&Help"))
        self.guide_action.setText(self.tr("Guide"))
        self.about_action.setText(self.tr("About KiraOS Desktop"))

    def _make_undo_actions(self, before: QAction) -> None:
        """Undo/Redo from the stack, placed before `before`; made anew after a language switch, since
        QUndoStack keeps the prefix ("Undo" + the command's text) it was given when it made them."""
        old = [action for action in (self.undo_action, self.redo_action) if action is not None]
        self.undo_action = self.undo_stack.createUndoAction(self, self.tr("Undo"))
        self.undo_action.setShortcuts([QKeySequence(QKeySequence.StandardKey.Undo)])
        self.redo_action = self.undo_stack.createRedoAction(self, self.tr("Redo"))
        self.redo_action.setShortcuts([QKeySequence("Ctrl+Shift+Z"), QKeySequence("Ctrl+Y")])
        self.edit_menu.insertActions(before, [self.undo_action, self.redo_action])
        for action in old:
            self.edit_menu.removeAction(action)
            action.deleteLater()

    def changeEvent(self, event: QEvent) -> None:  # noqa: N802 (Qt override)
        if event.type() == QEvent.Type.LanguageChange:
            self._retranslate()
        super().changeEvent(event)

    def _retranslate(self) -> None:
        """After a language switch: everything this window titled itself, and every table header."""
        self.setWindowTitle(self._title())
        self._retranslate_menus()
        self._make_undo_actions(self._undo_separator)
        self._title_sidebar()
        self._show_db_status()
        self._on_server_state_changed(self.server_state.state, self.server_state.detail)
        refresh_item_views(self)
        self._on_coalescer_triggered(None)  # counts and summaries are texts made from data
        self.retranslated.emit()

    def _title_sidebar(self) -> None:
        native = QKeySequence.SequenceFormat.NativeText
        for row, title in enumerate(self._page_titles()):
            self.sidebar.item(row).setText(title)
            self.sidebar.item(row).setToolTip(f"{title} ({self.page_actions[row].shortcut().toString(native)})")

    def _build_status_bar(self) -> None:
        self.api_status = QLabel()
        self.api_status.setObjectName("apiStatus")
        self.db_status = QLabel()
        self.db_status.setObjectName("dbStatus")
        self._show_db_status()
        self.db_status.setTextInteractionFlags(Qt.TextInteractionFlag.TextSelectableByMouse)
        self.recall_build = RecallBuildIndicator(self._engine.store, self)
        self.recall_build.message.connect(self._on_page_status_message)
        self.db_outage = DatabaseOutageLabel(self._engine.change_listener, self)
        self.db_outage.outage_changed.connect(self._on_db_outage_changed)
        self.statusBar().addPermanentWidget(self.db_outage)
        self.statusBar().addPermanentWidget(self.recall_build)
        self.statusBar().addPermanentWidget(self.api_status)
        self.statusBar().addPermanentWidget(self.db_status)
        self.recall_build.start()  # an existing database's events, indexed for recall

    def _show_db_status(self) -> None:
        path = self._engine.database_label
        layout = self._engine.store.layout
        if self._engine.paths.companion and layout is not None:
            prefix = self.tr("KiraOS {layout} data: ").format(layout=layout.name)
        else:
            prefix = self.tr("Database: ")
        self.db_status.setText(prefix + path)
        self.db_status.setToolTip(path)

    # ---- pages ---------------------------------------------------------------------------

    def refresh_icons(self) -> None:
        """After a light/dark switch: line icons are tinted with the palette's text colour."""
        for row in range(self.sidebar.count()):
            item = self.sidebar.item(row)
            item.setIcon(themed_icon(item.data(Qt.ItemDataRole.UserRole)))

    def show_page(self, page: int) -> None:
        self.sidebar.setCurrentRow(page)

    def current_page(self) -> int:
        return self.stack.currentIndex()

    def _on_sidebar_current_row_changed(self, row: int) -> None:
        if row >= 0:
            self.stack.setCurrentIndex(row)

    def _on_coalescer_triggered(self, changed_users) -> None:
        self.overview_page.refresh(changed_users)
        self.users_page.refresh(changed_users, self.coalescer.last_origins)

    def _on_overview_user_activated(self, user_id: str) -> None:
        self.show_page(PAGE_USERS)
        if not self.users_page.select_user(user_id):
            self.users_page.detail.set_user(user_id)

    def _on_page_status_message(self, text: str) -> None:
        self.statusBar().showMessage(text, 8000)

    def _on_db_outage_changed(self, unreachable: bool) -> None:
        self.statusBar().showMessage(self.db_outage.message(), 0 if unreachable else 8000)

    def _on_writer_refused(self, kind: str, message: str) -> None:
        reasons = {
            BUSY: self.tr("The memory database is busy: another program kept its lock too long. "
                          "Try again in a moment."),
            CONFLICT: self.tr("Another KiraOS Desktop instance wrote the same memory at the same moment. "
                              "Try again."),
            DISK_FULL: self.tr("The disk of the memory database is full. Free some space and try again."),
            PERMISSION: self.tr("This user may not write the memory database. Check the file's or the "
                                "database role's permissions."),
        }
        self._prompts.error(self, self.tr("Not saved"), self.tr(
            "The change was not saved.\n\n{reason}\n\nNothing else was changed; everything saved before is "
            "kept.").format(reason=reasons.get(kind, message)))

    def _on_writer_failed(self, message: str) -> None:
        self.statusBar().showMessage(self.tr("Undo/redo failed: {message}").format(message=message), 10000)

    def _on_server_state_changed(self, state: str, detail: str) -> None:
        text = self.server_state.text()
        self.api_status.setText("● " + text if state != "error" else "● " + self.tr("API error"))
        self.api_status.setToolTip(text)
        self.api_status.setStyleSheet(f"color: {STATE_COLORS.get(state, '#80868b')};")
        self.overview_page.set_api_state(self.server_state.short_text(), STATE_COLORS.get(state, ""))
        if state == "error":
            self.statusBar().showMessage(text, 15000)

    # ---- menu actions --------------------------------------------------------------------

    def _on_open_data_action_triggered(self) -> None:
        choice = file_actions.choose_data_dir(self, self._prompts, self._engine.paths)
        if choice:
            self.reopen_requested.emit(choice)

    def _on_open_kira_action_triggered(self) -> None:
        choice = file_actions.choose_kira_data(self, self._prompts, self._engine.paths)
        if choice:
            self.reopen_requested.emit(choice)

    def _on_backup_action_triggered(self) -> None:
        file_actions.backup(self, self._prompts, self._engine)

    def _on_export_action_triggered(self) -> None:
        file_actions.export_all(self, self._prompts, self._engine)

    def _on_import_action_triggered(self) -> None:
        file_actions.import_file(self, self._prompts, self._engine)
        self.coalescer.flush()

    def _on_purge_action_triggered(self) -> None:
        file_actions.purge_all_expired(self, self._prompts, self.writer)

    def _on_migrate_action_triggered(self) -> None:
        file_actions.copy_to_postgres(self, self._prompts, self._engine)  # a switch reopens (settings listener)

    def _on_settings_action_triggered(self) -> None:
        from kiraos_desktop.ui.settings_dialog import SettingsDialog

        server = self._server
        running = server.url if server is not None and getattr(server, "running", False) else ""
        SettingsDialog(self._engine, self, running_url=running).exec()

    def show_guide(self) -> None:
        """Help > Guide (F1): one non-modal guide window, raised when already open."""
        from kiraos_desktop.ui.help_dialog import HelpDialog

        if self._guide is None:
            self._guide = HelpDialog(self)
        self._guide.show()
        self._guide.raise_()
        self._guide.activateWindow()

    def _on_about_action_triggered(self) -> None:
        from kiraos_desktop.ui.about_dialog import AboutDialog

        AboutDialog(self._engine.paths, self, database=self._engine.database_label).exec()

    def _on_engine_settings_event(self, old, new) -> None:
        try:
            self._settingsChanged.emit(old, new)
        except RuntimeError:
            pass  # the window is gone

    def _on_engine_settings_changed(self, old, new) -> None:
        """Limits apply at once (engine); the language too; the API restarts when its host, port or token changed."""
        from kiraos_desktop.ui.settings_dialog import api_settings_changed

        if new.language != old.language:
            apply_language(new.language)  # Qt then sends LanguageChange to every widget
        if new.database_url != old.database_url and not self._engine.paths.companion:
            # Another memory: the window reopens on it (after this listener; the controller does it).
            data_dir = {"data_dir": str(self._engine.paths.data_dir)}
            QTimer.singleShot(0, self, lambda: self.reopen_requested.emit(data_dir))
        if new.color_scheme != old.color_scheme:
            set_scheme_preference(new.color_scheme)
            apply_theme(QApplication.instance())  # widgets with custom colours follow the PaletteChange
            self.refresh_icons()
        if self._server is None or not api_settings_changed(old, new):
            return
        token = new.api_token or self._engine.api_token
        if getattr(self._server, "token", "") is None:
            token = None  # started with --no-auth: keep serving without a token
        server = self._server
        run_server_operation("restart", lambda: server.restart(host=new.api_host, port=new.api_port, token=token))

    # ---- state ---------------------------------------------------------------------------

    def _restore_state(self) -> None:
        place_window(self, self._ui_settings, "window", DEFAULT_SIZE)
        for key, splitter in self._splitters().items():
            state = self._ui_settings.value(f"splitters/{key}")
            if state is not None:
                splitter.restoreState(state)

    def save_state(self) -> None:
        remember_window(self, self._ui_settings, "window")
        for key, splitter in self._splitters().items():
            self._ui_settings.setValue(f"splitters/{key}", splitter.saveState())
        self._ui_settings.sync()

    def _splitters(self) -> dict[str, QSplitter]:
        splitters = {"users": self.users_page.splitter}
        for splitter in self.skills_page.findChildren(QSplitter):
            if splitter.objectName():
                splitters["skills/" + splitter.objectName()] = splitter
        return splitters

    def shutdown(self) -> None:
        """Stop listening to the store and the server; the controller closes the engine afterwards."""
        self.recall_build.stop()
        QApplication.instance().removeEventFilter(self._undo_router)
        self.store_signals.detach()
        self.server_state.detach()
        self.db_outage.detach()
        self.users_page.shutdown()
        self.overview_page.shutdown()
        dispose = getattr(self.api_page, "dispose", None)
        if callable(dispose):
            dispose()
        dispose = getattr(self.skills_page, "dispose", None) or getattr(self.skills_page, "shutdown", None)
        if callable(dispose):
            dispose()
        if self._unsubscribe_settings is not None:
            self._unsubscribe_settings()
            self._unsubscribe_settings = None

    def quit(self) -> bool:
        """File > Quit and the tray's Quit: close for real (not into the tray); False when cancelled."""
        self._quitting = True
        closed = self.close()
        self._quitting = False
        return closed

    def closeEvent(self, event: QCloseEvent) -> None:
        if not self._quitting and self.keeps_serving_in_tray():
            event.ignore()  # the API keeps serving; the tray icon brings the window back
            self.save_state()
            self.hide()
            self.hidden_to_tray.emit()
            return
        if self.ask_before_stopping_api and not self._may_stop_serving():
            event.ignore()
            return
        confirm_leave = getattr(self.skills_page, "confirm_leave", None)
        if callable(confirm_leave) and not confirm_leave():  # unsaved skill edits: the user cancelled
            event.ignore()
            return
        self.save_state()
        self.shutdown()
        super().closeEvent(event)
        self.closed.emit()

    def _may_stop_serving(self) -> bool:
        if self.server_state.state != "running":
            return True
        question = self.tr("The API is serving at {url}. The bot loses its memory while KiraOS Desktop is "
                           "closed.\n\nQuit anyway?").format(url=self.server_state.detail)
        return self._prompts.confirm(self, self.tr("Quit KiraOS Desktop"), question, self.tr("Quit"))


def _scrollable(page: QWidget) -> QWidget:
    """Let the window shrink below a page's minimum width (small screens): scroll instead of clipping."""
    area = QScrollArea()
    area.setObjectName("pageScroller")
    area.setWidgetResizable(True)
    area.setFrameShape(QScrollArea.Shape.NoFrame)
    area.setWidget(page)
    return area
