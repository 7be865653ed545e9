"""Strict reading of one top-level string field of a JSON object (the document must be exactly one object, with no
duplicated key anywhere, since two readers could otherwise see different values for the same signed field)."""

from __future__ import annotations

import json
from typing import Any


def _no_duplicates(pairs: list[tuple[str, Any]]) -> dict[str, Any]:
    out: dict[str, Any] = {}
    for key, value in pairs:
        if key in out:
            raise ValueError(f"the key '{key}' appears twice")
        out[key] = value
    return out


def _no_constants(name: str) -> Any:
    raise ValueError(f"'{name}' is not JSON")


def strict_object(data: bytes) -> dict[str, Any]:
    """Parse ``data`` as one strict JSON object; raise :class:`ValueError` with the reason otherwise."""
    try:
        doc = json.loads(data, object_pairs_hook=_no_duplicates, parse_constant=_no_constants)
    except UnicodeDecodeError as e:
        raise ValueError("the document is not valid UTF-8") from e
    except json.JSONDecodeError as e:
        raise ValueError(f"the document is not valid JSON ({e.msg} at character {e.pos})") from e
    if not isinstance(doc, dict):
        raise ValueError("the document is not a JSON object")
    return doc


def top_level_string(data: bytes, field: str) -> str | None:
    """The value of ``field`` when present and a string; ``None`` when absent; :class:`ValueError` when the document
    is not one strict JSON object or the field is not a string."""
    doc = strict_object(data)
    if field not in doc:
        return None
    value = doc[field]
    if not isinstance(value, str):
        raise ValueError(f"the field '{field}' is not a string")
    return value
