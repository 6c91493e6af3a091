"""The window on a shared PostgreSQL database: an outage is shown in the status bar, then cleared."""
from __future__ import annotations

import pytest

from kiraos_desktop.core.memory.changes import ChangeEvent
from kiraos_desktop.core.storage.postgres.notify import ChangeListener
from ui_helpers import OFFSCREEN_NOTE, ScriptedPrompts, shown_window

pytestmark = pytest.mark.qt_log_ignore(OFFSCREEN_NOTE)
WAIT_MS = 15000


def test_an_outage_shows_in_the_status_bar_and_clears_when_the_server_is_back(qtbot, engine, tmp_path,
                                                                                 pg_server, pg_url):
    if not pg_server.managed:
        pytest.skip("the developer's own server is not stopped by the tests")
    engine.change_listener = ChangeListener(pg_url, engine.store.changes, first_retry_s=0.05, max_retry_s=0.5)
    refreshes: list[ChangeEvent] = []
    engine.store.changes.subscribe(refreshes.append)
    engine.start_watching(build_recall=False)
    assert engine.change_listener.wait_listening(10)
    with shown_window(qtbot, engine, tmp_path, ScriptedPrompts()) as window:
        label = window.db_outage
        assert not label.isVisible()
        pg_server.stop()
        try:
            qtbot.waitUntil(label.isVisible, timeout=WAIT_MS)
            assert "unreachable" in label.text()
            assert "reconnecting" in window.statusBar().currentMessage()
        finally:
            pg_server.start()
        qtbot.waitUntil(lambda: not label.isVisible(), timeout=WAIT_MS)
        assert "answers again" in window.statusBar().currentMessage()
        # Notifications sent while it was away are lost: every page is refreshed.
        qtbot.waitUntil(lambda: ChangeEvent(None, "external", "external") in refreshes, timeout=WAIT_MS)


def test_on_sqlite_the_outage_label_never_shows(qtbot, engine, tmp_path):
    assert engine.change_listener is None
    with shown_window(qtbot, engine, tmp_path, ScriptedPrompts()) as window:
        assert not window.db_outage.isVisible()
        assert window.db_outage.message()


def test_another_instances_write_refreshes_the_open_user_within_a_second(qtbot, tmp_path, pg_url):
    from kiraos_desktop.core.engine import Engine
    from kiraos_desktop.ui.main_window import PAGE_USERS
    from pg_instances import serve, write_settings

    engine = Engine.open(data_dir=tmp_path / "window", database_url=pg_url)
    try:
        with engine.store.batch("cli") as batch:
            batch.set_profile("shared", "城市", "北京")
        engine.start_watching(build_recall=False)
        assert engine.change_listener.wait_listening(10)
        with serve(write_settings(tmp_path / "other"), pg_url, "other") as other, \
                shown_window(qtbot, engine, tmp_path, ScriptedPrompts()) as window:
            window.show_page(PAGE_USERS)
            page = window.users_page
            assert page.select_user("shared")
            qtbot.waitUntil(lambda: page.detail.user_id == "shared", timeout=WAIT_MS)
            model = page.detail.profile_tab.model

            def values():
                return {model.row_at(r).key: model.row_at(r).value for r in range(model.rowCount())}

            qtbot.waitUntil(lambda: values().get("城市") == "北京", timeout=WAIT_MS)
            reply = other.update("shared", [{"op": "set", "key": "城市", "value": "上海"},
                                            {"op": "set", "key": "新来的", "value": "是"}])
            assert reply.status_code == 200, reply.text
            # Heard through NOTIFY, refreshed through the coalescer (300 ms): within a second.
            qtbot.waitUntil(lambda: values().get("城市") == "上海" and "新来的" in values(), timeout=1000)
            reply = other.update("newcomer", [{"op": "event", "value": "第一次"}])
            assert reply.status_code == 200
            qtbot.waitUntil(lambda: page.model.row_of_key("newcomer") != -1, timeout=1000)
            assert page.selected_user_id() == "shared"
    finally:
        engine.close()
