"""Main window: pages, menus, status bar, API failures, remembered geometry, reopen, --screenshot."""
from __future__ import annotations

import socket
import struct
from types import SimpleNamespace

import pytest
from PySide6.QtWidgets import QLabel

from kiraos_desktop.core.engine import Engine

from kiraos_desktop.ui.app import AppController
from kiraos_desktop.ui.main_window import PAGE_API, PAGE_OVERVIEW, PAGE_SKILLS, PAGE_USERS, MainWindow
from kiraos_desktop.ui.screenshot import take_screenshots
from ui_helpers import (OFFSCREEN_NOTE, ScriptedPrompts, open_engine, seed, shown_window, snapshot,
                             ui_settings)

pytestmark = pytest.mark.qt_log_ignore(OFFSCREEN_NOTE)


@pytest.fixture
def engine(engine):
    seed(engine, users=3)
    return engine


@pytest.fixture
def window(qtbot, engine, tmp_path):
    with shown_window(qtbot, engine, tmp_path, ScriptedPrompts()) as window:
        yield window


def test_sidebar_pages_and_status_bar(qtbot, window, engine):
    assert [window.sidebar.item(i).text() for i in range(window.sidebar.count())] == \
        ["Overview", "Users", "Skills", "API"]
    for page in (PAGE_USERS, PAGE_SKILLS, PAGE_API, PAGE_OVERVIEW):
        window.show_page(page)
        assert window.current_page() == page
    assert str(engine.paths.db_path) in window.db_status.text()
    qtbot.waitUntil(lambda: window.overview_page.users_card.value_label.text() == "3")
    assert window.overview_page.profiles_card.value_label.text() == "12"
    menus = [action.text() for action in window.menuBar().actions()]
    assert menus == ["&File", "&Edit", "&Help"]
    assert window.undo_action.shortcut().toString() == "Ctrl+Z"
    assert window.redo_action.shortcut().toString() == "Ctrl+Shift+Z"


def test_overview_feed_follows_changes(qtbot, window, engine):
    window.show_page(PAGE_OVERVIEW)
    engine.store.set_profile("u2", "城市", "重庆", actor="api")
    model = window.overview_page.feed_model
    qtbot.waitUntil(lambda: model.rowCount() and model.index(0, 2).data() == "u2", timeout=3000)
    assert model.index(0, 1).data() == "API" and "重庆" in model.index(0, 3).data()


def test_edit_menu_undo_and_redo(qtbot, window, engine):
    before = snapshot(engine.store.path)
    window.show_page(PAGE_USERS)
    window.users_page.select_user("u1")
    tab = window.users_page.detail.profile_tab
    tab.select_key("城市")
    tab.delete_button.click()
    after = snapshot(engine.store.path)
    assert window.undo_action.isEnabled()
    window.undo_action.trigger()
    assert snapshot(engine.store.path) == before
    qtbot.waitUntil(lambda: tab.model.row_of_key("城市") >= 0, timeout=3000)
    window.redo_action.trigger()
    assert snapshot(engine.store.path) == after


def test_geometry_and_splitters_are_remembered(qtbot, engine, tmp_path):
    settings = ui_settings(tmp_path)
    first = MainWindow(engine, None, settings, ScriptedPrompts())
    qtbot.addWidget(first)
    first.resize(720, 540)  # within the offscreen screen (800x600)
    first.show()
    first.users_page.splitter.setSizes([300, 600])
    sizes = first.users_page.splitter.sizes()
    first.close()
    again = MainWindow(engine, None, ui_settings(tmp_path), ScriptedPrompts())
    qtbot.addWidget(again)
    again.show()
    assert (again.width(), again.height()) == (720, 540)
    assert again.users_page.splitter.sizes() == sizes
    again.close()


