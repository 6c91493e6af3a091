"""--database-url, KIRAOS_DATABASE_URL and the setting database_url: precedence, one-line errors (exit 2)
without the password, SQLite unchanged without them (and without psycopg), the window's fallback dialog."""
import json
import subprocess
import sys

import pytest

from kiraos_desktop.cli import main
from kiraos_desktop.core.settings import SettingsError, settings_from_dict
from cli_helpers import run

PASSWORD = "Zq9-very-secret"


def test_the_setting_is_checked_and_its_error_hides_the_password():
    settings, _ = settings_from_dict({"database_url": " postgresql://kira:pw@db:5432/memory "})
    assert settings.database_url == "postgresql://kira:pw@db:5432/memory"
    assert settings_from_dict({})[0].database_url == ""
    with pytest.raises(SettingsError, match="database_url") as caught:
        settings_from_dict({"database_url": f"postgresql://kira:{PASSWORD}@db:99999/memory"})
    assert PASSWORD not in str(caught.value) and caught.value.code == "database_url_invalid"
    with pytest.raises(SettingsError, match="database_url"):
        settings_from_dict({"database_url": 5})


@pytest.mark.parametrize("where", ["option", "env", "setting"])
def test_a_malformed_url_is_one_line_exit_2_without_the_password(capsys, monkeypatch, data_dir, where):
    bad = f"postgresql://kira:{PASSWORD}@db.example:70000/memory"
    argv = ["context", "--user", "u", "--data-dir", str(data_dir)]
    if where == "option":
        argv += ["--database-url", bad]
    elif where == "env":
        monkeypatch.setenv("KIRAOS_DATABASE_URL", bad)
    else:
        (data_dir / "settings.json").write_text(json.dumps({"database_url": bad}), encoding="utf-8")
    code, out, err = run(capsys, *argv)
    assert code == 2 and out == ""
    assert len(err.strip().splitlines()) == 1 and "port must be a number" in err
    assert PASSWORD not in err


def test_the_option_wins_and_an_empty_one_forces_sqlite(capsys, monkeypatch, data_dir):
    monkeypatch.setenv("KIRAOS_DATABASE_URL", f"postgresql://kira:{PASSWORD}@db.example/nothing-here")
    ops = json.dumps({"operations": [{"op": "set", "key": "k", "value": "v"}]})
    code, out, err = run(capsys, "call", "memory_update", "--user", "u", "--json", ops,
                         "--data-dir", str(data_dir), "--database-url", "")
    assert code == 0, err
    assert (data_dir / "memory" / "kiraos.db").stat().st_size > 0


def test_db_and_database_url_together_are_refused(capsys, data_dir):
    code, _, err = run(capsys, "token", "--data-dir", str(data_dir), "--db", str(data_dir / "x.db"),
                       "--database-url", f"postgresql://kira:{PASSWORD}@db/memory")
    assert code == 2 and "--db or --database-url" in err and PASSWORD not in err


def test_explicit_db_beats_the_setting_with_a_warning(capsys, data_dir):
    (data_dir / "settings.json").write_text(json.dumps({"database_url": "postgresql://kira@db/memory"}),
                                            encoding="utf-8")
    code, out, err = run(capsys, "context", "--user", "u", "--data-dir", str(data_dir), "--db",
                         str(data_dir / "other.db"))
    assert code == 0 and "is not used" in err
    assert (data_dir / "other.db").exists()


def test_help_shows_the_option_without_any_secret(capsys):
    with pytest.raises(SystemExit):
        main(["serve", "--help"])
    out = capsys.readouterr().out
    assert "--database-url URL" in out and "KIRAOS_DATABASE_URL" in out


def test_sqlite_mode_needs_no_psycopg(data_dir):
    """With psycopg unimportable, the SQLite mode works and never loads the PostgreSQL modules."""
    script = f"""
import sys
sys.modules["psycopg"] = None  # any import of it now fails
sys.modules["psycopg2"] = None
from kiraos_desktop.cli import main
code = main(["call", "memory_update", "--user", "u", "--json",
             '{{"operations": [{{"op": "set", "key": "k", "value": "v"}}]}}', "--data-dir", {str(data_dir)!r}])
assert code == 0, code
code = main(["context", "--user", "u", "--data-dir", {str(data_dir)!r}])
assert code == 0, code
from kiraos_desktop.core.engine import Engine
engine = Engine.open(data_dir={str(data_dir)!r})
engine.close()
loaded = sorted(m for m in sys.modules if m in ("kiraos_desktop.core.storage.postgres.store", "kiraos_desktop.core.transfer.migrate"))
assert not loaded, loaded
print("ok")
"""
    done = subprocess.run([sys.executable, "-c", script], capture_output=True, text=True, timeout=120)
    assert done.returncode == 0, done.stderr
    assert done.stdout.strip().endswith("ok")


# ---- the window --------------------------------------------------------------------------

@pytest.mark.qt_log_ignore("This plugin does not support propagateSizeHints")
def test_window_on_a_bad_url_offers_quit_or_local_data(qtbot, capsys, monkeypatch, data_dir):
    """A real message box through the event loop: Quit exits 2; Open local data goes on with SQLite."""
    from modal_driver import ModalDriver

    import kiraos_desktop.ui.app as ui_app

    opened = []
    monkeypatch.setattr(ui_app, "run_gui", lambda engine, args: opened.append(engine.database_url) or 0)
    monkeypatch.setenv("KIRAOS_DATABASE_URL", f"postgresql://kira:{PASSWORD}@db.example/")
    details = []
    driver = ModalDriver(press=("Quit",), on_box=lambda box: details.append(box.informativeText()))
    code = main(["--data-dir", str(data_dir)])
    driver.stop()
    assert code == 2 and not driver.stuck and opened == []
    assert len(details) == 1 and "no database name" in details[0] and str(data_dir) in details[0]
    assert PASSWORD not in driver.boxes[0] + details[0]
    err = capsys.readouterr().err
    assert "no database name" in err and PASSWORD not in err

    driver = ModalDriver(press=("Open local data",))
    code = main(["--data-dir", str(data_dir)])
    driver.stop()
    assert code == 0 and not driver.stuck and opened == [None]  # the SQLite database of the data dir
