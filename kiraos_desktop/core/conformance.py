"""Each store implementation is a MemoryStore (storage/protocol.py), each SQL backend a SqlBackend
(storage/sql_backend.py), and each context source and memory tool set what the engine hands out
(core/context/source.py): the type checker verifies these assignments (tests/test_types.py); nothing
here runs."""
from __future__ import annotations

from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from kiraos_desktop.core.storage.postgres.store import PgBackend, PgMemoryStore
    from kiraos_desktop.core.storage.sql_backend import SqlBackend
    from kiraos_desktop.core.storage.protocol import MemoryBatch, MemoryStore
    from kiraos_desktop.core.storage.postgres.write_batch import PgWriteBatch
    from kiraos_desktop.core.storage.sqlite.store import SqliteBackend, SqliteStore
    from kiraos_desktop.core.context.tree import TreeContext
    from kiraos_desktop.core.tools.tree_tools import TreeMemoryTools
    from kiraos_desktop.core.storage.tree.store import TreeMemoryStore
    from kiraos_desktop.core.context.builder import ContextBuilder
    from kiraos_desktop.core.context.source import ContextSource, MemoryToolSet
    from kiraos_desktop.core.tools.memory_tools import MemoryTools
    from kiraos_desktop.core.storage.sql_write_batch import WriteBatch

    def _sqlite(store: SqliteStore, batch: WriteBatch) -> tuple[MemoryStore, MemoryBatch]:
        return store, batch

    def _postgres(store: PgMemoryStore, batch: PgWriteBatch) -> tuple[MemoryStore, MemoryBatch]:
        return store, batch

    def _backends(sqlite: SqliteBackend, postgres: PgBackend) -> tuple[SqlBackend, SqlBackend]:
        return sqlite, postgres

    def _tree(store: TreeMemoryStore) -> MemoryStore:
        return store

    def _context_sources(database: ContextBuilder, tree: TreeContext) -> tuple[ContextSource, ContextSource]:
        return database, tree

    def _memory_tools(database: MemoryTools, tree: TreeMemoryTools) -> tuple[MemoryToolSet, MemoryToolSet]:
        return database, tree
