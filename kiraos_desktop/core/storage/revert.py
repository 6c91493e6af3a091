"""Reverting audited changes: the basis of "revert this change" and of undo/redo in the window."""
from __future__ import annotations

from typing import TYPE_CHECKING

from kiraos_desktop.core.memory.records import NotFoundError

if TYPE_CHECKING:
    from kiraos_desktop.core.storage.protocol import MemoryStore
    from kiraos_desktop.core.storage.sql_write_batch import WriteBatch

REVERTIBLE = ("profile_set", "profile_delete", "event_add", "event_update", "event_delete",
              "event_trim", "user_clear", "purge_expired")


def _restore_snapshot(batch: "WriteBatch", snapshot: dict) -> None:
    for profile in snapshot.get("profiles", []):
        batch.restore_profile(profile)
    for event in snapshot.get("events", []):
        batch.restore_event(event)


def apply_revert(batch: "WriteBatch", change) -> None:
    """Write, inside `batch`, what undoes `change` (the inverse is audited like any write)."""
    before, after = change.before, change.after
    if change.action == "profile_set":
        if before is None:
            batch.delete_profile(change.user_id, change.target)
        else:
            batch.restore_profile(before)
    elif change.action == "profile_delete":
        batch.restore_profile(before)
    elif change.action == "event_add":
        batch.delete_event(change.user_id, int(after["id"]))
    elif change.action == "event_update":
        if "tag" in before or "tag" in (after or {}):  # the tag was part of the change (2.x data)
            batch.update_event(change.user_id, int(before["id"]), before["summary"], before.get("tag"))
        else:
            batch.update_event(change.user_id, int(before["id"]), before["summary"])
    elif change.action == "event_delete":
        batch.restore_event(before)
    elif change.action in ("event_trim", "user_clear", "purge_expired"):
        _restore_snapshot(batch, before or {})
    else:
        raise ValueError(f"a change of kind {change.action!r} cannot be reverted")


def users_of(change) -> set[str]:
    """The users a revert of `change` writes: its own, and any named by the entries it restores."""
    users = {change.user_id}
    for side in (change.before, change.after):
        if not isinstance(side, dict):
            continue
        found = [side]
        for name in ("profiles", "events"):  # the snapshot of a trim, clear or purge
            if isinstance(side.get(name), list):
                found += [item for item in side[name] if isinstance(item, dict)]
        users.update(item["user_id"] for item in found if isinstance(item.get("user_id"), str))
    return users


def revert_changes(store: "MemoryStore", change_ids: list[int], actor: str, wait: bool = True) -> list[int]:
    """Revert several changes (newest first) in one transaction; returns the ids of the new changes.
    wait=False: WriterBusy (nothing written) when the writer is taken (MemoryStore.batch())."""
    changes = []
    for change_id in change_ids:
        change = store.get_change(change_id)
        if change is None:
            raise NotFoundError(f"change {change_id} does not exist")
        changes.append(change)
    users = set().union(*(users_of(change) for change in changes))
    def revert_all(batch) -> None:
        for change in sorted(changes, key=lambda c: c.id, reverse=True):
            apply_revert(batch, change)

    return store.run_batch(actor, revert_all, users=users, wait=wait)[1]


def revert_change(store: "MemoryStore", change_id: int, actor: str) -> list[int]:
    return revert_changes(store, [change_id], actor)
