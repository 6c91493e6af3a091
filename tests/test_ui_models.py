"""Every Qt model of the operator window passes qtmodeltester, also while it syncs to new rows."""
from __future__ import annotations

import pytest
from hypothesis import given, settings, strategies as st
from PySide6.QtCore import QModelIndex, QPersistentModelIndex, Qt
from PySide6.QtGui import QUndoStack

from kiraos_desktop.ui.keyed_model import KeyedTableModel
from kiraos_desktop.ui.overview_page import ChangeFeedModel
from kiraos_desktop.ui.undo import UndoableWriter
from kiraos_desktop.ui.users.events_model import EventsModel
from kiraos_desktop.ui.users.history_model import HistoryModel
from kiraos_desktop.ui.users.profile_model import ProfileFilterProxy, ProfileModel
from kiraos_desktop.ui.users.users_model import UsersModel
from ui_helpers import OFFSCREEN_NOTE, seed

pytestmark = pytest.mark.qt_log_ignore(OFFSCREEN_NOTE)


@pytest.fixture
def engine(engine):
    seed(engine, users=5)
    return engine


@pytest.fixture
def writer(engine, qapp):
    stack = QUndoStack()
    writer = UndoableWriter(engine.store, stack)
    yield writer
    stack.deleteLater()


def test_users_model(qtmodeltester, engine):
    model = UsersModel(engine.store)
    assert model.rowCount() == 5
    qtmodeltester.check(model)
    model.sort(2, Qt.SortOrder.DescendingOrder)
    model.set_search("u1")
    assert [model.row_at(r).user_id for r in range(model.rowCount())] == ["u1"]
    engine.store.set_profile("u9", "k", "v", actor="cli")
    model.refresh(frozenset({"u9"}))
    model.shutdown()


def test_users_model_pages_lazily(qtmodeltester, engine):
    with engine.store.batch("cli") as batch:
        for n in range(450):
            batch.add_event(f"p{n:04d}", "事件")
    model = UsersModel(engine.store)
    assert model.rowCount() == 200
    assert model.canFetchMore()
    qtmodeltester.check(model)
    while model.canFetchMore():
        model.fetchMore()
    assert model.rowCount() == 455
    model.shutdown()


def test_users_model_content_search(qtbot, qtmodeltester, engine):
    engine.store.set_profile("u3", "爱好", "独一无二的值", actor="cli")
    model = UsersModel(engine.store)
    qtmodeltester.check(model)
    with qtbot.waitSignal(model.reloaded, timeout=5000):
        model.set_search("独一无二", in_content=True)
    assert [model.row_at(r).user_id for r in range(model.rowCount())] == ["u3"]
    model.shutdown()


def test_users_model_refresh_reads_off_the_gui_thread(qtbot, qtmodeltester, monkeypatch, engine):
    """After writes the list and its count are read on a worker thread (counting 100k users takes tens
    of ms, and a busy bot writes all the time); the rows follow when the answer arrives."""
    import threading

    threads = []
    real = engine.store.count_users

    def spy(*args, **kwargs):
        threads.append(threading.current_thread().name)
        return real(*args, **kwargs)

    model = UsersModel(engine.store)
    qtmodeltester.check(model)
    before = model.total
    monkeypatch.setattr(engine.store, "count_users", spy)
    engine.store.set_profile("a0", "k", "v", actor="cli")  # sorts first
    with qtbot.waitSignal(model.refreshed, timeout=5000):
        model.refresh(frozenset({"a0"}))
    assert model.row_at(0).user_id == "a0" and model.total == before + 1
    assert threads and all(name.startswith("kiraos-user-refresh") for name in threads)
    model.set_search("u1")  # a reload makes a refresh answer that was still on its way stale
    engine.store.set_profile("u10", "k", "v", actor="cli")
    model.refresh(frozenset({"u10"}))
    model.set_search("u10")
    qtbot.waitUntil(lambda: not model._refresher._job, timeout=5000)
    qtbot.wait(50)
    assert [model.row_at(r).user_id for r in range(model.rowCount())] == ["u10"]
    model.shutdown()


def test_profile_model_and_proxy(qtmodeltester, engine, writer):
    engine.store.set_profile("u1", "旧", "过期了", actor="cli", expires_at="2000-01-01T00:00:00")
    model = ProfileModel(engine.store, writer)
    model.load("u1")
    assert model.rowCount() == 5
    qtmodeltester.check(model)
    proxy = ProfileFilterProxy()
    proxy.setSourceModel(model)
    assert proxy.rowCount() == 4
    qtmodeltester.check(proxy)
    proxy.set_show_expired(True)
    assert proxy.rowCount() == 5
    engine.store.set_profile("u1", "新", "值", actor="cli", category="other")
    engine.store.delete_profile("u1", "城市", actor="cli")
    model.refresh()
    assert {model.row_at(r).key for r in range(model.rowCount())} == {"昵称", "喜欢猫", "好友", "旧", "新"}


