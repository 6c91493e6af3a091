"""One write transaction of the store: validated operations, each recorded in the audit log."""
from __future__ import annotations

from datetime import datetime, timedelta
from typing import TYPE_CHECKING, Any, Iterable, Protocol, Sequence

from kiraos_desktop.core.memory.audit_json import dump_audit_value
from kiraos_desktop.core.recall.text import repeat_key
from kiraos_desktop.core.storage.protocol import KEEP_TAG
from kiraos_desktop.core.storage.audit_rows import write_audit_rows
from kiraos_desktop.core.storage.repeat_keys import INSERT_CODE, SAME_CODE, UNCODED, key_code, text_code
from kiraos_desktop.core.memory.records import (
    EventEntry,
    LimitError,
    ProfileEntry,
    ValidationError,
    check_category,
    check_confidence,
    check_event_text,
    check_expiry,
    check_key,
    check_tag,
    check_user_id,
    check_value,
)
from kiraos_desktop.core.storage.rows import (
    EVENT_SELECT,
    EXPIRED_CONDITION,
    LIVE_CONDITION,
    NEWEST_EVENTS_FIRST,
    PROFILE_COLUMNS,
    TAGGED_EVENT_SELECT,
    PROFILE_SELECT,
    ROW_KEY,
    ROW_LIVE,
    ProfileRow,
    event_from_row,
    profile_from_row,
)
from kiraos_desktop.core.timeutil import parse_timestamp, to_epoch, to_iso

if TYPE_CHECKING:
    from kiraos_desktop.core.storage.coded_users import CodedUsers
    from kiraos_desktop.core.storage.audit_rows import GroupAudit


#: update_event()'s default: the event keeps its tag.


class BatchStore(Protocol):
    """What a batch needs of the backend that opened it (storage/sql_store.py; the backend imports this module, not back)."""

    writer: Any  # the writer database; its connection runs the batch's SQL
    epoch_expiries: bool  # expiries are stored as epoch seconds (KiraOS plugin 2.x), not ISO text
    event_tags: bool  # events have a tag column (KiraOS plugin 2.x)
    max_profiles_per_user: int
    max_event_keep: int

    def allocate_change_ids(self, count: int) -> Sequence[int]: ...


