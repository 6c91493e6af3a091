"""GUI entry point: the QApplication, the API server beside the window, and reopening on other data."""
from __future__ import annotations

import json
import logging
import os
import sys
import tempfile
import threading
from pathlib import Path

from PySide6.QtCore import QObject, QSettings, Qt, Signal
from PySide6.QtWidgets import QApplication

from kiraos_desktop import __version__
from kiraos_desktop.core.app_log import configure_logging
from kiraos_desktop.ui.i18n import apply_language
from kiraos_desktop.ui.interrupt import close_on_interrupt
from kiraos_desktop.ui.prompts import prompts
from kiraos_desktop.ui.theme import ThemeWatcher, app_icon, apply_theme

log = logging.getLogger(__name__)
ORGANIZATION = "KiraOS"
APPLICATION = "KiraOS Desktop"


def ensure_application() -> QApplication:
    app = QApplication.instance()
    if app is None:
        QApplication.setHighDpiScaleFactorRoundingPolicy(Qt.HighDpiScaleFactorRoundingPolicy.PassThrough)
        app = QApplication(sys.argv[:1])
    app.setOrganizationName(ORGANIZATION)
    app.setApplicationName(APPLICATION)
    app.setApplicationVersion(__version__)
    app.setWindowIcon(app_icon())
    return app


def create_server(engine, args):
    """(server or None, error text). Bad options are reported, never fatal: the window still opens."""
    from kiraos_desktop.api.server import ApiServer, resolve_server_options

    try:
        host, port, token = resolve_server_options(engine, args)
        return ApiServer(engine, host, port, token), ""
    except ValueError as exc:
        return None, str(exc)


def start_server_in_background(server) -> threading.Thread:
    """Bind and serve without holding up the window; failures arrive through the state listener."""
    def run() -> None:
        try:
            server.start()
        except Exception as exc:  # ApiStartError (port busy…) is shown in the status bar and API page
            log.warning("the API server did not start: %s", exc)

    thread = threading.Thread(target=run, name="kiraos-api-start", daemon=True)
    thread.start()
    return thread


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
        self._open_window()

    def _open_window(self) -> None:
        from kiraos_desktop.ui.main_window import MainWindow

        self.server, error = create_server(self.engine, self.args)
        window = MainWindow(self.engine, self.server, self._ui_settings, prompts, server_error=error)
        window.reopen_requested.connect(self._on_window_reopen_requested)
        self.window = window
        self.engine.start_watching(build_recall=False)  # the window builds the recall index, with progress
        if self.server is not None and self._start_server:
            start_server_in_background(self.server)

    def _on_theme_changed(self, _dark: bool) -> None:
        if self.window is not None:
            self.window.refresh_icons()

    def _on_window_reopen_requested(self, choice: dict) -> None:
        self.reopen(**choice)

    def reopen(self, data_dir: str | None = None, kira_data: str | None = None) -> bool:
        """Open another data folder (or a KiraOS plugin's data) in place of the current one."""
        from kiraos_desktop.core.engine import Engine
        from kiraos_desktop.core.records import StoreError
        from kiraos_desktop.core.settings import SettingsError

        # --kira-data semantics: the plugin's db and skills; our settings and token in the default data
        # folder (or $KIRAOS_DATA_DIR), exactly as `kiraos-desktop --kira-data D` would start.
        try:
            new_engine = Engine.open(data_dir=data_dir, kira_data=kira_data)
        except (SettingsError, StoreError, ValueError, OSError) as exc:  # StoreError: e.g. a newer schema
            prompts.error(self.window, self.tr("Cannot open that folder"), str(exc))
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


OFFSCREEN_SCREEN = {"synchronousWindowSystemEvents": False, "windowFrameMargins": False,
                    "screens": [{"name": "screenshot", "x": 0, "y": 0, "width": 1920, "height": 1200,
                                 "logicalDpiX": 96, "logicalDpiY": 96, "dpr": 1}]}


def use_offscreen_platform(scratch: Path) -> None:
    """Screenshots render offscreen on a screen large enough for 1280x800 and for every dialog.

    The offscreen platform's default screen is 800x600, which would squeeze dialogs to fit.
    """
    if QApplication.instance() is not None:
        return  # too late to choose the platform (tests, an embedding program): use the one running
    config = scratch / "offscreen.json"
    config.write_text(json.dumps(OFFSCREEN_SCREEN), encoding="utf-8")
    os.environ["QT_QPA_PLATFORM"] = f"offscreen:configfile={config}"


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
    if screenshot_dir:
        with tempfile.TemporaryDirectory(prefix="kiraos-shots-") as scratch:
            use_offscreen_platform(Path(scratch))
            app = ensure_application()
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
    app = ensure_application()
    apply_theme(app)
    apply_language(getattr(args, "language", None) or engine.settings.language)
    watcher = ThemeWatcher(app)
    controller = AppController(engine, args)
    watcher.changed.connect(controller._on_theme_changed)
    controller.window.show()
    restore_interrupt = close_on_interrupt(controller.window, app)
    try:
        return app.exec()
    finally:
        restore_interrupt()
        controller.shutdown()
