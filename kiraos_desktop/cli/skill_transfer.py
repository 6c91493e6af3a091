"""`skills import | export`: Agent Skills (SKILL.md) in and out from the command line."""
from __future__ import annotations

import sys
from pathlib import Path

from kiraos_desktop.core.exit_codes import EXIT_OK, EXIT_USAGE
from kiraos_desktop.core.skills import SkillRouter
from kiraos_desktop.core.skills.agent_io import (
    NameClashError,
    SkillTransferError,
    UnusableNameError,
    export_skill,
    import_skill,
)

TRANSFER_COMMANDS = ("import", "export")


def add_transfer_commands(commands, parents: list) -> None:
    """Add `import PATH` and `export NAME DIR` to the `skills` subparsers."""
    imports = commands.add_parser("import", parents=parents, help="import an Agent Skill (SKILL.md)",
                                  description="Make a skill from an Agent Skills folder (with SKILL.md) or "
                                              "a .zip/.skill archive of one; an export of this program "
                                              "comes back exactly as it was.")
    imports.add_argument("source", metavar="PATH", help="folder with SKILL.md, or a .zip/.skill archive")
    imports.add_argument("--name", dest="import_name", metavar="NAME",
                         help="import under this skill name instead of the one in SKILL.md")
    imports.add_argument("--replace", action="store_true",
                         help="replace the existing skill of the same name")

    export = commands.add_parser("export", parents=parents, help="export a skill as an Agent Skill",
                                 description="Write the skill as DIR/<name>/SKILL.md (the Agent Skills "
                                             "format) with its other files beside it.")
    export.add_argument("name", metavar="NAME", help="skill name")
    export.add_argument("destination", metavar="DIR", help="folder to write the skill folder into")
    export.add_argument("--force", action="store_true", help="replace DIR/<name> when it exists")


def run_transfer_command(command: str, args, engine) -> int:
    return _import(args, engine) if command == "import" else _export(args, engine)


def _import(args, engine) -> int:
    router: SkillRouter = engine.skills
    try:
        result = import_skill(Path(args.source), router.skills_dir, name=args.import_name, replace=args.replace,
                              backups_dir=engine.paths.backups_dir if args.replace else None)
    except NameClashError as exc:
        print(f"error: a skill named {exc.name!r} already exists (folder {exc.folder.name!r}); use --replace "
              "to replace it or --name NEW to import it under another name", file=sys.stderr)
        return EXIT_USAGE
    except UnusableNameError as exc:
        print(f"error: cannot import {args.source}: {exc} (--name NEW)", file=sys.stderr)
        return EXIT_USAGE
    except SkillTransferError as exc:
        print(f"error: cannot import {args.source}: {exc}", file=sys.stderr)
        return EXIT_USAGE
    router.reload()
    how = "restored" if result.restored else "imported"
    replaced = f" (replacing the previous one, moved to {result.backup})" if result.replaced else ""
    print(f"{how} skill {result.name!r} into {result.folder}{replaced}")
    if result.command_changed is not None:
        before, after = result.command_changed
        now = f"uses {after}" if after else "has no command"
        print(f"note: {before} is another skill's command, so the imported skill {now}")
    skill = router.get(result.name)
    for problem in skill.problems if skill is not None else []:
        print(f"{result.folder.name}/{problem.format()}")
    return EXIT_OK


def _export(args, engine) -> int:
    skill = engine.skills.get(args.name)
    if skill is None:
        print(f"error: no skill named {args.name!r} (see `skills list`)", file=sys.stderr)
        return EXIT_USAGE
    try:
        target = export_skill(skill.folder, Path(args.destination), overwrite=args.force)
    except SkillTransferError as exc:
        print(f"error: cannot export {args.name!r}: {exc}", file=sys.stderr)
        return EXIT_USAGE
    print(f"exported {args.name!r} to {target}")
    return EXIT_OK
