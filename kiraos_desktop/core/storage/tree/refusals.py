"""Why a 3.x tree refuses an edit or a read: a kind with values, worded in English here (the command line,
the API, the log); the window words each kind in its language (ui/entities/refusal_texts.py)."""
from __future__ import annotations

from typing import Any

from kiraos_desktop.core.memory.records import StoreError, ValidationError
from kiraos_desktop.core.storage.tree.files import FileRefused

#: Each kind's English text; its values by name (`path`: a file or folder relative to the memory root,
#: `who`: an entity's TYPE:ID, `id`: a memory id).
REFUSAL_TEXTS = {
    "unreadable": "{path} cannot be read ({error}): it is left as it is",
    "bad_toml": "{path} is not valid TOML ({error}): it is left as it is",
    "bad_json": "{path} is not valid JSON ({error}): it is left as it is",
    "not_object": "{path} is not a JSON object: it is left as it is",
    "link_written": "{path} is a link: nothing outside the tree is written",
    "link_read": "{path} is a link: nothing outside the tree is read or written",
    "no_folder": "the tree has no {path}/",
    "no_entity": "the tree has no {who} (looked for {path}/)",
    "changed_since": "{path} was changed since ({action} of {id}): not reverted, nothing was written",
    "move_taken": "{path} exists already: the memory cannot move there",
    "restore_taken": "{path} exists already: restoring would replace it",
    "not_archived": "archive/ holds no memory {id!r} of {who}",
    "no_memory": "{who} has no memory {id!r}",
    "bad_memory_id": "{id!r} is no memory id",
    "no_such_folder": "{who} keeps no {folder}",
    "no_profile": "{who} has no profile",
    "no_profile_field": "{name!r} is no profile field: one of {fields}",
    "field_type": "must be {expected}",
    "field_shape": "profile.json's {name} is not {expected} (edited by hand?): it is left as it is",
    "importance": "must be a whole number from 1 to 10",
    "empty_text": "must not be empty",
    "long_text": "is longer than {limit} characters",
    "bad_tags": "must be a list of non-empty texts",
}


def refusal(cls: type[StoreError], kind: str, field: str | None = None, /, **values: Any) -> StoreError:
    """A `cls` error (a ValidationError of `field`, or another StoreError) whose message is the kind's
    English text; `kind` and `values` stay on it for a window that words it in its own language."""
    text = REFUSAL_TEXTS[kind].format(**values)
    exc = cls(field, text) if issubclass(cls, ValidationError) else cls(text)
    exc.kind = kind  # type: ignore[attr-defined]
    exc.values = values  # type: ignore[attr-defined]
    return exc


def check_memory_id(memory_id: str) -> str:
    """The one check of a memory id an edit is given (command line, API, window): the name of one
    file in one folder, so that no path it makes leaves that folder; ValidationError otherwise."""
    if (not isinstance(memory_id, str) or not memory_id or memory_id in (".", "..") or memory_id.startswith(".")
            or any(ch in memory_id for ch in "/\\\x00")):
        raise refusal(ValidationError, "bad_memory_id", "memory", id=memory_id)
    return memory_id


def file_refusal(exc: FileRefused, relative: str) -> StoreError:
    """A file the reader refuses (not TOML or JSON, nested too deep), as an edit's refusal."""
    if exc.kind in ("bad_toml", "bad_json"):
        return refusal(StoreError, exc.kind, path=relative, error=dict(exc.values)["error"])
    return refusal(StoreError, "unreadable", path=relative, error=exc)
