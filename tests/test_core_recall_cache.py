"""Blocks made for messages are cached like plain blocks (from the second time a message is asked for):
exact, dropped by writes, bounded per user."""
from datetime import datetime, timedelta

from core_helpers import make_engine
from kiraos_desktop.core.context import entries as context_entries
from kiraos_desktop.core.context.builder import _ASKED_HASH_BYTES, _ASKED_OVERHEAD, MAX_RECALLS_PER_USER
from kiraos_desktop.core.recall.ranking import scoring_window
from kiraos_desktop.core.context.recall_window import WINDOW

PLANTED = "养了一只橘猫叫咪咪"


def asked_twice(engine, user_id, query, **kwargs):
    """The block for a message asked for twice: cached from then on."""
    engine.context.user_block(user_id, query=query, **kwargs)
    return engine.context.user_block(user_id, query=query, **kwargs)


def fill(engine, user="u"):
    engine.store.set_profile(user, "昵称", "小明", actor="gui", confidence=0.9)
    engine.store.add_event(user, PLANTED, actor="gui", created_at="2024-03-01T10:00:00")
    with engine.store.batch("gui") as batch:
        for i in range(30):
            batch.add_event(user, f"今天第{i}次打卡上班", created_at=f"2026-11-{1 + i % 28:02d}T09:{i:02d}:00")


class CountingReads:
    """Counts the store's reads for recall: the user's newest events (the window) and the index."""

    def __init__(self, store, monkeypatch):
        self.window = self.index = 0
        window, index = store.newest_event_rows, store.recall_rows

        def read_window(*args, **kwargs):
            self.window += 1
            return window(*args, **kwargs)

        def read_index(*args, **kwargs):
            self.index += 1
            return index(*args, **kwargs)

        monkeypatch.setattr(store, "newest_event_rows", read_window)
        monkeypatch.setattr(store, "recall_rows", read_index)


def test_blocks_for_messages_are_made_from_the_cache_and_the_same_for_the_same_words(data_dir, monkeypatch):
    engine = make_engine(data_dir)
    try:
        fill(engine)
        reads = CountingReads(engine.store, monkeypatch)
        first = engine.context.user_block("u", query="咪咪还好吗").text
        assert PLANTED in first and (reads.window, reads.index) == (1, 0)  # every event is in the window
        assert engine.context.user_block("u", query="咪咪还好吗？").text == first  # same words
        assert engine.context.peek_cached("u", query="咪咪还好吗").text == first  # asked twice: cached
        assert engine.context.build(["u"], query="咪咪 还好").text == first
        assert "打卡" in engine.context.user_block("u", query="打卡").text  # other words: made from the window
        assert engine.context.user_block("u", query="打卡", max_chars=80).text.startswith("[u:basic]")
        assert (reads.window, reads.index) == (1, 0)
        assert engine.context.peek_cached("u", query="打卡", max_chars=80) is None  # another budget: not cached
        engine.store.add_event("u", "咪咪打了疫苗", actor="gui")  # a write drops the window with the blocks
        assert "咪咪打了疫苗" in engine.context.user_block("u", query="咪咪").text
        assert reads.window == 2
    finally:
        engine.close()


def test_events_older_than_the_window_come_from_the_index(data_dir, monkeypatch):
    engine = make_engine(data_dir, max_event_keep=0)
    try:
        engine.store.set_profile("u", "昵称", "小明", actor="gui", confidence=0.9)
        engine.store.add_event("u", PLANTED, actor="gui", created_at="2024-03-01T10:00:00")
        with engine.store.batch("gui") as batch:
            for i in range(WINDOW + 5):
                batch.add_event("u", f"今天第{i}次打卡上班", created_at=f"2026-11-{1 + i % 28:02d}T09:{i % 60:02d}:00")
        reads = CountingReads(engine.store, monkeypatch)
        assert PLANTED in engine.context.user_block("u", query="橘猫咪咪").text
        assert (reads.window, reads.index) == (1, 1)
        assert "咪咪" not in engine.context.user_block("u", query="打卡").text
        assert (reads.window, reads.index) == (1, 2)
    finally:
        engine.close()


def test_a_write_to_the_user_drops_it_and_the_next_block_has_the_write(data_dir):
    engine = make_engine(data_dir)
    try:
        fill(engine)
        fill(engine, user="v")
        assert "西湖" not in asked_twice(engine, "u", "西湖咪咪").text
        other = asked_twice(engine, "v", "西湖咪咪")
        assert engine.context.peek_cached("u", query="西湖咪咪") is not None
        engine.store.add_event("u", "在杭州看了西湖", actor="gui", created_at="2024-01-01T00:00:00")
        assert engine.context.peek_cached("u", query="西湖咪咪") is None
        assert "在杭州看了西湖" in engine.context.user_block("u", query="西湖咪咪").text
        assert engine.context.peek_cached("v", query="西湖咪咪").text == other.text  # another user's stays
    finally:
        engine.close()


