"""The MCP server (the official SDK's low-level Server): our tools, skills as prompts, the context resource.

Everything is read from the engine on each request, so the lists follow the skills as they change.
Tool calls run through the same ToolCaller as POST /v1/tools/{name}: same checks, same result text.
"""
from __future__ import annotations

import copy
import logging
import re
from typing import Any
from urllib.parse import parse_qsl, unquote, urlsplit

import mcp.types as types
from mcp.server.lowlevel import NotificationOptions, Server
from mcp.server.subscriptions import InMemorySubscriptionBus, ListenHandler
from mcp.shared.exceptions import MCPError
from mcp_types import INTERNAL_ERROR, INVALID_PARAMS

from kiraos_desktop import __version__
from kiraos_desktop.api.errors import ApiError
from kiraos_desktop.api.routes_v1 import check_user_ids
from kiraos_desktop.api.schemas import USER_ID
from kiraos_desktop.api.tool_calls import ToolCaller
from kiraos_desktop.core import jsontext
from kiraos_desktop.core.skills import SkillArgumentError, SkillRenderError, UnknownSkillError, validate_arguments
from kiraos_desktop.core.tool_registry import ToolArgumentError, UnknownToolError

log = logging.getLogger(__name__)

SERVER_NAME = "kiraos-desktop"
USER_ID_ARGUMENT = "user_id"
CONTEXT_URI_TEMPLATE = "kiraos://users/{user_id}/context"
_CONTEXT_URI = re.compile(r"kiraos://users/([^/?#]+)/context")
INSTRUCTIONS = ("Long-term memory and skills of a chatbot. Every tool takes the user_id of the person the bot "
                "talks to; call memory_update when you learn something worth keeping about them, read "
                f"{CONTEXT_URI_TEMPLATE} (or call memory_query) to recall it.")
_USER_ID_SCHEMA = dict(USER_ID, description="该用户的 ID（机器人平台上的用户标识，例如 qq_123）")


def mcp_tool_schema(input_schema: dict) -> dict:
    """A tool's input schema with the required `user_id` string the MCP call carries."""
    schema = copy.deepcopy(input_schema)
    properties = dict(schema.get("properties") or {})
    properties[USER_ID_ARGUMENT] = dict(_USER_ID_SCHEMA)
    schema["properties"] = properties
    required = [name for name in schema.get("required") or [] if name != USER_ID_ARGUMENT]
    schema["required"] = [USER_ID_ARGUMENT] + required
    schema.setdefault("type", "object")
    return schema


def prompt_arguments(skill) -> list[types.PromptArgument]:
    """A skill's parameters as prompt arguments (required ones marked), then an optional user_id."""
    parameters = skill.parameters or {}
    required = set(parameters.get("required") or [])
    arguments = []
    for name, spec in (parameters.get("properties") or {}).items():
        if name == USER_ID_ARGUMENT:
            continue
        description = spec.get("description") if isinstance(spec, dict) else None
        arguments.append(types.PromptArgument(name=name, description=description, required=name in required))
    arguments.append(types.PromptArgument(
        name=USER_ID_ARGUMENT, required=False,
        description="optional: the user whose memory the instruction includes, as the skill tool would"))
    return arguments


def coerce_prompt_arguments(parameters: dict, values: dict[str, str]) -> dict[str, Any]:
    """Prompt arguments arrive as strings: give each the type its parameter declares (JSON for the
    non-string types); a text that does not parse stays as it is, and the schema check names it."""
    properties = (parameters or {}).get("properties") or {}
    result: dict[str, Any] = {}
    for name, text in values.items():
        spec = properties.get(name)
        kind = spec.get("type") if isinstance(spec, dict) else None
        texts = kind in (None, "string") or (isinstance(kind, list) and "string" in kind)
        if texts or not isinstance(text, str):
            result[name] = text
            continue
        try:
            result[name] = jsontext.loads(text)  # lone surrogates refused too (a ValueError)
        except ValueError:
            result[name] = text
    return result


