"""Skill argument values: typed values from text (CLI, forms, enum cells) and sample arguments."""
from __future__ import annotations

import math
import re
from typing import Any

from .. import jsontext

TRUE_WORDS = frozenset({"true", "1", "yes", "on"})
FALSE_WORDS = frozenset({"false", "0", "no", "off"})


def value_as(kind: str, text: str) -> Any:
    """The value of `text` as one JSON Schema type; ValueError when it does not fit.

    Numbers are integers when they can be (so `5` stays 5 for a "number"); booleans accept
    true/false, yes/no, on/off and 1/0; objects and arrays are JSON of that shape."""
    if kind == "string":
        return text
    stripped = text.strip()
    if kind == "integer":
        return int(stripped)
    if kind == "number":
        try:
            return int(stripped)
        except ValueError:
            number = float(stripped)
            if not math.isfinite(number):
                raise ValueError(f"{text!r} is not a finite number") from None
            return number
    if kind == "boolean":
        lowered = stripped.lower()
        if lowered in TRUE_WORDS:
            return True
        if lowered in FALSE_WORDS:
            return False
        raise ValueError(f"{text!r} is not a boolean")
    if kind == "null":
        if stripped.lower() in ("null", "none", ""):
            return None
        raise ValueError(f"{text!r} is not null")
    if kind in ("object", "array"):
        loaded = jsontext.loads(stripped)
        if not isinstance(loaded, dict if kind == "object" else list):
            raise ValueError(f"{text!r} is not an {kind}")
        return loaded
    raise ValueError(f"unknown type {kind}")


def declared_types(declared: Any) -> list[str]:
    """A property's `type` as a list of names (empty when it declares none)."""
    if isinstance(declared, str):
        return [declared]
    if isinstance(declared, list):
        return [kind for kind in declared if isinstance(kind, str)]
    return []


def typed_value(text: str, declared: Any) -> Any:
    """`text` converted to the first declared type (a name or a list of names) it fits, strings
    last; the text itself when nothing is declared. ValueError names the expected types."""
    types = declared_types(declared)
    if not types:
        return text
    for kind in types:
        if kind == "string":
            continue
        try:
            return value_as(kind, text)
        except (ValueError, TypeError):
            continue
    if "string" in types:
        return text
    raise ValueError(f"expected {' or '.join(types)}")


# ---------------------------------------------------------------------- sample values

_EXAMPLE = re.compile(r"「([^」]+)」")


def sample_value(prop: dict) -> Any:
    """A plausible argument for one property: the first enum value, the minimum (else 3) of a
    number, True, an empty array or object, or the example quoted in 「」 in the description."""
    enum = prop.get("enum")
    if isinstance(enum, list) and enum:
        return enum[0]
    kind = prop.get("type")
    kind = kind[0] if isinstance(kind, list) and kind else kind
    if kind in ("integer", "number"):
        low, high = prop.get("minimum"), prop.get("maximum")
        value = 3 if low is None else low
        if isinstance(high, (int, float)) and value > high:
            value = high
        return int(value) if kind == "integer" else value
    if kind == "boolean":
        return True
    if kind == "array":
        return []
    if kind == "object":
        return {}
    description = prop.get("description") if isinstance(prop.get("description"), str) else ""
    example = _EXAMPLE.search(description)
    return example.group(1) if example else "示例"


def sample_arguments(schema: dict, only_required: bool = False) -> dict:
    """A sample value for every declared parameter (or only the required ones)."""
    props = schema.get("properties") if isinstance(schema, dict) else None
    required = schema.get("required", []) if isinstance(schema, dict) else []
    if not isinstance(props, dict):
        return {}
    return {name: sample_value(prop if isinstance(prop, dict) else {})
            for name, prop in props.items() if not only_required or name in required}
