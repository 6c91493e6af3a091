"""Searching users in keys, values and events: the words of the search text, found through the index.

What a search in keys, values and events finds (the Users page's tooltip and the docs say the same):
- users whose id contains the text (as the plain search), and
- users each of whose words begins a word of their profile keys, values or events (the rule of
  core/search/rule.py, the 3.x list's too: `teach` finds "teacher"). Each word may come from a
  different entry or event of the user.
- A text of one character, or one without any such word (only particles or punctuation), is looked
  for as it is, inside keys, values and events (SQL LIKE: ASCII case-insensitive). That scans the
  memory tables, so it is slower on a big database.
Results are exact: the index answers for users whose words it holds for sure; users with changes
still in its queue, or with rows the build has not reached, are confirmed from their own rows.

In the list's default order (by id) a search reads only what it shows: the users of the rarest
word are a range of the index in id order; the count comes from that range, later pages start
after the last id shown (`page_after`). Other orders, a build still running and long texts give
the whole ordered list at once.
"""
from __future__ import annotations

import sqlite3
from dataclasses import dataclass

from kiraos_desktop.core.storage import search_index as index
from kiraos_desktop.core.recall.text import terms
from kiraos_desktop.core.search.rule import has_every_word, prefix_params, prefix_range, search_words
from kiraos_desktop.core.storage.user_queries import USER_HAS_DATA

#: Candidate sets up to this size are narrowed by the next word with one IN (...) query.
_NARROW_IN = 500
#: A search of up to this many words, with up to this many users besides the index's (ids that match,
#: users with queued changes), is read as a range of the index.
_RANGED_WORDS = 16
_RANGED_EXTRA = 500
#: ... and each of whose words begins at most this many words of the index.
_RANGED_TERMS = 64
#: Sort orders of the user list (store.USER_SORT_COLUMNS).
SORT_COLUMNS = ("user_id", "profile_count", "event_count", "last_activity")


def like_pattern(text: str) -> str:
    """`%text%` for LIKE ... ESCAPE '\\', the wildcards of `text` taken literally."""
    return "%" + text.replace("\\", "\\\\").replace("%", "\\%").replace("_", "\\_") + "%"


_BEGINS = prefix_range("term")


def _marks(values: list) -> str:
    return ",".join("?" * len(values)) or "NULL"


def clean(text: str) -> str:
    """The text a search looks for: stripped, without NULs (SQL's LIKE would end the pattern there)."""
    return text.replace("\x00", "").strip()


def user_terms(conn: sqlite3.Connection, user_id: str) -> set[str]:
    """Every word of the user's keys, values and events, from their rows."""
    found = index.profile_terms(conn.execute(
        "SELECT memory_key, memory_value FROM user_profiles WHERE user_id = ?", (user_id,)))
    for (text,) in conn.execute("SELECT event_summary FROM event_logs WHERE user_id = ?", (user_id,)):
        found.update(terms(text or ""))
    return found


def _users_with(conn: sqlite3.Connection, word: str, among: set[str] | None) -> set[str]:
    """Users the index holds a word beginning with `word` for, limited to `among` when given."""
    if among is None:
        return {r[0] for r in conn.execute(f"SELECT user_id FROM usersearch_terms WHERE {_BEGINS}",
                                           prefix_params(word))}
    found: set[str] = set()
    listed = sorted(among)
    for start in range(0, len(listed), _NARROW_IN):
        chunk = listed[start:start + _NARROW_IN]
        found.update(r[0] for r in conn.execute(
            f"SELECT user_id FROM usersearch_terms WHERE {_BEGINS} AND user_id IN ({_marks(chunk)})",
            (*prefix_params(word), *chunk)))
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
        have = {w for text in texts for w in terms(text or "")}
        found = {word for word in wanted if has_every_word((word,), have)}
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
    return [user_id for user_id in user_ids if has_every_word(words, user_terms(conn, user_id))]


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


_HAS_ID = "user_id LIKE ? ESCAPE '\\'"
_TEXT_IN = ("user_id IN (SELECT user_id FROM user_profiles WHERE memory_key LIKE ? ESCAPE '\\' "
            "OR memory_value LIKE ? ESCAPE '\\' UNION SELECT user_id FROM event_logs WHERE event_summary LIKE ? ESCAPE '\\')")


