"""KiraOS plugin 3.x memory trees (DESIGN §15): their layout, reading their files, the tree itself."""
from __future__ import annotations

from pathlib import Path

from kiraos_desktop.core.memory.records import StoreError
from kiraos_desktop.core.storage.plugin_layout import LAYOUT_3X, folder_layout
from kiraos_desktop.core.storage.tree.tree import EntityTree


def open_tree(folder: str | Path) -> EntityTree:
    """The memory tree of a plugin's data folder (the one holding memory/); NotPluginData for a folder
    that is no plugin's, StoreError naming the layout for 1.x and 2.x data (a database, not a tree)."""
    root = Path(folder).expanduser().resolve()
    layout = folder_layout(root)
    if layout.name != LAYOUT_3X:
        raise StoreError(f"{root} holds KiraOS {layout.name} data (one database, {layout.reason}), not a 3.x tree "
                         "of entities: open it in the window or use `context`, `export` and `info`")
    return EntityTree(root / "memory")
