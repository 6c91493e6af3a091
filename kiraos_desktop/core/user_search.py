"""Searching users in keys, values and events: the words of the search text, found through the index.

What a search in keys, values and events finds (the Users page's tooltip and the docs say the same):
- users whose id contains the text (as the plain search), and
- users who have every word of the text somewhere in their profile keys, values or events. Words
  are those of recall (`recall_text.terms`): Chinese is cut into words (橘猫, 面试), letters and
  digits are whole words compared case-insensitively (NFKC), particles and punctuation (的, the, !)
  are left out. Each word may come from a different entry or event of the user.
- A text of one character, or one without any such word (only particles or punctuation), is looked
  for as it is, inside keys, values and events (SQL LIKE: ASCII case-insensitive). That scans the
  memory tables, so it is slower on a big database.
Results are exact: the index answers for users whose words it holds for sure; users with changes
still in its queue, or with rows the build has not reached, are confirmed from their own rows.
"""
from __future__ import annotations

import sqlite3

from kiraos_desktop.core import user_search_index as index
from kiraos_desktop.core.recall_text import terms
from kiraos_desktop.core.schema import USER_HAS_DATA

#: Candidate sets up to this size are narrowed by the next word with one IN (...) query.
_NARROW_IN = 500
#: Sort orders of the user list (store.USER_SORT_COLUMNS).
SORT_COLUMNS = ("user_id", "profile_count", "event_count", "last_activity")


def like_pattern(text: str) -> str:
    """`%text%` for LIKE ... ESCAPE '\\', the wildcards of `text` taken literally."""
    return "%" + text.replace("\\", "\\\\").replace("%", "\\%").replace("_", "\\_") + "%"


def search_words(text: str) -> tuple[str, ...]:
    """The words a search looks for; () when the text is searched as it is (one character, or no word)."""
    text = text.strip()
    if len(text) <= 1:
        return ()
    return terms(text)


def _users_with(conn: sqlite3.Connection, word: str, among: set[str] | None) -> set[str]:
    """Users the index holds `word` for (profile or event words), limited to `among` when given."""
    sql = ("SELECT user_id FROM usersearch_profiles WHERE term = ?1{cond} "
           "UNION ALL SELECT user_id FROM usersearch_events WHERE term = ?1{cond}")
    if among is None:
        return {r[0] for r in conn.execute(sql.format(cond=""), (word,))}
    found: set[str] = set()
    listed = sorted(among)
    for start in range(0, len(listed), _NARROW_IN):
        chunk = listed[start:start + _NARROW_IN]
        cond = f" AND user_id IN ({','.join('?' * len(chunk))})"
        found.update(r[0] for r in conn.execute(sql.format(cond=cond).replace("?1", "?"),
                                                (word, *chunk, word, *chunk)))
    return found


def _indexed_users(conn: sqlite3.Connection, words: tuple[str, ...]) -> set[str]:
    """Users the index holds every word for."""
    found: set[str] | None = None
    for word in words:
        narrow = found if found is not None and len(found) <= _NARROW_IN else None
        users = _users_with(conn, word, narrow)
        found = users if found is None else found & users
        if not found:
            break
    return found or set()


def user_terms(conn: sqlite3.Connection, user_id: str) -> set[str]:
    """Every word of the user's keys, values and events, from their rows."""
    found = index.profile_terms(conn.execute(
        "SELECT memory_key, memory_value FROM user_profiles WHERE user_id = ?", (user_id,)))
    for (text,) in conn.execute("SELECT event_summary FROM event_logs WHERE user_id = ?", (user_id,)):
        found.update(terms(text or ""))
    return found