def _order(order_by: str, descending: bool) -> str:
    direction = "DESC" if descending else "ASC"
    return f"ORDER BY user_id {direction}" if order_by == "user_id" else \
        f"ORDER BY {order_by} {direction}, user_id {direction}"


def _all_ids(conn: sqlite3.Connection, text: str, state: index.BuildState, order_by: str, descending: bool) -> list[str]:
    """Every matching user's id in the list's order, computed at once (inside a read transaction)."""
    order = _order(order_by, descending)
    words = search_words(text)
    if not words:
        like = like_pattern(text)
        return [r[0] for r in conn.execute(
            f"SELECT user_id FROM user_summary WHERE {USER_HAS_DATA} AND ({_HAS_ID} OR {_TEXT_IN}) {order}",
            (like, like, like, like))]
    found = _matching_users(conn, words, state)
    found.update(r[0] for r in conn.execute(
        f"SELECT user_id FROM user_summary WHERE {USER_HAS_DATA} AND {_HAS_ID}", (like_pattern(text),)))
    if not found:
        return []
    if len(found) <= _NARROW_IN:
        listed = sorted(found)
        return [r[0] for r in conn.execute(
            f"SELECT user_id FROM user_summary WHERE user_id IN ({_marks(listed)}) "
            f"AND {USER_HAS_DATA} {order}", listed)]
    return [r[0] for r in conn.execute(f"SELECT user_id FROM user_summary WHERE {USER_HAS_DATA} {order}")
            if r[0] in found]


@dataclass(frozen=True)
class _Ranged:
    """A search read from the index in id order: `sql` (with `params`) gives the users who have every
    word, except those the index is unsure of; `extra` (sorted, none of them in `sql`'s answer) are
    the users whose id matches and the unsure ones confirmed from their rows."""

    sql: str
    params: list
    extra: list[str]


def _ranged(conn: sqlite3.Connection, text: str, state: index.BuildState) -> _Ranged | None:
    """The search as a range of the index, or None when it must be computed at once."""
    words = search_words(text)
    if not words or not state.complete or len(words) > _RANGED_WORDS:
        return None
    queued = _queued_users(conn)
    by_id = [r[0] for r in conn.execute(f"SELECT user_id FROM user_summary WHERE {USER_HAS_DATA} AND {_HAS_ID} "
                                        f"LIMIT {_RANGED_EXTRA + 1}", (like_pattern(text),))]
    if len(queued) + len(by_id) > _RANGED_EXTRA:
        return None
    # Each word as the index words that begin with it: a user is then found by (term, user_id) seeks;
    # a range joined on the user would read the whole range for every user.
    expanded = {word: [r[0] for r in conn.execute(
        f"SELECT DISTINCT term FROM usersearch_terms WHERE {_BEGINS} LIMIT {_RANGED_TERMS + 1}", prefix_params(word))]
        for word in words}
    if any(len(found) > _RANGED_TERMS for found in expanded.values()):
        return None  # a short word that begins many: the sets of users, at once
    counted = sorted((conn.execute(f"SELECT count(*) FROM usersearch_terms WHERE term IN ({_marks(found)})",
                                   found).fetchone()[0], word) for word, found in expanded.items())
    rarest, *others = [word for _, word in counted]
    # DISTINCT: a user may hold several words that begin with the same search word.
    sql = f"SELECT DISTINCT t0.user_id FROM usersearch_terms AS t0 WHERE t0.term IN ({_marks(expanded[rarest])})"
    params: list = [*expanded[rarest]]
    for number, word in enumerate(others, 1):
        sql += (f" AND EXISTS (SELECT 1 FROM usersearch_terms AS t{number} "
                f"WHERE t{number}.term IN ({_marks(expanded[word])}) AND t{number}.user_id = t0.user_id)")
        params += expanded[word]
    if queued:
        sql += f" AND t0.user_id NOT IN ({_marks(queued)})"
        params += queued
    extra = set(_confirmed(conn, words, queued)) | set(by_id)
    if extra:
        listed = sorted(extra)
        extra.difference_update(r[0] for r in conn.execute(
            f"{sql} AND t0.user_id IN ({_marks(listed)})", params + listed))
    return _Ranged(sql, params, sorted(extra))


