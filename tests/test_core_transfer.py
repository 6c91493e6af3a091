"""Backup, export and import: faithful round trips and all-or-nothing imports."""
import json
import sqlite3

import pytest

from core_helpers import make_engine
from kiraos_desktop.core import transfer
from kiraos_desktop.core.transfer import Cancelled, TransferError


def seed(engine):
    store = engine.store
    store.set_profile("u1", "昵称", "小明", actor="gui", confidence=0.9)
    store.set_profile("u1", "城市", "北京", actor="gui", category="basic", expires_at="2099-01-01T00:00:00")
    store.set_profile("u2", "喜欢", "猫", actor="gui", category="preference", confidence=0.4)
    for i in range(3):
        store.add_event("u1", f"事件{i}", actor="gui", created_at=f"2025-01-0{i + 1}T08:00:00")
    store.add_event("u2", "e", actor="gui", created_at="2025-02-01T00:00:00")


def rows(engine):
    conn = sqlite3.connect(engine.paths.db_path)
    profiles = conn.execute("SELECT user_id, memory_key, memory_value, updated_at, confidence, category, expires_at "
                            "FROM user_profiles ORDER BY user_id, memory_key").fetchall()
    events = conn.execute("SELECT user_id, event_summary, created_at FROM event_logs "
                          "ORDER BY user_id, created_at").fetchall()
    conn.close()
    return profiles, events


def test_export_then_import_into_an_empty_data_dir_reproduces_every_row(tmp_path):
    source = make_engine(tmp_path / "a")
    seed(source)
    transfer.export_file(source.store, tmp_path / "x.json")
    target = make_engine(tmp_path / "b")
    plan = transfer.read_import_file(tmp_path / "x.json")
    assert transfer.apply_import(target.store, plan) == (3, 4)
    assert rows(target) == rows(source)
    assert transfer.apply_import(target.store, plan) == (3, 0)  # importing twice duplicates nothing
    assert rows(target) == rows(source)
    one = json.loads(json.dumps(transfer.export_data(source.store, ["u2"])))
    assert [u["user_id"] for u in one["users"]] == ["u2"]
    source.close()
    target.close()


@pytest.mark.parametrize("mutate,problem", [
    (lambda d: d.update(version=99), "version"),
    (lambda d: d.update(format="other"), "format"),
    (lambda d: d["users"][1].update(user_id=""), "users[1].user_id"),
    (lambda d: d["users"][0]["profiles"][1].update(confidence=2), "users[0].profiles[1].confidence"),
    (lambda d: d["users"][0]["profiles"][0].update(expires_at="someday"), "users[0].profiles[0].expires_at"),
    (lambda d: d["users"][0]["profiles"][0].update(category="x"), "users[0].profiles[0].category"),
    (lambda d: d["users"][0]["events"][2].update(event_summary=""), "users[0].events[2].event_summary"),
    (lambda d: d["users"][0]["events"][0].update(colour="red"), "users[0].events[0]"),
    (lambda d: d["users"].append(dict(d["users"][0])), "appears twice"),
])
def test_a_malformed_import_changes_nothing_and_names_the_first_problem(tmp_path, mutate, problem):
    source = make_engine(tmp_path / "a")
    seed(source)
    data = transfer.export_data(source.store)
    mutate(data)
    path = tmp_path / "bad.json"
    path.write_text(json.dumps(data), encoding="utf-8")
    target = make_engine(tmp_path / "b")
    target.store.set_profile("keep", "k", "v", actor="gui")
    before = rows(target)
    with pytest.raises(TransferError, match=problem.replace("[", r"\[").replace("]", r"\]")):
        transfer.read_import_file(path)
    assert rows(target) == before
    source.close()
    target.close()


def test_not_json_names_the_line(tmp_path):
    path = tmp_path / "bad.json"
    path.write_text('{\n  "format": ,\n}', encoding="utf-8")
    with pytest.raises(TransferError, match="line 2"):
        transfer.read_import_file(path)


def test_cancelled_import_rolls_back(tmp_path):
    source = make_engine(tmp_path / "a")
    for i in range(3000):
        pass
    data = {"format": "kiraos-desktop-export", "version": 1,
            "users": [{"user_id": f"u{i}", "profiles": [{"key": "k", "value": "v"}], "events": []}
                      for i in range(4500)]}
    plan = transfer.validate_import(data)
    target = make_engine(tmp_path / "b")
    with pytest.raises(Cancelled):
        transfer.apply_import(target.store, plan, is_cancelled=lambda: True)
    assert target.store.stats().total_profiles == 0
    source.close()
    target.close()


def test_backup_is_a_consistent_copy_and_refuses_to_overwrite(tmp_path):
    engine = make_engine(tmp_path / "a")
    seed(engine)
    seen = []
    out = transfer.backup(engine.store, tmp_path / "b.db", progress=lambda d, t: seen.append((d, t)))
    copy = sqlite3.connect(out)
    assert copy.execute("SELECT count(*) FROM user_profiles").fetchone()[0] == 3
    assert copy.execute("SELECT count(*) FROM event_logs").fetchone()[0] == 4
    copy.close()
    assert seen and seen[-1][0] == seen[-1][1]
    with pytest.raises(TransferError, match="already exists"):
        transfer.backup(engine.store, out)
    engine.close()
