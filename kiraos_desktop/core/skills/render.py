"""One-pass rendering of skill instructions, placeholder analysis and the tool-result wrapper."""
from __future__ import annotations

import json
import re
from functools import lru_cache
from typing import Any, Iterable

import jinja2
from jinja2 import meta, nodes
from jinja2.sandbox import SandboxedEnvironment
from jsonschema import exceptions as js_exceptions
from markupsafe import Markup

from ..schema_messages import describe
from ..schema_paths import error_field
from ..templates import template
from .manifest import declared_names, manifest_parameters, schema_validator_class
from .problems import (
    MAX_FILE_BYTES,
    TEMPLATE_INSTRUCTION_PLACEHOLDERS,
    TEMPLATES,
    Problem,
    SkillArgumentError,
    SkillRenderError,
    error,
    warning,
)

#: What a `{placeholder}` looks like when it is not a declared parameter (identifier-like names).
_IDENT_PLACEHOLDER = re.compile(r"\{([^\W\d][\w-]*)\}")

_XML_ESCAPES = str.maketrans({"&": "&amp;", "<": "&lt;", ">": "&gt;", '"': "&quot;", "'": "&apos;"})

_ENV = SandboxedEnvironment(autoescape=False, trim_blocks=True, lstrip_blocks=True,
                            keep_trailing_newline=True)


def xml_escape(text: str) -> str:
    return text.translate(_XML_ESCAPES)


def wrap_value(value: Any) -> str:
    """`<user_input>VALUE</user_input>`; non-strings are JSON-encoded, then XML-escaped."""
    if not isinstance(value, str):
        value = json.dumps(value, ensure_ascii=False)
    return f"<user_input>{xml_escape(value)}</user_input>"


def template_kind(manifest: dict | None) -> str:
    kind = (manifest or {}).get("template", "plain")
    return kind if kind in TEMPLATES else "plain"


def _declared_pattern(names: Iterable[str]) -> re.Pattern | None:
    names = sorted(set(names), key=len, reverse=True)
    if not names:
        return None
    return re.compile(r"\{(" + "|".join(re.escape(n) for n in names) + r")\}")


def _line_of(text: str, pos: int) -> int:
    return text.count("\n", 0, pos) + 1


# ----------------------------------------------------------------------------- arguments

def validate_arguments(schema: dict, arguments: Any) -> None:
    """Raise SkillArgumentError naming the failing field when `arguments` breaks `schema`."""
    if not isinstance(arguments, dict):
        raise SkillArgumentError("arguments", "arguments must be a JSON object")
    try:
        validator = _validator(schema)
        if validator.is_valid(arguments):
            return
        failure = js_exceptions.best_match(validator.iter_errors(arguments))
    except js_exceptions.SchemaError as exc:
        raise SkillRenderError("parameters", f"the parameter schema is invalid: {exc.message}") from exc
    except Exception as exc:  # unresolvable $ref and the like
        raise SkillRenderError("parameters", f"the parameter schema cannot be used: {exc}") from exc
    if failure is not None:
        raise SkillArgumentError(error_field(failure, "arguments"), describe(failure))


_VALIDATORS: dict[str, Any] = {}


def _validator(schema: dict):
    """A validator per distinct schema, reused: building one costs more than validating."""
    key = json.dumps(schema, sort_keys=True, default=str)
    validator = _VALIDATORS.get(key)
    if validator is None:
        if len(_VALIDATORS) > 256:
            _VALIDATORS.clear()
        validator = _VALIDATORS[key] = schema_validator_class(schema)(schema)
    return validator


# ----------------------------------------------------------------------------- rendering

#: Instructions up to this many characters keep their compiled template (128 of them at most), so the
#: cache stays within a few MiB whatever the skills hold; longer ones are compiled on each call.
_CACHED_SOURCE_CHARS = 16 * 1024


@lru_cache(maxsize=128)
def _compile_cached(source: str) -> jinja2.Template:
    return _ENV.from_string(source)


def _compile(source: str) -> jinja2.Template:
    return _compile_cached(source) if len(source) <= _CACHED_SOURCE_CHARS else _ENV.from_string(source)


def render_instruction(instruction: str, manifest: dict | None, arguments: dict) -> str:
    """Render an instruction with call arguments in one pass (plain) or in the Jinja2 sandbox.

    Declared, provided parameters become `<user_input>VALUE</user_input>` (escaped), declared
    optional parameters not provided become empty, undeclared `{placeholders}` stay as written.
    Raises SkillArgumentError for arguments that break the schema (a missing required one too).
    """
    schema = manifest_parameters(manifest)
    validate_arguments(schema, arguments)
    names = declared_names(manifest)
    values = {name: wrap_value(arguments[name]) for name in names if name in arguments}
    if template_kind(manifest) == "jinja2":
        return _render_jinja(instruction, values)
    pattern = _declared_pattern(names)
    if pattern is None:
        return instruction
    return pattern.sub(lambda m: values.get(m.group(1), ""), instruction)


def _render_jinja(instruction: str, values: dict[str, str]) -> str:
    try:
        template = _compile(instruction)
    except jinja2.TemplateSyntaxError as exc:
        raise SkillRenderError("instruction", f"Jinja2 syntax error on line {exc.lineno}: {exc.message}") from exc
    try:
        return template.render({name: Markup(value) for name, value in values.items()})
    except jinja2.TemplateError as exc:
        raise SkillRenderError("instruction", f"the Jinja2 template failed: {exc}") from exc
    except Exception as exc:  # TypeError, ZeroDivisionError, ... raised inside the template
        raise SkillRenderError("instruction", f"the Jinja2 template failed: {type(exc).__name__}: {exc}") from exc


