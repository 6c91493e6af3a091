"""Long operations off the GUI thread: progress, cancellation, errors shown; File menu actions end to end."""
import json
import sqlite3
import threading

import pytest

from kiraos_desktop.core.engine import Engine
from kiraos_desktop.core.transfer.export_import import Cancelled
from kiraos_desktop.ui import file_actions, tasks
from kiraos_desktop.ui.prompts import prompts
from kiraos_desktop.ui.busy_box import BusyBox
from kiraos_desktop.ui.tasks import TaskRunner, run_task

pytestmark = pytest.mark.qt_log_ignore("This plugin does not support propagateSizeHints")


@pytest.fixture
def other_engine(tmp_path):
    eng = Engine.open(data_dir=tmp_path / "other")
    yield eng
    eng.close()


@pytest.fixture
def answers(monkeypatch):
    """Records every prompt; confirm answers from `answers.confirm_with` (True by default)."""
    class Answers:
        confirm_with = True
        save_path = ""
        open_path = ""

        def __init__(self):
            self.infos, self.errors, self.questions = [], [], []
    rec = Answers()
    monkeypatch.setattr(prompts, "info", lambda parent, title, text: rec.infos.append(text))
    monkeypatch.setattr(prompts, "error", lambda parent, title, text: rec.errors.append(text))
    monkeypatch.setattr(prompts, "confirm",
                        lambda parent, title, text, ok="": rec.questions.append(text) or rec.confirm_with)
    monkeypatch.setattr(prompts, "save_file", lambda parent, caption, path, filters: str(rec.save_path))
    monkeypatch.setattr(prompts, "open_file", lambda parent, caption, folder, filters: str(rec.open_path))
    return rec


def fill(engine, users=3):
    for i in range(users):
        uid = f"user_{i}"
        engine.store.set_profile(uid, "昵称", f"小明{i}", actor="gui", confidence=0.9)
        engine.store.set_profile(uid, "城市", "北京", actor="gui", category="basic")
        engine.store.add_event(uid, f"完成半马 {i}", actor="gui")


def snapshot(engine):
    stats = engine.store.stats()
    return (stats.total_users, stats.total_profiles, stats.total_events, engine.store.last_change_id())


@pytest.fixture
def shown_progress(monkeypatch):
    """Every value the progress dialog is given (reported from the worker, set on the GUI thread)."""
    values = []
    original = BusyBox.setValue

    def record(self, value):
        values.append((value, self.maximum(), threading.current_thread() is threading.main_thread()))
        original(self, value)
    monkeypatch.setattr(BusyBox, "setValue", record)
    return values


def on_worker(fn):
    """Wrap fn to record whether it ran off the GUI thread."""
    threads = []

    def wrapper(*args, **kwargs):
        threads.append(threading.current_thread())
        return fn(*args, **kwargs)
    wrapper.threads = threads
    return wrapper


# ---- the runner ---------------------------------------------------------------------------------

def test_runner_reports_progress_and_result_off_the_gui_thread(qtbot):
    seen = []
    runner = TaskRunner(lambda progress, cancelled: [progress(i, 3) for i in range(1, 4)]
                        and threading.current_thread().name)
    runner.progressed.connect(lambda done, total: seen.append((done, total)))
    with qtbot.waitSignal(runner.succeeded, timeout=5000) as blocker:
        with qtbot.waitSignal(runner.finished, timeout=5000):
            runner.start()
    assert blocker.args[0] != threading.main_thread().name
    assert seen[-1] == (3, 3)


def test_runner_reports_an_error_as_a_message(qtbot):
    def boom(progress, cancelled):
        raise OSError("disk full")
    runner = TaskRunner(boom)
    with qtbot.waitSignal(runner.failed, timeout=5000) as blocker:
        runner.start()
    assert blocker.args == ["disk full"]
    runner.wait()


def test_runner_cancel_stops_a_task_that_checks(qtbot):
    started = threading.Event()

    def slow(progress, cancelled):
        started.set()
        while not cancelled():
            threading.Event().wait(0.01)
        raise Cancelled("stopped")
    runner = TaskRunner(slow)
    runner.start()
    assert started.wait(5)
    with qtbot.waitSignal(runner.cancelled, timeout=5000):
        runner.cancel()
    assert runner.wait()
    qtbot.waitUntil(lambda: not runner.is_running())  # once the event loop has seen the thread end


def test_cancel_through_progress_only_before_the_end(qtbot):
    def work(progress, cancelled):
        progress(5, 5)  # the end is never turned into a cancel: the work is done
        return "done"
    runner = TaskRunner(work)
    runner.cancel()
    with qtbot.waitSignal(runner.succeeded, timeout=5000) as blocker:
        runner.start()
    assert blocker.args == ["done"]
    runner.wait()


