"""TaskLane: reads one after another on one long-lived thread, the newest first, answered on the GUI thread."""
from __future__ import annotations

import threading

import pytest

from kiraos_desktop.core.transfer.export_import import Cancelled
from kiraos_desktop.ui.tasks import TaskLane, plain


@pytest.fixture
def lane(qapp):
    lane = TaskLane("test-lane")
    yield lane
    lane.stop()


def test_answers_arrive_on_the_gui_thread_from_one_thread(qtbot, lane):
    answers = []
    lane.finished.connect(lambda ticket, result, error: answers.append((ticket, result, error,
                                                                      threading.current_thread().name)))
    first = lane.submit(plain(lambda: threading.current_thread().name))
    qtbot.waitUntil(lambda: len(answers) == 1, timeout=5000)
    second = lane.submit(plain(lambda: threading.current_thread().name))
    qtbot.waitUntil(lambda: len(answers) == 2, timeout=5000)
    assert [(t, r, e) for t, r, e, _ in answers] == [(first, "test-lane", None), (second, "test-lane", None)]
    assert {gui for *_, gui in answers} == {threading.main_thread().name}


def test_a_newer_request_replaces_the_waiting_one_and_cancels_the_running_one(qtbot, lane):
    started, release = threading.Event(), threading.Event()
    answers = []
    lane.finished.connect(lambda ticket, result, error: answers.append((ticket, result, error)))

    def slow(progress, is_cancelled):
        started.set()
        release.wait(5)
        for n in range(10):
            progress(n, 10)  # a task that reports progress stops once told to cancel
        return "slow"

    running = lane.submit(slow)
    assert started.wait(5)
    lane.submit(plain(lambda: "never run"))  # waiting: replaced by the next
    newest = lane.submit(plain(lambda: "newest"))
    release.set()
    qtbot.waitUntil(lambda: len(answers) == 2, timeout=5000)
    (first_ticket, first_result, first_error), last = answers
    assert first_ticket == running and first_result is None and isinstance(first_error, Cancelled)
    assert last == (newest, "newest", None) and lane.latest_ticket == newest


def test_a_failure_is_answered_with_its_exception(qtbot, lane):
    answers = []
    lane.finished.connect(lambda ticket, result, error: answers.append((result, error)))

    def broken():
        raise ValueError("no such column")

    lane.submit(plain(broken))
    qtbot.waitUntil(lambda: len(answers) == 1, timeout=5000)
    result, error = answers[0]
    assert result is None and isinstance(error, ValueError) and str(error) == "no such column"


def test_stop_ends_the_thread_and_later_requests_run_nothing(qtbot, lane):
    ran = []
    lane.submit(plain(lambda: ran.append(1)))
    qtbot.waitUntil(lambda: ran == [1], timeout=5000)
    lane.stop()
    assert not [t for t in threading.enumerate() if t.name == "test-lane"]
    lane.submit(plain(lambda: ran.append(2)))
    qtbot.wait(100)
    assert ran == [1]


def test_stop_without_waiting_returns_while_a_task_runs_and_nothing_is_answered(qtbot, lane):
    started, release = threading.Event(), threading.Event()
    answers = []
    lane.finished.connect(lambda *args: answers.append(args))
    lane.submit(plain(lambda: started.set() or release.wait(5)))
    assert started.wait(5)
    lane.stop(wait=False)  # returns at once although the task is still running
    release.set()
    qtbot.waitUntil(lambda: not [t for t in threading.enumerate() if t.name == "test-lane"], timeout=5000)
    qtbot.wait(50)
    assert answers == []
