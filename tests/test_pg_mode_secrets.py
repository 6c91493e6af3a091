"""The memory on PostgreSQL through --database-url: the window, `serve`, `mcp` and the commands show the
redacted URL and never the password (output, logs, widgets); an unusable server is one line and exit 2."""
import json
import os
import subprocess
import sys
import time

import pytest
from PySide6.QtWidgets import QApplication, QLabel, QLineEdit

from kiraos_desktop.cli import main
from kiraos_desktop.core.storage.database_url import parse_database_url
from kiraos_desktop.core.engine import Engine
from pg_server import PASSWORD
from ui_helpers import shown_window
from cli_helpers import run

pytestmark = pytest.mark.qt_log_ignore("This plugin does not support propagateSizeHints")


def test_commands_work_on_the_server_and_never_print_the_password(capsys, data_dir, pg_url):
    ops = json.dumps({"operations": [{"op": "set", "key": "昵称", "value": "小明"}, {"op": "event", "value": "完成半马"}]})
    code, out, err = run(capsys, "call", "memory_update", "--user", "u1", "--json", ops, "--data-dir", str(data_dir),
                         "--database-url", pg_url)
    assert code == 0, err
    code, out, err = run(capsys, "context", "--user", "u1", "--data-dir", str(data_dir), "--database-url", pg_url)
    assert code == 0 and "昵称=小明" in out
    assert not (data_dir / "memory" / "kiraos.db").exists() or \
        (data_dir / "memory" / "kiraos.db").stat().st_size == 0  # nothing went into SQLite
    code, out, err = run(capsys, "backup", str(data_dir / "b.db"), "--data-dir", str(data_dir),
                         "--database-url", pg_url)
    assert code == 2 and "pg_dump" in err and PASSWORD not in err and ":***@" in err


@pytest.mark.parametrize("command", [["context", "--user", "u"], ["serve", "--port", "0"], ["mcp"], []])
@pytest.mark.parametrize("problem", ["wrong password", "unreachable", "no database"])
def test_an_unusable_server_is_one_line_and_exit_2(capsys, monkeypatch, data_dir, pg_server, command, problem):
    secret = "N0t-The-Pw-5"
    url = {"wrong password": pg_server.url("postgres", password=secret),
           "unreachable": f"postgresql://kiraos_test:{secret}@127.0.0.1:1/kd",
           "no database": pg_server.url("kd_none_such")}[problem]
    if not command:  # the window, where no display is: the same line, no dialog
        monkeypatch.setattr("kiraos_desktop.ui.app.missing_display", lambda: "no display")
    code, out, err = run(capsys, *command, "--data-dir", str(data_dir), "--database-url", url)
    assert code == 2 and out == ""
    assert len(err.strip().splitlines()) == 1, err
    assert secret not in err and PASSWORD not in err


def test_serve_banner_and_logs_show_the_redacted_url(data_dir, pg_url):
    env = dict(os.environ, KIRAOS_DATABASE_URL=pg_url)
    process = subprocess.Popen([sys.executable, "-m", "kiraos_desktop", "serve", "--port", "0", "--data-dir",
                                str(data_dir)], stderr=subprocess.PIPE, stdout=subprocess.PIPE, text=True, env=env)
    try:
        banner = process.stderr.readline()
    finally:
        process.terminate()
        rest = process.communicate(timeout=30)
    redacted = parse_database_url(pg_url).redacted()
    assert "KiraOS Desktop API on" in banner and f"memory in {redacted}" in banner
    logs = "".join(p.read_text(encoding="utf-8", errors="replace") for p in (data_dir / "logs").glob("*"))
    assert redacted in logs  # the log says which database
    assert PASSWORD not in banner + rest[0] + rest[1] + logs


def test_the_window_shows_the_redacted_url_and_never_the_password(qtbot, tmp_path, data_dir, pg_url):
    from kiraos_desktop.ui.about_dialog import AboutDialog

    engine = Engine.open(data_dir=data_dir, database_url=pg_url)
    redacted = parse_database_url(pg_url).redacted()
    try:
        with shown_window(qtbot, engine, tmp_path) as window:
            assert window.overview_page.db_label.text() == redacted
            assert redacted in window.db_status.text()
            assert not window.backup_action.isEnabled() and not window.migrate_action.isEnabled()
            about = AboutDialog(engine.paths, window, database=engine.database_label)
            qtbot.addWidget(about)
            assert about.findChild(QLabel, "database").text() == redacted
            for page in range(window.sidebar.count()):
                window.show_page(page)
                qtbot.wait(20)
            texts = [w.text() for w in QApplication.allWidgets() if isinstance(w, (QLabel, QLineEdit))]
            texts += [w.toolTip() for w in QApplication.allWidgets()]
            assert not [t for t in texts if PASSWORD in t]
    finally:
        engine.close()


def test_the_window_on_an_unreachable_server_can_go_on_with_local_data(qtbot, monkeypatch, capsys, data_dir):
    from modal_driver import ModalDriver

    import kiraos_desktop.ui.app as ui_app

    opened = []
    monkeypatch.setattr(ui_app, "run_gui", lambda engine, args: opened.append(engine.database_url) or 0)
    details = []
    driver = ModalDriver(press=("Open local data",), on_box=lambda box: details.append(box.text() + box.informativeText()))
    code = main(["--data-dir", str(data_dir), "--database-url", "postgresql://kira:Gone-Pw-3@127.0.0.1:1/memory"])
    driver.stop()
    assert code == 0 and opened == [None] and not driver.stuck
    assert len(details) == 1 and "postgresql://kira:***@127.0.0.1:1/memory" in details[0]
    assert "Cannot reach PostgreSQL" in details[0] and "Gone-Pw-3" not in details[0]
    assert "Gone-Pw-3" not in "".join(capsys.readouterr())


def test_a_new_database_url_setting_reopens_the_window_there_or_explains(qtbot, engine, tmp_path, monkeypatch,
                                                                       pg_url):
    """The setting changed in the window: the window reopens on that memory; one it cannot use is
    explained (redacted) and the window stays on the memory it has."""
    from types import SimpleNamespace

    from kiraos_desktop.ui import app as app_module
    from kiraos_desktop.ui.app import AppController
    from ui_helpers import ui_settings

    shown = []
    monkeypatch.setattr(app_module.prompts, "error", lambda parent, title, text: shown.append((title, text)))
    controller = AppController(engine, SimpleNamespace(port=0), ui_settings=ui_settings(tmp_path), start_server=False)
    window = controller.window
    # The controller owns its windows (a reopen deletes the old one): not the test's to close at teardown.
    try:
        engine.update_settings(engine.settings.replace(database_url="postgresql://kira:Away-Pw-8@127.0.0.1:1/memory"))
        qtbot.waitUntil(lambda: bool(shown), timeout=10000)
        assert controller.window is window and controller.engine is engine
        assert shown[0][0] == "Cannot open the memory database"
        assert "postgresql://kira:***@127.0.0.1:1/memory" in shown[0][1] and "Away-Pw-8" not in shown[0][1]
        engine.update_settings(engine.settings.replace(database_url=pg_url))
        qtbot.waitUntil(lambda: controller.window is not window, timeout=10000)
        assert controller.engine.database_url is not None
        assert parse_database_url(pg_url).redacted() in controller.window.db_status.text()
    finally:
        controller.window.close()
        controller.shutdown()
