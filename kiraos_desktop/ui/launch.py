"""Starting Qt for a window: the application object, the offscreen screen of screenshots, the API server
beside a window (shared by the main window, ui/app.py, and the 3.x tree's, ui/entities/app.py)."""
from __future__ import annotations

import json
import os
import sys
from pathlib import Path

from PySide6.QtCore import Qt
from PySide6.QtWidgets import QApplication

from kiraos_desktop import __version__
from kiraos_desktop.ui.theme import app_icon

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
        if getattr(args, "screenshot", None) and getattr(args, "port", None) is None:
            port = 0  # screenshots serve on a free port: a running instance keeps its own
        return ApiServer(engine, host, port, token), ""
    except ValueError as exc:
        return None, str(exc)


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