class WriteBatch:
    """Created by the store's batch() (SqlStore); valid only inside its `with` block (the write lock is held)."""

    def __init__(self, store: BatchStore, actor: str, coded_before: "CodedUsers | None" = None,
                 group_audit: "GroupAudit | None" = None) -> None:
        """`coded_before`: what earlier committed batches coded for the repeat check (SQLite's store
        keeps it: see storage/coded_users.py). `group_audit`: where a batch inside a write
        group leaves its audit rows for the group's commit (see storage/audit_rows.py)."""
        self._store = store
        # The raw connection: peewee's execute_sql wrapper costs more than the statements here.
        self._sql = store.writer.connection().execute
        self.actor = actor
        self.now_moment = datetime.now()
        self.now = to_iso(self.now_moment)
        self._touched: dict[str, str] = {}
        self._audit_rows: list[tuple] = []  # written by flush_audit(), in one statement
        self._group_audit = group_audit
        self._change_ids: list[int] = []
        self.bulk_action: str | None = None  # set for bulk work: one event for all users instead of one each
        # (user_id, every profile row the user has now by key): set by a run of writes to one user that
        # kept its profile_rows() current to the end (leave_profile_rows()); see storage/profile_hints.py.
        self.profile_rows_left: tuple[str, dict[str, ProfileRow]] | None = None
        # The users whose events since a day have their repeat codes (is_recent_event()), by that day
        # ("": not since this batch changed an event), over what earlier batches coded; and the last
        # text checked with its key, which add_event() usually stores next.
        self._coded: dict[str, str] = {}
        self._coded_before = coded_before
        self._last_key: tuple[str, str] | None = None
        # Events are read with their tags where the data has them, so every audit record keeps them.
        self._event_select = TAGGED_EVENT_SELECT if store.event_tags else EVENT_SELECT

    def declare_users(self, users: Iterable[str]) -> None:
        """The users this batch will write, said before its first statement (SqlStore.batch(users=)).
        Nothing to do with one writer (SQLite); PgWriteBatch takes their locks."""

    def execute(self, sql: str, params: tuple = ()):
        """Raw SQL inside this transaction, for bulk work that has validated its input already."""
        return self._sql(sql, params)

    def run(self, query):
        """A peewee query on models.py inside this transaction, compiled for the store's backend (bulk
        work that has validated its input already); its cursor."""
        sql, params = self._store.writer.get_sql_context().sql(query).query()
        return self._run_compiled(sql, params)

    def _run_compiled(self, sql: str, params: list):
        return self._sql(sql, params)

    def touched(self) -> list[tuple[str | None, str]]:
        if self.bulk_action and self._touched:
            return [(None, self.bulk_action)]
        return list(self._touched.items())

    def audit(self, user_id: str, action: str, target: str | None, before: Any, after: Any) -> None:
        """Record a change; `before`/`after` are dicts, lists, entries (stored as their to_dict()) or None."""
        self._audit_rows.append((self.now, user_id, self.actor, action, target,
                                 dump_audit_value(before), dump_audit_value(after)))
        self._touched[user_id] = action if user_id not in self._touched else "batch"

    @property
    def change_ids(self) -> list[int]:
        """Ids of the audit rows written by this batch, in order."""
        self.flush_audit()
        return list(self._change_ids)

    def flush_audit(self) -> None:
        """Write the audit rows recorded so far. (Asked for inside a write group, by a batch that wants
        its change ids, they are written before the rows the group holds back for its commit: their
        ids are then smaller, each user's chain still links every row. The groups' memory_update
        calls never ask.)"""
        rows, self._audit_rows = self._audit_rows, []
        if rows:
            self._change_ids.extend(write_audit_rows(self._sql, self._store, rows))

    def end_audit(self) -> None:
        """The batch's body is done (the store calls this before the batch ends): its audit rows are
        written now or, inside a write group that holds them back (SQLite), with the other calls'
        rows just before the group's commit; nobody asked for this batch's change ids then."""
        if self._group_audit is not None and not self._change_ids:
            self._group_audit.add(self._audit_rows)
            self._audit_rows = []
        else:
            self.flush_audit()

    # ---- profiles ------------------------------------------------------------------------

    def profile(self, user_id: str, key: str) -> ProfileEntry | None:
        row = self._sql(f"{PROFILE_SELECT} WHERE user_id = ? AND memory_key = ?", (user_id, key)).fetchone()
        return profile_from_row(row) if row else None

    def live_profile_count(self, user_id: str) -> int:
        return self._sql(f"SELECT count(*) FROM user_profiles WHERE user_id = ? AND {LIVE_CONDITION}",
                         (user_id, self.now)).fetchone()[0]

    def profile_rows(self, user_id: str) -> dict[str, ProfileRow]:
        """Every entry of a user as rows (PROFILE_COLUMNS, then SQLite's live flag: ROW_LIVE), by key.

        For a run of writes to one user (memory_update): pass it as `known` to set_profile and
        delete_profile, which keep it current, and to live_head(); the run reads the user's
        entries once. Valid only while nothing else writes that user's entries in this batch.
        """
        rows = self._sql(f"SELECT {PROFILE_COLUMNS}, {LIVE_CONDITION} FROM user_profiles WHERE user_id = ?",
                         (self.now, user_id)).fetchall()
        return {row[ROW_KEY]: row for row in rows}

    def leave_profile_rows(self, user_id: str, known: dict[str, ProfileRow]) -> None:
        """Say that `known`, the user's profile_rows() kept current by every write of this batch to
        the user's entries, is what the user has at the batch's end (this batch wrote no other user)."""
        self.profile_rows_left = (user_id, known)

    def _live_row(self, entry: ProfileEntry) -> ProfileRow:
        # The entry was validated (expiry normalised to naive ISO), so Python and SQLite agree on it.
        live = entry.expires_at is None or parse_timestamp(entry.expires_at) > self.now_moment
        return (entry.user_id, entry.key, entry.value, entry.updated_at, entry.confidence, entry.category,
                entry.expires_at, live)

    def set_profile(self, user_id: str, key: str, value: Any, *, confidence: Any = 0.5, category: Any = "basic",
                    expires_at: Any = None, enforce_limit: bool = True,
                    known: dict[str, ProfileRow] | None = None) -> ProfileEntry:
        """Insert or update one entry; returns the new entry. Raises ValidationError or LimitError.

        `known`: the user's profile_rows(), read instead of the database and kept current."""
        user_id, key = check_user_id(user_id), check_key(key)
        value, confidence = check_value(value), check_confidence(confidence)
        category, expires_at = check_category(category), check_expiry(expires_at)
        if known is None:
            before = self.profile(user_id, key)
            is_new = before is None or before.is_expired(self.now)
        else:
            row = known.get(key)
            before = profile_from_row(row) if row else None
            is_new = row is None or not row[ROW_LIVE]  # expired by SQLite's reading, as the limit counts
        limit = self._store.max_profiles_per_user
        if enforce_limit and is_new and limit:
            live = self.live_profile_count(user_id) if known is None else sum(1 for r in known.values() if r[ROW_LIVE])
            if live >= limit:
                raise LimitError(f"profile limit reached ({limit} entries); delete an entry or raise "
                                 f"max_profiles_per_user", limit)
        after = ProfileEntry(user_id, key, value, self.now, confidence, category, expires_at)
        self.put_profile(after)
        if known is not None:
            known[key] = self._live_row(after)
        self.audit(user_id, "profile_set", key, before, after)
        return after

    def put_profile(self, entry: ProfileEntry) -> None:
        """Store an entry as given, without audit or limit (bulk import, restore)."""
        self._sql("INSERT INTO user_profiles (user_id, memory_key, memory_value, updated_at, confidence, category, "
                  "expires_at) VALUES (?, ?, ?, ?, ?, ?, ?) ON CONFLICT(user_id, memory_key) DO UPDATE SET "
                  "memory_value = excluded.memory_value, updated_at = excluded.updated_at, "
                  "confidence = excluded.confidence, category = excluded.category, expires_at = excluded.expires_at",
                  (entry.user_id, entry.key, entry.value, entry.updated_at, entry.confidence, entry.category,
                   self.stored_expiry(entry.expires_at)))

    def stored_expiry(self, expires_at: str | None) -> str | int | None:
        """An entry's expiry (validated naive local ISO text) as the data's layout stores it: epoch
        seconds on KiraOS plugin 2.x data, which compares numbers; the text itself elsewhere."""
        if expires_at is None or not self._store.epoch_expiries:
            return expires_at
        return to_epoch(expires_at)

    def restore_profile(self, data: dict) -> None:
        """Put back an entry exactly as an audit record saw it (no limit: restoring is explicit)."""
        entry = ProfileEntry(**data)
        before = self.profile(entry.user_id, entry.key)
        self.put_profile(entry)
        self.audit(entry.user_id, "profile_set", entry.key, before, entry)

    def delete_profile(self, user_id: str, key: str, known: dict[str, ProfileRow] | None = None) -> bool:
        if known is None:
            before = self.profile(user_id, key)
        else:
            row = known.pop(key, None)
            before = profile_from_row(row) if row else None
        if before is None:
            return False
        self._sql("DELETE FROM user_profiles WHERE user_id = ? AND memory_key = ?", (user_id, key))
        self.audit(user_id, "profile_delete", key, before, None)
        return True

    # ---- events --------------------------------------------------------------------------

    def _event(self, event_id: int) -> EventEntry | None:
        row = self._sql(f"{self._event_select} WHERE id = ?", (event_id,)).fetchone()
        return event_from_row(row) if row else None

    def _checked_tag(self, tag: Any) -> str | None:
        tag = check_tag(tag)
        if tag is not None and not self._store.event_tags:
            raise ValidationError("tag", "this memory keeps no event tags (KiraOS plugin 2.x data does)")
        return tag

    def add_event(self, user_id: str, summary: Any, *, created_at: str | None = None, trim: bool = True,
                  tag: Any = None) -> int:
        user_id, summary, tag = check_user_id(user_id), check_event_text(summary), self._checked_tag(tag)
        when = check_expiry(created_at) if created_at else self.now
        if tag is None:
            event_id = self._insert_event(user_id, summary, when)
        else:
            event_id = self._sql("INSERT INTO event_logs (user_id, event_summary, created_at, tag) VALUES (?, ?, ?, ?)",
                                 (user_id, summary, when, tag)).lastrowid
        event = EventEntry(event_id, user_id, summary, when, tag)
        self._code_new_event(event.id, user_id, summary)
        self.audit(user_id, "event_add", str(event.id), None, event)
        if trim:
            self.trim_events(user_id)
        return event.id

    def _insert_event(self, user_id: str, summary: str, when: str) -> int:
        return self._sql("INSERT INTO event_logs (user_id, event_summary, created_at) VALUES (?, ?, ?)",
                         (user_id, summary, when)).lastrowid

    def is_recent_event(self, user_id: str, summary: str, window: timedelta) -> bool:
        """Whether one of the user's events of the last `window` has the same text (repeat_key()):
        one indexed look-up of its code (repeat_keys.py), once the user's events are coded."""
        since = self.now_moment - window
        day = since.date().isoformat()
        key = repeat_key(summary)
        self._last_key = (summary, key)
        if self.coded_day(user_id) != day:
            uncoded = self._sql(UNCODED, (user_id, day)).fetchall()
            for event_id, text in uncoded:
                self._sql(INSERT_CODE, (event_id, user_id, text_code(text)))
            self._coded[user_id] = day
        for text, created_at in self._sql(SAME_CODE, (user_id, key_code(key), day)).fetchall():
            if repeat_key(text) == key:  # not merely the same code
                try:
                    if parse_timestamp(created_at) >= since:
                        return True
                except (ValueError, TypeError):
                    continue
        return False

    def coded_day(self, user_id: str) -> str | None:
        """The day since which the user's events all have repeat codes, if known ("" or None: not)."""
        day = self._coded.get(user_id)
        if day is None and self._coded_before is not None:
            return self._coded_before.day_of(user_id)
        return day

    @property
    def coded_users(self) -> dict[str, str]:
        """The users this batch coded (or left uncoded: ""), for CodedUsers.stage()."""
        return self._coded

    def _code_new_event(self, event_id: int, user_id: str, summary: str) -> None:
        """Give an event this batch added its code when the user's others have theirs (a later check
        in the batch does not look for uncoded events again)."""
        if not self.coded_day(user_id):
            return
        key = self._last_key[1] if self._last_key and self._last_key[0] == summary else repeat_key(summary)
        self._sql(INSERT_CODE, (event_id, user_id, key_code(key)))

    def restore_event(self, data: dict) -> None:
        event = EventEntry(**data)
        # Delete, then insert: a REPLACE would delete without the delete trigger, and the
        # summary's event count (kept by triggers) would drift.
        self._sql("DELETE FROM event_logs WHERE id = ?", (event.id,))
        if event.tag is None or not self._store.event_tags:
            self._sql("INSERT INTO event_logs (id, user_id, event_summary, created_at) VALUES (?, ?, ?, ?)",
                      (event.id, event.user_id, event.summary, event.created_at))
        else:
            self._sql("INSERT INTO event_logs (id, user_id, event_summary, created_at, tag) VALUES (?, ?, ?, ?, ?)",
                      (event.id, event.user_id, event.summary, event.created_at, event.tag))
        self._coded[event.user_id] = ""  # uncoded now: the next check codes it
        self.audit(event.user_id, "event_add", str(event.id), None, event)

    def trim_events(self, user_id: str) -> int:
        keep = self._store.max_event_keep
        if not keep:
            return 0
        counted = self._sql("SELECT event_count FROM user_summary WHERE user_id = ?", (user_id,)).fetchone()
        if counted is not None and counted[0] <= keep:
            return 0  # the trigger-kept count is exact, so the common case costs one key lookup
        rows = self._sql(f"{self._event_select} WHERE user_id = ? {NEWEST_EVENTS_FIRST} LIMIT -1 OFFSET ?",
                         (user_id, keep)).fetchall()
        if not rows:
            return 0
        dropped = [event_from_row(r).to_dict() for r in rows]
        self._sql(f"DELETE FROM event_logs WHERE id IN ({','.join('?' * len(rows))})", tuple(r[0] for r in rows))
        self.audit(user_id, "event_trim", None, {"events": dropped}, None)
        return len(rows)

    def update_event(self, user_id: str, event_id: int, summary: Any, tag: Any = KEEP_TAG) -> bool:
        """A new text (its tag kept), or with `tag` a new tag as well (None: no tag)."""
        summary = check_event_text(summary)
        before = self._event(event_id)
        if before is None or before.user_id != user_id:
            return False
        if tag is KEEP_TAG:
            tag = before.tag
            self._sql("UPDATE event_logs SET event_summary = ? WHERE id = ?", (summary, event_id))
        else:
            tag = self._checked_tag(tag)
            self._sql("UPDATE event_logs SET event_summary = ?, tag = ? WHERE id = ?", (summary, tag, event_id))
        self._coded[user_id] = ""  # the trigger dropped its code: the next check codes it again
        after = EventEntry(before.id, user_id, summary, before.created_at, tag)
        self.audit(user_id, "event_update", str(event_id), before, after)
        return True

    def delete_event(self, user_id: str, event_id: int) -> bool:
        before = self._event(event_id)
        if before is None or before.user_id != user_id:
            return False
        self._sql("DELETE FROM event_logs WHERE id = ?", (event_id,))
        self.audit(user_id, "event_delete", str(event_id), before, None)
        return True

    # ---- whole users ---------------------------------------------------------------------

    def clear_user(self, user_id: str) -> tuple[int, int]:
        check_user_id(user_id)
        profiles = [profile_from_row(r).to_dict() for r in
                    self._sql(f"{PROFILE_SELECT} WHERE user_id = ?", (user_id,)).fetchall()]
        events = [event_from_row(r).to_dict() for r in
                  self._sql(f"{self._event_select} WHERE user_id = ?", (user_id,)).fetchall()]
        if not profiles and not events:
            return 0, 0
        self._sql("DELETE FROM user_profiles WHERE user_id = ?", (user_id,))
        self._sql("DELETE FROM event_logs WHERE user_id = ?", (user_id,))
        self.audit(user_id, "user_clear", None, {"profiles": profiles, "events": events}, None)
        return len(profiles), len(events)

    def purge_expired(self, user_id: str | None = None) -> int:
        where = EXPIRED_CONDITION
        params: tuple = (self.now,)
        if user_id is not None:
            where += " AND user_id = ?"
            params += (user_id,)
        rows = [profile_from_row(r) for r in self._sql(f"{PROFILE_SELECT} WHERE {where}", params).fetchall()]
        if not rows:
            return 0
        self._sql(f"DELETE FROM user_profiles WHERE {where}", params)
        by_user: dict[str, list[dict]] = {}
        for entry in rows:
            by_user.setdefault(entry.user_id, []).append(entry.to_dict())
        for uid, entries in by_user.items():
            self.audit(uid, "purge_expired", None, {"profiles": entries}, None)
        return len(rows)


__all__ = ["WriteBatch", "ValidationError", "LimitError"]
