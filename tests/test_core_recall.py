"""Relevance recall in the core: words, the index kept by every writer, the block for a message, repeats."""
import sqlite3

import pytest
from hypothesis import given, settings, strategies as st

from core_helpers import PLUGIN_DDL, make_engine, plugin_db
from store_backends import SQLITE_ONLY
from kiraos_desktop.core.engine import Engine
from kiraos_desktop.core.recall.ranking import build_index
from kiraos_desktop.core.recall.text import query_terms, repeat_key, terms

pytestmark = pytest.mark.usefixtures("engine_backend")  # every test on SQLite and PostgreSQL

PLANTED = "养了一只橘猫叫咪咪"
OLD = "2024-03-01T10:00:00"


def fill(engine, user="u", noise=40, planted=PLANTED, when=OLD):
    """A planted old event, then `noise` newer unrelated ones (more than the block shows)."""
    engine.store.set_profile(user, "昵称", "小明", actor="gui", confidence=0.9)
    engine.store.add_event(user, planted, actor="gui", created_at=when)
    with engine.store.batch("gui") as batch:
        for i in range(noise):
            batch.add_event(user, f"今天第{i}次打卡上班", created_at=f"2026-11-{1 + i % 28:02d}T09:{i % 60:02d}:00")


def events_line(text: str) -> str:
    return next(line for line in text.split("\n") if ":events]" in line)


def test_words_drop_particles_punctuation_and_case():
    assert terms("那只猫还好吗？") == ("猫", "还好")
    assert terms("How was THE Exam?!") == ("exam",)
    assert terms("我的iPhone 15坏了") == ("iphone", "15", "坏")
    assert query_terms("的了吗 the a ，。！") == ()


def test_repeat_key_ignores_case_width_space_and_punctuation():
    assert repeat_key("完成半马！") == repeat_key("完成 半马") == repeat_key("完成半马")
    assert repeat_key("Ｈｅｌｌｏ World") == repeat_key("hello world.")
    assert repeat_key("完成半马") != repeat_key("完成全马")


def test_an_old_event_the_message_is_about_comes_first_and_is_shown_newest_first(data_dir):
    engine = make_engine(data_dir)
    try:
        fill(engine)
        plain = engine.context.build(["u"]).text
        assert PLANTED not in plain
        recalled = engine.context.build(["u"], query="咪咪最近怎么样").text
        line = events_line(recalled)
        assert PLANTED in line and line.endswith("2024-03-01 " + PLANTED)  # the oldest, shown last
        assert recalled.split("\n")[0] == plain.split("\n")[0]  # profile lines as without a query
        assert len(recalled) <= engine.settings.max_context_chars
    finally:
        engine.close()


@pytest.mark.parametrize("query", ["咪咪", "那只猫还好吗", "我家橘猫", "How is 咪咪 doing?", "MIMI 咪咪"])
def test_two_character_single_character_and_mixed_queries_find_it(data_dir, query):
    engine = make_engine(data_dir)
    try:
        fill(engine)
        assert PLANTED in engine.context.build(["u"], query=query).text
    finally:
        engine.close()


def test_english_matches_case_insensitively_and_particles_match_nothing(data_dir):
    engine = make_engine(data_dir)
    try:
        fill(engine, planted="Passed the Driving Test in Berlin")
        assert "Driving Test" in engine.context.build(["u"], query="how did the driving test go?").text
        plain = engine.context.build(["u"]).text
        for query in ("the a of 的 了 吗", "？？？", "，。", "xyzzy 不存在的东西"):
            assert engine.context.build(["u"], query=query).text == plain
    finally:
        engine.close()


def test_no_query_gives_the_plain_block_byte_for_byte(data_dir):
    engine = make_engine(data_dir)
    try:
        fill(engine)
        plain = engine.context.build(["u"]).text
        for query in (None, ""):
            assert engine.context.build(["u"], query=query).text == plain
    finally:
        engine.close()


@settings(max_examples=60, deadline=None)
@given(query=st.text(max_size=300) | st.sampled_from(['"', "*", "NEAR(a b)", "a OR b", "((", ")", "'", "%",
                                                      "猫\"* OR NEAR(", "\x00", "\\"]))
@SQLITE_ONLY
def test_any_query_gives_a_block_within_budget(tmp_path_factory, query):
    engine = _shared_engine(tmp_path_factory)
    block = engine.context.user_block("u", query=query)
    assert len(block.text) <= engine.settings.max_context_chars
    assert block.text.startswith("[u:basic]")


