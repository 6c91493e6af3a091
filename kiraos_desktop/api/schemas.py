"""JSON Schemas of request bodies and replies: one source for validation and the OpenAPI document."""
from __future__ import annotations

from kiraos_desktop.api.bodies import BodySchema
from kiraos_desktop.core.memory.records import CATEGORIES, MAX_EVENT_CHARS, MAX_KEY_CHARS, MAX_USER_ID_CHARS, MAX_VALUE_CHARS

MAX_USERS_PER_REQUEST = 100
#: The largest max_chars a context request may ask for (route, fast path and OpenAPI document).
MAX_CHARS_LIMIT = 1_000_000
NON_BLANK = r"\S"

USER_ID = {"type": "string", "minLength": 1, "maxLength": MAX_USER_ID_CHARS, "pattern": NON_BLANK,
           "description": "user id as the bot host knows it (e.g. qq_123)"}
TEXT = {"type": "string"}
BOOL = {"type": "boolean"}
COUNT = {"type": "integer", "minimum": 0}


def obj(properties: dict, required=(), additional: bool = False, **extra) -> dict:
    schema = {"type": "object", "properties": properties, "additionalProperties": additional}
    if required:
        schema["required"] = list(required)
    schema.update(extra)
    return schema


# ---------------------------------------------------------------------------------- requests

SECTION = obj({"name": TEXT, "content": TEXT}, ["name", "content"])
INJECT = obj({
    "user_ids": {"type": "array", "items": USER_ID, "maxItems": MAX_USERS_PER_REQUEST},
    "system": {"anyOf": [TEXT, {"type": "array", "items": SECTION}]},
    "query": {"type": "string",
              "description": "the current message: the user's events relevant to it come first"},
}, ["user_ids", "system"])
TOOL_CALL = obj({"user_id": USER_ID, "arguments": {"type": "object", "description": "the tool's arguments"}},
                ["user_id"])
COMMAND = obj({"user_id": USER_ID, "text": TEXT}, ["user_id", "text"])
PROFILE_PUT = obj({
    "value": {"anyOf": [{"type": "string", "minLength": 1, "maxLength": MAX_VALUE_CHARS, "pattern": NON_BLANK},
                        {"type": "number"}]},
    "confidence": {"type": "number", "minimum": 0, "maximum": 1},
    "category": {"type": "string", "enum": list(CATEGORIES)},
    "expires_at": {"type": ["string", "null"],
                   "description": "ISO-8601 date or date-time (naive local time); null or empty: never"},
}, ["value"])
EVENT_BODY = obj({"event_summary": {"type": "string", "minLength": 1, "maxLength": MAX_EVENT_CHARS,
                                    "pattern": NON_BLANK}}, ["event_summary"])

INJECT_BODY = BodySchema(INJECT)
TOOL_CALL_BODY = BodySchema(TOOL_CALL)
COMMAND_BODY = BodySchema(COMMAND)
PROFILE_PUT_BODY = BodySchema(PROFILE_PUT)
EVENT_BODY_SCHEMA = BodySchema(EVENT_BODY)
KEY = {"type": "string", "minLength": 1, "maxLength": MAX_KEY_CHARS}

# ---------------------------------------------------------------------------------- replies

ERROR = obj({"error": obj({"code": TEXT, "message": TEXT, "details": {"type": "object"}}, ["code", "message"])},
            ["error"])
PLUGIN_ERROR = obj({"error": TEXT}, ["error"])
HEALTH = obj({"status": {"type": "string", "enum": ["ok"]}, "version": TEXT, "users": COUNT, "skills": COUNT},
             ["status", "version"])  # the counts only with the token
CONTEXT = obj({"context": TEXT, "users": {"type": "array", "items": TEXT}, "truncated": BOOL},
              ["context", "users", "truncated"])
INJECT_REPLY = obj({"system": INJECT["properties"]["system"], "injected": BOOL}, ["system", "injected"])
TOOLS = obj({"tools": {"type": "array", "items": {"type": "object"}}}, ["tools"])
TOOL_RESULT = obj({"tool": TEXT, "content": TEXT, "is_error": BOOL}, ["tool", "content", "is_error"])
COMMAND_REPLY = obj({"matched": BOOL, "skill": TEXT, "command": TEXT, "args_text": TEXT, "rewritten": TEXT},
                    ["matched"])
PROBLEM = obj({"severity": {"type": "string", "enum": ["error", "warning"]}, "field": TEXT, "message": TEXT,
               "file": TEXT, "line": {"type": ["integer", "null"]}}, ["severity", "field", "message", "file", "line"])
SKILL = obj({
    "name": TEXT, "folder": TEXT, "description": TEXT, "trigger": TEXT, "exclude": TEXT,
    "command": {"type": ["string", "null"]}, "parameters": {"type": "object"},
    "template": {"type": "string", "enum": ["plain", "jinja2"]}, "enabled": BOOL, "valid": BOOL,
    "format": {"type": "string", "enum": ["kiraos", "agent"],
               "description": "kiraos: manifest.json + instruction.md; agent: an Agent Skills SKILL.md folder"},
    "problems": {"type": "array", "items": PROBLEM},
}, ["name", "folder", "description", "trigger", "exclude", "command", "parameters", "template", "enabled",
    "valid", "format", "problems"])
SKILLS = obj({"skills": {"type": "array", "items": SKILL}}, ["skills"])

STATS = obj({"total_users": COUNT, "total_profiles": COUNT, "total_events": COUNT},
            ["total_users", "total_profiles", "total_events"])
USER_ROW = obj({"user_id": TEXT, "profile_count": COUNT, "event_count": COUNT},
               ["user_id", "profile_count", "event_count"])
USERS = {"type": "array", "items": USER_ROW}
PROFILE_ROW = obj({
    "key": TEXT, "value": TEXT, "updated_at": {"type": ["string", "null"]}, "confidence": {"type": "number"},
    "category": TEXT, "expires_at": {"type": ["string", "null"]},
}, ["key", "value", "updated_at", "confidence", "category", "expires_at"])
EVENT_ROW = obj({"id": {"type": "integer"}, "event_summary": TEXT, "created_at": {"type": ["string", "null"]}},
                ["id", "event_summary", "created_at"])
USER_DETAIL = obj({"user_id": TEXT, "profiles": {"type": "array", "items": PROFILE_ROW},
                   "events": {"type": "array", "items": EVENT_ROW}}, ["user_id", "profiles", "events"])
OK = obj({"ok": {"type": "boolean", "enum": [True]}}, ["ok"])
PROFILE_SAVED = obj({"ok": {"type": "boolean", "enum": [True]}, "key": TEXT, "value": TEXT}, ["ok", "key", "value"])
USER_CLEARED = obj({"ok": {"type": "boolean", "enum": [True]}, "profiles_deleted": COUNT, "events_deleted": COUNT},
                   ["ok", "profiles_deleted", "events_deleted"])
