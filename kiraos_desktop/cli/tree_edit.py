"""`kiraos-desktop memory add`: a new fact or reflection in a KiraOS plugin 3.x tree, written as the plugin
writes it (the file and its index row together: a running plugin recalls it on its next reply)."""
from __future__ import annotations

import argparse
import json

from kiraos_desktop.core.exit_codes import EXIT_OK

_KIRA_DATA_NOTE = "needs --kira-data DIR, a KiraOS plugin 3.x data folder (the one holding memory/entities/)"


def add_memory_parsers(sub, parents: list[argparse.ArgumentParser]) -> None:
    p = sub.add_parser("memory", parents=parents, help="write a KiraOS 3.x tree's memories (--kira-data DIR)")
    actions = p.add_subparsers(dest="memory_command", metavar="ACTION", required=True)
    add = actions.add_parser("add", parents=parents, help="add a fact (or a reflection) to an entity",
                             description="Add a fact, or with --reflection a reflection, to one entity of a KiraOS "
                                         "plugin 3.x tree (TYPE:ID, or global / self for the bot's own memory), "
                                         "named and indexed as the plugin does it; " + _KIRA_DATA_NOTE + ".")
    add.add_argument("ref", metavar="TYPE:ID")
    add.add_argument("text", metavar="TEXT")
    add.add_argument("--importance", type=int, default=5, metavar="N", help="1 to 10 (default 5)")
    add.add_argument("--tag", action="append", default=[], metavar="T", help="a tag (repeat for more)")
    add.add_argument("--reflection", action="store_true", help="a reflection instead of a fact")
    add.add_argument("--json", action="store_true", help="print one JSON object (see the README)")


def run_memory(args: argparse.Namespace) -> int:
    """Raises StoreError (ValidationError, NotFoundError) or ValueError, nothing written: exit 2, one line."""
    from kiraos_desktop.core.storage.tree import open_tree
    from kiraos_desktop.core.storage.tree.layout import parse_ref
    from kiraos_desktop.core.storage.tree.writes import TreeWriter

    if not getattr(args, "kira_data", None):
        raise ValueError(f"memory {args.memory_command} {_KIRA_DATA_NOTE}")
    tree = open_tree(args.kira_data)
    written = TreeWriter(tree.root).add(parse_ref(args.ref), args.text, importance=args.importance,
                                        tags=args.tag, reflection=args.reflection)
    if args.json:
        print(json.dumps({"ref": written.ref.label(), "folder": written.folder, "id": written.id,
                          "path": written.path, "indexed": written.indexed}, ensure_ascii=False))
    else:
        note = "" if written.indexed else " (the tree has no index yet: the plugin builds it at its start)"
        print(f"added {written.ref.label()} {written.folder}/{written.id}{note}")
    return EXIT_OK