def test_run_task_returns_the_result(qtbot):
    outcome = run_task(None, "t", lambda p, c: 42)
    assert outcome.ok and outcome.result == 42


def test_run_task_reports_a_failure_in_plain_words(qtbot):
    def bad(progress, cancelled):
        raise ValueError("users[3].key: must not be empty")
    outcome = run_task(None, "Import", bad)
    assert outcome.status == "failed" and outcome.result is None
    assert outcome.message == "users[3].key: must not be empty"


def test_unexpected_exceptions_name_their_type(qtbot):
    def bad(progress, cancelled):
        raise KeyError("x")
    outcome = run_task(None, "t", bad)
    assert outcome.status == "failed" and outcome.message.startswith("KeyError")


# ---- backup ---------------------------------------------------------------------------------------

def test_backup_runs_off_the_gui_thread_and_reports(qtbot, engine, answers, tmp_path, monkeypatch, shown_progress):
    fill(engine)
    wrapped = on_worker(file_actions.backup_database)
    monkeypatch.setattr(file_actions, "backup_database", wrapped)
    answers.save_path = tmp_path / "copy.db"
    result = file_actions.backup(None, prompts, engine)
    assert result == answers.save_path
    assert wrapped.threads and wrapped.threads[0] is not threading.main_thread()
    with sqlite3.connect(result) as db:
        assert db.execute("SELECT count(*) FROM user_profiles").fetchone()[0] == 6
    assert "copy.db" in answers.infos[0]
    assert any(value > 0 and value == maximum for value, maximum, _ in shown_progress)
    assert all(on_gui for *_, on_gui in shown_progress)


def test_backup_over_an_existing_file_replaces_it(qtbot, engine, answers, tmp_path):
    fill(engine)
    target = tmp_path / "old.db"
    target.write_text("not a database")
    answers.save_path = target
    assert file_actions.backup(None, prompts, engine) == target
    with sqlite3.connect(target) as db:
        assert db.execute("SELECT count(*) FROM event_logs").fetchone()[0] == 3
    assert [p.name for p in tmp_path.iterdir() if p.name.startswith(".")] == []


def test_backup_cancelled_by_the_file_dialog_does_nothing(qtbot, engine, answers):
    answers.save_path = ""
    assert file_actions.backup(None, prompts, engine) is None
    assert answers.infos == [] and answers.errors == []


def test_backup_error_is_shown(qtbot, engine, answers, tmp_path):
    blocker = tmp_path / "file"
    blocker.write_text("x")
    answers.save_path = blocker / "sub" / "b.db"  # a folder inside a file: cannot be created
    assert file_actions.backup(None, prompts, engine) is None
    assert answers.errors and "backup failed" in answers.errors[0]


# ---- export and import ----------------------------------------------------------------------------

def test_export_then_import_into_another_data_dir(qtbot, engine, other_engine, answers, tmp_path, monkeypatch,
                                                  shown_progress):
    fill(engine, users=4)
    wrapped = on_worker(file_actions.export_file)
    monkeypatch.setattr(file_actions, "export_file", wrapped)
    answers.save_path = tmp_path / "all.json"
    assert file_actions.export_all(None, prompts, engine) == 4
    assert wrapped.threads[0] is not threading.main_thread()
    assert json.loads(answers.save_path.read_text(encoding="utf-8"))["users"][0]["user_id"] == "user_0"

    answers.open_path = answers.save_path
    result = file_actions.import_file(None, prompts, other_engine)
    assert result == (8, 4)
    assert "4 users with 8 profile entries and 4 events" in answers.questions[0]
    assert other_engine.store.get_profile("user_2", "昵称").value == "小明2"
    assert "Imported 8 profile entries and 4 new events" in answers.infos[-1]
    assert (12, 12, True) in shown_progress  # the import's 8 profiles + 4 events, shown on the GUI thread


def test_export_one_user(qtbot, engine, answers, tmp_path):
    fill(engine)
    answers.save_path = tmp_path / "one.json"
    assert file_actions.export_all(None, prompts, engine, ["user_1"]) == 1
    users = json.loads(answers.save_path.read_text(encoding="utf-8"))["users"]
    assert [u["user_id"] for u in users] == ["user_1"]


def test_import_confirm_mentions_existing_users(qtbot, engine, answers, tmp_path):
    fill(engine, users=2)
    answers.save_path = tmp_path / "e.json"
    file_actions.export_all(None, prompts, engine)
    answers.open_path = answers.save_path
    answers.confirm_with = False
    before = snapshot(engine)
    assert file_actions.import_file(None, prompts, engine) is None
    assert "2 of these users already have memory" in answers.questions[0]
    assert snapshot(engine) == before


