"""Settings: defaults, validation, plugin aliases, atomic persistence; data dir resolution; TTL grammar."""
import json
import os
from datetime import timedelta

import pytest

from kiraos_desktop.core.paths import resolve_paths
from kiraos_desktop.core.settings import Settings, SettingsError, load_settings, save_settings, settings_from_dict
from kiraos_desktop.core.timeutil import TTLError, parse_ttl


def test_defaults_are_the_plugins():
    s = Settings()
    assert (s.max_events_per_user, s.max_profiles_per_user, s.max_event_keep, s.max_context_chars) == (10, 50, 100, 500)
    assert s.skills_dir is None and s.disabled_skills == [] and s.enable_slash_commands is False
    assert (s.api_host, s.api_port, s.api_token) == ("127.0.0.1", 8765, "")


@pytest.mark.parametrize("key,value", [
    ("max_events_per_user", -1), ("max_context_chars", "500"), ("max_event_keep", 1.5),
    ("max_profiles_per_user", True), ("api_port", 70000), ("disabled_skills", "tarot"),
    ("enable_slash_commands", "yes"), ("api_host", ""), ("skills_dir", 5),
])
def test_bad_values_are_refused_naming_the_key(key, value):
    with pytest.raises(SettingsError, match=key):
        settings_from_dict({key: value})


def test_unknown_keys_are_reported_not_fatal():
    settings, unknown = settings_from_dict({"max_events_per_user": 3, "colour": "blue"})
    assert settings.max_events_per_user == 3
    assert unknown == ["colour"]


def test_plugin_webui_aliases_map_to_api_keys():
    settings, unknown = settings_from_dict({"webui_host": "0.0.0.0", "webui_port": 9000, "webui_token": "abc"})
    assert (settings.api_host, settings.api_port, settings.api_token) == ("0.0.0.0", 9000, "abc")
    assert unknown == []
    native_wins, _ = settings_from_dict({"webui_port": 9000, "api_port": 9100})
    assert native_wins.api_port == 9100


def test_save_is_atomic_and_round_trips(tmp_path):
    path = tmp_path / "settings.json"
    save_settings(path, Settings(max_context_chars=0, disabled_skills=["a"]))
    loaded, unknown = load_settings(path)
    assert loaded.max_context_chars == 0 and loaded.disabled_skills == ["a"] and unknown == []
    assert [p.name for p in tmp_path.iterdir()] == ["settings.json"]  # no temp file left behind


def test_broken_settings_file_names_the_problem(tmp_path):
    path = tmp_path / "settings.json"
    path.write_text("{not json", encoding="utf-8")
    with pytest.raises(SettingsError, match="line 1"):
        load_settings(path)
    path.write_text(json.dumps({"max_event_keep": -5}), encoding="utf-8")
    with pytest.raises(SettingsError, match="max_event_keep"):
        load_settings(path)


def test_a_byte_order_mark_is_accepted(tmp_path):
    # Windows Notepad saves UTF-8 with a BOM: the file is still the user's settings.
    path = tmp_path / "settings.json"
    path.write_bytes(b"\xef\xbb\xbf" + json.dumps({"max_event_keep": 7}).encode("utf-8"))
    assert load_settings(path)[0].max_event_keep == 7


@pytest.mark.parametrize("raw, message", [
    (b'{"api_host": "caf\xe9"}', "not UTF-8 text"),
    (b'{"skills_dir": "/tmp/x\\ud800"}', "skills_dir: is not valid Unicode text"),
    (b'{"disabled_skills": ["a", "\\udc00"]}', "disabled_skills.1: is not valid Unicode text"),
    (b"[" * 100_000 + b"]" * 100_000, "nested too deeply"),
])
def test_unreadable_settings_file_is_a_settings_error_naming_the_file(tmp_path, raw, message):
    path = tmp_path / "settings.json"
    path.write_bytes(raw)
    with pytest.raises(SettingsError) as caught:
        load_settings(path)
    assert str(caught.value).startswith(f"{path}: ") and message in str(caught.value)


def test_replace_validates():
    with pytest.raises(SettingsError):
        Settings().replace(max_events_per_user=-2)
    assert Settings().replace(max_events_per_user=2).max_events_per_user == 2


def test_data_dir_resolution(tmp_path, monkeypatch):
    monkeypatch.setenv("KIRAOS_DATA_DIR", str(tmp_path / "env"))
    paths = resolve_paths()
    assert paths.data_dir == (tmp_path / "env").resolve()
    assert paths.db_path == (tmp_path / "env" / "memory" / "kiraos.db").resolve()
    explicit = resolve_paths(data_dir=tmp_path / "d", db=tmp_path / "x.db", skills_dir=tmp_path / "sk")
    assert explicit.data_dir == (tmp_path / "d").resolve()
    assert explicit.db_path == (tmp_path / "x.db").resolve() and explicit.skills_dir == (tmp_path / "sk").resolve()
    companion = resolve_paths(kira_data=tmp_path / "kira")
    assert companion.companion
    assert companion.db_path == (tmp_path / "kira" / "memory" / "kiraos.db").resolve()
    assert companion.skills_dir == (tmp_path / "kira" / "skills").resolve()
    configured = resolve_paths(data_dir=tmp_path / "d", configured_skills_dir=str(tmp_path / "mine"))
    assert configured.skills_dir == (tmp_path / "mine").resolve()
    with pytest.raises(ValueError):
        resolve_paths(data_dir=tmp_path, kira_data=tmp_path)


def test_a_relative_skills_dir_setting_is_inside_the_data_dir(tmp_path, monkeypatch):
    # settings.json (or the Settings dialog) may hold "myskills": it must not depend on where the
    # program was started. A relative --skills-dir on the command line stays relative to the shell.
    monkeypatch.chdir(tmp_path)
    configured = resolve_paths(data_dir=tmp_path / "d", configured_skills_dir="myskills")
    assert configured.skills_dir == (tmp_path / "d" / "myskills").resolve()
    given = resolve_paths(data_dir=tmp_path / "d", configured_skills_dir="myskills", skills_dir="cli")
    assert given.skills_dir == (tmp_path / "cli").resolve()


@pytest.mark.parametrize("text,expected", [
    ("30m", timedelta(minutes=30)), ("12h", timedelta(hours=12)), ("7d", timedelta(days=7)),
    ("2w", timedelta(weeks=2)), ("1d12h", timedelta(days=1, hours=12)), ("7D", timedelta(days=7)),
    (" 1H30M ", timedelta(hours=1, minutes=30)),
])
def test_ttl_grammar(text, expected):
    assert parse_ttl(text) == expected


@pytest.mark.parametrize("text", ["", "abc", "30", "d", "1.5d", "-1d", "1y", "30 d", "0m", "1d 2h", "99999999w"])
def test_bad_ttl_names_the_accepted_forms(text):
    with pytest.raises(TTLError, match="30m|longer than|zero"):
        parse_ttl(text)


def test_tests_never_use_the_real_data_dir(tmp_path):
    assert os.environ["KIRAOS_DATA_DIR"] == str(tmp_path / "default-data")
