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
# A number of more digits exceeds _MAX_TTL in any unit (and int() refuses past 4300 digits).
_MAX_TTL_DIGITS = 9
#: The latest expiry SQLite's datetime() can compare: it rounds to milliseconds and gives NULL
#: (never expires for us, expired for the plugin) for anything from 9999-12-31T23:59:59.9995 on.
LATEST_STORABLE = datetime(9999, 12, 31, 23, 59, 59, 999000)


class TTLError(ValueError):
    """`reason` says what is wrong ("form", "zero", "too_long") so a caller can word it in its language."""

    def __init__(self, message: str, reason: str = "form") -> None:
        super().__init__(message)
        self.reason = reason


class DateRangeError(ValueError):
    """A well-formed date outside what can be stored (years 1 to 9999, SQLite's last comparable second)."""


def to_iso(moment: datetime) -> str:
    """The plugin stores naive local time as datetime.isoformat()."""
    return moment.isoformat()


def to_epoch(text: str) -> int:
    """A stored naive local ISO time as epoch seconds, as KiraOS plugin 2.x stores expiries."""
    moment = parse_timestamp(text)
    try:
        return int(moment.timestamp())
    except (OverflowError, OSError, ValueError):  # beyond what the platform's local time functions take
        offset = datetime.now().astimezone().utcoffset() or timedelta(0)
        return int((moment - offset - datetime(1970, 1, 1)).total_seconds())


def number_time_text(value) -> str:
    """A time stored as a number (epoch seconds) as naive local ISO text, as dialect.time_text() reads
    it in SQL; its text when no date can be made of it."""
    try:
        return datetime.fromtimestamp(value).isoformat(timespec="seconds")
    except (TypeError, OverflowError, OSError, ValueError):
        return str(value)


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
        raise TTLError(f"invalid ttl {_shown(text)}; accepted forms: {TTL_FORMS}")
    groups = [(n.lstrip("0") or "0", u) for n, u in _TTL_GROUP.findall(compact)]  # int() counts zeros too
    if any(len(n) > _MAX_TTL_DIGITS for n, _ in groups):
        raise TTLError(f"ttl {_shown(text)} is longer than 100 years", "too_long")
    minutes = sum(int(n) * _UNIT_MINUTES[u.lower()] for n, u in groups)
    if minutes <= 0:
        raise TTLError(f"ttl {_shown(text)} is zero; accepted forms: {TTL_FORMS}", "zero")
    delta = timedelta(minutes=minutes) if minutes < _MAX_TTL.total_seconds() / 60 else None
    if delta is None:
        raise TTLError(f"ttl {_shown(text)} is longer than 100 years", "too_long")
    return delta


def _shown(text: str, limit: int = 40) -> str:
    """A client's text quoted in a message, shortened: a reply must not echo a megabyte back."""
    return repr(text) if len(text) <= limit else repr(text[:limit]) + f"... ({len(text)} characters)"


def parse_timestamp(text: str) -> datetime:
    """Parse a stored or user-given timestamp (ISO date or date-time, `T` or space separated)."""
    if not isinstance(text, str) or not text.strip():
        raise ValueError("timestamp must be a non-empty ISO-8601 text such as 2026-01-31T12:00:00")
    value = text.strip()
    try:
        moment = datetime.fromisoformat(value.replace("Z", "+00:00") if value.endswith("Z") else value)
    except ValueError:
        raise ValueError(
            f"{_shown(text)} is not a date; use ISO-8601 such as 2026-01-31 or 2026-01-31T12:00:00"
        ) from None
    if moment.tzinfo is not None:
        # Stored times are naive local time, as the plugin writes them.
        try:
            moment = moment.astimezone().replace(tzinfo=None)
        except OverflowError:
            raise DateRangeError(f"{_shown(text)} in local time is outside the years 1 to 9999") from None
    return moment


def normalize_expiry(text: str | None) -> str | None:
    """Validate an expiry for storage; None/empty means never expires."""
    if text is None or (isinstance(text, str) and not text.strip()):
        return None
    moment = parse_timestamp(text)
    if moment > LATEST_STORABLE:
        raise DateRangeError(f"{_shown(text)} is later than {LATEST_STORABLE.isoformat(timespec='milliseconds')}, "
                             "the latest date that can be stored")
    return to_iso(moment)
