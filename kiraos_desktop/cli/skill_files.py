"""`skills new | rename | delete`: create, rename and delete skill folders from the command line."""
from __future__ import annotations

import sys
from pathlib import Path

from kiraos_desktop.core.exit_codes import EXIT_FAILURE, EXIT_OK, EXIT_USAGE
from kiraos_desktop.core.settings import SettingsError
from kiraos_desktop.core.skills import file_ops
from kiraos_desktop.core.skills.discovery import is_agent_folder
from kiraos_desktop.core.skills.file_ops import SkillFileError
from kiraos_desktop.core.skills.problems import AGENT_SKILL_FILE

# The same name rules as the workbench's New and Rename dialogs.
_NAME_MESSAGES = {
    file_ops.NAME_EMPTY: "give the skill a name",
    file_ops.NAME_INVALID: "{name!r} is not a valid skill name: use 1 to 64 ASCII letters, digits, _ or - "
                           "(not starting with _)",
    file_ops.NAME_RESERVED: "{name!r} is reserved for the memory tools",
    file_ops.NAME_TAKEN: "another skill is already named {name!r}",
    file_ops.FOLDER_TAKEN: "the skills folder already has an entry named {name!r}",
}


def add_file_commands(commands, parents: list) -> None:
    """Add `new NAME`, `rename NAME NEW` and `delete NAME` to the `skills` subparsers."""
    new = commands.add_parser("new", parents=parents, help="create a skill from the template",
                              description="Create the folder NAME in the skills folder with a manifest "
                                          "and an instruction to fill in.")
    new.add_argument("name", metavar="NAME", help="name of the new skill (also its folder and /command)")

    rename = commands.add_parser("rename", parents=parents, help="rename a skill and its folder",
                                 description="Set the skill's name in its manifest and rename its folder "
                                             "to match; a disabled skill stays disabled.")
    rename.add_argument("name", metavar="NAME", help="current skill name")
    rename.add_argument("new_name", metavar="NEW", help="new skill name")

    delete = commands.add_parser("delete", parents=parents, help="move a skill to the backups",
                                 description="Move the skill's folder to BACKUPS/deleted-skills/ "
                                             "(nothing is asked: the folder can be moved back).")
    delete.add_argument("name", metavar="NAME", help="skill name")


def run_file_command(command: str, args, engine) -> int:
    handler = {"new": _new, "rename": _rename, "delete": _delete}[command]
    try:
        return handler(args, engine)
    except SkillFileError as exc:
        return fail(EXIT_FAILURE, str(exc))


def fail(code: int, message: str) -> int:
    """`error: message` on stderr, one line; `code` (the skills commands' way to refuse)."""
    print(f"error: {message}", file=sys.stderr)
    return code


def _name_error(router, name: str, own_name: str = "") -> str:
    code = file_ops.check_name_in(router, name, own_name)
    return "" if code == file_ops.NAME_OK else _NAME_MESSAGES[code].format(name=name)


def _find(router, name: str) -> Path | None:
    router.reload()
    folder = file_ops.skill_folder(router, name)
    if folder is None:
        print(f"error: no skill named {name!r} (see `skills list`)", file=sys.stderr)
    return folder


def _new(args, engine) -> int:
    router = engine.skills
    router.reload()
    problem = _name_error(router, args.name)
    if problem:
        return fail(EXIT_USAGE, problem)
    name = args.name
    listed = name in engine.settings.disabled_skills
    engine.edit_settings(lambda s: s.replace(disabled_skills=file_ops.disabled_with(s.disabled_skills, name)))
    try:
        folder = file_ops.create_skill(router.skills_dir, name, *file_ops.template_files(name))
    except SkillFileError:
        if not listed:  # no skill: nothing of it left in the settings either
            engine.edit_settings(lambda s: s.replace(disabled_skills=file_ops.enabled_in(s.disabled_skills, name, True)))
        raise
    router.reload()
    print(f"created {folder} (disabled: fill in the template's …… texts, check it with `skills lint {name}`, "
          f"then `skills enable {name}` or turn it on in the window's Skills page)")
    return EXIT_OK


def _rename(args, engine) -> int:
    router = engine.skills
    folder = _find(router, args.name)
    if folder is None:
        return EXIT_USAGE
    skill = next((s for s in router.skills() if Path(s.folder) == folder), None)
    old = skill.name if skill is not None else folder.name
    if is_agent_folder(folder):
        return fail(EXIT_USAGE, f"{old} is an Agent Skills folder ({AGENT_SKILL_FILE}): change \"name\" in its "
                                 f"{AGENT_SKILL_FILE} and rename the folder {folder.name!r} to the same name")
    unreadable = [p for p in (skill.problems if skill is not None else []) if p.is_error and p.field == "manifest"]
    if unreadable:  # the new name cannot be written into a manifest that cannot be read
        return fail(EXIT_USAGE, f"cannot rename {old}: {unreadable[0].message} Fix it first (see `skills lint`).")
    new = args.new_name
    problem = _name_error(router, new, own_name=old)
    if problem:
        return fail(EXIT_USAGE, problem)
    if new == old and folder.name == new:
        print(f"{old} already has that name")
        return EXIT_OK
    target = file_ops.rename_skill(folder, new)
    router.reload()
    print(f"renamed {old} to {new} ({target})")
    if old in engine.settings.disabled_skills:
        try:
            engine.edit_settings(lambda s: s.replace(
                disabled_skills=file_ops.renamed_in(s.disabled_skills, old, new) or s.disabled_skills))
        except (SettingsError, OSError) as exc:
            return fail(EXIT_FAILURE, f"the skill was renamed but is enabled now: {exc}")
    return EXIT_OK


def _delete(args, engine) -> int:
    folder = _find(engine.skills, args.name)
    if folder is None:
        return EXIT_USAGE
    target = file_ops.delete_skill(folder, engine.paths.backups_dir)
    engine.skills.reload()
    print(f"moved {folder} to {target}")
    return EXIT_OK