def test_a_busy_port_does_not_stop_the_window(qtbot, engine, tmp_path):
    blocker = socket.socket()
    blocker.bind(("127.0.0.1", 0))
    blocker.listen(1)
    port = blocker.getsockname()[1]
    try:
        controller = AppController(engine, SimpleNamespace(port=port), ui_settings=ui_settings(tmp_path))
        window = controller.window
        qtbot.addWidget(window)
        window.show()
        qtbot.waitUntil(lambda: window.server_state.state == "error", timeout=10000)
        assert "in use" in window.api_status.toolTip()
        assert "in use" in window.overview_page.api_label.text()
        window.close()
        controller.shutdown()
    finally:
        blocker.close()


def test_bad_api_options_still_open_the_window(qtbot, engine, tmp_path):
    controller = AppController(engine, SimpleNamespace(host="192.0.2.1", no_auth=True),
                               ui_settings=ui_settings(tmp_path))
    window = controller.window
    qtbot.addWidget(window)
    assert controller.server is None
    assert window.server_state.state == "error" and "loopback" in window.api_status.toolTip()
    window.close()
    controller.shutdown()


def test_reopen_on_another_data_folder(qtbot, engine, tmp_path, monkeypatch):
    monkeypatch.setenv("KIRAOS_DATA_DIR", str(tmp_path / "default-data"))
    other = open_engine(tmp_path / "other")
    other.store.set_profile("someone", "k", "v", actor="cli")
    other.close()
    controller = AppController(engine, SimpleNamespace(port=0), ui_settings=ui_settings(tmp_path),
                               start_server=False)
    # The controller owns its windows (a reopen deletes the old one): not the test's to close at teardown.
    try:
        assert controller.reopen(data_dir=str(tmp_path / "other"))
        window = controller.window
        assert str(tmp_path / "other") in window.db_status.text()
        assert window.users_page.model.row_at(0).user_id == "someone"
        kira = tmp_path / "kira-data"
        assert controller.reopen(kira_data=str(kira))  # companion: the plugin's db, our default settings folder
        window = controller.window
        paths = controller.engine.paths
        assert paths.companion and paths.db_path == (kira / "memory" / "kiraos.db").resolve()
        assert paths.data_dir == (tmp_path / "default-data").resolve()
        assert "companion" in window.windowTitle()
    finally:
        controller.window.close()
        controller.shutdown()


def test_reopen_on_a_database_of_a_newer_version_explains_and_keeps_the_window(qtbot, engine, tmp_path,
                                                                             monkeypatch):
    import sqlite3

    from kiraos_desktop.ui import app as app_module

    other = open_engine(tmp_path / "newer")
    db_path = other.paths.db_path
    other.close()
    conn = sqlite3.connect(db_path)
    conn.execute("UPDATE kiraos_desktop_meta SET value = '9' WHERE key = 'schema_version'")
    conn.commit()
    conn.close()
    shown = []
    monkeypatch.setattr(app_module.prompts, "error", lambda parent, title, text: shown.append((title, text)))
    controller = AppController(engine, SimpleNamespace(port=0), ui_settings=ui_settings(tmp_path),
                               start_server=False)
    window = controller.window
    qtbot.addWidget(window)
    assert not controller.reopen(data_dir=str(tmp_path / "newer"))
    assert controller.window is window and controller.engine is engine
    assert shown and shown[0][0] == "Cannot open that folder" and "newer KiraOS Desktop" in shown[0][1]
    window.close()
    controller.shutdown()


def test_screenshot_mode_renders_every_page(qtbot, qapp, engine, tmp_path):
    controller = AppController(engine, SimpleNamespace(port=0), ui_settings=ui_settings(tmp_path))
    out = tmp_path / "shots"
    try:
        assert take_screenshots(qapp, controller, str(out)) == 0
    finally:
        controller.shutdown()
    names = sorted(p.name for p in out.glob("*.png"))
    for expected in ("01-overview.png", "02-users-profile.png", "03-users-events.png", "04-users-context.png",
                     "05-users-history.png", "06-skills.png", "07-api.png", "08-settings.png"):
        assert expected in names
    with open(out / "02-users-profile.png", "rb") as handle:
        width, height = struct.unpack(">II", handle.read(24)[16:24])
    assert (width, height) == (1280, 800)


