"""Where things are in a KiraOS plugin 3.x memory tree, and how its folder and file names are made.

Facts from the plugin's `memory/memory_paths.py` and `toml_tree_store.py` (tag v3.0.1), restated:
- `entities/{type}_{quote(id, safe="-._~")}/` for the types user, group and channel, each with
  `profile.json`, `facts/<id>.toml` and (users and groups) `reflections/<id>.toml`.
- `global/facts/`, `global/skills/`: the bot's shared memory; `global/self/facts/`,
  `global/self/reflections/`: its memory of itself.
- `archive/`, flat: `{type}__{quoted id}__{folder}__{id}.toml` for an entity's memory,
  `{base dir with "/" as "_"}__{folder}__{id}.toml` for global ones (`global__facts__x.toml`,
  `global_self__reflections__y.toml`).
- `memory_index.db`: the index the running plugin recalls from.
"""
from __future__ import annotations

import urllib.parse
from dataclasses import dataclass

ENTITY_TYPES = ("user", "group", "channel")
#: The bot's own memory, shown beside the entities: (kind, base dir under the memory root, folders).
GLOBAL_SCOPES = (("global", "global", ("facts", "skills")), ("self", "global/self", ("facts", "reflections")))
GLOBAL_KINDS = tuple(kind for kind, _, _ in GLOBAL_SCOPES)
#: The folders of an entity (the plugin's MEMORY_FOLDERS); which of them an entity type has is
#: what exists on disk.
ENTITY_FOLDERS = ("facts", "reflections", "skills")
ENTITIES_DIR, GLOBAL_DIR, ARCHIVE_DIR, INDEX_FILE = "entities", "global", "archive", "memory_index.db"
PROFILE_FILE = "profile.json"
MEMORY_SUFFIX = ".toml"
_SAFE = "-._~"  # what the plugin's quote() leaves as it is
_ARCHIVE_SEP = "__"


@dataclass(frozen=True, order=True)
class EntityRef:
    """An entity (kind user, group or channel, and its id as the plugin keeps it: `qq:12345`), or the
    bot's global or self memory (kind global or self, id empty)."""

    kind: str
    id: str = ""

    @property
    def is_global(self) -> bool:
        return self.kind in GLOBAL_KINDS

    def label(self) -> str:
        """`TYPE:ID` as the command line takes it (`global`, `self` alone)."""
        return self.kind if self.is_global else f"{self.kind}:{self.id}"


def parse_ref(text: str) -> EntityRef:
    """`user:qq:123` (the id is everything after the first colon), `group:...`, `channel:...`, `global`
    or `self`; ValueError naming the accepted forms otherwise."""
    text = text.strip()
    if text in GLOBAL_KINDS:
        return EntityRef(text)
    kind, colon, entity_id = text.partition(":")
    if not colon or kind not in ENTITY_TYPES or not entity_id:
        raise ValueError(f"{text!r} names no entity: write TYPE:ID with TYPE one of {', '.join(ENTITY_TYPES)} "
                         f"(user:qq:12345), or {' or '.join(GLOBAL_KINDS)} for the bot's own memory")
    return EntityRef(kind, entity_id)


def quote_id(entity_id: str) -> str:
    return urllib.parse.quote(entity_id, safe=_SAFE)


def entity_dir_name(ref: EntityRef) -> str:
    return f"{ref.kind}_{quote_id(ref.id)}"


def parse_entity_dir(name: str) -> EntityRef | None:
    """The entity a folder under entities/ holds; None for a name the plugin never makes."""
    kind, underscore, quoted = name.partition("_")
    if not underscore or kind not in ENTITY_TYPES or not quoted:
        return None
    return EntityRef(kind, urllib.parse.unquote(quoted))


def scope_dirs(ref: EntityRef) -> tuple[str, tuple[str, ...]]:
    """(the folder holding the ref's memory folders, relative to the memory root; its folders)."""
    for kind, base, folders in GLOBAL_SCOPES:
        if ref.kind == kind:
            return base, folders
    return f"{ENTITIES_DIR}/{entity_dir_name(ref)}", ENTITY_FOLDERS


def archive_name(ref: EntityRef, folder: str, memory_id: str) -> str:
    if ref.is_global:
        prefix = scope_dirs(ref)[0].replace("/", "_")
    else:
        prefix = f"{ref.kind}{_ARCHIVE_SEP}{quote_id(ref.id)}"
    return f"{prefix}{_ARCHIVE_SEP}{folder}{_ARCHIVE_SEP}{memory_id}{MEMORY_SUFFIX}"


def parse_archive_name(name: str, exists=None) -> tuple[EntityRef, str, str] | None:
    """(whose memory, its folder, its id) of a file in archive/; None for a name the plugin never makes.

    A quoted id keeps "_" as it is, so "__" may occur inside an id and a name can be read more than
    one way: the first reading (the shortest entity id) whose entity `exists(ref)` says is in the tree
    is taken, else the first."""
    readings = archive_readings(name)
    for reading in readings:
        if exists is not None and exists(reading[0]):
            return reading
    return readings[0] if readings else None


def archive_readings(name: str) -> list[tuple[EntityRef, str, str]]:
    """Every way the plugin's archive naming could have made `name`, the shortest entity id first."""
    if not name.endswith(MEMORY_SUFFIX):
        return []
    parts = name[:-len(MEMORY_SUFFIX)].split(_ARCHIVE_SEP)
    for kind, base, folders in GLOBAL_SCOPES:
        if parts[0] == base.replace("/", "_") and len(parts) >= 3 and parts[1] in folders:
            return [(EntityRef(kind), parts[1], _ARCHIVE_SEP.join(parts[2:]))]
    if parts[0] not in ENTITY_TYPES:
        return []
    readings = []
    for at in range(2, len(parts) - 1):
        if parts[at] in ENTITY_FOLDERS:
            quoted = _ARCHIVE_SEP.join(parts[1:at])
            readings.append((EntityRef(parts[0], urllib.parse.unquote(quoted)), parts[at],
                             _ARCHIVE_SEP.join(parts[at + 1:])))
    return readings
