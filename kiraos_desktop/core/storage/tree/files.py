"""Reading the files of a 3.x memory tree: memory TOML files and profile.json, never rewriting them.

A file that cannot be read (not UTF-8, not TOML/JSON, the wrong shape, too large, a link) becomes a
`Problem` with its path and the reason, and hides nothing else. A readable memory is taken as the
plugin takes it (`Memory.from_toml_dict` at v3.0.1): the file name is the id, importance an integer
(or a text of one) clamped to 1-10 else 5, tags a list else none, source a table else none.
TOML is parsed by tomli, the parser the standard library's tomllib was taken from (the same rules and
messages as the plugin's tomllib), compiled: three times as fast, and a 10,000-entity tree holds
some 80,000 files (bench/tree_bench.py).
"""
from __future__ import annotations

import json
import os
import stat
import tomli
from dataclasses import dataclass, field
from typing import Any

#: A memory file or profile larger than this is not read (the plugin writes a few hundred bytes).
MAX_FILE_BYTES = 1024 * 1024
#: Lists and tables inside each other: the plugin's files have three or four levels. A file nested
#: deeper is a problem, never parsed further or rewritten (a 400 KB profile.json of 200,000 nested
#: lists made every listing fail with RecursionError).
MAX_DEPTH = 32
DEFAULT_IMPORTANCE = 5
#: The fields of profile.json (the plugin's EntityProfile) with the JSON types it keeps them as.
PROFILE_FIELDS: dict[str, tuple[type, ...]] = {
    "entity_id": (str,), "entity_type": (str,), "name": (str,), "nickname": (str,), "description": (str,),
    "platform": (str,), "traits": (list,), "preferences": (dict,), "relationships": (dict,), "facts": (list,),
    "aliases": (list,), "interaction_count": (int,), "last_interaction": (int, float), "metadata": (dict,),
}


#: What each kind of Problem says, in English (the command line's words; the window words each kind
#: in its own language from the same values: ui/entities/problem_texts.py).
PROBLEM_TEXTS = {
    "unreadable": "cannot be read: {error}",
    "link": "a link: not followed (nothing outside the tree is read)",
    "not_file": "not a regular file",
    "too_large": "larger than {limit_kib} KiB ({size:,} bytes): not read",
    "not_utf8": "not UTF-8 text (byte {byte})",
    "bad_toml": "not valid TOML: {error}",
    "bad_json": "not valid JSON: {error}",
    "too_deep": "lists or tables nested deeper than {limit} levels: not read",
    "not_object": "not a JSON object",
    "field_type": "{field} should be {expected}, not {found}: left out",
    "not_entity_folder": "not an entity folder ({{type}}_{{id}} with type {types}): left out",
    "archive_name": "an archive name the plugin does not make: left out",
}


@dataclass(frozen=True)
class Problem:
    """A file of the tree that could not be taken: where (relative to the memory root), what kind of
    problem (a key of PROBLEM_TEXTS) and the values its text names."""

    path: str
    kind: str
    values: tuple[tuple[str, Any], ...] = ()

    @property
    def reason(self) -> str:
        return PROBLEM_TEXTS[self.kind].format(**dict(self.values))

    def value(self, name: str) -> Any:
        return dict(self.values)[name]


@dataclass(frozen=True)
class TreeMemory:
    """One memory file: a fact, reflection or skill of an entity or of the bot."""

    id: str
    folder: str  # facts, reflections or skills
    type: str  # as the file says (fact or reflection)
    text: str
    importance: int
    tags: tuple[str, ...]
    source: dict = field(default_factory=dict, compare=False)
    path: str = ""  # relative to the memory root
    meta: dict = field(default_factory=dict, compare=False)  # an archived file's [meta] table

    @property
    def time(self) -> str:
        """source.time as the file holds it (an ISO text), or ""."""
        value = self.source.get("time", "")
        return value.isoformat() if hasattr(value, "isoformat") else str(value)

    @property
    def session(self) -> str:
        return str(self.source.get("session", ""))


class FileRefused(Exception):
    """A file of the tree cannot be taken: a kind of PROBLEM_TEXTS and its values."""

    def __init__(self, kind: str, **values: Any) -> None:
        self.kind, self.values = kind, tuple(values.items())
        super().__init__(PROBLEM_TEXTS[kind].format(**values))

    def problem(self, path: str) -> Problem:
        return Problem(path, self.kind, self.values)


