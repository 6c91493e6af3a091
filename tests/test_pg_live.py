"""LISTEN/NOTIFY freshness: other instances' writes reach the change bus, across server restarts."""
import threading

import psycopg
import pytest

from kiraos_desktop.core.memory.changes import ChangeBus, ChangeEvent
from kiraos_desktop.core.storage.postgres.notify import CHANNEL, ChangeListener

WAIT_S = 10  # an upper bound for waits on a condition, never a sleep


class Recorder:
    """Collects the bus's events and the listener's states; waits on a condition, not on a clock."""

    def __init__(self, bus: ChangeBus, listener: ChangeListener | None = None) -> None:
        self.events: list[ChangeEvent] = []
        self.states: list[bool] = []
        self._cond = threading.Condition()
        bus.subscribe(self._add_event)
        if listener is not None:
            listener.add_state_listener(self._add_state)

    def _add_event(self, event: ChangeEvent) -> None:
        with self._cond:
            self.events.append(event)
            self._cond.notify_all()

    def _add_state(self, connected: bool) -> None:
        with self._cond:
            self.states.append(connected)
            self._cond.notify_all()

    def wait_for(self, predicate, timeout: float = WAIT_S) -> bool:
        with self._cond:
            return self._cond.wait_for(predicate, timeout)


def notify(url: str, payload: str) -> None:
    with psycopg.connect(url, autocommit=True) as conn:
        conn.execute("SELECT pg_notify(%s, %s)", (CHANNEL, payload))


@pytest.fixture
def listening(pg_url):
    bus = ChangeBus()
    listener = ChangeListener(pg_url, bus, first_retry_s=0.05, max_retry_s=0.5)
    recorder = Recorder(bus, listener)
    listener.start()
    assert listener.wait_listening(WAIT_S)
    yield listener, recorder
    listener.stop()


def test_a_notification_publishes_an_external_change_of_that_user(pg_url, listening):
    listener, recorder = listening
    notify(pg_url, "alice")
    notify(pg_url, "bob")
    assert recorder.wait_for(lambda: len(recorder.events) >= 2)
    assert recorder.events == [ChangeEvent("alice", "external", "external"),
                               ChangeEvent("bob", "external", "external")]
    assert listener.connected is True and recorder.states == [True]


def test_repeated_writes_to_one_user_each_drop_the_cache(pg_url, listening):
    _, recorder = listening
    for _ in range(3):
        notify(pg_url, "alice")
    assert recorder.wait_for(lambda: len(recorder.events) >= 3)
    assert {event.user_id for event in recorder.events} == {"alice"}


def test_a_rolled_back_write_notifies_nobody(pg_url, listening):
    _, recorder = listening
    with psycopg.connect(pg_url) as conn:
        conn.execute("SELECT pg_notify(%s, 'ghost')", (CHANNEL,))
        conn.rollback()
    notify(pg_url, "after")
    assert recorder.wait_for(lambda: recorder.events)
    assert [event.user_id for event in recorder.events] == ["after"]


def test_after_a_server_restart_it_reconnects_and_asks_for_a_full_refresh(pg_server, pg_url, listening):
    if not pg_server.managed:
        pytest.skip("the developer's own server is not restarted by the tests")
    listener, recorder = listening
    pg_server.restart()
    assert recorder.wait_for(lambda: recorder.states[-1:] == [True] and len(recorder.states) == 3)
    assert recorder.states == [True, False, True]
    assert listener.wait_listening(WAIT_S)
    assert recorder.wait_for(lambda: ChangeEvent(None, "external", "external") in recorder.events)
    notify(pg_url, "carol")
    assert recorder.wait_for(lambda: ChangeEvent("carol", "external", "external") in recorder.events)


def test_an_unreachable_server_is_reported_without_the_password_and_retried(pg_server, pg_url):
    stopped_port = pg_url.replace(pg_url.split("@", 1)[1].split("/", 1)[0], "127.0.0.1:1")
    bus = ChangeBus()
    listener = ChangeListener(stopped_port, bus, first_retry_s=0.05, max_retry_s=0.1)
    recorder = Recorder(bus, listener)
    listener.start()
    try:
        assert recorder.wait_for(lambda: recorder.states == [False])
        assert listener.connected is False
        assert listener.last_error and "test-secret" not in listener.last_error
        assert "\n" not in listener.last_error
    finally:
        listener.stop()
    assert recorder.events == []


def test_stop_ends_the_thread_and_closes_its_connection(pg_url):
    listener = ChangeListener(pg_url, ChangeBus())
    listener.start()
    assert listener.wait_listening(WAIT_S)
    thread = listener._thread
    listener.stop()
    assert not thread.is_alive()
    with psycopg.connect(pg_url, autocommit=True) as conn:
        names = [row[0] for row in conn.execute(
            "SELECT application_name FROM pg_stat_activity WHERE datname = current_database()")]
    assert "kiraos-desktop listener" not in names
