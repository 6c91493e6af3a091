"""What a JSON Schema error says to people: JSON spellings (null, true, "text"), never Python's, and short."""
from __future__ import annotations

import json
from typing import Any

from jsonschema.exceptions import ValidationError

_SHOWN_CHARS = 40
_ARTICLES = {"object": "an object", "array": "an array", "integer": "an integer", "string": "a string",
             "number": "a number", "boolean": "a boolean (true or false)", "null": "null"}


def shown(value: Any) -> str:
    """A value as JSON, cut to a few dozen characters (a reply must not echo a large input back)."""
    try:
        text = json.dumps(value, ensure_ascii=False, default=str)
    except (TypeError, ValueError, RecursionError):
        text = type(value).__name__
    return text if len(text) <= _SHOWN_CHARS else text[:_SHOWN_CHARS] + f"… ({len(text)} characters)"


def json_type(value: Any) -> str:
    """The JSON type name of a decoded value."""
    if value is None:
        return "null"
    if isinstance(value, bool):
        return "boolean"
    if isinstance(value, (int, float)):
        return "number"
    if isinstance(value, str):
        return "string"
    if isinstance(value, (list, tuple)):
        return "array"
    return "object"


def _types(kinds: Any) -> str:
    kinds = [kinds] if isinstance(kinds, str) else list(kinds)
    return " or ".join(_ARTICLES.get(k, str(k)) for k in kinds)


def _listed(values: Any) -> str:
    return ", ".join(shown(v) for v in values)


def describe(err: ValidationError) -> str:
    """The message of one schema error, without the field name (callers put the field first)."""
    kind, rule, value = err.validator, err.validator_value, err.instance
    got = f", got {shown(value)}"
    if kind == "type":
        return f"must be {_types(rule)}, got {json_type(value)}" + (f" {shown(value)}" if value is not None else "")
    if kind == "enum":
        return f"must be one of {_listed(rule)}{got}"
    if kind == "const":
        return f"must be {shown(rule)}{got}"
    if kind in ("minimum", "maximum", "exclusiveMinimum", "exclusiveMaximum"):
        words = {"minimum": "at least", "maximum": "at most", "exclusiveMinimum": "more than",
                 "exclusiveMaximum": "less than"}[kind]
        return f"must be {words} {shown(rule)}{got}"
    if kind == "multipleOf":
        return f"must be a multiple of {shown(rule)}{got}"
    if kind in ("minLength", "maxLength"):
        words = "at least" if kind == "minLength" else "at most"
        return f"must be {words} {rule} characters long, got {len(value)}"
    if kind in ("minItems", "maxItems"):
        words = "at least" if kind == "minItems" else "at most"
        return f"must have {words} {rule} items, got {len(value)}"
    if kind in ("minProperties", "maxProperties"):
        words = "at least" if kind == "minProperties" else "at most"
        return f"must have {words} {rule} fields, got {len(value)}"
    if kind == "uniqueItems":
        return "must not hold the same item twice"
    if kind == "pattern":
        return f"must match the pattern {shown(rule)}{got}"
    if kind == "format":
        return f"must be a valid {rule}{got}"
    if kind == "required":
        return "required field is missing"
    if kind == "additionalProperties":
        return "unknown field; remove it"
    if kind in ("anyOf", "oneOf"):
        return f"does not match any accepted form{got}" if kind == "anyOf" else \
            f"must match exactly one accepted form{got}"
    if kind == "not":
        return f"is not allowed{got}"
    return f"breaks the schema rule {kind!s} {shown(rule)}{got}"
