"""Editing a KiraOS plugin 3.x tree: add, edit, archive and restore a memory, each a `TreeChange` that
holds every file's and index row's before and after (what the journal keeps, and what revert() undoes).

Facts from the plugin (v3.0.1, toml_tree_store `add_memory`, `update_memory`, `archive_memory`,
`get_memory`): the file name is the memory's canonical id; an update rewrites the file and upserts
the row keeping its timestamp, last_accessed and access_count; archiving writes the memory with a
[meta] table of its runtime state to archive/ under the flat archive name (storage/tree/layout.py),
then removes the file and the row. The plugin never restores; a restore here is the reverse step.

A change is made in three steps: the files it writes (each atomically), then the index rows in one
transaction, then the files it removes. When the rows cannot be written, the files written are put
back as they were: the file and its row go together, or neither; a process killed on the way leaves
a write-ahead intent that the next opening of the tree settles (storage/tree/write_ahead.py). Nothing is written through a link,
and a file that cannot be read is never rewritten.
"""
from __future__ import annotations

import errno
import os
from datetime import datetime, timezone
from typing import Any

from kiraos_desktop.core.memory.records import NotFoundError, StoreError, ValidationError
from kiraos_desktop.core.storage.tree.change import TreeChange
from kiraos_desktop.core.storage.tree.files import FileRefused, parse_toml, read_bytes
from kiraos_desktop.core.storage.tree.memory_rows import (
    INDEXED_FROM_FILE,
    RUNTIME_STATE,
    archived_meta,
    index_row,
    memory_of,
)
from kiraos_desktop.core.storage.tree.index_rows import RowKey, TreeIndex
from kiraos_desktop.core.storage.tree.profile_edits import ProfileEditing
from kiraos_desktop.core.storage.tree.refusals import check_memory_id, file_refusal, refusal
from kiraos_desktop.core.storage.tree.layout import (
    ARCHIVE_DIR,
    MEMORY_SUFFIX,
    EntityRef,
    archive_name,
    scope_dirs,
)
from kiraos_desktop.core.storage.tree.write_ahead import announce
from kiraos_desktop.core.storage.tree.writes import (
    remove_file,
    write_file,
    check_importance,
    check_tags,
    check_text,
    content_hash,
    fallback_id,
    memory_toml,
)

#: Who keeps reflections (the plugin makes reflections/ for users and groups; the bot's self memory has them).
REFLECTING_KINDS = ("user", "group", "self")


class ChangedSince(StoreError):
    """A revert found a file no longer as the change left it (the plugin or someone wrote it since)."""


