"""Validation of a skill's manifest.json text (usable on unsaved editor text too)."""
from __future__ import annotations

import json
import re
from typing import Any

from jsonschema import exceptions as js_exceptions
from jsonschema import validators

from .. import jsontext
from ..schema_messages import describe, json_type
from .problems import (
    COMMAND_RE,
    MAX_FILE_BYTES,
    NAME_RE,
    RESERVED_NAMES,
    RESERVED_PARAMETERS,
    TEMPLATE_ARGUMENT_HINT,
    TEMPLATE_DESCRIPTION,
    TEMPLATE_TRIGGER,
    TEMPLATES,
    Problem,
    error,
    warning,
)

KNOWN_FIELDS = ("name", "description", "trigger", "exclude", "command", "parameters", "template")
_TEXT_FIELDS = ("description", "trigger", "exclude")


def key_line(text: str, *path: str) -> int | None:
    """Best-effort 1-based line of the key `path[-1]`, found after each earlier key of `path`."""
    pos = 0
    found = None
    for key in path:
        match = re.compile(r'"' + re.escape(json.dumps(key, ensure_ascii=False)[1:-1]) + r'"\s*:').search(text, pos)
        if match is None:
            return found
        pos = match.end()
        found = text.count("\n", 0, match.start()) + 1
    return found


def validate_manifest_text(text: str) -> tuple[dict | None, list[Problem]]:
    """Parse and check manifest text. The dict is returned whenever the text is a JSON object,
    even when it has problems, so that callers can still use what is readable."""
    if len(text.encode("utf-8", "surrogatepass")) > MAX_FILE_BYTES:
        return None, [error("manifest", f"manifest.json is larger than {MAX_FILE_BYTES // 1024} KiB; "
                                        "keep only the skill's metadata in it.")]
    if text.startswith("\ufeff"):
        text = text[1:]
    if not text.strip():
        return None, [error("manifest", "manifest.json is empty; it must hold a JSON object "
                                        'with at least a "name".')]
    try:
        data = json.loads(text)
    except json.JSONDecodeError as exc:
        return None, [error("manifest", f"manifest.json is not valid JSON: {exc.msg} "
                                        f"(line {exc.lineno}, column {exc.colno}).", exc.lineno)]
    except RecursionError:
        return None, [error("manifest", "manifest.json is nested too deeply to be read.")]
    try:
        jsontext.check_text(data, text)
    except jsontext.LoneSurrogateError as exc:
        return None, [error("manifest", f"manifest.json: {exc}")]
    if not isinstance(data, dict):
        return None, [error("manifest", "manifest.json must hold a JSON object ({...}), "
                                        f"not a {json_type(data)}.", 1)]
    return data, manifest_problems(data, text)


def _template_leftovers(data: dict, line) -> list[Problem]:
    """The new-skill template's texts still in the manifest: errors, so the skill is not served
    with them (an LLM would be offered a tool "当用户……时调用此工具。")."""
    found = []
    if data.get("description") == TEMPLATE_DESCRIPTION:
        found.append(error("description", f'"description" is still the template\'s "{TEMPLATE_DESCRIPTION}": '
                                          "say in a sentence what the skill does.", line("description")))
    if isinstance(data.get("trigger"), str) and TEMPLATE_TRIGGER in data["trigger"]:
        found.append(error("trigger", f'"trigger" is still the template\'s "{TEMPLATE_TRIGGER}": say when the '
                                      "bot should call this skill (replace the ……).", line("trigger")))
    properties = data.get("parameters", {}).get("properties") if isinstance(data.get("parameters"), dict) else None
    if isinstance(properties, dict):
        for name, spec in properties.items():
            if isinstance(spec, dict) and spec.get("description") == TEMPLATE_ARGUMENT_HINT:
                found.append(error(f"parameters.properties.{name}",
                                   f'the description of {name!r} is still the template\'s "{TEMPLATE_ARGUMENT_HINT}": '
                                   "say what the argument holds, with an example.", line("parameters")))
    return found


