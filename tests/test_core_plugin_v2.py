"""KiraOS plugin 2.x data (DESIGN §15): epoch-integer expiries, any timestamp type, the event tag.
Fixtures are written by plain SQL following the plugin 2.0's DDL, never by our store."""
import json
import sqlite3
import time
from datetime import datetime, timedelta

import pytest

from core_helpers import PLUGIN2_DDL, PLUGIN_DDL, plugin_db
from kiraos_desktop.core.engine import Engine
from kiraos_desktop.core.storage.plugin_layout import (
    LAYOUT_1X,
    LAYOUT_2X,
    LAYOUT_3X,
    NotPluginData,
    database_layout,
    folder_layout,
)
from kiraos_desktop.core.storage.revert import revert_change
from kiraos_desktop.core.transfer.export_import import export_data


def _epoch(delta: timedelta) -> int:
    return int((datetime.now() + delta).timestamp())


@pytest.fixture
def kira2(tmp_path):
    """A plugin 2.x data folder: one user with two live entries (one with an integer expiry), one
    expired by an integer expiry, and tagged events, one stamped by a number."""
    kira = tmp_path / "kira"
    conn = plugin_db(kira / "memory" / "kiraos.db", PLUGIN2_DDL)
    now = datetime.now().isoformat()
    conn.executemany("INSERT INTO user_profiles VALUES (?, ?, ?, ?, ?, ?, ?)", [
        ("qq_1", "昵称", "小明", now, 0.9, "basic", None),
        ("qq_1", "城市", "北京", now, 0.8, "basic", _epoch(timedelta(days=30))),
        ("qq_1", "心情", "低落", now, 0.6, "preference", _epoch(-timedelta(hours=1))),
    ])
    conn.execute("INSERT INTO event_logs (user_id, event_summary, created_at, tag) VALUES "
                 "('qq_1', '完成半马', '2026-03-01T10:00:00', 'milestone')")
    conn.execute("INSERT INTO event_logs (user_id, event_summary, created_at, tag) VALUES (?, '通过面试', ?, NULL)",
                 ("qq_1", int(datetime(2026, 3, 2, 9, 0).timestamp())))
    conn.commit()
    conn.close()
    return kira


@pytest.fixture
def engine2(kira2):
    engine = Engine.open(kira_data=kira2)
    yield engine
    engine.close()


def test_live_entries_with_integer_expiries_are_seen_and_expired_ones_are_not(engine2):
    assert engine2.store.layout.name == LAYOUT_2X
    block = engine2.context.build(["qq_1"]).text
    assert block.splitlines()[0] == "[qq_1:basic] 昵称=小明(✓) | 城市=北京(✓)"
    assert "心情" not in block
    dump = engine2.memory_tools.query("qq_1")
    assert "城市 = 北京" in dump and "心情" not in dump
    live = {p.key for p in engine2.store.get_profiles("qq_1", include_expired=False)}
    assert live == {"昵称", "城市"}
    city = engine2.store.get_profile("qq_1", "城市")
    assert city.expires_at == datetime.fromtimestamp(_epoch(timedelta(days=30))).isoformat()[:13] + city.expires_at[13:]
    assert engine2.store.get_profile("qq_1", "心情").is_expired(datetime.now().isoformat())


def test_a_number_as_event_time_is_read_as_a_date_not_a_500(engine2):
    block = engine2.context.build(["qq_1"]).text
    assert "2026-03-02 通过面试" in block and "2026-03-01 完成半马" in block
    assert "2026-03-02 通过面试" in engine2.memory_tools.query("qq_1")
    assert "通过面试" in engine2.memory_tools.query("qq_1", query="面试")
    events = engine2.store.get_events("qq_1")
    assert {e.created_at for e in events} == {"2026-03-01T10:00:00", "2026-03-02T09:00:00"}


def test_a_set_with_a_ttl_stores_an_integer_on_2x(engine2, kira2):
    engine2.memory_tools.update("qq_1", [{"op": "set", "key": "职业", "value": "学生", "ttl": "7d",
                                          "confidence": 0.9}], actor="tool")
    conn = sqlite3.connect(kira2 / "memory" / "kiraos.db")
    kind, value = conn.execute("SELECT typeof(expires_at), expires_at FROM user_profiles "
                               "WHERE memory_key = '职业'").fetchone()
    conn.close()
    assert kind == "integer"
    assert abs(value - _epoch(timedelta(days=7))) <= 2
    assert "职业=学生" in engine2.context.build(["qq_1"]).text


