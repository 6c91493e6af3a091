"""The window builds an existing database's recall index off the GUI thread: progress, Stop, resume."""
from __future__ import annotations

import threading

import pytest
from PySide6.QtCore import Qt

from core_helpers import PLUGIN_DDL, plugin_db
from kiraos_desktop.core.engine import Engine
from kiraos_desktop.ui.recall_build import RecallBuildIndicator
from ui_helpers import OFFSCREEN_NOTE

pytestmark = pytest.mark.qt_log_ignore(OFFSCREEN_NOTE)


@pytest.fixture
def old_engine(tmp_path, index_every_user):
    db = tmp_path / "kiraos.db"
    conn = plugin_db(db, PLUGIN_DDL)
    conn.executemany("INSERT INTO event_logs (user_id, event_summary) VALUES (?, ?)",
                     [(f"u{i % 4}", f"记录{i}") for i in range(40)])  # four users of ten: a build step each
    conn.commit()
    conn.close()
    engine = Engine.open(data_dir=tmp_path / "data", db=db)
    yield engine
    engine.close()


def test_the_build_shows_progress_stops_on_request_and_resumes(qtbot, old_engine, monkeypatch):
    store = old_engine.store
    step = store.recall_build_step
    gate = threading.Event()

    def slow_step(batch=None):
        done = step(10)  # four users of ten events; the second waits for the test
        if done[0] > 10:
            gate.wait(10)
        return done

    monkeypatch.setattr(store, "recall_build_step", slow_step)
    indicator = RecallBuildIndicator(store)
    qtbot.addWidget(indicator)
    messages = []
    indicator.message.connect(messages.append)
    assert indicator.start()
    qtbot.waitUntil(lambda: indicator.progress.value() > 0)
    assert not indicator.isHidden()
    qtbot.mouseClick(indicator.stop_button, Qt.MouseButton.LeftButton)
    gate.set()
    qtbot.waitUntil(lambda: not indicator.is_running())
    assert indicator.isHidden() and messages == ["Indexing stopped; it goes on at the next start."]
    assert not store.recall_build_complete
    done, total = store.recall_progress()
    assert 0 < done < total
    assert indicator.start()  # resumes where it stopped
    qtbot.waitUntil(lambda: not indicator.is_running())
    assert store.recall_build_complete and messages[-1] == "Recall index built: every event can be recalled."
    assert store._rows("SELECT count(DISTINCT event_id) FROM recall_terms")[0][0] == 40
    assert not indicator.start()  # nothing left to build


def test_the_window_starts_the_build_and_stops_it_on_close(qtbot, old_engine, tmp_path):
    from kiraos_desktop.ui.main_window import MainWindow
    from ui_helpers import ScriptedPrompts, ui_settings

    window = MainWindow(old_engine, None, ui_settings(tmp_path), ScriptedPrompts())
    qtbot.addWidget(window)
    qtbot.waitUntil(lambda: old_engine.store.recall_build_complete)
    qtbot.waitUntil(lambda: not window.recall_build.is_running())
    window.shutdown()
