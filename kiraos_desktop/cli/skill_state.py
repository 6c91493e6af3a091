"""`skills enable | disable NAME`: offer a skill to bot hosts, or stop offering it (settings.json's
disabled_skills, changed for that one skill as the file holds it now)."""
from __future__ import annotations

from kiraos_desktop.cli.skill_files import fail
from kiraos_desktop.core.exit_codes import EXIT_FAILURE, EXIT_OK, EXIT_USAGE
from kiraos_desktop.core.settings import SettingsError
from kiraos_desktop.core.skills import file_ops

STATE_COMMANDS = ("enable", "disable")


def add_state_commands(commands, parents: list) -> None:
    enable = commands.add_parser("enable", parents=parents, help="offer a skill to bot hosts",
                                 description="Offer the skill to bot hosts (tools, prompts, commands). A skill "
                                             "with errors is refused: fix them first (`skills lint NAME`).")
    enable.add_argument("name", metavar="NAME", help="skill name")
    disable = commands.add_parser("disable", parents=parents, help="stop offering a skill to bot hosts",
                                  description="Stop offering the skill to bot hosts; its files stay as they are.")
    disable.add_argument("name", metavar="NAME", help="skill name")


def run_state_command(command: str, args, engine) -> int:
    enabled = command == "enable"
    name = args.name
    router = engine.skills
    router.reload()
    skill = router.get(name)
    if skill is None and not (not enabled and name in engine.settings.disabled_skills):
        return fail(EXIT_USAGE, f"no skill named {name!r} (see `skills list`)")
    if enabled and skill is not None and skill.errors:
        found = "; ".join(f"[{p.field}] {p.message}" for p in skill.errors)
        return fail(EXIT_USAGE, f"{name} has {len(skill.errors)} error(s) to fix before bots can be offered it "
                                 f"(`skills lint {name}`): {found}")
    try:
        engine.edit_settings(lambda s: s.replace(disabled_skills=file_ops.enabled_in(s.disabled_skills, name, enabled)))
    except (SettingsError, OSError) as exc:
        return fail(EXIT_FAILURE, f"the setting could not be saved: {exc}")
    print(f"{name} {'enabled: offered to bot hosts' if enabled else 'disabled: no longer offered to bot hosts'}")
    return EXIT_OK
