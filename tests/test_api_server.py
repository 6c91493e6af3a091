"""The server object and `serve`: start/stop/restart, port 0, busy ports, options, windowed-build safety."""
from __future__ import annotations

import argparse
import os
import re
import signal
import socket
import subprocess
import sys
import textwrap

import httpx
import pytest

from api_helpers import AUTH, TOKEN, api_engine  # noqa: F401
from kiraos_desktop.api.server import ApiServer, ApiStartError, resolve_server_options, serve_forever


def health(url: str, **kwargs) -> int:
    return httpx.get(url + "/v1/health", timeout=10, **kwargs).status_code


def test_start_on_port_zero_reports_the_bound_port(api_engine):
    server = ApiServer(api_engine, "127.0.0.1", 0, TOKEN)
    states = []
    server.add_state_listener(lambda state, detail: states.append(state))
    assert not server.running and server.bound_port is None
    server.start()
    try:
        assert server.running and server.bound_port > 0
        assert server.url == f"http://127.0.0.1:{server.bound_port}"
        assert health(server.url) == 200
        assert httpx.get(server.url + "/v1/skills", headers=AUTH).status_code == 200
        counters = server.counters()
        assert counters["total"] == 2 and counters["errors"] == 0
        assert counters["by_route"] == {"/v1/health": 1, "/v1/skills": 1}
    finally:
        server.stop()
    assert not server.running and server.bound_port is None
    server.stop()  # idempotent
    assert states == ["starting", "running", "stopped"]


def test_stop_closes_the_port(api_engine):
    server = ApiServer(api_engine, "127.0.0.1", 0, TOKEN)
    server.start()
    port = server.bound_port
    server.stop()
    with pytest.raises(httpx.ConnectError):
        httpx.get(f"http://127.0.0.1:{port}/v1/health", timeout=5)


def test_busy_port_is_a_clear_error(api_engine):
    with socket.socket() as blocker:
        blocker.bind(("127.0.0.1", 0))
        blocker.listen(1)
        port = blocker.getsockname()[1]
        server = ApiServer(api_engine, "127.0.0.1", port, TOKEN)
        states = []
        server.add_state_listener(lambda state, detail: states.append((state, detail)))
        with pytest.raises(ApiStartError) as caught:
            server.start()
    assert str(caught.value) == f"port {port} on 127.0.0.1 is already in use; choose another port in Settings"
    assert states[-1] == ("error", str(caught.value))
    assert not server.running


def test_unknown_host_is_a_clear_error(api_engine):
    server = ApiServer(api_engine, "no-such-host.invalid", 0, TOKEN)
    with pytest.raises(ApiStartError, match="choose another host in Settings"):
        server.start()


def test_restart_on_another_port_and_token(api_engine):
    server = ApiServer(api_engine, "127.0.0.1", 0, TOKEN)
    server.start()
    try:
        with socket.socket() as probe:
            probe.bind(("127.0.0.1", 0))
            new_port = probe.getsockname()[1]
        old_url = server.url
        server.restart(port=new_port, token="other-token")
        assert server.running and server.bound_port == new_port and server.url != old_url
        with pytest.raises(httpx.ConnectError):
            httpx.get(old_url + "/v1/health", timeout=5)
        assert httpx.get(server.url + "/v1/skills", headers=AUTH).status_code == 401
        assert httpx.get(server.url + "/v1/skills", headers={"Authorization": "Bearer other-token"}).status_code == 200
        server.restart()  # same options
        assert health(server.url) == 200
    finally:
        server.stop()


def test_bad_restart_options_leave_the_server_running(api_engine):
    server = ApiServer(api_engine, "127.0.0.1", 0, TOKEN)
    server.start()
    try:
        with pytest.raises(ValueError):
            server.restart(host="0.0.0.0", token=None)
        with pytest.raises(ValueError):
            server.restart(port=70000)
        assert server.running and health(server.url) == 200
    finally:
        server.stop()


def test_no_auth_is_refused_on_a_non_loopback_host(api_engine):
    with pytest.raises(ValueError, match="only allowed on a loopback address"):
        ApiServer(api_engine, "0.0.0.0", 0, None)
    args = argparse.Namespace(host="0.0.0.0", port=0, no_auth=True)
    with pytest.raises(ValueError, match="--no-auth"):
        resolve_server_options(api_engine, args)
    assert serve_forever(api_engine, args) == 2


