"""`kiraos-desktop --kira-data DIR` on a KiraOS plugin 3.x folder: the tree window, and the API serving the
tree to bot hosts from the same process (as the main window serves a database)."""
from __future__ import annotations

import tempfile
from pathlib import Path

from kiraos_desktop.ui.entities.window import TreeWindow, tree_folder
from kiraos_desktop.ui.i18n import apply_language
from kiraos_desktop.ui.launch import create_server, ensure_application, use_offscreen_platform
from kiraos_desktop.ui.theme import apply_theme


def run_tree_gui(engine, args) -> int:
    """The window on the engine's 3.x tree, with the API serving it, until the window is closed; with
    --screenshot DIR, save it as entities.png there (at --screenshot-size) instead."""
    screenshot_dir = getattr(args, "screenshot", None)
    folder = tree_folder(engine)
    with tempfile.TemporaryDirectory(prefix="kiraos-tree-") as scratch:
        if screenshot_dir:
            use_offscreen_platform(Path(scratch))
        app = ensure_application()
        apply_theme(app)
        apply_language(getattr(args, "language", None) or engine.settings.language)
        window = TreeWindow(engine.store.entity_tree, folder)
        if screenshot_dir:
            return _screenshot(app, window, Path(screenshot_dir), getattr(args, "screenshot_size", None))
        server = serve_tree(window, engine, args)
        window.show()
        try:
            return app.exec()
        finally:
            if server is not None:
                server.stop()


def serve_tree(window, engine, args):
    """The server giving the engine's tree to bot hosts (None when the options are bad), started on a
    task thread; the window says where, or why not (it opens all the same)."""
    from kiraos_desktop.ui.server_state import run_server_operation

    server, error = create_server(engine, args)
    if server is None:
        window.show_api_state("", error)
        return None
    runner = run_server_operation("start", server.start, lambda message: window.show_api_state("", message))
    runner.succeeded.connect(lambda _result: window.show_api_state(server.url, ""))
    return server


def _screenshot(app, window, folder: Path, size) -> int:
    from PySide6.QtCore import QEventLoop, QTimer

    width, height = size or (1280, 800)
    window.resize(width, height)
    window.show()
    loop = QEventLoop()
    window.page.listed.connect(loop.quit)
    QTimer.singleShot(30000, loop.quit)
    loop.exec()
    if window.page.proxy.rowCount():
        window.page.view.selectRow(0)
    app.processEvents()
    folder.mkdir(parents=True, exist_ok=True)
    window.grab().save(str(folder / "entities.png"))
    print(folder / "entities.png")
    return 0
