"""`kiraos-desktop memory add|edit|archive|restore|history|revert`: a KiraOS plugin 3.x tree's memories,
written as the plugin writes them (each file and its index row together: a running plugin recalls the
edit on its next reply), every change kept in a history in our data dir and revertable."""
from __future__ import annotations

import argparse
import json
import sqlite3
import sys

from kiraos_desktop.core.exit_codes import EXIT_OK
from kiraos_desktop.core.memory.records import StoreError

_KIRA_DATA_NOTE = "needs --kira-data DIR, a KiraOS plugin 3.x data folder (the one holding memory/entities/)"
ACTOR = "cli"


def add_memory_parsers(sub, parents: list[argparse.ArgumentParser]) -> None:
    p = sub.add_parser("memory", parents=parents, help="edit a KiraOS 3.x tree's memories (--kira-data DIR)")
    actions = p.add_subparsers(dest="memory_command", metavar="ACTION", required=True)

    def action(name: str, help_text: str, memory: bool = True) -> argparse.ArgumentParser:
        parser = actions.add_parser(name, parents=parents, help=help_text,
                                    description=f"{help_text[0].upper()}{help_text[1:]}; {_KIRA_DATA_NOTE}.")
        if memory:
            parser.add_argument("ref", metavar="TYPE:ID", help="user:qq:12345, group:..., channel:..., global or self")
        parser.add_argument("--json", action="store_true", help="print one JSON object (see docs/plugin-versions.md)")
        return parser

    add = action("add", "add a fact (or with --reflection a reflection), named and indexed as the plugin does it")
    add.add_argument("text", metavar="TEXT")
    add.add_argument("--reflection", action="store_true", help="a reflection instead of a fact")
    edit = action("edit", "change a memory's text, importance or tags (the plugin's access counters are kept)")
    edit.add_argument("memory_id", metavar="MEMORY_ID")
    edit.add_argument("text", metavar="TEXT", nargs="?")
    kind = edit.add_mutually_exclusive_group()
    kind.add_argument("--reflection", dest="reflection", action="store_const", const=True,
                      help="move it to the entity's reflections")
    kind.add_argument("--fact", dest="reflection", action="store_const", const=False, help="move it to its facts")
    for parser in (add, edit):
        parser.add_argument("--importance", type=int, metavar="N", help="1 to 10 (a new memory: 5)")
        parser.add_argument("--tag", action="append", metavar="T", help="a tag (repeat for more; edit: replaces them)")
    action("archive", "move a memory into archive/ as the plugin archives it").add_argument("memory_id", metavar="MEMORY_ID")
    action("restore", "bring an archived memory back (the plugin cannot)").add_argument("memory_id", metavar="MEMORY_ID")
    action("history", "list the changes made here to the tree, newest first", memory=False)
    action("revert", "undo one change of the history (refused when its files changed since)",
           memory=False).add_argument("change", metavar="N", type=int)
    p = sub.add_parser("profile", parents=parents, help="edit a KiraOS 3.x entity's profile (--kira-data DIR)")
    profile = p.add_subparsers(dest="profile_command", metavar="ACTION", required=True)
    put = profile.add_parser("set", parents=parents, help="set one field of an entity's profile.json",
                             description="Set one field of a KiraOS plugin 3.x entity's profile.json, written as the "
                                         "plugin writes it (lists and objects as JSON: '[\"耐心\"]', "
                                         "'{\"饮料\": \"奶茶\"}'); kept in `memory history`; " + _KIRA_DATA_NOTE + ".")
    put.add_argument("ref", metavar="TYPE:ID")
    put.add_argument("field", metavar="FIELD")
    put.add_argument("value", metavar="VALUE")
    put.add_argument("--json", action="store_true", help="print one JSON object (see docs/plugin-versions.md)")


def settled_edits(kira_data: str, memory_root: str):
    """The tree's editor and history (storage/tree/edits.py), every edit a stopped process left half
    done settled first (each said on stderr)."""
    from kiraos_desktop.core.paths import resolve_paths
    from kiraos_desktop.core.storage.tree.edits import TreeEdits
    from kiraos_desktop.core.storage.tree.journal import journal_path

    edits = TreeEdits(memory_root, journal_path(resolve_paths(kira_data=kira_data).data_dir, memory_root))
    for line in edits.recover():
        print(f"kiraos-desktop: {line}", file=sys.stderr)
    return edits


