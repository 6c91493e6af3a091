"""The rows recall reads: a user's newest events and the candidates for a message's words."""
import pytest

from core_helpers import make_engine
from kiraos_desktop.core.storage.recall_index import SCAN_LIMIT

pytestmark = pytest.mark.usefixtures("engine_backend")  # on SQLite and PostgreSQL


@pytest.mark.parametrize("newest", [0, 5, SCAN_LIMIT + 5])
def test_the_newest_events_and_every_candidate_are_read(data_dir, newest):
    engine = make_engine(data_dir, max_event_keep=1000)
    try:
        store = engine.store
        store.add_event("u", "养了一只橘猫", actor="gui", created_at="2020-01-01T00:00:00")  # far beyond the scan
        with store.batch("gui") as batch:
            for i in range(SCAN_LIMIT + 10):  # many share a time: the id orders those
                batch.add_event("u", f"打卡第{i}次", created_at=f"2026-{1 + i % 11:02d}-01T00:00:00")
            batch.add_event("u", "橘猫又胖了", created_at="2026-12-01T00:00:00")
        store.add_event("other", "橘猫", actor="gui")
        everything = store.get_events("u")
        latest, found, total = store.recall_rows("u", ("橘猫",), newest)
        assert latest == everything[:newest]
        assert total == len(everything)
        by_text = {e.summary: e for e in everything}
        assert len(found) == len({e.id for e in found})
        assert {by_text["养了一只橘猫"], by_text["橘猫又胖了"]} <= set(found)
        assert all(e.user_id == "u" for e in found)
    finally:
        engine.close()
