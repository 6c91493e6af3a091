"""memory_clear on a KiraOS 3.x tree: every memory of an entity into archive/, as one change.

The plugin has no "clear": an entity's memories go into archive/ as the plugin archives one (the
bot stops recalling them), in one change of the history, so that one revert brings them all back.
The profile stays: it is what the bot knows of the person, not what it remembers of talks.
"""
from __future__ import annotations

import os

from kiraos_desktop.core.memory.records import StoreError
from kiraos_desktop.core.storage.tree.editor import TreeChange, TreeEditor
from kiraos_desktop.core.storage.tree.layout import MEMORY_SUFFIX, EntityRef, scope_dirs


def archive_every(editor: TreeEditor, ref: EntityRef) -> tuple[TreeChange, int]:
    """(the change made, how many memory files could not be read and were left where they are).
    NotFoundError when the tree has no such entity; a change without files when it has no memory."""
    base, folders = scope_dirs(ref)
    if not ref.is_global:
        editor.real_folder(base)
    change = TreeChange("clear", ref.label(), "")
    left = 0
    for folder in folders:
        path = os.path.join(editor.root, base, folder)
        if os.path.islink(path) or not os.path.isdir(path):
            continue
        for name in sorted(os.listdir(path)):
            if not name.endswith(MEMORY_SUFFIX):
                continue
            try:
                part = editor.archive_change(ref, name[:-len(MEMORY_SUFFIX)])
            except StoreError:  # a broken file or a link: never rewritten, left for the operator
                left += 1
                continue
            change.files += part.files
            change.rows += part.rows
            change.indexed = part.indexed
    return (editor.apply(change) if change.files else change), left
