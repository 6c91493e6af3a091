"""Defects found by trying the window as a new operator: counts, expiry hints, the Context tab, user ids."""
from __future__ import annotations

from datetime import datetime, timedelta

import pytest
from PySide6.QtWidgets import QApplication

from kiraos_desktop.core.timeutil import to_iso
from kiraos_desktop.ui.i18n import apply_language, language_manager
from kiraos_desktop.ui.main_window import PAGE_USERS, MainWindow
from kiraos_desktop.ui.users.expiry import describe_remaining
from kiraos_desktop.ui.users.user_detail import TAB_CONTEXT
from tests.ui_helpers import OFFSCREEN_NOTE, ScriptedPrompts, seed, ui_settings

pytestmark = pytest.mark.qt_log_ignore(OFFSCREEN_NOTE)


@pytest.fixture
def engine(engine):
    seed(engine, users=3)
    return engine


@pytest.fixture
def window(qtbot, engine, tmp_path):
    window = MainWindow(engine, None, ui_settings(tmp_path), ScriptedPrompts())
    qtbot.addWidget(window)
    window.show()
    qtbot.waitExposed(window)
    yield window
    window.close()


@pytest.fixture
def english(qapp):
    """The English catalogue (its plural forms) installed, as the window does for English."""
    apply_language("en")
    yield
    language_manager().clear()


# ---- 9: plurals and the remaining time of a TTL --------------------------------------------------

def test_counts_of_one_are_singular(qtbot, english, window, engine):
    engine.store.set_profile("solo", "昵称", "一", actor="cli")
    engine.store.add_event("solo", "来过", actor="cli")
    page = window.users_page
    window.show_page(PAGE_USERS)
    page.detail.set_user("solo")
    assert page.detail.summary_label.text().startswith("1 profile entry · 1 event · ")
    page.search_edit.setText("solo")
    qtbot.waitUntil(lambda: page.model.search_text == "solo", timeout=3000)
    assert page.count_label.text() == "1 user matches “solo”"
    page.search_edit.setText("")
    qtbot.waitUntil(lambda: page.model.search_text == "", timeout=3000)
    assert page.count_label.text() == "4 users"
    assert page.detail.profile_tab.count_label.text() == "1 entry"


@pytest.mark.parametrize("ttl, shown", [(timedelta(days=7), "7 d"), (timedelta(hours=12), "12 h"),
                                        (timedelta(minutes=30), "30 min"), (timedelta(days=2), "2 d")])
def test_a_fresh_ttl_shows_what_was_typed(ttl, shown):
    typed_at = datetime(2026, 3, 1, 12, 0, 0)
    expires = to_iso(typed_at + ttl)
    assert describe_remaining(expires, typed_at + timedelta(seconds=3)) == shown  # not "6 d" a moment later


# ---- 6: the Context tab says which events are not in the block ----------------------------------

def test_context_tab_counts_events_beyond_events_in_context(qtbot, window, engine):
    engine.update_settings(engine.settings.replace(max_events_per_user=3, max_context_chars=0))
    for n in range(5):
        engine.store.add_event("u1", f"事件{n}", actor="cli")  # u1 has 2 events from the seed: 7 in all
    page = window.users_page
    window.show_page(PAGE_USERS)
    page.select_user("u1")
    page.detail.tabs.setCurrentIndex(TAB_CONTEXT)
    tab = page.detail.context_tab
    text = tab.dropped_label.text()
    assert "Nothing was left out" not in text
    assert "4 older events" in text and "Events in context" in text and "3" in text


def test_context_tab_says_nothing_was_left_out_only_when_true(qtbot, window, engine):
    page = window.users_page
    window.show_page(PAGE_USERS)
    page.select_user("u1")
    page.detail.tabs.setCurrentIndex(TAB_CONTEXT)
    assert page.detail.context_tab.dropped_label.text() == "Nothing was left out."


# ---- 2: user ids readable at the default size and at 1024x700 -------------------------------------

@pytest.mark.parametrize("size", [(1180, 760), (1024, 700)])
def test_user_ids_are_readable(qtbot, window, engine, size):
    engine.store.set_profile("qq_1000000001", "昵称", "长", actor="cli")
    window.resize(*size)
    window.show_page(PAGE_USERS)
    page = window.users_page
    page.model.reload()
    QApplication.processEvents()
    view = page.view
    needed = view.fontMetrics().horizontalAdvance("qq_1000000001")
    assert view.columnWidth(0) >= needed + 8
    assert view.horizontalScrollBar().maximum() == 0 or not view.horizontalScrollBar().isVisible()
