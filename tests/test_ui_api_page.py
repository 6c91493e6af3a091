"""API page: state from any thread, token copy/regenerate, counters, example requests, start/stop."""
import json
import os
import threading

import pytest
from PySide6.QtGui import QGuiApplication
from PySide6.QtWidgets import QLabel, QLineEdit, QPlainTextEdit, QPushButton

from kiraos_desktop.ui.api_page import ApiPage, example_requests
from kiraos_desktop.ui.prompts import prompts

pytestmark = pytest.mark.qt_log_ignore("This plugin does not support propagateSizeHints")


class FakeServer:
    """The ApiServer interface, driven by the test; listeners are called on the calling thread."""

    def __init__(self, port=8765, token="t"):
        self.host, self.port, self.token = "127.0.0.1", port, token
        self.running = False
        self.calls = []
        self._listeners = []
        self._counters = {"total": 0, "errors": 0, "by_route": {}}
        self.fail_start = None

    @property
    def url(self):
        return f"http://{self.host}:{self.port}"

    @property
    def bound_port(self):
        return self.port if self.running else None

    def add_state_listener(self, callback):
        self._listeners.append(callback)
        return lambda: self._listeners.remove(callback)

    def notify(self, state, detail=""):
        for callback in list(self._listeners):
            callback(state, detail)

    def counters(self):
        return self._counters

    def start(self, timeout=10.0):
        self.calls.append(("start",))
        self.notify("starting")
        if self.fail_start:
            self.notify("error", self.fail_start)
            raise RuntimeError(self.fail_start)
        self.running = True
        self.notify("running")

    def stop(self):
        self.calls.append(("stop",))
        self.running = False
        self.notify("stopped")

    def restart(self, host=None, port=None, token=None):
        self.calls.append(("restart", token))
        if token is not None:
            self.token = token
        self.stop()
        self.start()


@pytest.fixture
def server(engine):
    return FakeServer(token=engine.api_token)


@pytest.fixture
def page(qtbot, server, engine):
    widget = ApiPage(server, engine)
    qtbot.addWidget(widget)
    return widget


def state_text(page):
    return page.findChild(QLabel, "apiState").text()


def test_initial_state_reflects_the_server(page):
    assert page.state()[0] == "stopped"
    assert "Stopped" in state_text(page)
    assert page.findChild(QPushButton, "startServer").isEnabled()
    assert not page.findChild(QPushButton, "stopServer").isEnabled()


def test_state_change_from_a_foreign_thread_reaches_the_label(qtbot, page, server):
    seen_threads = []
    page.state_received.connect(lambda *_: seen_threads.append(threading.current_thread()))
    thread = threading.Thread(target=server.notify, args=("error", "address already in use"))
    thread.start()
    thread.join()
    qtbot.waitUntil(lambda: "address already in use" in state_text(page))
    assert page.state() == ("error", "address already in use")
    assert seen_threads and all(t is threading.main_thread() for t in seen_threads)
    thread = threading.Thread(target=lambda: (setattr(server, "running", True), server.notify("running")))
    thread.start()
    thread.join()
    qtbot.waitUntil(lambda: page.state()[0] == "running")
    assert page.findChild(QLabel, "apiUrl").text() == "http://127.0.0.1:8765"
    assert page.findChild(QPushButton, "stopServer").isEnabled()


def test_token_is_masked_and_show_reveals_it(page, engine):
    token = page.findChild(QLineEdit, "apiToken")
    assert token.text() == engine.api_token
    assert token.echoMode() == QLineEdit.EchoMode.Password
    assert engine.api_token not in page.findChild(QPlainTextEdit, "apiExample").toPlainText()
    page.findChild(QPushButton, "showToken").setChecked(True)
    assert token.echoMode() == QLineEdit.EchoMode.Normal
    assert engine.api_token in page.findChild(QPlainTextEdit, "apiExample").toPlainText()


def test_copy_puts_the_token_in_the_clipboard(page, engine):
    QGuiApplication.clipboard().clear()
    page.findChild(QPushButton, "copyToken").click()
    assert QGuiApplication.clipboard().text() == engine.api_token


def test_copy_example_contains_the_real_token(page, engine):
    page.findChild(QPushButton, "copyExample").click()
    text = QGuiApplication.clipboard().text()
    assert f"Authorization: Bearer {engine.api_token}" in text
    assert "/v1/context?user_id=" in text and "/v1/tools/memory_update" in text