def test_screenshot_command_line_exits_0(tmp_path):
    """The real entry point: a fresh process, offscreen on a large virtual screen, 1280x800 pages."""
    import os
    import subprocess
    import sys

    data = tmp_path / "cli-data"
    seeded = open_engine(data)
    seed(seeded, users=2)
    seeded.close()
    env = {k: v for k, v in os.environ.items() if k != "QT_QPA_PLATFORM"}
    out = tmp_path / "cli-shots"
    result = subprocess.run([sys.executable, "-m", "kiraos_desktop", "--data-dir", str(data), "--port", "0",
                             "--screenshot", str(out)], capture_output=True, text=True, timeout=120, env=env)
    assert result.returncode == 0, result.stderr
    assert "propagateSizeHints" not in result.stderr
    with open(out / "08-settings.png", "rb") as handle:
        width, height = struct.unpack(">II", handle.read(24)[16:24])
    assert height > 600  # not squeezed onto the offscreen platform's default 800x600 screen
    assert len(list(out.glob("*.png"))) >= 8


def test_file_menu_backup_export_import_and_purge(qtbot, window, engine, tmp_path, monkeypatch):
    answers = window._prompts  # the window hands its prompts to the File menu's work
    answers.answer = True
    answers.save_path = str(tmp_path / "backup.db")
    window.backup_action.trigger()
    assert (tmp_path / "backup.db").stat().st_size > 0
    answers.save_path = str(tmp_path / "all.json")
    window.export_action.trigger()
    assert '"u3"' in (tmp_path / "all.json").read_text(encoding="utf-8")
    engine.store.clear_user("u3", actor="cli")
    window.import_action.trigger()  # open_file answers the same path
    assert engine.store.user_summary("u3").profile_count == 4
    # Remove expired entries of everyone: off the GUI thread, one undoable step
    engine.store.set_profile("u1", "旧", "x", actor="cli", expires_at="2000-01-01T00:00:00")
    engine.store.set_profile("u2", "旧", "y", actor="cli", expires_at="2000-01-01T00:00:00")
    before = snapshot(engine.store.path)
    window._prompts.answer = True
    window.purge_action.trigger()
    assert engine.store.get_profile("u1", "旧") is None and engine.store.get_profile("u2", "旧") is None
    window.undo_action.trigger()
    assert snapshot(engine.store.path) == before


def test_open_kira_data_asks_when_the_folder_has_no_database(qtbot, window, tmp_path):
    requests = []
    window.reopen_requested.connect(requests.append)
    empty = tmp_path / "not-kira"
    empty.mkdir()
    window._prompts.folder_path = str(empty)
    window._prompts.answer = False
    window.open_kira_action.trigger()
    assert requests == [] and "memory/kiraos.db" in window._prompts.asked[-1][1]
    (empty / "memory").mkdir()
    (empty / "memory" / "kiraos.db").write_bytes(b"")
    window.open_kira_action.trigger()
    assert requests == [{"kira_data": str(empty)}]


def test_help_about_opens_the_dialog_on_the_engine_paths(qtbot, window, engine, monkeypatch):
    from PySide6.QtWidgets import QLabel

    from kiraos_desktop.ui.about_dialog import AboutDialog

    shown = []

    def record(dialog):
        shown.append({name: dialog.findChild(QLabel, name).text() for name in ("database", "logsDir", "tokenFile")})
        return 0

    monkeypatch.setattr(AboutDialog, "exec", record)
    window.about_action.trigger()
    assert shown == [{"database": str(engine.paths.db_path), "logsDir": str(engine.paths.logs_dir),
                      "tokenFile": str(engine.paths.token_file)}]