class TreeEditor(ProfileEditing):
    """Makes changes in the tree under a plugin's `memory/` folder (the one EntityTree reads)."""

    def __init__(self, memory_root: str) -> None:
        self.root = os.path.realpath(memory_root)

    # ---- the edits -------------------------------------------------------------------------

    def add(self, ref: EntityRef, text: str, importance: int = 5, tags: list[str] | tuple[str, ...] = (),
            reflection: bool = False) -> TreeChange:
        """A new fact (or reflection), named as the plugin names one: NotFoundError when the tree has no
        such entity, ValidationError for a bad value (nothing written then)."""
        text, importance, tag_list = check_text(text), check_importance(importance), check_tags(list(tags))
        folder = "reflections" if reflection else "facts"
        base = self._scope(ref, folder, create=True)
        memory_id = self._free_id(f"{base}/{folder}", fallback_id(text), text)
        memory = {"id": memory_id, "type": "reflection" if reflection else "fact", "text": text,
                  "importance": importance, "tags": tag_list, "source": {"time": datetime.now(timezone.utc).isoformat()}}
        relative = f"{base}/{folder}/{memory_id}{MEMORY_SUFFIX}"
        change = TreeChange("add", ref.label(), memory_id, [(relative, self.text_or_none(relative), memory_toml(memory))])
        self._row_change(change, RowKey.of(ref, folder, memory_id), lambda row: index_row(ref, folder, memory, self._abs(relative), row))
        return self.apply(change)

    def edit(self, ref: EntityRef, memory_id: str, text: str | None = None, importance: int | None = None,
             tags: list[str] | None = None, reflection: bool | None = None) -> TreeChange:
        """New text, importance or tags of a memory, or (`reflection`) a move between its facts and
        reflections under the same id; the plugin's runtime state in its row is kept."""
        folder, relative, memory = self._find(ref, memory_id)
        if text is not None:
            memory["text"] = check_text(text)
        if importance is not None:
            memory["importance"] = check_importance(importance)
        if tags is not None:
            memory["tags"] = check_tags(tags)
        target = folder if reflection is None or folder not in ("facts", "reflections") else (
            "reflections" if reflection else "facts")
        if target == folder:
            change = TreeChange("edit", ref.label(), memory_id, [(relative, self._text(relative), memory_toml(memory))])
            self._row_change(change, RowKey.of(ref, folder, memory_id),
                             lambda row: index_row(ref, folder, memory, self._abs(relative), row))
            return self.apply(change)
        base = self._scope(ref, target, create=True)
        moved = f"{base}/{target}/{memory_id}{MEMORY_SUFFIX}"
        if os.path.lexists(self._abs(moved)):
            raise refusal(ValidationError, "move_taken", "id", path=moved)
        memory["type"] = "reflection" if target == "reflections" else "fact"
        change = TreeChange("edit", ref.label(), memory_id,
                            [(moved, None, memory_toml(memory)), (relative, self._text(relative), None)])
        old_key = RowKey.of(ref, folder, memory_id)
        before = self._read_row(old_key)
        change.indexed = TreeIndex.of(self.root) is not None
        if change.indexed:
            change.rows.append((old_key.as_dict(), before, None))
            carried = {**before, "file_path": None} if before else None  # a new place: its own path
            change.rows.append((RowKey.of(ref, target, memory_id).as_dict(), None,
                                index_row(ref, target, memory, self._abs(moved), carried)))
        return self.apply(change)

    def archive(self, ref: EntityRef, memory_id: str) -> TreeChange:
        """Into archive/ with its runtime state, as the plugin archives (a file of that name is replaced)."""
        return self.apply(self.archive_change(ref, memory_id))

    def archive_change(self, ref: EntityRef, memory_id: str) -> TreeChange:
        """archive()'s change, not applied yet (several make one change: tree/clearing.py)."""
        folder, relative, memory = self._find(ref, memory_id)
        key = RowKey.of(ref, folder, memory_id)
        row = self._read_row(key)
        meta = archived_meta(row) if row is not None else {}
        archived = f"{ARCHIVE_DIR}/{archive_name(ref, folder, memory_id)}"
        self.real_folder(ARCHIVE_DIR, create=True)
        change = TreeChange("archive", ref.label(), memory_id, [
            (archived, self.text_or_none(archived), memory_toml(memory, meta)), (relative, self._text(relative), None)])
        change.rows.append((key.as_dict(), row, None))
        change.indexed = TreeIndex.of(self.root) is not None
        return change

    def restore(self, ref: EntityRef, memory_id: str) -> TreeChange:
        """Back from archive/ into its folder, its row made from the archived runtime state."""
        check_memory_id(memory_id)
        base, folders = scope_dirs(ref)
        for folder in folders:
            archived = f"{ARCHIVE_DIR}/{archive_name(ref, folder, memory_id)}"
            if os.path.isfile(self._abs(archived)):
                break
        else:
            raise refusal(NotFoundError, "not_archived", id=memory_id, who=ref.label())
        data = self._parse(archived)
        meta = data.pop("meta", {}) if isinstance(data.get("meta"), dict) else {}
        memory = memory_of(data, memory_id)
        self._scope(ref, folder, create=True)
        relative = f"{base}/{folder}/{memory_id}{MEMORY_SUFFIX}"
        if os.path.lexists(self._abs(relative)):
            raise refusal(ValidationError, "restore_taken", "id", path=relative)
        change = TreeChange("restore", ref.label(), memory_id,
                            [(relative, None, memory_toml(memory)), (archived, self._text(archived), None)])
        self._row_change(change, RowKey.of(ref, folder, memory_id),
                         lambda row: index_row(ref, folder, memory, self._abs(relative), row, meta))
        return self.apply(change)

    def stale(self, ref: EntityRef) -> list[tuple[str, str, dict[str, Any], dict[str, Any] | None]]:
        """The entity's memories whose index row does not say what their file says (edited by hand, or
        never indexed): (folder, relative path, the memory, its row or None). Empty without an index
        (or with a linked one, which is not read)."""
        try:
            index = TreeIndex.of(self.root)
        except StoreError:
            return []
        base, folders = scope_dirs(ref)
        if index is None or (not ref.is_global and not os.path.isdir(self._abs(base))):
            return []
        found = []
        with index.read() as rows:
            for folder in folders:
                path = self._abs(f"{base}/{folder}")
                if not os.path.isdir(path) or os.path.islink(path):
                    continue
                for name in sorted(os.listdir(path)):
                    relative = f"{base}/{folder}/{name}"
                    if not name.endswith(MEMORY_SUFFIX) or os.path.islink(self._abs(relative)):
                        continue
                    try:
                        memory = memory_of(self._parse(relative), name[:-len(MEMORY_SUFFIX)])
                    except (StoreError, NotFoundError):
                        continue  # a broken file is a problem shown elsewhere, never indexed from here
                    row = rows.row(RowKey.of(ref, folder, memory["id"]))
                    wanted = index_row(ref, folder, memory, self._abs(relative), row)
                    if row is None or any(row[k] != wanted[k] for k in INDEXED_FROM_FILE):
                        found.append((folder, relative, memory, row))
        return found

    def reindex(self, ref: EntityRef) -> TreeChange | None:
        """Index the entity's memories as their files say now (a file edited by hand: the plugin itself
        needs a restart for that), keeping the plugin's runtime state; None when nothing was stale."""
        stale = self.stale(ref)
        if not stale:
            return None
        change = TreeChange("reindex", ref.label(), f"{len(stale)}")
        for folder, relative, memory, row in stale:
            key = RowKey.of(ref, folder, memory["id"])
            change.rows.append((key.as_dict(), row, index_row(ref, folder, memory, self._abs(relative), row)))
        return self.apply(change)

    def delete_archived(self, ref: EntityRef, memory_id: str) -> TreeChange:
        """Remove an archived memory's file for good (the window asks first; the history can still revert it)."""
        check_memory_id(memory_id)
        for folder in scope_dirs(ref)[1]:
            archived = f"{ARCHIVE_DIR}/{archive_name(ref, folder, memory_id)}"
            if os.path.isfile(self._abs(archived)) and not os.path.islink(self._abs(archived)):
                change = TreeChange("delete", ref.label(), memory_id, [(archived, self._text(archived), None)])
                change.indexed = TreeIndex.of(self.root) is not None
                return self.apply(change)
        raise refusal(NotFoundError, "not_archived", id=memory_id, who=ref.label())

    # ---- applying and reverting ------------------------------------------------------------

    def apply(self, change: TreeChange) -> TreeChange:
        """Write the change's files, then its rows (one transaction), then remove the files it removes."""
        announce(change)  # the write-ahead intent, when the write is kept (storage/tree/write_ahead.py)
        written: list[tuple[str, str | None]] = []
        try:
            for relative, before, after in change.files:
                if after is not None:
                    self.real_folder(os.path.dirname(relative))  # a clear refusal for a link or a missing folder
                    self._write(relative, after)
                    written.append((relative, before))
            index = TreeIndex.of(self.root)
            if index is not None and change.rows:
                with index.transaction() as rows:
                    for n, (key, before_row, after_row) in enumerate(change.rows):
                        if after_row is None:
                            rows.remove(RowKey(**key))
                            continue
                        now = rows.row(RowKey(**key)) if before_row is not None else None
                        if now is not None and now != before_row:  # the plugin recalled it meanwhile
                            after_row = {**after_row, **{k: now[k] for k in RUNTIME_STATE}}
                            change.rows[n] = (key, now, after_row)
                        rows.put(after_row)
        except BaseException:
            for relative, before in reversed(written):  # the rows were not written: the files go back
                if before is None:
                    remove_file(self.root, relative)
                else:
                    write_file(self.root, relative, before.encode("utf-8"))
            raise
        for relative, _, after in change.files:
            if after is None:
                remove_file(self.root, relative)
        return change

    def _write(self, relative: str, text: str) -> None:
        """Write a file inside the folder as opened without following links (tree/folders.py): a
        folder swapped for a link since real_folder() looked is refused, nothing written outside."""
        try:
            write_file(self.root, relative, text.encode("utf-8"))
        except OSError as exc:
            if exc.errno in (errno.ELOOP, errno.ENOTDIR):
                raise refusal(NotFoundError, "link_written", path=os.path.dirname(relative)) from None
            raise

    def revert(self, change: TreeChange) -> TreeChange:
        """Undo `change` when every file is still as it left it; ChangedSince (nothing written) otherwise."""
        for relative, _, after in change.files:
            if self.text_or_none(relative) != after:
                raise refusal(ChangedSince, "changed_since", path=relative, action=change.action, id=change.memory_id)
        return self.apply(change.inverse())

    # ---- reading and places ----------------------------------------------------------------

    def _abs(self, relative: str) -> str:
        return os.path.join(self.root, *relative.split("/"))

    def real_folder(self, relative: str, create: bool = False) -> str:
        """The folder `relative` under the root, each step a real folder (never a link), missing steps
        made when `create`; NotFoundError when it is not there."""
        path = self.root
        for part in [p for p in relative.split("/") if p]:
            path = os.path.join(path, part)
            if os.path.islink(path):
                raise refusal(NotFoundError, "link_written", path=relative)
            if not os.path.isdir(path):
                if not create or os.path.lexists(path):
                    raise refusal(NotFoundError, "no_folder", path=relative)
                os.mkdir(path)
        return path

    def _scope(self, ref: EntityRef, folder: str, create: bool = False) -> str:
        base, folders = scope_dirs(ref)
        if folder not in folders or (folder == "reflections" and ref.kind not in REFLECTING_KINDS):
            raise refusal(ValidationError, "no_such_folder", "folder", who=ref.label(), folder=folder)
        if not ref.is_global:
            self.real_folder(base)  # an entity the tree holds (the bot's own memory is made when missing)
        self.real_folder(f"{base}/{folder}", create=create)
        return base

    def _find(self, ref: EntityRef, memory_id: str) -> tuple[str, str, dict[str, Any]]:
        """(folder, relative path, the memory as the plugin reads it) of an entity's memory."""
        check_memory_id(memory_id)
        base, folders = scope_dirs(ref)
        if not ref.is_global:
            self.real_folder(base)
        for folder in folders:
            relative = f"{base}/{folder}/{memory_id}{MEMORY_SUFFIX}"
            if os.path.lexists(self._abs(relative)):
                self.real_folder(f"{base}/{folder}")
                return folder, relative, memory_of(self._parse(relative), memory_id)
        raise refusal(NotFoundError, "no_memory", who=ref.label(), id=memory_id)

    def _text(self, relative: str) -> str:
        """A file the edit rewrites or removes, read as the tree's reader reads one (a regular file,
        not a link, at most 1 MiB, UTF-8): a FIFO, a device or a 100 MB file is refused, never
        waited on or rewritten."""
        path = self._abs(relative)
        if os.path.islink(path):
            raise refusal(NotFoundError, "link_read", path=relative)
        try:
            return read_bytes(path).decode("utf-8")
        except FileRefused as exc:
            raise file_refusal(exc, relative) from None
        except UnicodeDecodeError as exc:
            raise refusal(StoreError, "unreadable", path=relative, error=exc) from None

    def text_or_none(self, relative: str) -> str | None:
        return self._text(relative) if os.path.lexists(self._abs(relative)) else None

    def _parse(self, relative: str) -> dict[str, Any]:
        try:
            return parse_toml(self._text(relative))
        except FileRefused as exc:
            raise file_refusal(exc, relative) from None

    def _free_id(self, folder: str, memory_id: str, text: str) -> str:
        """`memory_id`, or it with "_" and the text's hash when another text (or a file that cannot be
        read) has the name: never overwrite what is there."""
        relative = f"{folder}/{memory_id}{MEMORY_SUFFIX}"
        if not os.path.lexists(self._abs(relative)):
            return memory_id
        try:
            same = content_hash(str(self._parse(relative).get("text", ""))) == content_hash(text)
        except (StoreError, NotFoundError):
            same = False
        return memory_id if same else f"{memory_id}_{content_hash(text)[:8]}"

    def _read_row(self, key: RowKey) -> dict[str, Any] | None:
        index = TreeIndex.of(self.root)
        if index is None:
            return None
        with index.read() as rows:
            return rows.row(key)

    def _row_change(self, change: TreeChange, key: RowKey, make) -> None:
        index = TreeIndex.of(self.root)
        change.indexed = index is not None
        if index is not None:
            before = self._read_row(key)
            change.rows.append((key.as_dict(), before, make(before)))
