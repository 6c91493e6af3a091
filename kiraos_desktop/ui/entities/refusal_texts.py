"""Why the 3.x tree refused an edit or a read, in the window's language: each kind of
core/storage/tree/refusals.py worded here from the values the core gives (its English texts are the
command line's and the API's)."""
from __future__ import annotations

from PySide6.QtCore import QCoreApplication

from kiraos_desktop.ui.entities.problem_texts import json_kinds, worded


def _texts() -> dict[str, str]:
    # Written out so that the translation tools find every text (read at each call: the language may change).
    return {
        "unreadable": QCoreApplication.translate("TreeRefusals", "{path} cannot be read ({error}): it is left as it is."),
        "bad_toml": QCoreApplication.translate("TreeRefusals", "{path} is not valid TOML ({error}): it is left as it is. Mend the file, then try again."),
        "bad_json": QCoreApplication.translate("TreeRefusals", "{path} is not valid JSON ({error}): it is left as it is. Mend the file, then try again."),
        "not_object": QCoreApplication.translate("TreeRefusals", "{path} is not a JSON object: it is left as it is. Mend the file, then try again."),
        "link_written": QCoreApplication.translate("TreeRefusals", "{path} is a link: nothing outside the tree is written."),
        "link_read": QCoreApplication.translate("TreeRefusals", "{path} is a link: nothing outside the tree is read or written."),
        "no_folder": QCoreApplication.translate("TreeRefusals", "The tree has no {path}/ (removed since it was shown?)."),
        "no_entity": QCoreApplication.translate("TreeRefusals", "The tree has no {who} any more (looked for {path}/)."),
        "changed_since": QCoreApplication.translate("TreeRefusals", "{path} was changed since ({action} of {id}), by the plugin or by hand: not reverted, nothing was written."),
        "move_taken": QCoreApplication.translate("TreeRefusals", "{path} exists already: the memory cannot move there."),
        "restore_taken": QCoreApplication.translate("TreeRefusals", "{path} exists already: restoring would replace it."),
        "not_archived": QCoreApplication.translate("TreeRefusals", "The archive holds no memory “{id}” of {who} (removed since it was shown?)."),
        "no_memory": QCoreApplication.translate("TreeRefusals", "{who} has no memory “{id}” (removed since it was shown?)."),
        "bad_memory_id": QCoreApplication.translate("TreeRefusals", "“{id}” is no memory id."),
        "no_such_folder": QCoreApplication.translate("TreeRefusals", "{who} keeps no {folder}."),
        "no_profile": QCoreApplication.translate("TreeRefusals", "{who} has no profile."),
        "no_profile_field": QCoreApplication.translate("TreeRefusals", "“{name}” is no profile field; the fields are: {fields}."),
        "field_type": QCoreApplication.translate("TreeRefusals", "{field} must be {expected}."),
        "field_shape": QCoreApplication.translate("TreeRefusals", "profile.json's {name} is not {expected} (edited by hand?): it is left as it is. Mend the file, then try again."),
        "importance": QCoreApplication.translate("TreeRefusals", "The importance must be a whole number from 1 to 10."),
        "empty_text": QCoreApplication.translate("TreeRefusals", "The text must not be empty."),
        "long_text": QCoreApplication.translate("TreeRefusals", "The text is longer than {limit} characters."),
        "bad_tags": QCoreApplication.translate("TreeRefusals", "The tags must be non-empty texts."),
    }


def _actions() -> dict[str, str]:
    """The changes a history keeps (editor.TreeChange.action), as a refusal names them."""
    return {
        "add": QCoreApplication.translate("TreeRefusals", "add"),
        "edit": QCoreApplication.translate("TreeRefusals", "edit"),
        "archive": QCoreApplication.translate("TreeRefusals", "archive"),
        "restore": QCoreApplication.translate("TreeRefusals", "restore"),
        "revert": QCoreApplication.translate("TreeRefusals", "revert"),
        "reindex": QCoreApplication.translate("TreeRefusals", "re-index"),
        "delete": QCoreApplication.translate("TreeRefusals", "delete"),
        "profile": QCoreApplication.translate("TreeRefusals", "profile edit"),
    }


def refusal_text(exc: BaseException) -> str:
    """Why the tree refused, in the window's language; the error's own text for anything else (a
    system error's, or a kind unknown here)."""
    kind = getattr(exc, "kind", None)
    values = dict(getattr(exc, "values", {}))
    values.setdefault("field", getattr(exc, "field", ""))
    if kind in ("field_type", "field_shape"):
        values["expected"] = json_kinds(values.get("expected", ""))
    if "action" in values:
        values["action"] = _actions().get(str(values["action"]), values["action"])
    return worded(_texts().get(kind) if isinstance(kind, str) else None, values, str(exc))
