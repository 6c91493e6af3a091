"""`kiraos-desktop info`: which layout a memory has and what is in it, read without changing anything."""
from __future__ import annotations

import argparse
import json

from kiraos_desktop.core.exit_codes import EXIT_OK


def add_info_parser(sub, parents: list[argparse.ArgumentParser]) -> None:
    p = sub.add_parser(
        "info", parents=parents, help="name the memory's layout (KiraOS 1.x, 2.x or 3.x) and count what it holds",
        description="Read the memory of --kira-data D (a KiraOS plugin's data folder), --db FILE or the data "
                    "dir without changing it: its layout (1.x, 2.x or 3.x) and the plugin version it implies, "
                    "the counts of users, profile entries and events (entities and memories for 3.x), file "
                    "sizes and journal mode.")
    p.add_argument("--json", action="store_true", help="print one JSON object (its \"layout\" is 1.x, 2.x or 3.x)")


def run_info(args: argparse.Namespace) -> int:
    """Raises StoreError, OSError or ValueError (the command line's exit 2, one line) for a folder or
    file that holds no memory it can read."""
    from kiraos_desktop.core.transfer.data_info import describe_database, describe_folder, info_lines
    from kiraos_desktop.core.paths import resolve_paths

    if getattr(args, "database_url", None):
        raise ValueError("info reads a SQLite file or a KiraOS plugin's folder, not a PostgreSQL database")
    if getattr(args, "kira_data", None) and not getattr(args, "db", None):
        info = describe_folder(args.kira_data)
    else:
        paths = resolve_paths(data_dir=getattr(args, "data_dir", None), kira_data=getattr(args, "kira_data", None),
                              db=getattr(args, "db", None))
        info = describe_database(paths.db_path)
    if args.json:
        print(json.dumps(info, ensure_ascii=False))
    else:
        print("\n".join(info_lines(info)))
    return EXIT_OK
