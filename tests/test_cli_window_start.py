"""The window's start when its data cannot be opened: a box says why (a windowed build has no console
for the line on stderr), and the program exits 2 without a window. Real boxes, through the event loop."""
import json
import sqlite3

import pytest

from kiraos_desktop.cli import main
from kiraos_desktop.core.engine import Engine


@pytest.fixture(autouse=True)
def _language_restored(qapp):
    """The box sets the window's language on the application: later tests must start without it."""
    from kiraos_desktop.ui.i18n import language_manager

    yield
    manager = language_manager()
    if manager is not None:
        manager.clear()


def _no_window(monkeypatch) -> list:
    import kiraos_desktop.ui.app as ui_app

    opened = []
    monkeypatch.setattr(ui_app, "run_gui", lambda engine, args: opened.append(engine) or 0)
    return opened


@pytest.mark.qt_log_ignore("This plugin does not support propagateSizeHints")
def test_a_settings_file_it_cannot_read_is_said_in_a_box(qtbot, capsys, monkeypatch, data_dir):
    from modal_driver import ModalDriver

    opened = _no_window(monkeypatch)
    (data_dir / "settings.json").write_text(json.dumps({"max_event_keep": "many"}), encoding="utf-8")
    details = []
    driver = ModalDriver(on_box=lambda box: details.append((box.objectName(), box.informativeText())))
    code = main(["--data-dir", str(data_dir), "--language", "en"])
    driver.stop()
    assert code == 2 and not driver.stuck and opened == []
    assert driver.boxes == ["KiraOS Desktop cannot open its data."]
    assert len(details) == 1 and details[0][0] == "startupErrorBox"
    assert "max_event_keep" in details[0][1] and str(data_dir) in details[0][1]
    assert "max_event_keep" in capsys.readouterr().err  # the line on stderr stays


@pytest.mark.qt_log_ignore("This plugin does not support propagateSizeHints")
def test_a_database_of_a_newer_version_is_said_in_a_box_in_the_chosen_language(qtbot, capsys, monkeypatch,
                                                                                data_dir):
    from modal_driver import ModalDriver

    engine = Engine.open(data_dir=data_dir, install_examples=False)
    path = engine.paths.db_path
    engine.close()
    conn = sqlite3.connect(path)
    conn.execute("UPDATE kiraos_desktop_meta SET value = '99' WHERE key = 'schema_version'")
    conn.commit()
    conn.close()
    opened = _no_window(monkeypatch)
    details = []
    driver = ModalDriver(on_box=lambda box: details.append(box.informativeText()))
    code = main(["--data-dir", str(data_dir), "--language", "zh_CN"])
    driver.stop()
    assert code == 2 and not driver.stuck and opened == []
    assert driver.boxes == ["KiraOS Desktop 无法打开它的数据。"]
    assert "schema version 99" in details[0]
    assert "schema version 99" in capsys.readouterr().err


def test_commands_without_a_window_show_no_box(capsys, monkeypatch, data_dir):
    """serve, mcp and the one-shot commands keep the one line on stderr (no box waits for a click)."""
    import kiraos_desktop.ui.startup_error as startup_error

    shown = []
    monkeypatch.setattr(startup_error, "tell_cannot_start", lambda *a, **k: shown.append(a))
    (data_dir / "settings.json").write_text("{not json", encoding="utf-8")
    assert main(["--data-dir", str(data_dir), "context", "--user", "u"]) == 2
    assert "settings.json" in capsys.readouterr().err and shown == []
