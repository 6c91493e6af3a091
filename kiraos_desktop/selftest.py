"""`--self-test`: a smoke test of the whole app (API, templates, skills, window) in a temporary data dir."""
from __future__ import annotations

import json
import os
import shutil
import sys
import tempfile
import time
import traceback
import urllib.error
import urllib.request
from pathlib import Path
from typing import Any, Callable

#: Where the outcome is also written: a windowed build has no stdout or stderr to read.
LOG_FILE = Path(tempfile.gettempdir()) / "kiraos-desktop-selftest.log"
USER_ID = "selftest_user"
EXPECTED_CONTEXT = f"[{USER_ID}:basic] 昵称=小明(✓)"
HTTP_TIMEOUT = 15.0
#: A PostgreSQL server for the `postgresql` step to connect to (`make selftest-dist` starts one).
DATABASE_URL_VARIABLE = "KIRAOS_SELFTEST_DATABASE_URL"


class StepFailed(Exception):
    """A check did not hold; the message is the reason shown to the user."""


class _Report:
    """One line per step to stdout (when there is one) and to the log file."""

    def __init__(self, log_path: Path):
        self.lines: list[str] = []
        self.log_path = log_path

    def _emit(self, stream, line: str) -> None:
        self.lines.append(line)
        if stream is not None:
            try:
                try:
                    print(line, file=stream, flush=True)
                except UnicodeEncodeError:  # a legacy console code page: keep the line readable
                    print(line.encode("ascii", "backslashreplace").decode("ascii"), file=stream, flush=True)
            except (OSError, ValueError, AttributeError):
                pass  # a detached or closed console must not fail the test

    def passed(self, step: str, detail: str = "") -> None:
        self._emit(sys.stdout, f"self-test ok: {step}" + (f" ({detail})" if detail else ""))

    def failed(self, step: str, reason: str) -> None:
        self._emit(sys.stderr, f"self-test failed at {step}: {reason}")
        self._emit(sys.stderr, f"self-test log: {self.log_path}")

    def save(self) -> None:
        try:
            self.log_path.write_text("\n".join(self.lines) + "\n", encoding="utf-8")
        except OSError:
            pass


def _check(condition: bool, reason: str) -> None:
    if not condition:
        raise StepFailed(reason)


def _request(url: str, token: str | None, body: Any = None, method: str | None = None) -> tuple[int, Any]:
    data = None if body is None else json.dumps(body, ensure_ascii=False).encode("utf-8")
    request = urllib.request.Request(url, data=data, method=method or ("POST" if data else "GET"))
    if token:
        request.add_header("Authorization", f"Bearer {token}")
    if data is not None:
        request.add_header("Content-Type", "application/json")
    try:
        with urllib.request.urlopen(request, timeout=HTTP_TIMEOUT) as reply:
            return reply.status, json.loads(reply.read().decode("utf-8"))
    except urllib.error.HTTPError as exc:
        text = exc.read().decode("utf-8", "replace")[:300]
        raise StepFailed(f"{request.get_method()} {url} answered {exc.code}: {text}") from None
    except (urllib.error.URLError, OSError) as exc:
        raise StepFailed(f"{url} unreachable: {exc}") from None