def test_the_plugins_integers_stay_integers_and_its_rows_appear(engine2, kira2):
    """A plain sqlite3 process playing the 2.x plugin while we run."""
    conn = sqlite3.connect(kira2 / "memory" / "kiraos.db", timeout=5)
    conn.execute("INSERT INTO user_profiles VALUES ('qq_2', '爱好', '吉他', ?, 0.9, 'preference', ?)",
                 (datetime.now().isoformat(), _epoch(timedelta(days=1))))
    conn.commit()
    engine2.store.poll_external_change()
    assert engine2.context.build(["qq_2"]).text == "[qq_2:preference] 爱好=吉他(✓)"
    engine2.memory_tools.update("qq_2", [{"op": "event", "value": "买了新琴"}], actor="tool")
    kinds = conn.execute("SELECT typeof(expires_at) FROM user_profiles WHERE expires_at IS NOT NULL").fetchall()
    conn.close()
    assert {k for (k,) in kinds} == {"integer"}


def test_an_edit_and_its_undo_keep_integer_expiries(engine2, kira2):
    store = engine2.store
    before = store.get_profile("qq_1", "城市")
    store.set_profile("qq_1", "城市", "上海", actor="gui", confidence=0.9, expires_at=before.expires_at)
    change = store.list_changes("qq_1", limit=1)[0]
    revert_change(store, change.id, actor="gui")
    conn = sqlite3.connect(kira2 / "memory" / "kiraos.db")
    row = conn.execute("SELECT memory_value, typeof(expires_at) FROM user_profiles WHERE memory_key = '城市'").fetchone()
    conn.close()
    assert row == ("北京", "integer")


def test_purge_removes_entries_expired_by_integer(engine2):
    assert engine2.store.purge_expired(actor="gui") == 1
    assert {p.key for p in engine2.store.get_profiles("qq_1")} == {"昵称", "城市"}


def test_export_reads_integer_times_as_iso_text(engine2, tmp_path):
    data = json.loads(json.dumps(export_data(engine2.store)))
    user = next(u for u in data["users"] if u["user_id"] == "qq_1")
    city = next(p for p in user["profiles"] if p["key"] == "城市")
    assert isinstance(city["expires_at"], str) and city["expires_at"][:2] == "20"
    assert all(isinstance(e["created_at"], str) for e in user["events"])


@pytest.mark.parametrize("created", [1767225600, 1767225600.5, "2026-01-01T08:00:00", "not a time", None])
def test_mixed_timestamp_types_never_fail_a_read(tmp_path, created):
    kira = tmp_path / "kira"
    conn = plugin_db(kira / "memory" / "kiraos.db", PLUGIN2_DDL)
    conn.execute("INSERT INTO event_logs (user_id, event_summary, created_at) VALUES ('u', 'e1', ?)", (created,))
    conn.execute("INSERT INTO event_logs (user_id, event_summary, created_at) VALUES ('u', 'e2', '2026-01-02T08:00:00')")
    conn.execute("INSERT INTO user_profiles VALUES ('u', 'k', 'v', ?, 0.9, 'basic', ?)", (created, 4102444800))
    conn.commit()
    conn.close()
    engine = Engine.open(kira_data=kira)
    try:
        assert "k=v" in engine.context.build(["u"]).text
        assert "e2" in engine.memory_tools.query("u")
        assert engine.memory_tools.query("u", query="e1")
        assert len(engine.store.get_events("u")) == 2
        assert engine.store.user_summary("u").event_count == 2
    finally:
        engine.close()


# ---- layout detection -----------------------------------------------------------------------

