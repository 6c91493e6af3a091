"""The API bearer token: generated on first start, stored with mode 0600."""
from __future__ import annotations

import os
import secrets
from pathlib import Path

from kiraos_desktop.core.settings import atomic_write_text


def generate_token() -> str:
    return secrets.token_urlsafe(32)


def load_or_create_token(path: Path) -> str:
    try:
        token = path.read_text(encoding="utf-8").strip()
    except FileNotFoundError:
        token = ""
    if token:
        return token
    token = generate_token()
    save_token(path, token)
    return token


def save_token(path: Path, token: str) -> None:
    if not token or any(c.isspace() for c in token):
        raise ValueError("the API token must be a non-empty text without spaces")
    atomic_write_text(path, token + "\n", mode=0o600)
    if os.name == "posix":
        os.chmod(path, 0o600)