class SelfTest:
    """The steps, in order; each raises StepFailed (or anything) to stop the run."""

    def __init__(self, root: Path, report: _Report):
        self.root = root
        self.report = report
        self.engine = None
        self.server = None
        self.base_url = ""
        self.token = ""

    def steps(self) -> list[tuple[str, Callable[[], str]]]:
        return [
            ("resources", self.check_resources),
            ("engine", self.open_engine),
            ("api", self.start_api),
            ("health", self.check_health),
            ("memory_update", self.check_memory_update),
            ("context", self.check_context),
            ("recall", self.check_recall),
            ("skills", self.check_skills),
            ("agent_skills", self.check_agent_skills),
            ("templates", self.check_templates),
            ("mcp", self.check_mcp),
            ("postgresql", self.check_postgresql),
            ("window", self.check_window),
        ]

    def check_resources(self) -> str:
        from kiraos_desktop.core.resources import bundled_skills_dir, icons_dir, templates_dir

        for folder in (templates_dir(), icons_dir(), bundled_skills_dir()):
            _check(folder.is_dir(), f"missing folder {folder}")
        return str(templates_dir().parent.parent)

    def open_engine(self) -> str:
        from kiraos_desktop.core.engine import Engine

        # Always the temporary SQLite database: never the memory a database URL may name.
        self.engine = Engine.open(data_dir=self.root / "data", database_url="")
        self.token = self.engine.api_token
        _check(bool(self.token), "no API token")
        return str(self.engine.paths.data_dir)

    def start_api(self) -> str:
        from kiraos_desktop.api.server import ApiServer

        self.server = ApiServer(self.engine, "127.0.0.1", 0, self.token)
        self.server.start()
        port = self.server.bound_port
        _check(isinstance(port, int) and port > 0, f"server reports port {port!r}")
        self.base_url = f"http://127.0.0.1:{port}"
        # uvicorn picks its fast paths by import at run time; a frozen build that lost them would
        # still answer, only slower, so check they are loaded where uvicorn[standard] provides them.
        fast = ["httptools"] + (["uvloop"] if sys.platform not in ("win32", "cygwin") else [])
        missing = [name for name in fast if name not in sys.modules]
        _check(not missing, f"uvicorn runs without {', '.join(missing)}")
        return f"{self.base_url}, {' + '.join(fast)}"

    def check_health(self) -> str:
        from kiraos_desktop import __version__

        status, body = _request(f"{self.base_url}/v1/health", self.token)
        _check(status == 200 and body.get("status") == "ok", f"unexpected reply {body!r}")
        _check(body.get("version") == __version__, f"version {body.get('version')!r}, expected {__version__!r}")
        return f"version {__version__}"

    def _tool(self, name: str, arguments: dict) -> str:
        _, body = _request(f"{self.base_url}/v1/tools/{name}", self.token,
                           {"user_id": USER_ID, "arguments": arguments})
        _check(not body.get("is_error"), f"{name} returned an error: {body.get('content')!r}")
        return body.get("content", "")

    def check_memory_update(self) -> str:
        content = self._tool("memory_update", {"operations": [
            {"op": "set", "key": "昵称", "value": "小明", "confidence": 0.9},
            {"op": "event", "value": "完成自检"},
        ]})
        _check(content.startswith("已完成 2 项记忆操作: set 昵称=小明 [basic]; event: 完成自检"),
               f"unexpected reply {content!r}")
        return "2 operations"

    def check_context(self) -> str:
        _, body = _request(f"{self.base_url}/v1/context?user_id={USER_ID}", self.token)
        text = body.get("context", "")
        _check(text.splitlines()[:1] == [EXPECTED_CONTEXT], f"context {text!r}, expected {EXPECTED_CONTEXT!r} first")
        _check("完成自检" in text and body.get("users") == [USER_ID], f"unexpected reply {body!r}")
        return "block read back"

    def check_mcp(self) -> str:
        """The MCP server with the SDK's own client: over HTTP at /mcp, and over stdio as a host
        launches it (the console executable of a frozen build, else this interpreter)."""
        import anyio

        return anyio.run(self._mcp_round_trips)

    async def _mcp_round_trips(self) -> str:
        from mcp import Client, StdioServerParameters
        from mcp.client.stdio import stdio_client
        from mcp.client.streamable_http import streamable_http_client
        from mcp.shared._httpx_utils import create_mcp_http_client

        from kiraos_desktop.core.host_configs import data_arguments, stdio_command

        expected_tools = 3 + len(self.engine.skills.enabled_skills())
        headers = {"Authorization": f"Bearer {self.token}"}
        async with create_mcp_http_client(headers=headers) as http:
            async with Client(streamable_http_client(f"{self.base_url}/mcp", http_client=http),
                              mode="legacy") as client:
                tools = (await client.list_tools()).tools
                _check(len(tools) == expected_tools, f"/mcp lists {len(tools)} tools, not {expected_tools}")
                result = await client.call_tool("memory_update", {"user_id": USER_ID, "operations": [
                    {"op": "set", "key": "昵称", "value": "小明", "confidence": 0.9}]})
                _check(not result.is_error, f"memory_update over /mcp gave {result.content!r}")
                result = await client.call_tool("memory_query", {"user_id": USER_ID})
                text = result.content[0].text if result.content else ""
                _check(not result.is_error and "昵称 = 小明" in text, f"memory_query over /mcp gave {text!r}")
                read = await client.read_resource(f"kiraos://users/{USER_ID}/context")
                block = read.contents[0].text
                _check(block.splitlines()[:1] == [EXPECTED_CONTEXT], f"context resource gave {block!r}")
        command = stdio_command() + data_arguments(self.engine.paths, self.engine.settings.skills_dir)
        from kiraos_desktop.core.storage.database_url import ENV_DATABASE_URL

        env = {name: value for name, value in os.environ.items() if name != ENV_DATABASE_URL}
        params = StdioServerParameters(command=command[0], args=command[1:], env=env)
        with open(self.root / "mcp-stdio.log", "w", encoding="utf-8") as errlog:
            async with Client(stdio_client(params, errlog=errlog), mode="legacy") as client:
                tools = (await client.list_tools()).tools
                _check(len(tools) == expected_tools, f"stdio lists {len(tools)} tools, not {expected_tools}")
                result = await client.call_tool("memory_update", {"user_id": USER_ID, "operations": [
                    {"op": "event", "value": "MCP 自检"}]})
                _check(not result.is_error, f"memory_update over stdio gave {result.content!r}")
        _, body = _request(f"{self.base_url}/v1/context?user_id={USER_ID}", self.token)
        for _ in range(40):  # the API notices the other process's commit within a second
            if "MCP 自检" in body.get("context", ""):
                break
            time.sleep(0.05)
            _, body = _request(f"{self.base_url}/v1/context?user_id={USER_ID}", self.token)
        _check("MCP 自检" in body.get("context", ""), "a write over stdio did not reach /v1/context")
        return f"HTTP and stdio ({os.path.basename(command[0])}), {len(tools)} tools"

    def check_postgresql(self) -> str:
        """psycopg loads with a compiled libpq wrapper (the PostgreSQL mode imports it only when used,
        so a frozen build without it would start fine); with DATABASE_URL_VARIABLE set, that server answers."""
        import psycopg

        from kiraos_desktop.ui.about_dialog import libpq_version

        impl = psycopg.pq.__impl__
        _check(impl in ("binary", "c"), f"psycopg runs its {impl} implementation, not its compiled one")
        detail = f"psycopg {psycopg.__version__} ({impl}), libpq {libpq_version(psycopg.pq.version())}"
        url = os.environ.get(DATABASE_URL_VARIABLE)
        if url:
            with psycopg.connect(url, connect_timeout=10) as connection:
                version = connection.execute("SELECT current_setting('server_version')").fetchone()[0]
                tls = connection.pgconn.ssl_in_use
            detail += f", PostgreSQL {version} answered" + (" over TLS" if tls else "")
        return detail

    def check_recall(self) -> str:
        """An old event reaches the block for a message about it (segmentation and index included)."""
        from urllib.parse import quote

        user, old = "selftest_recall", "去年在青岛学会了冲浪"
        self.engine.store.add_event(user, old, actor="gui", created_at="2024-01-01T10:00:00")
        with self.engine.store.batch("gui") as batch:
            for i in range(15):
                batch.add_event(user, f"日常记录 {i}")
        _, plain = _request(f"{self.base_url}/v1/context?user_id={user}", self.token)
        _, recalled = _request(f"{self.base_url}/v1/context?user_id={user}&query={quote('冲浪好玩吗')}", self.token)
        _check(old not in plain.get("context", ""), f"the old event is in the plain block {plain!r}")
        _check(old in recalled.get("context", ""), f"the old event was not recalled: {recalled!r}")
        return "old event recalled"

    def check_skills(self) -> str:
        """Every bundled skill loads without problems and its tool answers over the API."""
        from kiraos_desktop.core.resources import bundled_skills_dir
        from kiraos_desktop.core.skills.arguments import sample_arguments

        bundled = sorted(p.name for p in bundled_skills_dir().iterdir()
                         if p.is_dir() and not p.name.startswith(("_", ".")))
        skills = self.engine.skills.skills()
        _check(len(skills) == len(bundled) > 0, f"{len(skills)} skills loaded, {len(bundled)} bundled")
        for skill in skills:
            problems = "; ".join(f"{p.field}: {p.message}" for p in skill.problems)
            _check(not skill.problems, f"skill {skill.name} has problems: {problems}")
        _, body = _request(f"{self.base_url}/v1/tools?format=openai", self.token)
        _check(len(body.get("tools", [])) == 3 + len(skills), f"/v1/tools lists {len(body.get('tools', []))} tools")
        for skill in skills:
            content = self._tool(skill.name, sample_arguments(skill.parameters, only_required=True))
            _check(content.startswith(f'<skill name="{skill.name}">'), f"skill {skill.name} gave {content[:80]!r}")
            _check("<context>" in content and "小明" in content, f"skill {skill.name}: no memory in {content!r}")
            if skill.exclude:
                _check(skill.exclude.strip() in content, f"skill {skill.name}: exclude guard missing")
        return f"{len(skills)} skills"

    def check_agent_skills(self) -> str:
        """Every skill exports as an Agent Skill (SKILL.md) and imports back byte for byte; a skill
        tool's `file` argument returns a file of its folder over the API and refuses '..'."""
        from kiraos_desktop.core.skills.agent_io import export_skill, import_skill

        skills = self.engine.skills.skills()
        for skill in skills:
            exported = export_skill(skill.folder, self.root / "agent-skills")
            back = import_skill(exported, self.root / "agent-skills-back")
            for name in ("manifest.json", "instruction.md"):
                _check((back.folder / name).read_bytes() == (skill.folder / name).read_bytes(),
                       f"skill {skill.name}: {name} differs after export and import")
        name = skills[0].name
        content = self._tool(name, {"file": "manifest.json"})
        _check(json.loads(content).get("name") == name, f"file argument of {name} gave {content[:80]!r}")
        _, body = _request(f"{self.base_url}/v1/tools/{name}", self.token,
                           {"user_id": USER_ID, "arguments": {"file": "../../settings.json"}})
        _check(body.get("is_error") is True, f"file argument read outside the skill: {body!r}")
        return f"{len(skills)} skills exported and imported back"

    def check_templates(self) -> str:
        """The memory_query/memory_clear texts, then: every template was loaded and rendered by the app."""
        from kiraos_desktop.core.resources import templates_dir
        from kiraos_desktop.core.templates import TEMPLATE_NAMES, environment

        on_disk = sorted(p.name for p in templates_dir().glob("*.j2"))
        _check(sorted(TEMPLATE_NAMES) == on_disk, f"templates on disk {on_disk} != {sorted(TEMPLATE_NAMES)}")
        query = self._tool("memory_query", {})
        _check(query.startswith("【用户画像】") and "昵称 = 小明" in query, f"memory_query gave {query!r}")
        cleared = self._tool("memory_clear", {})
        _check(cleared == "已清除全部记忆: 删除了 1 条画像和 1 条事件记录。", f"memory_clear gave {cleared!r}")
        empty = self._tool("memory_query", {})
        _check(empty == "该用户暂无记忆数据。", f"memory_query after clear gave {empty!r}")
        cache = environment().cache
        if cache is not None:  # jinja2 keeps each loaded template there: what the steps above rendered
            used = {key[1] for key in cache.keys()}
            _check(not set(TEMPLATE_NAMES) - used,
                   f"never rendered by the steps so far: {', '.join(sorted(set(TEMPLATE_NAMES) - used))}")
        for name in TEMPLATE_NAMES:
            environment().get_template(name)
        return ", ".join(TEMPLATE_NAMES)

    def check_window(self) -> str:
        from kiraos_desktop.selftest_window import WindowCheckFailed, open_and_close_window

        try:
            return open_and_close_window(self.engine, self.server, self.root)
        except WindowCheckFailed as exc:
            raise StepFailed(str(exc)) from None

    def close(self) -> None:
        if self.server is not None:
            self.server.stop()
        if self.engine is not None:
            self.engine.close()


def run_self_test(log_path: Path | None = None) -> int:
    """Run every step; 0 when all pass, 1 at the first failure (named on stderr and in the log)."""
    # Always offscreen: the test must not flash a window, and CI has no display.
    os.environ["QT_QPA_PLATFORM"] = "offscreen"
    report = _Report(Path(log_path) if log_path else LOG_FILE)
    root = Path(tempfile.mkdtemp(prefix="kiraos-selftest-"))
    test = SelfTest(root, report)
    step = "start"
    started = time.monotonic()
    try:
        for step, run in test.steps():
            report.passed(step, run())
        step = "shutdown"
        test.close()
        test = None
        report.passed(step, f"all steps in {time.monotonic() - started:.1f} s")
        return 0
    except StepFailed as exc:
        report.failed(step, str(exc))
        return 1
    except Exception as exc:  # any crash is a failure of this step, with its traceback in the log
        report.failed(step, f"{type(exc).__name__}: {exc}")
        report.lines.append(traceback.format_exc())
        return 1
    finally:
        if test is not None:
            try:
                test.close()
            except Exception as exc:
                report.lines.append(f"cleanup error: {type(exc).__name__}: {exc}")
        report.save()
        shutil.rmtree(root, ignore_errors=True)