def test_each_layout_is_named(tmp_path, kira2):
    assert folder_layout(kira2).name == LAYOUT_2X
    one = tmp_path / "one"
    plugin_db(one / "memory" / "kiraos.db", PLUGIN_DDL).close()
    assert folder_layout(one).name == LAYOUT_1X
    three = tmp_path / "three"
    (three / "memory" / "entities" / "user_qq_1").mkdir(parents=True)
    (three / "memory" / "kiraos.db.bak_1747100000").write_bytes(b"")
    assert folder_layout(three).name == LAYOUT_3X
    marker = tmp_path / "marker"
    (marker / "memory").mkdir(parents=True)
    (marker / "memory" / ".migrated_v3").write_text("")
    plugin_db(marker / "memory" / "kiraos.db", PLUGIN2_DDL).close()  # a database beside it: still 3.x
    assert folder_layout(marker).name == LAYOUT_3X


def test_2x_is_told_by_integer_values_alone(tmp_path):
    db = tmp_path / "kiraos.db"
    conn = plugin_db(db, PLUGIN_DDL)
    assert database_layout(db).name == LAYOUT_1X
    conn.execute("INSERT INTO user_profiles VALUES ('u', 'k', 'v', '2026-01-01', 0.5, 'basic', 1767225600)")
    conn.commit()
    conn.close()
    assert database_layout(db).name == LAYOUT_2X


def test_a_folder_that_is_none_names_what_was_looked_for(tmp_path):
    with pytest.raises(NotPluginData) as caught:
        folder_layout(tmp_path)
    assert "memory/kiraos.db" in str(caught.value) and "memory/entities/" in str(caught.value)


def test_our_own_data_keeps_iso_text_expiries(tmp_path):
    engine = Engine.open(data_dir=tmp_path / "data")
    try:
        engine.memory_tools.update("u", [{"op": "set", "key": "k", "value": "v", "ttl": "1d"}], actor="tool")
        assert engine.store.layout.name == LAYOUT_1X
        conn = sqlite3.connect(engine.paths.db_path)
        assert conn.execute("SELECT typeof(expires_at) FROM user_profiles").fetchone() == ("text",)
        conn.close()
    finally:
        engine.close()


def test_epoch_round_trip_matches_the_plugins_reading():
    from kiraos_desktop.core.timeutil import to_epoch

    moment = datetime(2026, 5, 4, 12, 30, 15)
    assert to_epoch(moment.isoformat()) == int(moment.timestamp()) == int(time.mktime(moment.timetuple()))


def test_a_user_whose_only_time_is_a_number_lists_with_a_text_time(tmp_path):
    kira = tmp_path / "kira"
    conn = plugin_db(kira / "memory" / "kiraos.db", PLUGIN2_DDL)
    conn.execute("INSERT INTO event_logs (user_id, event_summary, created_at) VALUES ('n', 'e', ?)",
                 (int(datetime(2026, 3, 2, 9, 0).timestamp()),))
    conn.commit()
    conn.close()
    engine = Engine.open(kira_data=kira)
    try:
        assert engine.store.user_summary("n").last_activity == "2026-03-02T09:00:00"
        assert [s.last_activity for s in engine.store.list_users()] == ["2026-03-02T09:00:00"]
    finally:
        engine.close()


# ---- the plugin's conflict rule, the event tag ------------------------------------------------

def _update(engine, *ops):
    return engine.memory_tools.update("qq_1", list(ops), actor="api")


def test_a_set_over_a_clearly_more_confident_entry_is_refused_on_2x(engine2):
    reply = _update(engine2, {"op": "set", "key": "昵称", "value": "小红", "confidence": 0.5})
    assert reply.startswith("已完成 0 项记忆操作: conflict 昵称: 现值 '小明' (置信度 0.90) 高于新值置信度 0.50。"
                            "如确认要覆盖，请提高 confidence 至 ≥0.70 或在操作上加 force=true。")
    assert engine2.store.get_profile("qq_1", "昵称").value == "小明"
    # the same value, a close confidence, force, or an expired entry: written
    assert "updated 昵称=小明" in _update(engine2, {"op": "set", "key": "昵称", "value": "小明", "confidence": 0.1})
    assert "updated 城市=上海" in _update(engine2, {"op": "set", "key": "城市", "value": "上海", "confidence": 0.6})
    forced = _update(engine2, {"op": "set", "key": "城市", "value": "广州", "confidence": 0.1, "force": True})
    assert "updated 城市=广州 [basic] [forced]" in forced
    assert "set 心情=开心" in _update(engine2, {"op": "set", "key": "心情", "value": "开心", "confidence": 0.1})
    assert "force 必须是 true 或 false" in _update(engine2, {"op": "set", "key": "城市", "value": "x", "force": "maybe"})


