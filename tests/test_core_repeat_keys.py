"""The repeat check's codes (repeat_keys.py): found by one look-up, kept right whoever writes the events."""
from datetime import datetime

import pytest

from kiraos_desktop.core.storage import sql_write_batch as write_batch

pytestmark = pytest.mark.usefixtures("engine_backend")  # every test on SQLite and PostgreSQL


def update(engine, *texts, user="u"):
    return engine.memory_tools.update(user, [{"op": "event", "value": t} for t in texts], actor="tool")


def plugin_sql(engine, sql, params=()):
    """A write made without the check (as the plugin's own connection makes them)."""
    with engine.store.batch("plugin") as batch:
        batch.execute(sql, params)


def now_text():
    return datetime.now().isoformat(timespec="seconds")


def test_an_event_written_without_the_check_is_a_repeat(engine):
    plugin_sql(engine, "INSERT INTO event_logs (user_id, event_summary, created_at) VALUES (?, ?, ?)",
               ("u", "完成半马", now_text()))
    assert update(engine, "完成 半马！") == "已完成 0 项记忆操作: event (repeat): 完成 半马！"


def test_the_same_text_twice_in_one_call_is_stored_once(engine):
    assert update(engine, "完成半马", "完成半马。") == "已完成 1 项记忆操作: event: 完成半马; event (repeat): 完成半马。"
    assert [e.summary for e in engine.store.get_events("u")] == ["完成半马"]


def test_an_event_changed_elsewhere_is_checked_by_its_new_text(engine):
    update(engine, "完成半马")
    plugin_sql(engine, "UPDATE event_logs SET event_summary = ? WHERE user_id = ?", ("去看电影", "u"))
    assert update(engine, "完成半马") == "已完成 1 项记忆操作: event: 完成半马"
    assert update(engine, "去看 电影") == "已完成 0 项记忆操作: event (repeat): 去看 电影"


def test_an_event_deleted_elsewhere_is_no_repeat_and_leaves_no_code(engine):
    update(engine, "完成半马")
    plugin_sql(engine, "DELETE FROM event_logs WHERE user_id = ?", ("u",))
    with engine.store.batch("test") as batch:
        assert batch.execute("SELECT count(*) FROM event_repeat_keys").fetchone()[0] == 0
    assert update(engine, "完成半马") == "已完成 1 项记忆操作: event: 完成半马"


def test_an_event_edited_in_the_window_is_checked_by_its_new_text(engine):
    update(engine, "完成半马")
    [event] = engine.store.get_events("u")
    engine.store.update_event("u", event.id, "去看电影", actor="gui")
    assert update(engine, "完成半马", "去看电影") == "已完成 1 项记忆操作: event: 完成半马; event (repeat): 去看电影"


def test_a_check_reads_no_other_stored_text_once_the_events_are_coded(engine, monkeypatch):
    """The cost of a check does not grow with the user's events of the day: no stored text is
    normalised again (the old check normalised every one of them, for every operation)."""
    rows = [("u", f"第{n}件事：今天去了很多地方" * 20, now_text()) for n in range(300)]
    with engine.store.batch("plugin") as batch:
        for row in rows:
            batch.execute("INSERT INTO event_logs (user_id, event_summary, created_at) VALUES (?, ?, ?)", row)
    update(engine, "第一次检查")  # codes the events once (and trims them to the newest max_event_keep)
    seen = []
    real_key, real_code = write_batch.repeat_key, write_batch.text_code
    monkeypatch.setattr(write_batch, "repeat_key", lambda text: seen.append(text) or real_key(text))
    monkeypatch.setattr(write_batch, "text_code", lambda text: seen.append(text) or real_code(text))
    new = [f"新的事情 {n}" for n in range(5)]
    assert update(engine, *new).startswith("已完成 5 项记忆操作")
    assert set(seen) <= set(new)
    seen.clear()
    assert "event (repeat)" in update(engine, rows[-1][1])
    assert seen.count(rows[-1][1]) <= 2  # the new text and the one stored event of the same code


@pytest.mark.backends("sqlite")
def test_codes_of_another_version_are_dropped_on_open(engine, data_dir):
    from kiraos_desktop.core.engine import Engine

    update(engine, "完成半马")
    with engine.store.batch("test") as batch:
        batch.execute("UPDATE kiraos_desktop_meta SET value = 'old' WHERE key = 'repeat_keys_version'")
        batch.execute("UPDATE event_repeat_keys SET k = 1")  # what an older version's codes would be
    engine.close()
    again = Engine.open(data_dir=data_dir)
    try:
        assert update(again, "完成半马") == "已完成 0 项记忆操作: event (repeat): 完成半马"
    finally:
        again.close()


def _uncoded_reads(engine) -> list[str]:
    from kiraos_desktop.core.storage.repeat_keys import UNCODED

    seen: list[str] = []
    engine.store.writer.connection().set_trace_callback(
        lambda sql: seen.append(sql) if sql.startswith(UNCODED.split(" WHERE ")[0]) else None)
    return seen


@pytest.mark.backends("sqlite")
def test_a_later_call_does_not_look_for_uncoded_events_again(engine):
    update(engine, "完成半马")
    seen = _uncoded_reads(engine)
    assert update(engine, "去看电影", "完成半马。") == "已完成 1 项记忆操作: event: 去看电影; event (repeat): 完成半马。"
    assert seen == []
    update(engine, "学吉他", user="v")  # another user's first check still looks
    assert len(seen) == 1


@pytest.mark.backends("sqlite")
def test_another_connections_event_is_coded_before_the_next_check(engine):
    import sqlite3

    update(engine, "完成半马")
    plugin = sqlite3.connect(engine.store.path)  # the plugin's own connection: no code for its event
    plugin.execute("INSERT INTO event_logs (user_id, event_summary, created_at) VALUES ('u', '通过面试', ?)",
                   (now_text(),))
    plugin.commit()
    plugin.close()
    assert update(engine, "通过 面试！") == "已完成 0 项记忆操作: event (repeat): 通过 面试！"


@pytest.mark.backends("sqlite")
def test_codes_of_a_rolled_back_group_are_not_taken_as_known(engine):
    import sqlite3

    update(engine, "完成半马")
    plugin = sqlite3.connect(engine.store.path)
    plugin.execute("INSERT INTO event_logs (user_id, event_summary, created_at) VALUES ('u', '通过面试', ?)",
                   (now_text(),))
    plugin.commit()
    plugin.close()
    with pytest.raises(RuntimeError):
        with engine.store.group():
            update(engine, "去看电影")  # codes the plugin's event, then the group rolls back
            raise RuntimeError("the group fails after the call")
    assert update(engine, "通过面试") == "已完成 0 项记忆操作: event (repeat): 通过面试"


@pytest.mark.backends("sqlite")
def test_a_window_edit_makes_the_next_call_look_again(engine):
    update(engine, "完成半马")
    engine.store.add_event("u", "手动记录", actor="gui")
    seen = _uncoded_reads(engine)
    update(engine, "去看电影")
    assert len(seen) == 1
