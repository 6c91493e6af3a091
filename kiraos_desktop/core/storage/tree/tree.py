"""A KiraOS plugin 3.x memory tree, read: its entities, their profiles and memories, the archive, problems.

The files are the truth (the plugin rebuilds its index from them at every start), so everything here
is read from them, never written. Each file is read once and kept while its size and modification
time stay the same, so listing or searching again after another process changed a few files reads
only those. Nothing outside the tree is followed: links to folders or files are reported as problems.
"""
from __future__ import annotations

import os
import stat
import threading
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Callable, Iterator

from kiraos_desktop.core.memory.records import NotFoundError
from kiraos_desktop.core.recall.text import normalise, terms
from kiraos_desktop.core.search.rule import has_every_word, search_words
from kiraos_desktop.core.storage.tree.files import FileRefused, Problem, TreeMemory, read_bytes, parse_memory, read_profile
from kiraos_desktop.core.storage.tree.refusals import refusal
from kiraos_desktop.core.storage.tree.injection import TOP_K, Injection, injection_text, profile_prompt, recall
from kiraos_desktop.core.storage.tree.layout import (
    ARCHIVE_DIR,
    ENTITIES_DIR,
    INDEX_FILE,
    ENTITY_TYPES,
    GLOBAL_SCOPES,
    MEMORY_SUFFIX,
    PROFILE_FILE,
    EntityRef,
    entity_dir_name,
    parse_archive_name,
    parse_entity_dir,
    scope_dirs,
)

#: The kinds a list can be filtered on, in the order the tree shows them.
KINDS = ENTITY_TYPES + tuple(kind for kind, _, _ in GLOBAL_SCOPES)


@dataclass(frozen=True)
class EntitySummary:
    """One row of the entity list. Listed without a search, nothing but profile.json is read: the
    counts are the folders' .toml files, and `problems` those of profile.json and of archive names
    (a memory file that cannot be read is found by entity() and problems())."""

    ref: EntityRef
    name: str
    nickname: str
    counts: dict[str, int]  # memories per folder (facts, reflections, skills)
    archived: int
    problems: int

    @property
    def memories(self) -> int:
        return sum(self.counts.values())


@dataclass(frozen=True)
class EntityDetail:
    """Everything the tree holds of one entity (or of the bot's global or self memory)."""

    ref: EntityRef
    profile: dict[str, Any]
    memories: dict[str, list[TreeMemory]]  # by folder, each sorted by id
    archived: list[TreeMemory]
    problems: list[Problem] = field(default_factory=list)