_ENGINES: dict = {}


def _shared_engine(factory):
    if "e" not in _ENGINES:
        engine = make_engine(factory.mktemp("hypo"))
        fill(engine)
        _ENGINES["e"] = engine
    return _ENGINES["e"]


def teardown_module():
    for engine in _ENGINES.values():
        engine.close()


def test_ten_kilobytes_of_query_give_a_block(data_dir):
    engine = make_engine(data_dir)
    try:
        fill(engine)
        query = ("咪咪 " + '"NEAR(x y)" OR * ( ) ') * 500
        assert len(query) > 10_000
        assert PLANTED in engine.context.build(["u"], query=query).text
    finally:
        engine.close()


def test_the_index_follows_updates_deletes_and_trims(data_dir, index_every_user):
    engine = make_engine(data_dir, max_event_keep=20)
    try:
        store = engine.store
        event_id = store.add_event("u", "在杭州看了西湖", actor="gui", created_at=OLD)
        assert "西湖" in engine.context.build(["u"], query="西湖").text
        store.update_event("u", event_id, "在苏州看了园林", actor="gui")
        assert "西湖" not in engine.context.build(["u"], query="西湖").text
        assert "园林" in engine.context.build(["u"], query="园林").text
        store.delete_event("u", event_id, actor="gui")
        assert engine.context.build(["u"], query="园林").text == ""
        assert store._rows("SELECT count(*) FROM recall_terms")[0][0] == 0
        for i in range(25):  # the trim removes the oldest; its words leave the index with it
            store.add_event("u", f"事件编号{i}", actor="gui", created_at=f"2026-01-{1 + i:02d}T00:00:00")
        indexed = {r[0] for r in store._rows("SELECT DISTINCT event_id FROM recall_terms")}
        assert indexed == {e.id for e in store.get_events("u")}
        assert store._rows("SELECT count(*) FROM recall_queue")[0][0] == 0
    finally:
        engine.close()


@SQLITE_ONLY
def test_another_processs_plain_sql_writes_are_recalled_before_and_after_the_catch_up(data_dir, index_every_user):
    engine = make_engine(data_dir)
    try:
        fill(engine)
        other = sqlite3.connect(engine.paths.db_path)
        other.execute("INSERT INTO event_logs (user_id, event_summary, created_at) VALUES ('u', '学会了游泳', ?)", (OLD,))
        other.commit()
        # Blocks are cached until the watcher (every second) sees another process's commit: as it does.
        assert engine.store.poll_external_change()
        assert "学会了游泳" in engine.context.build(["u"], query="游泳").text  # read from the queue
        assert engine.store.recall_catch_up() == 1
        assert "学会了游泳" in engine.context.build(["u"], query="游泳").text  # from the index
        other.execute("DELETE FROM event_logs WHERE event_summary = '学会了游泳'")
        other.commit()
        other.close()
        assert engine.store.poll_external_change()
        assert "游泳" not in engine.context.build(["u"], query="游泳").text
        engine.store.recall_catch_up()
        assert engine.store._rows("SELECT count(*) FROM recall_terms WHERE term = '游泳'")[0][0] == 0
    finally:
        engine.close()


@SQLITE_ONLY
def test_a_plugin_database_is_indexed_on_open_resumably_and_recalls_before_that(tmp_path, index_every_user):
    kira = tmp_path / "kira"
    conn = plugin_db(kira / "memory" / "kiraos.db", PLUGIN_DDL)
    conn.execute("INSERT INTO event_logs (user_id, event_summary, created_at) VALUES ('qq_1', ?, ?)", (PLANTED, OLD))
    conn.executemany("INSERT INTO event_logs (user_id, event_summary, created_at) VALUES (?, ?, ?)",
                     [(user, f"日常记录{i}", f"2026-10-{1 + i % 28:02d}T00:00:00")
                      for user in ("qq_1", "qq_2") for i in range(30)])
    conn.commit()
    conn.close()
    engine = Engine.open(kira_data=kira)
    try:
        assert "recall index to build" in engine.store.migrations
        assert not engine.store.recall_build_complete
        assert PLANTED in engine.context.build(["qq_1"], query="咪咪").text  # not indexed yet: scanned
        engine.store.recall_build_step(batch=10)  # a first batch (one user), then stop: the rest waits
        assert not engine.store.recall_build_complete
    finally:
        engine.close()
    engine = Engine.open(kira_data=kira)  # resumes where it stopped
    try:
        seen = []
        assert build_index(engine.store, progress=lambda done, total: seen.append((done, total)))
        assert engine.store.recall_build_complete and seen[-1][0] == seen[-1][1]
        assert engine.store._rows("SELECT count(DISTINCT event_id) FROM recall_terms")[0][0] == 61
        assert PLANTED in engine.context.build(["qq_1"], query="咪咪").text
    finally:
        engine.close()