def test_a_cached_block_ends_with_the_recency_step_and_with_an_expiring_profile_entry(data_dir, monkeypatch):
    engine = make_engine(data_dir)
    try:
        fill(engine)
        asked_twice(engine, "u", "咪咪")
        cached = engine.context.peek_cached("u", query="咪咪")
        assert cached.valid_until == scoring_window()[1].isoformat()
        later = (scoring_window()[1]).isoformat()
        monkeypatch.setattr(context_entries, "now_iso", lambda: later)
        assert engine.context.peek_cached("u", query="咪咪") is None
        monkeypatch.undo()
        now = datetime.now()
        soon = (now + (scoring_window(now)[1] - now) / 2 + timedelta(seconds=1)).isoformat(timespec="seconds")
        engine.store.set_profile("u", "计划", "旅行", actor="gui", expires_at=soon)
        block = asked_twice(engine, "u", "咪咪")
        plain = engine.context.peek_cached("u")
        assert "计划=旅行" in block.text and plain.valid_until is not None
        assert engine.context.peek_cached("u", query="咪咪").valid_until == plain.valid_until  # before the step's end
    finally:
        engine.close()


def test_ages_count_from_the_start_of_the_hour():
    start, end = scoring_window(datetime(2026, 5, 1, 10, 59, 59, 999))
    assert (start, end) == (datetime(2026, 5, 1, 10), datetime(2026, 5, 1, 11))


def test_a_user_keeps_only_the_blocks_of_the_last_messages(data_dir, monkeypatch):
    engine = make_engine(data_dir)
    try:
        fill(engine)
        queries = [f"咪咪 第{n}次" for n in range(MAX_RECALLS_PER_USER + 3)]
        for query in queries:
            asked_twice(engine, "u", query)
        before = engine.context.cache_bytes()
        kept = [q for q in queries if engine.context.peek_cached("u", query=q) is not None]
        assert kept == queries[-MAX_RECALLS_PER_USER:]
        assert engine.context.peek_cached("u") is not None  # the plain block stays
        for query in queries:  # asked again: the bytes stay bounded
            asked_twice(engine, "u", query)
        assert engine.context.cache_bytes() == before
        for query in queries:  # once more each: at most the messages asked for once are added
            engine.context.user_block("u", query=query)
        assert before <= engine.context.cache_bytes() <= before + _ASKED_OVERHEAD + _ASKED_HASH_BYTES * MAX_RECALLS_PER_USER
    finally:
        engine.close()


def test_the_block_for_a_message_holds_only_its_text(data_dir):
    """10,000 users' blocks for their messages must fit beside their plain blocks and windows: a cached
    block for a message is its text; its items are made again when asked for."""
    engine = make_engine(data_dir)
    try:
        fill(engine)
        for n in range(12):
            engine.store.set_profile("u", f"爱好{n}", f"第{n}种爱好", actor="gui", category="preference")
        made = asked_twice(engine, "u", "咪咪")
        plain, recalled = engine.context.peek_cached("u"), engine.context.peek_cached("u", query="咪咪")
        assert PLANTED in recalled.text and recalled.text == made.text
        assert recalled.size < plain.size / 2
        again = engine.context.user_block("u", query="咪咪")
        assert (again.text, again.kept, again.dropped) == (made.text, made.kept, made.dropped)
        assert recalled.truncated == made.truncated
    finally:
        engine.close()


def test_a_message_asked_for_once_is_not_cached(data_dir):
    """A bot sends a new message nearly every turn: its block is cached only when asked for again; the
    messages asked for once are remembered per user, the user's newest few."""
    engine = make_engine(data_dir)
    try:
        fill(engine)
        engine.context.user_block("u", query="上班")  # the plain block and the window are cached
        before = engine.context.cache_bytes()
        first = engine.context.user_block("u", query="咪咪还好吗").text
        assert engine.context.peek_cached("u", query="咪咪还好吗") is None
        assert engine.context.cache_bytes() - before == _ASKED_HASH_BYTES  # only that it was asked for (its hash)
        assert engine.context.user_block("u", query="咪咪还好吗").text == first
        assert engine.context.peek_cached("u", query="咪咪还好吗").text == first
        assert engine.context.cache_bytes() - before > len(first)
        queries = [f"打卡 第{n}次" for n in range(MAX_RECALLS_PER_USER + 1)]
        for query in queries:  # the first of them is forgotten
            engine.context.user_block("u", query=query)
        engine.context.user_block("u", query=queries[0])
        assert engine.context.peek_cached("u", query=queries[0]) is None
        engine.context.user_block("u", query=queries[-1])
        assert engine.context.peek_cached("u", query=queries[-1]) is not None
    finally:
        engine.close()


def test_a_message_asked_again_after_other_users_messages_is_cached(data_dir):
    """A host that asks for every user's block in turn (the same messages each time) gets cached blocks
    from the second turn on, however many users come between."""
    engine = make_engine(data_dir)
    try:
        users = [f"u{n}" for n in range(60)]
        for user in users:
            fill(engine, user=user)
        for turn in range(2):
            for user in users:
                engine.context.user_block(user, query="咪咪还好吗")
        assert all(engine.context.peek_cached(user, query="咪咪还好吗") is not None for user in users)
    finally:
        engine.close()