class EntityTree:
    """The tree under a plugin's `memory/` folder (the one holding entities/, global/, archive/)."""

    def __init__(self, memory_root: str | Path) -> None:
        self.root = str(Path(memory_root))
        self._lock = threading.Lock()
        self._files: dict[str, tuple[tuple, Any]] = {}  # relative path -> (stat key, what was read)
        # entity -> (its memories as read, its profile, the folded text a search looks in and its words):
        # a memory read again is a new object, so they are made again only for an entity something changed in
        self._haystacks: dict[EntityRef, tuple[tuple, dict, str, frozenset[str]]] = {}

    # ---- listing ------------------------------------------------------------------------

    def refs(self) -> tuple[list[EntityRef], list[Problem]]:
        """Every entity of entities/ (sorted by kind, then id) followed by the global and self memory,
        and the problems of the entities/ folder itself (names the plugin never makes, links)."""
        refs, problems = [], []
        for entry in _entries(os.path.join(self.root, ENTITIES_DIR)):
            relative = f"{ENTITIES_DIR}/{entry.name}"
            ref = parse_entity_dir(entry.name)
            if entry.is_symlink():
                problems.append(Problem(relative, "link"))
            elif ref is None or not entry.is_dir(follow_symlinks=False):
                if entry.is_dir(follow_symlinks=False):
                    problems.append(Problem(relative, "not_entity_folder", (("types", ", ".join(ENTITY_TYPES)),)))
            else:
                refs.append(ref)
        refs.sort(key=lambda r: (ENTITY_TYPES.index(r.kind), r.id))
        return refs + [EntityRef(kind) for kind, _, _ in GLOBAL_SCOPES], problems

    def entities(self, kind: str | None = None, search: str | None = None, read: bool = False,
                 progress: Callable[[int, int], None] | None = None) -> list[EntitySummary]:
        """The entity list, of one kind or all, and only those whose profile fields or memories `search`
        finds (core/search/rule.py, the user list's rule: each of its words begins a word). With a search
        or `read`, every memory file is read: the counts are then of the memories that could be
        taken, and every problem is counted. `progress(done, total)` after each entity (it may raise
        to stop: a task's cancel)."""
        if kind is not None and kind not in KINDS:
            raise ValueError(f"unknown entity type {kind!r}: one of {', '.join(KINDS)}")
        refs, _ = self.refs()
        archive = self._archive_index()
        words = search_words(search) if search else ()
        as_is = normalise(search.strip()) if search and not words else ""  # one character, or no word
        found = []
        for done, ref in enumerate(refs, 1):
            if progress is not None:
                progress(done, len(refs))
            if kind is not None and ref.kind != kind:
                continue
            if not search and not read:  # counted from the folders' names: no memory file is read
                found.append(self._listed(ref, archive.get(ref, [])))
                continue
            detail = self.entity(ref, archive)
            if not search or self._found(detail, words, as_is):
                found.append(_summary(detail))
        return found

    def _listed(self, ref: EntityRef, archived: list) -> EntitySummary:
        base, folders = scope_dirs(ref)
        profile, problems = self.profile(ref)
        counts = {folder: sum(1 for _ in _memory_names(os.path.join(self.root, base, folder))) for folder in folders}
        stray = sum(1 for item in archived if isinstance(item, Problem))
        return EntitySummary(ref, str(profile.get("name", "")), str(profile.get("nickname", "")), counts,
                             len(archived) - stray, len(problems) + stray)

    def change_stamp(self, ref: EntityRef | None = None) -> tuple:
        """A few stats that change when the plugin writes (it writes every file by a rename, and
        indexes each memory it writes): entities/, archive/, the global folders, memory_index.db and
        its -wal, and `ref`'s own folders. A dozen stat calls, whatever the tree's size: cheap to poll.
        (A file edited in place by hand changes none of them: Reload reads it.)"""
        paths = [ENTITIES_DIR, ARCHIVE_DIR, INDEX_FILE, INDEX_FILE + "-wal"]
        for _, base, folders in GLOBAL_SCOPES:
            paths.extend(f"{base}/{folder}" for folder in folders)
        if ref is not None and not ref.is_global:
            base, folders = scope_dirs(ref)
            paths.append(base)
            paths.extend(f"{base}/{folder}" for folder in folders)
        return tuple(_stat_key(os.path.join(self.root, path)) for path in paths)

    # ---- one entity ---------------------------------------------------------------------

    def entity(self, ref: EntityRef, archive: dict | None = None) -> EntityDetail:
        """The entity's profile, memories, archived memories and problems; NotFoundError when the
        tree has no such entity (the global and self memory always exist, maybe empty)."""
        base, folders = scope_dirs(ref)
        folder_path = os.path.join(self.root, base)
        if not ref.is_global and not _is_real_dir(folder_path):
            raise refusal(NotFoundError, "no_entity", who=ref.label(), path=base)
        profile, problems = self.profile(ref)
        memories: dict[str, list[TreeMemory]] = {}
        for folder in folders:
            memories[folder] = []
            for name in sorted(_memory_names(os.path.join(folder_path, folder))):
                relative = f"{base}/{folder}/{name}"
                item = self._memory(relative, name[:-len(MEMORY_SUFFIX)], folder)
                (problems if isinstance(item, Problem) else memories[folder]).append(item)
        archived = []
        for item in (archive if archive is not None else self._archive_index()).get(ref, []):
            if not isinstance(item, Problem):
                relative, folder, memory_id = item
                item = self._memory(relative, memory_id, folder)
            (problems if isinstance(item, Problem) else archived).append(item)
        return EntityDetail(ref, profile, memories, archived, problems)

    def profile(self, ref: EntityRef) -> tuple[dict[str, Any], list[Problem]]:
        """The entity's profile.json as read (empty when it has none) and its problems."""
        if ref.is_global:
            return {}, []
        relative = f"{scope_dirs(ref)[0]}/{PROFILE_FILE}"
        path = os.path.join(self.root, relative)
        key = _stat_key(path)
        if key is None:
            return {}, []
        cached = self._cached(relative, key)
        if cached is None:
            cached = self._keep(relative, key, read_profile(self.root, relative))
        profile, problems = cached
        return dict(profile), list(problems)

    def _memory(self, relative: str, memory_id: str, folder: str) -> TreeMemory | Problem:
        path = os.path.join(self.root, relative)
        key = _stat_key(path)
        cached = self._cached(relative, key) if key is not None else None
        if cached is None:
            try:
                cached = parse_memory(read_bytes(path), memory_id, folder, relative)
            except FileRefused as exc:
                cached = exc.problem(relative)
            if key is not None:
                self._keep(relative, key, cached)
        return cached

    def _archive_index(self) -> dict[EntityRef, list[tuple[str, str, str] | Problem]]:
        """archive/'s files by the entity they came from, as (path, folder, id), unread; a name the
        plugin never makes is a Problem of the global memory (so that it is seen)."""
        by_ref: dict[EntityRef, list] = {}
        entities = os.path.join(self.root, ENTITIES_DIR)

        def exists(ref: EntityRef) -> bool:
            return ref.is_global or _is_real_dir(os.path.join(entities, entity_dir_name(ref)))

        for name in sorted(_memory_names(os.path.join(self.root, ARCHIVE_DIR))):
            relative = f"{ARCHIVE_DIR}/{name}"
            parsed = parse_archive_name(name, exists)
            if parsed is None:
                by_ref.setdefault(EntityRef("global"), []).append(
                    Problem(relative, "archive_name"))
                continue
            ref, folder, memory_id = parsed
            by_ref.setdefault(ref, []).append((relative, folder, memory_id))
        return by_ref

    def problems(self) -> list[Problem]:
        """Every problem of the tree: folders, profiles, memory files, archived files."""
        refs, problems = self.refs()
        archive = self._archive_index()
        for ref in refs:
            problems.extend(self.entity(ref, archive).problems)
        return problems

    def _found(self, detail: EntityDetail, words: tuple[str, ...], as_is: str) -> bool:
        text, text_words = self._haystack(detail)
        return has_every_word(words, text_words) if words else as_is in text

    def _haystack(self, detail: EntityDetail) -> tuple[str, frozenset[str]]:
        items = tuple(memory for folder in detail.memories.values() for memory in folder)
        with self._lock:
            known = self._haystacks.get(detail.ref)
        if known is not None and known[1] == detail.profile and len(known[0]) == len(items) \
                and all(old is new for old, new in zip(known[0], items)):
            return known[2], known[3]
        text = _haystack(detail)
        text_words = frozenset(word for line in text.split("\n") for word in terms(line))
        with self._lock:
            self._haystacks[detail.ref] = (items, detail.profile, text, text_words)
        return text, text_words

    def injection(self, ref: EntityRef, message: str, k: int = TOP_K, now: float | None = None) -> Injection:
        """What the bot adds to its prompt for a message from this user (the plugin injects users' only:
        for any other kind this is empty); NotFoundError when the tree has no such user."""
        if ref.kind != "user":
            return Injection("", "")
        prompt = profile_prompt(self.entity(ref).profile)
        query, recalled = recall(os.path.join(self.root, INDEX_FILE), ref, message, self._readable, k, now)
        return Injection(injection_text(ref, prompt, recalled), prompt, recalled, query)

    def _readable(self, relative: str, memory_id: str, folder: str) -> TreeMemory:
        item = self._memory(relative, memory_id, folder)
        if isinstance(item, Problem):
            raise FileRefused(item.kind, **dict(item.values))
        return item

    # ---- the file cache -----------------------------------------------------------------

    def _cached(self, relative: str, key: tuple) -> Any:
        with self._lock:
            entry = self._files.get(relative)
        return entry[1] if entry is not None and entry[0] == key else None

    def _keep(self, relative: str, key: tuple, value: Any) -> Any:
        with self._lock:
            self._files[relative] = (key, value)
        return value


