"""What `kiraos-desktop info` reports of a memory: its layout, the plugin version it implies, counts,
file sizes and journal mode. Read only: nothing is created, migrated or indexed."""
from __future__ import annotations

from pathlib import Path
from typing import Any

from kiraos_desktop.core.memory.records import StoreError
from kiraos_desktop.core.paths import SQLITE_SIDE_FILES
from kiraos_desktop.core.storage.tree.injection import index_writer
from kiraos_desktop.core.storage.tree.layout import ENTITY_TYPES, INDEX_FILE
from kiraos_desktop.core.storage.tree.tree import EntityTree
from kiraos_desktop.core.storage.plugin_layout import (
    DATABASE,
    LAYOUT_3X,
    PluginLayout,
    connection_layout,
    folder_layout,
    read_only,
    tree_layout,
)



def describe_folder(root: str | Path) -> dict[str, Any]:
    """A plugin's data folder; NotPluginData when it holds none of the layouts."""
    root = Path(root).expanduser().resolve()
    tree = tree_layout(root)
    if tree is not None:
        return _tree_info(root, tree)
    if not (root / DATABASE).is_file():
        folder_layout(root)  # raises NotPluginData, naming what was looked for
    return _database_info(root / DATABASE, folder=root)


def describe_database(path: str | Path) -> dict[str, Any]:
    """A SQLite memory file (ours, or a plugin's 1.x/2.x database)."""
    path = Path(path).expanduser().resolve()
    if not path.is_file():
        raise StoreError(f"{path} does not exist: there is no memory to describe yet")
    return _database_info(path)


def _header(layout: PluginLayout, folder: Path | None) -> dict[str, Any]:
    return {"layout": layout.name, "plugin_version": layout.plugin_versions, "detected_by": layout.reason,
            "folder": str(folder) if folder else None}


def _database_info(path: Path, folder: Path | None = None) -> dict[str, Any]:
    """The layout and counts of a 1.x/2.x database, read through one read-only connection."""
    with read_only(path) as conn:
        tables = {name for (name,) in conn.execute("SELECT name FROM sqlite_master WHERE type = 'table'")}
        if not {"user_profiles", "event_logs"} <= tables:
            raise StoreError(f"{path} is a SQLite file without the memory tables user_profiles and event_logs")
        layout = connection_layout(conn)
        users = conn.execute("SELECT count(*) FROM (SELECT user_id FROM user_profiles UNION "
                             "SELECT user_id FROM event_logs)").fetchone()[0]
        profiles = conn.execute("SELECT count(*) FROM user_profiles").fetchone()[0]
        events = conn.execute("SELECT count(*) FROM event_logs").fetchone()[0]
        journal = conn.execute("PRAGMA journal_mode").fetchone()[0]
    files = [path] + [path.with_name(path.name + side) for side in SQLITE_SIDE_FILES]
    info = _header(layout, folder)
    info.update({
        "database": str(path),
        "counts": {"users": users, "profile_entries": profiles, "events": events},
        "files": {f.name: f.stat().st_size for f in files if f.is_file()},
        "journal_mode": journal,
    })
    return info


def _tree_info(root: Path, layout: PluginLayout) -> dict[str, Any]:
    """The counts of a 3.x tree, as its reader (storage/tree) takes the files."""
    memory = root / "memory"
    entities = {kind: 0 for kind in ENTITY_TYPES}
    folders = {"facts": 0, "reflections": 0, "skills": 0}
    tree = EntityTree(memory)
    archived, problems = 0, len(tree.refs()[1])  # the entities/ folder's own, then each entity's
    for row in tree.entities(read=True):
        if row.ref.kind in entities:
            entities[row.ref.kind] += 1
        for folder, count in row.counts.items():
            folders[folder] += count
        archived += row.archived
        problems += row.problems
    index = memory / INDEX_FILE
    info = _header(layout, root)
    info.update({
        "written_by": _index_writer(index),
        "database": None,
        "counts": {"entities": entities, **folders, "archived": archived, "problems": problems},
        "files": {p.name: p.stat().st_size for p in [index] + sorted(memory.glob("kiraos.db.bak_*")) if p.is_file()},
        "journal_mode": None,
    })
    return info


def _index_writer(index: Path) -> str | None:
    """Which plugin's index the tree has (KiraOS 3.x or the hippocampus plugin), None without one."""
    if not index.is_file():
        return None
    with read_only(index) as conn:
        return index_writer(conn)


def info_lines(info: dict[str, Any]) -> list[str]:
    """The report as text lines (the --json form is the dict itself)."""
    lines = [f"layout: KiraOS {info['layout']} (plugin {info['plugin_version']}; {info['detected_by']})"]
    if info["folder"]:
        lines.append(f"folder: {info['folder']}")
    if info["database"]:
        lines.append(f"database: {info['database']} (journal mode {info['journal_mode']})")
    counts = info["counts"]
    if info.get("layout") == LAYOUT_3X:
        lines.append(f"written by: {info.get('written_by') or 'unknown (no memory_index.db to tell)'}")
    if "entities" in counts:
        kinds = ", ".join(f"{n} {kind}" for kind, n in counts["entities"].items())
        lines.append(f"entities: {kinds}")
        lines.append(f"memories: {counts['facts']} facts, {counts['reflections']} reflections, "
                     f"{counts['skills']} skills, {counts['archived']} archived")
        if counts["problems"]:
            lines.append(f"problems: {counts['problems']} file(s) that cannot be read (see `entity show`)")
    else:
        lines.append(f"users: {counts['users']}, profile entries: {counts['profile_entries']}, "
                     f"events: {counts['events']}")
    for name, size in info["files"].items():
        lines.append(f"file: {name} {size:,} bytes")
    if info["layout"] == LAYOUT_3X:
        lines.append("open it in the window with `kiraos-desktop --kira-data FOLDER`; on the command line: "
                     "`entities`, `entity show TYPE:ID`, `memory ...`, `profile set`")
    return lines
