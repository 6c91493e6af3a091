"""/v1 routes for the prompt: health, context, inject and slash commands."""
from __future__ import annotations

from starlette.routing import Route

from kiraos_desktop import __version__
from kiraos_desktop.api.bodies import int_param, query_params, read_json
from kiraos_desktop.api.errors import from_store_error, invalid, json_reply
from kiraos_desktop.api.inject import inject
from kiraos_desktop.api.security import AUTHORIZED
from kiraos_desktop.api.schemas import COMMAND_BODY, INJECT_BODY, MAX_CHARS_LIMIT, MAX_USERS_PER_REQUEST
from kiraos_desktop.core.memory.records import StoreError, check_user_id

CONTEXT_PARAMS = frozenset({"user_id", "max_chars", "query"})
REPEATABLE = frozenset({"user_id"})


def check_user_ids(user_ids: list, field: str) -> list[str]:
    if len(user_ids) > MAX_USERS_PER_REQUEST:
        raise invalid(field, f"at most {MAX_USERS_PER_REQUEST} users per request, got {len(user_ids)}")
    for uid in user_ids:
        try:
            check_user_id(uid)
        except StoreError as exc:
            raise from_store_error(exc) from None
    return user_ids


def check_query(query) -> str | None:
    """The current message a block is made for: None or text (of any length: only its start is read)."""
    if query is not None and not isinstance(query, str):
        raise invalid("query", "must be text (the current message)")
    return query


def v1_routes(engine, workers) -> list[Route]:
    context = engine.context

    async def health(request):
        # Without the token only that it is up: what the memory holds is not any local process's business.
        if not request.scope.get("state", {}).get(AUTHORIZED, True):  # absent: no guard in front (tests)
            return json_reply({"status": "ok", "version": __version__})

        def read():
            return {"status": "ok", "version": __version__, "users": engine.store.count_users(),
                    "skills": len(engine.skills.enabled_skills())}

        return json_reply(await workers.read(read))

    async def get_context(request):
        params = query_params(request.scope, CONTEXT_PARAMS, REPEATABLE)
        user_ids = params.get("user_id")
        if not user_ids:
            raise invalid("user_id", "give at least one user_id query parameter")
        check_user_ids(user_ids, "user_id")
        max_chars = int_param(params, "max_chars", 0, MAX_CHARS_LIMIT)
        query = check_query(params.get("query"))
        # Cached blocks are answered on the event loop; building one reads SQLite, so it runs in a thread.
        result = None if query else context.build_cached(user_ids, max_chars=max_chars)
        if result is None:
            result = await workers.read(context.build, user_ids, max_chars, None, query)
        return json_reply({"context": result.text, "users": result.users, "truncated": result.truncated})

    async def post_inject(request):
        body = INJECT_BODY.check(await read_json(request))
        user_ids = check_user_ids(body["user_ids"], "user_ids")
        query = check_query(body.get("query"))
        memory = context.build_cached(user_ids) if user_ids and not query else None
        if memory is None and user_ids:
            memory = await workers.read(context.build, user_ids, None, None, query)
        names = [skill.name for skill in engine.skills.enabled_skills()]
        system, injected = inject(body["system"], memory.text if memory else "", names)
        return json_reply({"system": system, "injected": injected})

    async def post_commands(request):
        body = COMMAND_BODY.check(await read_json(request))
        check_user_ids([body["user_id"]], "user_id")
        if not engine.settings.enable_slash_commands:
            return json_reply({"matched": False})
        match = engine.skills.match_command(body["text"])
        if match is None:
            return json_reply({"matched": False})
        return json_reply({"matched": True, "skill": match.skill, "command": match.command,
                           "args_text": match.args_text, "rewritten": match.rewritten})

    return [
        Route("/v1/health", health, methods=["GET"]),
        Route("/v1/context", get_context, methods=["GET"]),
        Route("/v1/inject", post_inject, methods=["POST"]),
        Route("/v1/commands", post_commands, methods=["POST"]),
    ]
