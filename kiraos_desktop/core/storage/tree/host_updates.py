"""memory_update from a bot host on a KiraOS 3.x tree: `set` and `del` go to the user's profile.json and
`event` becomes a fact, mapped as the plugin's 2-to-3 migration maps its old rows (v3.0.1,
migrations `_apply_legacy_row_to_profile`, `_PROFILE_FIELD_KEYS`):
- a key naming a profile field (name/姓名/真名, nickname/昵称, platform/平台, description/描述/简介)
  sets that field;
- otherwise by category: preference -> preferences[key], social -> relationships[key], basic -> a
  trait "key: value", other -> a profile fact "key: value" (a set replaces the key's earlier one);
- an event -> a fact file (its tag as the fact's tag), named and indexed as the plugin names one.
A 3.x tree keeps no expiries or confidences: a ttl is not kept and the reply says so. Each change is
written as the operator's edits are (storage/tree/editor.py) and kept in the same history, so the
operator can revert a bot host's write. A user the tree does not hold is not created (the plugin
makes it when that user first talks to the bot).
"""
from __future__ import annotations

import sqlite3
from typing import Any, Callable

from kiraos_desktop.core.memory.records import CATEGORIES, MAX_EVENT_CHARS, NotFoundError, StoreError, ValidationError
from kiraos_desktop.core.storage.tree.editor import TreeChange, TreeEditor
from kiraos_desktop.core.storage.tree.files import JSON_NAMES
from kiraos_desktop.core.storage.tree.layout import EntityRef
from kiraos_desktop.core.storage.tree.refusals import refusal

#: Keys that name a profile field, as the plugin's migration reads them.
FIELD_KEYS = {"name": "name", "姓名": "name", "真名": "name", "nickname": "nickname", "昵称": "nickname",
              "platform": "platform", "平台": "platform", "description": "description", "描述": "description",
              "简介": "description"}
_BUCKETS = {"preference": "preferences", "social": "relationships"}
_LISTS = {"basic": "traits", "other": "facts"}
_ALL_LISTS = tuple(_LISTS.values())
_ALL_BUCKETS = tuple(_BUCKETS.values())


def _clean(value: Any) -> str:
    return " ".join(str(value).split())


def apply_set(profile: dict[str, Any], key: str, value: str, category: str) -> None:
    field = FIELD_KEYS.get(key)
    if field is not None:
        profile[field] = value
        return
    target = _BUCKETS.get(category) or _LISTS[category]
    kind = dict if category in _BUCKETS else list
    if not isinstance(profile.get(target), kind):  # a hand edit made it something else: not guessed at
        raise refusal(ValidationError, "field_shape", "value", name=target,
                      expected=JSON_NAMES[kind])
    _remove_key(profile, key)  # a key lives in one place: a new category moves it
    if kind is dict:
        profile[target][key] = value
    else:
        profile[target].append(f"{key}: {value}")


def _remove_key(profile: dict[str, Any], key: str) -> bool:
    found = False
    for bucket in _ALL_BUCKETS:
        if isinstance(profile.get(bucket), dict) and key in profile[bucket]:
            del profile[bucket][key]
            found = True
    for name in _ALL_LISTS:
        items = profile.get(name)
        if isinstance(items, list):
            kept = [item for item in items if not (isinstance(item, str) and item.startswith(f"{key}: "))]
            found = found or len(kept) != len(items)
            profile[name] = kept
    return found


def apply_delete(profile: dict[str, Any], key: str) -> bool:
    field = FIELD_KEYS.get(key)
    if field is not None:
        found = bool(profile.get(field))
        profile[field] = ""
        return found
    return _remove_key(profile, key)


class HostUpdates:
    """Applies memory_update operations to the tree for one bot host call."""

    def __init__(self, editor: TreeEditor, keep: Callable[[Callable[[], TreeChange]], TreeChange]) -> None:
        self._editor = editor
        self._keep = keep  # keep(write): the change write() makes, kept in the history (TreeJournal.keep)

    def apply(self, user_id: str, operations: list, actor: str) -> tuple[list[str], int, int]:
        """(result lines, operations applied, operations refused)."""
        ref = EntityRef("user", user_id)
        results, done, refused = [], 0, 0
        for op in operations:
            try:
                text, change = self._one(ref, op)
            except NotFoundError:
                text, change = "skip: 文件树中没有该用户（插件会在与其首次对话时创建）", None
            except (ValidationError, StoreError) as exc:
                text, change = f"skip: {_clean(exc)}", None
            except OSError as exc:  # the history could not keep it: reverted (TreeJournal.keep)
                text, change = f"skip: 未修改（变更记录无法写入：{_clean(exc)}）", None
            except sqlite3.Error as exc:  # the index locked past its wait, a read-only disk: files put back
                text, change = f"skip: 未修改（memory_index.db 无法写入：{_clean(exc)}）", None
            if change is not None:
                done += 1
            elif text.startswith("skip"):
                refused += 1
            results.append(text)
        return results, done, refused

    def _one(self, ref: EntityRef, op: Any) -> tuple[str, TreeChange | None]:
        if not isinstance(op, dict):
            return "skip: 操作格式无效（应为对象）", None
        kind = op.get("op")
        if kind == "event":
            value, tag = op.get("value"), op.get("tag")
            if not isinstance(value, str) or not value.strip():
                return "skip: event 缺少 value", None
            if len(value) > MAX_EVENT_CHARS:
                return f"skip: event 超过 {MAX_EVENT_CHARS} 字", None
            tags = [tag.strip()] if isinstance(tag, str) and tag.strip() else []
            change = self._keep(lambda: self._editor.add(ref, value.strip(), tags=tags))
            return f"event{' #' + _clean(tags[0]) if tags else ''}: {_clean(value)}", change
        key = op.get("key")
        if kind not in ("set", "del"):
            return f"skip: 未知操作 \"{_clean(kind)}\"（可用: set, event, del）", None
        if not isinstance(key, str) or not key.strip():
            return f"skip: {kind} 缺少 key", None
        key = key.strip()
        if kind == "del":
            if not apply_delete(self._editor.profile(ref), key):  # a fresh copy: nothing to write
                return f"del {_clean(key)}: not found", None
            change = self._keep(lambda: self._editor.update_profile(ref, f"del {key}", lambda p: apply_delete(p, key)))
            return f"del {_clean(key)}: ok", change
        value, category = op.get("value"), op.get("category") or "basic"
        if value is None or not str(value).strip():
            return "skip: set 缺少 key 或 value", None
        if category not in CATEGORIES:
            return f"skip: set {_clean(key)}: 无效的分类 \"{_clean(category)}\"（可用: {', '.join(CATEGORIES)}）", None
        text = str(value).strip()
        change = self._keep(lambda: self._editor.update_profile(ref, f"set {key}",
                                                                 lambda p: apply_set(p, key, text, category)))
        note = "（3.x 记忆无有效期：ttl 未保存）" if op.get("ttl") not in (None, "") else ""
        return f"set {_clean(key)}={_clean(text)} [{category}]{note}", change
