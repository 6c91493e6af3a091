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
import os

import anyio
from mcp.server.subscriptions import PromptsListChanged, ToolsListChanged
from mcp.types import NotificationParams

from kiraos_desktop.api.mcp.sessions import ReadySessions, session_key
from kiraos_desktop.core.settings import SettingsError

log = logging.getLogger(__name__)

CHECK_INTERVAL_S = 1.0


def skills_fingerprint(skills_dir) -> tuple:
    """Names, sizes and modification times of the skills folder's entries and of their files."""
    found = []
    try:
        entries = sorted(os.scandir(skills_dir), key=lambda e: e.name)
    except OSError:
        return ()
    for entry in entries:
        try:
            stat = entry.stat()
            found.append((entry.name, stat.st_mtime_ns, stat.st_size))
            if entry.is_dir():
                for child in sorted(os.scandir(entry.path), key=lambda e: e.name):
                    child_stat = child.stat()
                    found.append((entry.name, child.name, child_stat.st_mtime_ns, child_stat.st_size))
        except OSError:  # vanished while we looked: the next look sees the new state
            found.append((entry.name, None))
    return tuple(found)


def file_stamp(path) -> tuple | None:
    """What changes when a file is replaced or rewritten: inode, size, modification time."""
    try:
        stat = os.stat(path)
    except OSError:
        return None
    return (stat.st_ino, stat.st_size, stat.st_mtime_ns)


class ListChangeNotifier:
    """Remembers the open sessions and notifies them when a list changes.

    `follow_disk`: reload the skills when their folder changed on disk, and the settings (disabled
    skills among them) when settings.json did (the stdio server, whose skills and settings the
    window or `serve` edit; those reload their own when they save them).
    """

    def __init__(self, engine, bus, follow_disk: bool = False, interval: float = CHECK_INTERVAL_S,
                 sessions: ReadySessions | None = None):
        self._engine = engine
        self._tools = engine.tools
        self._skills = engine.skills
        self._bus = bus
        self._follow_disk = follow_disk
        self._interval = interval
        self.sessions = sessions if sessions is not None else ReadySessions()
        self._last = self.signatures()
        self._disk = skills_fingerprint(self._skills.skills_dir) if follow_disk else ()
        self._settings_file = engine.paths.settings_file
        self._settings_stamp = file_stamp(self._settings_file) if follow_disk else None

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
        """Reload from disk if asked and needed; notify the sessions of the lists that changed."""
        if self._follow_disk:
            disk = await anyio.to_thread.run_sync(skills_fingerprint, self._skills.skills_dir)
            if disk != self._disk:
                self._disk = disk
                await anyio.to_thread.run_sync(self._skills.reload)
            stamp = await anyio.to_thread.run_sync(file_stamp, self._settings_file)
            if stamp != self._settings_stamp:
                self._settings_stamp = stamp
                try:
                    await anyio.to_thread.run_sync(self._engine.reload_settings)
                except SettingsError as exc:  # being edited by hand, say: the settings in use stay
                    log.warning("settings not reloaded: %s", exc)
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
