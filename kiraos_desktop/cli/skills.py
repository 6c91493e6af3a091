"""The `skills` command of the CLI: list, lint and preview skills; create, rename, delete, import and
export them."""
from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path
from typing import Any

from kiraos_desktop.cli.skill_files import add_file_commands, run_file_command
from kiraos_desktop.cli.skill_state import STATE_COMMANDS, add_state_commands, run_state_command
from kiraos_desktop.cli.skill_transfer import TRANSFER_COMMANDS, add_transfer_commands, run_transfer_command
from kiraos_desktop.core import jsontext
from kiraos_desktop.core.skills import Skill, SkillRouter, validate_skill_folder
from kiraos_desktop.core.skills.problems import AGENT_SKILL_FILE, MANIFEST_FILE
from kiraos_desktop.core.skills.arguments import typed_value
from kiraos_desktop.core.tool_registry import ToolArgumentError, UnknownToolError


def add_skills_parser(subparsers, parents: list) -> None:
    """Add `skills list | lint [DIR] | preview NAME ... | new | rename | delete` to an argparse
    subparsers object."""
    skills = subparsers.add_parser("skills", help="list, lint, preview, create, rename, delete, import or export skills",
                                   description="Inspect the skills folder.")
    commands = skills.add_subparsers(
        dest="skills_command", metavar="{list,lint,preview,enable,disable,new,rename,delete,import,export}")
    commands.required = True

    commands.add_parser("list", parents=parents, help="show every skill with its state",
                        description="Show every skill: name, command, whether it is enabled, "
                                    "how many problems it has.")

    lint = commands.add_parser("lint", parents=parents, help="report skill problems (KiraOS and Agent Skills)",
                               description="Report every problem of every skill; exit status 2 "
                                           "when any skill has an error.")
    lint.add_argument("dir", nargs="?", metavar="NAME|DIR",
                      help="a skill's name, or a skills folder (or one skill folder) to check "
                           "(default: every skill of the configured skills folder)")

    preview = commands.add_parser("preview", parents=parents,
                                  help="print the exact tool result of a skill call",
                                  description="Print exactly what calling the skill returns to the LLM.")
    preview.add_argument("name", metavar="NAME", help="skill name")
    preview.add_argument("--arg", dest="skill_args", action="append", default=[], metavar="K=V",
                         help="an argument; the value is converted to the declared type "
                              "(integer, number, boolean; JSON for object/array). Repeatable.")
    preview.add_argument("--json", dest="skill_json", metavar="ARGS",
                         help="all arguments as one JSON object (--arg values override it)")
    preview.add_argument("--user", dest="skill_user", default="preview", metavar="U",
                         help="user whose memory goes into <context> (default: preview)")
    add_state_commands(commands, parents)
    add_file_commands(commands, parents)
    add_transfer_commands(commands, parents)


def run_skills(args, engine) -> int:
    """Run a parsed `skills` command. `engine` may be None for `skills lint DIR`."""
    command = getattr(args, "skills_command", None)
    if command == "lint":
        return _lint(args, engine)
    if engine is None:
        print(f"error: `skills {command}` needs an opened data dir", file=sys.stderr)
        return 2
    if command == "list":
        return _list(engine)
    if command == "preview":
        return _preview(args, engine)
    if command in STATE_COMMANDS:
        return run_state_command(command, args, engine)
    if command in ("new", "rename", "delete"):
        return run_file_command(command, args, engine)
    if command in TRANSFER_COMMANDS:
        return run_transfer_command(command, args, engine)
    print("error: choose one of: skills list, skills lint [NAME|DIR], skills preview NAME, skills enable NAME, "
          "skills disable NAME, skills new NAME, "
          "skills rename NAME NEW, skills delete NAME, skills import PATH, skills export NAME DIR",
          file=sys.stderr)
    return 2


# ---------------------------------------------------------------------- list

def _state(skill: Skill) -> str:
    if not skill.valid:
        return "invalid"
    return "yes" if skill.enabled else "no"


def _list(engine) -> int:
    router: SkillRouter = engine.skills
    skills = router.skills()
    if not skills:
        print(f"no skills in {router.skills_dir}")
        return 0
    rows = [("NAME", "COMMAND", "ENABLED", "PROBLEMS", "FOLDER")]
    for skill in skills:
        counts = str(len(skill.problems))
        if skill.errors:
            counts += f" ({len(skill.errors)} error{'s' if len(skill.errors) > 1 else ''})"
        rows.append((skill.name, skill.command or "-", _state(skill), counts, skill.folder.name))
    widths = [max(len(row[i]) for row in rows) for i in range(len(rows[0]) - 1)]
    for row in rows:
        cells = [cell.ljust(width) for cell, width in zip(row, widths)] + [row[-1]]
        print("  ".join(cells).rstrip())
    return 0


