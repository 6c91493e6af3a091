"""Which commands keep the log file, and that the running server's own errors reach it."""
import logging
import socket

import httpx
import pytest

from api_helpers import AUTH, TOKEN
from core_helpers import app_log_handlers, flush_logs, restore_logging  # noqa: F401
from kiraos_desktop.api import server as server_module
from kiraos_desktop.api.server import ApiServer
from kiraos_desktop.cli import main
from kiraos_desktop.core.app_log import LOG_FILE_NAME, configure_logging
from kiraos_desktop.core.engine import Engine


@pytest.mark.parametrize("argv", [
    ["token"],
    ["context", "--user", "u1"],
    ["call", "memory_update", "--user", "u1", "--json", '{"operations": [{"op": "event", "value": "e"}]}'],
    ["skills", "list"],
])
def test_one_shot_commands_write_no_log_file(capsys, data_dir, argv):
    assert main(argv + ["--data-dir", str(data_dir)]) == 0
    assert list((data_dir / "logs").iterdir()) == []
    assert app_log_handlers("file") == []


def test_serve_logs_to_the_data_dirs_logs_folder(capsys, data_dir, monkeypatch):
    def fake_serve_forever(engine, args):
        logging.getLogger("kiraos_desktop.api.server").error("the API server stopped with an error")
        return 0

    monkeypatch.setattr(server_module, "serve_forever", fake_serve_forever)
    assert main(["serve", "--data-dir", str(data_dir)]) == 0
    flush_logs()
    text = (data_dir / "logs" / LOG_FILE_NAME).read_text(encoding="utf-8")
    assert "ERROR kiraos_desktop.api.server [MainThread] the API server stopped with an error" in text


def test_the_servers_errors_and_uvicorns_reach_the_file(data_dir, monkeypatch):
    engine = Engine.open(data_dir=data_dir)
    path = configure_logging(engine.paths.logs_dir)
    server = ApiServer(engine, "127.0.0.1", 0, TOKEN)
    server.start()
    try:
        with socket.create_connection(("127.0.0.1", server.bound_port)) as raw:  # uvicorn.error warns
            raw.sendall(b"NONSENSE\r\n\r\n")
            raw.recv(1024)

        def broken():
            raise RuntimeError("the store went away")

        monkeypatch.setattr(engine.store, "count_users", broken)
        reply = httpx.get(server.url + "/v1/health", headers=AUTH, timeout=10)
        assert reply.status_code == 500 and "see the application log" in reply.text
    finally:
        server.stop()
        engine.close()
    flush_logs()
    text = path.read_text(encoding="utf-8")
    assert "INFO uvicorn.error [kiraos-api] Started server process" in text
    assert "WARNING uvicorn.error [kiraos-api] Invalid HTTP request received." in text
    assert "ERROR kiraos_desktop.api.security" in text and "unexpected error while answering GET /v1/health" in text
    assert "RuntimeError: the store went away" in text
