"""Value objects of the memory domain and the validation of what may be stored."""
from __future__ import annotations

import math
from dataclasses import dataclass
from typing import Any

from kiraos_desktop.core.timeutil import normalize_expiry, parse_timestamp

CATEGORIES = ("basic", "preference", "social", "other")
CATEGORY_RANK = {name: rank for rank, name in enumerate(CATEGORIES)}
MAX_USER_ID_CHARS = 256
MAX_KEY_CHARS = 256
MAX_VALUE_CHARS = 4000
MAX_EVENT_CHARS = 1000
MAX_TAG_CHARS = 64


class StoreError(Exception):
    """Base of the store's errors; the message is meant for the user."""


class ValidationError(StoreError, ValueError):
    def __init__(self, field: str, message: str) -> None:
        super().__init__(f"{field}: {message}")
        self.field = field
        self.message = message


class LimitError(StoreError):
    """`limit` is the number reached (0 when the message is about something else)."""

    def __init__(self, message: str, limit: int = 0) -> None:
        super().__init__(message)
        self.limit = limit


class NotFoundError(StoreError, LookupError):
    pass


class ReadOnlyData(StoreError):
    """A write a KiraOS 3.x tree does not take this way (the store's row edits); nothing was changed."""


class StoreUnavailable(StoreError):
    """The database server cannot be reached or refused us (address, password, database, a lost
    connection); nothing of the failed operation was written. The message says what to do and
    never holds a password. The store reconnects by itself on a later operation."""

    #: What storage/errors.py classified it as (busy, conflict, disk full, permission), None otherwise.
    kind: str | None = None


@dataclass(frozen=True)
class ProfileEntry:
    user_id: str
    key: str
    value: str
    updated_at: str | None
    confidence: float
    category: str
    expires_at: str | None

    def is_expired(self, now_iso: str) -> bool:
        if not self.expires_at:
            return False
        try:
            return parse_timestamp(self.expires_at) <= parse_timestamp(now_iso)
        except ValueError:
            return False  # unparseable expiry: SQLite's datetime() gives NULL, treated as not expired

    def to_dict(self) -> dict[str, Any]:
        # Explicit rather than dataclasses.asdict, which deep-copies and is slow on the write path.
        return {"user_id": self.user_id, "key": self.key, "value": self.value, "updated_at": self.updated_at,
                "confidence": self.confidence, "category": self.category, "expires_at": self.expires_at}


@dataclass(frozen=True)
class EventEntry:
    id: int
    user_id: str
    summary: str
    created_at: str | None
    tag: str | None = None  # KiraOS plugin 2.x's event tag (milestone, daily, mood ...); None: none

    def to_dict(self) -> dict[str, Any]:
        data = {"id": self.id, "user_id": self.user_id, "summary": self.summary, "created_at": self.created_at}
        if self.tag is not None:  # the audit of untagged data stays as it was
            data["tag"] = self.tag
        return data


@dataclass(frozen=True)
class UserSummary:
    user_id: str
    profile_count: int
    event_count: int
    last_activity: str | None


@dataclass(frozen=True)
class Stats:
    total_users: int
    total_profiles: int
    total_events: int


@dataclass(frozen=True)
class ChangeRecord:
    id: int
    at: str
    user_id: str
    actor: str
    action: str
    target: str | None
    before: Any
    after: Any


def user_id_ok(user_id: Any) -> bool:
    """Whether check_user_id() accepts `user_id`, without raising (the API's fast paths ask this)."""
    return type(user_id) is str and 0 < len(user_id) <= MAX_USER_ID_CHARS and not user_id.isspace()


def check_user_id(user_id: Any) -> str:
    if not isinstance(user_id, str) or not user_id.strip():
        raise ValidationError("user_id", "must be a non-empty text")
    if len(user_id) > MAX_USER_ID_CHARS:
        raise ValidationError("user_id", f"must be at most {MAX_USER_ID_CHARS} characters")
    return user_id


def check_key(key: Any) -> str:
    if not isinstance(key, str) or not key.strip():
        raise ValidationError("key", "must be a non-empty text")
    if len(key) > MAX_KEY_CHARS:
        raise ValidationError("key", f"must be at most {MAX_KEY_CHARS} characters")
    return key.strip()


def check_value(value: Any) -> str:
    if isinstance(value, bool) or value is None:
        raise ValidationError("value", "must be a non-empty text")
    if isinstance(value, float) and not math.isfinite(value):  # JSON's 1e400 reads as inf
        raise ValidationError("value", f"must be a text or a finite number, got {value}")
    if isinstance(value, (int, float)):
        value = str(value)
    if not isinstance(value, str) or not value.strip():
        raise ValidationError("value", "must be a non-empty text")
    if len(value) > MAX_VALUE_CHARS:
        raise ValidationError("value", f"must be at most {MAX_VALUE_CHARS} characters")
    return value


def check_confidence(confidence: Any) -> float:
    if isinstance(confidence, str):
        try:
            confidence = float(confidence)
        except ValueError:
            raise ValidationError("confidence", "must be a number between 0 and 1") from None
    if isinstance(confidence, bool) or not isinstance(confidence, (int, float)):
        raise ValidationError("confidence", "must be a number between 0 and 1")
    try:
        number = float(confidence)
    except OverflowError:  # an integer beyond a double
        number = math.inf
    if not 0.0 <= number <= 1.0:  # NaN fails too
        raise ValidationError("confidence", f"must be between 0 and 1, got {number:g}")
    return number


def check_category(category: Any) -> str:
    if category not in CATEGORIES:
        raise ValidationError("category", f"must be one of {', '.join(CATEGORIES)}, got {category!r}")
    return category


def check_expiry(expires_at: Any) -> str | None:
    if expires_at is not None and not isinstance(expires_at, str):
        raise ValidationError("expires_at", "must be an ISO-8601 date text or null")
    try:
        return normalize_expiry(expires_at)
    except ValueError as exc:
        raise ValidationError("expires_at", str(exc)) from None


def check_tag(tag: Any) -> str | None:
    """An event tag as stored: trimmed text, None for none (None or blank, as the plugin stores it)."""
    if tag is None:
        return None
    if not isinstance(tag, str):
        raise ValidationError("tag", "must be a text such as milestone, daily or mood")
    tag = tag.strip()
    if len(tag) > MAX_TAG_CHARS:
        raise ValidationError("tag", f"must be at most {MAX_TAG_CHARS} characters")
    return tag or None


def check_event_text(summary: Any) -> str:
    if not isinstance(summary, str) or not summary.strip():
        raise ValidationError("event_summary", "must be a non-empty text")
    if len(summary) > MAX_EVENT_CHARS:
        raise ValidationError("event_summary", f"must be at most {MAX_EVENT_CHARS} characters")
    return summary
