"""`kiraos-desktop --kira-data DIR` on a KiraOS plugin 3.x folder: the tree window, and the API serving the
tree to bot hosts from the same process (as the main window serves a database)."""
from __future__ import annotations

import sys
import tempfile
from pathlib import Path

from kiraos_desktop.core.storage.tree import open_tree
from kiraos_desktop.ui.app import ensure_application, missing_display, use_offscreen_platform
from kiraos_desktop.ui.i18n import apply_language
from kiraos_desktop.ui.theme import apply_theme


def run_tree_gui(args, language: str) -> int:
    """Show the tree of args.kira_data until the window is closed; with --screenshot DIR, save it as
    entities.png there (at --screenshot-size) instead."""
    screenshot_dir = getattr(args, "screenshot", None)
    problem = None if screenshot_dir else missing_display()
    if problem:
        print(f"kiraos-desktop: error: {problem}", file=sys.stderr)
        return 2
    tree = open_tree(args.kira_data)
    folder = str(Path(args.kira_data).expanduser().resolve())
    with tempfile.TemporaryDirectory(prefix="kiraos-tree-") as scratch:
        if screenshot_dir:
            use_offscreen_platform(Path(scratch))
        app = ensure_application()
        apply_theme(app)
        apply_language(language)
        from kiraos_desktop.ui.entities.window import TreeWindow

        window = TreeWindow(tree, folder)
        if screenshot_dir:
            return _screenshot(app, window, Path(screenshot_dir), getattr(args, "screenshot_size", None))
        engine, server = serve_tree(window, folder, args)
        window.resize(1280, 800)
        window.show()
        try:
            return app.exec()
        finally:
            if server is not None:
                server.stop()
            if engine is not None:
                engine.close()


def serve_tree(window, folder: str, args):
    """(engine, server) serving the tree to bot hosts, started on a task thread; the window says where,
    or why not (the window still opens: a port in use or bad options only cost the API)."""
    from kiraos_desktop.core.engine import Engine
    from kiraos_desktop.core.memory.records import StoreError
    from kiraos_desktop.ui.app import create_server
    from kiraos_desktop.ui.server_state import run_server_operation

    try:
        engine = Engine.open(kira_data=folder)
    except (StoreError, OSError, ValueError) as exc:
        window.show_api_state("", str(exc))
        return None, None
    server, error = create_server(engine, args)
    if server is None:
        window.show_api_state("", error)
        return engine, None
    runner = run_server_operation("start", server.start, lambda message: window.show_api_state("", message))
    runner.succeeded.connect(lambda _result: window.show_api_state(server.url, ""))
    return engine, server


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