def manifest_problems(data: dict, text: str = "") -> list[Problem]:
    """Problems of an already-parsed manifest object; `text` only helps to find line numbers."""
    problems: list[Problem] = []

    def line(*path: str) -> int | None:
        return key_line(text, *path) if text else None

    name = data.get("name")
    if "name" not in data:
        problems.append(error("name", 'The manifest has no "name"; add one such as '
                                      '"name": "my_skill" (letters, digits, _ or -, at most 64).'))
    elif not isinstance(name, str):
        problems.append(error("name", f'"name" must be a string, not a {json_type(name)}.', line("name")))
    elif not NAME_RE.match(name):
        problems.append(error("name", f'"name" {name!r} is not a valid tool name: use 1 to 64 ASCII '
                                      "letters, digits, _ or - (no spaces).", line("name")))
    elif name in RESERVED_NAMES:
        problems.append(error("name", f'"name" {name!r} is reserved for the memory tools; '
                                      "choose another name.", line("name")))

    for field in _TEXT_FIELDS:
        value = data.get(field)
        if value is not None and not isinstance(value, str):
            problems.append(error(field, f'"{field}" must be a string, not a {json_type(value)}.',
                                  line(field)))
    problems.extend(_template_leftovers(data, line))
    if not _text(data.get("trigger")) and not _text(data.get("description")):
        problems.append(warning("description", 'Neither "trigger" nor "description" is set, so the '
                                               "LLM cannot tell when to call this skill; add a "
                                               '"trigger" that says when to use it.'))

    command = data.get("command")
    if command is not None and command != "":
        if not isinstance(command, str):
            problems.append(error("command", f'"command" must be a string such as "/tarot", '
                                             f"not a {json_type(command)}.", line("command")))
        elif not COMMAND_RE.match(command):
            problems.append(error("command", f'"command" {command!r} must be "/" followed by one word '
                                             "(letters, digits, _ or -), e.g. \"/tarot\".",
                                  line("command")))

    template = data.get("template", "plain")
    if template not in TEMPLATES:
        problems.append(error("template", f'"template" must be "plain" or "jinja2", not '
                                          f"{json.dumps(template, ensure_ascii=False)}.", line("template")))

    if "parameters" in data and data["parameters"] is not None:
        problems.extend(parameters_problems(data["parameters"], line))

    for field in data:
        if field not in KNOWN_FIELDS:
            problems.append(warning(field, f"Unknown manifest field {field!r} is ignored; known fields "
                                           f"are {', '.join(KNOWN_FIELDS)}.", line(field)))
    return problems


def parameters_problems(params: Any, line=lambda *path: None) -> list[Problem]:
    """Check that `params` is an object JSON Schema whose `required` names declared properties."""
    if not isinstance(params, dict):
        return [error("parameters", '"parameters" must be a JSON Schema object such as '
                                    '{"type": "object", "properties": {...}}, not a '
                                    f"{json_type(params)}.", line("parameters"))]
    problems: list[Problem] = []
    if "$schema" in params and validators.validator_for(params, default=None) is None:
        return [error("parameters", f'"parameters" names an unknown "$schema" {params["$schema"]!r}; '
                                    "remove \"$schema\" (the latest JSON Schema draft is used).",
                      line("parameters", "$schema"))]
    try:
        validator_cls = schema_validator_class(params)
        validator_cls.check_schema(params)
    except js_exceptions.SchemaError as exc:
        path = ".".join(str(p) for p in exc.path)
        field = "parameters" + (f".{path}" if path else "")
        keys = [str(p) for p in exc.path if isinstance(p, str)]
        problems.append(error(field, f'"parameters" is not a valid JSON Schema: {field} {describe(exc)}; '
                                     f"fix {field}.",
                              line("parameters", *keys)))
        return problems
    except Exception as exc:  # an odd "$schema" value or similar
        return [error("parameters", f'"parameters" cannot be read as a JSON Schema: {exc}',
                      line("parameters"))]
    if params.get("type") != "object":
        problems.append(error("parameters.type", '"parameters" must have "type": "object" '
                                                 "(tool arguments are always an object).",
                              line("parameters", "type") or line("parameters")))
    props = params.get("properties", {})
    required = params.get("required", [])
    if isinstance(props, dict):
        for name in sorted(RESERVED_PARAMETERS.intersection(props)):
            problems.append(error(f"parameters.properties.{name}",
                                  f"A parameter cannot be called {name!r}: every tool call already carries "
                                  f"{name!r} (the user the bot talks to; MCP hosts send it among the "
                                  "arguments, where this parameter would be lost). Rename the parameter, "
                                  f"e.g. to \"target_{name}\".", line("parameters", "properties", name)))
    if isinstance(props, dict) and isinstance(required, list):
        for item in required:
            if item not in props:
                problems.append(error("parameters.required",
                                      f"{item!r} is listed in \"required\" but not declared in "
                                      '"properties"; declare it or remove it from "required".',
                                      line("parameters", "required")))
    return problems


def schema_validator_class(schema: dict):
    """The jsonschema validator class for a schema ($schema honoured, else the latest draft)."""
    return validators.validator_for(schema, default=validators.Draft202012Validator)


def manifest_parameters(data: dict | None) -> dict:
    """The parameter schema of a manifest, defaulting to an empty object schema."""
    params = (data or {}).get("parameters")
    if not isinstance(params, dict):
        return {"type": "object", "properties": {}}
    if "properties" not in params:
        params = {**params, "properties": {}}
    return params


def declared_names(data: dict | None) -> list[str]:
    props = manifest_parameters(data).get("properties")
    return [str(k) for k in props] if isinstance(props, dict) else []


def _text(value: Any) -> str:
    return value.strip() if isinstance(value, str) else ""
