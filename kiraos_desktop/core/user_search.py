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


def user_terms(conn: sqlite3.Connection, user_id: str) -> set[str]:
    """Every word of the user's keys, values and events, from their rows."""
    found = index.profile_terms(conn.execute(
        "SELECT memory_key, memory_value FROM user_profiles WHERE user_id = ?", (user_id,)))
    for (text,) in conn.execute("SELECT event_summary FROM event_logs WHERE user_id = ?", (user_id,)):
        found.update(terms(text or ""))
    return found


def _queued_users(conn: sqlite3.Connection) -> list[str]:
    """Users with changes the index has not taken yet (its words for them may be out of date)."""
    return [r[0] for r in conn.execute("SELECT DISTINCT user_id FROM usersearch_queue ORDER BY user_id")]


def _unbuilt_words(conn: sqlite3.Connection, words: tuple[str, ...], state: index.BuildState) -> dict[str, set[str]]:
    """While the build runs: user -> the words found in their rows it has not reached (the index holds
    the rest of their words). The rows are picked with SQL's instr() on lower(), which folds ASCII
    only: a word that NFKC or full case folding made is found in such rows once they are indexed."""
    held: dict[str, set[str]] = {}
    wanted = set(words)

    def take(user_id: str, *texts: str) -> None:
        found = {w for text in texts for w in terms(text or "")} & wanted
        if found:
            held.setdefault(user_id, set()).update(found)

    holds = " OR ".join(["instr(lower({col}), ?) > 0"] * len(words))
    if not state.profiles_done:
        cond = f"({holds.format(col='memory_key')} OR {holds.format(col='memory_value')})"
        for user_id, key, value in conn.execute(
                f"SELECT user_id, memory_key, memory_value FROM user_profiles WHERE user_id > ? AND {cond}",
                (state.profiles_after, *words, *words)):
            take(user_id, key, value)
    if state.events_done < state.events_upto:
        for user_id, text in conn.execute(
                f"SELECT user_id, event_summary FROM event_logs WHERE id > ? AND id <= ? AND "
                f"({holds.format(col='event_summary')})", (state.events_done, state.events_upto, *words)):
            take(user_id, text)
    return held


def _confirmed(conn: sqlite3.Connection, words: tuple[str, ...], user_ids) -> list[str]:
    """Those of the users who have every word, read from their rows."""
    wanted = set(words)
    return [user_id for user_id in user_ids if wanted <= user_terms(conn, user_id)]


def _matching_users(conn: sqlite3.Connection, words: tuple[str, ...], state: index.BuildState) -> set[str]:
    """Users who have every word (the general way: sets in Python, any number of words, any build state)."""
    queued = set(_queued_users(conn))
    held = _unbuilt_words(conn, words, state) if not state.complete else {}
    found: set[str] | None = None
    for word in words:
        narrow = found if found is not None and len(found) <= _NARROW_IN else None
        users = _users_with(conn, word, narrow)
        users.update(user_id for user_id, have in held.items() if word in have)
        found = users if found is None else found & users
        if not found:
            break
    found = (found or set()) - queued
    found.update(_confirmed(conn, words, queued))
    return found


#: Up to this many words (and queued users), a search with a complete index is one SQL statement.
_SQL_WORDS = 16
_SQL_QUEUED = 500
_WORD_IN = ("user_id IN (SELECT user_id FROM usersearch_profiles WHERE term = ? "
            "UNION ALL SELECT user_id FROM usersearch_events WHERE term = ?)")
_TEXT_IN = ("user_id IN (SELECT user_id FROM user_profiles WHERE memory_key LIKE ? ESCAPE '\\' "
            "OR memory_value LIKE ? ESCAPE '\\' UNION SELECT user_id FROM event_logs WHERE event_summary LIKE ? ESCAPE '\\')")


def _match_condition(conn: sqlite3.Connection, text: str, state: index.BuildState) -> tuple[str, list] | None:
    """An SQL condition on user_summary's user_id for the users whose keys, values or events match
    `text`, when one statement can say it; None when the general way must."""
    words = search_words(text)
    if not words:
        like = like_pattern(text)
        return _TEXT_IN, [like, like, like]
    if not state.complete or len(words) > _SQL_WORDS:
        return None
    queued = _queued_users(conn)
    if len(queued) > _SQL_QUEUED:
        return None
    cond = " AND ".join([_WORD_IN] * len(words))
    params: list = [p for word in words for p in (word, word)]
    if queued:
        cond += f" AND user_id NOT IN ({','.join('?' * len(queued))})"
        params += queued
    confirmed = _confirmed(conn, words, queued)
    if confirmed:
        cond = f"({cond}) OR user_id IN ({','.join('?' * len(confirmed))})"
        params += confirmed
    return f"({cond})", params


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
    order = "DESC" if descending else "ASC"
    order = f"ORDER BY {order_by} {order}, user_id {order}" if order_by != "user_id" else f"ORDER BY user_id {order}"
    by_id = "user_id LIKE ? ESCAPE '\\'"
    began = not conn.in_transaction
    if began:
        conn.execute("BEGIN")
    try:
        if not state.complete:  # read in the transaction: another process of ours may have moved it on
            state = index.read_build_state(conn)
        condition = _match_condition(conn, text, state)
        if condition is not None:
            cond, params = condition
            return [r[0] for r in conn.execute(
                f"SELECT user_id FROM user_summary WHERE {USER_HAS_DATA} AND ({by_id} OR {cond}) {order}",
                [like_pattern(text), *params])]
        found = _matching_users(conn, search_words(text), state)
        found.update(r[0] for r in conn.execute(
            f"SELECT user_id FROM user_summary WHERE {USER_HAS_DATA} AND {by_id}", (like_pattern(text),)))
        if len(found) <= _NARROW_IN:
            listed = sorted(found)
            return [r[0] for r in conn.execute(
                f"SELECT user_id FROM user_summary WHERE user_id IN ({','.join('?' * len(listed))}) "
                f"AND {USER_HAS_DATA} {order}", listed)]
        return [r[0] for r in conn.execute(f"SELECT user_id FROM user_summary WHERE {USER_HAS_DATA} {order}")
                if r[0] in found]
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