def parse_context_uri(uri: str) -> tuple[str, dict[str, str]]:
    """(user_id, query options) of `kiraos://users/{user_id}/context[?...]`; ValueError otherwise.

    Read as written: urlsplit would drop a tab, CR or LF (another user's block), and %-escapes that
    are not UTF-8 would become U+FFFD, so both are refused."""
    parts = urlsplit(uri)
    match = _CONTEXT_URI.fullmatch(f"{parts.scheme}://{parts.netloc}{parts.path}")
    if match is None or parts.fragment or any(c in uri for c in "\t\r\n"):
        raise ValueError(f"unknown resource {uri!r}; the context resource is {CONTEXT_URI_TEMPLATE}")
    options: dict[str, str] = {}
    try:
        user_id = unquote(match.group(1), errors="strict")
        pairs = parse_qsl(parts.query, keep_blank_values=True, errors="strict")
    except UnicodeDecodeError:
        raise ValueError(f"{uri!r} holds %-escapes that are not UTF-8; percent-encode the UTF-8 bytes of "
                         "the text") from None
    for name, value in pairs:
        if name in options:
            raise ValueError(f"{name} is given twice in {uri!r}")
        options[name] = value
    return user_id, options


def _text_result(text: str, is_error: bool) -> types.CallToolResult:
    return types.CallToolResult(content=[types.TextContent(type="text", text=text)], is_error=is_error)


class McpHandlers:
    """The request handlers of one MCP server; stateless apart from the engine they read."""

    #: Query options of the context resource: `query`, the current message (as GET /v1/context).
    CONTEXT_OPTIONS: frozenset[str] = frozenset({"query"})

    def __init__(self, engine, caller: ToolCaller, workers):
        self._engine = engine
        self._tools = engine.tools
        self._skills = engine.skills
        self._caller = caller
        self._workers = workers

    # ---- tools -------------------------------------------------------------------------

    def tool_list(self) -> list[types.Tool]:
        return [types.Tool(name=d.name, description=d.description, input_schema=mcp_tool_schema(d.input_schema))
                for d in self._tools.descriptors()]

    def tool_input_schema(self, name: str) -> dict | None:
        """The input schema tools/list shows for `name`, None for no such tool: the SDK checks a
        2026-era call's Mcp-Param-* headers against it (else it runs tools/list for every call)."""
        try:
            return mcp_tool_schema(self._tools.descriptor(name).input_schema)
        except UnknownToolError:
            return None

    async def list_tools(self, ctx, params) -> types.ListToolsResult:
        return types.ListToolsResult(tools=self.tool_list())

    async def call_tool(self, ctx, params: types.CallToolRequestParams) -> types.CallToolResult:
        return _text_result(*await self.tool_result(params.name, params.arguments or {}))

    async def tool_result(self, name: str, arguments: dict) -> tuple[str, bool]:
        """(text, is_error) of a tools/call: the SDK's handler and the /mcp fast path both answer with it."""
        arguments = dict(arguments)
        body: dict[str, Any] = {"arguments": arguments}
        if USER_ID_ARGUMENT in arguments:
            body[USER_ID_ARGUMENT] = arguments.pop(USER_ID_ARGUMENT)
        try:
            result = await self._caller.call(name, body)
        except ApiError as exc:  # a bad call is the tool's error: the model reads it and can try again
            return exc.message, True
        return result.content, result.is_error

    # ---- prompts -----------------------------------------------------------------------

    async def list_prompts(self, ctx, params) -> types.ListPromptsResult:
        prompts = [types.Prompt(name=s.name, description=s.description or s.tool_description,
                                arguments=prompt_arguments(s))
                   for s in self._skills.enabled_skills()]
        return types.ListPromptsResult(prompts=prompts)

    async def get_prompt(self, ctx, params: types.GetPromptRequestParams) -> types.GetPromptResult:
        name = params.name
        skill = self._skills.get(name)
        if skill is None or not (skill.valid and skill.enabled):
            raise MCPError(INVALID_PARAMS, f"unknown prompt {name!r}; prompts/list lists them")
        values = dict(params.arguments or {})
        user_id = values.pop(USER_ID_ARGUMENT, None)
        if user_id is not None:
            try:
                check_user_ids([user_id], USER_ID_ARGUMENT)
            except ApiError as exc:
                raise MCPError(INVALID_PARAMS, exc.message) from None
        arguments = coerce_prompt_arguments(skill.parameters, values)
        try:
            # With a user, exactly the skill tool's result; without one, the same with no memory block.
            if user_id is not None:
                result = await self._workers.read(self._tools.call, name, user_id, arguments, "tool")
                if result.is_error:
                    raise MCPError(INTERNAL_ERROR, result.content)
                text = result.content
            else:
                validate_arguments(skill.parameters, arguments)
                text = await self._workers.read(self._skills.render, name, arguments, "")
        except (ToolArgumentError, SkillArgumentError) as exc:
            raise MCPError(INVALID_PARAMS, f"arguments.{exc.field}: {exc.message}") from None
        except (UnknownToolError, UnknownSkillError):
            raise MCPError(INVALID_PARAMS, f"unknown prompt {name!r}; prompts/list lists them") from None
        except SkillRenderError as exc:
            raise MCPError(INTERNAL_ERROR, f"技能 {name} 无法执行: {exc.message}") from None
        message = types.PromptMessage(role="user", content=types.TextContent(type="text", text=text))
        return types.GetPromptResult(description=skill.description or skill.tool_description, messages=[message])

    # ---- resources ---------------------------------------------------------------------

    async def list_resources(self, ctx, params) -> types.ListResourcesResult:
        return types.ListResourcesResult(resources=[])  # one per user would be a list of every user

    async def list_resource_templates(self, ctx, params) -> types.ListResourceTemplatesResult:
        template = types.ResourceTemplate(
            name="user-context", title="Memory of a user", uri_template=CONTEXT_URI_TEMPLATE,
            mime_type="text/plain",
            description="The user's memory block (profile and recent events), as GET /v1/context returns it.")
        return types.ListResourceTemplatesResult(resource_templates=[template])

    async def read_resource(self, ctx, params: types.ReadResourceRequestParams) -> types.ReadResourceResult:
        uri = str(params.uri)
        try:
            user_id, options = parse_context_uri(uri)
            unknown = sorted(set(options) - self.CONTEXT_OPTIONS)
            if unknown:
                raise ValueError(f"unknown option {unknown[0]!r} in {uri!r}")
            check_user_ids([user_id], USER_ID_ARGUMENT)
        except ValueError as exc:
            raise MCPError(INVALID_PARAMS, str(exc)) from None
        except ApiError as exc:
            raise MCPError(INVALID_PARAMS, exc.message) from None
        text = await self.context_text(user_id, options)
        return types.ReadResourceResult(
            contents=[types.TextResourceContents(uri=uri, mime_type="text/plain", text=text)])

    async def context_text(self, user_id: str, options: dict[str, str]) -> str:
        """The context block of GET /v1/context?user_id=U[&query=Q], built the way that route builds it."""
        context = self._engine.context
        query = options.get("query") or None
        result = None if query else context.build_cached([user_id])
        if result is None:
            result = await self._workers.read(context.build, [user_id], None, None, query)
        return result.text