# ---------------------------------------------------------------------- lint

def _lint(args, engine) -> int:
    directory = getattr(args, "dir", None)
    if directory and engine is not None and not Path(directory).is_dir():
        engine.skills.reload()
        skill = engine.skills.get(directory)  # a skill's name, as `preview` takes it
        if skill is not None:
            return _report([skill], engine.skills.skills_dir)
    if directory:
        path = Path(directory)
        if not path.is_dir():
            print(f"error: {path} is neither a skill's name (see `skills list`) nor a folder", file=sys.stderr)
            return 2
        if (path / MANIFEST_FILE).exists() or (path / AGENT_SKILL_FILE).exists():
            skill, _problems = validate_skill_folder(path)  # DIR is one skill, not a skills folder
            return _report([skill], path)
        router = SkillRouter(path)
    elif engine is not None:
        router = engine.skills
        router.reload()
    else:
        print("error: give a skills folder to lint (skills lint DIR) or open a data dir", file=sys.stderr)
        return 2
    return _report(router.skills(), router.skills_dir)


def _report(skills: list[Skill], where: Path) -> int:
    errors = warnings = 0
    for skill in skills:
        for problem in skill.problems:
            location = skill.folder.name
            if problem.file:
                location += f"/{problem.file}"
            if problem.line is not None:
                location += f":{problem.line}"
            print(f"{location}: {problem.severity}: [{problem.field}] {problem.message}")
            if problem.is_error:
                errors += 1
            else:
                warnings += 1
    noun = "skill" if len(skills) == 1 else "skills"
    if errors or warnings:
        print(f"{len(skills)} {noun} checked in {where}: {errors} error(s), {warnings} warning(s)")
    else:
        print(f"{len(skills)} {noun} checked in {where}: no problems")
    return 2 if errors else 0


# ---------------------------------------------------------------------- preview

def _preview(args, engine) -> int:
    name = args.name
    skill = engine.skills.get(name)
    if skill is None:
        print(f"error: no skill named {name!r} (see `skills list`)", file=sys.stderr)
        return 2
    try:
        arguments = build_arguments(skill.parameters, args.skill_json, args.skill_args)
    except ValueError as exc:
        print(f"error: {exc}", file=sys.stderr)
        return 2
    try:
        result = engine.tools.call(name, args.skill_user, arguments, actor="cli")
    except UnknownToolError:
        reason = "it is disabled" if skill.valid else "it has errors (run `skills lint`)"
        print(f"error: skill {name!r} cannot be called: {reason}", file=sys.stderr)
        return 2
    except ToolArgumentError as exc:
        print(f"error: argument {exc.field}: {exc.message}", file=sys.stderr)
        return 2
    if result.is_error:
        print(result.content, file=sys.stderr)
        return 1
    print(result.content)
    return 0


def build_arguments(schema: dict, json_text: str | None, pairs: list[str]) -> dict:
    """Arguments from `--json ARGS` overlaid with `--arg k=v` pairs coerced by declared type."""
    arguments: dict[str, Any] = {}
    if json_text:
        try:
            loaded = jsontext.loads(json_text)
        except json.JSONDecodeError as exc:
            raise ValueError(f"--json is not valid JSON: {exc.msg} (column {exc.colno})") from exc
        except jsontext.LoneSurrogateError as exc:
            raise ValueError(f"--json: {exc}") from exc
        if not isinstance(loaded, dict):
            raise ValueError("--json must be a JSON object such as '{\"question\": \"...\"}'")
        arguments.update(loaded)
    props = schema.get("properties") if isinstance(schema, dict) else None
    props = props if isinstance(props, dict) else {}
    for pair in pairs or []:
        key, sep, value = pair.partition("=")
        if not sep or not key:
            raise ValueError(f"--arg {pair!r} must look like key=value")
        prop = props.get(key)
        arguments[key] = coerce_value(key, value, prop if isinstance(prop, dict) else {})
    return arguments


def coerce_value(key: str, value: str, prop: dict) -> Any:
    """Convert a command-line string to the property's declared JSON type."""
    try:
        return typed_value(value, prop.get("type"))
    except ValueError as exc:
        raise ValueError(f"--arg {key}={value!r}: {exc}") from None


def standalone_parser() -> argparse.ArgumentParser:
    """A parser with only the `skills` command (handy for tests and scripts)."""
    parser = argparse.ArgumentParser(prog="kiraos-desktop")
    add_skills_parser(parser.add_subparsers(dest="command"), [])
    return parser
