"""Host configuration snippets: the shape each host expects, the token, the real command and data dir."""
import json
import shlex
from pathlib import Path

from kiraos_desktop.core import host_configs as hc
from kiraos_desktop.core.paths import resolve_paths

URL = "http://127.0.0.1:8765"


def test_http_hosts_get_the_mcp_url_and_the_bearer_token():
    cursor = json.loads(hc.cursor(URL + "/", "tok"))
    assert cursor == {"mcpServers": {"kiraos-desktop": {"url": URL + "/mcp",
                                                        "headers": {"Authorization": "Bearer tok"}}}}
    vscode = json.loads(hc.vscode(URL, "tok"))
    assert vscode == {"servers": {"kiraos-desktop": {"type": "http", "url": URL + "/mcp",
                                                     "headers": {"Authorization": "Bearer tok"}}}}
    assert shlex.split(hc.claude_code(URL, "t k")) == [
        "claude", "mcp", "add", "--transport", "http", "kiraos-desktop", URL + "/mcp",
        "--header", "Authorization: Bearer t k"]
    assert shlex.split(hc.curl(URL, "tok", "qq 1")) == [
        "curl", "-s", "-H", "Authorization: Bearer tok", URL + "/v1/context?user_id=qq%201"]


def test_without_a_token_no_header_is_sent():
    assert "headers" not in json.loads(hc.cursor(URL, None))["mcpServers"]["kiraos-desktop"]
    assert "headers" not in json.loads(hc.vscode(URL, None))["servers"]["kiraos-desktop"]
    assert "--header" not in hc.claude_code(URL, None) and "Authorization" not in hc.curl(URL, None)


def test_claude_desktop_launches_the_real_executable():
    command = hc.stdio_command(frozen=False, executable="/opt/py/bin/python3")
    assert command == ["/opt/py/bin/python3", "-m", "kiraos_desktop", "mcp"]
    frozen = hc.stdio_command(frozen=True, executable="/Apps/kiraos-desktop/kiraos-desktop-gui", platform="linux")
    assert frozen == ["/Apps/kiraos-desktop/kiraos-desktop", "mcp"]
    windows = hc.stdio_command(frozen=True, executable=r"C:\KiraOS\kiraos-desktop-gui.exe", platform="win32")
    assert Path(windows[0]).name.endswith("kiraos-desktop.exe") and windows[1:] == ["mcp"]
    assert Path(hc.stdio_command(frozen=False, executable="/venv/pythonw.exe")[0]).name == "python.exe"
    config = json.loads(hc.claude_desktop(command + ["--data-dir", "/d"]))
    assert config == {"mcpServers": {"kiraos-desktop": {
        "command": "/opt/py/bin/python3", "args": ["-m", "kiraos_desktop", "mcp", "--data-dir", "/d"]}}}


def test_data_arguments_name_what_differs_from_the_layout(tmp_path):
    plain = resolve_paths(data_dir=tmp_path / "d")
    assert hc.data_arguments(plain) == ["--data-dir", str(plain.data_dir)]
    custom = resolve_paths(data_dir=tmp_path / "d", db=tmp_path / "x.db", skills_dir=tmp_path / "sk")
    assert hc.data_arguments(custom) == ["--data-dir", str(custom.data_dir), "--db", str(tmp_path / "x.db"),
                                         "--skills-dir", str(tmp_path / "sk")]
    configured = resolve_paths(data_dir=tmp_path / "d", configured_skills_dir=str(tmp_path / "conf"))
    assert hc.data_arguments(configured, str(tmp_path / "conf")) == ["--data-dir", str(configured.data_dir)]
    companion = resolve_paths(kira_data=tmp_path / "kira")
    args = hc.data_arguments(companion)
    assert args[args.index("--db") + 1] == str(tmp_path / "kira" / "memory" / "kiraos.db")
    assert args[args.index("--skills-dir") + 1] == str(tmp_path / "kira" / "skills")


def test_every_host_has_a_snippet():
    snippets = hc.host_snippets(URL, "tok", ["py", "-m", "kiraos_desktop", "mcp"])
    assert [s.host for s in snippets] == list(hc.HOSTS)