class KiraServer(Server):
    """Announces that the tool and prompt lists change (the SDK's default says they never do)."""

    def create_initialization_options(self, notification_options=None, experimental_capabilities=None,
                                      extensions=None):
        options = notification_options or NotificationOptions(prompts_changed=True, tools_changed=True)
        return super().create_initialization_options(options, experimental_capabilities, extensions)


def build_mcp_server(engine, caller: ToolCaller, workers) -> tuple[Server, McpHandlers, InMemorySubscriptionBus]:
    """A low-level MCP server for `engine`, the handlers it calls, and the bus of change events.

    2026-era clients hear of changes through `subscriptions/listen` (its reply is an event stream,
    over stdio and over HTTP alike: the SDK streams it even where other replies are plain JSON);
    `server.listen_handler.close()` ends those streams."""
    handlers = McpHandlers(engine, caller, workers)
    bus = InMemorySubscriptionBus()
    listen = ListenHandler(bus)
    server = KiraServer(
        SERVER_NAME, version=__version__, title="KiraOS Desktop", instructions=INSTRUCTIONS,
        on_list_tools=handlers.list_tools, on_call_tool=handlers.call_tool,
        on_list_prompts=handlers.list_prompts, on_get_prompt=handlers.get_prompt,
        on_list_resources=handlers.list_resources, on_list_resource_templates=handlers.list_resource_templates,
        on_read_resource=handlers.read_resource, on_subscriptions_listen=listen,
        get_tool_input_schema=handlers.tool_input_schema,
    )
    server.middleware = []  # no OpenTelemetry spans: nothing here exports them
    server.listen_handler = listen
    return server, handlers, bus
