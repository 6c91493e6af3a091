"""Application settings: defaults, validation, aliases and atomic persistence to settings.json."""
from __future__ import annotations

import dataclasses
import ipaddress
import json
import os
import re
import tempfile
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from kiraos_desktop.core import jsontext
from kiraos_desktop.core.storage.database_url import DatabaseUrlError, parse_database_url

# The KiraOS plugin's WebUI keys map onto our API keys when importing its config.
ALIASES = {"webui_host": "api_host", "webui_port": "api_port", "webui_token": "api_token"}

#: Colour scheme of the window.
COLOR_SCHEMES = ("system", "light", "dark")

#: UI language: "system" follows the locale; the others name a catalogue (resources/i18n).
LANGUAGES = ("system", "en", "zh_CN")

INT_KEYS = ("max_events_per_user", "max_profiles_per_user", "max_event_keep", "max_context_chars", "api_port")


class SettingsError(ValueError):
    """Raised with a message that names the offending key; `code` names the rule (for a translated
    message in the window): whole_number, negative, port_max, host_empty, host_invalid, token_invalid,
    database_url_invalid."""

    def __init__(self, message: str, code: str = "") -> None:
        super().__init__(message)
        self.code = code


@dataclass
class Settings:
    max_events_per_user: int = 10
    max_profiles_per_user: int = 50
    max_event_keep: int = 100
    max_context_chars: int = 500
    skills_dir: str | None = None
    disabled_skills: list[str] = field(default_factory=list)
    enable_slash_commands: bool = False
    api_host: str = "127.0.0.1"
    api_port: int = 8765
    api_token: str = ""
    language: str = "system"
    close_to_tray: bool = True  # closing the window keeps the API serving in the tray (where one exists)
    color_scheme: str = "system"  # "system" follows the desktop; "light" or "dark" forces one
    # postgresql://... puts the memory on a PostgreSQL server instead of the data dir's SQLite file
    # ("": SQLite). $KIRAOS_DATABASE_URL and --database-url override it (core/storage/database_url.py).
    database_url: str = ""

    def to_dict(self) -> dict[str, Any]:
        return dataclasses.asdict(self)

    def replace(self, **changes: Any) -> "Settings":
        merged = self.to_dict()
        merged.update(changes)
        settings, unknown = settings_from_dict(merged)
        if unknown:
            raise SettingsError(f"unknown setting: {unknown[0]}")
        return settings


def _field_names() -> set[str]:
    return {f.name for f in dataclasses.fields(Settings)}


_TOKEN = re.compile(r"^[\x21-\x7e]*$")  # empty = the generated token
_HOST_LABEL = re.compile(r"^(?!-)[A-Za-z0-9-]{1,63}(?<!-)$")


def _is_host(text: str) -> bool:
    """An IPv4/IPv6 address or a DNS name: what the server can be asked to bind."""
    try:
        ipaddress.ip_address(text.strip("[]"))
        return True
    except ValueError:
        pass
    labels = text.rstrip(".").split(".")
    if len(text) > 253 or all(label.isdigit() for label in labels):  # 999.1.1.1 is no address
        return False
    return all(_HOST_LABEL.match(label) for label in labels)