def _summary(detail: EntityDetail) -> EntitySummary:
    profile = detail.profile
    return EntitySummary(detail.ref, str(profile.get("name", "")), str(profile.get("nickname", "")),
                         {folder: len(items) for folder, items in detail.memories.items()}, len(detail.archived),
                         len(detail.problems))


def _entries(folder: str) -> Iterator[os.DirEntry]:
    try:
        with os.scandir(folder) as listing:
            yield from list(listing)
    except (FileNotFoundError, NotADirectoryError):
        return


def _is_real_dir(path: str) -> bool:
    try:
        return stat.S_ISDIR(os.lstat(path).st_mode)
    except OSError:
        return False


def _memory_names(folder: str) -> Iterator[str]:
    """The .toml names in a real folder (a link to a folder is not listed: its files are outside the
    tree); a link among the files is listed, and reading it reports it."""
    if not _is_real_dir(folder):
        return
    for entry in _entries(folder):
        if entry.name.endswith(MEMORY_SUFFIX) and (entry.is_symlink() or entry.is_file(follow_symlinks=False)):
            yield entry.name


def _stat_key(path: str) -> tuple | None:
    try:
        info = os.lstat(path)
    except OSError:
        return None
    return info.st_mtime_ns, info.st_size, info.st_ino, info.st_mode


def _haystack(detail: EntityDetail) -> str:
    """Everything a search looks in, folded as recall folds text, one piece a line."""
    pieces: list[str] = [detail.ref.id]
    for value in detail.profile.values():
        pieces.extend(_strings(value))
    for items in detail.memories.values():
        for memory in items:
            pieces.append(memory.text)
            pieces.extend(memory.tags)
    return normalise("\n".join(pieces))


def _strings(value: Any) -> Iterator[str]:
    if isinstance(value, dict):
        for key, item in value.items():
            yield str(key)
            yield from _strings(item)
    elif isinstance(value, list):
        for item in value:
            yield from _strings(item)
    elif value is not None:
        yield str(value)