def test_resolve_server_options(api_engine):
    assert resolve_server_options(api_engine, argparse.Namespace()) == ("127.0.0.1", 8765, api_engine.api_token)
    api_engine.update_settings(api_engine.settings.replace(api_host="localhost", api_port=9000, api_token="s3cret"))
    assert resolve_server_options(api_engine, argparse.Namespace()) == ("localhost", 9000, "s3cret")
    args = argparse.Namespace(host="::1", port=0, token="cli-token")
    assert resolve_server_options(api_engine, args) == ("::1", 0, "cli-token")
    assert resolve_server_options(api_engine, argparse.Namespace(no_auth=True)) == ("localhost", 9000, None)
    with pytest.raises(ValueError):
        resolve_server_options(api_engine, argparse.Namespace(token=""))


def test_non_loopback_host_with_a_token_is_allowed(api_engine):
    server = ApiServer(api_engine, "0.0.0.0", 0, TOKEN)
    server.start()
    try:
        port = server.bound_port
        assert health(f"http://127.0.0.1:{port}") == 200
        reply = httpx.get(f"http://127.0.0.1:{port}/v1/health", headers={"Host": f"0.0.0.0:{port}"}, timeout=10)
        assert reply.status_code == 200  # the configured host is allowed besides the loopback names
    finally:
        server.stop()


WINDOWED = textwrap.dedent("""
    import socket, sys, urllib.request
    sys.stdout = None
    sys.stderr = None
    from kiraos_desktop.core.engine import Engine
    from kiraos_desktop.api.server import ApiServer
    engine = Engine.open(data_dir=sys.argv[1])
    server = ApiServer(engine, "127.0.0.1", 0, "tok")
    server.start()
    with socket.create_connection(("127.0.0.1", server.bound_port)) as raw:  # makes uvicorn log a warning
        raw.sendall(b"NONSENSE\\r\\n\\r\\n")
        raw.recv(1024)
    status = urllib.request.urlopen(server.url + "/v1/health").status
    server.stop()
    engine.close()
    open(sys.argv[2], "w").write(str(status))
""")


def test_server_runs_without_stdout_and_stderr(data_dir, tmp_path):
    result = tmp_path / "result.txt"
    done = subprocess.run([sys.executable, "-c", WINDOWED, str(data_dir), str(result)], capture_output=True,
                          text=True, timeout=60)
    assert done.returncode == 0, done.stderr
    assert done.stdout == "" and done.stderr == ""
    assert result.read_text() == "200"


def test_serve_command_runs_until_sigint(data_dir):
    proc = subprocess.Popen([sys.executable, "-m", "kiraos_desktop", "serve", "--data-dir", str(data_dir),
                             "--port", "0", "--token", TOKEN], stderr=subprocess.PIPE, text=True)
    try:
        line = proc.stderr.readline()
        url = re.search(r"http://127\.0\.0\.1:\d+", line).group(0)
        assert "--token" in line
        assert httpx.get(url + "/v1/skills", headers=AUTH, timeout=10).status_code == 200
        proc.send_signal(signal.SIGINT)
        assert proc.wait(timeout=20) == 0
    finally:
        if proc.poll() is None:
            proc.kill()
        proc.stderr.close()


def test_serve_command_on_a_busy_port_exits_1_with_one_line(data_dir):
    with socket.socket() as blocker:
        blocker.bind(("127.0.0.1", 0))
        blocker.listen(1)
        port = blocker.getsockname()[1]
        done = subprocess.run([sys.executable, "-m", "kiraos_desktop", "serve", "--data-dir", str(data_dir),
                               "--port", str(port)], capture_output=True, text=True, timeout=60)
    assert done.returncode == 1
    assert done.stderr.strip().splitlines() == [
        f"kiraos-desktop: error: port {port} on 127.0.0.1 is already in use; choose another port in Settings"]


@pytest.mark.skipif(os.name != "posix", reason="SIGTERM delivery is POSIX")
def test_serve_command_stops_on_sigterm(data_dir):
    proc = subprocess.Popen([sys.executable, "-m", "kiraos_desktop", "serve", "--data-dir", str(data_dir),
                             "--port", "0", "--no-auth"], stderr=subprocess.PIPE, text=True)
    try:
        line = proc.stderr.readline()
        assert "no token required" in line
        url = re.search(r"http://127\.0\.0\.1:\d+", line).group(0)
        assert httpx.get(url + "/v1/skills", timeout=10).status_code == 200
        proc.send_signal(signal.SIGTERM)
        assert proc.wait(timeout=20) == 0
    finally:
        if proc.poll() is None:
            proc.kill()
        proc.stderr.close()
