"""Tells MCP clients when the tool or prompt list changed (a skill enabled, disabled, edited or reloaded).

The lists are compared once a second with the last ones sent: every way a skill changes (the
workbench, Settings, POST /v1/skills/reload, another process writing the folder or saving
settings.json) is caught the same way. Handshake-era sessions get `notifications/*/list_changed` on their standalone stream;
2026-era clients get them on their `subscriptions/listen` stream (through the bus).
"""
from __future__ import annotations

import contextlib
import json
import logging

import anyio
from mcp.server.subscriptions import PromptsListChanged, ToolsListChanged
from mcp.types import NotificationParams

from kiraos_desktop.api.mcp.sessions import ReadySessions, session_key

log = logging.getLogger(__name__)

CHECK_INTERVAL_S = 1.0


class ListChangeNotifier:
    """Remembers the open sessions and notifies them when a list changes. (What other programs
    write to the skills folder and settings.json the engine adopts: core/disk_follow.py.)"""

    def __init__(self, engine, bus, interval: float = CHECK_INTERVAL_S, sessions: ReadySessions | None = None):
        self._tools = engine.tools
        self._skills = engine.skills
        self._bus = bus
        self._interval = interval
        self.sessions = sessions if sessions is not None else ReadySessions()
        self._last = self.signatures()

    def signatures(self) -> tuple[str, str]:
        """What tools/list and prompts/list show, as comparable texts."""
        tools = [(d.name, d.description, d.input_schema) for d in self._tools.descriptors()]
        prompts = [(s.name, s.description, s.tool_description, s.parameters) for s in self._skills.enabled_skills()]
        return (json.dumps(tools, sort_keys=True, default=str), json.dumps(prompts, sort_keys=True, default=str))

    def attach(self, server) -> None:
        """Hear of every session that finishes its handshake (they are the ones to notify)."""
        server.add_notification_handler("notifications/initialized", NotificationParams, self._initialized)

    async def _initialized(self, ctx, params) -> None:
        # ctx.session's list_changed senders use the connection's standalone channel, whichever
        # request the session object came with.
        self.sessions.add(session_key(ctx), ctx.session)

    @contextlib.asynccontextmanager
    async def watching(self):
        async with anyio.create_task_group() as group:
            group.start_soon(self._watch)
            try:
                yield self
            finally:
                group.cancel_scope.cancel()

    async def _watch(self) -> None:
        while True:
            await anyio.sleep(self._interval)
            try:
                await self.check()
            except Exception:  # a failed check must not end the notifications for good
                log.exception("checking the MCP tool and prompt lists failed")

    async def check(self) -> None:
        """Notify the sessions of the lists that changed."""
        self.sessions.prune()
        current = self.signatures()
        tools_changed, prompts_changed = current[0] != self._last[0], current[1] != self._last[1]
        self._last = current
        if tools_changed:
            await self._notify("send_tool_list_changed", ToolsListChanged())
        if prompts_changed:
            await self._notify("send_prompt_list_changed", PromptsListChanged())

    async def _notify(self, method: str, event) -> None:
        await self._bus.publish(event)
        for key, session in self.sessions.items():
            try:
                await getattr(session, method)()
            except Exception as exc:  # the session ended meanwhile
                log.debug("could not notify an MCP session: %s", exc)
                self.sessions.discard(key)
