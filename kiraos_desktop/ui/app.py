"""GUI entry point: the QApplication, the API server beside the window, and reopening on other data."""
from __future__ import annotations

import gc
import logging
import os
import sys
import tempfile
from pathlib import Path

from PySide6.QtCore import QObject, QSettings, Qt, Signal
from PySide6.QtWidgets import QApplication

from kiraos_desktop.core.app_log import configure_logging
from kiraos_desktop.ui.i18n import apply_language
from kiraos_desktop.ui.launch import create_server, ensure_application, use_offscreen_platform
from kiraos_desktop.ui.interrupt import close_on_interrupt
from kiraos_desktop.ui.prompts import prompts
from kiraos_desktop.ui.server_state import run_server_operation
from kiraos_desktop.ui.single_instance import SingleInstance, instance_key
from kiraos_desktop.ui.theme import ThemeWatcher, apply_theme, set_scheme_preference

log = logging.getLogger(__name__)


def keep_startup_objects() -> None:
    """What exists once the window is up (modules, the engine, the window) lives as long as the app: it
    is kept out of the collector's full passes. Each of those holds every thread, the GUI thread
    included, for its whole length: 120-175 ms over the ~140k objects of a window on 100k users
    while the API takes 500 writes/s (the window's longest stalls); after this they scan only what
    came later."""
    gc.freeze()


class AppController(QObject):
    """Owns the engine, the API server and the window; can reopen everything on another data folder."""

    reopened = Signal()

    def __init__(self, engine, args, ui_settings: QSettings | None = None, start_server: bool = True) -> None:
        super().__init__()
        self.engine = engine
        self.args = args
        self._ui_settings = ui_settings
        self._start_server = start_server
        self._owned_engines: list = []  # engines opened here (the CLI closes the first one)
        self.server = None
        self.window = None
        self.tray = None
        self.instance: SingleInstance | None = None
        self._desktop = False
        self._open_window()

    def _open_window(self) -> None:
        from kiraos_desktop.ui.main_window import MainWindow

        self.server, error = create_server(self.engine, self.args)
        window = MainWindow(self.engine, self.server, self._ui_settings, prompts, server_error=error)
        window.reopen_requested.connect(self._on_window_reopen_requested)
        self.window = window
        if self._desktop:
            self._wire_window(window)
        self.engine.start_watching(build_recall=False)  # the window builds the recall index, with progress
        if self.server is not None and self._start_server:
            run_server_operation("start", self.server.start)

    def use_desktop_close(self) -> None:
        """The running app (not screenshots or the self-test): where a system tray exists, closing
        the window keeps the API serving in it; where none exists, closing asks while the API serves."""
        from kiraos_desktop.ui.tray import Tray, tray_available

        self._desktop = True
        if tray_available():
            self.tray = Tray(self._ui_settings if self._ui_settings is not None else QSettings(), self)
            self.tray.show_requested.connect(self._on_tray_show_requested)
            self.tray.quit_requested.connect(self._on_tray_quit_requested)
            QApplication.instance().setQuitOnLastWindowClosed(False)  # the tray keeps the app running
        self._wire_window(self.window)

    def serve_instance(self, instance: SingleInstance) -> None:
        """Answer later launches on this data folder (and on the folder opened instead, after a reopen)."""
        self.instance = instance
        if not instance.listen():
            log.warning("cannot listen on the local socket %s: a second launch opens a second window", instance.key)
        instance.activated.connect(self._on_tray_show_requested)

    def _follow_instance_key(self) -> None:
        instance = self.instance
        if instance is None or instance.key == instance_key(self.engine.paths):
            return
        instance.close()
        instance.key = instance_key(self.engine.paths)
        if not instance.listen():
            log.warning("cannot listen on the local socket %s: a second launch opens a second window", instance.key)

    def _wire_window(self, window) -> None:
        window.ask_before_stopping_api = True
        window.keeps_serving_in_tray = self._keeps_serving_in_tray
        window.hidden_to_tray.connect(self._on_window_hidden_to_tray)
        window.closed.connect(self._on_window_closed)
        window.server_state.state_changed.connect(self._on_window_server_state_changed)
        window.retranslated.connect(self._on_window_retranslated)
        self._on_window_server_state_changed()

    def _on_window_retranslated(self) -> None:
        """The tray is no widget: Qt sends it no LanguageChange; it follows the window."""
        if self.tray is not None:
            self.tray.retranslate()
        self._on_window_server_state_changed()

    def _keeps_serving_in_tray(self) -> bool:
        return self.tray is not None and self.engine.settings.close_to_tray

    def _on_window_server_state_changed(self, *_args) -> None:
        if self.tray is not None and self.window is not None:
            state = self.window.server_state
            token = (getattr(self.server, "token", None) or "") if state.state == "running" else ""
            self.tray.set_status(state.text(), token)

    def _on_window_hidden_to_tray(self) -> None:
        if self.tray is not None:
            self.tray.notice_once()

    def _on_tray_show_requested(self) -> None:
        window = self.window
        window.show()
        window.setWindowState(window.windowState() & ~Qt.WindowState.WindowMinimized)
        window.raise_()
        window.activateWindow()

    def _on_tray_quit_requested(self) -> None:
        self.window.quit()

    def _on_window_closed(self) -> None:
        if self.tray is not None:  # the app no longer quits by itself when its last window closes
            self.tray.dispose()
            QApplication.instance().quit()

    def _on_theme_changed(self, _dark: bool) -> None:
        if self.window is not None:
            self.window.refresh_icons()

    def _on_window_reopen_requested(self, choice: dict) -> None:
        self.reopen(**choice)

    def reopen(self, data_dir: str | None = None, kira_data: str | None = None) -> bool:
        """Open another data folder (or a KiraOS plugin's data) in place of the current one; True when
        it did. A KiraOS 3.x tree opens in a window of its own beside this one (False: this one stays)."""
        from kiraos_desktop.core.engine import Engine
        from kiraos_desktop.core.memory.records import StoreError
        from kiraos_desktop.core.settings import SettingsError

        # --kira-data semantics: the plugin's db and skills; our settings and token in the default data
        # folder (or $KIRAOS_DATA_DIR), exactly as `kiraos-desktop --kira-data D` would start.
        try:
            new_engine = Engine.open(data_dir=data_dir, kira_data=kira_data)
        except (SettingsError, StoreError, ValueError, OSError) as exc:  # StoreError: e.g. a newer schema
            database = getattr(exc, "database_label", None)  # a PostgreSQL database that cannot be used
            title = self.tr("Cannot open the memory database") if database else self.tr("Cannot open that folder")
            text = "{0}\n\n{1}".format(database, exc) if database else str(exc)
            prompts.error(self.window, title, text)
            return False
        if new_engine.store.entity_tree is not None:  # a 3.x tree: its own window beside, this one stays
            from kiraos_desktop.ui.entities.window import open_tree_window

            open_tree_window(new_engine)
            return False
        old_window, old_server, old_engine = self.window, self.server, self.engine
        geometry_visible = old_window.isVisible()
        old_window.save_state()
        old_window.shutdown()
        if old_server is not None:
            old_server.stop()
        old_window.hide()
        old_window.deleteLater()
        if old_engine in self._owned_engines:
            old_engine.close()
            self._owned_engines.remove(old_engine)
        else:
            old_engine.close()  # the CLI's engine: closing twice is harmless
        self.engine = new_engine
        self._owned_engines.append(new_engine)
        # --db/--skills-dir/--host/--port of the first start do not carry over to another folder.
        for name in ("db", "skills_dir", "data_dir", "kira_data"):
            if hasattr(self.args, name):
                setattr(self.args, name, None)
        self._open_window()
        if geometry_visible:
            self.window.show()
        self._follow_instance_key()
        self.reopened.emit()
        return True

    def shutdown(self) -> None:
        if self.window is not None:
            self.window.shutdown()
        if self.server is not None:
            self.server.stop()
        for engine in self._owned_engines:
            engine.close()
        self._owned_engines.clear()


