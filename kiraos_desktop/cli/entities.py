"""`kiraos-desktop entities` and `entity show`: a KiraOS plugin 3.x tree's entities, read without changing it."""
from __future__ import annotations

import argparse
import json
from typing import Any

from kiraos_desktop.core.exit_codes import EXIT_OK

_KIRA_DATA_NOTE = "needs --kira-data DIR, a KiraOS plugin 3.x data folder (the one holding memory/entities/)"


def add_entity_parsers(sub, parents: list[argparse.ArgumentParser]) -> None:
    from kiraos_desktop.core.storage.tree.tree import KINDS

    p = sub.add_parser("entities", parents=parents, help="list a KiraOS 3.x tree's entities (--kira-data DIR)",
                       description="List the users, groups and channels of a KiraOS plugin 3.x memory tree, and the "
                                   f"bot's global and self memory, with their counts; {_KIRA_DATA_NOTE}.")
    p.add_argument("--type", choices=KINDS, help="only entities of this type")
    p.add_argument("--search", metavar="TEXT", help="only those whose profile or memories have a word beginning with each word of TEXT")
    p.add_argument("--json", action="store_true", help="print a JSON list (see docs/plugin-versions.md)")
    p = sub.add_parser("entity", parents=parents, help="show one entity of a KiraOS 3.x tree (--kira-data DIR)")
    actions = p.add_subparsers(dest="entity_command", metavar="ACTION", required=True)
    show = actions.add_parser("show", parents=parents, help="profile, facts, reflections, archived memories, problems",
                              description="Show everything a KiraOS plugin 3.x tree holds of one entity: TYPE:ID "
                                          "(user:qq:12345, group:..., channel:...), or global / self for the bot's "
                                          f"own memory; {_KIRA_DATA_NOTE}.")
    show.add_argument("ref", metavar="TYPE:ID")
    show.add_argument("--message", metavar="TEXT",
                      help="print instead what the bot adds to its prompt when this user sends TEXT: the profile "
                           "text and the memories it recalls, ranked as the plugin ranks them")
    show.add_argument("--json", action="store_true", help="print one JSON object (see docs/plugin-versions.md)")


def run_entities(args: argparse.Namespace) -> int:
    """Raises StoreError or ValueError (exit 2, one line) for a folder that is no 3.x tree, a bad TYPE:ID
    or an entity the tree does not hold."""
    from kiraos_desktop.core.storage.tree import open_tree
    from kiraos_desktop.core.storage.tree.layout import parse_ref
    from kiraos_desktop.cli.tree_edit import settled_edits

    if not getattr(args, "kira_data", None):
        raise ValueError(f"{args.command} {_KIRA_DATA_NOTE}")
    tree = open_tree(args.kira_data)
    settled_edits(args.kira_data, tree.root)  # what is shown is what stands: no edit left half done
    if args.command == "entities":
        rows = tree.entities(kind=args.type, search=args.search)
        if args.json:
            print(json.dumps([summary_json(row) for row in rows], ensure_ascii=False))
        else:
            for row in rows:
                print(summary_line(row))
            if not rows:
                print("no entity matches" if args.search or args.type else "the tree holds no entity yet")
        return EXIT_OK
    ref = parse_ref(args.ref)
    if args.message is not None:
        tree.entity(ref)  # NotFoundError for an entity the tree does not hold
        injection = tree.injection(ref, args.message)
        if args.json:
            print(json.dumps(injection_json(injection), ensure_ascii=False))
        else:
            print(injection.text or "(the bot adds nothing for this message: the plugin injects users' memory only)")
        return EXIT_OK
    detail = tree.entity(ref)
    if args.json:
        print(json.dumps(detail_json(detail), ensure_ascii=False))
    else:
        print("\n".join(detail_lines(detail)))
    return EXIT_OK


def injection_json(injection) -> dict[str, Any]:
    return {"text": injection.text, "profile_prompt": injection.profile_prompt, "fts_query": injection.fts_query,
            "recalled": [{"id": m.id, "folder": m.folder, "type": m.type, "text": m.text, "tags": list(m.tags),
                          "importance": m.importance, "bm25": m.bm25, "score": m.score} for m in injection.recalled]}


def summary_json(row) -> dict[str, Any]:
    return {"type": row.ref.kind, "id": row.ref.id, "name": row.name, "nickname": row.nickname,
            "counts": row.counts, "archived": row.archived, "problems": row.problems}


def summary_line(row) -> str:
    named = f" ({row.name})" if row.name else ""
    counts = ", ".join(f"{n} {folder}" for folder, n in row.counts.items())
    extra = f", {row.archived} archived" if row.archived else ""
    extra += f", {row.problems} problem(s)" if row.problems else ""
    return f"{row.ref.label()}{named}: {counts}{extra}"


def memory_json(memory) -> dict[str, Any]:
    return {"id": memory.id, "folder": memory.folder, "type": memory.type, "text": memory.text,
            "importance": memory.importance, "tags": list(memory.tags), "time": memory.time,
            "session": memory.session, "path": memory.path}


def detail_json(detail) -> dict[str, Any]:
    return {"type": detail.ref.kind, "id": detail.ref.id, "profile": detail.profile,
            "memories": {folder: [memory_json(m) for m in items] for folder, items in detail.memories.items()},
            "archived": [memory_json(m) for m in detail.archived],
            "problems": [{"path": p.path, "reason": p.reason} for p in detail.problems]}


def detail_lines(detail) -> list[str]:
    lines = [detail.ref.label()]
    for name, value in detail.profile.items():
        if name in ("entity_id", "entity_type") or value in ("", [], {}, 0, 0.0):
            continue
        lines.append(f"  {name}: {json.dumps(value, ensure_ascii=False) if isinstance(value, (list, dict)) else value}")
    for folder, items in detail.memories.items():
        lines.append(f"{folder}: {len(items)}")
        lines.extend(_memory_line(m) for m in items)
    lines.append(f"archived: {len(detail.archived)}")
    lines.extend(_memory_line(m) for m in detail.archived)
    lines.append(f"problems: {len(detail.problems)}")
    lines.extend(f"  {p.path}: {p.reason}" for p in detail.problems)
    return lines


def _memory_line(memory) -> str:
    tags = f" #{' #'.join(memory.tags)}" if memory.tags else ""
    when = f" ({memory.time[:10]})" if memory.time else ""
    return f"  [{memory.importance}] {memory.id}: {memory.text}{tags}{when}"