def run_memory(args: argparse.Namespace) -> int:
    """Raises StoreError (ValidationError, NotFoundError, ChangedSince) or ValueError, nothing written:
    exit 2, one line."""
    from kiraos_desktop.core.storage.tree import open_tree
    from kiraos_desktop.core.storage.tree.layout import parse_ref

    if not getattr(args, "kira_data", None):
        raise ValueError(f"{args.command} {_KIRA_DATA_NOTE}")
    tree = open_tree(args.kira_data)
    edits = settled_edits(args.kira_data, tree.root)
    editor, journal = edits.editor, edits.journal
    command = args.memory_command if args.command == "memory" else "profile"
    if command == "history":
        entries = journal.entries()[::-1]
        if args.json:
            print(json.dumps([{"change": e.id, "at": e.at, "actor": e.actor, "action": e.change.action,
                               "ref": e.change.ref, "id": e.change.memory_id, "reverts": e.reverts}
                              for e in entries], ensure_ascii=False))
        for entry in [] if args.json else entries:
            reverted = f" (reverts {entry.reverts})" if entry.reverts else ""
            print(f"{entry.id:>4}  {entry.at}  {entry.actor:4}  {entry.change.action:8} "
                  f"{entry.change.ref} {entry.change.memory_id}{reverted}")
        if not entries and not args.json:
            print("no change has been made to this tree here")
        return EXIT_OK
    reverts = None
    if command == "revert":
        reverted = journal.get(args.change)
        write, reverts = (lambda: editor.revert(reverted.change)), reverted.id
    else:
        ref = parse_ref(args.ref)
        if command == "add":
            def write():
                return editor.add(ref, args.text, importance=5 if args.importance is None else args.importance,
                                  tags=args.tag or [], reflection=args.reflection)
        elif command == "edit":
            if args.text is None and args.importance is None and args.tag is None and args.reflection is None:
                raise ValueError("memory edit: give a new TEXT, --importance, --tag, --reflection or --fact "
                                 "(nothing to change)")

            def write():
                return editor.edit(ref, args.memory_id, text=args.text, importance=args.importance, tags=args.tag,
                                   reflection=args.reflection)
        elif command == "profile":
            value = _profile_value(args.field, args.value)

            def write():
                return editor.set_profile(ref, args.field, value)
        elif command == "archive":
            def write():
                return editor.archive(ref, args.memory_id)
        else:
            def write():
                return editor.restore(ref, args.memory_id)
    try:
        change, entry = edits.keep(write, ACTOR, reverts)
    except sqlite3.Error as exc:  # the index locked past its wait, a read-only or full disk
        raise StoreError(f"{command}: memory_index.db could not be written ({exc}): nothing was changed; "
                         "try again when the plugin is not rebuilding it") from None
    except OSError as exc:
        raise StoreError(f"{command}: the tree could not be written ({exc.strerror or exc}): "
                         "nothing was changed") from None
    path = next((relative for relative, _, after in change.files if after is not None), change.files[0][0])
    if args.json:
        print(json.dumps({"change": entry.id, "action": command, "ref": change.ref, "id": change.memory_id,
                          "path": path, "indexed": change.indexed}, ensure_ascii=False))
    else:
        note = "" if change.indexed else " (the tree has no index yet: the plugin builds it at its start)"
        print(f"{command} {change.ref} {change.memory_id}: {path} (change {entry.id}){note}")
    return EXIT_OK


def _profile_value(field: str, text: str):
    """VALUE as the field takes it: a text field the text itself, any other field JSON."""
    from kiraos_desktop.core.storage.tree.files import PROFILE_FIELDS

    if PROFILE_FIELDS.get(field, (str,)) == (str,):  # an unknown field is refused by the editor, by name
        return text
    try:
        return json.loads(text)
    except ValueError:
        raise ValueError(f"profile set: {field} takes JSON (a list like '[\"a\"]', an object, a number): "
                         f"{text!r} is not valid JSON") from None
