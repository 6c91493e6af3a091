"""Ready-to-paste configurations that connect a chatbot host to this app: MCP over HTTP or stdio, curl for /v1."""
from __future__ import annotations

import json
import os
import shlex
import sys
from dataclasses import dataclass
from pathlib import Path
from urllib.parse import quote

#: The name hosts list the server under.
SERVER_NAME = "kiraos-desktop"
#: The console executable of the frozen build (the windowed one has no usable stdin/stdout).
CONSOLE_EXECUTABLE = "kiraos-desktop"
MCP_PATH = "/mcp"
EXAMPLE_USER = "user_123"
#: Hosts in the order the API page shows them.
HOSTS = ("claude_desktop", "cursor", "vscode", "claude_code", "curl")


@dataclass(frozen=True)
class HostSnippet:
    host: str  # one of HOSTS
    text: str


def stdio_command(frozen: bool | None = None, executable: str | None = None,
                  platform: str | None = None) -> list[str]:
    """The command that starts `kiraos-desktop mcp`: the console executable next to a frozen build,
    else this Python interpreter running the package."""
    frozen = getattr(sys, "frozen", False) if frozen is None else frozen
    executable = sys.executable if executable is None else executable
    platform = sys.platform if platform is None else platform
    if frozen:
        name = CONSOLE_EXECUTABLE + (".exe" if platform == "win32" else "")
        return [str(Path(executable).with_name(name)), "mcp"]
    path = Path(executable)
    if path.stem.lower() == "pythonw":  # a window started by pythonw has no console to hand over
        executable = str(path.with_name("python" + path.suffix))
    return [executable, "-m", "kiraos_desktop", "mcp"]


def data_arguments(paths, configured_skills_dir: str = "") -> list[str]:
    """The options that make `kiraos-desktop mcp` open the same database and skills as `paths`."""
    args = ["--data-dir", str(paths.data_dir)]
    if Path(paths.db_path) != Path(paths.data_dir) / "memory" / "kiraos.db":
        args += ["--db", str(paths.db_path)]
    default_skills = Path(configured_skills_dir).expanduser().resolve() if configured_skills_dir \
        else Path(paths.data_dir) / "skills"
    if Path(paths.skills_dir) != default_skills:
        args += ["--skills-dir", str(paths.skills_dir)]
    return args


def _headers(token: str | None) -> dict:
    return {"Authorization": f"Bearer {token}"} if token is not None else {}


def _json(data: dict) -> str:
    """JSON with objects indented and lists on one line (a command's arguments read as one)."""
    def dump(value, depth: int) -> str:
        if not isinstance(value, dict) or not value:
            return json.dumps(value, ensure_ascii=False)
        inner = "  " * (depth + 1)
        items = [f"{inner}{json.dumps(k, ensure_ascii=False)}: {dump(v, depth + 1)}" for k, v in value.items()]
        return "{\n" + ",\n".join(items) + "\n" + "  " * depth + "}"

    return dump(data, 0) + "\n"


def claude_desktop(command: list[str]) -> str:
    """claude_desktop_config.json: the host launches the stdio server."""
    return _json({"mcpServers": {SERVER_NAME: {"command": command[0], "args": command[1:]}}})


def cursor(url: str, token: str | None) -> str:
    """.cursor/mcp.json (or ~/.cursor/mcp.json): Streamable HTTP with the bearer token."""
    entry: dict = {"url": url.rstrip("/") + MCP_PATH}
    if token is not None:
        entry["headers"] = _headers(token)
    return _json({"mcpServers": {SERVER_NAME: entry}})


def vscode(url: str, token: str | None) -> str:
    """.vscode/mcp.json: VS Code names the key `servers` and wants the transport `type`."""
    entry: dict = {"type": "http", "url": url.rstrip("/") + MCP_PATH}
    if token is not None:
        entry["headers"] = _headers(token)
    return _json({"servers": {SERVER_NAME: entry}})


def claude_code(url: str, token: str | None) -> str:
    """One `claude mcp add` command line (POSIX shell quoting)."""
    parts = ["claude", "mcp", "add", "--transport", "http", SERVER_NAME, url.rstrip("/") + MCP_PATH]
    if token is not None:
        parts += ["--header", f"Authorization: Bearer {token}"]
    return " ".join(shlex.quote(p) for p in parts) + "\n"


def curl(url: str, token: str | None, user_id: str = EXAMPLE_USER) -> str:
    """A curl line reading a user's memory block from /v1 (POSIX shell quoting)."""
    parts = ["curl", "-s"]
    if token is not None:
        parts += ["-H", f"Authorization: Bearer {token}"]
    parts.append(url.rstrip("/") + "/v1/context?user_id=" + quote(user_id, safe=""))
    return " ".join(shlex.quote(p) for p in parts) + "\n"


def host_snippets(url: str, token: str | None, command: list[str], user_id: str = EXAMPLE_USER) -> list[HostSnippet]:
    """Every host's snippet; `token` None when the server needs none (--no-auth)."""
    return [
        HostSnippet("claude_desktop", claude_desktop(command)),
        HostSnippet("cursor", cursor(url, token)),
        HostSnippet("vscode", vscode(url, token)),
        HostSnippet("claude_code", claude_code(url, token)),
        HostSnippet("curl", curl(url, token, user_id)),
    ]


def claude_desktop_config_path(platform: str | None = None) -> str:
    """Where Claude Desktop reads its configuration on this platform (shown as a hint)."""
    platform = sys.platform if platform is None else platform
    if platform == "win32":
        return os.path.join("%APPDATA%", "Claude", "claude_desktop_config.json")
    if platform == "darwin":
        return "~/Library/Application Support/Claude/claude_desktop_config.json"
    return "~/.config/Claude/claude_desktop_config.json"
