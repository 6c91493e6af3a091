"""Reading what an operator types as an expiry (a TTL such as 30d, or a date) and showing expiries."""
from __future__ import annotations

import re
from datetime import date, datetime, timedelta

from PySide6.QtCore import QObject

from kiraos_desktop.core.timeutil import DateRangeError, TTLError, normalize_expiry, parse_timestamp, parse_ttl, to_iso


class Expiry(QObject):
    """Translation context of expiry texts: `Expiry.tr()` is what lupdate reads (plurals included)."""


_NAIVE_ISO = re.compile(r"^\d{4}-\d\d-\d\d[T ]\d\d:\d\d(:\d\d(\.\d+)?)?$")


class ExpiryInputError(ValueError):
    """The text is neither a TTL nor a date; the message names both accepted forms."""


def parse_expiry_input(text: str, now: datetime | None = None) -> str | None:
    """Empty -> None (never expires); `30m`/`12h`/`7d`/`2w`/`1d12h` -> now + TTL; else an ISO date."""
    value = (text or "").strip()
    if not value:
        return None
    moment = now or datetime.now()
    if value[0].isdigit() and value[-1].lower() in "mhdw":
        try:
            return to_iso((moment + parse_ttl(value)).replace(microsecond=0))
        except TTLError as exc:
            raise ExpiryInputError(_ttl_message(value, exc.reason)) from None
        except OverflowError:
            raise ExpiryInputError(Expiry.tr("that TTL reaches past the year 9999")) from None
    try:
        return normalize_expiry(value)
    except DateRangeError:
        raise ExpiryInputError(
            Expiry.tr("“{text}” is outside the dates that can be stored: from the year 1 "
                      "to 9999-12-31 23:59:59.").format(text=value)) from None
    except ValueError:
        raise ExpiryInputError(_ttl_message(value, "form")) from None


def _ttl_message(value: str, reason: str) -> str:
    """The core's TTL errors are English protocol texts; the window says them in its own language."""
    if reason == "zero":
        return Expiry.tr("“{text}” is a TTL of zero. Use at least one minute, such as 30m, 12h or 7d, "
                         "or leave it empty for “never”.").format(text=value)
    if reason == "too_long":
        return Expiry.tr("“{text}” is longer than 100 years. Use a shorter TTL or a date, "
                         "or leave it empty for “never”.").format(text=value)
    return Expiry.tr("“{text}” is neither a TTL nor a date. Use a TTL such as 30m, 12h, 7d, 2w "
                     "or 1d12h, a date such as {date} or {date} 18:00, or leave it empty for “never”."
                     ).format(text=value, date=example_date())


def example_date() -> str:
    """A date to show as an example of an expiry: a month from today (a fixed one was in the past soon)."""
    return (date.today() + timedelta(days=30)).isoformat()


def format_timestamp(text: str | None, with_time: bool = True) -> str:
    """`2026-01-31T18:00:05.123` -> `2026-01-31 18:00` (what people read); unparseable text as is."""
    if not text:
        return ""
    if _NAIVE_ISO.match(text):  # what both programs store: no parsing needed
        return text[:10] + " " + text[11:16] if with_time else text[:10]
    try:
        moment = parse_timestamp(text)
    except ValueError:
        return text
    return moment.strftime("%Y-%m-%d %H:%M" if with_time else "%Y-%m-%d")


def describe_remaining(expires_at: str | None, now: datetime | None = None) -> str:
    """`3 d`, `5 h`, `expired`: the time left, a short hint next to an expiry date."""
    if not expires_at:
        return ""
    try:
        moment = parse_timestamp(expires_at)
    except ValueError:
        return Expiry.tr("unreadable date")
    seconds = (moment - (now or datetime.now())).total_seconds()
    if seconds <= 0:
        return Expiry.tr("expired")
    # Rounded to the nearest unit: a TTL of 7d typed a moment ago still reads "7 d", not "6 d".
    minutes = round(seconds / 60)
    if minutes < 60:
        return Expiry.tr("{n} min").format(n=max(1, minutes))
    hours = round(seconds / 3600)
    if hours < 48:
        return Expiry.tr("{n} h").format(n=hours)
    return Expiry.tr("{n} d").format(n=round(seconds / 86400))
