"""The schema, defined once as peewee models for SQLite and PostgreSQL (DDL, migrations, non-hot queries)."""
from __future__ import annotations

import peewee
from peewee import SQL, CompositeKey

#: A text column holding a naive local ISO-8601 time as the plugin writes it. SQLite: the plugin's
#: `DATETIME` type (its affinity keeps the text as given). PostgreSQL: plain text too, compared as
#: timestamps through kd_ts() (see storage/dialect.py), so both programs and both backends agree on expiry.
_PG_NOW_TEXT = "to_char(localtimestamp(0), 'YYYY-MM-DD\"T\"HH24:MI:SS')"


def is_postgres(db: peewee.Database | None) -> bool:
    return isinstance(db, peewee.PostgresqlDatabase)


class DialectField(peewee.Field):
    """A column whose type and default are written per backend.

    The plugin's tables must keep their SQLite DDL column for column (type names, defaults, NULL
    allowed), while PostgreSQL needs other types (double precision, bigserial) and defaults.
    """

    def __init__(self, sqlite_type: str, pg_type: str, *, sqlite_default: str | None = None,
                 pg_default: str | None = None, **kwargs) -> None:
        kwargs.setdefault("null", True)
        super().__init__(**kwargs)
        self.sqlite_type = sqlite_type
        self.pg_type = pg_type
        self.sqlite_default = sqlite_default
        self.pg_default = pg_default

    def _pg(self) -> bool:
        return is_postgres(self.model._meta.database)

    def ddl_datatype(self, ctx):
        return SQL(self.pg_type if self._pg() else self.sqlite_type)

    def ddl(self, ctx):
        node = super().ddl(ctx)
        default = self.pg_default if self._pg() else self.sqlite_default
        if default is not None:
            node.nodes.append(SQL("DEFAULT " + default))
        return node


class IdField(DialectField):
    """An integer primary key numbered by the database: SQLite's `INTEGER PRIMARY KEY [AUTOINCREMENT]`
    (NULL allowed, as the plugin declares it), PostgreSQL's bigserial (a sequence)."""

    auto_increment = True

    def __init__(self, *, autoincrement: bool) -> None:
        super().__init__("INTEGER", "BIGSERIAL", primary_key=True, null=True)
        self.autoincrement = autoincrement

    def ddl(self, ctx):
        node = super().ddl(ctx)
        if self.autoincrement and not self._pg():
            node.nodes.append(SQL("AUTOINCREMENT"))
        return node


def _text(**kwargs) -> peewee.TextField:
    return peewee.TextField(**kwargs)


def _time_text(*, default_now: bool = False) -> DialectField:
    if default_now:
        return DialectField("DATETIME", "TEXT", sqlite_default="CURRENT_TIMESTAMP", pg_default=_PG_NOW_TEXT)
    return DialectField("DATETIME", "TEXT", sqlite_default="NULL", pg_default="NULL")


def _int(**kwargs) -> DialectField:
    return DialectField("INTEGER", "BIGINT", **kwargs)


class _Base(peewee.Model):
    class Meta:
        database = None  # bound per database (bind_ctx) by the schema code and the queries
        legacy_table_names = False


# ---- the KiraOS plugin's tables (column for column its DDL) -------------------------------

class UserProfile(_Base):
    user_id = _text()
    memory_key = _text()
    memory_value = _text()
    updated_at = _time_text(default_now=True)
    confidence = DialectField("REAL", "DOUBLE PRECISION", sqlite_default="0.5", pg_default="0.5")
    category = DialectField("TEXT", "TEXT", sqlite_default="'basic'", pg_default="'basic'")
    expires_at = _time_text()

    class Meta:
        table_name = "user_profiles"
        primary_key = CompositeKey("user_id", "memory_key")


class EventLog(_Base):
    id = IdField(autoincrement=True)
    user_id = _text()
    event_summary = _text()
    created_at = _time_text(default_now=True)

    class Meta:
        table_name = "event_logs"


# ---- ours ---------------------------------------------------------------------------------

class DesktopMeta(_Base):
    key = peewee.TextField(primary_key=True)
    value = _text()

    class Meta:
        table_name = "kiraos_desktop_meta"


