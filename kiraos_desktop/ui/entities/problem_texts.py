"""A 3.x tree's problems in the window's language: each kind of core/storage/tree/files.Problem worded
here from the values the core gives (the core's English texts are the command line's)."""
from __future__ import annotations

from PySide6.QtCore import QCoreApplication

from kiraos_desktop.core.storage.tree.files import JSON_NAMES, Problem

def _texts() -> dict[str, str]:
    # Written out so that the translation tools find every text (read at each call: the language may change).
    return {
        "unreadable": QCoreApplication.translate("TreeProblems", "cannot be read: {error}"),
        "link": QCoreApplication.translate("TreeProblems", "a link: not followed (nothing outside the tree is read)"),
        "not_file": QCoreApplication.translate("TreeProblems", "not a regular file"),
        "too_large": QCoreApplication.translate("TreeProblems", "larger than {limit_kib} KiB ({size:,} bytes): not read"),
        "not_utf8": QCoreApplication.translate("TreeProblems", "not UTF-8 text (byte {byte})"),
        "bad_toml": QCoreApplication.translate("TreeProblems", "not valid TOML: {error}"),
        "bad_json": QCoreApplication.translate("TreeProblems", "not valid JSON: {error}"),
        "too_deep": QCoreApplication.translate("TreeProblems", "lists or tables nested deeper than {limit} levels: not read"),
        "not_object": QCoreApplication.translate("TreeProblems", "not a JSON object"),
        "field_type": QCoreApplication.translate("TreeProblems", "{field} should be {expected}, not {found}: left out"),
        "not_entity_folder": QCoreApplication.translate("TreeProblems", "not an entity folder ({{type}}_{{id}} with type {types}): left out"),
        "archive_name": QCoreApplication.translate("TreeProblems", "an archive name the plugin does not make: left out"),
    }


def _json_names() -> dict[str, str]:
    return {
        JSON_NAMES[str]: QCoreApplication.translate("TreeProblems", "text"), JSON_NAMES[list]: QCoreApplication.translate("TreeProblems", "a list"), JSON_NAMES[dict]: QCoreApplication.translate("TreeProblems", "an object"),
        JSON_NAMES[int]: QCoreApplication.translate("TreeProblems", "an integer"), JSON_NAMES[float]: QCoreApplication.translate("TreeProblems", "a number"), "null": QCoreApplication.translate("TreeProblems", "null"),
        "true/false": QCoreApplication.translate("TreeProblems", "true/false"),
    }


def json_kinds(expected: object) -> str:
    """The core's "text or a list" (files.JSON_NAMES joined by " or ") in the window's language."""
    names = _json_names()
    return QCoreApplication.translate("TreeProblems", " or ").join(
        names.get(name, name) for name in str(expected).split(" or "))


def problem_text(problem: Problem) -> str:
    """Why the file could not be taken, in the window's language (the core's text for a kind unknown here)."""
    values = dict(problem.values)
    if problem.kind == "field_type":
        values["expected"] = json_kinds(values["expected"])
        values["found"] = _json_names().get(str(values["found"]), values["found"])
    return worded(_texts().get(problem.kind), values, problem.reason)


def worded(text: str | None, values: dict, fallback: str) -> str:
    """A translated text filled with the values the core gave; `fallback` (the core's English) when
    there is no text for the kind, or a translation names a value wrongly."""
    if text is None:
        return fallback
    try:
        return text.format(**values)
    except (KeyError, IndexError, ValueError):
        return fallback