def test_regenerate_cancel_keeps_the_token(page, engine, server, monkeypatch):
    asked = []
    monkeypatch.setattr(prompts, "confirm", lambda *args: asked.append(args) or False)
    before = engine.api_token
    file_before = engine.paths.token_file.read_text()
    page.findChild(QPushButton, "regenerateToken").click()
    assert asked
    assert engine.api_token == before
    assert engine.paths.token_file.read_text() == file_before
    assert server.calls == []


def test_regenerate_confirmed_restarts_the_running_server(qtbot, page, engine, server, monkeypatch):
    server.start()
    qtbot.waitUntil(lambda: page.state()[0] == "running")
    server.calls.clear()
    monkeypatch.setattr(prompts, "confirm", lambda *args: True)
    before = engine.api_token
    page.findChild(QPushButton, "regenerateToken").click()
    new = engine.api_token
    assert new != before
    assert page.findChild(QLineEdit, "apiToken").text() == new
    qtbot.waitUntil(lambda: ("restart", new) in server.calls)
    qtbot.waitUntil(lambda: page.state()[0] == "running")


def test_regenerate_on_a_stopped_server_applies_at_the_next_start(qtbot, page, engine, server, monkeypatch):
    monkeypatch.setattr(prompts, "confirm", lambda *args: True)
    page.findChild(QPushButton, "regenerateToken").click()
    assert not server.running and server.calls == []
    page.findChild(QPushButton, "startServer").click()
    qtbot.waitUntil(lambda: page.state()[0] == "running")
    assert server.calls[0] == ("restart", engine.api_token)
    assert server.token == engine.api_token


def test_counters_are_shown_and_polled_while_visible(qtbot, page, server, qtmodeltester):
    server._counters = {"total": 1234, "errors": 5, "by_route": {"GET /v1/context": 1200, "POST /v1/tools": 34}}
    page.refresh_counters()
    assert "1,234" in page.findChild(QLabel, "apiTotals").text()
    model = page._routes
    assert model.rowCount() == 2
    qtmodeltester.check(model)
    page.show()
    assert page._timer.isActive()
    server._counters = {"total": 1300, "errors": 5, "by_route": {"GET /v1/context": 1266, "POST /v1/tools": 34}}
    qtbot.waitUntil(lambda: "1,300" in page.findChild(QLabel, "apiTotals").text(), timeout=3000)
    page.hide()
    assert not page._timer.isActive()


def test_start_and_stop_buttons_drive_the_server(qtbot, page, server):
    page.findChild(QPushButton, "startServer").click()
    qtbot.waitUntil(lambda: page.state()[0] == "running")
    page.findChild(QPushButton, "stopServer").click()
    qtbot.waitUntil(lambda: page.state()[0] == "stopped")
    assert server.calls == [("start",), ("stop",)]


def test_start_failure_is_shown(qtbot, page, server):
    server.fail_start = "port 8765 is in use"
    page.findChild(QPushButton, "startServer").click()
    qtbot.waitUntil(lambda: page.state()[0] == "error")
    assert "port 8765 is in use" in state_text(page)


def test_server_restart_with_a_new_token_refreshes_it(qtbot, page, engine, server):
    # what the window does when the token setting changes: restart the server with it
    engine.update_settings(engine.settings.replace(api_token="from-settings"))
    thread = threading.Thread(target=server.restart, kwargs={"token": engine.api_token})
    thread.start()
    thread.join()
    qtbot.waitUntil(lambda: page.findChild(QLineEdit, "apiToken").text() == "from-settings")


def test_token_given_on_the_command_line_is_the_one_shown(qtbot, engine):
    widget = ApiPage(FakeServer(token="from-the-command-line"), engine)
    qtbot.addWidget(widget)
    assert widget.findChild(QLineEdit, "apiToken").text() == "from-the-command-line"
    widget.findChild(QPushButton, "copyToken").click()
    assert QGuiApplication.clipboard().text() == "from-the-command-line"


def test_no_auth_server_shows_that_no_token_is_needed(qtbot, engine):
    widget = ApiPage(FakeServer(token=None), engine)
    qtbot.addWidget(widget)
    token = widget.findChild(QLineEdit, "apiToken")
    assert token.text() == "" and "--no-auth" in token.placeholderText()
    assert "Authorization" not in widget.example_text(reveal=True)
    assert "/v1/context?user_id=" in widget.example_text(reveal=True)


