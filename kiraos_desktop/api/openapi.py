"""The hand-written OpenAPI 3.1 document of every route, served at /v1/openapi.json."""
from __future__ import annotations

import copy

from kiraos_desktop import __version__
from kiraos_desktop.api import schemas as s
from kiraos_desktop.api.security import MAX_BODY_BYTES

_V1_ERRORS = {
    400: "the body is not valid JSON (or a malformed header)",
    401: "missing or wrong bearer token",
    403: "the Host or Origin header is not allowed",
    404: "no such tool, skill or route",
    413: f"the body is larger than {MAX_BODY_BYTES} bytes",
    415: "the body is not JSON (Content-Type must be application/json)",
    422: "a field is missing, unknown or invalid; details.field names it",
}
_PLUGIN_ERRORS = {
    400: "invalid input (bad JSON, unknown or invalid field, profile limit reached)",
    401: "missing or wrong bearer token",
    403: "the Host or Origin header is not allowed",
    404: "no such user entry, event or route",
    413: _V1_ERRORS[413],
    415: _V1_ERRORS[415],
}

USER_ID_PATH = {"name": "user_id", "in": "path", "required": True, "schema": s.USER_ID}
KEY_PATH = {"name": "key", "in": "path", "required": True, "schema": s.KEY}
EVENT_ID_PATH = {"name": "event_id", "in": "path", "required": True,
                 "schema": {"type": "integer", "minimum": 0}}


def _json(schema: dict, description: str = "OK") -> dict:
    return {"description": description, "content": {"application/json": {"schema": schema}}}


def _op(summary: str, reply: dict, codes=(), *, body: dict | None = None, example=None, params=(),
        plugin: bool = False, public: bool = False) -> dict:
    """One operation: its 200 reply and the error replies it can give, in the route family's shape."""
    errors, shape = (_PLUGIN_ERRORS, s.PLUGIN_ERROR) if plugin else (_V1_ERRORS, s.ERROR)
    codes = set(codes) | {403} | (set() if public else {401})
    if body is not None:
        codes |= {400, 413, 415}
    responses = {"200": _json(reply)}
    for code in sorted(codes):
        responses[str(code)] = _json(shape, errors[code])
    op = {"summary": summary, "responses": responses}
    if params:
        op["parameters"] = list(params)
    if body is not None:
        media = {"schema": body}
        if example is not None:
            media["example"] = example
        op["requestBody"] = {"required": True, "content": {"application/json": media}}
    if public:
        op["security"] = []
    return copy.deepcopy(op)


