"""Each store implementation is a MemoryStore (storage/protocol.py), and each SQL backend a SqlBackend
(storage/sql_backend.py): the type checker verifies these assignments (tests/test_types.py); nothing
here runs."""
from __future__ import annotations

from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from kiraos_desktop.core.storage.postgres.store import PgBackend, PgMemoryStore
    from kiraos_desktop.core.storage.sql_backend import SqlBackend
    from kiraos_desktop.core.storage.protocol import MemoryBatch, MemoryStore
    from kiraos_desktop.core.storage.postgres.write_batch import PgWriteBatch
    from kiraos_desktop.core.storage.sqlite.store import SqliteBackend, SqliteStore
    from kiraos_desktop.core.storage.sqlite.write_batch import WriteBatch

    def _sqlite(store: SqliteStore, batch: WriteBatch) -> tuple[MemoryStore, MemoryBatch]:
        return store, batch

    def _postgres(store: PgMemoryStore, batch: PgWriteBatch) -> tuple[MemoryStore, MemoryBatch]:
        return store, batch

    def _backends(sqlite: SqliteBackend, postgres: PgBackend) -> tuple[SqlBackend, SqlBackend]:
        return sqlite, postgres