def test_an_operators_edit_is_never_refused(engine2):
    engine2.store.set_profile("qq_1", "昵称", "小红", actor="gui", confidence=0.1)
    assert engine2.store.get_profile("qq_1", "昵称").value == "小红"


def test_1x_data_keeps_the_last_write(tmp_path):
    engine = Engine.open(data_dir=tmp_path / "data")
    try:
        engine.memory_tools.update("u", [{"op": "set", "key": "k", "value": "a", "confidence": 0.9}])
        reply = engine.memory_tools.update("u", [{"op": "set", "key": "k", "value": "b", "confidence": 0.1}])
        assert "updated k=b" in reply and "[forced]" not in reply
    finally:
        engine.close()


def test_a_tag_is_stored_shown_in_the_reply_and_kept_by_an_edit_and_its_undo(engine2, kira2):
    reply = _update(engine2, {"op": "event", "value": "学会了吉他", "tag": "milestone"})
    assert "event #milestone: 学会了吉他" in reply
    event = engine2.store.get_events("qq_1", limit=1)[0]
    assert (event.summary, event.tag) == ("学会了吉他", "milestone")
    engine2.store.update_event("qq_1", event.id, "学会了尤克里里", actor="gui")
    assert engine2.store.get_event(event.id).tag == "milestone"  # kept by a text edit
    engine2.store.update_event("qq_1", event.id, "学会了尤克里里", actor="gui", tag="hobby")
    assert engine2.store.get_event(event.id).tag == "hobby"
    revert_change(engine2.store, engine2.store.list_changes("qq_1", limit=1)[0].id, actor="gui")
    assert engine2.store.get_event(event.id).tag == "milestone"
    engine2.store.delete_event("qq_1", event.id, actor="gui")
    revert_change(engine2.store, engine2.store.list_changes("qq_1", limit=1)[0].id, actor="gui")
    assert engine2.store.get_event(event.id).tag == "milestone"  # a deleted event comes back with it
    cleared = engine2.store.clear_user("qq_1", actor="gui")
    assert cleared == (3, 3)
    revert_change(engine2.store, engine2.store.list_changes("qq_1", limit=1)[0].id, actor="gui")
    tags = {e.summary: e.tag for e in engine2.store.get_events("qq_1")}
    assert tags == {"完成半马": "milestone", "通过面试": None, "学会了尤克里里": "milestone"}
    conn = sqlite3.connect(kira2 / "memory" / "kiraos.db")
    assert conn.execute("SELECT tag FROM event_logs WHERE event_summary = '完成半马'").fetchone() == ("milestone",)
    conn.close()


def test_a_tag_on_data_without_tags_is_said_to_be_dropped(tmp_path):
    engine = Engine.open(data_dir=tmp_path / "data")
    try:
        reply = engine.memory_tools.update("u", [{"op": "event", "value": "完成半马", "tag": "milestone"}])
        assert reply == "已完成 1 项记忆操作: event: 完成半马（未保存 tag：此记忆库不支持事件标签）"
        assert engine.store.get_events("u")[0].tag is None
        with pytest.raises(ValueError):
            engine.store.add_event("u", "x", actor="gui", tag="t")
    finally:
        engine.close()


# ---- kiraos-desktop info --------------------------------------------------------------------

def _info(capsys, *argv):
    from kiraos_desktop.cli import main

    code = main(["info", *argv])
    out, err = capsys.readouterr()
    return code, out, err


def test_info_names_each_layout_as_json(tmp_path, kira2, capsys):
    code, out, _ = _info(capsys, "--kira-data", str(kira2), "--json")
    info = json.loads(out)
    assert code == 0 and info["layout"] == "2.x" and info["plugin_version"] == "2.0"
    assert info["counts"] == {"users": 1, "profile_entries": 3, "events": 2}
    assert info["files"]["kiraos.db"] > 0 and info["journal_mode"] in ("delete", "wal")
    one = tmp_path / "one"
    plugin_db(one / "memory" / "kiraos.db", PLUGIN_DDL).close()
    assert json.loads(_info(capsys, "--kira-data", str(one), "--json")[1])["layout"] == "1.x"
    three = tmp_path / "three"
    (three / "memory" / "entities" / "user_qq_1" / "facts").mkdir(parents=True)
    (three / "memory" / "entities" / "user_qq_1" / "facts" / "city.toml").write_text('id = "city"\n')
    code, out, _ = _info(capsys, "--kira-data", str(three), "--json")
    info = json.loads(out)
    assert code == 0 and info["layout"] == "3.x" and info["counts"]["entities"]["user"] == 1
    assert info["counts"]["facts"] == 1
    assert list((three / "memory").iterdir()) == [three / "memory" / "entities"]  # nothing created


