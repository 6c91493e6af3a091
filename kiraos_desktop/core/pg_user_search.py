"""The Users page's search in keys, values and events on PostgreSQL: user_search.py's results, without its index.

Same meaning as user_search.py (the user id contains the text, or the user has every word of it;
a text without words is looked for as it is). There is no word index on PostgreSQL: the candidates
are the users whose rows hold every word as a substring (case-folded), confirmed from their rows
with the same segmenter. It scans the memory tables, so it is slower than SQLite's on a big database.
"""
from __future__ import annotations

from kiraos_desktop.core import user_search
from kiraos_desktop.core.dialect import PgConnection
from kiraos_desktop.core.schema import USER_HAS_DATA

_HOLDS = ("user_id IN (SELECT user_id FROM user_profiles WHERE strpos(lower(memory_key), %s) > 0 "
          "OR strpos(lower(memory_value), %s) > 0 UNION SELECT user_id FROM event_logs "
          "WHERE strpos(lower(event_summary), %s) > 0)")
_TEXT_IN = ("user_id IN (SELECT user_id FROM user_profiles WHERE memory_key ILIKE %s ESCAPE '\\' "
            "OR memory_value ILIKE %s ESCAPE '\\' UNION SELECT user_id FROM event_logs "
            "WHERE event_summary ILIKE %s ESCAPE '\\')")
_BY_ID = "user_id ILIKE %s ESCAPE '\\'"


def search_user_ids(conn, text: str, order_by: str = "user_id", descending: bool = False) -> list[str]:
    """user_search.search_user_ids() on a psycopg connection."""
    if order_by not in user_search.SORT_COLUMNS:
        raise ValueError(f"cannot sort users by {order_by!r}")
    text = text.replace("\x00", "").strip()
    if not text:
        return []
    direction = "DESC" if descending else "ASC"
    order = f"ORDER BY {order_by} {direction}" + (f", user_id {direction}" if order_by != "user_id" else "")
    like = user_search.like_pattern(text)
    words = user_search.search_words(text)
    if not words:
        cond, params = _TEXT_IN, [like, like, like]
    else:
        candidates = [r[0] for r in conn.execute(
            f"SELECT user_id FROM user_summary WHERE {USER_HAS_DATA} AND "
            + " AND ".join([_HOLDS] * len(words)), [w for word in words for w in (word, word, word)])]
        confirmed = user_search._confirmed(PgConnection(conn), words, candidates)
        cond, params = "user_id = ANY(%s)", [confirmed]
    return [r[0] for r in conn.execute(
        f"SELECT user_id FROM user_summary WHERE {USER_HAS_DATA} AND ({_BY_ID} OR {cond}) {order}",
        [like, *params])]
