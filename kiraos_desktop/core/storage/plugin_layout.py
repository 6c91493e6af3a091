"""Which KiraOS plugin version's data a folder or a database holds (DESIGN §15), decided here only.

- 1.x: `memory/kiraos.db`, expiries as ISO text.
- 2.x (plugin 2.0): the same file with `event_logs.tag`, `user_profiles.expires_at` declared INTEGER
  or holding integers (epoch seconds).
- 3.x (plugin 3.0, 3.0.1): a tree of files under `memory/`: `memory/entities/`,
  `memory/memory_index.db` or the marker `memory/.migrated_v3` its migration leaves, whatever
  `kiraos.db.bak_<epoch>` file sits beside them.
A folder with none of these is not a plugin's data folder; NotPluginData says what was looked for.
"""
from __future__ import annotations

import os
import sqlite3
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path
from typing import Iterator

from kiraos_desktop.core.memory.records import StoreError

LAYOUT_1X, LAYOUT_2X, LAYOUT_3X = "1.x", "2.x", "3.x"
#: The plugin versions each layout is written by (the repository's tags).
PLUGIN_VERSIONS = {LAYOUT_1X: "1.0-1.3", LAYOUT_2X: "2.0", LAYOUT_3X: "3.0-3.0.1"}
#: What makes a folder 3.x, relative to the plugin's data folder.
MARKERS_3X = ("memory/entities/", "memory/memory_index.db", "memory/.migrated_v3")
DATABASE = "memory/kiraos.db"
#: What a folder that is none of the layouts is told was looked for.
LOOKED_FOR = f"{DATABASE} (KiraOS 1.x or 2.x), or " + ", ".join(MARKERS_3X) + " (KiraOS 3.x)"


class NotPluginData(StoreError):
    """The folder holds none of the plugin's layouts."""


@dataclass(frozen=True)
class PluginLayout:
    name: str  # LAYOUT_1X, LAYOUT_2X or LAYOUT_3X
    reason: str  # what decided it, for `info` and the logs
    tag_column: bool = False  # event_logs has the column tag (a 2.x told by its expiries may not)

    @property
    def plugin_versions(self) -> str:
        return PLUGIN_VERSIONS[self.name]

    @property
    def epoch_expiries(self) -> bool:
        """Whether expiries are stored as integer epoch seconds (2.x) rather than ISO text."""
        return self.name == LAYOUT_2X

    @property
    def confidence_conflicts(self) -> bool:
        """Whether a bot host's set over a clearly more confident entry is refused (plugin 2.x's rule)."""
        return self.name == LAYOUT_2X

    @property
    def event_tags(self) -> bool:
        """Whether events are read and written with a tag (the column is there)."""
        return self.tag_column


def tree_layout(root: str | Path) -> PluginLayout | None:
    """3.x when one of its markers is in the plugin's data folder, else None."""
    for marker in MARKERS_3X:
        if (Path(root) / marker).exists():
            return PluginLayout(LAYOUT_3X, f"{marker} is there")
    return None


def folder_layout(root: str | Path) -> PluginLayout:
    """The layout of a plugin's data folder (the one that holds memory/ and skills/); NotPluginData
    when it is none of them."""
    root = Path(root)
    layout = tree_layout(root)
    if layout is not None:
        return layout
    database = root / DATABASE
    if database.is_file():
        return database_layout(database)
    raise NotPluginData(f"{root} is not the data folder of a KiraOS plugin install: it has no {LOOKED_FOR}"
                        + ("" if (root / "memory").is_dir() else " (not even a memory/ folder)"))


def read_only_uri(path: str | Path) -> str:
    """The URI that reads a plugin's SQLite file without changing its folder.

    A read-only connection to a WAL database whose writer is gone (no -wal file) creates the -wal
    and -shm files, and cannot remove them: the folder's modification time changes, files appear in
    the plugin's folder, and a watcher of that folder (the 3.x window's) took our own read for the
    plugin's write. Such a file is read as immutable: no writer has it open, so the main file holds
    every commit (a writer that opens it meanwhile is not seen by this one read). Otherwise (a -wal
    is there, or a rollback journal, where a read creates nothing) it is read as usual, with locks."""
    path = Path(path).resolve()
    uri = f"{path.as_uri()}?mode=ro"
    if not os.path.exists(f"{path}-wal") and _wal_mode(path):
        uri += "&immutable=1"
    return uri


def _wal_mode(path: Path) -> bool:
    """Whether the file's header says WAL (its read and write versions, bytes 18 and 19, are 2)."""
    try:
        with open(path, "rb") as file:
            header = file.read(20)
    except OSError:
        return False
    return len(header) == 20 and header[18] == 2 and header[19] == 2


@contextmanager
def read_only(path: str | Path) -> Iterator[sqlite3.Connection]:
    """A read-only connection to a SQLite file; what SQLite refuses is a StoreError naming the file."""
    try:
        conn = sqlite3.connect(read_only_uri(path), uri=True, timeout=5)
    except sqlite3.Error as exc:
        raise StoreError(f"cannot read {path}: {exc}") from None
    try:
        yield conn
    except sqlite3.DatabaseError as exc:
        raise StoreError(f"cannot read {path}: {exc}") from None
    finally:
        conn.close()


def database_layout(path: str | Path) -> PluginLayout:
    """1.x or 2.x, read from the file's tables (opened read-only; an empty or new file is 1.x)."""
    with read_only(path) as conn:
        return connection_layout(conn)


def connection_layout(conn) -> PluginLayout:
    """1.x or 2.x, read from an open SQLite connection's tables."""
    event_columns = {row[1] for row in conn.execute("PRAGMA table_info(event_logs)")}
    if "tag" in event_columns:
        return PluginLayout(LAYOUT_2X, "event_logs has the column tag", tag_column=True)
    profile_columns = {row[1]: (row[2] or "").upper() for row in conn.execute("PRAGMA table_info(user_profiles)")}
    if profile_columns.get("expires_at") == "INTEGER":
        return PluginLayout(LAYOUT_2X, "user_profiles.expires_at is declared INTEGER")
    if "expires_at" in profile_columns and conn.execute(
            "SELECT 1 FROM user_profiles WHERE typeof(expires_at) IN ('integer', 'real') LIMIT 1").fetchone():
        return PluginLayout(LAYOUT_2X, "user_profiles.expires_at holds numbers")
    return PluginLayout(LAYOUT_1X, "no column tag, expires_at as text")


def check_kira_folder(root: str | Path) -> PluginLayout | None:
    """Before a plugin's data folder is opened: its layout (None when it holds none yet: an empty
    1.x database is started there). Every layout opens: a 3.x tree read only (storage/tree/store.py)."""
    try:
        layout = folder_layout(Path(root).expanduser())
    except NotPluginData:
        return None
    return layout