def _ranged_page(conn: sqlite3.Connection, ranged: _Ranged, descending: bool, after: str | None,
                 limit: int | None) -> list[str]:
    """Up to `limit` (None: all) ids of a ranged search after the id `after` (None: from the start)."""
    sql, params = ranged.sql, list(ranged.params)
    extra = ranged.extra[::-1] if descending else ranged.extra
    if after is not None:
        sql += " AND t0.user_id < ?" if descending else " AND t0.user_id > ?"
        params.append(after)
        extra = [user_id for user_id in extra if (user_id < after if descending else user_id > after)]
    sql += " ORDER BY t0.user_id DESC" if descending else " ORDER BY t0.user_id"
    if limit is not None:
        sql += " LIMIT ?"
        params.append(limit)
    merged = sorted([r[0] for r in conn.execute(sql, params)] + extra, reverse=descending)
    return merged if limit is None else merged[:limit]


@dataclass(frozen=True)
class Found:
    """What a search found: how many users, the ids of the first page, and every id when they were
    computed at once (None: later pages come from `page_after`)."""

    total: int
    first: list[str]
    ids: list[str] | None


class _ReadTransaction:
    """BEGIN ... COMMIT around a search on a connection in autocommit mode, so that it reads one moment."""

    def __init__(self, conn: sqlite3.Connection) -> None:
        self._conn = conn
        self._began = False

    def __enter__(self) -> None:
        if not self._conn.in_transaction:
            self._conn.execute("BEGIN")
            self._began = True

    def __exit__(self, *exc) -> None:
        if self._began:
            self._conn.execute("COMMIT")


def _state(conn: sqlite3.Connection, state: index.BuildState) -> index.BuildState:
    # Read in the transaction unless complete: another process of ours may have moved the build on.
    return state if state.complete else index.read_build_state(conn)


def search(conn: sqlite3.Connection, text: str, state: index.BuildState, order_by: str = "user_id",
           descending: bool = False, page: int = 200) -> Found:
    """The users (with entries or events) whose id contains `text` or whose keys, values or events
    match it, in the user list's order: their count and first `page` ids. `state` is the build's
    as last known."""
    if order_by not in SORT_COLUMNS:
        raise ValueError(f"cannot sort users by {order_by!r}")
    text = clean(text)
    if not text:
        return Found(0, [], [])
    with _ReadTransaction(conn):
        state = _state(conn, state)
        ranged = _ranged(conn, text, state) if order_by == "user_id" else None
        if ranged is not None:
            total = conn.execute(f"SELECT count(*) FROM ({ranged.sql}) AS found", ranged.params).fetchone()[0]
            return Found(total + len(ranged.extra), _ranged_page(conn, ranged, descending, None, page), None)
        ids = _all_ids(conn, text, state, order_by, descending)
        return Found(len(ids), ids[:page], ids)


def page_after(conn: sqlite3.Connection, text: str, state: index.BuildState, descending: bool, after: str,
               page: int = 200) -> list[str]:
    """The next `page` ids of a search in id order (see `search`), after the id `after`."""
    text = clean(text)
    if not text:
        return []
    with _ReadTransaction(conn):
        state = _state(conn, state)
        ranged = _ranged(conn, text, state)
        if ranged is not None:
            return _ranged_page(conn, ranged, descending, after, page)
        ids = _all_ids(conn, text, state, "user_id", descending)
    return [user_id for user_id in ids if (user_id < after if descending else user_id > after)][:page]


def search_user_ids(conn: sqlite3.Connection, text: str, state: index.BuildState, order_by: str = "user_id",
                    descending: bool = False) -> list[str]:
    """Every id `search` finds, in the list's order."""
    if order_by not in SORT_COLUMNS:
        raise ValueError(f"cannot sort users by {order_by!r}")
    text = clean(text)
    if not text:
        return []
    with _ReadTransaction(conn):
        state = _state(conn, state)
        ranged = _ranged(conn, text, state) if order_by == "user_id" else None
        if ranged is not None:
            return _ranged_page(conn, ranged, descending, None, None)
        return _all_ids(conn, text, state, order_by, descending)


def build_index(store, progress=None, is_cancelled=None) -> bool:
    """Index an existing database's keys, values and events for the search to the end, a batch per
    transaction (resumable: what was indexed stays when it is stopped); `progress(done, total)`
    after each batch. False when `is_cancelled()` stopped it. `store` is the MemoryStore (storage/protocol.py)."""
    while not store.user_search_build_complete:
        if is_cancelled is not None and is_cancelled():
            return False
        done, total = store.user_search_build_step()
        if progress is not None:
            progress(done, total)
    return True
