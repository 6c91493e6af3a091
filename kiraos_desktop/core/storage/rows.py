"""How the store reads its tables: column lists, the live-entry condition, the events query, the row types."""
from __future__ import annotations

import math
import re

from kiraos_desktop.core.storage.dialect import time_text
from kiraos_desktop.core.memory.records import CATEGORY_RANK, EventEntry, ProfileEntry, UserSummary
from kiraos_desktop.core.timeutil import number_time_text

#: The expiry as text whatever its stored type (plugin 2.x stores epoch seconds; see dialect.time_text).
EXPIRES_TEXT = time_text("expires_at")
#: The columns of a profile entry, in the order of ProfileRow (and of ProfileEntry's fields); times as text.
PROFILE_COLUMNS = (f"user_id, memory_key, memory_value, {time_text('updated_at')} AS updated_at, confidence, "
                   f"category, {EXPIRES_TEXT} AS expires_at")
PROFILE_SELECT = f"SELECT {PROFILE_COLUMNS} FROM user_profiles"
#: An entry the bot still sees: no expiry, or one SQLite reads as later than the `?` given (now),
#: in the unit the row holds.
LIVE_CONDITION = f"(expires_at IS NULL OR datetime({EXPIRES_TEXT}) > datetime(?))"
#: An entry the bot no longer sees (the purge's condition).
EXPIRED_CONDITION = f"(expires_at IS NOT NULL AND datetime({EXPIRES_TEXT}) <= datetime(?))"
#: The columns of an event, in the order of EventEntry's fields; the time as text.
EVENT_COLUMNS = f"id, user_id, event_summary, {time_text('created_at')} AS created_at"
EVENT_SELECT = f"SELECT {EVENT_COLUMNS} FROM event_logs"
#: Where an event row (EVENT_COLUMNS) holds the summary.
EVENT_ROW_SUMMARY = EVENT_COLUMNS.split(", ").index("event_summary")
#: The same with the event's tag, on data that has the column (KiraOS plugin 2.x; EventEntry.tag).
TAGGED_EVENT_SELECT = f"SELECT {EVENT_COLUMNS}, tag FROM event_logs"
#: The order events are shown and kept in.
# Qualified: the column itself (its index), not the text of EVENT_COLUMNS, which ORDER BY would take.
NEWEST_EVENTS_FIRST = "ORDER BY event_logs.created_at DESC, event_logs.id DESC"
#: The columns of an audit record, in the order of ChangeRecord's fields.
CHANGE_COLUMNS = "id, at, user_id, actor, action, target, before, after"

_OTHER_RANK = len(CATEGORY_RANK)
_EPOCH_TEXT = re.compile(r"-?\d+(\.\d*)?")
#: The confidence of a row that has none we can read.
DEFAULT_CONFIDENCE = 0.5


#: A profile row as SQLite returns it: PROFILE_COLUMNS, then (WriteBatch.profile_rows()) whether SQLite
#: reads it as live at the batch's time. Plain tuples read by these positions: a named tuple per row
#: cost memory_update ~3 us a call (50 % more for reading and ordering a user's 13 rows).
ProfileRow = tuple
ROW_USER_ID, ROW_KEY, ROW_VALUE, ROW_UPDATED_AT, ROW_CONFIDENCE, ROW_CATEGORY, ROW_EXPIRES_AT, ROW_LIVE = range(8)


def profile_from_row(row: ProfileRow) -> ProfileEntry:
    """The entry of a row of PROFILE_COLUMNS (a live flag after them is ignored): defaults for the plugin's NULLs."""
    user_id, key, value, updated_at, confidence, category, expires_at = row[:ROW_LIVE]
    return ProfileEntry(
        user_id, key, value, updated_at,
        stored_confidence(confidence),
        category or "basic", expires_at,
    )


def stored_confidence(value) -> float:
    """A row's confidence as a finite number. The plugin's NULL, and what another program may have
    written that is none (SQLite keeps text such as "high" in a REAL column as text, and an
    infinity as it is), read as DEFAULT_CONFIDENCE: such a row must not make its user unreadable."""
    if type(value) is float and math.isfinite(value):
        return value
    try:
        number = float(value)
    except (TypeError, ValueError):
        return DEFAULT_CONFIDENCE
    return number if math.isfinite(number) else DEFAULT_CONFIDENCE


def summary_from_row(row) -> UserSummary:
    """A user_summary row; its last activity as text (the triggers copy a time as the row held it,
    and another writer may have stored a number: see dialect.time_text)."""
    user_id, profiles, events, last_activity = row
    if last_activity is not None and (type(last_activity) is not str or _EPOCH_TEXT.fullmatch(last_activity)):
        last_activity = number_time_text(float(last_activity))  # a row summed before the triggers read numbers
    return UserSummary(user_id, profiles, events, last_activity)


def event_from_row(row) -> EventEntry:
    return EventEntry(*row)


def sort_profiles(entries) -> list[ProfileEntry]:
    """Category priority, then higher confidence, then most recently updated (two stable sorts)."""
    ordered = sorted(entries, key=lambda e: e.updated_at or "", reverse=True)
    ordered.sort(key=lambda e: (CATEGORY_RANK.get(e.category, _OTHER_RANK), e.category, -e.confidence))
    return ordered


def live_head(known: dict[str, ProfileRow], limit: int) -> tuple[list[tuple[str, str]], int]:
    """(key, value) of the first `limit` unexpired entries of profile_rows() in display order, and
    how many unexpired entries there are: the memory_update reply needs only those few."""
    rows = sort_profile_rows([row for row in known.values() if row[ROW_LIVE]])
    return [(row[ROW_KEY], row[ROW_VALUE]) for row in rows[:limit]], len(rows)


def sort_profile_rows(rows: list[ProfileRow]) -> list[ProfileRow]:
    """sort_profiles() on rows, read as profile_from_row() reads them (no entries built)."""
    ordered = sorted(rows, key=_newest_first, reverse=True)
    ordered.sort(key=_display_rank)
    return ordered


def _newest_first(row: ProfileRow) -> str:
    return row[ROW_UPDATED_AT] or ""


def _display_rank(row: ProfileRow) -> tuple:
    category = row[ROW_CATEGORY] or "basic"
    return CATEGORY_RANK.get(category, _OTHER_RANK), category, -stored_confidence(row[ROW_CONFIDENCE])
