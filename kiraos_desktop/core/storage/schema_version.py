"""What both backends' schema code shares (schema.py for SQLite, pg_schema.py for PostgreSQL): the
schema version, its check, and the columns older plugins and older versions of ours lacked."""
from __future__ import annotations

import peewee
from playhouse.migrate import SchemaMigrator, migrate

from kiraos_desktop.core.storage.models import MemoryChange, UserProfile, UserSummaryRow
from kiraos_desktop.core.memory.records import StoreError

#: 2: the audit log is chained per user (memory_changes.prev_id, user_summary.last_change_id)
#: instead of indexed by user.
SCHEMA_VERSION = 2


# Columns that plugin versions before 1.2 lacked (added with the models' own definitions), and
# columns that our first versions lacked.
_LATER_COLUMNS = (
    (UserProfile, ("confidence", "category", "expires_at")),
    (MemoryChange, ("prev_id",)),
    (UserSummaryRow, ("last_change_id",)),
)


class SchemaTooNewError(StoreError):
    """The database was upgraded by a newer version of this program."""


def stored_version(db: peewee.Database) -> int:
    if not db.table_exists("kiraos_desktop_meta"):
        return 0
    row = db.execute_sql(f"SELECT value FROM kiraos_desktop_meta WHERE key = {db.param}",
                         ("schema_version",)).fetchone()
    return int(row[0]) if row and str(row[0]).isdigit() else 0


def add_missing_columns(db: peewee.Database, migrator: SchemaMigrator) -> list[str]:
    """Add the columns an older plugin or an older version of ours did not have (playhouse.migrate)."""
    added = []
    for model, names in _LATER_COLUMNS:
        present = {c.name for c in db.get_columns(model._meta.table_name)}
        missing = [name for name in names if name not in present]
        if missing:
            migrate(*(migrator.add_column(model._meta.table_name, name, model._meta.fields[name])
                      for name in missing))
            if model is UserProfile:
                added.extend(missing)
    return added


def check_version(stored: int) -> None:
    if stored > SCHEMA_VERSION:
        raise SchemaTooNewError(
            f"This database was upgraded by a newer KiraOS Desktop (schema version {stored}; this "
            f"version knows up to {SCHEMA_VERSION}). Update KiraOS Desktop to open it.")
