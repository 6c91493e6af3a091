"""Which field a JSON Schema error is about, as a dotted path (request bodies and skill arguments)."""
from __future__ import annotations

import re

from jsonschema import exceptions as js_exceptions


def error_field(err: js_exceptions.ValidationError, root: str) -> str:
    """The dotted path of the field `err` is about (`operations.0.key`); for a missing or unknown
    field, the path of that field; `root` when the error is about the whole instance."""
    path = [str(p) for p in err.absolute_path]
    schema = err.schema if isinstance(err.schema, dict) else {}
    if err.validator == "required" and isinstance(err.instance, dict) and isinstance(err.validator_value, list):
        path += [str(name) for name in err.validator_value if name not in err.instance][:1]
    elif err.validator == "additionalProperties" and isinstance(err.instance, dict):
        known = schema.get("properties", {})
        patterns = schema.get("patternProperties", {})
        path += [str(key) for key in err.instance
                 if key not in known and not any(re.search(p, key) for p in patterns)][:1]
    return ".".join(path) or root