def missing_display() -> str | None:
    """Why no window can be shown here, else None. On Linux without X11 or Wayland, Qt would abort
    with a message about platform plugins that does not say what to do."""
    if not sys.platform.startswith("linux") or os.environ.get("QT_QPA_PLATFORM"):
        return None
    if os.environ.get("DISPLAY") or os.environ.get("WAYLAND_DISPLAY"):
        return None
    return ("there is no display to show the window on (neither DISPLAY nor WAYLAND_DISPLAY is set). "
            "Start it in a desktop session, use `kiraos-desktop serve` for the API alone, or set "
            "QT_QPA_PLATFORM=offscreen to run it without a screen.")


def run_gui(engine, args) -> int:
    """`kiraos-desktop` without a subcommand: the window, with the API served in this process."""
    screenshot_dir = getattr(args, "screenshot", None)
    problem = None if screenshot_dir else missing_display()
    if problem:
        print(f"kiraos-desktop: error: {problem}", file=sys.stderr)
        return 2
    if engine.store.entity_tree is not None:  # a KiraOS 3.x tree of entities: the window made for it
        from kiraos_desktop.ui.entities.app import run_tree_gui

        return run_tree_gui(engine, args)
    if screenshot_dir:
        with tempfile.TemporaryDirectory(prefix="kiraos-shots-") as scratch:
            use_offscreen_platform(Path(scratch))
            app = ensure_application()
            set_scheme_preference(engine.settings.color_scheme)
            apply_theme(app)
            apply_language(getattr(args, "language", None) or engine.settings.language)
            from kiraos_desktop.ui.screenshot import SIZE as SCREENSHOT_SIZE, take_screenshots

            # Fixed size, nothing remembered: the user's window geometry is neither read nor changed.
            ui_settings = QSettings(str(Path(scratch) / "ui.ini"), QSettings.Format.IniFormat)
            controller = AppController(engine, args, ui_settings=ui_settings)
            try:
                return take_screenshots(app, controller, screenshot_dir,
                                        getattr(args, "screenshot_size", None) or SCREENSHOT_SIZE)
            finally:
                controller.shutdown()
    # The window's errors (API, background tasks, uncaught exceptions) go to the data dir's logs folder:
    # a windowed build has no console to print them on.
    configure_logging(engine.paths.logs_dir)
    log.info("memory in %s", engine.database_label)  # a server's URL without its password
    app = ensure_application()
    # One window per data folder: a second launch brings the first forward and exits 0 (before it
    # starts an API server that would only find the port busy).
    instance = SingleInstance(instance_key(engine.paths))
    if instance.hand_over():
        print(f"kiraos-desktop: already open on {engine.paths.data_dir}; brought that window forward")
        return 0
    set_scheme_preference(engine.settings.color_scheme)
    apply_theme(app)
    apply_language(getattr(args, "language", None) or engine.settings.language)
    watcher = ThemeWatcher(app)
    controller = AppController(engine, args)
    controller.use_desktop_close()
    controller.serve_instance(instance)
    watcher.changed.connect(controller._on_theme_changed)
    controller.window.show()
    keep_startup_objects()
    restore_interrupt = close_on_interrupt(controller.window, app)
    try:
        return app.exec()
    finally:
        restore_interrupt()
        controller.shutdown()
