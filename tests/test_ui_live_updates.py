"""Live updates: writes through the real API and from another process reach the open window."""
from __future__ import annotations

import socket
import sqlite3

import httpx
import pytest
from PySide6.QtWidgets import QAbstractItemView, QLineEdit

from kiraos_desktop.api.server import ApiServer
from kiraos_desktop.ui.main_window import PAGE_USERS, MainWindow
from kiraos_desktop.ui.users.profile_model import COL_VALUE
from kiraos_desktop.ui.users.user_detail import TAB_EVENTS
from ui_helpers import OFFSCREEN_NOTE, ScriptedPrompts, seed, ui_settings

pytestmark = pytest.mark.qt_log_ignore(OFFSCREEN_NOTE)
TOKEN = "test-token-123"


@pytest.fixture
def engine(engine):
    seed(engine, users=3)
    with engine.store.batch("cli") as batch:  # enough users to scroll
        for n in range(300):
            batch.add_event(f"x{n:03d}", "事件")
    return engine


@pytest.fixture
def server(engine):
    server = ApiServer(engine, "127.0.0.1", 0, TOKEN)
    server.start()
    yield server
    server.stop()


@pytest.fixture
def window(qtbot, engine, server, tmp_path):
    window = MainWindow(engine, server, ui_settings(tmp_path), ScriptedPrompts())
    qtbot.addWidget(window)
    window.resize(1280, 800)
    window.show()
    window.show_page(PAGE_USERS)
    qtbot.waitExposed(window)
    yield window
    window.close()


def profile_values(window) -> dict[str, str]:
    model = window.users_page.detail.profile_tab.model
    return {model.row_at(r).key: model.row_at(r).value for r in range(model.rowCount())}


def api(server) -> httpx.Client:
    return httpx.Client(base_url=server.url, headers={"Authorization": f"Bearer {TOKEN}"}, timeout=10)


def test_api_write_updates_the_open_user_and_keeps_the_selection(qtbot, window, server):
    page = window.users_page
    assert page.select_user("u2")
    qtbot.waitUntil(lambda: page.detail.user_id == "u2", timeout=2000)
    tab = page.detail.profile_tab
    tab.select_key("好友")
    with api(server) as client:
        reply = client.put("/api/users/u2/profiles/城市", json={"value": "上海", "confidence": 0.9})
        assert reply.status_code == 200, reply.text
        reply = client.put("/api/users/u2/profiles/新来的", json={"value": "值", "category": "other"})
        assert reply.status_code == 200, reply.text
    qtbot.waitUntil(lambda: profile_values(window).get("城市") == "上海" and "新来的" in profile_values(window),
                    timeout=3000)
    assert page.selected_user_id() == "u2"
    assert tab.selected_keys() == ["好友"]
    # The list's row follows when its read (off the GUI thread) arrives, the selection kept.
    qtbot.waitUntil(lambda: page.model.row_at(page.view.currentIndex().row()).profile_count == 5, timeout=3000)
    assert page.model.row_at(page.view.currentIndex().row()).user_id == "u2"
    assert page.selected_user_id() == "u2" and tab.selected_keys() == ["好友"]


def test_api_events_reach_the_events_tab(qtbot, window, server):
    page = window.users_page
    page.select_user("u1")
    page.detail.tabs.setCurrentIndex(TAB_EVENTS)
    with api(server) as client:
        assert client.post("/api/users/u1/events", json={"event_summary": "API 写入的事件"}).status_code == 200
    model = page.detail.events_tab.model
    qtbot.waitUntil(lambda: model.rowCount() == 3 and model.row_at(0).summary == "API 写入的事件", timeout=3000)


def test_external_process_write_updates_the_view(qtbot, window, engine):
    engine.start_watching()
    page = window.users_page
    page.select_user("u3")
    qtbot.waitUntil(lambda: page.detail.user_id == "u3", timeout=2000)
    conn = sqlite3.connect(str(engine.store.path), timeout=10)
    with conn:
        conn.execute("UPDATE user_profiles SET memory_value = '广州', updated_at = '2030-01-01T00:00:00' "
                     "WHERE user_id = 'u3' AND memory_key = '城市'")
        conn.execute("INSERT INTO user_profiles (user_id, memory_key, memory_value) VALUES ('u3', '插件写的', '是')")
    conn.close()
    qtbot.waitUntil(lambda: profile_values(window).get("城市") == "广州" and "插件写的" in profile_values(window),
                    timeout=6000)
    assert page.selected_user_id() == "u3"


