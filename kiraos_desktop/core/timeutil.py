"""Time helpers: naive local ISO timestamps (the plugin's format), TTL grammar and expiry parsing."""
from __future__ import annotations

import functools
import re
from datetime import datetime, timedelta

TTL_FORMS = "30m, 12h, 7d, 2w, 1d12h (an integer followed by m, h, d or w, one or more groups)"
_TTL_FULL = re.compile(r"^(?:\d+[mhdw])+$", re.IGNORECASE)
_TTL_GROUP = re.compile(r"(\d+)([mhdw])", re.IGNORECASE)
_UNIT_MINUTES = {"m": 1, "h": 60, "d": 1440, "w": 10080}
# Longest TTL accepted: keeps now + ttl inside datetime's range and within reason.
_MAX_TTL = timedelta(days=365 * 100)


class TTLError(ValueError):
    pass


def to_iso(moment: datetime) -> str:
    """The plugin stores naive local time as datetime.isoformat()."""
    return moment.isoformat()


def now_iso() -> str:
    return to_iso(datetime.now())


def parse_ttl(text: str) -> timedelta:
    """`30m`, `12h`, `7d`, `2w`, `1d12h`; anything else raises TTLError naming the accepted forms."""
    if not isinstance(text, str):
        raise TTLError(f"ttl must be text like {TTL_FORMS}")
    # Bots send the same few short TTLs with every write; a long text is parsed each time, so
    # the cache holds 256 texts of at most 32 characters whatever the clients send.
    return _parse_ttl_cached(text) if len(text) <= 32 else _parse_ttl_text(text)


@functools.lru_cache(maxsize=256)
def _parse_ttl_cached(text: str) -> timedelta:
    return _parse_ttl_text(text)


def _parse_ttl_text(text: str) -> timedelta:
    compact = text.strip()
    if not compact or not _TTL_FULL.match(compact):
        raise TTLError(f"invalid ttl {text!r}; accepted forms: {TTL_FORMS}")
    minutes = sum(int(n) * _UNIT_MINUTES[u.lower()] for n, u in _TTL_GROUP.findall(compact))
    if minutes <= 0:
        raise TTLError(f"ttl {text!r} is zero; accepted forms: {TTL_FORMS}")
    delta = timedelta(minutes=minutes) if minutes < _MAX_TTL.total_seconds() / 60 else None
    if delta is None:
        raise TTLError(f"ttl {text!r} is longer than 100 years")
    return delta


def parse_timestamp(text: str) -> datetime:
    """Parse a stored or user-given timestamp (ISO date or date-time, `T` or space separated)."""
    if not isinstance(text, str) or not text.strip():
        raise ValueError("timestamp must be a non-empty ISO-8601 text such as 2026-01-31T12:00:00")
    value = text.strip()
    try:
        moment = datetime.fromisoformat(value.replace("Z", "+00:00") if value.endswith("Z") else value)
    except ValueError:
        raise ValueError(
            f"{text!r} is not a date; use ISO-8601 such as 2026-01-31 or 2026-01-31T12:00:00"
        ) from None
    if moment.tzinfo is not None:
        # Stored times are naive local time, as the plugin writes them.
        moment = moment.astimezone().replace(tzinfo=None)
    return moment


def normalize_expiry(text: str | None) -> str | None:
    """Validate an expiry for storage; None/empty means never expires."""
    if text is None or (isinstance(text, str) and not text.strip()):
        return None
    return to_iso(parse_timestamp(text))
