from __future__ import annotations

import datetime as dt

import pytest

from convplatform import FailureCode, VerificationError, format_timestamp, parse_timestamp
from convplatform.timestamps import check_window


def test_parse_and_format_round_trip() -> None:
    when = dt.datetime(2026, 6, 1, 12, 0, 30, 999000, tzinfo=dt.timezone.utc)
    assert format_timestamp(when) == "2026-06-01T12:00:30Z"
    assert parse_timestamp("2026-06-01T12:00:30Z") == int(when.replace(microsecond=0).timestamp())
    assert format_timestamp(dt.datetime(2026, 6, 1, 14, 0, tzinfo=dt.timezone(dt.timedelta(hours=2)))) == (
        "2026-06-01T12:00:00Z"
    )
    with pytest.raises(ValueError):
        format_timestamp(dt.datetime(2026, 6, 1))


@pytest.mark.parametrize(
    "value",
    ["2024-02-29T00:00:00Z", "2000-02-29T23:59:59Z", "0000-01-01T00:00:00Z", "9999-12-31T23:59:59Z"],
)
def test_real_dates_parse(value: str) -> None:
    parse_timestamp(value)


def test_year_zero_is_a_date_far_in_the_past() -> None:
    assert parse_timestamp("0000-01-01T00:00:00Z") == -62167219200
    with pytest.raises(VerificationError) as e:
        check_window("0000-01-01T00:00:00Z", dt.datetime(2026, 6, 1, tzinfo=dt.timezone.utc), 120)
    assert e.value.code == FailureCode.TIMESTAMP_OUT_OF_WINDOW


@pytest.mark.parametrize(
    "value",
    [None, "", "2023-02-29T00:00:00Z", "1900-02-29T00:00:00Z", "2026-13-01T00:00:00Z", "2026-04-31T00:00:00Z",
     "2026-06-01T24:00:00Z", "2026-06-01T12:60:00Z", "2026-06-01T12:00:60Z", "2026-06-01T12:00Z",
     "26-06-01T12:00:00Z", "2026-06-01T12:00:00.5Z", "\u0662026-06-01T12:00:00Z", "2026-06-01T12:00:00Z\n",
     "x" * 100],
)
def test_malformed(value: str | None) -> None:
    with pytest.raises(VerificationError) as e:
        parse_timestamp(value)
    assert e.value.code == FailureCode.TIMESTAMP_MALFORMED


@pytest.mark.parametrize("tolerance", [120, 150])
def test_the_window_is_exact_to_the_millisecond(tolerance: int) -> None:
    now = dt.datetime(2026, 6, 1, 12, 0, tzinfo=dt.timezone.utc)
    old = format_timestamp(now - dt.timedelta(seconds=tolerance))
    check_window(old, now, tolerance)
    with pytest.raises(VerificationError) as e:
        check_window(old, now + dt.timedelta(milliseconds=1), tolerance)
    assert e.value.code == FailureCode.TIMESTAMP_OUT_OF_WINDOW
    assert f"is {tolerance}.001 s in the past; at most {tolerance} s" in str(e.value)
    ahead = format_timestamp(now + dt.timedelta(seconds=tolerance))
    check_window(ahead, now, tolerance)
    with pytest.raises(VerificationError):
        check_window(ahead, now - dt.timedelta(milliseconds=1), tolerance)