def test_scroll_position_and_selection_survive_a_burst(qtbot, window, server):
    page = window.users_page
    view = page.view
    while page.model.canFetchMore():
        page.model.fetchMore()
    assert page.select_user("x250")
    view.verticalScrollBar().setValue(view.verticalScrollBar().maximum() - 3)
    scroll = view.verticalScrollBar().value()
    with api(server) as client:
        for n in range(20):
            assert client.post(f"/api/users/x{n:03d}/events", json={"event_summary": f"e{n}"}).status_code == 200
        assert client.delete("/api/users/x001").status_code == 200
    qtbot.waitUntil(lambda: page.model.row_of_key("x001") == -1, timeout=3000)
    assert page.selected_user_id() == "x250"
    assert page.detail.user_id == "x250"
    assert abs(view.verticalScrollBar().value() - scroll) <= 1  # one row above went away


def test_an_edit_in_progress_is_not_clobbered(qtbot, window, server, engine):
    page = window.users_page
    page.select_user("u1")
    tab = page.detail.profile_tab
    index = tab.proxy.mapFromSource(tab.model.index(tab.model.row_of_key("昵称"), COL_VALUE))
    tab.view.setCurrentIndex(index)
    tab.view.edit(index)
    editor = tab.view.indexWidget(index)
    assert isinstance(editor, QLineEdit)
    editor.setText("正在输入")
    with api(server) as client:
        assert client.put("/api/users/u1/profiles/城市", json={"value": "杭州"}).status_code == 200
        assert client.delete("/api/users/u1/profiles/喜欢猫").status_code == 200
    qtbot.waitUntil(lambda: tab.refresh_pending, timeout=3000)
    assert tab.view.state() == QAbstractItemView.State.EditingState
    assert tab.view.indexWidget(index) is editor and editor.text() == "正在输入"
    tab.view.commitData(editor)
    tab.view.closeEditor(editor, tab.delegate.EndEditHint.NoHint)
    qtbot.waitUntil(lambda: profile_values(window).get("城市") == "杭州", timeout=3000)
    assert "喜欢猫" not in profile_values(window)
    assert engine.store.get_profile("u1", "昵称").value == "正在输入"


def test_changing_the_api_token_in_settings_restarts_the_server(qtbot, window, server, engine):
    # A restart binds the settings' port: a free one, not the default 8765 a running app may hold.
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        port = probe.getsockname()[1]
    engine.update_settings(engine.settings.replace(api_token="brand-new-token-456", api_port=port))
    qtbot.waitUntil(lambda: server.token == "brand-new-token-456" and server.running, timeout=10000)
    with httpx.Client(base_url=server.url, timeout=10) as client:
        assert client.get("/api/stats", headers={"Authorization": f"Bearer {TOKEN}"}).status_code == 401
        assert client.get("/api/stats", headers={"Authorization": "Bearer brand-new-token-456"}).status_code == 200
    qtbot.waitUntil(lambda: window.server_state.state == "running", timeout=5000)


def test_an_edit_in_a_tab_is_read_back_once_and_an_undo_or_an_api_write_still_refresh(qtbot, window, server,
                                                                                     monkeypatch):
    """Issue 52: the tab reloaded itself after its write, then the change event reloaded it again."""
    from kiraos_desktop.ui.users import table_tab

    page = window.users_page
    assert page.select_user("u1")
    qtbot.waitUntil(lambda: page.detail.user_id == "u1", timeout=2000)
    tab = page.detail.profile_tab
    window.coalescer.flush()
    reloads = []
    real_refresh = table_tab.TableTab.refresh

    def counted(self):
        reloads.append(type(self).__name__)
        return real_refresh(self)

    monkeypatch.setattr(table_tab.TableTab, "refresh", counted)
    tab.model.setData(tab.model.index(0, COL_VALUE), "改过的值")
    qtbot.wait(50)
    window.coalescer.flush()
    assert reloads == []  # the model shows its edit; the change refresh passes the tab over
    assert window.users_page.detail._stale == {1, 2, 3}  # the other tabs read it when opened
    window.undo_stack.undo()
    qtbot.wait(50)
    window.coalescer.flush()
    assert reloads == ["ProfileTab"]  # the undo is no tab's own write
    with api(server) as client:
        assert client.put("/api/users/u1/profiles/城市", json={"value": "杭州"}).status_code == 200
    qtbot.waitUntil(lambda: profile_values(window).get("城市") == "杭州", timeout=3000)
    assert reloads == ["ProfileTab", "ProfileTab"]