def test_listeners_are_removed_when_the_page_goes(qtbot, server, engine):
    widget = ApiPage(server, engine)
    assert len(server._listeners) == 1
    widget.dispose()
    assert server._listeners == []
    server.notify("running")  # no page to reach, no error


def test_example_requests_are_shell_ready():
    text = example_requests("http://127.0.0.1:8765/", "tok", "qq 10001")
    assert "curl -s -H 'Authorization: Bearer tok'" in text
    assert "'http://127.0.0.1:8765/v1/context?user_id=qq%2010001'" in text
    assert "  http://127.0.0.1:8765/v1/tools/memory_update\n" in text
    assert '"operations"' in text and "Content-Type: application/json" in text


def test_example_uses_a_real_user_when_there_is_one(qtbot, server, engine):
    engine.store.set_profile("qq_42", "昵称", "小明", actor="gui")
    widget = ApiPage(server, engine)
    qtbot.addWidget(widget)
    assert "user_id=qq_42" in widget.example_text()


# ---- against the real server ------------------------------------------------------------------

@pytest.fixture
def real_server(engine):
    from kiraos_desktop.api.server import ApiServer

    srv = ApiServer(engine, "127.0.0.1", 0, engine.api_token)
    yield srv
    srv.stop()


def test_real_server_state_url_counters_and_regenerate(qtbot, engine, real_server, monkeypatch):
    import httpx

    page = ApiPage(real_server, engine)
    qtbot.addWidget(page)
    page.findChild(QPushButton, "startServer").click()
    qtbot.waitUntil(lambda: page.state()[0] == "running", timeout=10000)
    url = page.findChild(QLabel, "apiUrl").text()
    assert url == real_server.url and url.endswith(f":{real_server.bound_port}")
    old = engine.api_token
    reply = httpx.get(f"{url}/v1/context", params={"user_id": "u1"}, headers={"Authorization": f"Bearer {old}"})
    assert reply.status_code == 200
    page.refresh_counters()
    assert page._routes.rowCount() >= 1
    assert "Total: 1" in page.findChild(QLabel, "apiTotals").text()

    monkeypatch.setattr(prompts, "confirm", lambda *args: True)
    page.findChild(QPushButton, "regenerateToken").click()
    new = engine.api_token
    qtbot.waitUntil(lambda: real_server.token == new and real_server.running, timeout=10000)
    qtbot.waitUntil(lambda: page.state()[0] == "running", timeout=10000)
    url = real_server.url
    assert httpx.get(f"{url}/v1/context", params={"user_id": "u1"},
                     headers={"Authorization": f"Bearer {old}"}).status_code == 401
    assert httpx.get(f"{url}/v1/context", params={"user_id": "u1"},
                     headers={"Authorization": f"Bearer {new}"}).status_code == 200

    page.findChild(QPushButton, "stopServer").click()
    qtbot.waitUntil(lambda: page.state()[0] == "stopped", timeout=10000)
    assert not real_server.running


def test_real_server_port_in_use_is_shown(qtbot, engine):
    import socket

    from kiraos_desktop.api.server import ApiServer

    blocker = socket.socket()
    blocker.bind(("127.0.0.1", 0))
    blocker.listen(1)
    try:
        srv = ApiServer(engine, "127.0.0.1", blocker.getsockname()[1], engine.api_token)
        page = ApiPage(srv, engine)
        qtbot.addWidget(page)
        page.findChild(QPushButton, "startServer").click()
        qtbot.waitUntil(lambda: page.state()[0] == "error", timeout=10000)
        assert "already in use" in state_text(page)
        assert page.findChild(QPushButton, "startServer").isEnabled()
    finally:
        blocker.close()


