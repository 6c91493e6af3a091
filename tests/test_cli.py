"""The command line: the issue's flow, options before and after subcommands, exit codes."""
import json
import os
import stat
import subprocess
import sys

import pytest

from kiraos_desktop.cli import main
from cli_helpers import run


def test_update_then_context_prints_the_plugin_block(capsys, data_dir):
    ops = {"operations": [{"op": "set", "key": "昵称", "value": "小明", "confidence": 0.9},
                          {"op": "set", "key": "喜欢猫", "value": "是", "category": "preference", "confidence": 0.6},
                          {"op": "event", "value": "完成半马"}]}
    code, out, _ = run(capsys, "call", "memory_update", "--user", "u1", "--json", json.dumps(ops),
                       "--data-dir", str(data_dir))
    assert code == 0
    assert out.startswith("已完成 3 项记忆操作: set 昵称=小明 [basic]; set 喜欢猫=是 [preference]; event: 完成半马")
    code, out, _ = run(capsys, "--data-dir", str(data_dir), "context", "--user", "u1")
    lines = out.rstrip("\n").split("\n")
    assert code == 0 and lines[:2] == ["[u1:basic] 昵称=小明(✓)", "[u1:preference] 喜欢猫=是(?)"]
    assert lines[2].startswith("[u1:events] ") and lines[2].endswith(" 完成半马")
    code, out, _ = run(capsys, "context", "--user", "u1", "--user", "u2", "--json", "--max-chars", "20",
                       "--data-dir", str(data_dir))
    reply = json.loads(out)
    assert reply == {"context": "[u1:basic] 昵称=小明(✓)", "users": ["u1", "u2"], "truncated": True}


def test_context_of_a_user_without_memory_says_so_on_stderr(capsys, data_dir):
    run(capsys, "call", "memory_update", "--user", "u1", "--json", '{"operations": [{"op": "event", "value": "e"}]}',
        "--data-dir", str(data_dir))
    code, out, err = run(capsys, "--data-dir", str(data_dir), "context", "--user", "u1", "--user", "nobody")
    assert code == 0 and out.strip().endswith(" e") and "nobody" not in out
    assert err.strip() == "note: nobody has no memory (no profile entries, no events)"


@pytest.mark.parametrize("argv,message", [
    (["call", "memory_update", "--user", "u", "--json", "{bad"], "not valid JSON"),
    (["call", "memory_update", "--user", "u", "--json", "[" * 5000 + "]" * 5000], "nested too deeply"),
    (["call", "memory_update", "--user", "u", "--json", "[]"], "JSON object"),
    (["call", "no_such_tool", "--user", "u"], "unknown tool"),
    (["call", "memory_update", "--user", "u", "--json", '{"operations": 5}'], "operations"),
    (["context", "--user", "u", "--max-chars", "-1"], "max-chars"),
    (["import", "missing.json"], "no such file"),
])
def test_bad_input_is_one_line_and_exit_2(capsys, data_dir, argv, message):
    code, out, err = run(capsys, *argv, "--data-dir", str(data_dir))
    assert code == 2
    assert message in err and len(err.strip().splitlines()) == 1


DEEP = "[" * 100_000 + "]" * 100_000


@pytest.mark.parametrize("argv", [
    ["call", "memory_update", "--user", "u", "--json", DEEP],
    ["call", "memory_update", "--user", "u", "--json", '{"operations": ' + DEEP + "}"],
    ["skills", "preview", "daily_fortune", "--json", DEEP],
    ["import", "deep.json"],
])
def test_json_nested_too_deeply_is_bad_input(capsys, data_dir, tmp_path, monkeypatch, argv):
    (tmp_path / "deep.json").write_text(DEEP, encoding="utf-8")
    monkeypatch.chdir(tmp_path)
    code, out, err = run(capsys, *argv, "--data-dir", str(data_dir))
    assert code == 2, err
    assert "nested too deeply" in err and "RecursionError" not in err and len(err.strip().splitlines()) == 1


def test_a_skill_argument_nested_too_deeply_is_bad_input():
    from kiraos_desktop.core.skills.arguments import typed_value

    with pytest.raises(ValueError, match="expected object"):
        typed_value('{"a":' * 100_000 + "1" + "}" * 100_000, "object")


def test_usage_errors_exit_2(capsys, data_dir):
    with pytest.raises(SystemExit) as info:
        main(["context", "--data-dir", str(data_dir)])  # --user is required
    assert info.value.code == 2
    with pytest.raises(SystemExit) as info:
        main(["--data-dir", str(data_dir), "--kira-data", str(data_dir), "token"])
    assert info.value.code == 2


