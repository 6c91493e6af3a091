"""A user's tabs read their rows off the GUI thread when the store says its reads wait (PostgreSQL: a
round trip each): the window keeps painting, the rows arrive, the newest read wins, a failure is said."""
from __future__ import annotations

import threading

import pytest
from PySide6.QtGui import QUndoStack

from kiraos_desktop.core.memory.records import StoreUnavailable
from kiraos_desktop.ui.undo import UndoableWriter
from kiraos_desktop.ui.users.user_detail import TAB_EVENTS, TAB_HISTORY, TAB_PROFILE, UserDetail
from ui_helpers import OFFSCREEN_NOTE, ScriptedPrompts

pytestmark = pytest.mark.qt_log_ignore(OFFSCREEN_NOTE)


class WaitingStore:
    """The engine's store, saying that its reads wait on a server; get_profiles waits for `release`."""

    inline_ok = False

    def __init__(self, store) -> None:
        self._store = store
        self.release = threading.Event()
        self.read_on: list[str] = []
        self.fail = False

    def __getattr__(self, name):
        return getattr(self._store, name)

    def get_profiles(self, user_id, include_expired=True):
        self.read_on.append(threading.current_thread().name)
        assert self.release.wait(10)
        if self.fail:
            raise StoreUnavailable("the database server is unreachable")
        return self._store.get_profiles(user_id, include_expired)


@pytest.fixture
def detail(qtbot, engine):
    for user in ("amy", "bob"):
        engine.store.set_profile(user, "城市", f"{user}-city", actor="gui")
        engine.store.add_event(user, f"{user} event", actor="gui")
    store = WaitingStore(engine.store)
    stack = QUndoStack()
    widget = UserDetail(store, UndoableWriter(engine.store, stack), engine.context, ScriptedPrompts())
    qtbot.addWidget(widget)
    widget.store_for_test = store
    yield widget
    store.release.set()
    stack.clear()


def cities(tab) -> list[str]:
    return [tab.model.row_at(row).value for row in range(tab.model.rowCount())]


def test_the_profile_is_read_off_the_gui_thread_while_the_window_paints(qtbot, detail):
    store = detail.store_for_test
    detail.tabs.setCurrentIndex(TAB_PROFILE)
    detail.set_user("amy")  # returns at once: the read waits on its lane
    qtbot.waitUntil(lambda: bool(store.read_on), timeout=5000)
    assert store.read_on[0] != threading.current_thread().name
    ticks = []
    qtbot.waitUntil(lambda: ticks.append(1) or len(ticks) > 3, timeout=2000)  # the event loop runs meanwhile
    assert cities(detail.profile_tab) == []
    store.release.set()
    qtbot.waitUntil(lambda: cities(detail.profile_tab) == ["amy-city"], timeout=5000)
    assert detail.profile_tab.count_label.text().startswith("1 entr")


def test_the_newest_read_wins(qtbot, detail):
    store = detail.store_for_test
    detail.tabs.setCurrentIndex(TAB_PROFILE)
    detail.set_user("amy")
    detail.set_user("bob")
    store.release.set()
    qtbot.waitUntil(lambda: cities(detail.profile_tab) == ["bob-city"], timeout=5000)
    qtbot.wait(100)
    assert cities(detail.profile_tab) == ["bob-city"]


def test_events_and_history_are_read_off_the_gui_thread_too(qtbot, detail):
    store = detail.store_for_test
    store.release.set()
    for index, tab in ((TAB_EVENTS, detail.events_tab), (TAB_HISTORY, detail.history_tab)):
        detail.tabs.setCurrentIndex(index)
        detail.set_user("amy")
        qtbot.waitUntil(lambda tab=tab: tab.model.rowCount() > 0, timeout=5000)
        assert not tab.model.reads.inline


def test_a_failed_read_is_said_in_the_tab(qtbot, detail):
    store = detail.store_for_test
    store.fail = True
    store.release.set()
    detail.tabs.setCurrentIndex(TAB_PROFILE)
    detail.set_user("amy")
    label = detail.profile_tab.message_label
    qtbot.waitUntil(lambda: not label.isHidden(), timeout=5000)
    assert "unreachable" in label.text() and cities(detail.profile_tab) == []
    empty = detail.profile_tab.empty_state
    assert not empty.isHidden() and "Not read" in empty.text() and "yet" not in empty.text()


def test_the_header_and_the_context_block_are_read_off_the_gui_thread(qtbot, engine):
    from kiraos_desktop.ui.users.user_detail import TAB_CONTEXT

    engine.store.set_profile("amy", "城市", "北京", actor="gui")
    store = WaitingStore(engine.store)
    seen: list[str] = []
    real_summary = engine.store.user_summary

    def user_summary(user_id):
        seen.append(threading.current_thread().name)
        return real_summary(user_id)

    store.user_summary = user_summary
    store.release.set()
    stack = QUndoStack()
    detail = UserDetail(store, UndoableWriter(engine.store, stack), engine.context, ScriptedPrompts())
    qtbot.addWidget(detail)
    detail.tabs.setCurrentIndex(TAB_CONTEXT)
    detail.set_user("amy")
    qtbot.waitUntil(lambda: "城市=北京" in detail.context_tab.text_view.toPlainText(), timeout=5000)
    qtbot.waitUntil(lambda: "1 profile entr" in detail.summary_label.text(), timeout=5000)
    assert seen and threading.current_thread().name not in seen
    stack.clear()


def test_a_failed_read_of_the_header_says_what_it_could_not_read(qtbot, detail):
    store = detail.store_for_test

    def unreachable(user_id):
        raise StoreUnavailable("the database server is unreachable")

    store.user_summary = unreachable
    detail.set_user("amy")
    label = detail.summary_label
    qtbot.waitUntil(lambda: "unreachable" in label.text(), timeout=5000)
    assert label.text() == "Could not read this user's memory: the database server is unreachable"