def test_info_as_text_and_on_a_database_file(kira2, capsys):
    code, out, _ = _info(capsys, "--kira-data", str(kira2))
    assert code == 0 and out.startswith("layout: KiraOS 2.x (plugin 2.0; event_logs has the column tag)")
    assert "users: 1, profile entries: 3, events: 2" in out
    code, out, _ = _info(capsys, "--db", str(kira2 / "memory" / "kiraos.db"), "--json")
    assert code == 0 and json.loads(out)["layout"] == "2.x"


def test_info_on_a_folder_that_is_none_is_one_line_exit_2(tmp_path, capsys):
    code, out, err = _info(capsys, "--kira-data", str(tmp_path))
    assert code == 2 and out == "" and len(err.strip().splitlines()) == 1
    assert "memory/kiraos.db" in err and "memory/entities/" in err
    assert list(tmp_path.iterdir()) == []


def test_info_does_not_change_the_database(kira2, capsys):
    db = kira2 / "memory" / "kiraos.db"
    before = db.read_bytes()
    _info(capsys, "--kira-data", str(kira2))
    assert db.read_bytes() == before
    conn = sqlite3.connect(db)
    assert "kiraos_desktop_meta" not in {n for (n,) in conn.execute("SELECT name FROM sqlite_master")}
    conn.close()


def test_tags_go_through_export_and_import(engine2, tmp_path, capsys):
    from kiraos_desktop.cli import main
    from kiraos_desktop.core.transfer.export_import import TransferError, apply_import, validate_import

    data = export_data(engine2.store)
    events = next(u for u in data["users"] if u["user_id"] == "qq_1")["events"]
    assert {e["event_summary"]: e.get("tag") for e in events} == {"完成半马": "milestone", "通过面试": None}
    assert "tag" not in next(e for e in events if e["event_summary"] == "通过面试")
    data["users"][0]["user_id"] = "qq_9"
    apply_import(engine2.store, validate_import(data))
    assert {e.summary: e.tag for e in engine2.store.get_events("qq_9")} == {"完成半马": "milestone", "通过面试": None}
    with pytest.raises(TransferError, match="tag"):
        validate_import({**data, "users": [{"user_id": "x", "events": [{"event_summary": "e", "tag": 5}]}]})
    export = tmp_path / "tags.json"
    export.write_text(json.dumps(data, ensure_ascii=False), "utf-8")
    assert main(["--data-dir", str(tmp_path / "ours"), "import", str(export)]) == 0
    out, err = capsys.readouterr()
    assert "1 event tag(s) not kept" in err


def test_a_2x_told_by_its_expiries_alone_has_no_tags(tmp_path):
    """Integer expiries without the tag column (a script's writes into 1.x data): epoch writes, no tags."""
    kira = tmp_path / "kira"
    conn = plugin_db(kira / "memory" / "kiraos.db", PLUGIN_DDL)
    conn.execute("INSERT INTO user_profiles VALUES ('u', 'k', 'v', '2026-01-01', 0.5, 'basic', ?)",
                 (_epoch(timedelta(days=1)),))
    conn.execute("INSERT INTO event_logs (user_id, event_summary, created_at) VALUES ('u', 'e', '2026-01-01T00:00:00')")
    conn.commit()
    conn.close()
    engine = Engine.open(kira_data=kira)
    try:
        assert engine.store.layout.name == LAYOUT_2X and not engine.store.event_tags
        assert [e.summary for e in engine.store.get_events("u")] == ["e"]
        engine.store.clear_user("u", actor="gui")
        revert_change(engine.store, engine.store.list_changes("u", limit=1)[0].id, actor="gui")
        assert engine.context.build(["u"]).text.startswith("[u:basic] k=v")
    finally:
        engine.close()