def test_connect_a_host_shows_each_snippet_with_the_token_hidden_until_shown(page, engine):
    from kiraos_desktop.ui.connect_hosts import ConnectHostsBox

    box = page.findChild(ConnectHostsBox, "connectHosts")
    token = engine.api_token
    texts = {host: page.findChild(QPlainTextEdit, f"snippet_{host}") for host in
             ("claude_desktop", "cursor", "vscode", "claude_code", "curl")}
    assert all(t is not None for t in texts.values())
    assert all(token not in t.toPlainText() for t in texts.values())
    assert '"servers"' in texts["vscode"].toPlainText() and '"type": "http"' in texts["vscode"].toPlainText()
    assert "http://127.0.0.1:8765/mcp" in texts["cursor"].toPlainText()
    desktop = json.loads(texts["claude_desktop"].toPlainText())["mcpServers"]["kiraos-desktop"]
    assert desktop["args"][-2:] == ["--data-dir", str(engine.paths.data_dir)] and "mcp" in desktop["args"]
    page.findChild(QPushButton, "copy_cursor").click()
    assert f"Bearer {token}" in QGuiApplication.clipboard().text()
    page.findChild(QPushButton, "copy_claude_code").click()
    assert QGuiApplication.clipboard().text().startswith("claude mcp add --transport http kiraos-desktop ")
    page.findChild(QPushButton, "showToken").setChecked(True)
    assert token in texts["vscode"].toPlainText() and token in texts["curl"].toPlainText()
    assert box.snippet("claude_code") == texts["claude_code"].toPlainText()


@pytest.mark.skipif(os.name != "posix", reason="POSIX permissions")
def test_the_memory_files_modes_are_shown_and_flagged_when_others_can_read(qtbot, page, server, engine):
    label = page.findChild(QLabel, "dataFileModes")
    assert "memory/ 0700" in label.text() and "kiraos.db 0600" in label.text()
    assert "private" in label.text()
    os.chmod(engine.paths.db_path, 0o644)  # as a companion install (or another program) may leave it
    thread = threading.Thread(target=lambda: (setattr(server, "running", True), server.notify("running")))
    thread.start()
    thread.join()
    qtbot.waitUntil(lambda: "kiraos.db 0644" in label.text())
    assert "other users" in label.text() and "chmod 600" in label.text()


def test_a_language_switch_remakes_the_texts_made_from_values(qtbot, page, server):
    # The URL line of a stopped server, the memory files line and the hosts' hints are made with
    # values; a switch to Chinese left them in English beside translated labels.
    from kiraos_desktop.ui.i18n import apply_language, language_manager

    page.show()
    qtbot.waitExposed(page)
    url = page._url
    hint = page.findChild(QLabel, "hint_claude_desktop")
    assert "(not serving)" in url.text() and "(private to you)" in page._modes.text()
    assert hint.text().startswith("Add to ")
    try:
        apply_language("zh_CN")
        qtbot.waitUntil(lambda: "(not serving)" not in url.text())
        assert url.text().endswith("（未在服务）")
        assert "(private to you)" not in page._modes.text()
        assert not hint.text().startswith("Add to ")
    finally:
        language_manager().clear()
    qtbot.waitUntil(lambda: "(not serving)" in url.text())
    assert hint.text().startswith("Add to ")


def test_the_plugin_layout_is_named_in_companion_mode_only(qtbot, page, tmp_path):
    from core_helpers import PLUGIN2_DDL, plugin_db
    from kiraos_desktop.core.engine import Engine
    
    page.show()
    assert not page.findChild(QLabel, "pluginLayout").isVisibleTo(page)  # our own data
    kira = tmp_path / "kira2"
    plugin_db(kira / "memory" / "kiraos.db", PLUGIN2_DDL).close()
    engine = Engine.open(kira_data=kira)
    try:
        companion = ApiPage(FakeServer(token=engine.api_token), engine)
        qtbot.addWidget(companion)
        companion.show()
        label = companion.findChild(QLabel, "pluginLayout")
        assert label.isVisibleTo(companion) and label.text() == "KiraOS 2.x (written by plugin 2.0)"
        companion.dispose()
    finally:
        engine.close()


def test_server_operations_run_off_the_gui_thread_and_report_failures(qtbot):
    from PySide6.QtCore import QThread

    from kiraos_desktop.ui.server_state import run_server_operation

    seen, failures = [], []

    def fail() -> None:
        seen.append((threading.current_thread() is threading.main_thread(), QThread.currentThread().objectName()))
        raise RuntimeError("port 8765 is in use")

    runner = run_server_operation("start", fail, failures.append)
    qtbot.waitUntil(lambda: not runner.is_running(), timeout=5000)
    assert seen == [(False, "kiraos-api-start")]
    assert failures == ["port 8765 is in use"]  # reported on the GUI thread, as the server said it