def read_bytes(path: str) -> bytes:
    """A regular file's bytes, not following a link, at most MAX_FILE_BYTES; FileRefused otherwise."""
    try:
        info = os.lstat(path)
    except OSError as exc:
        raise FileRefused("unreadable", error=str(exc.strerror or exc)) from None
    if stat.S_ISLNK(info.st_mode):
        raise FileRefused("link")
    if not stat.S_ISREG(info.st_mode):
        raise FileRefused("not_file")
    if info.st_size > MAX_FILE_BYTES:
        raise FileRefused("too_large", limit_kib=MAX_FILE_BYTES // 1024, size=info.st_size)
    # Not blocking: a FIFO put in the file's place since the lstat() would hold the open for ever.
    flags = os.O_RDONLY | getattr(os, "O_NOFOLLOW", 0) | getattr(os, "O_BINARY", 0) | getattr(os, "O_NONBLOCK", 0)
    try:
        fd = os.open(path, flags)
    except OSError as exc:
        raise FileRefused("unreadable", error=str(exc.strerror or exc)) from None
    with os.fdopen(fd, "rb") as handle:
        opened = os.fstat(fd)  # what was opened, whatever the path names by now
        if not stat.S_ISREG(opened.st_mode):
            raise FileRefused("not_file")
        if opened.st_size > MAX_FILE_BYTES:
            raise FileRefused("too_large", limit_kib=MAX_FILE_BYTES // 1024, size=opened.st_size)
        data = handle.read(MAX_FILE_BYTES + 1)
    if len(data) > MAX_FILE_BYTES:  # grown since
        raise FileRefused("too_large", limit_kib=MAX_FILE_BYTES // 1024, size=len(data))
    return data


def _text(data: bytes) -> str:
    try:
        return data.decode("utf-8")
    except UnicodeDecodeError as exc:
        raise FileRefused("not_utf8", byte=exc.start) from None


def importance_of(value: Any) -> int:
    """A file's importance as the plugin takes it: clamped to 1-10, 5 when it is no number (inf too)."""
    if isinstance(value, bool):
        value = int(value)
    try:
        return max(1, min(10, int(value)))
    except (TypeError, ValueError, OverflowError):
        return DEFAULT_IMPORTANCE


def _check_depth(value: Any) -> Any:
    """`value`, unless lists or tables in it are nested deeper than MAX_DEPTH (FileRefused then)."""
    pending = [(value, 1)]
    while pending:
        item, depth = pending.pop()
        if isinstance(item, (list, dict)):
            if depth > MAX_DEPTH:
                raise FileRefused("too_deep", limit=MAX_DEPTH)
            pending.extend((child, depth + 1) for child in (item.values() if isinstance(item, dict) else item))
    return value


def parse_toml(text: str) -> dict[str, Any]:
    """A TOML file's table; FileRefused when it is not TOML or is nested too deep."""
    try:
        return _check_depth(tomli.loads(text))
    except tomli.TOMLDecodeError as exc:
        raise FileRefused("bad_toml", error=str(exc)) from None
    except RecursionError:
        raise FileRefused("too_deep", limit=MAX_DEPTH) from None


def parse_json(text: str) -> Any:
    """A JSON file's value; FileRefused when it is not JSON or is nested too deep."""
    try:
        return _check_depth(json.loads(text))
    except RecursionError:
        raise FileRefused("too_deep", limit=MAX_DEPTH) from None
    except ValueError as exc:
        raise FileRefused("bad_json", error=str(exc)) from None


def parse_memory(data: bytes, memory_id: str, folder: str, path: str) -> TreeMemory:
    """A memory file's content as the plugin reads it; FileRefused when it is not a TOML table."""
    table = parse_toml(_text(data))
    tags = table.get("tags", [])
    source = table.get("source", {})
    meta = table.get("meta", {})
    text = table.get("text", "")
    return TreeMemory(
        id=memory_id, folder=folder, type=str(table.get("type", "fact")),
        text=text if isinstance(text, str) else str(text), importance=importance_of(table.get("importance", 5)),
        tags=tuple(str(tag) for tag in tags) if isinstance(tags, list) else (),
        source=source if isinstance(source, dict) else {}, path=path, meta=meta if isinstance(meta, dict) else {})


def read_memory(root: str, relative: str, memory_id: str, folder: str) -> TreeMemory:
    """The memory file at `relative` under the memory root; FileRefused when it cannot be taken."""
    return parse_memory(read_bytes(os.path.join(root, relative)), memory_id, folder, relative)


def read_profile(root: str, relative: str) -> tuple[dict[str, Any], list[Problem]]:
    """profile.json's known fields as the file holds them, and its problems (the whole file unreadable,
    or a field of the wrong type: that field is left out, the others kept)."""
    try:
        data = parse_json(_text(read_bytes(os.path.join(root, relative))))
    except FileRefused as exc:
        return {}, [exc.problem(relative)]
    if not isinstance(data, dict):
        return {}, [Problem(relative, "not_object")]
    profile, problems = {}, []
    for name, kinds in PROFILE_FIELDS.items():
        if name not in data:
            continue
        value = data[name]
        if isinstance(value, kinds) and not (isinstance(value, bool) and bool not in kinds):
            profile[name] = value
        else:
            problems.append(Problem(relative, "field_type", (
                ("field", name), ("expected", " or ".join(JSON_NAMES[k] for k in kinds)), ("found", _json_name(value)))))
    return profile, problems


#: How a message names each JSON type a profile field may hold.
JSON_NAMES = {str: "text", list: "a list", dict: "an object", int: "an integer", float: "a number"}


def _json_name(value: Any) -> str:
    if value is None:
        return "null"
    if isinstance(value, bool):
        return "true/false"
    return JSON_NAMES.get(type(value), type(value).__name__)