def _check(key: str, value: Any) -> Any:
    if key in INT_KEYS:
        if isinstance(value, bool) or not isinstance(value, int):
            raise SettingsError(f"{key} must be a whole number, got {value!r}", "whole_number")
        if value < 0:
            raise SettingsError(f"{key} must be 0 or more, got {value}", "negative")
        if key == "api_port" and value > 65535:
            raise SettingsError(f"api_port must be at most 65535, got {value}", "port_max")
        return value
    if key == "skills_dir":
        if value is not None and not isinstance(value, str):
            raise SettingsError(f"skills_dir must be a path or null, got {value!r}")
        return value or None
    if key == "disabled_skills":
        if not isinstance(value, list) or not all(isinstance(v, str) for v in value):
            raise SettingsError("disabled_skills must be a list of skill names")
        return list(dict.fromkeys(value))
    if key in ("enable_slash_commands", "close_to_tray"):
        if not isinstance(value, bool):
            raise SettingsError(f"{key} must be true or false, got {value!r}")
        return value
    if key == "color_scheme":
        if value not in COLOR_SCHEMES:
            raise SettingsError(f"color_scheme must be one of {', '.join(COLOR_SCHEMES)}, got {value!r}")
        return value
    if key in ("api_host", "api_token"):
        if not isinstance(value, str):
            raise SettingsError(f"{key} must be a string, got {value!r}")
        value = value.strip()
        if key == "api_host":
            if not value:
                raise SettingsError("api_host must not be empty", "host_empty")
            if not _is_host(value):
                raise SettingsError(f"api_host must be a host name or an IP address, got {value!r}", "host_invalid")
        if key == "api_token" and not _TOKEN.match(value):
            raise SettingsError("api_token must be printable ASCII without spaces (it is sent in an HTTP header)",
                                "token_invalid")
        return value
    if key == "database_url":
        if not isinstance(value, str):
            raise SettingsError(f"database_url must be a string, got {type(value).__name__}")
        value = value.strip()
        if value:
            try:
                parse_database_url(value, "setting database_url")
            except DatabaseUrlError as exc:
                raise SettingsError(str(exc), "database_url_invalid") from None
        return value
    if key == "language":
        if value not in LANGUAGES:
            raise SettingsError(f"language must be one of {', '.join(LANGUAGES)}, got {value!r}")
        return value
    raise SettingsError(f"unknown setting: {key}")


def settings_from_dict(data: dict[str, Any]) -> tuple[Settings, list[str]]:
    """Validate a mapping; returns the settings and the list of unknown keys (reported, not fatal)."""
    if not isinstance(data, dict):
        raise SettingsError("settings must be a JSON object")
    names = _field_names()
    values: dict[str, Any] = {}
    unknown: list[str] = []
    for raw_key, value in data.items():
        key = ALIASES.get(raw_key, raw_key)
        if key not in names:
            unknown.append(raw_key)
            continue
        if raw_key in ALIASES and key in data:
            continue  # the native key wins over the plugin alias
        values[key] = _check(key, value)
    return Settings(**values), unknown


def load_settings(path: Path) -> tuple[Settings, list[str]]:
    """Read settings.json; a missing file gives the defaults. Raises SettingsError on bad content."""
    try:
        text = path.read_text(encoding="utf-8-sig")  # a byte order mark (Windows editors) is no error
    except FileNotFoundError:
        return Settings(), []
    except UnicodeDecodeError as exc:
        raise SettingsError(f"{path}: not UTF-8 text (a bad byte at offset {exc.start}); save it as UTF-8") from None
    try:
        data = jsontext.loads(text)
    except json.JSONDecodeError as exc:
        raise SettingsError(f"{path}: not valid JSON (line {exc.lineno}: {exc.msg})") from exc
    except jsontext.LoneSurrogateError as exc:
        raise SettingsError(f"{path}: {exc}") from None
    try:
        return settings_from_dict(data)
    except SettingsError as exc:
        raise SettingsError(f"{path}: {exc}") from exc


def atomic_write_text(path: Path, text: str, mode: int | None = None) -> None:
    """Write via a temp file in the same folder and os.replace, so readers never see half a file."""
    path.parent.mkdir(parents=True, exist_ok=True)
    fd, tmp = tempfile.mkstemp(prefix=f".{path.name}.", suffix=".tmp", dir=path.parent)
    try:
        with os.fdopen(fd, "w", encoding="utf-8", newline="\n") as handle:
            handle.write(text)
            handle.flush()
            os.fsync(handle.fileno())
        if mode is not None:
            os.chmod(tmp, mode)
        os.replace(tmp, path)
    except BaseException:
        try:
            os.unlink(tmp)
        except FileNotFoundError:
            pass
        raise


def save_settings(path: Path, settings: Settings) -> None:
    atomic_write_text(path, json.dumps(settings.to_dict(), ensure_ascii=False, indent=2) + "\n")