def _unsure_users(conn: sqlite3.Connection, words: tuple[str, ...], state: index.BuildState) -> set[str]:
    """Users whose index words may be out of date for these words: changes still queued, and rows
    the build has not reached that may hold a word (SQL's lower() folds ASCII only: a word that
    NFKC or full case folding made is found in such rows only once they are indexed)."""
    unsure = {r[0] for r in conn.execute("SELECT DISTINCT user_id FROM usersearch_queue")}
    if state.complete:
        return unsure
    holds = " OR ".join(["instr(lower({col}), ?) > 0"] * len(words))
    if not state.profiles_done:
        cond = f"({holds.format(col='memory_key')} OR {holds.format(col='memory_value')})"
        unsure.update(r[0] for r in conn.execute(
            f"SELECT DISTINCT user_id FROM user_profiles WHERE user_id > ? AND {cond}",
            (state.profiles_after, *words, *words)))
    if state.events_done < state.events_upto:
        unsure.update(r[0] for r in conn.execute(
            f"SELECT DISTINCT user_id FROM event_logs WHERE id > ? AND id <= ? AND ({holds.format(col='event_summary')})",
            (state.events_done, state.events_upto, *words)))
    return unsure


def _content_users(conn: sqlite3.Connection, text: str) -> set[str]:
    """Users whose keys, values or events contain `text` as it is (the fallback)."""
    like = like_pattern(text)
    return {r[0] for r in conn.execute(
        "SELECT user_id FROM user_profiles WHERE memory_key LIKE ?1 ESCAPE '\\' OR memory_value LIKE ?1 ESCAPE '\\' "
        "UNION SELECT user_id FROM event_logs WHERE event_summary LIKE ?1 ESCAPE '\\'", (like,))}


def matching_users(conn: sqlite3.Connection, text: str, state: index.BuildState) -> set[str]:
    """Users whose keys, values or events match `text` (see the module's docstring); not the id part."""
    words = search_words(text)
    if not words:
        return _content_users(conn, text.strip()) if text.strip() else set()
    unsure = _unsure_users(conn, words, state)
    found = _indexed_users(conn, words) - unsure
    wanted = set(words)
    found.update(user_id for user_id in unsure if wanted <= user_terms(conn, user_id))
    return found


def search_user_ids(conn: sqlite3.Connection, text: str, state: index.BuildState, order_by: str = "user_id",
                    descending: bool = False) -> list[str]:
    """Ids of the users (with entries or events) whose id contains `text` or whose keys, values or
    events match it, in the user list's order. One read transaction: what it sees is one moment.
    `state` is the build's as last known (read again unless complete)."""
    if order_by not in SORT_COLUMNS:
        raise ValueError(f"cannot sort users by {order_by!r}")
    text = text.replace("\x00", "").strip()  # SQL's LIKE would end the pattern at a NUL: match all
    if not text:
        return []
    began = not conn.in_transaction
    if began:
        conn.execute("BEGIN")
    try:
        if not state.complete:  # read in the transaction: another process of ours may have moved it on
            state = index.read_build_state(conn)
        found = matching_users(conn, text, state)
        direction = "DESC" if descending else "ASC"
        by_id = conn.execute(f"SELECT user_id FROM user_summary WHERE {USER_HAS_DATA} AND user_id LIKE ? ESCAPE '\\'",
                             (like_pattern(text),)).fetchall()
        found.update(r[0] for r in by_id)
        if not found:
            return []
        if len(found) <= _NARROW_IN:
            listed = sorted(found)
            rows = conn.execute(
                f"SELECT user_id FROM user_summary WHERE user_id IN ({','.join('?' * len(listed))}) AND {USER_HAS_DATA} "
                f"ORDER BY {order_by} {direction}, user_id {direction}", listed).fetchall()
            return [r[0] for r in rows]
        rows = conn.execute(f"SELECT user_id FROM user_summary WHERE {USER_HAS_DATA} "
                            f"ORDER BY {order_by} {direction}, user_id {direction}")
        return [r[0] for r in rows if r[0] in found]
    finally:
        if began:
            conn.execute("COMMIT")


def build_index(store, progress=None, is_cancelled=None) -> bool:
    """Index an existing database's keys, values and events for the search to the end, a batch per
    transaction (resumable: what was indexed stays when it is stopped); `progress(done, total)`
    after each batch. False when `is_cancelled()` stopped it. `store` is the MemoryStore."""
    while not store.user_search_build_complete:
        if is_cancelled is not None and is_cancelled():
            return False
        done, total = store.user_search_build_step()
        if progress is not None:
            progress(done, total)
    return True
