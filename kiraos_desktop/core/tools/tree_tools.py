"""The memory tools on a KiraOS plugin 3.x tree, standing for tools/memory_tools.py: memory_query gives
the plugin's injection (context/tree.py), memory_update writes the profile and facts as
storage/tree/host_updates.py maps it (each change in the tree's history, revertable), memory_clear
archives every memory of the user (storage/tree/clearing.py; one change, revertable). Every write
goes through the store's one `edits` (storage/tree/edits.py).
"""
from __future__ import annotations

from kiraos_desktop.core.context.tree import TreeContext
from kiraos_desktop.core.memory.records import NotFoundError, ProfileEntry, ValidationError, check_user_id
from kiraos_desktop.core.storage.tree.clearing import archive_every
from kiraos_desktop.core.storage.tree.edits import TreeEdits
from kiraos_desktop.core.storage.tree.host_updates import HostUpdates
from kiraos_desktop.core.storage.tree.layout import EntityRef
from kiraos_desktop.core.storage.tree.store import TreeMemoryStore
from kiraos_desktop.core.templates import render_hot

#: memory_query's reply for a user the tree knows nothing of (the database's memory_query.j2 says the same).
NO_MEMORY = "该用户暂无记忆数据。"
#: memory_clear's replies on a tree (the database's memory_clear.j2 says what it deleted).
CLEARED = ("已归档该用户的全部 {count} 条记忆（事实与反思），机器人不再回忆它们；画像未改动。"
           "可在 KiraOS Desktop 中恢复或撤销（变更记录第 {change} 条）。")
CLEARED_NONE = "该用户没有可归档的记忆，未做任何修改。"
CLEARED_LEFT = "另有 {left} 个无法读取的记忆文件保持原样。"
SUMMARY_ITEMS = 5  # profile entries memory_update's reply names (as on a database)
_SUMMARY_SKIP = ("interaction_count", "last_interaction", "metadata")


class TreeMemoryTools:
    """The memory tools on a 3.x tree (see the module's docstring)."""

    def __init__(self, store: TreeMemoryStore, context: TreeContext, edits: TreeEdits) -> None:
        self._store = store
        self._context = context
        self._edits = edits  # the store's one editor and history (each change revertable, published)

    def query(self, user_id: str, query: str | None = None) -> str:
        return self._context.injection_text(user_id, query) or NO_MEMORY

    def update_result(self, user_id: str, operations: list, actor: str = "tool") -> tuple[str, bool]:
        """Applied as storage/tree/host_updates.py maps them, each change kept in the tree's history; the
        reply as memory_update's, an error when nothing was applied and something was refused."""
        check_user_id(user_id)
        if not isinstance(operations, list):
            raise ValidationError("operations", "must be a list of operations")
        edits = self._edits
        updates = HostUpdates(edits.editor, lambda write: edits.keep(write, actor)[0])
        results, done, refused = updates.apply(user_id, operations, actor)
        # The changes are written: the reply must not fail now (a profile that cannot be read gives no summary).
        summary = _profile_summary(self._store.get_profiles(user_id))
        reply = render_hot("memory_update.j2", done=done, results=results, summary=summary[:SUMMARY_ITEMS],
                           more=max(0, len(summary) - SUMMARY_ITEMS))
        return reply, not done and bool(refused)

    def update(self, user_id: str, operations: list, actor: str = "tool") -> str:
        return self.update_result(user_id, operations, actor)[0]

    def clear(self, user_id: str, actor: str = "tool") -> str:
        """Every memory of the user into archive/, as one change of the history (one revert brings
        them back)."""
        check_user_id(user_id)
        edits, ref = self._edits, EntityRef("user", user_id)
        left = 0

        def write():
            nonlocal left
            change, left = archive_every(edits.editor, ref)
            return change

        try:
            if not self._has_memories(ref):
                return CLEARED_NONE
        except NotFoundError:  # no such user in the tree: nothing to clear, as on a database
            return NO_MEMORY
        change, entry = edits.keep(write, actor)
        archived = sum(1 for _, _, after in change.files if after is not None)
        return CLEARED.format(count=archived, change=entry.id) + (CLEARED_LEFT.format(left=left) if left else "")

    def _has_memories(self, ref: EntityRef) -> bool:
        detail = self._store.tree.entity(ref)  # NotFoundError for a user the tree does not hold
        return any(detail.memories.values())


def _profile_summary(entries: list[ProfileEntry]) -> list[str]:
    """memory_update's "当前画像" line: the profile's fields as key=value."""
    return [f"{' '.join(e.key.split())}={' '.join(e.value.split())}" for e in entries if e.key not in _SUMMARY_SKIP]