@pytest.mark.parametrize("env, platform, expected", [
    ({}, "linux", True),
    ({"DISPLAY": ":0"}, "linux", False),
    ({"WAYLAND_DISPLAY": "wayland-0"}, "linux", False),
    ({"QT_QPA_PLATFORM": "offscreen"}, "linux", False),
    ({}, "win32", False),
    ({}, "darwin", False),
])
def test_missing_display_is_said_before_qt_aborts(monkeypatch, env, platform, expected):
    from kiraos_desktop.ui import app as app_module

    for name in ("DISPLAY", "WAYLAND_DISPLAY", "QT_QPA_PLATFORM"):
        monkeypatch.delenv(name, raising=False)
    for name, value in env.items():
        monkeypatch.setenv(name, value)
    monkeypatch.setattr(app_module.sys, "platform", platform)
    assert (app_module.missing_display() is not None) == expected


def test_the_window_without_a_display_is_one_line_and_exit_2(monkeypatch, capsys, engine):
    from kiraos_desktop.ui import app as app_module

    for name in ("DISPLAY", "WAYLAND_DISPLAY", "QT_QPA_PLATFORM"):
        monkeypatch.delenv(name, raising=False)
    monkeypatch.setattr(app_module.sys, "platform", "linux")
    monkeypatch.setattr(app_module, "ensure_application", lambda: pytest.fail("Qt must not be started"))
    assert app_module.run_gui(engine, SimpleNamespace()) == 2
    err = capsys.readouterr().err
    assert err.startswith("kiraos-desktop: error: there is no display") and "QT_QPA_PLATFORM=offscreen" in err


def test_open_kira_data_on_a_3x_folder_opens_its_tree_window_and_keeps_this_one(qtbot, engine, tmp_path):
    """The memory's own shape (the store's entity_tree) decides the window, not the folder's layout."""
    from PySide6.QtWidgets import QApplication

    from kiraos_desktop.ui.entities.window import TreeWindow

    controller = AppController(engine, SimpleNamespace(port=0), ui_settings=ui_settings(tmp_path), start_server=False)
    window = controller.window
    qtbot.addWidget(window)
    requests = []
    window.reopen_requested.connect(requests.append)
    three = tmp_path / "kira3"
    (three / "memory" / "entities" / "user_qq_1").mkdir(parents=True)
    (three / "memory" / "kiraos.db.bak_1747100000").write_bytes(b"")
    window._prompts = ScriptedPrompts(folder=str(three))
    window.open_kira_action.trigger()
    assert requests == [{"kira_data": str(three)}] and window._prompts.errors == []
    try:
        assert controller.window is window and controller.engine is engine  # the main window stays on its data
        trees = [w for w in QApplication.topLevelWidgets() if isinstance(w, TreeWindow) and w.isVisible()]
        assert [str(three.resolve()) in w.windowTitle() for w in trees] == [True]
        trees[0].close()
        assert not (three / "memory" / "kiraos.db").exists()  # nothing written into the plugin's folder
    finally:
        controller.shutdown()


def test_the_status_line_and_api_page_name_the_plugin_layout(qtbot, tmp_path):
    from core_helpers import PLUGIN2_DDL, plugin_db
    
    kira = tmp_path / "kira2"
    plugin_db(kira / "memory" / "kiraos.db", PLUGIN2_DDL).close()
    engine = Engine.open(kira_data=kira)
    try:
        with shown_window(qtbot, engine, tmp_path, ScriptedPrompts()) as window:
            assert window.db_status.text().startswith("KiraOS 2.x data: ")
    finally:
        engine.close()


def test_own_data_shows_no_plugin_layout(qtbot, window):
    assert window.db_status.text().startswith("Database: ")


def test_screenshots_serve_on_a_free_port_not_the_settings_one(engine):
    """A screenshot run beside a running instance (default port 8765) must not collide with it."""
    from kiraos_desktop.ui.app import create_server

    shots, _ = create_server(engine, SimpleNamespace(screenshot="shots", port=None))
    assert shots.port == 0
    chosen, _ = create_server(engine, SimpleNamespace(screenshot="shots", port=9123))
    assert chosen.port == 9123
    window, _ = create_server(engine, SimpleNamespace())
    assert window.port == engine.settings.api_port == 8765