def big_export(path, users=300, keys=10):
    data = {"format": "kiraos-desktop-export", "version": 1, "users": [
        {"user_id": f"u{i}", "profiles": [{"key": f"k{j}", "value": f"v{j}"} for j in range(keys)],
         "events": [{"event_summary": "e", "created_at": "2025-03-01T10:00:00"}]} for i in range(users)]}
    path.write_text(json.dumps(data), encoding="utf-8")
    return path


def test_cancelled_import_changes_nothing(qtbot, other_engine, answers, tmp_path, monkeypatch):
    answers.open_path = big_export(tmp_path / "big.json")
    original_start = TaskRunner.start

    def start_then_cancel(self):  # the user presses Cancel as soon as the work begins
        self.cancel()
        original_start(self)
    before = snapshot(other_engine)
    monkeypatch.setattr(file_actions, "apply_import", on_worker(file_actions.apply_import))
    real_run_task = file_actions.run_task

    def run_task_cancelling_apply(parent, title, fn, **kwargs):
        if kwargs.get("label") == "Importing…":  # not the checking step before it
            monkeypatch.setattr(TaskRunner, "start", start_then_cancel)
        try:
            return real_run_task(parent, title, fn, **kwargs)
        finally:
            monkeypatch.setattr(TaskRunner, "start", original_start)
    monkeypatch.setattr(file_actions, "run_task", run_task_cancelling_apply)
    assert file_actions.import_file(None, prompts, other_engine) is None
    assert file_actions.apply_import.threads  # the import really started
    assert answers.infos == ["Import cancelled; nothing was changed."]
    assert snapshot(other_engine) == before


@pytest.mark.parametrize("content,fragment", [
    ("{not json", "not valid JSON"),
    ('{"format": "kiraos-desktop-export", "version": 1, "users": [{"user_id": "u", "profiles": '
     '[{"key": "", "value": "x"}]}]}', "users[0].profiles[0].key"),
    ('{"format": "something-else", "version": 1, "users": []}', "format"),
])
def test_bad_import_file_is_shown_and_changes_nothing(qtbot, engine, answers, tmp_path, content, fragment):
    fill(engine)
    path = tmp_path / "bad.json"
    path.write_text(content, encoding="utf-8")
    answers.open_path = path
    before = snapshot(engine)
    assert file_actions.import_file(None, prompts, engine) is None
    assert len(answers.errors) == 1 and fragment in answers.errors[0]
    assert "Nothing was changed" in answers.errors[0]
    assert answers.questions == []
    assert snapshot(engine) == before


def test_import_failure_while_writing_is_shown(qtbot, engine, answers, tmp_path, monkeypatch):
    answers.open_path = big_export(tmp_path / "ok.json", users=2, keys=2)

    def broken(*args, **kwargs):
        raise OSError("database disk image is malformed")
    monkeypatch.setattr(file_actions, "apply_import", broken)
    before = snapshot(engine)
    assert file_actions.import_file(None, prompts, engine) is None
    assert "malformed" in answers.errors[0]
    assert snapshot(engine) == before


# ---- purge ----------------------------------------------------------------------------------------

def _writer(engine):
    from PySide6.QtGui import QUndoStack

    from kiraos_desktop.ui.undo import UndoableWriter

    return UndoableWriter(engine.store, QUndoStack())


def test_purge_expired_removes_only_expired_entries(qtbot, engine, answers):
    fill(engine)
    engine.store.set_profile("user_0", "旧", "x", actor="gui", expires_at="2000-01-01T00:00:00")
    engine.store.set_profile("user_1", "旧", "y", actor="gui", expires_at="2000-01-01T00:00:00")
    writer = _writer(engine)
    assert file_actions.purge_all_expired(None, prompts, writer) == 2
    assert engine.store.get_profile("user_0", "旧") is None
    assert engine.store.get_profile("user_1", "旧") is None
    assert engine.store.stats().total_profiles == 6  # the entries that had not expired stay
    assert file_actions.purge_all_expired(None, prompts, writer) == 0
    assert answers.infos[-1] == "There were no expired entries."


def test_purge_cancelled_at_the_question(qtbot, engine, answers):
    engine.store.set_profile("user_0", "旧", "x", actor="gui", expires_at="2000-01-01T00:00:00")
    answers.confirm_with = False
    assert file_actions.purge_all_expired(None, prompts, _writer(engine)) is None
    assert engine.store.get_profile("user_0", "旧") is not None