class MemoryChange(_Base):
    """The audit log; prev_id chains a user's changes (see schema.py)."""

    id = IdField(autoincrement=True)
    at = _text()
    user_id = _text()
    actor = _text()
    action = _text()
    target = _text(null=True)
    before = _text(null=True)
    after = _text(null=True)
    prev_id = _int()

    class Meta:
        table_name = "memory_changes"


class UserSummaryRow(_Base):
    user_id = peewee.TextField(primary_key=True)
    profile_count = _int(null=False, sqlite_default="0", pg_default="0")
    event_count = _int(null=False, sqlite_default="0", pg_default="0")
    last_activity = _text(null=True)
    last_change_id = _int()

    class Meta:
        table_name = "user_summary"


# ---- the recall index (storage/recall_index.py) ----------------------------------------------------

class RecallUser(_Base):
    num = IdField(autoincrement=False)
    user_id = _text(unique=True)

    class Meta:
        table_name = "recall_users"


class RecallTerm(_Base):
    u = _int(null=False)
    term = _text()
    event_id = _int(null=False)

    class Meta:
        table_name = "recall_terms"
        primary_key = CompositeKey("u", "term", "event_id")
        without_rowid = True


class RecallQueue(_Base):
    seq = IdField(autoincrement=False)
    user_id = _text()
    event_id = _int()
    old_text = _text(null=True)
    new_text = _text(null=True)

    class Meta:
        table_name = "recall_queue"


# ---- the user search index (storage/search_index.py) -------------------------------------------

class UserSearchTerm(_Base):
    """A word a user has: ev = how many of their events hold it, pr = 1 when a profile key or value does."""

    term = _text()
    user_id = _text()
    ev = _int(null=False, sqlite_default="0", pg_default="0")
    pr = _int(null=False, sqlite_default="0", pg_default="0")

    class Meta:
        table_name = "usersearch_terms"
        primary_key = CompositeKey("term", "user_id")
        without_rowid = True


class UserSearchProfileUser(_Base):
    """The words of a user's profile entries, space-separated (what to take back when they change)."""

    user_id = peewee.TextField(primary_key=True)
    terms = _text()

    class Meta:
        table_name = "usersearch_profile_users"


class UserSearchQueue(_Base):
    """A change the index has not taken yet: an event's text leaving and/or arriving (event_id set),
    or "this user's profile entries changed" (event_id NULL)."""

    seq = IdField(autoincrement=False)
    user_id = _text()
    event_id = _int()
    old_text = _text(null=True)
    new_text = _text(null=True)

    class Meta:
        table_name = "usersearch_queue"


# ---- the repeat check's index (storage/repeat_keys.py) -----------------------------------------------

class EventRepeatKey(_Base):
    """An event's repeat key, as a 64-bit code (k) looked up by user (u)."""

    event_id = DialectField("INTEGER", "BIGINT", primary_key=True)
    u = _text()
    k = _int(null=False)

    class Meta:
        table_name = "event_repeat_keys"


PLUGIN_MODELS = (UserProfile, EventLog)
DESKTOP_MODELS = (DesktopMeta, MemoryChange, UserSummaryRow)
RECALL_MODELS = (RecallUser, RecallTerm, RecallQueue)
USER_SEARCH_MODELS = (UserSearchTerm, UserSearchProfileUser, UserSearchQueue)
#: Derived indexes: rebuilt from the memory tables whenever their words or layout change.
INDEX_MODELS = RECALL_MODELS + USER_SEARCH_MODELS
#: The repeat check's codes: made as events are checked, never rebuilt (storage/repeat_keys.py).
REPEAT_MODELS = (EventRepeatKey,)
ALL_MODELS = PLUGIN_MODELS + DESKTOP_MODELS + INDEX_MODELS + REPEAT_MODELS

#: Indexes beyond the keys, the same SQL on both backends.
INDEXES = (
    "CREATE INDEX IF NOT EXISTS idx_event_logs_user ON event_logs (user_id, created_at DESC)",
    "CREATE INDEX IF NOT EXISTS idx_recall_queue_user ON recall_queue (user_id)",
    "CREATE INDEX IF NOT EXISTS idx_event_repeat_keys ON event_repeat_keys (u, k)",
)