def test_events_model(qtmodeltester, engine, writer):
    engine.update_settings(engine.settings.replace(max_event_keep=0))
    with engine.store.batch("cli") as batch:
        for n in range(430):
            batch.add_event("u2", f"事件 {n}", created_at=f"2024-01-01T00:{n // 60:02d}:{n % 60:02d}")
    model = EventsModel(engine.store, writer)
    model.load("u2")
    assert model.rowCount() == 200 and model.canFetchMore()
    qtmodeltester.check(model)
    model.fetchMore()
    model.fetchMore()
    assert model.rowCount() == 432 and not model.canFetchMore()
    assert model.index(0, 1).data() == "完成半马"  # newest first
    engine.store.add_event("u2", "最新", actor="cli")
    model.refresh()
    assert model.index(0, 1).data() == "最新"


def test_history_and_feed_models(qtmodeltester, engine):
    for n in range(5):
        engine.store.set_profile("u1", "城市", f"城市{n}", actor="api")
    history = HistoryModel(engine.store, page_size=3)
    history.load("u1")
    qtmodeltester.check(history)
    while history.canFetchMore():
        history.fetchMore()
    assert history.rowCount() == len(engine.store.list_changes("u1", limit=1000))
    feed = ChangeFeedModel(engine.store)
    feed.refresh()
    qtmodeltester.check(feed)
    engine.store.add_event("u4", "新事件", actor="api")
    feed.refresh()
    assert feed.index(0, 2).data() == "u4"
    assert "新事件" in feed.index(0, 3).data()


class Rows(KeyedTableModel):
    def row_key(self, row):
        return row[0]

    def columnCount(self, parent=QModelIndex()):
        return 0 if parent.isValid() else 2

    def data(self, index, role=Qt.ItemDataRole.DisplayRole):
        if not index.isValid() or role != Qt.ItemDataRole.DisplayRole:
            return None
        return str(self._rows[index.row()][index.column()])


keys = st.lists(st.integers(0, 30), unique=True, max_size=25)


@settings(max_examples=60, deadline=None)
@given(before=keys, after=keys, version=st.integers(0, 2))
def test_sync_rows_keeps_persistent_indexes(qapp, before, after, version):
    model = Rows()
    model.set_rows_reset([(k, 0) for k in before])
    tracked = {k: QPersistentModelIndex(model.index(i, 1)) for i, k in enumerate(before)}
    model.sync_rows([(k, version) for k in after])
    assert model.rows() == [(k, version) for k in after]
    for key, index in tracked.items():
        if key in after:
            assert index.isValid() and index.row() == after.index(key) and index.column() == 1
        else:
            assert not index.isValid()


def test_sync_rows_under_the_model_tester(qtmodeltester):
    model = Rows()
    model.set_rows_reset([(k, 0) for k in (1, 2, 3, 4, 5)])
    qtmodeltester.check(model)
    for target in ([5, 4, 9, 1], [9, 7, 5], [], [3, 1, 2], [1, 2, 3, 4, 5, 6]):
        model.sync_rows([(k, 1) for k in target])
        assert [r[0] for r in model.rows()] == target


def test_feed_and_history_format_audit_rows_alike(qapp, engine):
    engine.store.set_profile("u1", "城市", "上海", actor="api")
    history = HistoryModel(engine.store)
    history.load("u1")
    feed = ChangeFeedModel(engine.store)
    feed.refresh()
    row = [history.index(0, column).data() for column in range(5)]
    line = [feed.index(0, column).data() for column in range(4)]
    assert row[:4] == [line[0], "API", "set entry", "城市"] and line[1:3] == ["API", "u1"]  # actor_label()
    assert row[4].startswith("北京 [basic, 0.80] → 上海 [")
    assert line[3] == f"set entry 城市: {row[4]}"
    at = engine.store.list_changes("u1", limit=1)[0].at
    assert history.index(0, 0).data(Qt.ItemDataRole.ToolTipRole) == feed.index(0, 0).data(Qt.ItemDataRole.ToolTipRole) == at
    assert "上海" in history.index(0, 4).data(Qt.ItemDataRole.ToolTipRole)
    assert feed.index(0, 3).data(Qt.ItemDataRole.ToolTipRole) is None
    event_id = engine.store.add_event("u1", "新事件", actor="api")
    history.refresh()
    feed.refresh()
    assert history.index(0, 3).data() == f"#{event_id}"  # the History tab shows the id
    assert feed.index(0, 3).data() == "add event: + 新事件"  # the feed leaves it out