@SQLITE_ONLY
def test_a_cancelled_build_keeps_what_it_did(tmp_path, index_every_user):
    db = tmp_path / "kiraos.db"
    conn = plugin_db(db, PLUGIN_DDL)
    conn.executemany("INSERT INTO event_logs (user_id, event_summary) VALUES (?, ?)",
                     [(f"u{i % 5}", f"记录{i}") for i in range(50)])  # five users: a build step each
    conn.commit()
    conn.close()
    engine = Engine.open(data_dir=tmp_path / "data", db=db)
    try:
        calls = []
        assert not build_index(engine.store, is_cancelled=lambda: calls.append(1) or len(calls) > 2, batch=10)
        done, total = engine.store.recall_progress()
        assert 0 < done < total
    finally:
        engine.close()


def test_memory_query_lists_what_matches_most_relevant_first(data_dir):
    engine = make_engine(data_dir)
    try:
        fill(engine)
        engine.store.set_profile("u", "宠物", "橘猫", actor="gui", category="social")
        text = engine.tools.call("memory_query", "u", {"query": "橘猫咪咪"}).content
        assert text.startswith("【用户画像】\n  [social]\n    宠物 = 橘猫")
        assert "昵称" not in text and "打卡" not in text
        assert text.endswith("【近期事件】\n  2024-03-01 " + PLANTED)
        whole = engine.tools.call("memory_query", "u", {}).content
        assert engine.tools.call("memory_query", "u", {"query": "毫无关系"}).content == whole
    finally:
        engine.close()


def test_an_identical_event_of_the_last_day_is_not_stored_again(data_dir):
    engine = make_engine(data_dir)
    try:
        first = engine.tools.call("memory_update", "u", {"operations": [{"op": "event", "value": "完成半马"}]}).content
        assert first == "已完成 1 项记忆操作: event: 完成半马"
        again = engine.tools.call("memory_update", "u", {"operations": [
            {"op": "event", "value": "完成 半马！"}, {"op": "event", "value": "完成全马"}]}).content
        assert again == "已完成 1 项记忆操作: event (repeat): 完成 半马！; event: 完成全马"
        assert [e.summary for e in engine.store.get_events("u")] == ["完成全马", "完成半马"]
        engine.store.add_event("v", "去年的事", actor="gui", created_at="2025-01-01T00:00:00")
        old = engine.tools.call("memory_update", "v", {"operations": [{"op": "event", "value": "去年的事"}]}).content
        assert old == "已完成 1 项记忆操作: event: 去年的事"  # older than a day: stored
    finally:
        engine.close()


def test_every_budget_keeps_the_most_items_that_fit(data_dir):
    """The block for a message under each budget is the one made the long way (recall_reference)."""
    from datetime import datetime

    from recall_reference import reference

    engine = make_engine(data_dir)
    try:
        fill(engine, noise=12, planted=PLANTED + "，它每天都在窗台上晒太阳" * 3)  # longer than the others
        for n in range(6):
            engine.store.set_profile("u", f"爱好{n}", "橘猫" * (n + 1), actor="gui", category="preference")
        events = engine.settings.max_events_per_user
        profiles = engine.store.context_rows("u", 0, "9999")[0]
        now = datetime.now()
        for budget in range(0, 330, 6):
            got = engine.context.recall_block("u", "橘猫咪咪", max_chars=budget, now=now)
            want, shown = reference("u", profiles, engine.store.get_events("u"), got.words, events, budget, now)
            assert (got.block.text, got.block.kept, got.block.dropped) == (want.text, want.kept, want.dropped), budget
            assert [r.event.id for r in got.shown] == shown
            assert len(got.block.text) <= budget or not budget
            if budget == engine.settings.max_context_chars:  # the cached block, made by the API's path
                assert engine.context.user_block("u", query="橘猫咪咪").text == want.text
    finally:
        engine.close()
