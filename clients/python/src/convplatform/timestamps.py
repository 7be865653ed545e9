"""Strict ``YYYY-MM-DDThh:mm:ssZ`` timestamps and the freshness window of spec 5.1 step 4 and 5.2 step 5."""

from __future__ import annotations

import datetime as _dt
import re

from .errors import FailureCode, VerificationError

__all__ = ["HOOK_TOLERANCE_SECONDS", "MANAGEMENT_TOLERANCE_SECONDS", "check_window", "format_timestamp",
           "parse_timestamp"]

#: Spec section 8: hook requests.
HOOK_TOLERANCE_SECONDS = 120
#: Spec section 8: management requests.
MANAGEMENT_TOLERANCE_SECONDS = 150

_SHAPE = re.compile(r"([0-9]{4})-([0-9]{2})-([0-9]{2})T([0-9]{2}):([0-9]{2}):([0-9]{2})Z")


def _days_from_civil(y: int, m: int, d: int) -> int:
    """Days since 1970-01-01 in the proleptic Gregorian calendar (any year, including 0000)."""
    y -= m <= 2
    era = y // 400
    yoe = y - era * 400
    doy = (153 * (m + (-3 if m > 2 else 9)) + 2) // 5 + d - 1
    doe = yoe * 365 + yoe // 4 - yoe // 100 + doy
    return era * 146097 + doe - 719468


def _leap(y: int) -> bool:
    return y % 4 == 0 and (y % 100 != 0 or y % 400 == 0)


def parse_timestamp(value: str | None) -> int:
    """Parse a strict ``YYYY-MM-DDThh:mm:ssZ`` timestamp (UTC, whole seconds, capital T and Z) to epoch seconds.

    Raises :class:`VerificationError` ``TIMESTAMP_MALFORMED`` for anything else, including impossible dates.
    """
    if value is None or value == "":
        raise VerificationError(FailureCode.TIMESTAMP_MALFORMED, "The timestamp is missing")
    m = _SHAPE.fullmatch(value)
    if m is None:
        shown = value if len(value) <= 40 else value[:40] + "..."
        raise VerificationError(
            FailureCode.TIMESTAMP_MALFORMED,
            f"The timestamp '{shown}' is not of the form YYYY-MM-DDThh:mm:ssZ (UTC, whole seconds, capital T and Z)",
        )
    y, mo, d, h, mi, s = (int(g) for g in m.groups())
    month_days = [31, 29 if _leap(y) else 28, 31, 30, 31, 30, 31, 31, 30, 31, 30, 31]
    if not (1 <= mo <= 12 and 1 <= d <= month_days[mo - 1] and h <= 23 and mi <= 59 and s <= 59):
        raise VerificationError(FailureCode.TIMESTAMP_MALFORMED, f"The timestamp '{value}' is not a real date and time")
    return _days_from_civil(y, mo, d) * 86400 + h * 3600 + mi * 60 + s


def format_timestamp(when: _dt.datetime) -> str:
    """Format an aware datetime as ``YYYY-MM-DDThh:mm:ssZ`` in UTC, truncated to the second."""
    if when.tzinfo is None:
        raise ValueError("an aware datetime is required (for example datetime.now(timezone.utc))")
    return when.astimezone(_dt.timezone.utc).strftime("%Y-%m-%dT%H:%M:%SZ")


def check_window(value: str | None, now: _dt.datetime, tolerance_seconds: int) -> int:
    """Check that ``value`` parses and lies within ``tolerance_seconds`` of ``now``, in either direction, exact to the
    millisecond: exactly the tolerance is accepted, the tolerance and 1 ms is refused (``now`` keeps its fraction; it
    used to be rounded down to whole seconds, which let up to 0.999 s more through). Returns the timestamp as epoch
    seconds."""
    ts = parse_timestamp(value)
    now_ms = _millis(now)
    skew_ms = abs(now_ms - ts * 1000)
    if skew_ms > tolerance_seconds * 1000:
        direction = "in the past" if ts * 1000 < now_ms else "in the future"
        server = _dt.datetime.fromtimestamp(now_ms // 1000, _dt.timezone.utc).strftime("%Y-%m-%dT%H:%M:%SZ")
        skew = str(skew_ms // 1000) if skew_ms % 1000 == 0 else f"{skew_ms // 1000}.{skew_ms % 1000:03d}"
        raise VerificationError(
            FailureCode.TIMESTAMP_OUT_OF_WINDOW,
            f"The timestamp {value} is {skew} s {direction}; at most {tolerance_seconds} s either way is accepted "
            f"(server time {server}); sync the clock (NTP) and sign just before sending",
        )
    return ts


def _millis(when: _dt.datetime) -> int:
    """Epoch milliseconds of a datetime, exactly (no float rounding), the sub-millisecond part dropped."""
    if when.tzinfo is None:
        when = when.astimezone()  # a naive one is local time, as datetime.timestamp() takes it
    delta = when - _dt.datetime(1970, 1, 1, tzinfo=_dt.timezone.utc)
    return (delta.days * 86400 + delta.seconds) * 1000 + delta.microseconds // 1000
