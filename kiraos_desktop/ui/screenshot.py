"""`--screenshot DIR`: render every page of the window offscreen to PNG files (1280x800 unless told), then exit."""
from __future__ import annotations

import sys
import time
from pathlib import Path

from PySide6.QtCore import QCoreApplication, QEventLoop, QTimer, qInstallMessageHandler
from PySide6.QtWidgets import QApplication, QWidget

SIZE = (1280, 800)


def settle(app: QApplication, ms: int = 150) -> None:
    """Let layouts, queued signals and short timers (coalescing, debouncing) run for `ms`."""
    loop = QEventLoop()
    QTimer.singleShot(ms, loop.quit)
    loop.exec()
    app.sendPostedEvents()
    loop.processEvents()


def _save(widget: QWidget, folder: Path, name: str, written: list[str]) -> None:
    path = folder / f"{name}.png"
    if not widget.grab().save(str(path), "PNG"):
        raise OSError(f"could not write {path}")
    written.append(path.name)


def _wait_for_server(app: QApplication, window, timeout_s: float = 5.0) -> None:
    deadline = time.monotonic() + timeout_s
    while window.server_state.state in ("starting", "stopped") and time.monotonic() < deadline:
        if window.server_state.state == "stopped" and getattr(window, "_server", None) is None:
            break
        settle(app, 50)


def _drop_offscreen_note(previous):
    def handler(kind, context, message: str) -> None:
        if "does not support propagateSizeHints" in message:
            return  # the offscreen platform says this for every window; it is not a problem
        if previous is not None:
            previous(kind, context, message)
        elif sys.stderr is not None:
            print(message, file=sys.stderr)

    return handler


def take_screenshots(app: QApplication, controller, directory: str, size: tuple[int, int] = SIZE) -> int:
    previous = qInstallMessageHandler(None)
    qInstallMessageHandler(_drop_offscreen_note(previous))
    try:
        return _take_screenshots(app, controller, directory, size)
    finally:
        qInstallMessageHandler(previous)


def _take_screenshots(app: QApplication, controller, directory: str, size: tuple[int, int]) -> int:
    from kiraos_desktop.ui.main_window import PAGE_API, PAGE_OVERVIEW, PAGE_SKILLS, PAGE_USERS
    from kiraos_desktop.ui.users.user_detail import TAB_CONTEXT, TAB_EVENTS, TAB_HISTORY, TAB_PROFILE

    folder = Path(directory).expanduser()
    try:
        folder.mkdir(parents=True, exist_ok=True)
    except OSError as exc:
        print(f"kiraos-desktop: error: cannot create {folder}: {exc}", file=sys.stderr)
        return 2
    window = controller.window
    window.resize(*size)
    window.show()
    settle(app, 300)
    _wait_for_server(app, window)
    written: list[str] = []

    window.show_page(PAGE_OVERVIEW)
    settle(app)
    _save(window, folder, "01-overview", written)

    window.show_page(PAGE_USERS)
    settle(app)
    users = window.users_page
    users.select_first_user()
    for number, (tab, name) in enumerate(((TAB_PROFILE, "profile"), (TAB_EVENTS, "events"),
                                          (TAB_CONTEXT, "context"), (TAB_HISTORY, "history")), start=2):
        users.detail.tabs.setCurrentIndex(tab)
        settle(app)
        _save(window, folder, f"{number:02d}-users-{name}", written)
    users.detail.tabs.setCurrentIndex(TAB_PROFILE)

    window.show_page(PAGE_SKILLS)
    prepare = getattr(window.skills_page, "open_first_skill_with_sample_arguments", None)
    if callable(prepare):
        prepare()
    settle(app, 400)
    _save(window, folder, "06-skills", written)

    window.show_page(PAGE_API)
    settle(app, 300)
    _save(window, folder, "07-api", written)

    try:
        from kiraos_desktop.ui.settings_dialog import SettingsDialog
    except ImportError:
        SettingsDialog = None
    if SettingsDialog is not None:
        dialog = SettingsDialog(controller.engine, window)
        dialog.show()
        settle(app, 200)
        _save(dialog, folder, "08-settings", written)
        dialog.reject()
        dialog.deleteLater()
    try:
        from kiraos_desktop.ui.about_dialog import AboutDialog
    except ImportError:
        AboutDialog = None
    if AboutDialog is not None:
        about = AboutDialog(controller.engine.paths, window, database=controller.engine.database_label)
        about.show()
        settle(app, 200)
        _save(about, folder, "09-about", written)
        about.reject()
        about.deleteLater()
    try:
        from kiraos_desktop.ui.help_dialog import HelpDialog
    except ImportError:
        HelpDialog = None
    if HelpDialog is not None:
        guide = HelpDialog(window)
        guide.show()
        settle(app, 200)
        _save(guide, folder, "10-guide", written)
        guide.close()
        guide.deleteLater()
    window.show_page(PAGE_OVERVIEW)
    window.close()
    settle(app, 50)
    print(QCoreApplication.translate("Screenshot", "wrote {n} screenshots to {folder}: {names}").format(
        n=len(written), folder=folder, names=", ".join(written)))
    return 0
