"""A key repeated within a JSON object is refused in files as in API bodies: settings.json, import files,
the command line's --arguments (which value would count depends on the reader)."""
from __future__ import annotations

import json

import pytest

from kiraos_desktop.core import jsontext
from kiraos_desktop.core.settings import SettingsError, load_settings
from kiraos_desktop.core.transfer.export_import import NotAnExport, read_import_file


def test_loads_refuses_a_repeated_key_and_says_where():
    text = '{\n  "a": 1,\n  "b": {"x": 1,\n        "x": 2}\n}'
    with pytest.raises(jsontext.RepeatedKeyError) as caught:
        jsontext.loads(text)
    assert isinstance(caught.value, json.JSONDecodeError)
    assert '"x" appears twice' in caught.value.msg and caught.value.lineno == 4
    assert jsontext.loads('{"a": {"x": 1}, "b": {"x": 2}}') == {"a": {"x": 1}, "b": {"x": 2}}  # not across objects


def test_settings_json_with_a_repeated_key_is_refused(tmp_path):
    path = tmp_path / "settings.json"
    path.write_text('{"api_port": 8765, "api_port": 9000}', encoding="utf-8")
    with pytest.raises(SettingsError, match='"api_port" appears twice'):
        load_settings(path)


def test_an_import_file_with_a_repeated_key_is_refused(tmp_path):
    path = tmp_path / "export.json"
    path.write_text('{"format": "kiraos-desktop-export", "version": 1, "users": [{"user_id": "a", "user_id": "b", '
                    '"profiles": [], "events": []}]}', encoding="utf-8")
    with pytest.raises(NotAnExport, match='"user_id" appears twice'):
        read_import_file(path)
