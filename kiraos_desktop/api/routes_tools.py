"""/v1 routes for tools and skills: list tools per provider, call a tool, list and reload skills."""
from __future__ import annotations

from starlette.routing import Route

from kiraos_desktop.api.bodies import query_params, read_json
from kiraos_desktop.api.errors import invalid, json_reply, not_found
from kiraos_desktop.api.tool_calls import ToolCaller
from kiraos_desktop.core.tool_registry import TOOL_FORMATS

TOOLS_PARAMS = frozenset({"format"})


def tool_reply(result) -> dict:
    return {"tool": result.tool, "content": result.content, "is_error": result.is_error}


def problem_json(problem) -> dict:
    return {"severity": problem.severity, "field": problem.field, "message": problem.message,
            "file": problem.file, "line": problem.line}


def skill_json(skill) -> dict:
    return {
        "name": skill.name, "folder": skill.folder.name, "description": skill.description,
        "trigger": skill.trigger, "exclude": skill.exclude, "command": skill.command,
        "parameters": skill.parameters, "template": skill.template, "enabled": skill.enabled,
        "valid": skill.valid, "format": skill.format, "problems": [problem_json(p) for p in skill.problems],
    }


def tool_routes(engine, workers, caller: ToolCaller) -> list[Route]:
    tools = engine.tools
    skills = engine.skills

    async def list_tools(request):
        params = query_params(request.scope, TOOLS_PARAMS)
        fmt = params.get("format", "openai")
        if fmt not in TOOL_FORMATS:
            raise invalid("format", f"unknown tool format {fmt!r}; use one of: {', '.join(TOOL_FORMATS)}")
        return json_reply({"tools": tools.list_tools(fmt)})

    async def call_tool(request):
        name = request.path_params["name"]
        data = await read_json(request)
        return json_reply(tool_reply(await caller.call(name, data)))

    async def list_skills(request):
        return json_reply({"skills": [skill_json(s) for s in skills.skills()]})

    async def get_skill(request):
        name = request.path_params["name"]
        # By name (the one that owns it), else by folder: a broken manifest may have no usable name.
        skill = skills.get(name) or next((s for s in skills.skills() if s.name == name), None) or next(
            (s for s in skills.skills() if s.folder.name == name), None)
        if skill is None:
            raise not_found(f"no skill named {name!r}; GET /v1/skills lists them")
        return json_reply(skill_json(skill))

    async def reload_skills(request):
        await workers.read(skills.reload)
        return json_reply({"skills": [skill_json(s) for s in skills.skills()]})

    return [
        Route("/v1/tools", list_tools, methods=["GET"]),
        Route("/v1/tools/{name}", call_tool, methods=["POST"]),
        Route("/v1/skills", list_skills, methods=["GET"]),
        Route("/v1/skills/reload", reload_skills, methods=["POST"]),
        Route("/v1/skills/{name}", get_skill, methods=["GET"]),
    ]
