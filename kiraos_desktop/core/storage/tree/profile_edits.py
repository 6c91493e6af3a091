"""Editing an entity's profile.json in a KiraOS plugin 3.x tree (a part of storage/tree/editor.TreeEditor):
the file written whole as the plugin's EntityProfile writes it, every field in its order, UTF-8,
indent 2; fields it does not know are not kept."""
from __future__ import annotations

import copy
import json
from typing import Any, Callable

from kiraos_desktop.core.memory.records import StoreError, ValidationError
from kiraos_desktop.core.storage.tree.change import TreeChange
from kiraos_desktop.core.storage.tree.files import JSON_NAMES, PROFILE_FIELDS, FileRefused, parse_json
from kiraos_desktop.core.storage.tree.index_rows import TreeIndex
from kiraos_desktop.core.storage.tree.layout import PROFILE_FILE, EntityRef, scope_dirs
from kiraos_desktop.core.storage.tree.refusals import file_refusal, refusal

#: profile.json as the plugin's EntityProfile writes it: every field, in this order, with these defaults.
PROFILE_DEFAULTS: dict[str, Any] = {
    "entity_id": "", "entity_type": "user", "name": "", "nickname": "", "description": "", "platform": "",
    "traits": [], "preferences": {}, "relationships": {}, "facts": [], "aliases": [], "interaction_count": 0,
    "last_interaction": 0.0, "metadata": {},
}


class ProfileEditing:
    """The profile edits of TreeEditor, which gives `root`, `real_folder()`, `text_or_none()` and `apply()`."""

    root: str

    def real_folder(self, relative: str, create: bool = False) -> str:
        raise NotImplementedError

    def text_or_none(self, relative: str) -> str | None:
        raise NotImplementedError

    def apply(self, change: TreeChange) -> TreeChange:
        raise NotImplementedError

    def set_profile(self, ref: EntityRef, name: str, value: Any) -> TreeChange:
        """One field of the entity's profile.json, the file written whole as the plugin writes it (every
        field of its EntityProfile in order, UTF-8, indent 2; fields it does not know are not kept)."""
        if ref.is_global:
            raise refusal(ValidationError, "no_profile", "entity", who=ref.label())
        kinds = PROFILE_FIELDS.get(name)
        if kinds is None or name in ("entity_id", "entity_type"):
            raise refusal(ValidationError, "no_profile_field", "field", name=name, fields=", ".join(
                f for f in PROFILE_FIELDS if f not in ("entity_id", "entity_type")))
        if not isinstance(value, kinds) or (isinstance(value, bool) and bool not in kinds):
            raise refusal(ValidationError, "field_type", name, expected=" or ".join(JSON_NAMES[k] for k in kinds))
        return self.update_profile(ref, name, lambda profile: profile.__setitem__(name, value))

    def update_profile(self, ref: EntityRef, label: str, change_profile: Callable[[dict[str, Any]], Any]) -> TreeChange:
        """profile.json changed by `change_profile(profile)` (every field there, with the plugin's defaults)
        and written whole; `label` names the change in the history."""
        relative, before, profile = self._stored_profile(ref)
        change_profile(profile)
        change = TreeChange("profile", ref.label(), label, [(relative, before, json.dumps(profile, ensure_ascii=False, indent=2))])
        change.indexed = TreeIndex.of(self.root) is not None
        return self.apply(change)

    def profile(self, ref: EntityRef) -> dict[str, Any]:
        """profile.json as update_profile() starts from: every field, the plugin's defaults where it has
        none (NotFoundError: no such entity; StoreError: a file that is no JSON object, left as it is)."""
        return self._stored_profile(ref)[2]

    def _stored_profile(self, ref: EntityRef) -> tuple[str, str | None, dict[str, Any]]:
        """(profile.json's path, its text or None, the profile with every field)."""
        base = scope_dirs(ref)[0]
        self.real_folder(base)
        relative = f"{base}/{PROFILE_FILE}"
        before = self.text_or_none(relative)
        try:
            stored = parse_json(before) if before is not None else {}
        except FileRefused as exc:
            raise file_refusal(exc, relative) from None
        if not isinstance(stored, dict):
            raise refusal(StoreError, "not_object", path=relative)
        profile = {field: copy.deepcopy(stored.get(field, default)) for field, default in PROFILE_DEFAULTS.items()}
        profile.update(entity_id=ref.id, entity_type=ref.kind)
        return relative, before, profile
