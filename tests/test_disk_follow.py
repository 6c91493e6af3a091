"""The skills folder and settings.json are followed on disk (issue 50): what the command line, another
process or an editor writes there is what the engine serves, and a writer of settings.json changes
only the fields it means to."""
from __future__ import annotations

import json

import pytest

from kiraos_desktop import cli
from kiraos_desktop.core.engine import Engine
from kiraos_desktop.core.settings import load_settings, save_settings
from api_helpers import api, api_engine, api_server  # noqa: F401
from skills_helpers import manifest, write_skill


@pytest.fixture
def data(tmp_path):
    root = tmp_path / "data"
    Engine.open(data_dir=root, install_examples=False).close()
    write_skill(root / "skills", "alpha", manifest("alpha", command="/alpha"), "A")
    return root


@pytest.fixture
def opened(data):
    engine = Engine.open(data_dir=data, install_examples=False)
    yield engine
    engine.close()


def write_manifest(data, folder: str, **fields) -> None:
    path = data / "skills" / folder / "manifest.json"
    loaded = json.loads(path.read_text(encoding="utf-8"))
    loaded.update(fields)
    path.write_text(json.dumps(loaded, ensure_ascii=False), encoding="utf-8")


def test_a_manifest_edited_on_disk_is_served_after_one_check(data, opened):
    seen = []
    opened.skills.on_changed(lambda: seen.append(opened.skills.get("alpha").description))
    write_manifest(data, "alpha", description="Edited by hand in another editor")
    assert opened.skills.get("alpha").description != "Edited by hand in another editor"
    opened._disk.check()
    assert opened.skills.get("alpha").description == "Edited by hand in another editor"
    assert seen == ["Edited by hand in another editor"]  # listeners hear of it (the Skills page does)
    opened._disk.check()
    assert len(seen) == 1  # nothing changed since: no reload


def test_a_skill_made_by_the_command_line_stays_off_in_a_running_engine(data, opened, capsys):
    assert cli.main(["skills", "new", "weather2", "--data-dir", str(data)]) == 0
    opened._disk.check()
    assert opened.skills.get("weather2") is not None
    assert "weather2" in opened.settings.disabled_skills
    assert "weather2" not in [d.name for d in opened.tools.descriptors()]


def test_the_watcher_follows_the_folder_and_the_settings_file(qtbot, data, opened):
    opened.start_watching(build_recall=False)
    write_skill(data / "skills", "gamma", manifest("gamma"), "G")
    # The engine looks once a second; the waits leave room for a busy machine.
    qtbot.waitUntil(lambda: opened.skills.get("gamma") is not None, timeout=4000)
    save_settings(data / "settings.json", load_settings(data / "settings.json")[0].replace(disabled_skills=["gamma"]))
    qtbot.waitUntil(lambda: opened.settings.disabled_skills == ["gamma"], timeout=4000)


def test_a_broken_settings_file_keeps_the_settings_in_use(data, opened, caplog):
    before = opened.settings
    (data / "settings.json").write_text("{not json", encoding="utf-8")
    opened._disk.check()
    assert opened.settings == before
    assert "not adopted" in caplog.text


def test_edit_settings_changes_its_fields_in_the_file_as_it_is_now(data, opened):
    on_disk = load_settings(data / "settings.json")[0].replace(disabled_skills=["alpha"], max_event_keep=7)
    save_settings(data / "settings.json", on_disk)  # another process, after this one read the file
    assert opened.settings.disabled_skills == []
    result = opened.edit_settings(lambda s: s.replace(api_port=9100))
    saved = load_settings(data / "settings.json")[0]
    assert (saved.api_port, saved.disabled_skills, saved.max_event_keep) == (9100, ["alpha"], 7)
    assert result == saved == opened.settings


# ---- skills enable / disable / lint NAME ------------------------------------------------------------

def run(data, *argv) -> int:
    return cli.main(["skills", *argv, "--data-dir", str(data)])


def test_enable_refuses_a_skill_with_errors_naming_them(data, capsys):
    assert run(data, "new", "draft") == 0
    capsys.readouterr()
    before = (data / "settings.json").read_bytes()
    assert run(data, "enable", "draft") == 2
    err = capsys.readouterr().err
    assert err.startswith("error: draft has ") and "error(s)" in err and "still the template" in err
    assert (data / "settings.json").read_bytes() == before


def test_disable_and_enable_change_that_one_skill(data, capsys):
    save_settings(data / "settings.json", load_settings(data / "settings.json")[0].replace(
        disabled_skills=["gone"], api_port=9200))
    assert run(data, "disable", "alpha") == 0
    assert load_settings(data / "settings.json")[0].disabled_skills == ["gone", "alpha"]
    assert run(data, "enable", "alpha") == 0
    saved = load_settings(data / "settings.json")[0]
    assert (saved.disabled_skills, saved.api_port) == (["gone"], 9200)
    assert "alpha enabled" in capsys.readouterr().out


def test_enable_of_an_unknown_skill_is_a_usage_error(data, capsys):
    assert run(data, "enable", "nowhere") == 2
    assert "no skill named 'nowhere'" in capsys.readouterr().err


def test_lint_takes_a_skill_name(data, capsys):
    write_skill(data / "skills", "beta", manifest("beta", description=""), "B")
    assert run(data, "lint", "alpha") == 0
    out = capsys.readouterr().out
    assert "1 skill checked" in out and "beta" not in out
    assert run(data, "lint", "nothing_called_this") == 2
    assert "neither a skill's name" in capsys.readouterr().err


def test_the_api_answers_what_the_folder_holds_without_a_reload(qtbot, api_engine, api):
    """Issue 50: 5 s after a manifest was edited on disk, GET /v1/skills/NAME still answered the old
    description until POST /v1/skills/reload."""
    name = api_engine.skills.enabled_skills()[0].name
    folder = api_engine.skills.get(name).folder
    path = folder / "manifest.json"
    loaded = json.loads(path.read_text(encoding="utf-8"))
    loaded["description"] = "Changed in an editor"
    path.write_text(json.dumps(loaded, ensure_ascii=False), encoding="utf-8")
    qtbot.waitUntil(lambda: api.get(f"/v1/skills/{name}").json()["description"] == "Changed in an editor",
                    timeout=4000)  # it looks once a second


def test_a_new_token_changes_only_the_token_setting(data, opened):
    """Every writer of settings.json changes only its own field: a new token (which empties the
    api_token setting) kept another process's change the file held."""
    opened.edit_settings(lambda s: s.replace(api_token="typed-token"))
    save_settings(data / "settings.json", load_settings(data / "settings.json")[0].replace(max_event_keep=9))
    token = opened.regenerate_token()
    saved = load_settings(data / "settings.json")[0]
    assert (saved.api_token, saved.max_event_keep) == ("", 9) and token == opened.api_token
