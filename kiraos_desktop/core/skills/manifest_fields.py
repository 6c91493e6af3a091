"""Conversion between a manifest object and the fields of the workbench's manifest form."""
from __future__ import annotations

import json
from dataclasses import dataclass, field
from typing import Any

from .arguments import value_as
from .manifest import KNOWN_FIELDS
from .problems import TEMPLATES

#: The parameter types the form offers; anything else is kept as written in the JSON.
PARAM_TYPES = ("string", "number", "integer", "boolean")
TEXT_FIELDS = ("name", "description", "trigger", "exclude", "command")


class FormUnavailable(ValueError):
    """The manifest holds values the form cannot show (the JSON view still can)."""


@dataclass
class ParamRow:
    """One property of `parameters.properties`, as a row of the parameters table."""

    name: str
    type: Any = "string"  # one of PARAM_TYPES, or any other JSON value kept as is
    description: str = ""
    required: bool = False
    enum: list | None = None
    original: dict = field(default_factory=dict)  # the property as read: other keys and key order


@dataclass
class FormFields:
    name: str = ""
    description: str = ""
    trigger: str = ""
    exclude: str = ""
    command: str = ""
    template: str = "plain"
    params: list[ParamRow] = field(default_factory=list)


def form_from_manifest(data: dict) -> FormFields:
    """The form's view of a manifest object; FormUnavailable names what it cannot show."""
    if not isinstance(data, dict):
        raise FormUnavailable("the manifest is not a JSON object")
    values: dict[str, str] = {}
    for key in TEXT_FIELDS:
        value = data.get(key)
        if value is not None and not isinstance(value, str):
            raise FormUnavailable(f'"{key}" is not a string')
        values[key] = value or ""
    template = data.get("template", "plain")
    if template not in TEMPLATES:
        raise FormUnavailable('"template" is neither "plain" nor "jinja2"')
    return FormFields(template=template, params=rows_from_parameters(data.get("parameters")), **values)


def rows_from_parameters(params: Any) -> list[ParamRow]:
    if params is None:
        return []
    if not isinstance(params, dict):
        raise FormUnavailable('"parameters" is not an object')
    props = params.get("properties", {})
    required = params.get("required", [])
    if not isinstance(props, dict):
        raise FormUnavailable('"parameters.properties" is not an object')
    if not isinstance(required, list):
        raise FormUnavailable('"parameters.required" is not a list')
    rows = []
    for name, prop in props.items():
        if not isinstance(prop, dict):
            raise FormUnavailable(f'the parameter "{name}" is not an object')
        description = prop.get("description", "")
        if not isinstance(description, str):
            raise FormUnavailable(f'the description of parameter "{name}" is not a string')
        enum = prop.get("enum")
        if enum is not None and not isinstance(enum, list):
            raise FormUnavailable(f'the enum of parameter "{name}" is not a list')
        rows.append(ParamRow(name, prop.get("type", "string") if "type" in prop else None, description,
                             name in required, enum, dict(prop)))
    return rows


def _put(out: dict, key: str, value: Any, default: Any) -> None:
    """Set `key` when it is already there or differs from its default (new keys keep field order)."""
    if key in out:
        out[key] = value
    elif value != default:
        out[key] = value


def apply_form(data: dict, fields: FormFields) -> dict:
    """A copy of `data` with the form's fields written in; unknown fields and key order are kept."""
    out = dict(data) if isinstance(data, dict) else {}
    for key in TEXT_FIELDS:
        _put(out, key, getattr(fields, key), "")
    _put(out, "template", fields.template, "plain")
    params = parameters_from_rows(fields.params, out.get("parameters"))
    if params is not None:  # None: no parameters before and none now, so nothing to write
        out["parameters"] = params
    return _ordered(out, data)


def _ordered(out: dict, original: dict) -> dict:
    """Existing keys in their original order; new ones in the manifest's customary field order."""
    original = original if isinstance(original, dict) else {}
    keys = [k for k in original if k in out]
    keys += [k for k in KNOWN_FIELDS if k in out and k not in keys]
    keys += [k for k in out if k not in keys]
    return {k: out[k] for k in keys}


def parameters_from_rows(rows: list[ParamRow], original: Any) -> dict | None:
    """The `parameters` schema for these rows; keeps the schema's and each property's other keys."""
    if original is None and not rows:
        return None
    schema = dict(original) if isinstance(original, dict) else {"type": "object"}
    schema.setdefault("type", "object")
    props: dict[str, dict] = {}
    for row in rows:
        prop = dict(row.original)
        if row.type is not None:
            _put_first(prop, "type", row.type)
        elif "type" in prop:
            del prop["type"]
        if row.description or "description" in prop:
            prop["description"] = row.description
        if row.enum:
            prop["enum"] = list(row.enum)
        else:
            prop.pop("enum", None)
        props[row.name] = prop
    schema["properties"] = props
    wanted = [r.name for r in rows if r.required]
    before = schema.get("required") if isinstance(schema.get("required"), list) else []
    required = [n for n in before if n in wanted] + [n for n in wanted if n not in before]
    if required or "required" in schema:
        schema["required"] = required
    return schema


def _put_first(prop: dict, key: str, value: Any) -> None:
    if key in prop:
        prop[key] = value
    else:
        items = list(prop.items())
        prop.clear()
        prop[key] = value
        prop.update(items)


def dump_manifest(data: dict) -> str:
    """The manifest text the editor writes: UTF-8 JSON, two-space indent, trailing newline."""
    return json.dumps(data, ensure_ascii=False, indent=2) + "\n"


# ---------------------------------------------------------------------- enum cells

def enum_to_text(values: list | None) -> str:
    """Enum values as the table shows them: `a, b, c` (non-strings JSON-encoded)."""
    if not values:
        return ""
    return ", ".join(v if isinstance(v, str) else json.dumps(v, ensure_ascii=False) for v in values)


def enum_from_text(text: str, kind: Any) -> list | None:
    """Parse a comma-separated enum cell for a parameter of type `kind`; ValueError when a value
    does not fit the type."""
    parts = [p.strip() for p in text.split(",")]
    parts = [p for p in parts if p]
    if not parts:
        return None
    return [_enum_value(p, kind) for p in parts]


def _enum_value(text: str, kind: Any) -> Any:
    """A number or boolean cell converted like any argument text; other types keep the text."""
    if kind in ("integer", "number", "boolean"):
        return value_as(kind, text)
    return text


def type_to_text(kind: Any) -> str:
    if kind is None:
        return ""
    return kind if isinstance(kind, str) else json.dumps(kind, ensure_ascii=False)