def build_openapi() -> dict:
    call_example = {"user_id": "qq_100001", "arguments": {"operations": [
        {"op": "set", "key": "城市", "value": "杭州", "category": "basic", "confidence": 0.9},
        {"op": "event", "value": "完成半马"}]}}
    plugin = {"plugin": True}
    paths = {
        "/v1/health": {"get": _op("Liveness and version (no token needed); the counts of users and skills with the token", s.HEALTH, public=True)},
        "/v1/context": {"get": _op(
            "The memory block of one or more users, ready for a system prompt", s.CONTEXT, [422], params=[
                {"name": "user_id", "in": "query", "required": True, "style": "form", "explode": True,
                 "schema": {"type": "array", "items": s.USER_ID, "minItems": 1,
                            "maxItems": s.MAX_USERS_PER_REQUEST}},
                {"name": "max_chars", "in": "query", "required": False,
                 "description": "character budget per user (0: unlimited; default: the setting)",
                 "schema": {"type": "integer", "minimum": 0, "maximum": s.MAX_CHARS_LIMIT}},
                {"name": "query", "in": "query", "required": False,
                 "description": "the current message: the user's events relevant to it come first",
                 "schema": {"type": "string"}},
            ])},
        "/v1/inject": {"post": _op(
            "Append the memory block (section `memory`, else the last one) and the skill list line "
            "(section `tools`, else the last one) to a system prompt", s.INJECT_REPLY, [422],
            body=s.INJECT, example={"user_ids": ["qq_100001"], "system": [
                {"name": "persona", "content": "你是小助手。"}, {"name": "memory", "content": ""}]})},
        "/v1/tools": {"get": _op("The memory tools and enabled skills in one provider's tool shape", s.TOOLS,
                                 [422], params=[{"name": "format", "in": "query", "required": False,
                                                 "schema": {"type": "string", "enum": ["openai", "anthropic", "mcp"],
                                                            "default": "openai"}}])},
        "/v1/tools/{name}": {"post": _op(
            "Run a tool for a user (actor `tool` in the audit log)", s.TOOL_RESULT, [404, 422],
            params=[{"name": "name", "in": "path", "required": True, "example": "memory_update",
                     "schema": {"type": "string", "minLength": 1}}],
            body=s.TOOL_CALL, example=call_example)},
        "/v1/commands": {"post": _op(
            "Match a slash command of an enabled skill (always unmatched when slash commands are off)",
            s.COMMAND_REPLY, [422], body=s.COMMAND, example={"user_id": "qq_100001", "text": "/tarot 面试"})},
        "/v1/skills": {"get": _op("Every skill found, with its problems", s.SKILLS)},
        "/v1/skills/reload": {"post": _op("Rescan the skills folder; returns the new list", s.SKILLS)},
        "/v1/skills/{name}": {"get": _op("One skill with its problems, by name or else by folder name", s.SKILL, [404], params=[
            {"name": "name", "in": "path", "required": True, "schema": {"type": "string", "minLength": 1}}])},
        "/v1/openapi.json": {"get": _op("This document", {"type": "object"})},
        "/api/stats": {"get": _op("Totals (plugin WebUI route)", s.STATS, **plugin)},
        "/api/users": {"get": _op("Every user with counts (plugin WebUI route)", s.USERS, **plugin)},
        "/api/users/{user_id}": {
            "get": _op("A user's profile entries (expired included) and newest 200 events", s.USER_DETAIL,
                       [400, 404], params=[USER_ID_PATH], **plugin),
            "delete": _op("Clear a user's memory (actor `api`)", s.USER_CLEARED, [400, 404],
                          params=[USER_ID_PATH], **plugin),
        },
        "/api/users/{user_id}/profiles/{key}": {
            "put": _op("Create or replace a profile entry; omitted fields take their defaults "
                       "(confidence 0.5, category basic, no expiry)", s.PROFILE_SAVED, [404],
                       params=[USER_ID_PATH, KEY_PATH], body=s.PROFILE_PUT,
                       example={"value": "北京", "confidence": 0.9, "category": "basic"}, **plugin),
            "delete": _op("Delete a profile entry", s.OK, [400, 404], params=[USER_ID_PATH, KEY_PATH], **plugin),
        },
        "/api/users/{user_id}/events": {
            "post": _op("Add an event (at most 1000 characters)", s.OK, [404], params=[USER_ID_PATH],
                        body=s.EVENT_BODY, example={"event_summary": "完成半马"}, **plugin)},
        "/api/users/{user_id}/events/{event_id}": {
            "put": _op("Change an event of this user", s.OK, [404], params=[USER_ID_PATH, EVENT_ID_PATH],
                       body=s.EVENT_BODY, example={"event_summary": "完成全马"}, **plugin),
            "delete": _op("Delete an event of this user", s.OK, [400, 404], params=[USER_ID_PATH, EVENT_ID_PATH],
                          **plugin),
        },
    }
    return {
        "openapi": "3.1.0",
        "info": {"title": "KiraOS Desktop loopback API", "version": __version__,
                 "description": "Memory, tools and skills for chatbot hosts. Send `Authorization: Bearer "
                                "<token>` (`kiraos-desktop token` prints it) to every route but /v1/health."},
        "servers": [{"url": "/"}],
        "components": {"securitySchemes": {"bearer": {"type": "http", "scheme": "bearer"}}},
        "security": [{"bearer": []}],
        "paths": paths,
    }