def guard_text(exclude: Any) -> str:
    if not isinstance(exclude, str) or not exclude.strip():
        return ""
    return template("skill_guard.j2").render(exclude=exclude.strip())


def wrap_tool_result(name: str, instruction: str, memory_block: str = "") -> str:
    """The exact tool result: the instruction in a `<skill>` element, memory in `<context>`."""
    memory_block = (memory_block or "").strip("\n")
    return template("skill_result.j2").render(name=name, instruction=instruction,
                                              memory=memory_block if memory_block.strip() else "")


def render_tool_result(name: str, instruction: str, manifest: dict | None, arguments: dict,
                       memory_block: str = "") -> str:
    """Guard + rendered instruction, wrapped as the tool result the LLM receives."""
    body = render_instruction(instruction, manifest, arguments).strip()
    return wrap_tool_result(name, guard_text((manifest or {}).get("exclude")) + body, memory_block)


# ----------------------------------------------------------------------------- analysis

def placeholder_spans(instruction: str, declared: Iterable[str],
                      template: str = "plain") -> list[tuple[int, int, str, bool]]:
    """(start, end, name, declared) of every placeholder, for editor highlighting.

    Plain templates: `{name}`. Jinja2 templates: `{{ name ... }}` expressions that start with a name.
    """
    declared = set(declared)
    spans: dict[int, tuple[int, int, str, bool]] = {}
    if template == "jinja2":
        for m in re.finditer(r"\{\{-?\s*([^\W\d]\w*)(?:(?!\}\}).)*\}\}", instruction, re.S):
            spans[m.start()] = (m.start(), m.end(), m.group(1), m.group(1) in declared)
        return [spans[k] for k in sorted(spans)]
    pattern = _declared_pattern(declared)
    if pattern is not None:
        for m in pattern.finditer(instruction):
            spans[m.start()] = (m.start(), m.end(), m.group(1), True)
    for m in _IDENT_PLACEHOLDER.finditer(instruction):
        if m.start() not in spans and m.group(1) not in declared:
            spans[m.start()] = (m.start(), m.end(), m.group(1), False)
    return [spans[k] for k in sorted(spans)]


def instruction_problems(text: str, manifest: dict | None) -> list[Problem]:
    """Problems of instruction text against its manifest: empty, oversized, template errors,
    undeclared placeholders and declared parameters that are never used."""
    if len(text.encode("utf-8", "surrogatepass")) > MAX_FILE_BYTES:
        return [error("instruction", f"instruction.md is larger than {MAX_FILE_BYTES // 1024} KiB; "
                                     "shorten it (the whole text is sent to the LLM on every call).")]
    if not text.strip():
        return [error("instruction", "instruction.md is empty; write the steps the LLM should follow.")]
    names = declared_names(manifest)
    leftovers = [error("instruction", f"instruction.md still holds the template's placeholder "
                                      f"“{placeholder}”: write the skill's own text there.",
                       _line_of(text, text.index(placeholder)))
                 for placeholder in TEMPLATE_INSTRUCTION_PLACEHOLDERS if placeholder in text]
    if template_kind(manifest) == "jinja2":
        return leftovers + _jinja_problems(text, names)
    problems: list[Problem] = leftovers
    used: set[str] = set()
    reported: set[str] = set()
    for start, _end, name, declared in placeholder_spans(text, names):
        if declared:
            used.add(name)
        elif name not in reported:
            reported.add(name)
            problems.append(warning("instruction", f"Placeholder {{{name}}} is not a declared parameter, "
                                                   "so it is sent to the LLM as written; declare "
                                                   f"{name!r} in parameters.properties or remove it.",
                                    _line_of(text, start)))
    problems.extend(_unused(names, used, "{%s}"))
    return problems


def _jinja_problems(text: str, names: list[str]) -> list[Problem]:
    try:
        ast = _ENV.parse(text)
    except jinja2.TemplateSyntaxError as exc:
        return [error("instruction", f"Jinja2 syntax error: {exc.message}; fix the template.", exc.lineno)]
    problems: list[Problem] = []
    try:
        variables = meta.find_undeclared_variables(ast)  # compiles: unknown filters/tests fail here
    except jinja2.TemplateSyntaxError as exc:
        return [error("instruction", f"Jinja2 template error: {exc.message}; fix the template.", exc.lineno)]
    lines: dict[str, int] = {}
    for node in ast.find_all(nodes.Name):
        if node.ctx == "load":
            lines.setdefault(node.name, node.lineno)
    for name in sorted(variables - set(names), key=lambda n: (lines.get(n, 0), n)):
        problems.append(warning("instruction", f"Template variable {name!r} is not a declared parameter, "
                                               "so it is always empty; declare it in "
                                               "parameters.properties or remove it.", lines.get(name)))
    problems.extend(_unused(names, variables & set(names), "{{ %s }}"))
    return problems


def _unused(names: list[str], used: set[str], form: str) -> list[Problem]:
    return [warning(f"parameters.properties.{name}",
                    f"Parameter {name!r} is declared but never used in instruction.md; write "
                    f"{form % name} where its value belongs or remove the parameter.")
            for name in names if name not in used]
