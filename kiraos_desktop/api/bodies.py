"""Reading request bodies and query strings: JSON only, 1 MiB cap (chunked too), schema-checked."""
from __future__ import annotations

import json
import sys
from typing import Any
from urllib.parse import parse_qsl

from jsonschema import exceptions as js_exceptions
from jsonschema import validators

from kiraos_desktop.api.errors import ApiError, invalid, is_plugin_path
from kiraos_desktop.api.security import MAX_BODY_BYTES, is_json_content_type, not_json
from kiraos_desktop.core.jsontext import SURROGATE_MESSAGE, dotted_path, lone_surrogate_path, may_hold_surrogate
from kiraos_desktop.core.schema_messages import describe
from kiraos_desktop.core.schema_paths import error_field


def _reject_constant(name: str) -> Any:
    raise ValueError(f"{name} is not valid JSON")


class _RepeatedKey(ValueError):
    def __init__(self, key: str):
        super().__init__(key)
        self.key = key


def _object(pairs: list) -> dict:
    """An object whose keys are all different: with a repeated key, which value counts depends on the
    parser (here the last), so a body that a proxy or another tool reads one way is not read another."""
    data = dict(pairs)
    if len(data) != len(pairs):
        seen = set()
        for key, _ in pairs:
            if key in seen:
                raise _RepeatedKey(key)
            seen.add(key)
    return data


async def read_json(request) -> Any:
    """The parsed body. 415 unless JSON, 413 past 1 MiB (counted while reading), 400 when unparseable."""
    if not is_json_content_type(request.headers.get("content-type")):
        raise not_json()
    chunks: list[bytes] = []
    size = 0
    async for chunk in request.stream():
        size += len(chunk)
        if size > MAX_BODY_BYTES:
            raise ApiError(413, "body_too_large", f"the request body is larger than {MAX_BODY_BYTES} bytes")
        chunks.append(chunk)
    return decode_json(b"".join(chunks), plugin=is_plugin_path(request.scope["path"]))


# One decoder: json.loads() with an option builds a decoder (and its scanner) per call.
_DECODER = json.JSONDecoder(parse_constant=_reject_constant, object_pairs_hook=_object)


def decode_json(raw: bytes, plugin: bool = False) -> Any:
    """A request body parsed as UTF-8 JSON without NaN, Infinity or a key repeated within an object;
    ApiError 400 otherwise.

    Every string in it must be valid Unicode text: a lone surrogate escape is refused here, for
    every route, naming its field (422, or 400 on the plugin routes) before any handler sees it.
    """
    try:
        data = _DECODER.decode(raw.decode("utf-8"))
    except UnicodeDecodeError:
        message = "the request body is not UTF-8 text"
    except json.JSONDecodeError as exc:
        message = (f"the request body is not valid JSON: {exc.msg} (line {exc.lineno}, column {exc.colno})"
                   if raw.strip() else "the request body is empty; send a JSON object")
    except RecursionError:
        message = "the request body is not valid JSON: it is nested too deeply"
    except _RepeatedKey as exc:  # ASCII escapes: the key may hold a lone surrogate
        shown = json.dumps(exc.key[:40]) + ("..." if len(exc.key) > 40 else "")
        message = f"the request body repeats the key {shown} within one object; send each key once"
    except ValueError as exc:  # int() refuses numbers of more than 4300 digits
        message = (f"the request body is not valid JSON: {exc}" if "digits" not in str(exc) else
                   f"the request body holds a number of more than {sys.get_int_max_str_digits()} digits")
    else:
        if may_hold_surrogate(raw):
            path = lone_surrogate_path(data)
            if path is not None:
                field = dotted_path(path) or "body"
                raise invalid(field, f"{field}: {SURROGATE_MESSAGE}", plugin)
        return data
    raise ApiError(400, "invalid_json", message)


class BodySchema:
    """A JSON Schema used both to check request bodies and in the OpenAPI document."""

    def __init__(self, schema: dict):
        self.schema = schema
        self._validator = validators.Draft202012Validator(schema)

    def check(self, data: Any, plugin: bool = False) -> dict:
        """Return `data` when valid, else raise 422 (400 on plugin routes) naming the first bad field."""
        if self._validator.is_valid(data):
            return data
        failure = js_exceptions.best_match(self._validator.iter_errors(data), key=_error_rank)
        if failure is None:
            return data
        field = error_field(failure, "body")
        raise invalid(field, _message(failure, field), plugin)


def _error_rank(err: js_exceptions.ValidationError):
    # Prefer unknown and missing fields over deeper type errors: they are what the caller fixes first.
    return (err.validator not in ("additionalProperties", "required"), *js_exceptions.relevance(err))


def _message(err: js_exceptions.ValidationError, field: str) -> str:
    if err.validator == "additionalProperties":
        return f"{field}: unknown field; remove it (accepted: {', '.join(err.schema.get('properties', {}))})"
    if err.validator == "required":
        return f"{field}: required field is missing"
    if err.validator == "pattern":
        return f"{field}: must contain a non-blank character"
    return f"{field}: {describe(err)}"


def query_params(scope, allowed: frozenset[str], repeatable: frozenset[str] = frozenset()) -> dict[str, Any]:
    """Parse the query string; unknown or repeated (when not repeatable) parameters are a 422."""
    result: dict[str, Any] = {}
    raw = scope.get("query_string", b"")
    if not raw:
        return result
    try:
        pairs = parse_qsl(raw.decode("utf-8"), keep_blank_values=True, strict_parsing=False,
                          encoding="utf-8", errors="strict")
    except UnicodeDecodeError:
        raise invalid("query", "the query string is not valid UTF-8") from None
    for name, value in pairs:
        if name not in allowed:
            raise invalid(name, f"unknown query parameter {name!r}; accepted: {', '.join(sorted(allowed))}")
        if name in repeatable:
            result.setdefault(name, []).append(value)
        elif name in result:
            raise invalid(name, f"query parameter {name!r} given more than once")
        else:
            result[name] = value
    return result


def int_param(params: dict, name: str, minimum: int = 0, maximum: int = 10_000_000) -> int | None:
    value = params.get(name)
    if value is None:
        return None
    text = value.strip()
    digits = text.lstrip("0") or "0"  # int() refuses more than 4300 digits, leading zeros included
    if not text.isdigit() or not text.isascii() or len(digits) > len(str(maximum)):
        shown = repr(value) if len(value) <= 40 else f"a text of {len(value)} characters"
        raise invalid(name, f"must be a whole number from {minimum} to {maximum}, got {shown}")
    number = int(digits)
    if not minimum <= number <= maximum:
        raise invalid(name, f"must be a whole number from {minimum} to {maximum}, got {number}")
    return number
