"""The user lists of the window and the export: peewee queries on models.py, compiled for each backend.

Searching keys, values and events is user_search.py's (an index on SQLite); these are the plain
lists: users with data, optionally whose id contains a text, in one of the list's orders.
"""
from __future__ import annotations

from peewee import SQL, NodeList, fn

from kiraos_desktop.core.storage.models import UserSummaryRow

_S = UserSummaryRow
#: A summary row of a user with data (one stays, counts zero, while the user has history).
USER_HAS_DATA = "(profile_count > 0 OR event_count > 0)"
SORT_COLUMNS = {"user_id": _S.user_id, "profile_count": _S.profile_count, "event_count": _S.event_count,
                "last_activity": _S.last_activity}
_COLUMNS = (_S.user_id, _S.profile_count, _S.event_count, _S.last_activity)


def has_data():
    """The summary rows of users that have entries or events (a row stays for history: see schema.py)."""
    return (_S.profile_count > 0) | (_S.event_count > 0)


def id_filter(pattern: str | None, like: str):
    """Users with data, whose id matches the LIKE `pattern` when one is given (`like`: the backend's
    ASCII-case-insensitive LIKE: SQLite's LIKE, PostgreSQL's ILIKE)."""
    if pattern is None:
        return has_data()
    return has_data() & NodeList((_S.user_id, SQL(like), pattern, SQL("ESCAPE '\\'")))


def count_query(where):
    return _S.select(fn.COUNT(SQL("*"))).where(where)


def list_query(where, order_by: str, descending: bool, offset: int, limit: int):
    column = SORT_COLUMNS.get(order_by)
    if column is None:
        raise ValueError(f"cannot sort users by {order_by!r}")
    order = [column.desc() if descending else column.asc()]
    if order_by != "user_id":  # ties in id order
        order.append(_S.user_id.desc() if descending else _S.user_id.asc())
    return _S.select(*_COLUMNS).where(where).order_by(*order).limit(limit).offset(offset)


def summaries_query(user_ids: list[str]):
    return _S.select(*_COLUMNS).where(_S.user_id.in_(user_ids) & has_data())


def all_ids_query():
    return _S.select(_S.user_id).where(has_data()).order_by(_S.user_id)


def stats_query():
    return _S.select(fn.COUNT(SQL("*")), fn.COALESCE(fn.SUM(_S.profile_count), 0),
                     fn.COALESCE(fn.SUM(_S.event_count), 0)).where(has_data())
