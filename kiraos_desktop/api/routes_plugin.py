"""The KiraOS plugin WebUI's REST routes under /api: same paths, bodies and replies, but validated."""
from __future__ import annotations

from starlette.routing import Route

from kiraos_desktop.api.bodies import read_json
from kiraos_desktop.api.errors import ApiError, from_store_error, json_reply
from kiraos_desktop.api.schemas import EVENT_BODY_SCHEMA, PROFILE_PUT_BODY
from kiraos_desktop.core.memory.records import StoreError, check_user_id

#: Writes made through the API are audited with this actor.
API_ACTOR = "api"
DETAIL_EVENTS = 200
MAX_SQLITE_INT = 2 ** 63 - 1
_MAX_ID_DIGITS = len(str(MAX_SQLITE_INT))  # checked before int(), which refuses past 4300 digits


def plugin_not_found(message: str) -> ApiError:
    return ApiError(404, "not_found", message)


def _text_or_none(value) -> str | None:
    return None if value is None else str(value)


async def _store_call(run, fn, *args, **kwargs):
    """Run a store call off the event loop (SQLite may wait for a lock); core errors become 400."""
    try:
        return await run(fn, *args, **kwargs)
    except StoreError as exc:
        raise from_store_error(exc, plugin=True) from None


def _user_id(request) -> str:
    user_id = request.path_params["user_id"]
    try:
        return check_user_id(user_id)
    except StoreError as exc:
        raise from_store_error(exc, plugin=True) from None


def _event_id(request) -> int:
    raw = request.path_params["event_id"]
    digits = raw.lstrip("0") or "0"
    if not (raw.isascii() and raw.isdigit()) or len(digits) > _MAX_ID_DIGITS or int(digits) > MAX_SQLITE_INT:
        shown = repr(raw) if len(raw) <= 40 else f"with an id of {len(raw)} characters"
        raise plugin_not_found(f"event {shown} not found")
    return int(digits)


def plugin_routes(engine, workers) -> list[Route]:
    store = engine.store
    read, write = workers.read, workers.write

    async def stats(request):
        s = await _store_call(read, store.stats)
        return json_reply({"total_users": s.total_users, "total_profiles": s.total_profiles,
                           "total_events": s.total_events})

    async def users(request):
        rows = await _store_call(read, store.list_users, "", False, "user_id", False, 0, -1)
        return json_reply([{"user_id": r.user_id, "profile_count": r.profile_count, "event_count": r.event_count}
                           for r in rows])

    async def user_detail(request):
        user_id = _user_id(request)

        def read_user():
            return store.get_profiles(user_id, include_expired=True), store.get_events(user_id, limit=DETAIL_EVENTS)

        profiles, events = await _store_call(read, read_user)
        return json_reply({
            "user_id": user_id,
            "profiles": [{"key": p.key, "value": str(p.value), "updated_at": _text_or_none(p.updated_at),
                          "confidence": p.confidence, "category": p.category,
                          "expires_at": _text_or_none(p.expires_at)} for p in profiles],
            "events": [{"id": e.id, "event_summary": str(e.summary), "created_at": _text_or_none(e.created_at)}
                       for e in events],
        })

    async def put_profile(request):
        user_id, key = _user_id(request), request.path_params["key"]
        body = PROFILE_PUT_BODY.check(await read_json(request), plugin=True)
        entry = await _store_call(write, store.set_profile, user_id, key, body["value"], actor=API_ACTOR,
                                  confidence=body.get("confidence", 0.5), category=body.get("category", "basic"),
                                  expires_at=body.get("expires_at"))
        return json_reply({"ok": True, "key": entry.key, "value": entry.value})

    async def delete_profile(request):
        user_id, key = _user_id(request), request.path_params["key"]
        if not await _store_call(write, store.delete_profile, user_id, key, actor=API_ACTOR):
            raise plugin_not_found(f"profile entry {key!r} of user {user_id!r} not found")
        return json_reply({"ok": True})

    async def add_event(request):
        user_id = _user_id(request)
        body = EVENT_BODY_SCHEMA.check(await read_json(request), plugin=True)
        await _store_call(write, store.add_event, user_id, body["event_summary"], actor=API_ACTOR)
        return json_reply({"ok": True})

    async def update_event(request):
        user_id, event_id = _user_id(request), _event_id(request)
        body = EVENT_BODY_SCHEMA.check(await read_json(request), plugin=True)
        if not await _store_call(write, store.update_event, user_id, event_id, body["event_summary"], actor=API_ACTOR):
            raise plugin_not_found(f"event {event_id} of user {user_id!r} not found")
        return json_reply({"ok": True})

    async def delete_event(request):
        user_id, event_id = _user_id(request), _event_id(request)
        if not await _store_call(write, store.delete_event, user_id, event_id, actor=API_ACTOR):
            raise plugin_not_found(f"event {event_id} of user {user_id!r} not found")
        return json_reply({"ok": True})

    async def clear_user(request):
        user_id = _user_id(request)
        profiles, events = await _store_call(write, store.clear_user, user_id, actor=API_ACTOR)
        return json_reply({"ok": True, "profiles_deleted": profiles, "events_deleted": events})

    return [
        Route("/api/stats", stats, methods=["GET"]),
        Route("/api/users", users, methods=["GET"]),
        by_method("/api/users/{user_id}", GET=user_detail, DELETE=clear_user),
        by_method("/api/users/{user_id}/profiles/{key}", PUT=put_profile, DELETE=delete_profile),
        Route("/api/users/{user_id}/events", add_event, methods=["POST"]),
        by_method("/api/users/{user_id}/events/{event_id}", PUT=update_event, DELETE=delete_event),
    ]


def by_method(path: str, **handlers) -> Route:
    """One route per path, so a 405 lists every method of the path in `Allow`."""
    async def dispatch(request):
        return await handlers["GET" if request.method == "HEAD" else request.method](request)

    return Route(path, dispatch, methods=list(handlers))
