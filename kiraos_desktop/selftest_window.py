"""The self-test's Qt part: opens the main window and the About dialog offscreen, visits every page, closes."""
from __future__ import annotations

import importlib.util
import sys
import time
from pathlib import Path

#: Modules the window replaces by a placeholder page when they cannot be imported.
OPTIONAL_PAGES = {"Skills": "kiraos_desktop.ui.skills.page", "API": "kiraos_desktop.ui.api_page"}


class WindowCheckFailed(Exception):
    """The window or the About dialog is not what it should be (the self-test reports it as its step's
    failure; this module does not import the self-test, so the two form no import cycle)."""


def _settle(app, seconds: float = 0.2) -> None:
    """Run the event loop a moment: queued signals, lazy model fetches and first paints happen."""
    deadline = time.monotonic() + seconds
    while time.monotonic() < deadline:
        app.processEvents()
        time.sleep(0.01)


def _quiet_offscreen_notes(previous):
    """A Qt message handler that drops the offscreen platform's known note and passes the rest on."""
    def handler(kind, context, message: str) -> None:
        if "does not support propagateSizeHints" in message:
            return
        if previous is not None:
            previous(kind, context, message)
        elif sys.stderr is not None:
            print(message, file=sys.stderr)

    return handler


def _placeholders(window) -> list[str]:
    from PySide6.QtWidgets import QLabel, QWidget

    titles = []
    for page in window.findChildren(QWidget, "placeholderPage"):
        labels = page.findChildren(QLabel)
        titles.append(labels[0].text() if labels else "?")
    return titles


def _check_placeholders(window) -> list[str]:
    """A page module that exists but failed to import is an error; one absent from this build is noted."""
    absent = []
    for title in _placeholders(window):
        module = OPTIONAL_PAGES.get(title)
        if module is None or importlib.util.find_spec(module) is not None:
            detail = ""
            if module is not None:
                try:
                    importlib.import_module(module)
                except Exception as exc:  # the reason the window fell back to a placeholder
                    detail = f": {type(exc).__name__}: {exc}"
            raise WindowCheckFailed(f"the {title} page shows a placeholder{detail}")
        absent.append(title)
    return absent


def _check_about(engine, window, app) -> int:
    """The About dialog opens, and every bundled component's version and license come from its metadata."""
    from kiraos_desktop.ui.about_dialog import AboutDialog, bundled_licenses

    dialog = AboutDialog(engine.paths, window)
    dialog.show()
    _settle(app, 0.05)
    rows = dialog.license_model.rowCount()
    dialog.close()
    dialog.deleteLater()
    unverified = [info.component for info in bundled_licenses()
                  if not info.verified and not (info.component == "uvloop" and sys.platform == "win32")]
    if unverified:
        raise WindowCheckFailed(f"About dialog: no metadata (version, license) for {', '.join(unverified)}")
    return rows


def _check_chinese(window, app) -> None:
    """The Chinese catalogue and Qt's own (standard buttons) load and retitle the open window."""
    from PySide6.QtWidgets import QDialogButtonBox

    from kiraos_desktop.ui.i18n import apply_language, language_manager

    previous = language_manager().language
    try:
        if apply_language("zh_CN") != "zh_CN":
            raise WindowCheckFailed("the Chinese translation could not be chosen")
        _settle(app, 0.05)
        if window.help_menu.title() != "帮助(&H)":
            raise WindowCheckFailed(f"the Chinese catalogue did not load: Help menu reads {window.help_menu.title()!r}")
        box = QDialogButtonBox(QDialogButtonBox.StandardButton.Ok)
        ok = box.button(QDialogButtonBox.StandardButton.Ok).text()
        box.deleteLater()
        if ok != "确定":
            raise WindowCheckFailed(f"Qt's Chinese catalogue (qtbase_zh_CN.qm) did not load: OK reads {ok!r}")
    finally:
        apply_language(previous)
        _settle(app, 0.05)


def open_and_close_window(engine, server, root: Path) -> str:
    """Build the window as `run_gui` does (with `server` already running), show it, close it."""
    from PySide6.QtCore import qInstallMessageHandler

    previous = qInstallMessageHandler(None)
    qInstallMessageHandler(_quiet_offscreen_notes(previous))
    try:
        return _show_and_close(engine, server, root)
    finally:
        qInstallMessageHandler(previous)


def _show_and_close(engine, server, root: Path) -> str:
    from PySide6.QtCore import QSettings
    from PySide6.QtGui import QGuiApplication

    from kiraos_desktop.ui.launch import ensure_application
    from kiraos_desktop.ui.main_window import MainWindow
    from kiraos_desktop.ui.prompts import prompts
    from kiraos_desktop.ui.theme import app_icon, apply_theme

    app = ensure_application()
    if QGuiApplication.platformName() != "offscreen":
        raise WindowCheckFailed(f"Qt platform is {QGuiApplication.platformName()!r}, not offscreen")
    apply_theme(app)
    if app_icon().pixmap(32, 32).isNull():
        raise WindowCheckFailed("the application icon does not render")
    # Window geometry goes to a scratch file, never to the user's settings.
    ui_settings = QSettings(str(root / "ui.ini"), QSettings.Format.IniFormat)
    window = MainWindow(engine, server, ui_settings, prompts)
    try:
        window.show()
        _settle(app)
        absent = _check_placeholders(window)
        pages = window.stack.count()
        for page in range(pages):
            window.show_page(page)
            _settle(app, 0.05)
            if window.current_page() != page:
                raise WindowCheckFailed(f"page {page} could not be shown")
        components = _check_about(engine, window, app)
        _check_chinese(window, app)
    finally:
        window.close()
        _settle(app, 0.05)
    if window.isVisible():
        raise WindowCheckFailed("the window refused to close")
    window.deleteLater()
    _settle(app, 0.05)
    note = f"; not in this build: {', '.join(absent)}" if absent else ""
    return f"{pages} pages, About with {components} components{note}"
