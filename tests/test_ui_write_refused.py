"""A write the database refuses (another program's lock, a full disk, the server gone) is told in the
window, nothing of it written, and no exception escapes the window's slots."""
from __future__ import annotations

import pytest
from PySide6.QtWidgets import QApplication

from kiraos_desktop.core.storage.errors import BUSY, StoreBusy
from kiraos_desktop.ui.main_window import PAGE_USERS
from ui_helpers import OFFSCREEN_NOTE, ScriptedPrompts, shown_window

pytestmark = pytest.mark.qt_log_ignore(OFFSCREEN_NOTE)


@pytest.fixture
def engine(engine):
    engine.store.set_profile("u1", "昵称", "小明", actor="cli")
    engine.store.set_profile("u1", "城市", "北京", actor="cli")
    return engine


def test_a_refused_delete_is_told_and_changes_nothing(qtbot, engine, tmp_path, monkeypatch):
    prompts = ScriptedPrompts(confirm=True)
    with shown_window(qtbot, engine, tmp_path, prompts) as window:
        window.show_page(PAGE_USERS)
        page = window.users_page
        page.model.reload()
        assert page.select_user("u1")
        tab = page.detail.profile_tab
        qtbot.waitUntil(lambda: tab.model.rowCount() == 2, timeout=3000)
        tab.view.selectRow(0)
        QApplication.processEvents()

        def busy(*_args, **_kwargs):
            refused = StoreBusy("The memory database (test) is busy: another program kept its lock too long.")
            refused.kind = BUSY
            raise refused

        monkeypatch.setattr(engine.store, "batch", busy)
        tab.delete_button.click()  # through the slot, as a click is: an escaping exception fails the test
        qtbot.waitUntil(lambda: bool(prompts.errors), timeout=3000)
        assert "busy" in prompts.errors[0] and "everything saved before is kept" in prompts.errors[0]
        assert "(test)" not in prompts.errors[0]  # said in the window's words (translated), not the store's
        monkeypatch.undo()
        assert {p.key for p in engine.store.get_profiles("u1")} == {"昵称", "城市"}
        assert not window.undo_stack.canUndo()  # nothing to undo: nothing was written


def test_a_refusal_of_an_unknown_kind_shows_the_stores_message(qtbot, engine, tmp_path):
    prompts = ScriptedPrompts(confirm=True)
    with shown_window(qtbot, engine, tmp_path, prompts) as window:
        window.writer.refused.emit("", "Lost the connection to PostgreSQL at db:5432/memory.")
        assert "Lost the connection to PostgreSQL" in prompts.errors[0]
