"""The Overview's counts are read off the GUI thread: a slow count never holds the window."""
from __future__ import annotations

import threading

import pytest

from kiraos_desktop.ui.overview_page import OverviewPage

pytestmark = pytest.mark.qt_log_ignore("This plugin does not support propagateSizeHints")


def test_counts_are_read_on_another_thread_and_shown_when_they_arrive(qtbot, engine):
    engine.store.set_profile("u1", "city", "Beijing", actor="gui")
    engine.store.add_event("u1", "moved house", actor="gui")
    real_stats = engine.store.stats
    release = threading.Event()
    readers: list[threading.Thread] = []

    def slow_stats():
        readers.append(threading.current_thread())
        assert release.wait(10)
        return real_stats()

    engine.store.stats = slow_stats
    page = OverviewPage(engine.store, engine.skills)
    qtbot.addWidget(page)
    try:
        page.show()  # refresh() runs here and must return while the count is still being read
        qtbot.waitUntil(lambda: bool(readers))
        assert page.users_card.value_label.text() != "1"
        assert readers[0] is not threading.main_thread()
        release.set()
        qtbot.waitUntil(lambda: page.users_card.value_label.text() == "1")
        assert page.events_card.value_label.text() == "1"
        assert not page.first_run.isVisible()
    finally:
        release.set()
        page.shutdown()


def test_a_failed_count_leaves_the_cards_and_the_next_refresh_shows_them(qtbot, engine):
    engine.store.set_profile("u1", "city", "Beijing", actor="gui")
    real_stats = engine.store.stats
    calls = []

    def failing_once():
        calls.append(1)
        if len(calls) == 1:
            raise RuntimeError("database is busy")
        return real_stats()

    engine.store.stats = failing_once
    page = OverviewPage(engine.store, engine.skills)
    qtbot.addWidget(page)
    try:
        page.show()
        qtbot.waitUntil(lambda: len(calls) == 1)
        page.refresh(None)
        qtbot.waitUntil(lambda: page.users_card.value_label.text() == "1")
        assert page.profiles_card.value_label.text() == "1"
    finally:
        page.shutdown()