def test_a_database_of_a_newer_version_is_one_line_and_exit_2(capsys, data_dir):
    import sqlite3

    assert run(capsys, "token", "--data-dir", str(data_dir))[0] == 0  # creates the database
    conn = sqlite3.connect(data_dir / "memory" / "kiraos.db")
    conn.execute("UPDATE kiraos_desktop_meta SET value = '9' WHERE key = 'schema_version'")
    conn.commit()
    conn.close()
    code, out, err = run(capsys, "context", "--user", "u", "--data-dir", str(data_dir))
    assert code == 2 and out == ""
    assert err.startswith("kiraos-desktop: error: This database was upgraded by a newer KiraOS Desktop")
    assert err.count("\n") == 1


def test_bad_settings_file_is_exit_2(capsys, data_dir):
    (data_dir / "settings.json").write_text('{"max_event_keep": -1}', encoding="utf-8")
    code, _, err = run(capsys, "token", "--data-dir", str(data_dir))
    assert code == 2 and "max_event_keep" in err


def test_token_is_generated_once_with_mode_0600(capsys, data_dir):
    code, first, _ = run(capsys, "token", "--data-dir", str(data_dir))
    assert code == 0 and len(first.strip()) >= 32
    assert stat.S_IMODE(os.stat(data_dir / "api-token").st_mode) == 0o600
    _, again, _ = run(capsys, "token", "--data-dir", str(data_dir))
    assert again == first
    _, new, _ = run(capsys, "token", "--regenerate", "--data-dir", str(data_dir))
    assert new != first


def test_backup_export_import(capsys, tmp_path):
    a, b = tmp_path / "a", tmp_path / "b"
    run(capsys, "call", "memory_update", "--user", "u1", "--data-dir", str(a),
        "--json", '{"operations": [{"op": "set", "key": "k", "value": "v"}, {"op": "event", "value": "e"}]}')
    assert run(capsys, "backup", str(tmp_path / "copy.db"), "--data-dir", str(a))[0] == 0
    assert (tmp_path / "copy.db").stat().st_size > 0
    assert run(capsys, "backup", str(tmp_path / "copy.db"), "--data-dir", str(a))[0] == 2  # never overwrites
    assert run(capsys, "export", "--user", "u1", str(tmp_path / "u1.json"), "--data-dir", str(a))[0] == 0
    code, out, _ = run(capsys, "import", str(tmp_path / "u1.json"), "--data-dir", str(b))
    assert code == 0 and "1 user(s)" in out
    _, ctx_a, _ = run(capsys, "context", "--user", "u1", "--data-dir", str(a))
    _, ctx_b, _ = run(capsys, "context", "--user", "u1", "--data-dir", str(b))
    assert ctx_a == ctx_b and ctx_a.startswith("[u1:basic] k=v(?)")


def test_a_user_named_twice_is_exported_once(capsys, tmp_path):
    a, b = tmp_path / "a", tmp_path / "b"
    run(capsys, "call", "memory_update", "--user", "u1", "--data-dir", str(a),
        "--json", '{"operations": [{"op": "set", "key": "k", "value": "v"}]}')
    code, out, _ = run(capsys, "export", "--user", "u1", "--user", "u2", "--user", "u1", str(tmp_path / "x.json"),
                       "--data-dir", str(a))
    assert code == 0 and "exported 2 user(s)" in out
    users = json.loads((tmp_path / "x.json").read_text(encoding="utf-8"))["users"]
    assert [u["user_id"] for u in users] == ["u1", "u2"]
    code, out, err = run(capsys, "import", str(tmp_path / "x.json"), "--data-dir", str(b))
    assert code == 0, err  # the export of this program imports back


def test_file_arguments_that_cannot_be_used_are_one_line_and_exit_2(capsys, tmp_path):
    data = tmp_path / "data"
    run(capsys, "call", "memory_update", "--user", "u1", "--data-dir", str(data),
        "--json", '{"operations": [{"op": "set", "key": "k", "value": "v"}]}')
    (tmp_path / "plain").write_text("x", encoding="utf-8")
    (tmp_path / "folder").mkdir()
    cases = [
        (["import", str(tmp_path / "folder")], "is a folder"),
        (["export", str(tmp_path / "folder")], "is a folder"),
        (["export", str(tmp_path / "plain" / "x.json")], "cannot write"),
        (["backup", str(tmp_path / "plain" / "x.db")], "cannot write"),
    ]
    for argv, message in cases:
        code, out, err = run(capsys, *argv, "--data-dir", str(data))
        assert code == 2 and message in err and len(err.strip().splitlines()) == 1, (argv, code, err)
        assert "Error:" not in err and ".tmp" not in err, err  # no exception class, no temp file name
    assert sorted(p.name for p in tmp_path.iterdir()) == ["data", "folder", "plain"]
    assert list((tmp_path / "folder").iterdir()) == []


def test_console_entry_point_runs(tmp_path):
    result = subprocess.run([sys.executable, "-m", "kiraos_desktop", "context", "--user", "nobody",
                             "--data-dir", str(tmp_path / "d")], capture_output=True, text=True, timeout=60)
    assert result.returncode == 0 and result.stdout == ""
