"""The JSON text of audit values (memory_changes.before/after), as json.dumps(..., ensure_ascii=False) writes it.

An entry is stored as the dict of its to_dict(). Every memory_update call encodes about five of
them, so the usual shape (text fields, a finite float confidence) is put together directly, at a
third of the generic encoder's cost; any other shape goes through the generic encoder.
"""
from __future__ import annotations

import json
import math
from json.encoder import encode_basestring as _text  # the string encoder of ensure_ascii=False
from typing import Any

from kiraos_desktop.core.memory.records import EventEntry, ProfileEntry

_generic = json.JSONEncoder(ensure_ascii=False).encode  # one encoder, not one per call


def dump_audit_value(value: Any) -> str | None:
    """JSON of a dict, list, ProfileEntry or EventEntry (entries as their to_dict()); None stays None."""
    if value is None:
        return None
    kind = type(value)
    if kind is ProfileEntry:
        return _profile(value)
    if kind is EventEntry:
        return _event(value)
    return _generic(value)


def _text_or_null(value: Any) -> str | None:
    if value is None:
        return "null"
    return _text(value) if type(value) is str else None


def _profile(entry: ProfileEntry) -> str:
    confidence = entry.confidence
    updated_at, expires_at = _text_or_null(entry.updated_at), _text_or_null(entry.expires_at)
    if (type(entry.user_id) is str and type(entry.key) is str and type(entry.value) is str
            and type(entry.category) is str and type(confidence) is float and math.isfinite(confidence)
            and updated_at is not None and expires_at is not None):
        return (f'{{"user_id": {_text(entry.user_id)}, "key": {_text(entry.key)}, "value": {_text(entry.value)}, '
                f'"updated_at": {updated_at}, "confidence": {float.__repr__(confidence)}, '
                f'"category": {_text(entry.category)}, "expires_at": {expires_at}}}')
    return _generic(entry.to_dict())


def _event(entry: EventEntry) -> str:
    created_at = _text_or_null(entry.created_at)
    if entry.tag is None and type(entry.id) is int and type(entry.user_id) is str and type(entry.summary) is str and created_at is not None:
        return (f'{{"id": {int.__repr__(entry.id)}, "user_id": {_text(entry.user_id)}, '
                f'"summary": {_text(entry.summary)}, "created_at": {created_at}}}')
    return _generic(entry.to_dict())
