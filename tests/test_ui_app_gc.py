"""The running app keeps what exists once its window is up out of the collector's full passes."""
from __future__ import annotations

import gc
import inspect

from kiraos_desktop.ui import app as app_module


def test_startup_objects_are_frozen_once_the_window_is_shown():
    before = gc.get_freeze_count()
    try:
        app_module.keep_startup_objects()
        assert gc.get_freeze_count() > before
    finally:
        gc.unfreeze()
    launcher = inspect.getsource(app_module.run_gui)
    assert launcher.index("keep_startup_objects()") > launcher.index("controller.window.show()")
